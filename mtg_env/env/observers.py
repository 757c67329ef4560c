"""Observers: what one seat sees of a game, and its legal moves as the indices `step` takes.

Every env (`raw_env`, `SelfPlayEnv`, `DuelBatch`, the RLlib env) and every agent that
observes holds one observer and asks it; none of them asks which observation it has. The
pattern is OpenSpiel's (`KuhnPokerObserver`, `make_observation`): one protocol, one class
per observation, each declaring its named, shaped pieces.

- `FlatObserver` (`obs_type="flat"`, `mtg/duel-v0`): one float32 vector in [0, 1] over a
  fixed action layout (`mtg_env.env.spaces.Layout`).
- `EntityObserver` (`obs_type="entity"`, `mtg/duel_entity-v1`): entity tables and candidate
  actions (`mtg_env.env.entity.EntityLayout`); its sizes do not depend on the card set.
- `TextObserver`: the text view of another observer (`raw_env.text`), numbered with that
  observer's indices.

An observer answers, for a game and a seat:

- `legal(game, seat, mask_out)`: the seat's legal moves (`Legal`: the int8 mask, index ->
  engine action, the legal actions with no index), the mask written into `mask_out` if given
  (a batch row);
- `observe(game, seat, legal, out)`: the seat's observation, into the preallocated arrays of
  `out` if given; `legal` is the seat's moves when it acts, None when it waits;
- `describe_index(i)`, `overflow(game)` (why a state exceeds the tables, or None),
  `flat_index(legal, i)` (the flat layout's index that replays record for index i);
- its spaces: `space` (what a single-agent learner sees), `aec_space` (PettingZoo's, the mask
  beside or inside the observation, as `aec_observation` builds it) and `pieces` (every
  named, shaped part, with its meaning: the env card lists them).

A new observation feature is one piece and one fill in the observer that has it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

from ..engine import Action, Game
from ..engine.constants import TYPE_NAMES
from .entity import CANDIDATE_FIELDS, GLOBAL_FIELDS, OBJECT_FIELDS, EntityLayout
from .spaces import TYPE_ORDER, Layout
from .state import EntityState, FlatState
from .text import text_view

# What each slice of the flat observation holds (the env card's table; docs/env_card.md).
FLAT_MEANINGS: dict[str, str] = {
    "turn": "turn number / 50",
    "step": "one-hot step (12 steps + pregame)",
    "active_is_me": "I am the active player",
    "first_is_me": "I played first",
    "i_decide": "I make the pending decision",
    "decision": "one-hot decision kind (priority, target, declare_attackers, ...)",
    "life": "life (me, opponent), scaled",
    "hand_size": "hand size (me, opponent), scaled",
    "library_size": "library size (me, opponent), scaled",
    "graveyard_size": "graveyard size (me, opponent), scaled",
    "mulligans": "mulligans taken (me, opponent), scaled",
    "land_played": "a land was played this turn (my turn)",
    "mana": "untapped sources and pool mana able to pay W U B R G C, me then opponent, / 20",
    "stack_size": "stack size, scaled",
    "n_attackers": "number of attackers, scaled",
    "decision_source": "one-hot identity of the card the decision is about",
    "target_index": "which target is being chosen",
    "target_kind": "what kind of target is being chosen",
    "chosen_blocker": "one-hot own slot of the blocker being assigned",
    "n_options": "number of options of a choice / 40",
    "hand": "own hand: count per card identity / 4",
    "graveyard_own": "own graveyard: count per card identity / 4",
    "graveyard_opp": "the opponent's graveyard: count per card identity / 4",
    "permanents_own": "own permanent slots (battlefield order), per slot its features",
    "permanents_opp": "the opponent's permanent slots, per slot its features",
    "stack": "stack slots from the top: present, identity, kind, mine, has targets",
}

ENTITY_MEANINGS: dict[str, str] = {
    "global": "turn, step, decision kind, life, hand, library and graveyard sizes, mana, ...",
    "objects": "one row per visible object: zone, characteristics, status",
    "object_card": "the object's card (index into `layout.card_names`)",
    "object_mask": "1 for a row that holds an object",
    "candidates": "one row per legal move: kind, source row, target row, player, option",
    "action_mask": "1 for a candidate row (the first `n` rows, `n` legal moves)",
}
ENTITY_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "global": GLOBAL_FIELDS,
    "objects": OBJECT_FIELDS,
    "candidates": CANDIDATE_FIELDS,
}


@dataclass(frozen=True)
class Piece:
    """A named, shaped part of an observation: a slice of the flat vector (from `start`;
    one row per slot for the permanent and stack slots), or an entity table; a table's or a
    slot's columns with their names and meanings. Networks read their sizes and offsets
    from the pieces (`mtg_env.nets`), not from the layout that fills them."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    meaning: str
    columns: tuple[tuple[str, str], ...] = ()
    start: int = 0  # where a flat piece begins in the vector

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def stop(self) -> int:
        return self.start + self.size

    def column(self, name: str) -> int:
        """The index of the column called `name` (a slot field; `keywords.flying`, say)."""
        for i, (n, _) in enumerate(self.columns):
            if n == name:
                return i
        raise KeyError(f"piece {self.name!r} has no column {name!r}")


