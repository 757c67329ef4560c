"""The entity observation and candidate actions of `mtg/duel_entity-v1` and
`mtg_env/SelfPlayEntity-v1` (see `mtg_env.env.duel`).

Sizes do not depend on the card set: a row per visible object with its characteristics as
the layer system computes them, and a row per legal action of the current decision
("candidates") that the action index picks. A card's identity is one integer (`card`) for
embedding lookups, not a one-hot. Values are compact integers (uint8 tables, int16 where a
value may exceed 255); every table comes with a validity mask.

The candidates are the legal actions, one per distinct move: two copies of a card in hand
are one move (the first copy is played), as in the flat layout, so the rows are the flat
layout's legal indices in ascending order, and replays record the same integers for v0 and
v1 games.

Compiled with the engine where the engine is, like `spaces` (setup.py, docs/compiling.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import index as _as_int
from typing import Any, Final, SupportsIndex

import numpy as np
from gymnasium import spaces

from ..engine import Action, Game
from ..engine.cards import ActivatedAbility, ManaAbility, StaticAbility, TriggeredAbility
from ..engine.constants import (
    ACTIVATE,
    ATTACK,
    BATTLEFIELD,
    BLOCK,
    BLOCKER,
    CARD,
    CREATURE,
    EXILE,
    FACE_DOWN,
    GRAVEYARD,
    HAND,
    LEGENDARY,
    PLAY,
    TARGET,
)
from ..engine.decisions import Announce, BlockTarget, Targets
from ..engine.frozen import Frozen
from ..engine.objects import ABILITY, SPELL
from .spaces import KEYWORD_LIST, Layout, mana_counts

# Zones of an object row.
Z_HAND: Final = 1
Z_BATTLEFIELD: Final = 2
Z_STACK: Final = 3
Z_GRAVEYARD: Final = 4
Z_EXILE: Final = 5
_ZONE_CODE: Final = {
    HAND: Z_HAND,
    BATTLEFIELD: Z_BATTLEFIELD,
    GRAVEYARD: Z_GRAVEYARD,
    EXILE: Z_EXILE,
}

# Object row fields (uint8), in column order.
OBJECT_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("zone", "1 hand, 2 battlefield, 3 stack, 4 graveyard, 5 exile"),
    ("mine", "controlled by the acting seat (in hand, graveyard and exile: owned)"),
    ("owned", "owned by the acting seat"),
    ("types", "bits: artifact 1, creature 2, enchantment 4, land 8, instant 16, sorcery 32"),
    ("colors", "bits: W 1, U 2, B 4, R 8, G 16"),
    ("supertypes", "bits: basic 1, legendary 2"),
    ("mana_value", "mana value of its cost (255 at most)"),
    ("has_pt", "1 if it has power and toughness"),
    ("power", "power, clipped to 0-255"),
    ("toughness", "toughness, clipped to 0-255"),
    ("keywords0", "keyword bits 0-7 (engine.vocab.KEYWORD_ORDER, see `keyword_names`)"),
    ("keywords1", "keyword bits 8-15"),
    ("keywords2", "keyword bits 16-23"),
    ("abilities", "bits: mana 1, activated 2, triggered 4, static 8"),
    ("tapped", "1 if tapped"),
    ("sick", "1 if summoning sick"),
    ("attacking", "1 if attacking"),
    ("blocking", "row + 1 of the attacker it blocks (0: not blocking)"),
    ("damage", "damage marked on it"),
    ("plus_counters", "+1/+1 counters"),
    ("minus_counters", "-1/-1 counters"),
    ("attached_to", "row + 1 of the object it is attached to (0: none)"),
    ("flags", "bits: token 1, copy 2, face down 4, controlled by a non-owner 8"),
    ("stack_kind", "on the stack: 1 spell, 2 activated ability, 3 triggered ability"),
    ("keywords3", "keyword bits 24-31"),
)
OBJECT_INDEX: Final = {name: i for i, (name, _) in enumerate(OBJECT_FIELDS)}
# Each field's column, as Final literals (a constant in the compiled encoder rather than a
# module-dict lookup); tests/env/test_entity.py checks them against OBJECT_FIELDS.
_ZONE: Final = 0
_MINE: Final = 1
_OWNED: Final = 2
_TYPES: Final = 3
_COLORS: Final = 4
_SUPERTYPES: Final = 5
_MV: Final = 6
_HAS_PT: Final = 7
_POWER: Final = 8
_TOUGHNESS: Final = 9
_KW0: Final = 10
_KW1: Final = 11
_KW2: Final = 12
_ABILITIES: Final = 13
_TAPPED: Final = 14
_SICK: Final = 15
_ATTACKING: Final = 16
_BLOCKING: Final = 17
_DAMAGE: Final = 18
_PLUS: Final = 19
_MINUS: Final = 20
_ATTACHED: Final = 21
_FLAGS: Final = 22
_STACK_KIND: Final = 23
_KW3: Final = 24
# The names above are the columns' indices, in OBJECT_FIELDS order.
assert [OBJECT_INDEX[n] for n in ("zone", "flags", "stack_kind")] == [_ZONE, _FLAGS, _STACK_KIND]
_KW_BIT: Final = {k: 1 << i for i, k in enumerate(KEYWORD_LIST)}
_ABILITY_BIT: Final = {ManaAbility: 1, ActivatedAbility: 2, TriggeredAbility: 4, StaticAbility: 8}
# The same tables by public name, for the tables built from other views of a game
# (`mtg_env.spellbench.entity_view` builds them from the neutral seat decision).
KEYWORD_BITS: Final = _KW_BIT
ABILITY_BITS: Final = _ABILITY_BIT

# Global features (int16).
GLOBAL_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("turn", "turn number"),
    ("step", "step (engine step constant + 1; 0 before the first turn)"),
    ("active_is_me", "1 if it is the acting seat's turn"),
    ("first_is_me", "1 if the acting seat played first"),
    ("decision", "decision kind (engine constant + 1)"),
    ("life_me", "life"),
    ("life_opp", ""),
    ("hand_me", "cards in hand"),
    ("hand_opp", ""),
    ("library_me", "cards in library"),
    ("library_opp", ""),
    ("graveyard_me", "cards in graveyard"),
    ("graveyard_opp", ""),
    ("mulligans_me", "mulligans taken"),
    ("mulligans_opp", ""),
    ("land_played", "lands played this turn"),
    *((f"mana_me_{c}", "untapped sources or pool mana able to pay this color") for c in "WUBRGC"),
    *((f"mana_opp_{c}", "") for c in "WUBRGC"),
    ("stack_size", "objects on the stack"),
    ("attackers", "attacking creatures"),
    ("options", "options of the pending choice"),
    ("source_row", "row + 1 of the spell or ability the decision is about (0: none)"),
    ("target_index", "which target is being chosen (0-based)"),
    ("chosen_blocker_row", "row + 1 of the blocker being assigned (0: none)"),
    ("candidates", "legal actions (rows of `candidates`)"),
)
GLOBAL_INDEX: Final = {name: i for i, (name, _) in enumerate(GLOBAL_FIELDS)}
# The columns of the mana counts (W U B R G C) of each side.
_MANA_ME: Final = tuple(GLOBAL_INDEX[f"mana_me_{c}"] for c in "WUBRGC")
_MANA_OPP: Final = tuple(GLOBAL_INDEX[f"mana_opp_{c}"] for c in "WUBRGC")

# Candidate action fields (int16).
CANDIDATE_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("kind", "engine action kind + 1 (0: no candidate)"),
    ("source_row", "row + 1 of the object it acts with (card played, permanent used)"),
    ("target_row", "row + 1 of the object it chooses (target, blocked attacker, card)"),
    ("target_player", "1 the acting seat, 2 the opponent (0: no player)"),
    ("option", "ability index, choice index or card half"),
)
CANDIDATE_INDEX: Final = {name: i for i, (name, _) in enumerate(CANDIDATE_FIELDS)}
# Their columns as Final literals, as the object table's (tests/env/test_entity.py checks
# both against the fields).
_C_SOURCE: Final = 1
_C_TARGET: Final = 2
_C_PLAYER: Final = 3
_C_OPTION: Final = 4


@dataclass(frozen=True)
class EntityLimits(Frozen):
    """Table sizes. A state with more objects or more distinct legal actions is truncated
    by the env with a reason (as the flat layout's limits are)."""

    objects: int = 192
    candidates: int = 128


class EntityLayout:
    """The v1 observation and candidate actions for one format."""

    def __init__(self, flat: Layout, limits: EntityLimits | None = None) -> None:
        self.flat = flat
        own = {
            k: v for k, v in flat.cardset_layout.items() if k in EntityLimits.__dataclass_fields__
        }
        self.limits = lim = limits or EntityLimits(**own)
        self.n_actions = lim.candidates
        self.card_names = flat.card_names  # `card` values index this tuple
        self.keyword_names = KEYWORD_LIST
        # Row templates (`_table`): id(card definition) -> (it, its row off the battlefield
        # with no effect on it, its card); id(characteristics) -> (them, the card
        # definition, the battlefield row they give, its card).
        self._printed: dict[int, tuple[Any, bytes, int]] = {}
        self._on_bf: dict[int, tuple[Any, Any, bytes, int]] = {}
        n_cards = len(flat.card_names)
        self.observation_space = spaces.Dict(
            {
                "global": spaces.Box(-(2**15), 2**15 - 1, (len(GLOBAL_FIELDS),), np.int16),
                "objects": spaces.Box(0, 255, (lim.objects, len(OBJECT_FIELDS)), np.uint8),
                "object_card": spaces.Box(0, max(n_cards, 1), (lim.objects,), np.int16),
                "object_mask": spaces.Box(0, 1, (lim.objects,), np.int8),
                "candidates": spaces.Box(
                    0, 2**15 - 1, (lim.candidates, len(CANDIDATE_FIELDS)), np.int16
                ),
                "action_mask": spaces.Box(0, 1, (lim.candidates,), np.int8),
            }
        )

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A copy is the layout of the same flat layout and limits, built again (as
        # `Layout.__reduce__`): the compiled class cannot restore its attributes itself.
        return EntityLayout, (self.flat, self.limits)

    # ------------------------------------------------------------------ candidates

    def candidates(self, g: Game, seat: SupportsIndex) -> tuple[list[int], dict[int, Action], int]:
        """The flat indices of the legal moves in ascending order (row i of the candidate
        table is `rows[i]`), index -> engine action, and legal actions without a row."""
        _, amap, missing = self.flat.mask_and_map(g, seat)
        rows = sorted(amap)
        if len(rows) > self.limits.candidates:
            missing += len(rows) - self.limits.candidates
            rows = rows[: self.limits.candidates]
        return rows, amap, missing

    def overflow(self, g: Game) -> str | None:
        reason = self.flat.overflow(g)
        if reason is not None:
            return reason
        n = _n_objects(g, g.current_player if g.current_player is not None else 0)
        if n > self.limits.objects:
            return f"{n} visible objects (entity table limit {self.limits.objects})"
        return None

    def describe_index(self, i: SupportsIndex) -> str:
        i = _as_int(i)
        if not 0 <= i < self.limits.candidates:
            raise IndexError(i)
        return f"candidate[{i}]"

    # ------------------------------------------------------------------ observation

    def rows(self, g: Game, seat: SupportsIndex) -> tuple[list[tuple[int, Any]], dict[Any, int]]:
        """The visible objects in row order: own hand, the stack from the top, own then the
        opponent's battlefield (battlefield order), graveyards (own first, oldest first),
        exile. Items are (zone, card id) or ("stack", stack item)."""
        return self._rows(g, _as_int(seat))

    def _rows(self, g: Game, seat: int) -> tuple[list[tuple[int, Any]], dict[Any, int]]:
        keys: list[tuple[int, Any]] = []
        index: dict[Any, int] = {}  # card id, or ("item", id) of an ability: its row
        for cid in g.hand[seat]:
            index.setdefault(cid, len(keys))
            keys.append((Z_HAND, cid))
        for it in reversed(g.stack):
            # A spell is its card; an ability is a row of its own (keyed by the item).
            if it.kind == SPELL:
                index.setdefault(it.cid, len(keys))
                keys.append((Z_STACK, it.cid))
            else:
                index.setdefault(("item", id(it)), len(keys))
                keys.append((Z_STACK, it))
        for s in (seat, 1 - seat):
            for cid in g.controlled(s):
                index.setdefault(cid, len(keys))
                keys.append((Z_BATTLEFIELD, cid))
        piles = [g.rules.pile(seat), g.rules.pile(1 - seat)]
        for pile in dict.fromkeys(piles):
            for cid in g.graveyard[pile]:
                index.setdefault(cid, len(keys))
                keys.append((Z_GRAVEYARD, cid))
        for s in (seat, 1 - seat):
            for cid in g.exile[s]:
                index.setdefault(cid, len(keys))
                keys.append((Z_EXILE, cid))
        return keys, index

    def observe(
        self,
        g: Game,
        seat: SupportsIndex,
        rows_actions: tuple[list[int], dict[int, Action]] | None,
        out: dict[str, np.ndarray] | None = None,
    ) -> dict[str, np.ndarray]:
        """The v1 observation of `seat`, with the candidate rows of `rows_actions` (the
        acting seat's), written into the arrays of `out` if given (a batch row each)."""
        # Any integer (a numpy one, say) here; the compiled body takes an int.
        return self._observe(g, _as_int(seat), rows_actions, out)

    def _observe(
        self,
        g: Game,
        seat: int,
        rows_actions: tuple[list[int], dict[int, Action]] | None,
        out: dict[str, np.ndarray] | None,
    ) -> dict[str, np.ndarray]:
        lim = self.limits
        if out is None:
            objs = np.zeros((lim.objects, len(OBJECT_FIELDS)), np.uint8)
            card = np.zeros(lim.objects, np.int16)
            omask = np.zeros(lim.objects, np.int8)
            glob = np.zeros(len(GLOBAL_FIELDS), np.int16)
            cands = np.zeros((lim.candidates, len(CANDIDATE_FIELDS)), np.int16)
            amask = np.zeros(lim.candidates, np.int8)
        else:
            objs, card, omask = out["objects"], out["object_card"], out["object_mask"]
            glob, cands, amask = out["global"], out["candidates"], out["action_mask"]
            for arr in (objs, card, omask, glob, cands, amask):
                arr.fill(0)
        rows, index = self._rows(g, seat)
        n = min(len(rows), lim.objects)
        if n:
            flat, cards = self._table(g, seat, rows[:n], index)
            objs[:n] = np.frombuffer(flat, np.uint8).reshape(n, len(OBJECT_FIELDS))
            card[:n] = cards
            omask[:n] = 1
        G = GLOBAL_INDEX
        opp = 1 - seat
        # Written into a list and stored at once (a numpy scalar store costs 0.1 us).
        gl = [0] * len(GLOBAL_FIELDS)
        gl[G["turn"]] = min(g.turn, 32767)
        gl[G["step"]] = g.step + 1
        gl[G["active_is_me"]] = int(g.active == seat)
        gl[G["first_is_me"]] = int(g.first_player == seat)
        d = g.decision
        gl[G["decision"]] = 0 if d is None else d.kind + 1
        gl[G["life_me"]] = max(-32768, min(32767, g.life[seat]))
        gl[G["life_opp"]] = max(-32768, min(32767, g.life[opp]))
        gl[G["hand_me"]] = len(g.hand[seat])
        gl[G["hand_opp"]] = len(g.hand[opp])
        gl[G["library_me"]] = len(g.library[g.rules.pile(seat)])
        gl[G["library_opp"]] = len(g.library[g.rules.pile(opp)])
        gl[G["graveyard_me"]] = len(g.graveyard[g.rules.pile(seat)])
        gl[G["graveyard_opp"]] = len(g.graveyard[g.rules.pile(opp)])
        gl[G["mulligans_me"]] = g.mull_count[seat]
        gl[G["mulligans_opp"]] = g.mull_count[opp]
        gl[G["land_played"]] = g.lands_played if g.active == seat else 0
        for mana, s in ((_MANA_ME, seat), (_MANA_OPP, opp)):
            for col, n in zip(mana, mana_counts(g, s), strict=True):
                gl[col] = n
        gl[G["stack_size"]] = len(g.stack)
        gl[G["attackers"]] = len(g.attackers)
        gl[G["options"]] = 0 if d is None else len(d.options)
        ctx = g.ctx
        if isinstance(ctx, Targets):
            src = ctx.item.cid if ctx.item.kind == SPELL else ("item", id(ctx.item))
            r = index.get(src)
            gl[G["source_row"]] = 0 if r is None else r + 1
            gl[G["target_index"]] = len(ctx.item.targets)
        elif isinstance(ctx, Announce):  # the spell whose mode or X is being announced
            r = index.get(ctx.item.cid)
            gl[G["source_row"]] = 0 if r is None else r + 1
        if isinstance(ctx, BlockTarget) and ctx.blocker in index:
            gl[G["chosen_blocker_row"]] = index[ctx.blocker] + 1
        if rows_actions is not None:
            gl[G["candidates"]] = len(rows_actions[0])
        glob[:] = gl
        if rows_actions is not None:
            flat_rows, amap = rows_actions
            m = len(flat_rows)
            if m:
                # Described into one list and stored at once, as the object table.
                described: list[int] = []
                for fi in flat_rows:
                    a = amap[fi]
                    row = [a.kind + 1, 0, 0, 0, 0]
                    self._describe(g, seat, a, row, index, ctx)
                    described.extend(row)
                cands[:m] = np.array(described, np.int16).reshape(m, len(CANDIDATE_FIELDS))
                amask[:m] = 1
        return {
            "global": glob,
            "objects": objs,
            "object_card": card,
            "object_mask": omask,
            "candidates": cands,
            "action_mask": amask,
        }

    def _table(
        self, g: Game, seat: int, rows: list[tuple[int, Any]], index: dict[Any, int]
    ) -> tuple[bytearray, list[int]]:
        """The fields of `rows`, one row after the other, and each row's card.

        A row starts as a copy of a template that depends only on what cannot change
        without the object changing: on the battlefield its computed characteristics (one
        `Chars` per object and layer state, never changed once computed), elsewhere its
        printed card (when no effect reaches cards off the battlefield). What a move can
        change (zone, controller, tapped, damage, combat, counters) is written on the copy.
        Rows are bytes: numpy reads the table without converting an integer at a time.
        """
        nf = len(OBJECT_FIELDS)
        flat = bytearray()
        cards: list[int] = []
        ident = self.flat.ident
        cdef, owners, perm = g.cdef, g.owner, g.perm
        attackers, blockers = g.attackers, g.blockers
        offbf = g._offbf  # effects that reach cards off the battlefield, per player
        printed, on_bf = self._printed, self._on_bf
        sickness = g.rules.summoning_sickness
        last_start = g.last_turn_start
        for z, key in rows:
            b = len(flat)
            if z == Z_STACK and not isinstance(key, int):
                it = key
                f = [0] * nf
                f[_ZONE] = z
                f[_STACK_KIND] = 2 if it.kind == ABILITY else 3
                f[_MINE] = f[_OWNED] = int(it.controller == seat)
                flat += bytes(f)
                cards.append(ident.get(cdef[it.cid].name, 0))
                continue
            cid: int = key
            cd = cdef[cid]
            owner = owners[cid]
            if z == Z_BATTLEFIELD:
                ch = g.chars(cid)
                hit = on_bf.get(id(ch))
                if hit is None or hit[0] is not ch or hit[1] is not cd:
                    t = _chars_row(cd, ch)
                    t[_ZONE] = z
                    flags = 1 if cd.token else 0
                    if ch.name != cd.name:
                        flags |= 2  # a copy: its characteristics are another card's
                    if cd.name == FACE_DOWN:
                        flags |= 4
                    t[_FLAGS] = flags
                    if len(on_bf) > 8192:
                        on_bf.clear()
                    # The entry holds `ch`, so no other object takes its id while it is here.
                    hit = on_bf[id(ch)] = (ch, cd, bytes(t), ident.get(cd.name, 0))
                flat += hit[2]
                cards.append(hit[3])
                ctl = ch.controller
                if ctl == seat:
                    flat[b + _MINE] = 1
                if owner == seat:
                    flat[b + _OWNED] = 1
                if ctl != owner:
                    flat[b + _FLAGS] |= 8
                p = perm[cid]
                if p.tapped:
                    flat[b + _TAPPED] = 1
                # Summoning sickness as Game.sick computes it (CR 302.6), inlined.
                if sickness and ch.types & CREATURE and p.control_since > last_start[ctl]:
                    flat[b + _SICK] = 1
                if cid in attackers:
                    flat[b + _ATTACKING] = 1
                blocked = blockers.get(cid)
                if blocked is not None and blocked in index:
                    flat[b + _BLOCKING] = index[blocked] + 1
                if p.damage:
                    flat[b + _DAMAGE] = min(255, p.damage)
                if p.counters:
                    flat[b + _PLUS] = min(255, p.counters.get("+1/+1", 0))
                    flat[b + _MINUS] = min(255, p.counters.get("-1/-1", 0))
                if p.attached >= 0 and p.attached in index:
                    flat[b + _ATTACHED] = index[p.attached] + 1
                continue
            on_stack = z == Z_STACK
            if not on_stack and not offbf[owner]:
                known = printed.get(id(cd))
                if known is not None:
                    # A card off the battlefield without effects on it: its printed values.
                    flat += known[1]
                    cards.append(known[2])
                    flat[b + _ZONE] = z
                    if owner == seat:
                        flat[b + _MINE] = flat[b + _OWNED] = 1
                    continue
            ch = g.chars(cid)
            t = _chars_row(cd, ch)
            t[_FLAGS] = 1 if cd.token else 0
            card_i = ident.get(cd.name, 0)
            if not on_stack and not offbf[owner] and not _has_cda(cd):
                # The entry holds `cd` (card definitions live as long as their set anyway).
                printed[id(cd)] = (cd, bytes(t), card_i)
            t[_ZONE] = z
            t[_MINE] = int((ch.controller if on_stack else owner) == seat)
            t[_OWNED] = int(owner == seat)
            if on_stack:
                t[_STACK_KIND] = 1
            flat += bytes(t)
            cards.append(card_i)
        return flat, cards

    def _describe(
        self, g: Game, seat: int, a: Action, row: list[int], index: dict[Any, int], ctx: Any
    ) -> None:
        k = a.kind
        if k == PLAY:
            row[_C_SOURCE] = _row_of(index, a.obj)
            row[_C_OPTION] = a.arg
        elif k == ATTACK:
            row[_C_SOURCE] = _row_of(index, a.obj)
            row[_C_PLAYER] = 1 if a.arg == seat else 2
        elif k == BLOCKER:
            row[_C_SOURCE] = _row_of(index, a.obj)
        elif k == BLOCK:
            row[_C_TARGET] = _row_of(index, a.obj)
            if isinstance(ctx, BlockTarget):
                row[_C_SOURCE] = _row_of(index, ctx.blocker)
        elif k in (TARGET, CARD):
            if a.obj < 0:
                row[_C_PLAYER] = 1 if -1 - a.obj == seat else 2
            else:
                row[_C_TARGET] = _row_of(index, a.obj)
            if isinstance(ctx, Targets):
                it = ctx.item
                key: Any = it.cid if it.kind == SPELL else ("item", id(it))
                row[_C_SOURCE] = _row_of(index, key)
        else:  # activate (ability index), choose (option), pass, keep, mulligan
            # Only an activation has an object: the others carry obj 0, which is no card.
            if k == ACTIVATE and g.zone[a.obj] in (BATTLEFIELD, HAND):
                row[_C_SOURCE] = _row_of(index, a.obj)  # from the hand: cycling
            row[_C_OPTION] = a.arg


def _row_of(index: dict[Any, int], key: Any) -> int:
    """Row + 1 of an object, 0 for none."""
    r = index.get(key)
    return 0 if r is None else r + 1


def _chars_row(cd: Any, ch: Any) -> list[int]:
    """An object row with the columns from types to abilities filled from `ch`."""
    f = [0] * len(OBJECT_FIELDS)
    f[_TYPES] = ch.types & 255
    f[_COLORS] = ch.colors & 255
    st = ch.supertypes
    f[_SUPERTYPES] = (1 if st & 1 else 0) | (2 if st & LEGENDARY else 0)
    f[_MV] = min(255, cd.mv)
    if ch.power is not None:
        f[_HAS_PT] = 1
        f[_POWER] = min(255, max(0, ch.power))
        f[_TOUGHNESS] = min(255, max(0, ch.toughness or 0))
    if ch.keywords:
        kw = 0
        for k in ch.keywords:
            kw |= _KW_BIT.get(k, 0)
        f[_KW0] = kw & 255
        f[_KW1] = (kw >> 8) & 255
        f[_KW2] = (kw >> 16) & 255
        f[_KW3] = (kw >> 24) & 255
    ab = 0
    for a in ch.abilities:
        ab |= _ABILITY_BIT.get(type(a), 0)
    f[_ABILITIES] = ab
    return f


def _has_cda(cd: Any) -> bool:
    return any(type(a) is StaticAbility and a.cda is not None for a in cd.abilities)


def _n_objects(g: Game, seat: int) -> int:
    piles = {g.rules.pile(seat), g.rules.pile(1 - seat)}
    return (
        len(g.hand[seat])
        + len(g.stack)
        + len(g.battlefield)
        + sum(len(g.graveyard[p]) for p in piles)
        + len(g.exile[0])
        + len(g.exile[1])
    )
