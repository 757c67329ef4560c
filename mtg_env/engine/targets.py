"""Targets (CR 115): which exist, choosing them one at a time, and whether they are still legal
on resolution (CR 608.2b).

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .cards import (
    TargetSpec,
    spell_targets,
)
from .constants import (
    AURA_SUBTYPE,
    BATTLEFIELD,
    CREATURE,
    D_TARGET,
    GRAVEYARD,
    LAND,
    STACK,
    player_ref,
)
from .decisions import Targets
from .layers import matches
from .objects import (
    SPELL,
    StackItem,
)
from .protocol import GameLike
from .sba import StateBasedActions


class Targeting(StateBasedActions):
    __slots__ = ()

    def _targets_exist(
        self, specs: Sequence[TargetSpec], src: int, you: int, kind: int, src_ch: Any
    ) -> bool:
        colors = src_ch.colors
        for spec in specs:
            if spec.allows_player or spec.up_to:
                # A player is always a legal target (_iter_targets yields both); "up to N"
                # may be none (601.2c).
                continue
            k = spec.kind
            if k in ("any", "creature"):
                # Only creatures can match these kinds: look at them alone.
                target_ok = self._target_ok
                if not any(target_ok(spec, c, src, you, colors) for c in self._derived().creatures):
                    return False
                continue
            for _ in self._iter_targets(spec, src, you, colors, kind):
                break
            else:
                return False
        return True

    def _iter_targets(
        self, spec: TargetSpec, src: int, you: int, src_colors: int, kind: int
    ) -> Iterable[int]:
        k = spec.kind
        if k == "opponent":  # "target opponent" (CR 115.4, 102.2)
            yield player_ref(1 - you)
            return
        if spec.allows_player:
            yield player_ref(0)
            yield player_ref(1)
        if k == "spell":
            for it in self.stack:
                if it.kind == SPELL and it.cid != src and self._spell_ok(spec, it, src, you):
                    yield it.cid
            return
        if k == "graveyard_card":
            for seat in (0, 1):
                for cid in self.graveyard[seat]:
                    # 115.5: a spell can't target itself. Cast from a graveyard (flashback)
                    # it is on the stack by the time it targets, no longer a card there.
                    if cid == src and kind == SPELL:
                        continue
                    if self._target_ok(spec, cid, src, you, src_colors):
                        yield cid
            return
        if k == "player":
            return
        for cid in self.battlefield:
            if self._target_ok(spec, cid, src, you, src_colors):
                yield cid

    def _target_ok(self, spec: TargetSpec, cid: int, src: int, you: int, src_colors: int) -> bool:
        """Is object `cid` a legal target for `spec` (CR 115, 702.11b hexproof, 702.16b
        protection)?"""
        k = spec.kind
        z = self.zone[cid]
        if k == "spell":
            if z != STACK or cid == src:
                return False
            for it in self.stack:
                if it.kind == SPELL and it.cid == cid:
                    return self._spell_ok(spec, it, src, you)
            return False
        if k == "graveyard_card":
            if z != GRAVEYARD:
                return False
            ch = self.chars(cid)
            return matches(spec.filter, ch, cid, src, you, self.owner[cid])
        if z != BATTLEFIELD:
            return False
        ch = self.chars(cid)
        t = ch.types
        if k in ("any", "creature"):
            if not t & CREATURE:
                return False
        elif k == "land":
            if not t & LAND:
                return False
        elif k == "aura":
            if not ch.has_subtype(AURA_SUBTYPE):
                return False
        elif k == "enchantment":
            if not t & 4:
                return False
        if src_colors & ch.prot:
            return False
        # 702.18a: shroud - can't be the target of spells or abilities.
        if "shroud" in ch.keywords:
            return False
        # 702.11b: hexproof - can't be the target of spells or abilities your opponents
        # control.
        if ch.controller != you and "hexproof" in ch.keywords:
            return False
        f = spec.filter
        if f.in_combat and cid not in self.attackers and cid not in self.blockers:
            return False
        if (f.attacking and cid not in self.attackers) or (f.blocking and cid not in self.blockers):
            return False
        if f.tapped or f.untapped:
            p = self.perm.get(cid)
            if p is None or p.tapped != f.tapped:
                return False
        return matches(spec.filter, ch, cid, src, you, self.owner[cid])

    def _spell_ok(self, spec: TargetSpec, it: StackItem, src: int, you: int) -> bool:
        """Does spell `it` have the qualities "target [quality] spell" asks for (CR 115.1,
        601.2c; again on resolution, 608.2b): colour, card type ("noncreature"),
        controller, mana value, as the spell is now on the stack?"""
        ch = self.chars(it.cid)
        x = it.info.get("x", 0)
        cost = ch.cdef.cost
        if x and cost is not None and cost.x:
            # CR 202.3e: on the stack, X in a spell's mana cost is the value chosen for it.
            ch = ch.copy()
            ch.mv += x * cost.x
        sub = spec.filter.max_mv_count
        if sub:
            n = 0
            for c in self._derived().controlled[you]:
                if self.chars(c).has_subtype(sub):
                    n += 1
            if ch.mv > n:
                return False
        return matches(spec.filter, ch, it.cid, src, you, self.owner[it.cid])

    def _target_choices(self) -> list[int]:
        ctx = self.ctx
        assert isinstance(ctx, Targets)
        item, specs = ctx.item, ctx.specs
        spec = specs[len(item.targets)]
        colors = self._item_colors(item)
        found = self._iter_targets(spec, item.cid, item.controller, colors, item.kind)
        if spec.up_to:
            # 115.3: "up to two target creatures" are two different creatures.
            taken = {r for r, _ in item.targets}
            return [r for r in found if r not in taken]
        return list(found)

    def _item_colors(self, item: StackItem) -> int:
        if item.kind == SPELL:
            return self.chars(item.cid).colors
        return self._source_chars(item.cid, item.src_oid).colors

    def target_still_legal(self, item: StackItem, i: int) -> bool:
        """608.2b: a target is illegal if it's gone (a new object) or no longer matches."""
        ref, oid = item.targets[i]
        if ref < 0:
            return True
        if self.oid[ref] != oid:
            return False
        specs = _item_specs(self, item)
        spec = specs[i]
        colors = self._item_colors(item)
        return self._target_ok(spec, ref, item.cid, item.controller, colors)

    def _next_target(self) -> None:
        ctx = self.ctx
        assert isinstance(ctx, Targets)
        item, specs = ctx.item, ctx.specs
        i = len(item.targets)
        if i < len(specs) and specs[i].up_to and not self._target_choices():
            # "Up to N": nothing left to choose ends the choosing (601.2c).
            self.ctx = Targets(item, specs[:i], ctx.done)
            return
        if i < len(specs):
            self._set_decision(
                D_TARGET,
                item.controller,
                item.cid,
                f"target {i + 1} of {len(specs)}: {specs[i].text}",
            )


def _item_specs(g: GameLike, item: StackItem) -> tuple[TargetSpec, ...]:
    if item.kind == SPELL and item.ability is None:  # an Aura spell: its enchant target
        return spell_targets(g.cdef[item.cid])
    # A spell's ability is its card's, or the mode chosen as it was cast (CR 700.2a).
    return item.ability.targets