def _slot_columns(fields: list[tuple[str, int]], names: dict[str, tuple[str, ...]]) -> tuple:
    """A permanent or stack slot's columns: a field of width 1 by its name, a wider one as
    `field.part` (the keyword, the type, the colour) or `field[i]`."""
    cols: list[tuple[str, str]] = []
    for field, width in fields:
        if width == 1:
            cols.append((field, ""))
            continue
        parts = names.get(field) or tuple(f"[{i}]" for i in range(width))
        cols += [(f"{field}.{p}" if not p.startswith("[") else f"{field}{p}", "") for p in parts]
    return tuple(cols)


# The flat vector's pieces read slot by slot: (slot count, slot fields) of the layout.
FLAT_SLOTS = ("permanents_own", "permanents_opp", "stack")


def flat_pieces(layout: Layout) -> tuple[Piece, ...]:
    """The flat observation's pieces: each slice of `layout.obs_slices` at its offset, the
    slot slices as (slots, slot width) with their columns."""
    perm = {
        "types": tuple(TYPE_NAMES[t].lower() for t in TYPE_ORDER),
        "colors": tuple("WUBRG"),
        "keywords": tuple(layout.keywords),
    }
    lim = layout.limits
    slots = {
        "permanents_own": (lim.permanents, _slot_columns(layout.perm_fields, perm)),
        "permanents_opp": (lim.permanents, _slot_columns(layout.perm_fields, perm)),
        "stack": (lim.stack, _slot_columns(layout.stack_fields, {})),
    }
    out = []
    for k, s in layout.obs_slices.items():
        n, cols = slots.get(k, (0, ()))
        shape = (n, len(cols)) if n else (s.stop - s.start,)
        out.append(Piece(k, shape, "float32", FLAT_MEANINGS.get(k, ""), cols, s.start))
    return tuple(out)


class Legal:
    """A seat's legal moves as an observer indexes them: the int8 mask, index -> engine action
    (the first of equivalent actions), the legal actions that have no index (a state past the
    tables' sizes), and what the observer needs to observe them (`detail`)."""

    __slots__ = ("actions", "detail", "mask", "missing")

    def __init__(
        self, mask: np.ndarray, actions: dict[int, Action], missing: int, detail: Any = None
    ) -> None:
        self.mask = mask
        self.actions = actions
        self.missing = missing
        self.detail = detail


class Observer(Protocol):
    """What the envs and observing agents ask of an observation (see the module's text)."""

    kind: str  # the `obs_type` that names it
    env_name: str  # PettingZoo's `metadata["name"]` of the AEC env that shows it
    layout: Layout  # the flat action layout: replays record its indices
    n_actions: int
    space: spaces.Space
    aec_space: spaces.Space
    tables_space: spaces.Space  # the observation without a mask (RLlib's "observations")
    pieces: tuple[Piece, ...]

    def fits(self, space: spaces.Space) -> bool: ...

    def legal(self, g: Game, seat: int, mask_out: np.ndarray | None = None) -> Legal: ...

    def no_moves(self) -> Legal: ...

    def observe(self, g: Game, seat: int, legal: Legal | None, out: Any = None) -> Any: ...

    def aec_observation(self, g: Game, seat: int, legal: Legal | None) -> dict[str, Any]: ...

    def learner_view(self, obs: Any, mask: np.ndarray) -> Any: ...

    def tables(self, obs: Any) -> Any: ...

    def flat_index(self, legal: Legal, i: int) -> int: ...

    def index_of_flat(self, legal: Legal, flat: int) -> int: ...

    def describe_index(self, i: int) -> str: ...

    def overflow(self, g: Game) -> str | None: ...

    def state_layout(self, deck_size: int) -> Any: ...

    def batch_arrays(self, n: int) -> tuple[Any, np.ndarray]: ...

    def batch_rows(self, obs: Any, n: int) -> list[Any]: ...

    def put_row(self, obs: Any, i: int, one: Any) -> None: ...

    def named_arrays(self, obs: Any, masks: np.ndarray) -> dict[str, np.ndarray]: ...

    def from_named(self, arrays: dict[str, np.ndarray], obs: Any) -> tuple[Any, np.ndarray]: ...


