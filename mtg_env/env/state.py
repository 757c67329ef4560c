"""The global state of a game (PettingZoo's `state()` and `state_space`): privileged
information for centralized critics and analysis, never part of an observation.

It holds everything: what each seat sees (both hands), the libraries in order (top first),
and what a face-down card is. v0 (`obs_type="flat"`) is one float32 vector in [0, 1]
(`FlatState`); v1 (`obs_type="entity"`) is a Dict of tables with the conventions of the v1
observation, plus rows for the hidden zones (`EntityState`). Both are fixed-size per
format. The env card (`mtg_env.env.duel`, "State") documents every part.

No observation, mask, candidate list or text view is built from this module: the observers
(`mtg_env.env.observers`) build those from `spaces`, `entity` and `text` alone, and name the
state class that goes with each observation (`Observer.state_layout`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..engine import Action, Game
from ..engine.cards import ActivatedAbility, ManaAbility, StaticAbility, TriggeredAbility
from ..engine.constants import BASIC, FACE_DOWN, LEGENDARY
from .entity import GLOBAL_FIELDS, OBJECT_FIELDS, OBJECT_INDEX, EntityLayout
from .spaces import KEYWORD_LIST, Layout

# Zone codes of the state's hidden rows (the observation's codes are 1-5).
Z_OTHER_HAND = 6  # player_1's hand
Z_LIBRARY = 7  # a library card
# The ability bits of an object row (entity.OBJECT_FIELDS "abilities").
_ABILITY_BIT = {ManaAbility: 1, ActivatedAbility: 2, TriggeredAbility: 4, StaticAbility: 8}
_KW_BIT = {k: 1 << i for i, k in enumerate(KEYWORD_LIST)}
_F = OBJECT_INDEX


def _pile_order(g: Game) -> list[list[int]]:
    """Each library, top card first: player_0's, then player_1's (empty where the format
    has one shared pile, which is player_0's index)."""
    piles = [g.lib_top(0), []]
    if g.rules.piles == 2:
        piles[1] = g.lib_top(1)
    return piles


def _face_down_card(g: Game, cid: int, ident: dict[str, int]) -> int:
    """Card index + 1 of the card a face-down permanent is (0: not face down)."""
    cd = g.cdef[cid]
    if cd.name != FACE_DOWN or not cd.half_of:
        return 0
    return ident.get(cd.half_of, -1) + 1


class FlatState:
    """v0: the state as one float32 vector in [0, 1]; `slices` names its parts."""

    def __init__(self, layout: Layout, deck_size: int) -> None:
        self.layout = layout
        # A library holds at most the cards of one deck (a card goes to its owner's
        # library); a scripted position with a longer one shows its top `library_slots`.
        self.library_slots = deck_size
        ni, f = layout.n_ident, layout.n_obs
        p = layout.limits.permanents
        parts = [
            ("player_0", f),
            ("player_1", f),
            ("library_0", ni),
            ("library_1", ni),
            ("library_order_0", deck_size),
            ("library_order_1", deck_size),
            ("face_down_0", p),
            ("face_down_1", p),
        ]
        self.slices: dict[str, slice] = {}
        n = 0
        for name, size in parts:
            self.slices[name] = slice(n, n + size)
            n += size
        self.size = n
        self.space = spaces.Box(0.0, 1.0, (n,), np.float32)

    def state(self, g: Game, acting: Any = None) -> np.ndarray:
        # `acting` (the entity state's candidate count) has no part in the flat state.
        lay, sl = self.layout, self.slices
        out = np.zeros(self.size, np.float32)
        # Each seat's own view: the two together hold both hands and every public object.
        lay.observe(g, 0, out[sl["player_0"]])
        lay.observe(g, 1, out[sl["player_1"]])
        ident, ni, slots = lay.ident, lay.n_ident, self.library_slots
        for s, pile in enumerate(_pile_order(g)):
            counts = out[sl[f"library_{s}"]]
            order = out[sl[f"library_order_{s}"]]
            for k, cid in enumerate(pile):
                j = ident[g.cdef[cid].name]
                counts[j] += 1.0
                if k < slots:
                    # The card index + 1 over the number of cards: exact in float32, and
                    # `round(v * n_ident) - 1` gives the index back.
                    order[k] = (j + 1) / ni
            np.minimum(counts / slots, 1.0, out=counts)
        p = lay.limits.permanents
        for s in (0, 1):
            fd = out[sl[f"face_down_{s}"]]
            for cid, slot in g.positions(s).items():
                c = _face_down_card(g, cid, ident)
                if c and slot < p:
                    fd[slot] = c / ni
        return out


class EntityState:
    """v1: the state as entity tables (the v1 observation's conventions) with the hidden
    zones as more object rows."""

    def __init__(self, entity: EntityLayout, deck_size: int) -> None:
        self.entity = entity
        lim = entity.limits
        # Hidden rows: player_1's hand and the libraries, at most the cards of two decks.
        self.hidden_rows = 2 * deck_size
        self.rows = r = lim.objects + self.hidden_rows
        n_cards = len(entity.card_names)
        self.space = spaces.Dict(
            {
                "global": spaces.Box(-(2**15), 2**15 - 1, (2, len(GLOBAL_FIELDS)), np.int16),
                "objects": spaces.Box(0, 255, (r, len(OBJECT_FIELDS)), np.uint8),
                "object_card": spaces.Box(0, max(n_cards, 1), (r,), np.int16),
                "object_mask": spaces.Box(0, 1, (r,), np.int8),
                "face_down_card": spaces.Box(0, max(n_cards, 1), (r,), np.int16),
            }
        )

    def state(
        self, g: Game, acting: tuple[list[int], dict[int, Action]] | None
    ) -> dict[str, np.ndarray]:
        """The state; `acting` is the acting seat's candidate rows and actions (as the env
        passes them to its observation), for that seat's `candidates` count."""
        ent = self.entity
        lim = ent.limits
        seat = g.current_player
        views = [ent.observe(g, s, acting if s == seat else None) for s in (0, 1)]
        v0 = views[0]
        r = self.rows
        objs = np.zeros((r, len(OBJECT_FIELDS)), np.uint8)
        card = np.zeros(r, np.int16)
        mask = np.zeros(r, np.int8)
        face = np.zeros(r, np.int16)
        # player_0's observation rows as they are (row references stay valid), then the
        # hidden rows after them.
        n = int(v0["object_mask"].sum())
        objs[:n] = v0["objects"][:n]
        card[:n] = v0["object_card"][:n]
        ident = ent.flat.ident
        rows, _ = ent.rows(g, 0)
        for i, (_, key) in enumerate(rows[: lim.objects]):
            if isinstance(key, int):
                face[i] = _face_down_card(g, key, ident)
        hidden = [(Z_OTHER_HAND, cid) for cid in g.hand[1]]
        for pile in _pile_order(g):
            hidden += [(Z_LIBRARY, cid) for cid in pile]
        hidden = hidden[: self.hidden_rows]
        for k, (zone, cid) in enumerate(hidden):
            objs[n + k] = hidden_row(g, cid, zone)
            card[n + k] = ident.get(g.cdef[cid].name, 0)
        n += len(hidden)
        mask[:n] = 1
        return {
            "global": np.stack([v0["global"], views[1]["global"]]),
            "objects": objs,
            "object_card": card,
            "object_mask": mask,
            "face_down_card": face,
        }


def hidden_row(g: Game, cid: int, zone: int) -> list[int]:
    """The object row of a card in a hand or a library, as the v1 observation encodes a
    card in hand (characteristics as the layer system computes them), from player_0's side
    (`mine` and `owned`: owned by player_0)."""
    f = [0] * len(OBJECT_FIELDS)
    cd = g.cdef[cid]
    ch = g.chars(cid)
    f[_F["zone"]] = zone
    f[_F["mine"]] = f[_F["owned"]] = int(g.owner[cid] == 0)
    f[_F["types"]] = ch.types & 255
    f[_F["colors"]] = ch.colors & 255
    st = ch.supertypes
    f[_F["supertypes"]] = (1 if st & BASIC else 0) | (2 if st & LEGENDARY else 0)
    f[_F["mana_value"]] = min(255, cd.mv)
    if ch.power is not None:
        f[_F["has_pt"]] = 1
        f[_F["power"]] = min(255, max(0, ch.power))
        f[_F["toughness"]] = min(255, max(0, ch.toughness or 0))
    kw = 0
    for k in ch.keywords:
        kw |= _KW_BIT.get(k, 0)
    f[_F["keywords0"]], f[_F["keywords1"]], f[_F["keywords2"]] = (
        kw & 255,
        (kw >> 8) & 255,
        (kw >> 16) & 255,
    )
    ab = 0
    for a in ch.abilities:
        ab |= _ABILITY_BIT.get(type(a), 0)
    f[_F["abilities"]] = ab
    f[_F["flags"]] = 1 if cd.token else 0
    return f
