"""The duel as an OpenSpiel game: `pyspiel.load_game("python_mtg_duel")`.

    import random

    import pyspiel
    import mtg_env.openspiel  # registers the game
    game = pyspiel.load_game("python_mtg_duel", {"format": "classic", "seed": 7})
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(random.choice(state.legal_actions()))
    state.returns()  # [1.0, -1.0], [-1.0, 1.0], or [0.0, 0.0] (draw, decision cap)

Needs the `openspiel` extra (`pip install mtg_env[openspiel]`; it adds dm-tree, which
OpenSpiel's PyTorch learners import but open_spiel does not declare; those learners also
need PyTorch, from the `train` extra).

- Parameters: `format` (classic, adventure, pocket), `decks` ("" for a random pair of the
  format's bundled decks per game, or two names joined by `|`), `seed` (the deals of
  successive `new_initial_state()` calls), `max_decisions` (a game that reaches it ends as
  a draw), `mulligans`.
- Sequential, two players, zero-sum, terminal rewards. Imperfect information (hands and
  libraries are hidden). No chance nodes (`DETERMINISTIC`): each `new_initial_state()` is
  dealt from the game's seeded stream, and the shuffles and draws after that come from the
  engine's random stream, which is part of the state, so `apply_action` is deterministic.
  (OpenSpiel's `SAMPLED_STOCHASTIC` mode would have it serialize the game's random state,
  which a Python game cannot provide.) An algorithm that walks the game tree from one
  `new_initial_state()` sees that one deal.
- Actions are the v0 flat layout's indices (`num_distinct_actions` is its size: 825 for
  classic); `legal_actions()` is the acting player's mask. `clone()` is the engine's
  cheap `Game.clone()`.
- Observation tensor: the v0 flat observation of the player, with the layout's named
  slices as the observer's named pieces (`make_py_observer(...).dict`). Observation string:
  the text view (`mtg_env.env.text`). Information state: the observation plus the number of
  decisions so far and the player's own earlier actions (in the string; the tensor adds the
  decision count). It does not remember what the player saw earlier and no longer sees
  (imperfect recall); IS-MCTS keys its nodes by it.
- Serialization: `pyspiel.serialize_game_and_state(game, state)` and
  `deserialize_game_and_state` (which `pickle` of a state uses, as does
  `rl_environment.Environment(..., include_full_state=True)`) keep the whole state, hidden
  cards and the engine's random stream included: a restored state has the same history,
  legal actions and state hash, and plays on exactly as the original. A game is saved as
  its parameters, so a restored game deals from its `seed` again. OpenSpiel restores a
  Python state into a `new_initial_state()` of the game, so `game.deserialize_state(text)`
  uses up one deal of `game`.
- `resample_from_infostate(player, sampler)`: a state the player cannot tell apart from
  this one: the opponent's hand redrawn from the cards the player has not seen and both
  libraries reshuffled (`Game.resample_hidden`), seeded from `sampler`.

## OpenSpiel's learners on it

`open_spiel.python.rl_environment.Environment("python_mtg_duel", seed=3,
max_decisions=80)` (game parameters as keywords) serves OpenSpiel's RL agents the
information-state tensor and the legal actions; the tests train OpenSpiel's PyTorch NFSP
(`open_spiel.python.pytorch.nfsp.NFSP`, both seats) on it for a few hundred steps.

## OpenSpiel's IS-MCTS on it

OpenSpiel's own Python IS-MCTS bot (`open_spiel.python.algorithms.ismcts.ISMCTSBot`,
random-rollout evaluator, 64 simulations per decision, UCT c = 2) against uniform random
play, 40 classic games with seats alternating (`python scripts/openspiel_ismcts.py
--games 40 --simulations 64 --out runs/os_ismcts.json`; the result is
`docs/results/openspiel_ismcts_64.json`): 35 wins, 5 losses, no draw, score 0.875 (95%
Wilson interval 0.74-0.95), 50 s per game, 0.79 s per bot decision on one CPU.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pyspiel

from .engine import Game, load_cards, load_decks, resolve_deck
from .engine.formats import FORMATS
from .env.duel import pick_pair
from .env.spaces import Layout
from .env.text import text_view

SHORT_NAME = "python_mtg_duel"
DEFAULTS: dict[str, Any] = {
    "format": "classic",
    "decks": "",
    "seed": 0,
    "max_decisions": 3000,
    "mulligans": True,
}


@functools.cache
def _layout(fmt: str) -> Layout:
    """One layout per format (building one takes a while), shared by the games and by the
    states that a deserialization restores."""
    return Layout(load_cards(fmt))


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python MTG-style duel (mtg_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    # No chance nodes, and apply_action is deterministic (the engine's random stream is part
    # of the state). SAMPLED_STOCHASTIC would make OpenSpiel serialize the game's random
    # state (Game::GetRNGState), which a Python game cannot provide.
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class MtgDuelGame(pyspiel.Game):
    """The game: its parameters, its layout (actions and observation) and its deals."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**DEFAULTS, **(params or {})}
        fmt = str(p["format"])
        if fmt not in FORMATS:
            raise ValueError(f"{SHORT_NAME}: format {fmt!r} is not one of {sorted(FORMATS)}")
        max_decisions = int(p["max_decisions"])
        if max_decisions < 1:
            raise ValueError(f"{SHORT_NAME}: max_decisions must be at least 1")
        self.format = fmt
        self.max_decisions = max_decisions
        self.mulligans = bool(p["mulligans"])
        self.layout = _layout(fmt)
        pool = list(load_decks(fmt).values())
        names = [n for n in str(p["decks"]).split("|") if n]
        if names and len(names) != 2:
            raise ValueError(f"{SHORT_NAME}: decks must name two decks joined by '|'")
        self.fixed = (resolve_deck(names[0], fmt), resolve_deck(names[1], fmt)) if names else None
        self.pool = pool
        self._rng = random.Random(int(p["seed"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.layout.n_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_decisions,
        )
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> MtgDuelState:
        rng = self._rng
        pair = pick_pair(rng, self.pool, self.fixed, self.format)
        g = Game.new(
            pair,
            seed=rng.getrandbits(63),
            format=self.format,
            mulligans=self.mulligans,
            max_decisions=self.max_decisions,
        )
        return MtgDuelState(self, g)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> MtgObserver:
        if params:
            raise ValueError(f"{SHORT_NAME}: observer parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return MtgObserver(self.layout, recall)


class _Position:
    """What a state holds: the engine game, each player's own moves, the action map.
    OpenSpiel clones a Python state by deep-copying its attributes: this one copies as
    the engine's cheap `Game.clone()`, the layout shared. It serializes its state by
    pickling its attributes: the game and the moves go, the layout is the format's and the
    action map is rebuilt on demand."""

    __slots__ = ("g", "own", "layout", "map")

    def __init__(self, g: Game, own: tuple[list[int], list[int]], layout: Layout) -> None:
        self.g = g
        self.own = own
        self.layout = layout
        self.map: dict[int, Any] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return _Position(self.g.clone(), (self.own[0][:], self.own[1][:]), self.layout)

    def __getstate__(self) -> tuple[Game, tuple[list[int], list[int]]]:
        return self.g, self.own

    def __setstate__(self, state: tuple[Game, tuple[list[int], list[int]]]) -> None:
        self.g, self.own = state
        self.layout = _layout(self.g.format)
        self.map = None


class MtgDuelState(pyspiel.State):
    """One position of the duel (see the module docstring)."""

    def __init__(self, game: MtgDuelGame, g: Game, own: Any = None) -> None:
        super().__init__(game)
        self.pos = _Position(g, own or ([], []), game.layout)

    @property
    def g(self) -> Game:
        """The engine game of this state."""
        return self.pos.g

    @property
    def own(self) -> tuple[list[int], list[int]]:
        """Each player's own moves so far (action indices)."""
        return self.pos.own

    def current_player(self) -> int:
        g = self.pos.g
        if g.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        cp = g.current_player
        assert cp is not None
        return cp

    def _actions(self) -> dict[int, Any]:
        pos = self.pos
        if pos.map is None:
            g = pos.g
            seat = g.current_player
            if seat is None:
                pos.map = {}
            else:
                _, pos.map, missing = pos.layout.mask_and_map(g, seat)
                if missing:
                    raise RuntimeError(f"{missing} legal actions have no index in the layout")
        return pos.map

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.pos.g.current_player:
            return []
        return sorted(self._actions())

    def _apply_action(self, action: int) -> None:
        a = self._actions().get(int(action))
        if a is None:
            raise ValueError(f"{SHORT_NAME}: action {action} is not legal now")
        pos = self.pos
        seat = pos.g.current_player
        assert seat is not None
        pos.own[seat].append(int(action))
        pos.g.apply(a)
        pos.map = None

    def _action_to_string(self, player: int, action: int) -> str:
        g = self.pos.g
        a = self._actions().get(int(action)) if player == g.current_player else None
        slot = self.pos.layout.describe_index(int(action))
        return f"{slot}: {g.describe(a)}" if a is not None else slot

    def is_terminal(self) -> bool:
        return self.pos.g.is_over

    def returns(self) -> list[float]:
        g = self.pos.g
        w = g.winner if g.is_over else None
        if w is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if w == 0 else [-1.0, 1.0]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MtgDuelState:
        seed = int(probability_sampler() * 2**31)
        own = (self.own[0][:], self.own[1][:])
        return MtgDuelState(self.get_game(), self.g.resample_hidden(player_id, seed), own)

    def __str__(self) -> str:
        g = self.pos.g
        return text_view(g, g.current_player or 0, [])


class MtgObserver:
    """Observation (and information-state) tensors and strings for one player."""

    def __init__(self, layout: Layout, perfect_recall: bool) -> None:
        self.layout = layout
        self.recall = perfect_recall
        n = layout.n_obs + (1 if perfect_recall else 0)
        self.tensor = np.zeros(n, np.float32)
        self.dict = {
            name: self.tensor[s] for name, s in layout.obs_slices.items() if s.stop > s.start
        }
        if perfect_recall:
            self.dict["decisions"] = self.tensor[layout.n_obs :]

    def set_from(self, state: MtgDuelState, player: int) -> None:
        self.layout.observe(state.g, player, out=self.tensor[: self.layout.n_obs])
        if self.recall:
            self.tensor[self.layout.n_obs] = min(state.g.n_decisions / 3000.0, 1.0)

    def string_from(self, state: MtgDuelState, player: int) -> str:
        g = state.g
        legal: list[tuple[int, str]] = []
        if g.current_player == player and not g.is_over:
            legal = [(i, g.describe(a)) for i, a in sorted(state._actions().items())]
        view = text_view(g, player, legal)
        if not self.recall:
            return view
        own = " ".join(map(str, state.own[player]))
        return f"decision {g.n_decisions}; your moves: {own}\n{view}"


pyspiel.register_game(_GAME_TYPE, MtgDuelGame)