class FlatObserver:
    """The flat observation (`mtg/duel-v0`): a float32 vector in [0, 1] whose named slices
    are `layout.obs_slices`, and the fixed action layout `layout.action_slices`."""

    kind = "flat"
    env_name = "mtg_duel_v0"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.n_actions = n = layout.n_actions
        self.space: spaces.Space = spaces.Box(0.0, 1.0, (layout.n_obs,), np.float32)
        self.tables_space: spaces.Space = self.space
        self.aec_space: spaces.Space = spaces.Dict(
            {"observation": self.space, "action_mask": spaces.Box(0, 1, (n,), np.int8)}
        )
        self.pieces = flat_pieces(layout)

    def fits(self, space: spaces.Space) -> bool:
        """Whether a policy trained on `space` reads this observation."""
        return isinstance(space, spaces.Box) and space.shape == self.space.shape

    def legal(self, g: Game, seat: int, mask_out: np.ndarray | None = None) -> Legal:
        mask, actions, missing = self.layout.mask_and_map(g, seat, mask_out)
        return Legal(mask, actions, missing)

    def no_moves(self) -> Legal:
        return Legal(np.zeros(self.n_actions, np.int8), {}, 0)

    def observe(self, g: Game, seat: int, legal: Legal | None, out: Any = None) -> np.ndarray:
        # The vector holds no mask: the moves are beside it (`aec_observation`, `info`).
        return self.layout.observe(g, seat, out)

    def aec_observation(self, g: Game, seat: int, legal: Legal | None) -> dict[str, Any]:
        """PettingZoo's observation of `seat`: the vector beside its own mask (a copy: the
        env's is reused), all zeros when it waits."""
        mask = np.zeros(self.n_actions, np.int8) if legal is None else legal.mask.copy()
        return {"observation": self.layout.observe(g, seat), "action_mask": mask}

    def learner_view(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return obs  # the mask travels in `info["action_mask"]` and `action_masks()`

    def tables(self, obs: np.ndarray) -> np.ndarray:
        return obs

    def flat_index(self, legal: Legal, i: int) -> int:
        return i

    def index_of_flat(self, legal: Legal, flat: int) -> int:
        return flat

    def describe_index(self, i: int) -> str:
        return self.layout.describe_index(i)

    def overflow(self, g: Game) -> str | None:
        return self.layout.overflow(g)

    def state_layout(self, deck_size: int) -> FlatState:
        return FlatState(self.layout, deck_size)

    def batch_arrays(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((n, self.layout.n_obs), np.float32), np.zeros((n, self.n_actions), np.int8)

    def batch_rows(self, obs: np.ndarray, n: int) -> list[Any]:
        return [obs[i] for i in range(n)]

    def put_row(self, obs: np.ndarray, i: int, one: np.ndarray) -> None:
        obs[i] = one

    def named_arrays(self, obs: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        return {"obs": obs, "masks": masks}

    def from_named(
        self, arrays: dict[str, np.ndarray], obs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        return arrays["obs"], arrays["masks"]


class EntityObserver:
    """The entity observation (`mtg/duel_entity-v1`): tables of fixed sizes and candidate
    actions, index i playing candidate row i (`mtg_env.env.entity`)."""

    kind = "entity"
    env_name = "mtg_duel_entity_v1"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.entity = EntityLayout(layout)
        self.n_actions = self.entity.n_actions
        self.space: spaces.Space = self.entity.observation_space
        self.aec_space: spaces.Space = self.space
        self.tables_space: spaces.Space = spaces.Dict(
            {k: v for k, v in self.entity.observation_space.items() if k != "action_mask"}
        )
        self.pieces = tuple(
            Piece(k, tuple(sp.shape), str(sp.dtype), ENTITY_MEANINGS[k], ENTITY_COLUMNS.get(k, ()))
            for k, sp in self.entity.observation_space.spaces.items()
        )

    def fits(self, space: spaces.Space) -> bool:
        """Whether a policy trained on `space` reads this observation: its tables do not
        depend on the card set, so any Dict of them."""
        return isinstance(space, spaces.Dict)

    def legal(self, g: Game, seat: int, mask_out: np.ndarray | None = None) -> Legal:
        mask, actions, missing, detail = self.entity.legal(g, seat, mask_out)
        return Legal(mask, actions, missing, detail)

    def no_moves(self) -> Legal:
        return Legal(np.zeros(self.n_actions, np.int8), {}, 0, ([], {}))

    def observe(
        self, g: Game, seat: int, legal: Legal | None, out: Any = None
    ) -> dict[str, np.ndarray]:
        return self.entity.observe(g, seat, None if legal is None else legal.detail, out)

    def aec_observation(self, g: Game, seat: int, legal: Legal | None) -> dict[str, Any]:
        """PettingZoo's observation of `seat`: the tables, whose `action_mask` (fresh) marks
        the candidate rows, all zeros when it waits."""
        return self.observe(g, seat, legal)

    def learner_view(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, Any]:
        # The observation's mask is the learner's mask: once the episode is over it allows
        # index 0 alone, so a library that masks logits with -inf on it stays finite.
        obs["action_mask"] = mask
        return obs

    def tables(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        obs.pop("action_mask")
        return obs

    def flat_index(self, legal: Legal, i: int) -> int:
        rows: list[int] = legal.detail[0]
        return rows[i]

    def index_of_flat(self, legal: Legal, flat: int) -> int:
        rows: list[int] = legal.detail[0]
        return rows.index(flat) if flat in rows else -1

    def describe_index(self, i: int) -> str:
        return self.entity.describe_index(i)

    def overflow(self, g: Game) -> str | None:
        return self.entity.overflow(g)

    def state_layout(self, deck_size: int) -> EntityState:
        return EntityState(self.entity, deck_size)

    def batch_arrays(self, n: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        obs = {k: np.zeros((n, *sp.shape), sp.dtype) for k, sp in self.space.spaces.items()}
        return obs, obs["action_mask"]

    def batch_rows(self, obs: dict[str, np.ndarray], n: int) -> list[Any]:
        # Row views, one dict per game, for the encoder to write into.
        return [{k: a[i] for k, a in obs.items()} for i in range(n)]

    def put_row(self, obs: dict[str, np.ndarray], i: int, one: dict[str, np.ndarray]) -> None:
        for k, a in obs.items():
            a[i] = one[k]

    def named_arrays(self, obs: dict[str, np.ndarray], masks: np.ndarray) -> dict[str, np.ndarray]:
        return {f"obs.{k}": v for k, v in obs.items()}

    def from_named(
        self, arrays: dict[str, np.ndarray], obs: dict[str, np.ndarray]
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        new = {k: arrays[f"obs.{k}"] for k in obs}
        return new, new["action_mask"]


class TextObserver:
    """The text view (`mtg_env.env.text`) of what a seat may see and its legal moves,
    numbered with the indices of the observer it reads (`inner`): plain text for a prompt."""

    kind = "text"

    def __init__(self, inner: Observer) -> None:
        self.inner = inner
        self.pieces = (Piece("text", (), "str", "the board and the numbered legal moves"),)

    def observe(self, g: Game, seat: int, legal: Legal | None, out: Any = None) -> str:
        actions = {} if legal is None else legal.actions
        return text_view(g, seat, [(i, g.describe(a)) for i, a in sorted(actions.items())])


# The observers by `obs_type`: the one place that maps the name to the observation.
OBSERVERS: dict[str, type[FlatObserver] | type[EntityObserver]] = {
    "flat": FlatObserver,
    "entity": EntityObserver,
}


def make_observer(obs_type: str, layout: Layout) -> FlatObserver | EntityObserver:
    """The observer of `obs_type` ("flat" or "entity") on `layout`, or a one-line error."""
    cls = OBSERVERS.get(obs_type) if isinstance(obs_type, str) else None
    if cls is None:
        raise ValueError(f"obs_type must be one of {list(OBSERVERS)}, not {obs_type!r}")
    return cls(layout)


def observer_for_space(space: spaces.Space, layout: Layout) -> FlatObserver | EntityObserver | None:
    """The observer whose observations a policy trained on `space` reads (a saved policy's
    observation space), or None if no observer of `layout` fits it."""
    for cls in OBSERVERS.values():
        observer = cls(layout)
        if observer.fits(space):
            return observer
    return None


def entity_tables(observer: Any) -> EntityLayout | None:
    """The v1 tables `observer` writes (their sizes and the card pool of their `card`
    column), or None for an observer of another observation: what a reader that builds the
    same tables from another view of the game needs (`mtg_env.spellbench.entity_view`)."""
    return observer.entity if isinstance(observer, EntityObserver) else None
