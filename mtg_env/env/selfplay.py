"""A single-agent Gymnasium view of the duel for Stable-Baselines3 (`mtg_env/SelfPlay-v0`;
with the entity observation, `mtg_env/SelfPlayEntity-v1`).

The learner's seat alternates per episode, starting from the seat the last seed picked
(`learner_seat(seed)`; seat 0 if the env was never seeded); the opponent (an agent spec
such as "random", an agent object with `act(observation, mask, info)`, or a plain callable
with that signature) moves inside `step` until the learner must decide or the game ends.
The learner's reward arrives even when the game ends on the opponent's move.
An illegal action (masked out) ends the episode with reward -1 (PettingZoo's convention).
`action_masks()` serves sb3-contrib's MaskablePPO, and `info["action_mask"]` (int8) carries
the same mask on every reset and step, as does the entity observation's `action_mask`. A
finished episode's mask allows index 0 alone (`pass`), never nothing, so masking code that
sets masked logits to -inf stays finite (on the final observation of an autoreset too).
Swap the opponent at run time with `set_opponent` (for snapshot pools).

Seeds: `reset(seed=s)` seeds everything the env owns: the game (decks, shuffles), the
learner's seat (`learner_seat(s)` first, so an evaluation over seeds plays both seats) and
the opponent: an opponent given as a spec is rebuilt with a seed derived from `s`, an agent
object with a `reseed(seed)` method is reseeded; a plain callable keeps its own randomness.
Same seed and same actions give the same trajectory, whatever the env played before. A copy
(`copy.deepcopy`, `pickle`) holds the live game.

An opponent that decides from the engine state (the heuristic and ISMCTS agents, or any
object with `decides_from_engine = True` and `choose(game) -> Action`, checked at each
reset) moves through `raw_env.step_engine`: the env builds no observation and no mask for
its decisions, and the game and its replay are the same as through `act`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from time import perf_counter
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..render import render
from .duel import AGENTS, as_action, check_seed, raw_env

Opponent = Any


@cache
def agent_factory() -> Callable[[str, int], Any]:
    """What turns an agent spec ("random", "heuristic", "policy:PATH") into an agent: the
    `make_agent` entry point (group `mtg_env.agents`) of the installed agents package.
    The env finds agents through the package metadata, so it never imports them."""
    found = entry_points(group="mtg_env.agents", name="make_agent")
    if not found:
        raise RuntimeError(
            "no agents are installed (entry point mtg_env.agents:make_agent): "
            "install the project (pip install -e .) or pass an agent object"
        )
    return next(iter(found)).load()


def learner_seat(seed: int) -> int:
    """The learner's seat in the first episode after `reset(seed=seed)`: one bit of a stream
    of its own derived from the seed (the game's and the opponent's streams are untouched),
    so that an evaluation over seeds plays both seats, and one seed always the same seat."""
    return int(np.random.default_rng([seed, 0x5EA7]).integers(2))


def make_opponent(spec: Opponent, seed: int = 0) -> Any:
    if isinstance(spec, str):
        return agent_factory()(spec, seed)
    if hasattr(spec, "act") or callable(spec):
        return spec
    raise TypeError("opponent must be an agent spec string, an agent, or a callable")


def reseeded(spec: Opponent, opponent: Any, seed: int) -> Any:
    """The opponent after `reset(seed=seed)`: its randomness from a stream of its own derived
    from the seed (the game's stream is left as it was). A spec is built again with that
    seed, an agent with a `reseed(seed)` method is reseeded, a plain callable kept as is."""
    opp_seed = int(np.random.default_rng([seed, 0x0BB0]).integers(2**31))
    if isinstance(spec, str):
        return make_opponent(spec, opp_seed)
    if callable(getattr(opponent, "reseed", None)):
        opponent.reseed(opp_seed)
    return opponent


def decide(opponent: Any, obs: Any, mask: np.ndarray, info: dict[str, Any]) -> int:
    """An index-deciding opponent's move: an agent's `act`, or the callable itself."""
    if hasattr(opponent, "act"):
        return int(opponent.act(obs, mask, info))
    return int(opponent(obs, mask, info))


class SelfPlayEnv(gym.Env):
    # render_fps: the frame rate video recorders (gymnasium.wrappers.RecordVideo) write.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        format: str = "classic",
        decks: Any = None,
        opponent: Opponent = "random",
        max_decisions: int = 3000,
        auto_pass: bool = True,
        reward_shaping: bool = False,
        mulligans: bool = True,
        render_mode: str | None = None,
        replay_hashes: bool = True,
        obs_type: str = "flat",
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.aec = raw_env(
            format=format,
            decks=decks,
            render_mode=None,
            max_decisions=max_decisions,
            auto_pass=auto_pass,
            reward_shaping=reward_shaping,
            mulligans=mulligans,
            replay_hashes=replay_hashes,
            obs_type=obs_type,
        )
        self.render_mode = render_mode
        self.layout = self.aec.layout
        self.observer = self.aec.observer  # what the learner sees (`mtg_env.env.observers`)
        self.observation_space = self.observer.space
        self.action_space = spaces.Discrete(self.aec.n_actions)
        self._opponent_spec = opponent
        self.opponent = make_opponent(opponent)
        self._engine_opponent = False
        self.episode = 0
        self._first_seat = 0  # the learner's seat in episode 0 (from the last seed)
        self.learner = 0
        self._illegal = False
        # Wall time spent inside the opponent's own decision function (agent thinking, not
        # the env), so benchmarks can tell the env's cost from the opponent's.
        self.opponent_seconds = 0.0

    def set_opponent(self, opponent: Opponent) -> None:
        self._opponent_spec = opponent
        self.opponent = make_opponent(opponent)

    def _reseed_opponent(self, seed: int) -> None:
        self.opponent = reseeded(self._opponent_spec, self.opponent, seed)

    def call_opponent(self, name: str, *args: Any) -> Any:
        """Call a method of the opponent (for snapshot pools across subprocess envs)."""
        return getattr(self.opponent, name)(*args)

    @property
    def game(self) -> Any:
        return self.aec.game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self.episode = 0
            self._first_seat = learner_seat(seed)
            self._reseed_opponent(seed)
        self.learner = (self._first_seat + self.episode) % 2
        if options and "learner_seat" in options:
            seat = options["learner_seat"]
            if isinstance(seat, bool) or seat not in (0, 1):
                raise ValueError(f"reset: options['learner_seat'] must be 0 or 1, not {seat!r}")
            self.learner = int(seat)
        self.episode += 1
        self._illegal = False
        game_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.aec.reset(seed=game_seed)
        if hasattr(self.opponent, "reset"):
            self.opponent.reset()
        # An opponent whose `act` is only `choose(game)` mapped to an index (the engine
        # agents; a pool while it plays one) moves by engine action: no observation, no mask.
        self._engine_opponent = bool(getattr(self.opponent, "decides_from_engine", False))
        self.aec.engine_seat = 1 - self.learner if self._engine_opponent else None
        self._play_opponent()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        me = AGENTS[self.learner]
        aec = self.aec
        if (
            self._illegal
            or aec.agent_selection != me
            or aec.terminations[me]
            or (aec.truncations[me])
        ):
            raise RuntimeError("step() called when the learner has no decision; call reset()")
        action = as_action(action)
        mask = aec.legal_moves().mask
        if not (0 <= action < len(mask)) or not mask[action]:
            # PettingZoo's illegal-move convention: the episode ends and the learner gets -1.
            self._illegal = True
            info = self._info()
            info["illegal_action"] = action
            return self._obs(), -1.0, True, False, info
        aec.step(action)
        self._play_opponent()
        reward = float(aec._cumulative_rewards.get(me, 0.0))
        aec._cumulative_rewards[me] = 0.0
        terminated = bool(aec.terminations.get(me, False))
        truncated = bool(aec.truncations.get(me, False))
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, self._info()

    def _play_opponent(self) -> None:
        aec = self.aec
        opp = AGENTS[1 - self.learner]
        direct = self._engine_opponent
        while aec.agent_selection == opp and not aec.terminations[opp] and not aec.truncations[opp]:
            game = aec.game
            if direct:
                # An engine agent decides from the game itself: no observation, no mask.
                t = perf_counter()
                act = self.opponent.choose(game)
                self.opponent_seconds += perf_counter() - t
                aec.step_engine(act)
                continue
            mask = aec.legal_moves().mask
            info = {"game": game, "seat": 1 - self.learner, "env": aec}
            obs = (
                self._observe(1 - self.learner)
                if getattr(self.opponent, "needs_observation", True)
                else None
            )
            t = perf_counter()
            a = decide(self.opponent, obs, mask, info)
            self.opponent_seconds += perf_counter() - t
            aec.step(a)

    def _obs(self) -> Any:
        # Where the observation holds a mask (entity), it is the learner's mask
        # (`action_masks()`): once the episode is over (the game ended, an illegal action) it
        # allows index 0 alone, where the AEC env's mask of a finished agent is all zeros.
        return self.observer.learner_view(self._observe(self.learner), self._mask())

    def _observe(self, seat: int) -> Any:
        g = self.aec._g()
        legal = self.aec.legal_moves() if g.current_player == seat else None
        return self.observer.observe(g, seat, legal)

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (for MaskablePPO); when the learner
        has no decision (the episode is over), index 0 alone."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        aec = self.aec
        me = AGENTS[self.learner]
        if (
            aec.game is None
            or aec.game.current_player != self.learner
            or self._illegal
            or aec.terminations.get(me)
            or aec.truncations.get(me)
        ):
            mask = np.zeros(self.aec.n_actions, dtype=np.int8)
            mask[0] = 1  # never all zeros: -inf masking would give NaN
            return mask
        return aec.legal_moves().mask.copy()

    def _info(self) -> dict[str, Any]:
        g = self.aec.game
        info: dict[str, Any] = {"learner_seat": self.learner, "action_mask": self._mask()}
        if g is not None and g.is_over:
            info["winner"] = g.winner
            info["truncated"] = g.truncated
        return info

    def render(self) -> str | np.ndarray | None:
        """The board as the learner sees it (the opponent's hand is a count): text
        ("ansi", and without a render mode), printed ("human") or a picture ("rgb_array",
        the learner in the lower half)."""
        if self.render_mode == "rgb_array":
            from .image import draw_board  # Pillow loads with the first picture

            return draw_board(self.aec._g(), seat=self.learner, bottom=self.learner)
        text = render(self.aec._g(), seat=self.learner)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def describe_action(self, i: int) -> str:
        return self.aec.describe_action(i)

    def text(self) -> str:
        """The learner's view and its legal actions, numbered as `step` takes them."""
        return self.aec.text(AGENTS[self.learner])
