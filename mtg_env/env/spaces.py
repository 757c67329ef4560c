"""The fixed action layout and the observation encoding of the environment.

Both are built per format from its card set and limits, so that the same index means
the same kind of move (and the same feature) in every state. See `mtg_env.env.duel` for
the documentation of every slice.

This module is compiled with the engine where the engine is (setup.py, docs/compiling.md):
it follows the engine's conventions (typed, no dynamic attributes, copies by `__reduce__`).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import index
from typing import Any, Final, SupportsIndex, get_args

import numpy as np

from ..engine import Action, Game
from ..engine.carddb import TARGET_KINDS as _TARGET_KIND_LITERAL
from ..engine.carddb import CardSet, set_keywords
from ..engine.constants import (
    ACTIVATE,
    ARTIFACT,
    ATTACK,
    BATTLEFIELD,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    CREATURE,
    D_SELECT,
    D_TARGET,
    DECISION_NAMES,
    ENCHANTMENT,
    GRAVEYARD,
    HAND,
    INSTANT,
    KEEP,
    LAND,
    MULLIGAN,
    PASS,
    PLAY,
    SORCERY,
    STACK,
    STEP_NAMES,
    TARGET,
)
from ..engine.decisions import BlockTarget, Targets
from ..engine.frozen import Frozen
from ..engine.layers import Chars
from ..engine.objects import SPELL, TRIGGER
from ..engine.vocab import FIRST_KEYWORDS, KEYWORD_ORDER


@dataclass(frozen=True)
class Limits(Frozen):
    """Slot counts of the layout. A state that exceeds them (more permanents on one side,
    a deeper stack) is truncated by the env rather than leaving a legal move unreachable."""

    permanents: int = 40  # per side
    stack: int = 20
    abilities: int = 6  # activated-ability indices per permanent (mana abilities counted)
    options: int = 40  # choices in one decision (a text change has at most 40)


# The observation's target kinds: the card data's, but "opponent", a player target, is
# seen as "player" (the mask says which player), so that the feature keeps its size.
TARGET_KINDS: Final[tuple[str, ...]] = tuple(
    k for k in get_args(_TARGET_KIND_LITERAL) if k != "opponent"
)
# Every keyword in feature order (append-only: engine.vocab.KEYWORD_ORDER).
KEYWORD_LIST: Final = KEYWORD_ORDER
_TYPES: Final = (ARTIFACT, CREATURE, ENCHANTMENT, LAND, INSTANT, SORCERY)
TYPE_ORDER: Final = _TYPES  # the order of a permanent slot's "types" field
# Mana observation: the count indices (colours 0-4, colourless-maker 5) of a source key.
_BITS: Final = tuple(tuple(b for b in range(6) if key & (1 << b)) for key in range(64))
SOURCE_COUNTS: Final = _BITS  # by public name (mtg_env.spellbench.entity_view counts too)
# What the encoders keep on a computed characteristics object (`Chars.memo`: a list with one
# place per encoder, each holding the layout that wrote it): they never change once computed,
# and a field read is cheaper than a table keyed by `id()`.
MEMO_FLAT: Final = 0  # (layout, the static permanent features)
MEMO_ENTITY: Final = 1  # the v1 row templates (mtg_env.env.entity)


def mana_counts(g: Game, seat: int) -> list[int]:
    """Mana sources `seat` can use now, per colour they can pay (W U B R G) and
    colourless-making ones (C)."""
    # By distinct colour mask: few distinct masks, many sources.
    by_mask: dict[int, int] = {}
    for src in g.mana_sources(seat):
        key = (src.colors & 31) | (32 if src.free & 32 else 0)
        by_mask[key] = by_mask.get(key, 0) + 1
    counts = [0] * 6
    for key, n in by_mask.items():
        for b in _BITS[key]:
            counts[b] += n
    return counts


class Layout:
    """Action slices and observation slices for one format."""

    def __init__(self, cardset: CardSet, limits: Limits | None = None) -> None:
        self.cardset = cardset
        # The set's own table sizes (set.yaml `layout`) over the defaults.
        own = {k: v for k, v in cardset.layout.items() if k in Limits.__dataclass_fields__}
        self.limits = lim = limits or Limits(**own)
        self.cardset_layout = dict(cardset.layout)
        names = list(cardset.cards) + [t for t in cardset.tokens if t not in cardset.cards]
        self.card_names: tuple[str, ...] = tuple(names)
        self.ident = {n: i for i, n in enumerate(names)}
        ni = len(names)
        self.n_ident = ni
        P, S, A, C = lim.permanents, lim.stack, lim.abilities, lim.options

        acts: list[tuple[str, int]] = [
            ("pass", 1),
            ("keep", 1),
            ("mulligan", 1),
            ("play", ni),  # play a land / cast a spell: card identity in hand
            ("hand_card", ni),  # choose a card in hand (bottom, discard)
            ("activate", P * A),  # own permanent slot k, ability j: index k * A + j
            ("attack", P),  # own permanent slot
            ("blocker", P),  # own permanent slot
            ("block", P),  # opponent permanent slot (the attacker)
            ("target_player", 2),  # 0 = yourself, 1 = the opponent
            ("object_own", P),  # target or select your permanent slot k
            ("object_opp", P),  # target or select the opponent's permanent slot k
            ("target_stack", S),  # stack position, 0 = top
            ("target_graveyard_own", ni),  # a card of this identity in your graveyard
            ("target_graveyard_opp", ni),
            ("choose", C),  # option c of the pending choice
        ]
        self.action_slices: dict[str, slice] = {}
        n = 0
        for name, size in acts:
            self.action_slices[name] = slice(n, n + size)
            n += size
        self.n_actions = n
        self._a0 = {k: s.start for k, s in self.action_slices.items()}

        # Observation layout.
        # The first keywords always, a later one where the card set uses it: a set that
        # uses none of them (the classic, adventure and pocket sets) keeps its layout.
        used = set_keywords(cardset)
        self.keywords = tuple(k for k in KEYWORD_LIST if k in FIRST_KEYWORDS or k in used)
        self.kw_index = {k: i for i, k in enumerate(self.keywords)}
        nk = len(self.keywords)
        self.perm_fields: list[tuple[str, int]] = [
            ("present", 1),
            ("identity", ni),
            ("types", len(_TYPES)),
            ("colors", 5),
            ("power", 1),
            ("toughness", 1),
            ("keywords", nk),
            ("tapped", 1),
            ("sick", 1),
            ("attacking", 1),
            ("blocking", 1),
            ("blocked", 1),
            ("blocks_slot", 1),
            ("blockers", 1),
            ("damage", 1),
            ("plus_counters", 1),
            ("minus_counters", 1),
            ("token", 1),
            ("stolen", 1),
            ("attached", 1),
            ("attached_to_opp", 1),
            ("attached_slot", 1),
            ("copy", 1),
            ("has_ability", 1),
        ]
        self.pf = sum(s for _, s in self.perm_fields)
        self._poff = {}
        off = 0
        for name, size in self.perm_fields:
            self._poff[name] = off
            off += size
        # The same offsets under a public name, for networks that read a permanent slot.
        self.perm_offsets: dict[str, int] = self._poff
        self.stack_fields: list[tuple[str, int]] = [
            ("present", 1),
            ("identity", ni),
            ("spell", 1),
            ("ability", 1),
            ("trigger", 1),
            ("mine", 1),
            ("targets", 1),
        ]
        self.sf = sum(s for _, s in self.stack_fields)
        obs: list[tuple[str, int]] = [
            ("turn", 1),
            ("step", len(STEP_NAMES) + 1),
            ("active_is_me", 1),
            ("first_is_me", 1),
            ("decision", len(DECISION_NAMES)),
            ("i_decide", 1),
            ("life", 2),
            ("hand_size", 2),
            ("library_size", 2),
            ("graveyard_size", 2),
            ("mulligans", 2),
            ("land_played", 1),
            ("mana", 12),
            ("stack_size", 1),
            ("n_attackers", 1),
            ("decision_source", ni),
            ("target_index", 3),
            ("target_kind", len(TARGET_KINDS)),
            ("chosen_blocker", P),
            ("n_options", 1),
            ("hand", ni),
            ("graveyard_own", ni),
            ("graveyard_opp", ni),
            ("permanents_own", P * self.pf),
            ("permanents_opp", P * self.pf),
            ("stack", S * self.sf),
        ]
        self.obs_slices: dict[str, slice] = {}
        n = 0
        for name, size in obs:
            self.obs_slices[name] = slice(n, n + size)
            n += size
        self.n_obs = n
        self._o0 = {k: s.start for k, s in self.obs_slices.items()}
        # The static permanent features (float32 bytes) by value; see _static_vec.
        self._by_value: dict[tuple, bytes] = {}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A copy (pickle, copy.deepcopy of an env) is the layout of the same card set and
        # limits, built again: everything else here follows from them, and the compiled
        # class has no default way to restore its attributes (docs/compiling.md).
        return Layout, (self.cardset, self.limits)

    # ------------------------------------------------------------------ slots

    def slots(self, g: Game, seat: int) -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
        """Permanent slots (own, opponent) in battlefield order, and stack positions."""
        own = g.positions(seat)
        opp = g.positions(1 - seat)
        stack: dict[int, int] = {}
        for i, it in enumerate(reversed(g.stack)):
            if it.kind == SPELL:
                stack[it.cid] = i
        return own, opp, stack

    def overflow(self, g: Game) -> str | None:
        """Why this state exceeds the layout, or None."""
        lim = self.limits
        for seat in (0, 1):
            n = len(g.controlled(seat))
            if n > lim.permanents:
                return f"player {seat} controls {n} permanents (layout limit {lim.permanents})"
        if len(g.stack) > lim.stack:
            return f"the stack holds {len(g.stack)} objects (layout limit {lim.stack})"
        d = g.decision
        if d is not None and len(d.options) > lim.options:
            return f"a choice has {len(d.options)} options (layout limit {lim.options})"
        return None

    # ------------------------------------------------------------------ actions

    def action_index(
        self,
        g: Game,
        a: Action,
        seat: int,
        own: dict[int, int],
        opp: dict[int, int],
        stack: dict[int, int],
    ) -> int:
        """The index of engine action `a` for the acting `seat` (-1 if it has none)."""
        k = a.kind
        a0 = self._a0
        if k == PASS:
            return a0["pass"]
        if k == KEEP:
            return a0["keep"]
        if k == MULLIGAN:
            return a0["mulligan"]
        if k == PLAY:
            cd = g.cdef[a.obj]
            if cd.halves:  # pocket: a half (0 top, 1 bottom), or 2: face down as mana
                if a.arg >= len(cd.halves):
                    return a0["hand_card"] + self.ident[cd.name]
                return a0["play"] + self.ident[cd.halves[a.arg].name]
            if g.zone[a.obj] == GRAVEYARD:
                # Flashback (702.34a): the card in the graveyard, as a target of one is
                # named. No other priority action uses `target_graveyard_own`.
                return a0["target_graveyard_own"] + self.ident[cd.name]
            return a0["play"] + self.ident[cd.name]
        if k == ACTIVATE:
            s = own.get(a.obj)
            if s is None and g.zone[a.obj] == HAND:
                # An ability activated from the hand (cycling): the card in hand, as a
                # discard picks one. No other priority action uses `hand_card` here (a
                # face-down play of pocket's is a PLAY).
                return a0["hand_card"] + self.ident[g.cdef[a.obj].name]
            if s is None or a.arg >= self.limits.abilities:
                return -1
            return a0["activate"] + s * self.limits.abilities + a.arg
        if k == ATTACK:
            s = own.get(a.obj)
            return -1 if s is None else a0["attack"] + s
        if k == BLOCKER:
            s = own.get(a.obj)
            return -1 if s is None else a0["blocker"] + s
        if k == BLOCK:
            s = opp.get(a.obj)
            return -1 if s is None else a0["block"] + s
        if k == CHOOSE:
            return a0["choose"] + a.arg if a.arg < self.limits.options else -1
        if k in (TARGET, CARD):
            d = g.decision
            if k == CARD and d is not None and d.kind != D_SELECT:
                return a0["hand_card"] + self.ident[g.cdef[a.obj].name]
            ref = a.obj
            if ref < 0:
                return a0["target_player"] + (0 if -1 - ref == seat else 1)
            z = g.zone[ref]
            if z == BATTLEFIELD:
                if ref in own:
                    return a0["object_own"] + own[ref]
                s = opp.get(ref)
                return -1 if s is None else a0["object_opp"] + s
            if z == STACK:
                s = stack.get(ref)
                return -1 if s is None else a0["target_stack"] + s
            if z == GRAVEYARD:
                base = a0[
                    "target_graveyard_own" if g.owner[ref] == seat else "target_graveyard_opp"
                ]
                return base + self.ident[g.cdef[ref].name]
        return -1

    def mask_and_map(
        self, g: Game, seat: SupportsIndex, out: np.ndarray | None = None
    ) -> tuple[np.ndarray, dict[int, Action], int]:
        """The int8 mask for `seat` (written into `out` if given), index -> engine action
        (the first of equivalent actions: e.g. two Forests in hand), and the number of
        legal actions without an index (always 0 within the limits)."""
        # Any integer (a numpy one, say) here; the compiled body takes an int.
        return self._mask_and_map(g, index(seat), out)

    def _mask_and_map(
        self, g: Game, seat: int, out: np.ndarray | None
    ) -> tuple[np.ndarray, dict[int, Action], int]:
        if out is None:
            mask = np.zeros(self.n_actions, dtype=np.int8)
        else:
            mask = out
            mask.fill(0)
        amap, missing = self.action_map(g, seat)
        for i in amap:
            mask[i] = 1
        return mask, amap, missing

    def action_map(self, g: Game, seat: int) -> tuple[dict[int, Action], int]:
        """`mask_and_map` without the mask: index -> engine action, and the number of
        legal actions without an index."""
        amap: dict[int, Action] = {}
        if g.is_over or g.current_player != seat:
            return amap, 0
        own, opp, stack = self.slots(g, seat)
        missing = 0
        for a in g.legal_actions():
            i = self.action_index(g, a, seat, own, opp, stack)
            if i < 0:
                missing += 1
            elif i not in amap:
                amap[i] = a
        return amap, missing

    def describe_index(self, i: SupportsIndex) -> str:
        i = index(i)
        for name, s in self.action_slices.items():
            if s.start <= i < s.stop:
                j = i - s.start
                if name in ("play", "hand_card", "target_graveyard_own", "target_graveyard_opp"):
                    return f"{name}[{self.card_names[j]}]"
                if name == "activate":
                    a = self.limits.abilities
                    return f"activate[slot {j // a}, ability {j % a}]"
                return f"{name}[{j}]" if s.stop - s.start > 1 else name
        raise IndexError(i)

    # ------------------------------------------------------------------ observation

    def observe(self, g: Game, seat: SupportsIndex, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of `seat`: everything it may see and nothing else (no
        opponent hand identities, no library order). All values in [0, 1]."""
        return self._observe(g, index(seat), out)

    def _observe(self, g: Game, seat: int, out: np.ndarray | None) -> np.ndarray:
        o = np.zeros(self.n_obs, dtype=np.float32) if out is None else out
        if out is not None:
            o.fill(0.0)
        # Stores go through memoryviews of the array: a float store through one costs a
        # fraction of a numpy scalar store or of collecting (index, value) lists for one
        # fancy assignment, and a permanent's cached encoding is copied in as bytes.
        wb = o.data.cast("B")
        w = wb.cast("f")
        O = self._o0
        opp_seat = 1 - seat
        d = g.decision
        life, hand, library, graveyard, mull = g.life, g.hand, g.library, g.graveyard, g.mull_count
        w[O["turn"]] = min(g.turn / 50.0, 1.0)
        w[O["step"] + (g.step if g.step >= 0 else len(STEP_NAMES))] = 1.0
        w[O["active_is_me"]] = float(g.active == seat)
        w[O["first_is_me"]] = float(g.first_player == seat)
        w[O["land_played"]] = float(g.lands_played > 0 and g.active == seat)
        w[O["stack_size"]] = min(len(g.stack) / self.limits.stack, 1.0)
        w[O["n_attackers"]] = min(len(g.attackers) / 20.0, 1.0)
        if d is not None:
            w[O["decision"] + d.kind] = 1.0
            w[O["i_decide"]] = float(d.player == seat)
        for i, s in enumerate((seat, opp_seat)):
            w[O["life"] + i] = min(max(life[s], 0) / 40.0, 1.0)
            w[O["hand_size"] + i] = min(len(hand[s]) / 20.0, 1.0)
            w[O["library_size"] + i] = min(len(library[s]) / 60.0, 1.0)
            w[O["graveyard_size"] + i] = min(len(graveyard[s]) / 60.0, 1.0)
            w[O["mulligans"] + i] = min(mull[s] / 7.0, 1.0)
            counts = mana_counts(g, s)
            base = O["mana"] + 6 * i
            for b in range(6):
                if counts[b]:
                    w[base + b] = min(counts[b] / 20.0, 1.0)
        own, opp, stack = self.slots(g, seat)
        ident = self.ident
        if d is not None and d.player == seat:
            if d.source >= 0:
                name = (
                    g.chars(d.source).name
                    if g.zone[d.source] == BATTLEFIELD
                    else (g.cdef[d.source].name)
                )
                w[O["decision_source"] + ident.get(name, 0)] = 1.0
            ctx = g.ctx
            if d.kind == D_TARGET and isinstance(ctx, Targets):
                item, specs = ctx.item, ctx.specs
                ti = len(item.targets)
                kind = specs[ti].kind if ti < len(specs) else "any"
                if kind == "opponent":
                    kind = "player"
                w[O["target_index"] + min(ti, 2)] = 1.0
                w[O["target_kind"] + TARGET_KINDS.index(kind)] = 1.0
            if isinstance(ctx, BlockTarget) and ctx.blocker in own:
                w[O["chosen_blocker"] + own[ctx.blocker]] = 1.0
            w[O["n_options"]] = min(len(d.options) / self.limits.options, 1.0)
        cdef = g.cdef
        for cids, key in (
            (hand[seat], "hand"),
            (graveyard[seat], "graveyard_own"),
            (graveyard[opp_seat], "graveyard_opp"),
        ):
            # 0.25 per copy, at most 1
            counts_by: dict[int, int] = {}
            for cid in cids:
                j = ident[cdef[cid].name]
                counts_by[j] = counts_by.get(j, 0) + 1
            base = O[key]
            for j, n in counts_by.items():
                w[base + j] = min(n * 0.25, 1.0)
        pf = self.pf
        P = self.limits.permanents
        po = self._poff
        f_sick, f_tapped, f_damage = po["sick"], po["tapped"], po["damage"]
        perm = g.perm
        attackers, blockers = g.attackers, g.blockers
        sickness = g.rules.summoning_sickness
        last_start = g.last_turn_start
        for slots, key in ((own, "permanents_own"), (opp, "permanents_opp")):
            cids = [cid for cid, slot in slots.items() if slot < P]  # slot order
            if not cids:
                continue
            b = O[key]
            for cid, ch in zip(cids, g.chars_of(cids)):
                # The static features, from the characteristics, then the per-state ones.
                memo = ch.memo
                if memo is None:
                    memo = ch.memo = [None, None]
                hit = memo[MEMO_FLAT]
                if hit is not None and hit[0] is self:
                    enc = hit[1]
                else:
                    enc = self._static_vec(g, cid, ch)
                    memo[MEMO_FLAT] = (self, enc)
                wb[4 * b : 4 * (b + pf)] = enc
                p = perm[cid]
                # Summoning sickness as Game.sick computes it (CR 302.6), inlined.
                if (
                    sickness
                    and ch.types & CREATURE
                    and p.control_since > last_start[ch.controller]
                    and "haste" not in ch.keywords
                ):
                    w[b + f_sick] = 1.0
                if p.tapped:
                    w[b + f_tapped] = 1.0
                if p.damage:
                    w[b + f_damage] = min(p.damage / 10.0, 1.0)
                if cid in attackers or cid in blockers or p.counters or p.attached >= 0:
                    self._encode_rare(g, cid, p, w, b, own, opp)
                b += pf
        sf = self.sf
        base0 = O["stack"]
        for i, it in enumerate(reversed(g.stack)):
            if i >= self.limits.stack:
                break
            b = base0 + i * sf
            name = (
                g.cdef[it.cid].name
                if it.kind == SPELL
                else g.chars(it.cid).name
                if (g.zone[it.cid] == BATTLEFIELD)
                else g.cdef[it.cid].name
            )
            k = b + 1 + self.n_ident
            w[b] = 1.0
            w[b + 1 + ident.get(name, 0)] = 1.0
            w[k + (0 if it.kind == SPELL else 2 if it.kind == TRIGGER else 1)] = 1.0
            w[k + 3] = float(it.controller == seat)
            w[k + 4] = float(bool(it.targets))
        return o

    def _encode_rare(
        self,
        g: Game,
        cid: int,
        p: Any,
        w: memoryview[float],
        b: int,
        own: dict[int, int],
        opp: dict[int, int],
    ) -> None:
        """The per-state features most permanents lack (combat, counters, attachment),
        stored into the observation's float view."""
        po = self._poff
        P = self.limits.permanents
        if cid in g.attackers:
            n = sum(1 for x in g.blockers.values() if x == cid)
            w[b + po["attacking"]] = 1.0
            w[b + po["blocked"]] = float(cid in g.blocked)
            w[b + po["blockers"]] = min(n / 5.0, 1.0)
        if cid in g.blockers:
            s = own.get(g.blockers[cid], opp.get(g.blockers[cid], -1))
            w[b + po["blocking"]] = 1.0
            w[b + po["blocks_slot"]] = (s + 1) / P if s >= 0 else 0.0
        if p.counters:
            w[b + po["plus_counters"]] = min(p.counters.get("+1/+1", 0) / 5.0, 1.0)
            w[b + po["minus_counters"]] = min(p.counters.get("-1/-1", 0) / 5.0, 1.0)
        if p.attached >= 0:
            s = own.get(p.attached, opp.get(p.attached, -1))
            w[b + po["attached"]] = 1.0
            w[b + po["attached_to_opp"]] = float(p.attached in opp)
            w[b + po["attached_slot"]] = (s + 1) / P if s >= 0 else 0.0

    def _static_vec(self, g: Game, cid: int, ch: Chars) -> bytes:
        # The part that follows from the computed characteristics (and the card) is
        # encoded once per characteristics object (kept on it, `Chars.memo`): those are
        # immutable once computed and each belongs to one object of one layer state. A
        # layer recomputation makes new objects with mostly the same values: look the
        # encoding up by value before encoding again.
        key = (
            ch.name,
            ch.types,
            ch.colors,
            ch.power,
            ch.toughness,
            ch.keywords,
            bool(ch.abilities),
            g.cdef[cid].token,
            ch.controller != g.owner[cid],
            g.perm[cid].copy_def is not None,
        )
        v = self._by_value.get(key)
        if v is None:
            if len(self._by_value) > 8192:
                self._by_value.clear()
            v = self._by_value[key] = self._encode_static(g, cid, ch).tobytes()
        return v

    def _encode_static(self, g: Game, cid: int, ch: Chars) -> np.ndarray:
        po = self._poff
        v = np.zeros(self.pf, dtype=np.float32)
        v[0] = 1.0
        v[po["identity"] + self.ident.get(ch.name, 0)] = 1.0
        t = ch.types
        for i, bit in enumerate(_TYPES):
            if t & bit:
                v[po["types"] + i] = 1.0
        for i in range(5):
            if ch.colors & (1 << i):
                v[po["colors"] + i] = 1.0
        if t & CREATURE:
            v[po["power"]] = min(max(ch.power or 0, 0) / 20.0, 1.0)
            v[po["toughness"]] = min(max(ch.toughness or 0, 0) / 20.0, 1.0)
        kwi = self.kw_index
        for k in ch.keywords:
            j = kwi.get(k)
            if j is not None:
                v[po["keywords"] + j] = 1.0
        v[po["token"]] = float(g.cdef[cid].token)
        v[po["stolen"]] = float(ch.controller != g.owner[cid])
        v[po["copy"]] = float(g.perm[cid].copy_def is not None)
        v[po["has_ability"]] = float(bool(ch.abilities))
        return v
