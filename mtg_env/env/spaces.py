"""The fixed action layout and the observation encoding of the environment.

Both are built per format from its card set and limits, so that the same index means
the same kind of move (and the same feature) in every state. See `mtg_env.env.duel` for
the documentation of every slice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import numpy as np

from ..engine import Action, Game
from ..engine.carddb import KEYWORDS, CardSet
from ..engine.carddb import TARGET_KINDS as _TARGET_KIND_LITERAL
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
from ..engine.layers import Chars
from ..engine.objects import SPELL, TRIGGER


@dataclass(frozen=True)
class Limits:
    """Slot counts of the layout. A state that exceeds them (more permanents on one side,
    a deeper stack) is truncated by the env rather than leaving a legal move unreachable."""

    permanents: int = 40  # per side
    stack: int = 20
    abilities: int = 6  # activated-ability indices per permanent (mana abilities counted)
    options: int = 40  # choices in one decision (Mind Bend has at most 40)


TARGET_KINDS: tuple[str, ...] = get_args(_TARGET_KIND_LITERAL)
KEYWORD_LIST = tuple(sorted(KEYWORDS))
_TYPES = (ARTIFACT, CREATURE, ENCHANTMENT, LAND, INSTANT, SORCERY)


class Layout:
    """Action slices and observation slices for one format."""

    def __init__(self, cardset: CardSet, limits: Limits | None = None) -> None:
        self.limits = lim = limits or Limits()
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
        self.kw_index = {k: i for i, k in enumerate(KEYWORD_LIST)}
        nk = len(KEYWORD_LIST)
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
        # id(Chars) -> (that Chars, its static permanent features); see _static_vec.
        self._static: dict[int, tuple[Chars, np.ndarray]] = {}
        self._by_value: dict[tuple, np.ndarray] = {}

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
            return a0["play"] + self.ident[cd.name]
        if k == ACTIVATE:
            s = own.get(a.obj)
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

    def mask_and_map(self, g: Game, seat: int) -> tuple[np.ndarray, dict[int, Action], int]:
        """The int8 mask for `seat`, index -> engine action (the first of equivalent
        actions: e.g. two Forests in hand), and the number of legal actions without an
        index (always 0 within the limits)."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        amap: dict[int, Action] = {}
        if g.is_over or g.current_player != seat:
            return mask, amap, 0
        own, opp, stack = self.slots(g, seat)
        missing = 0
        for a in g.legal_actions():
            i = self.action_index(g, a, seat, own, opp, stack)
            if i < 0:
                missing += 1
                continue
            if i not in amap:
                amap[i] = a
                mask[i] = 1
        return mask, amap, missing

    def describe_index(self, i: int) -> str:
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

    def observe(self, g: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of `seat`: everything it may see and nothing else (no
        opponent hand identities, no library order). All values in [0, 1]."""
        o = np.zeros(self.n_obs, dtype=np.float32) if out is None else out
        if out is not None:
            o.fill(0.0)
        O = self._o0
        opp_seat = 1 - seat
        o[O["turn"]] = min(g.turn / 50.0, 1.0)
        o[O["step"] + (g.step if g.step >= 0 else len(STEP_NAMES))] = 1.0
        o[O["active_is_me"]] = float(g.active == seat)
        o[O["first_is_me"]] = float(g.first_player == seat)
        d = g.decision
        if d is not None:
            o[O["decision"] + d.kind] = 1.0
            o[O["i_decide"]] = float(d.player == seat)
        for i, s in enumerate((seat, opp_seat)):
            o[O["life"] + i] = min(max(g.life[s], 0) / 40.0, 1.0)
            o[O["hand_size"] + i] = min(len(g.hand[s]) / 20.0, 1.0)
            o[O["library_size"] + i] = min(len(g.library[s]) / 60.0, 1.0)
            o[O["graveyard_size"] + i] = min(len(g.graveyard[s]) / 60.0, 1.0)
            o[O["mulligans"] + i] = min(g.mull_count[s] / 7.0, 1.0)
        o[O["land_played"]] = float(g.lands_played > 0 and g.active == seat)
        for i, s in enumerate((seat, opp_seat)):
            counts = [0] * 6
            for src in g.mana_sources(s):
                for b in range(5):
                    if src.colors & (1 << b):
                        counts[b] += 1
                if src.free & 32:
                    counts[5] += 1
            for b in range(6):
                o[O["mana"] + 6 * i + b] = min(counts[b] / 20.0, 1.0)
        o[O["stack_size"]] = min(len(g.stack) / self.limits.stack, 1.0)
        o[O["n_attackers"]] = min(len(g.attackers) / 20.0, 1.0)
        own, opp, stack = self.slots(g, seat)
        ident = self.ident
        if d is not None and d.player == seat:
            if d.source >= 0:
                name = (
                    g.chars(d.source).name
                    if g.zone[d.source] == BATTLEFIELD
                    else (g.cdef[d.source].name)
                )
                o[O["decision_source"] + ident.get(name, 0)] = 1.0
            if d.kind == D_TARGET and g.ctx is not None and g.ctx[0] == "targets":
                item, specs = g.ctx[1], g.ctx[2]
                ti = len(item.targets)
                o[O["target_index"] + min(ti, 2)] = 1.0
                kind = specs[ti].kind if ti < len(specs) else "any"
                o[O["target_kind"] + TARGET_KINDS.index(kind)] = 1.0
            if g.ctx is not None and g.ctx[0] == "block_target" and g.ctx[1] in own:
                o[O["chosen_blocker"] + own[g.ctx[1]]] = 1.0
            o[O["n_options"]] = min(len(d.options) / self.limits.options, 1.0)
        cdef = g.cdef
        for cids, key in (
            (g.hand[seat], "hand"),
            (g.graveyard[seat], "graveyard_own"),
            (g.graveyard[opp_seat], "graveyard_opp"),
        ):
            # 0.25 per copy, at most 1 (counted in Python: numpy scalar updates are slow)
            counts: dict[int, int] = {}
            for cid in cids:
                j = ident[cdef[cid].name]
                counts[j] = counts.get(j, 0) + 1
            base = O[key]
            for j, n in counts.items():
                o[base + j] = min(n * 0.25, 1.0)
        pf = self.pf
        P = self.limits.permanents
        for slots, key in ((own, "permanents_own"), (opp, "permanents_opp")):
            base0 = O[key]
            cids = [cid for cid, slot in slots.items() if slot < P]  # slot order
            if not cids:
                continue
            # The static features of every slot in one copy, then the per-state ones.
            chs = [g.chars(cid) for cid in cids]
            statics = [self._static_vec(g, cid, ch) for cid, ch in zip(cids, chs)]
            o[base0 : base0 + len(cids) * pf] = np.concatenate(statics)
            for k, cid in enumerate(cids):
                self._encode_dynamic(g, cid, chs[k], o, base0 + k * pf, own, opp)
        sf = self.sf
        base0 = O["stack"]
        for i, it in enumerate(reversed(g.stack)):
            if i >= self.limits.stack:
                break
            b = base0 + i * sf
            o[b] = 1.0
            name = (
                g.cdef[it.cid].name
                if it.kind == SPELL
                else g.chars(it.cid).name
                if (g.zone[it.cid] == BATTLEFIELD)
                else g.cdef[it.cid].name
            )
            o[b + 1 + ident.get(name, 0)] = 1.0
            k = b + 1 + self.n_ident
            o[k + (0 if it.kind == SPELL else 2 if it.kind == TRIGGER else 1)] = 1.0
            o[k + 3] = float(it.controller == seat)
            o[k + 4] = float(bool(it.targets))
        return o

    def _static_vec(self, g: Game, cid: int, ch: Chars) -> np.ndarray:
        # The part that follows from the computed characteristics (and the card) is
        # encoded once per characteristics object: those are immutable once computed
        # and each belongs to one object of one layer state.
        hit = self._static.get(id(ch))
        if hit is None or hit[0] is not ch:
            if len(self._static) > 8192:
                self._static.clear()
            # A layer recomputation makes new objects with mostly the same values: look
            # the encoding up by value before encoding again.
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
                v = self._by_value[key] = self._encode_static(g, cid, ch)
            hit = self._static[id(ch)] = (ch, v)
        return hit[1]

    def _encode_dynamic(
        self,
        g: Game,
        cid: int,
        ch: Chars,
        o: np.ndarray,
        b: int,
        own: dict[int, int],
        opp: dict[int, int],
    ) -> None:
        po = self._poff
        p = g.perm[cid]
        if ch.types & CREATURE and g.sick(cid) and "haste" not in ch.keywords:
            o[b + po["sick"]] = 1.0
        if p.tapped:
            o[b + po["tapped"]] = 1.0
        if cid in g.attackers:
            o[b + po["attacking"]] = 1.0
            o[b + po["blocked"]] = float(cid in g.blocked)
            n = sum(1 for x in g.blockers.values() if x == cid)
            o[b + po["blockers"]] = min(n / 5.0, 1.0)
        if cid in g.blockers:
            o[b + po["blocking"]] = 1.0
            a = g.blockers[cid]
            s = own.get(a, opp.get(a, -1))
            o[b + po["blocks_slot"]] = (s + 1) / self.limits.permanents if s >= 0 else 0.0
        if p.damage:
            o[b + po["damage"]] = min(p.damage / 10.0, 1.0)
        if p.counters:
            o[b + po["plus_counters"]] = min(p.counters.get("+1/+1", 0) / 5.0, 1.0)
            o[b + po["minus_counters"]] = min(p.counters.get("-1/-1", 0) / 5.0, 1.0)
        if p.attached >= 0:
            o[b + po["attached"]] = 1.0
            o[b + po["attached_to_opp"]] = float(p.attached in opp)
            s = own.get(p.attached, opp.get(p.attached, -1))
            o[b + po["attached_slot"]] = (s + 1) / self.limits.permanents if s >= 0 else 0.0

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
