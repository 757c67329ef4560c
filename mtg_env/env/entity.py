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

import sys
from array import array
from dataclasses import dataclass
from operator import index as _as_int
from typing import Any, Final, SupportsIndex

import numpy as np
from gymnasium import spaces

from ..engine import Action, Game
from ..engine.cards import (
    ActivatedAbility,
    CardDef,
    ManaAbility,
    StaticAbility,
    TriggeredAbility,
)
from ..engine.chars import Chars
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
from .spaces import KEYWORD_LIST, MEMO_ENTITY, Layout, mana_counts

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
_NF: Final = len(OBJECT_FIELDS)
_ZERO_I16: Final = bytes(2)
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
        # Row templates of cards off the battlefield (`_off_row`): id(card definition) ->
        # [it, its row with no effect on it, its card, its rows by zone and owner]. Those
        # on the battlefield ride on their characteristics (`Chars.memo`, `_bf_memo`).
        self._printed: dict[int, list[Any]] = {}
        self._by_value: dict[tuple[Any, ...], list[Any]] = {}
        self._cards_i16 = {
            n: i.to_bytes(2, sys.byteorder, signed=True) for n, i in flat.ident.items()
        }
        # A mask of length k with n ones is self._ones[size - n : size - n + k].
        self._size = size = max(lim.objects, lim.candidates)
        self._ones = b"\x01" * size + b"\x00" * size
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
        amap, missing = self.flat.action_map(g, _as_int(seat))
        rows = sorted(amap)
        if len(rows) > self.limits.candidates:
            missing += len(rows) - self.limits.candidates
            rows = rows[: self.limits.candidates]
        return rows, amap, missing

    def legal(
        self, g: Game, seat: SupportsIndex, mask_out: np.ndarray | None = None
    ) -> tuple[np.ndarray, dict[int, Action], int, tuple[list[int], dict[int, Action]]]:
        """The candidate rows' int8 mask (written into `mask_out` if given), candidate
        row -> engine action, legal actions without a row, and (`candidates`' rows, index
        -> action) for `observe`."""
        rows, flat_map, missing = self.candidates(g, seat)
        m, k, z = len(rows), self.limits.candidates, self._size
        mask = np.frombuffer(bytearray(self._ones[z - m : z - m + k]), np.int8)
        if mask_out is not None:
            mask_out[...] = mask
            mask = mask_out
        actions = {i: flat_map[fi] for i, fi in enumerate(rows)}
        return mask, actions, missing, (rows, flat_map)

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
        n_obj, n_cand, z = lim.objects, lim.candidates, self._size
        # Each table is built whole as bytes (rows, then zeros) and read by numpy without a
        # conversion: no zero fill, no element-by-element copy from a list.
        flat, cardb, n, index = self._table(g, seat)
        if n < n_obj:
            flat += bytes((n_obj - n) * _NF)
            cardb += bytes(2 * (n_obj - n))
        objs = np.frombuffer(flat, np.uint8).reshape(n_obj, _NF)
        card = np.frombuffer(cardb, np.int16)
        omask = np.frombuffer(bytearray(self._ones[z - n : z - n + n_obj]), np.int8)
        G = GLOBAL_INDEX
        opp = 1 - seat
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
            counts = mana_counts(g, s)
            for j in range(6):
                gl[mana[j]] = counts[j]
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
        m = 0
        described: list[int] = []
        if rows_actions is not None:
            flat_rows, amap = rows_actions
            m = len(flat_rows)
            gl[G["candidates"]] = m
            for fi in flat_rows:
                a = amap[fi]
                row = [a.kind + 1, 0, 0, 0, 0]
                self._describe(g, seat, a, row, index, ctx)
                described.extend(row)
        glob = np.array(gl, np.int16)
        cb = array("h", described)
        cb.frombytes(bytes(2 * len(CANDIDATE_FIELDS) * (n_cand - m)))
        cands = np.frombuffer(cb, np.int16).reshape(n_cand, len(CANDIDATE_FIELDS))
        amask = np.frombuffer(bytearray(self._ones[z - m : z - m + n_cand]), np.int8)
        if out is not None:  # a batch row: the arrays are the caller's
            out["objects"][...] = objs
            out["object_card"][...] = card
            out["object_mask"][...] = omask
            out["global"][...] = glob
            out["candidates"][...] = cands
            out["action_mask"][...] = amask
            glob, objs, card = out["global"], out["objects"], out["object_card"]
            omask, cands, amask = out["object_mask"], out["candidates"], out["action_mask"]
        return {
            "global": glob,
            "objects": objs,
            "object_card": card,
            "object_mask": omask,
            "candidates": cands,
            "action_mask": amask,
        }

    def _table(self, g: Game, seat: int) -> tuple[bytearray, bytearray, int, dict[Any, int]]:
        """The object table's rows one after the other (at most `limits.objects`), each
        row's card as native int16 bytes, the number of rows, and the row of every visible
        object (all of them, past the limit too): card id, or ("item", id) of an ability.
        Rows are in the order of `rows()`.

        A row is a template that depends only on what cannot change without the object
        changing: on the battlefield its computed characteristics (one `Chars` per object
        and layer state, never changed once computed; the templates ride on it as
        `Chars.memo`, one per seat, tapped and sick), elsewhere its printed card (when no
        effect reaches cards off the battlefield; one per zone and owner). What else a move
        can change (combat, damage, counters, attachment) is written on the copy.
        """
        limit = self.limits.objects
        flat = bytearray()
        cardb = bytearray()
        index: dict[Any, int] = {}
        r = 0
        cdef, owners = g.cdef, g.owner
        for cid in g.hand[seat]:
            index[cid] = r
            if r < limit:
                self._off_row(g, seat, cid, Z_HAND, flat, cardb)
            r += 1
        for it in reversed(g.stack):
            # A spell is its card; an ability is a row of its own (keyed by the item).
            if it.kind == SPELL:
                cid = it.cid
                index[cid] = r
                if r < limit:
                    cd = cdef[cid]
                    ch = g.chars(cid)
                    t = _chars_row(cd, ch)
                    t[_FLAGS] = 1 if cd.token else 0
                    t[_ZONE] = Z_STACK
                    t[_MINE] = int(ch.controller == seat)
                    t[_OWNED] = int(owners[cid] == seat)
                    t[_STACK_KIND] = 1
                    flat += bytes(t)
                    cardb += self._card_bytes(cd.name)
            else:
                index[("item", id(it))] = r
                if r < limit:
                    f = [0] * _NF
                    f[_ZONE] = Z_STACK
                    f[_STACK_KIND] = 2 if it.kind == ABILITY else 3
                    f[_MINE] = f[_OWNED] = int(it.controller == seat)
                    flat += bytes(f)
                    cardb += self._card_bytes(cdef[it.cid].name)
            r += 1
        perm = g.perm
        attackers, blockers = g.attackers, g.blockers
        combat = bool(attackers) or bool(blockers)
        sickness = g.rules.summoning_sickness
        last_start = g.last_turn_start
        # Blocks and attachments name rows that may come later: written once all are known.
        later: list[tuple[int, int]] = []
        for s in (seat, 1 - seat):
            cids = g.controlled(s)
            for cid, ch in zip(cids, g.chars_of(cids)):
                index[cid] = r
                r += 1
                if r > limit:
                    continue
                cd = cdef[cid]
                owner = owners[cid]
                kept: list[Any] | None = ch.memo
                if kept is None:
                    kept = ch.memo = [None, None]
                memo: list[Any] | None = kept[MEMO_ENTITY]
                if memo is None or memo[0] is not self or memo[1] is not cd or memo[2] != owner:
                    memo = kept[MEMO_ENTITY] = self._bf_memo(cd, ch, owner)
                ctl = ch.controller
                p = perm[cid]
                # Summoning sickness as Game.sick computes it (CR 302.6), inlined.
                sick = sickness and (ch.types & CREATURE) != 0 and p.control_since > last_start[ctl]
                k = 6 + 4 * seat + (2 if p.tapped else 0) + (1 if sick else 0)
                row = memo[k]
                if row is None:
                    row = memo[k] = _bf_variant(memo[4], ctl, owner, seat, p.tapped, sick)
                b = len(flat)
                flat += row
                cardb += memo[3]
                if combat:
                    if cid in attackers:
                        flat[b + _ATTACKING] = 1
                    blocked = blockers.get(cid)
                    if blocked is not None:
                        later.append((b + _BLOCKING, blocked))
                if p.damage:
                    flat[b + _DAMAGE] = min(255, p.damage)
                if p.counters:
                    flat[b + _PLUS] = min(255, p.counters.get("+1/+1", 0))
                    flat[b + _MINUS] = min(255, p.counters.get("-1/-1", 0))
                if p.attached >= 0:
                    later.append((b + _ATTACHED, p.attached))
        piles = [g.rules.pile(seat), g.rules.pile(1 - seat)]
        for pile in dict.fromkeys(piles):
            for cid in g.graveyard[pile]:
                index[cid] = r
                if r < limit:
                    self._off_row(g, seat, cid, Z_GRAVEYARD, flat, cardb)
                r += 1
        for s in (seat, 1 - seat):
            for cid in g.exile[s]:
                index[cid] = r
                if r < limit:
                    self._off_row(g, seat, cid, Z_EXILE, flat, cardb)
                r += 1
        for pos, key in later:
            j = index.get(key)
            if j is not None:
                flat[pos] = j + 1
        return flat, cardb, min(r, limit), index

    def _bf_memo(self, cd: CardDef, ch: Chars, owner: int) -> list[Any]:
        """A battlefield object's templates: [this layout, its card definition, owner, card
        bytes, the row of its characteristics, its abilities, then the rows by seat, tapped
        and sick (built as asked)]. A layer recomputation makes new characteristics with mostly the
        same values: objects with equal values share one list, looked up by value."""
        abilities = ch.abilities
        # By identity where hashing would read deep values (the definition, the abilities):
        # the list holds both, so no other object takes their id while it is here.
        key = (
            id(cd),
            owner,
            ch.controller,
            ch.name,
            ch.types,
            ch.colors,
            ch.supertypes,
            ch.power,
            ch.toughness,
            ch.keywords,
            id(abilities),
        )
        memo = self._by_value.get(key)
        if memo is not None:
            return memo
        t = _chars_row(cd, ch)
        t[_ZONE] = Z_BATTLEFIELD
        flags = 1 if cd.token else 0
        if ch.name != cd.name:
            flags |= 2  # a copy: its characteristics are another card's
        if cd.name == FACE_DOWN:
            flags |= 4
        t[_FLAGS] = flags
        memo = [self, cd, owner, self._card_bytes(cd.name), bytes(t), abilities]
        memo.extend([None] * 8)
        if len(self._by_value) > 8192:
            self._by_value.clear()
        self._by_value[key] = memo
        return memo

    def _off_row(
        self, g: Game, seat: int, cid: int, z: int, flat: bytearray, cardb: bytearray
    ) -> None:
        """Append the row of card `cid` in hand, graveyard or exile (zone `z`)."""
        cd = g.cdef[cid]
        owner = g.owner[cid]
        mine = owner == seat
        if not g._offbf[owner]:
            known = self._printed.get(id(cd))
            if known is not None:
                # A card off the battlefield without effects on it: its printed values.
                k = 3 + 2 * z + (1 if mine else 0)
                row = known[k]
                if row is None:
                    v = bytearray(known[1])
                    v[_ZONE] = z
                    if mine:
                        v[_MINE] = v[_OWNED] = 1
                    row = known[k] = bytes(v)
                flat += row
                cardb += known[2]
                return
        ch = g.chars(cid)
        t = _chars_row(cd, ch)
        t[_FLAGS] = 1 if cd.token else 0
        cb = self._card_bytes(cd.name)
        if not g._offbf[owner] and not _has_cda(cd):
            # The entry holds `cd` (card definitions live as long as their set anyway):
            # [it, its printed row, card bytes, then the rows by zone and owner].
            entry: list[Any] = [cd, bytes(t), cb]
            entry.extend([None] * 12)
            self._printed[id(cd)] = entry
        t[_ZONE] = z
        t[_MINE] = int(mine)
        t[_OWNED] = int(mine)
        flat += bytes(t)
        cardb += cb

    def _card_bytes(self, name: str) -> bytes:
        """The `card` column's value of a card name, as native int16 bytes."""
        return self._cards_i16.get(name, _ZERO_I16)

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


def _bf_variant(base: bytes, ctl: int, owner: int, seat: int, tapped: bool, sick: bool) -> bytes:
    """A battlefield row template as `seat` sees it, tapped and sick or not."""
    t = bytearray(base)
    if ctl == seat:
        t[_MINE] = 1
    if owner == seat:
        t[_OWNED] = 1
    if ctl != owner:
        t[_FLAGS] |= 8
    if tapped:
        t[_TAPPED] = 1
    if sick:
        t[_SICK] = 1
    return bytes(t)


def _row_of(index: dict[Any, int], key: Any) -> int:
    """Row + 1 of an object, 0 for none."""
    r = index.get(key)
    return 0 if r is None else r + 1


def _chars_row(cd: CardDef, ch: Chars) -> list[int]:
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


def _has_cda(cd: CardDef) -> bool:
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
