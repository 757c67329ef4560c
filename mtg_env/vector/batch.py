"""`DuelBatch`: N duels stepped by one call, their observations and masks written into
preallocated batch arrays. The gymnasium and SB3 vector envs (`mtg_env.vector`) are thin
views of it; the module docstring of `mtg_env.vector` is its documentation.

Each game follows exactly the rules of the single env it stands for, so that a batch and
N single envs stepped with the same seeds and actions give the same games: in learner mode
a `SelfPlayEnv` (the learner's seat alternating per episode, the opponent inside the step),
in self-play mode the PettingZoo `raw_env` (the acting seat returned). What a batch leaves
out is what makes N single envs slow: per-env dictionaries of rewards and flags, replay
recording, and a fresh observation array per step.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from ..engine import Action, Game, IllegalActionError, load_cards
from ..env.duel import _deck_spec, check_args, check_seed, pick_pair
from ..env.observers import OBSERVERS, Legal, Observer, make_observer
from ..env.selfplay import decide, make_opponent, reseeded
from ..env.selfplay import learner_seat as seat_from_seed
from ..env.spaces import Layout
from ..env.step import NO_INDEX, TERMINATED, TRUNCATED, advance, engine_move

OBS_TYPES = tuple(OBSERVERS)


# gymnasium's autoreset modes by value (`gymnasium.vector.AutoresetMode`, gymnasium >= 1.1;
# the batch itself runs on older releases too).
NEXT_STEP, SAME_STEP, DISABLED = "NextStep", "SameStep", "Disabled"
AUTORESET_MODES = (NEXT_STEP, SAME_STEP, DISABLED)


def autoreset_mode_of(mode: Any) -> str:
    """The value of an autoreset mode given as gymnasium's `AutoresetMode` or its value,
    as gymnasium's own vector envs take it; or a one-line error."""
    value = getattr(mode, "value", mode)
    if not isinstance(value, str) or value not in AUTORESET_MODES:
        raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)}, not {mode!r}")
    return value


def check_reset_mask(mask: Any, n: int) -> np.ndarray | None:
    """A partial reset's games: a boolean array of shape (n,), or a one-line error."""
    if mask is None:
        return None
    m = np.asarray(mask)
    if m.shape != (n,) or m.dtype != np.bool_:
        raise ValueError(
            f"reset: reset_mask must be a bool array of shape ({n},), "
            f"not {m.dtype} of shape {m.shape}"
        )
    return m


def check_learner_seat(seat: Any, learner_mode: bool) -> None:
    """`reset(learner_seat=...)`: None, or 0 or 1 in learner mode; or a one-line error."""
    if seat is None:
        return
    if not learner_mode:
        raise ValueError("reset: learner_seat needs an opponent (learner mode)")
    if isinstance(seat, bool) or seat not in (0, 1):
        raise ValueError(f"reset: learner_seat must be 0 or 1, not {seat!r}")


def illegal_message(game: int, action: int, seat: int) -> str:
    return f"game {game}: action {action} is not legal for seat {seat} now"


def ended_message(game: int) -> str:
    return f"game {game} has ended and autoreset is disabled: reset it first (reset_mask)"


def game_seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """Each game's seed: `seed + i` for an int, `seed[i]` for a list, None for None."""
    if seed is None or isinstance(seed, int | np.integer):
        s = check_seed(seed)
        return [None if s is None else s + i for i in range(n)]
    seeds = [check_seed(x) for x in seed]
    if len(seeds) != n:
        raise ValueError(f"reset: {len(seeds)} seeds for {n} games")
    return seeds


def check_actions(actions: Any, n: int) -> np.ndarray:
    """`actions` as an integer array of shape (n,), or a one-line error."""
    acts = np.asarray(actions)
    if acts.shape != (n,):
        raise ValueError(f"step: actions of shape {acts.shape}, expected ({n},)")
    if not np.issubdtype(acts.dtype, np.integer):
        raise TypeError(f"step: actions must be integers, not {acts.dtype}")
    return acts


class DuelBatch:
    """N games of one format, stepped together.

    Learner mode (`opponent` given: an agent spec such as "random" or "heuristic", built
    once per game, or an agent object or callable, shared by the games; or
    `opponent_factory(i)`, called once per game): `seats[i]` is the learner's seat in
    game i, the opponent moves inside `step`, and `rewards[i]` is the learner's. Self-play
    mode (`opponent=None`): `seats[i]` is the seat that must act in game i and
    `rewards[i, s]` is seat s's reward for the move just made.

    `finals` lists the games that ended in the last `step`, with the winner and, in learner
    mode, the learner's last observation (`final_obs`). What follows the end is gymnasium's
    autoreset mode `autoreset_mode`:

    - `"SameStep"` (the default): the game starts again in the same step; the arrays hold
      the new game's first observation. No step is spent on a finished game, which is what
      self-play rollouts, SB3's `VecEnv` and the benchmark want.
    - `"NextStep"`: the arrays hold the ended game's last observation (mask: index 0
      alone) and `needs_reset[i]` is set; the next `step` ignores the game's action and
      starts it again (rewards 0, flags clear).
    - `"Disabled"`: as `"NextStep"`, but the game waits for `reset(mask=...)`; a `step`
      before that is refused.

    Every action is checked before any game moves: a self-play step with an illegal index
    raises `IllegalActionError` naming the game and leaves every game as it was.
    """

    def __init__(
        self,
        num_games: int,
        format: str = "classic",
        decks: Any = None,
        *,
        obs_type: str = "flat",
        opponent: Any = None,
        opponent_factory: Callable[[int], Any] | None = None,
        max_decisions: int = 3000,
        auto_pass: bool = True,
        mulligans: bool = True,
        reward_shaping: bool = False,
        autoreset_mode: Any = SAME_STEP,
    ) -> None:
        if not isinstance(num_games, int) or isinstance(num_games, bool) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, not {num_games!r}")
        check_args(
            format,
            max_decisions,
            {"auto_pass": auto_pass, "reward_shaping": reward_shaping, "mulligans": mulligans},
        )
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        n = self.num_games = num_games
        self.format = format
        self.obs_type = obs_type
        self.max_decisions = max_decisions
        self.auto_pass = auto_pass
        self.mulligans = mulligans
        self.reward_shaping = reward_shaping
        self.layout = Layout(load_cards(format))
        self.observer: Observer = make_observer(obs_type, self.layout)
        self.deck_pool, self.fixed_pair = _deck_spec(decks, format)
        self.n_actions = self.observer.n_actions
        self.single_observation_space: spaces.Space = self.observer.space
        self.obs: Any
        self.masks: np.ndarray
        self.obs, self.masks = self.observer.batch_arrays(n)
        # Per game, where its observation is written (a row of every batch array).
        self._rows_out = self.observer.batch_rows(self.obs, n)
        self._scratch_mask = np.zeros(self.n_actions, np.int8)
        self.seats = np.zeros(n, np.int8)
        self.rewards = np.zeros((n, 2), np.float64)
        # Learner mode: the learner's reward for the step (its seat may change at a reset).
        self.learner_rewards = np.zeros(n, np.float64)
        self.terminated = np.zeros(n, bool)
        self.truncated = np.zeros(n, bool)
        # Next-step and disabled autoreset: the games that ended and have not restarted.
        self.needs_reset = np.zeros(n, bool)
        self.finals: list[tuple[int, dict[str, Any]]] = []
        self.games: list[Game | None] = [None] * n
        # Per game: the acting seat's legal moves (None: not built for this state yet).
        self._legal: list[Legal | None] = [None] * n
        self._deck_rng = [random.Random() for _ in range(n)]
        self._deck_seeded = [False] * n
        if opponent is not None and opponent_factory is not None:
            raise ValueError("give an opponent or an opponent_factory, not both")
        self.learner_mode = opponent is not None or opponent_factory is not None
        self.opponent_spec = opponent
        # One opponent per game: a spec builds one each; a factory is called with the game's
        # index; an agent object or callable is shared by every game.
        self.opponents: list[Any] = []
        if opponent_factory is not None:
            self.opponents = [opponent_factory(i) for i in range(n)]
        elif opponent is not None:
            shared = None if isinstance(opponent, str) else make_opponent(opponent)
            self.opponents = [shared or make_opponent(opponent) for _ in range(n)]
        self._engine_opp = [False] * n
        self._np_rng: list[np.random.Generator | None] = [None] * n
        self._episode = [0] * n
        self._first_seat = [0] * n  # the learner's seat in episode 0 (from the last seed)
        self.episodes_done = 0
        self.first_index = 0  # the number of game 0 in messages (a worker's slice)

    # ------------------------------------------------------------------ resets

    def reset(
        self,
        seed: int | Sequence[int | None] | None = None,
        mask: Any = None,
        learner_seat: int | None = None,
    ) -> None:
        """Start every game, or those where `mask` (bool, one per game) is set: game i from
        `seed + i` (an int), from `seed[i]` (a list), or from fresh entropy (None).
        `learner_seat` (learner mode) puts the learner in that seat in the games started,
        as `SelfPlayEnv.reset(options={"learner_seat": s})` does."""
        n = self.num_games
        seeds = game_seeds(seed, n)
        only = check_reset_mask(mask, n)
        check_learner_seat(learner_seat, self.learner_mode)
        chosen = range(n) if only is None else np.flatnonzero(only).tolist()
        for arr in (self.rewards, self.learner_rewards, self.terminated, self.truncated):
            arr[chosen] = 0
        self.needs_reset[chosen] = False
        self.finals = []
        for i in chosen:
            self._reset_game(i, seeds[i], learner_seat)

    def _reset_game(self, i: int, seed: int | None, seat: int | None = None) -> None:
        if self.learner_mode:
            # SelfPlayEnv.reset: its own stream picks the game's seed; the seat alternates
            # from the one the seed picks.
            if seed is not None:
                self._np_rng[i], _ = seeding.np_random(seed)
                self._episode[i] = 0
                self._first_seat[i] = seat_from_seed(seed)
                self._reseed_opponent(i, seed)
            elif self._np_rng[i] is None:
                self._np_rng[i], _ = seeding.np_random(None)
            rng = self._np_rng[i]
            assert rng is not None
            self.seats[i] = (self._first_seat[i] + self._episode[i]) % 2 if seat is None else seat
            self._episode[i] += 1
            self._new_game(i, int(rng.integers(0, 2**63 - 1)))
            opp = self.opponents[i]
            if hasattr(opp, "reset"):
                opp.reset()
            self._engine_opp[i] = bool(getattr(opp, "decides_from_engine", False))
            self._prepare(i)
            self._play_opponent(i)
        else:
            self._new_game(i, seed)
            self._prepare(i)
        self._encode(i)

    def _reseed_opponent(self, i: int, seed: int) -> None:
        self.opponents[i] = reseeded(self.opponent_spec, self.opponents[i], seed)

    def _new_game(self, i: int, seed: int | None) -> None:
        """raw_env.reset(seed): the decks and the game's seed from the game's own stream."""
        rng = self._deck_rng[i]
        if seed is not None:
            rng.seed(seed)
        else:
            if not self._deck_seeded[i]:
                rng.seed(random.SystemRandom().getrandbits(63))
            rng.getrandbits(63)  # raw_env keeps this draw as its episode seed
        self._deck_seeded[i] = True
        pair = pick_pair(rng, self.deck_pool, self.fixed_pair, self.format)
        self.games[i] = Game.new(
            pair,
            seed=rng.getrandbits(63),
            format=self.format,
            auto_pass=self.auto_pass,
            mulligans=self.mulligans,
            max_decisions=self.max_decisions,
        )
        self._legal[i] = None

    # ------------------------------------------------------------------ stepping

    def step(self, actions: Any) -> None:
        """Apply `actions[i]` (an index of the acting seat's mask) in every game; a game
        waiting for its next-step autoreset starts again instead."""
        acts = check_actions(actions, self.num_games).tolist()
        moves = self._check_moves(acts)
        restarting = self.needs_reset.tolist()
        self.rewards.fill(0.0)
        self.learner_rewards.fill(0.0)
        self.terminated.fill(False)
        self.truncated.fill(False)
        self.needs_reset.fill(False)
        self.finals = []
        rewards = self.rewards
        learner = self.learner_mode
        for i, a in enumerate(acts):
            if restarting[i]:
                self._restart(i)  # next-step autoreset: the action is ignored
                continue
            g = self.games[i]
            assert g is not None
            action = moves[i]
            seat = int(self.seats[i])
            if action is None:
                # SelfPlayEnv's convention: an illegal move ends the episode with -1.
                rewards[i, seat] = -1.0
                self.terminated[i] = True
                self.learner_rewards[i] = -1.0
                self._end(i, {"illegal_action": a})
                continue
            self._apply(i, g, action)
            if learner:
                if not self._done(i):
                    self._play_opponent(i)
                self.learner_rewards[i] = rewards[i, seat]
            if self._done(i):
                self._end(i, self._final_info(g))
            else:
                self._encode(i)

    def _check_moves(self, acts: list[int]) -> list[Action | None]:
        """Each game's engine action for its index, every game checked before any moves:
        an illegal index in self-play mode, or a step on an ended game with autoreset
        disabled, is refused with every game left as it was. (None: an illegal index in
        learner mode, or a game that restarts in this step.)"""
        moves: list[Action | None] = []
        for i, a in enumerate(acts):
            if self.games[i] is None:
                raise RuntimeError("call reset() before step()")
            if self.needs_reset[i]:
                if self.autoreset_mode == DISABLED:
                    raise RuntimeError(ended_message(i + self.first_index))
                moves.append(None)
                continue
            legal = self._legal[i]
            action = None if legal is None else legal.actions.get(a)
            if action is None and not self.learner_mode:
                raise IllegalActionError(
                    illegal_message(i + self.first_index, a, int(self.seats[i]))
                )
            moves.append(action)
        return moves

    def _game_name(self, i: int) -> str:
        return f"game {i + self.first_index}"

    def _done(self, i: int) -> bool:
        return bool(self.terminated[i] or self.truncated[i])

    def _apply(self, i: int, g: Game, action: Action) -> None:
        """The shared step (`mtg_env.env.step.advance`) into game i's row of the arrays."""
        self._legal[i] = None
        # An engine opponent's seat needs no mask (as `raw_env.engine_seat`).
        engine_seat = 1 - int(self.seats[i]) if self.learner_mode and self._engine_opp[i] else None
        rewards, status, _ = advance(
            g, action, self.observer, lambda: self._prepare(i), self.reward_shaping, engine_seat
        )
        if rewards is not None:
            r = self.rewards
            r[i, 0] += rewards[0]
            r[i, 1] += rewards[1]
        if status == TERMINATED:
            self.terminated[i] = True
        elif status == TRUNCATED:
            self.truncated[i] = True

    def _prepare(self, i: int) -> int:
        """The acting seat's legal moves, the mask written into the batch row (the learner's,
        or self-play's) or into scratch (a non-engine opponent's); the legal actions with no
        index."""
        g = self.games[i]
        assert g is not None
        seat = g.current_player
        if seat is None:
            self._legal[i] = self.observer.no_moves()
            return 0
        mine = not self.learner_mode or seat == self.seats[i]
        out = self.masks[i] if mine else self._scratch_mask
        legal = self._legal[i] = self.observer.legal(g, seat, out)
        return legal.missing

    def _play_opponent(self, i: int) -> None:
        """SelfPlayEnv._play_opponent: the opponent moves until the learner must decide."""
        g = self.games[i]
        assert g is not None
        me = int(self.seats[i])
        opp = self.opponents[i]
        while not self._done(i) and not g.is_over and g.current_player == 1 - me:
            if self._engine_opp[i]:
                try:
                    _, act = engine_move(self.layout, g, opp.choose(g))
                except IllegalActionError as e:
                    # The game's number, built only when needed (this loop is the hot path).
                    raise IllegalActionError(
                        f"{self._game_name(i)}: the opponent's move {e}"
                    ) from None
                self._apply(i, g, act)
                continue
            legal = self._legal[i]
            if legal is None:
                self._prepare(i)
                legal = self._legal[i]
                assert legal is not None
            obs = None
            if getattr(opp, "needs_observation", True):
                obs = self._observe_copy(i, 1 - me)
            mask = legal.mask.copy()
            info = {"game": g, "seat": 1 - me}
            a = decide(opp, obs, mask, info)
            action = legal.actions.get(a)
            if action is None:
                raise IllegalActionError(
                    f"{self._game_name(i)}: the opponent's move (index {a}) is not legal now"
                )
            self._apply(i, g, action)

    # ------------------------------------------------------------------ observations

    def _encode(self, i: int) -> None:
        """Game i's observation of `seats[i]` (self-play: the acting seat) into the batch."""
        g = self.games[i]
        assert g is not None
        if not self.learner_mode:
            cp = g.current_player
            self.seats[i] = cp if cp is not None else self.seats[i]
        seat = int(self.seats[i])
        legal = self._acting_legal(i, g, seat)
        self.observer.observe(g, seat, legal, self._rows_out[i])
        if legal is None:
            self.masks[i].fill(0)

    def _acting_legal(self, i: int, g: Game, seat: int) -> Legal | None:
        """`seat`'s legal moves in game i if it acts, else None."""
        if g.current_player != seat:
            return None
        if self._legal[i] is None:
            self._prepare(i)
        return self._legal[i]

    def _observe_copy(self, i: int, seat: int) -> Any:
        """A fresh observation of `seat` in game i (an opponent's, a final one)."""
        g = self.games[i]
        assert g is not None
        return self.observer.observe(g, seat, self._acting_legal(i, g, seat))

    def _final_info(self, g: Game) -> dict[str, Any]:
        info: dict[str, Any] = {"winner": g.winner, "truncated": bool(g.truncated)}
        if not g.is_over:
            info["truncated_reason"] = self.observer.overflow(g) or NO_INDEX
        return info

    def _end(self, i: int, info: dict[str, Any]) -> None:
        """Record how game i ended; start the next one in its place (same-step autoreset)
        or leave its last observation in the arrays until the next step or a reset."""
        same_step = self.autoreset_mode == SAME_STEP
        # Self-play with same-step autoreset shows no last observation: none is made.
        final = self._final_obs(i) if self.learner_mode or not same_step else None
        if self.learner_mode:
            info["final_obs"] = final
            info["learner_seat"] = int(self.seats[i])
        self.finals.append((i, info))
        self.episodes_done += 1
        if not same_step:
            self.needs_reset[i] = True
            assert final is not None
            self.observer.put_row(self.obs, i, final)
            self.masks[i] = self._end_mask()
            return
        term, trunc = self.terminated[i], self.truncated[i]
        self._restart(i)
        # The flags are the ended game's (the new one started clear).
        self.terminated[i], self.truncated[i] = term, trunc

    def _restart(self, i: int) -> None:
        """Game i's next episode from the game's own stream."""
        for _ in range(100):
            # A new game that ends before the learner's first decision is replaced at once.
            self.terminated[i] = self.truncated[i] = False
            self._reset_game(i, None)
            if not self._done(i):
                break

    def _end_mask(self) -> np.ndarray:
        # A finished episode's mask allows index 0 alone, as SelfPlayEnv's does: never all
        # zeros, so -inf masking of logits stays finite.
        m = np.zeros(self.n_actions, np.int8)
        m[0] = 1
        return m

    def _final_obs(self, i: int) -> Any:
        """The last observation of game i's episode, of `seats[i]` (the learner, or in
        self-play mode the seat that made the last move), with the end's mask."""
        obs = self._observe_copy(i, int(self.seats[i]))
        return self.observer.learner_view(obs, self._end_mask())

    # ------------------------------------------------------------------ helpers

    def arrays(self) -> dict[str, np.ndarray]:
        """The batch arrays by name (the entity tables as `obs.<name>`)."""
        out: dict[str, np.ndarray] = {
            "seats": self.seats,
            "rewards": self.rewards,
            "learner_rewards": self.learner_rewards,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "needs_reset": self.needs_reset,
        }
        out.update(self.observer.named_arrays(self.obs, self.masks))
        return out

    def use_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Write into the given arrays (same names, shapes and dtypes as `arrays()`), e.g.
        views of shared memory, from now on. Call before `reset`."""
        mine = self.arrays()
        for k, a in arrays.items():
            if k not in mine or a.shape != mine[k].shape or a.dtype != mine[k].dtype:
                raise ValueError(f"use_arrays: {k} does not match the batch's array")
        self.seats, self.rewards = arrays["seats"], arrays["rewards"]
        self.learner_rewards = arrays["learner_rewards"]
        self.terminated, self.truncated = arrays["terminated"], arrays["truncated"]
        self.needs_reset = arrays["needs_reset"]
        self.obs, self.masks = self.observer.from_named(arrays, self.obs)
        self._rows_out = self.observer.batch_rows(self.obs, self.num_games)

    def action_masks(self) -> np.ndarray:
        """The acting (or learner) seat's masks as booleans, one row per game."""
        return self.masks.astype(bool)

    def close(self) -> None:
        self.games = [None] * self.num_games
