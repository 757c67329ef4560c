"""The kernel: the root of `Game`'s chain of jobs, owning what every job reaches. The event
log, the characteristics cache (the layer system's results, CR 613, and the tables derived
from them), pending decisions, and zone moves (CR 400): moving objects between zones,
drawing and discarding, object ids and timestamps; a permanent put into a graveyard with
its "dies" triggers (700.4, 603.10a), whether an Aura can enchant an object (303.4), and a
source's last known characteristics (608.2h).

The jobs above it (state-based actions, stack, targets, priority, turn, setup; engine.game
on top) call down into it, through `GameLike` (engine.protocol), which declares the job
methods above the kernel that the rules modules call. It calls only itself, the layer
system (engine.layers, which reads only the fields) and the format's hooks. The state
fields are declared once in engine.fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import index
from typing import Any, SupportsIndex

from .cards import (
    LKI_COUNTER_CONDITIONS,
    CardDef,
    StaticAbility,
    TriggeredAbility,
)
from .constants import (
    BATTLEFIELD,
    CREATURE,
    EXILE,
    GRAVEYARD,
    HAND,
    LAND,
    LIBRARY,
    NOWHERE,
    STACK,
)
from .derived import Derived
from .layers import Chars, chars_off_battlefield, compute, controller_off_battlefield
from .objects import (
    SPELL,
    Decision,
    Perm,
    Trigger,
)
from .state import GameFields


class Kernel(GameFields):
    __slots__ = ()  # the fields' slots are GameFields' (engine.state, from engine.fields)

    # ------------------------------------------------------------------ the log

    def _log(self, *event: Any) -> None:
        if self._ev_shared:
            self._events = self._events[:]
            self._ev_shared = False
        self._events.append(event)

    # ------------------------------------------------------------------ decisions

    def _set_decision(
        self,
        kind: int,
        player: int,
        source: int = -1,
        prompt: str = "",
        options: tuple[str, ...] = (),
    ) -> None:
        self._decision = Decision(kind, player, source, prompt, options)
        self._legal = None

    # ------------------------------------------------------------------ characteristics

    def chars(self, cid: SupportsIndex) -> Chars:
        """Characteristics of object `cid` as the layer system computes them."""
        if not isinstance(cid, int):  # a numpy integer, say: the compiled build needs an int
            cid = index(cid)
        if self._dirty:
            self._recompute()
        ch = self._chars.get(cid)
        if ch is None:
            ch = chars_off_battlefield(self, cid)
        return ch

    def chars_of(self, cids: Iterable[int]) -> list[Chars]:
        """`[chars(c) for c in cids]` with one layer-state check (for encoders)."""
        if self._dirty:
            self._recompute()
        m = self._chars
        return [m.get(c) or chars_off_battlefield(self, c) for c in cids]

    def controlled(self, seat: int) -> list[int]:
        """The permanents `seat` controls, in battlefield order (do not mutate)."""
        return self._derived().controlled[seat]

    def positions(self, seat: int) -> dict[int, int]:
        """Permanent -> its index among those `seat` controls (do not mutate)."""
        d = self._derived()
        pos = d.positions[seat]
        if pos is None:
            pos = d.positions[seat] = {c: i for i, c in enumerate(d.controlled[seat])}
        return pos

    def controller(self, cid: int) -> int:
        if self.zone[cid] == BATTLEFIELD:
            return self.chars(cid).controller
        return self.controller_off_battlefield(cid)

    def controller_off_battlefield(self, cid: int) -> int:
        """A spell's controller is who cast it; other cards are "controlled" by their owner."""
        return controller_off_battlefield(self, cid)

    def name(self, cid: int) -> str:
        return self.cdef[cid].name

    def sick(self, cid: int) -> bool:
        """CR 302.6: not continuously controlled since its controller's most recent turn
        began (haste is checked by the callers)."""
        if not self.rules.summoning_sickness:
            return False
        p = self.perm[cid]
        return p.control_since > self.last_turn_start[self.chars(cid).controller]

    def has_kw(self, cid: int, kw: str) -> bool:
        return kw in self.chars(cid).keywords

    def _recompute(self) -> None:
        for _ in range(8):
            self._dirty = False
            self._chars = compute(self)
            if not self._track_control():
                break
        self._drv = None

    def _derived(self) -> Derived:
        """Per-layer-state tables read at every decision (state-based-action candidates,
        mana sources, activated abilities), built once after each layer recomputation:
        they depend only on the computed characteristics and on which permanents exist,
        and both change only through `_recompute`."""
        if self._dirty:
            self._recompute()
        d = self._drv
        if d is None:
            d = self._drv = Derived(self._chars, self.battlefield, self.perm, self._spend)
        return d

    def _track_control(self) -> bool:
        """Note control changes (summoning sickness, CR 302.6; removal from combat,
        CR 506.4) and end effects whose "as long as you control" condition broke."""
        changed = False
        chars = self._chars
        for cid in self.battlefield:
            p = self.perm[cid]
            ctl = chars[cid].controller
            if ctl != p.last_ctrl:
                p.last_ctrl = ctl
                p.control_since = self._tick()
                self._log("control", cid, ctl)
                if cid in self.attackers or cid in self.blockers:
                    self._remove_from_combat(cid)
        keep = []
        for e in self.effects:
            if e.duration == 2:  # DUR_WHILE_CONTROL_SOURCE
                src = chars.get(e.source)
                if (
                    src is None
                    or self.perm[e.source].oid != e.source_oid
                    or (src.controller != e.controller)
                ):
                    changed = True
                    continue
            keep.append(e)
        if changed:
            self.effects = keep
            self._dirty = True
        return changed

    # ------------------------------------------------------------------ zones

    def _new_card(self, cdef: CardDef, owner: int) -> int:
        cid = len(self.cdef)
        self.cdef.append(cdef)
        self.owner.append(owner)
        self.zone.append(NOWHERE)
        self.oid.append(self._new_oid())
        return cid

    def _new_oid(self) -> int:
        o = self.next_oid
        self.next_oid = o + 1
        return o

    def _tick(self) -> int:
        c = self.clock
        self.clock = c + 1
        return c

    def _move(
        self,
        cid: int,
        to: int,
        seat: int | None = None,
        bottom: bool = False,
        controller: int | None = None,
    ) -> None:
        """Move object `cid` to zone `to` (of `seat`, default its owner). A moved object
        becomes a new object (CR 400.7): it gets a new object id."""
        self._sba_ok = None
        if self.cardset.conditional_statics:
            # A card put into or taken from a graveyard or a hand can change whether a
            # static ability's condition holds ("as long as ...").
            self._dirty = True
        frm = self.zone[cid]
        owner = self.owner[cid]
        exiled = False
        if (
            to == GRAVEYARD
            and frm == BATTLEFIELD
            and self.exile_if_dies
            and self.oid[cid] in self.exile_if_dies
        ):
            # "If that creature would die this turn, exile it instead" (614.1a).
            to = EXILE
            self._log("exiled_instead", cid)
        pile = self.rules.pile_of[owner]  # library and graveyard index
        if frm == LIBRARY:
            self.library[pile].remove(cid)
        elif frm == HAND:
            self.hand[owner].remove(cid)
        elif frm == GRAVEYARD:
            self.graveyard[pile].remove(cid)
        elif frm == EXILE:
            self.exile[owner].remove(cid)
        elif frm == STACK:
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i].kind == SPELL and self.stack[i].cid == cid:
                    if self.stack[i].info.get("copy"):
                        # A copy of a spell leaving the stack ceases to exist (707.10a,
                        # 704.5e): it goes nowhere.
                        to = NOWHERE
                    elif self.stack[i].info.get("flashback"):
                        # 702.34a: a flashback spell leaving the stack (resolved,
                        # countered or without a legal target) is exiled instead of going
                        # anywhere else.
                        to = EXILE
                        exiled = True
                    del self.stack[i]
                    break
        elif frm == BATTLEFIELD:
            if self.cardset.leave_triggers:
                self._leaves(cid)
            self._leave_battlefield(cid)
        self.oid[cid] = self._new_oid()
        self.zone[cid] = to
        s = owner if seat is None else seat
        if self.cdef[cid].token and to != BATTLEFIELD and frm == BATTLEFIELD:
            # A token leaving the battlefield goes to the zone, then ceases to exist
            # (CR 111.7, 704.5d); it is kept in the zone list until SBAs are checked.
            self.stray_tokens.append(cid)
        if to not in (BATTLEFIELD, STACK) and self.cdef[cid].half_of:
            # A half or a face-down card leaving play is the whole card again.
            self.cdef[cid] = self.cardset.cards[self.cdef[cid].half_of]
        if to == LIBRARY:
            if bottom:
                self.library[pile].insert(0, cid)
            else:
                self.library[pile].append(cid)
        elif to == HAND:
            self.hand[owner].append(cid)
        elif to == GRAVEYARD:
            self.graveyard[pile].append(cid)
        elif to == EXILE:
            self.exile[owner].append(cid)
        elif to == BATTLEFIELD:
            self._enter_battlefield(cid, owner if controller is None else controller)
        del s
        if exiled:
            self._log("exiled", cid)
        if frm == BATTLEFIELD or to == BATTLEFIELD:
            self._dirty = True
        elif (to == GRAVEYARD or frm == GRAVEYARD) and not self._dirty and self._derived().cda:
            # The layers read other zones only through characteristic-defining abilities
            # that count graveyard cards; without one on the battlefield a move
            # between other zones changes no computed characteristics.
            self._dirty = True
        self._legal = None

    def _leave_battlefield(self, cid: int) -> None:
        ch = self.chars(cid)
        self.lki[cid] = (self.oid[cid], ch)
        self.battlefield.remove(cid)
        del self.perm[cid]
        if cid in self.attackers or cid in self.blockers:
            self._remove_from_combat(cid)

    def _remove_from_combat(self, cid: int) -> None:
        """CR 506.4: a creature that leaves the battlefield or changes control is removed
        from combat. An attacker it blocked stays blocked (506.4, 509.1h)."""
        self.attackers.pop(cid, None)
        self.blockers.pop(cid, None)

    def _use_shield(self, cid: int) -> bool:
        """Use a regeneration shield of `cid` if it has one (CR 701.15a): the next time
        it would be destroyed this turn, instead all damage marked on it is removed and it
        is tapped; an attacking or blocking creature is removed from combat."""
        p = self.perm[cid]
        if not p.shields:
            return False
        p.shields -= 1
        p.damage = 0
        p.deathtouched = False
        p.tapped = True
        if cid in self.attackers or cid in self.blockers:
            self._remove_from_combat(cid)
        self._log("regenerate", cid)
        return True

    def _end_bestow(self, cid: int) -> None:
        """The effect that made a spell cast for its bestow cost an Aura ends (CR 702.103a):
        as the spell resolves with an illegal target (702.103e), or as the Aura becomes
        unattached (702.103f). The card is an enchantment creature again, unattached, and
        the same object: it does not enter anew."""
        self.cdef[cid] = self.cardset.cards[self.cdef[cid].half_of]
        p = self.perm.get(cid)
        if p is not None:
            p.attached = -1
        self._dirty = True
        self._sba_ok = None
        self._log("bestow_ends", cid)

    def _enter_battlefield(self, cid: int, controller: int) -> None:
        ts = self._tick()
        p = Perm.new(cid, self.oid[cid], controller, ts, ts)
        cd = self.cdef[cid]
        if cd.enters_tapped or (
            cd.enters_tapped_unless_life >= 0 and min(self.life) > cd.enters_tapped_unless_life
        ):
            p.tapped = True  # 614.1c: "enters tapped" replaces how it enters
        if cd.enters_with:
            p.counters = dict(cd.enters_with)  # 614.1c: "enters with N counters"
        if cd.bloodthirst:
            hurt = self.damaged_turn
            if hurt is not None and hurt[1 - controller]:
                # 702.54a: an opponent of the player it enters under was dealt damage.
                counters = p.counters or {}
                counters["+1/+1"] = counters.get("+1/+1", 0) + cd.bloodthirst
                p.counters = counters
        if cd.asks_entered:
            p.entered_turn = self.turn
        self.perm[cid] = p
        self.battlefield.append(cid)
        self._dirty = True

    def _draw(self, seat: int) -> None:
        draws = self.draws
        if draws is None:
            self.rules.draw(self, seat)
            return
        pile = self.rules.pile_of[seat]
        before = len(self.library[pile])
        self.rules.draw(self, seat)
        if len(self.library[pile]) == before:
            return  # nothing drawn from an empty library (121.4)
        draws[seat] += 1
        if draws[seat] == 2:
            # "Whenever you draw your second card each turn": the drawing player's
            # permanents' abilities, controlled by that player.
            for cid in list(self.battlefield):
                ch = self.chars(cid)
                if ch.controller == seat:
                    self._triggers_of(cid, ch.abilities, "second_draw", seat)
        if draws[seat] == 3:
            # "When you draw your third card in a turn, return this card from your
            # graveyard ...": a triggered ability that functions only in the graveyard
            # (113.6k), controlled by the card's owner.
            for cid in self.graveyard[pile]:
                self._triggers_of(cid, self.cdef[cid].abilities, "third_draw", seat)

    def _discard(self, seat: int, cid: int) -> None:
        cd = self.cdef[cid]
        if cd.madness is None:
            self._move(cid, GRAVEYARD)
            self._log("discard", seat, cid)
            return
        # 702.35a: a card with madness is discarded into exile instead, and its madness
        # ability triggers there, controlled by its owner.
        self._move(cid, EXILE)
        self._log("discard", seat, cid)
        self._triggers_of(cid, cd.abilities, "madness", self.owner[cid])

    def _leaves(self, cid: int) -> None:
        """ "When this permanent leaves the battlefield" (603.6c): it triggers as it leaves,
        looked back on as it was (603.10a), controlled by its controller then."""
        ch = self.chars(cid)
        self._triggers_of(cid, ch.abilities, "leaves", ch.controller)

    def _untap(self, cid: int) -> None:
        """Untap permanent `cid`; one with a stun counter stays tapped and loses one instead
        (CR 122.1d)."""
        p = self.perm[cid]
        c = p.counters
        if c and c.get("stun"):
            c["stun"] -= 1
            if not c["stun"]:
                del c["stun"]
            self._log("stun_removed", cid)
            return
        p.tapped = False

    def _triggers_of(self, cid: int, abilities: Any, event: str, controller: int) -> None:
        """`cid`'s triggered abilities among `abilities` for `event` trigger, controlled by
        `controller` (the kernel's own events: no intervening "if" to check)."""
        for idx, ab in enumerate(abilities):
            if type(ab) is TriggeredAbility and ab.event == event:
                self._add_trigger(controller, cid, ab, idx, {})

    def _add_trigger(
        self, controller: int, cid: int, ab: TriggeredAbility, idx: int, info: dict[str, Any]
    ) -> None:
        self.triggers.append(Trigger(controller, cid, self.oid[cid], ab, idx, info))
        self._log("trigger", controller, cid, idx)

    # ------------------------------------------------------------------ dying, auras, sources

    def _to_graveyard(self, cid: int, why: str) -> None:
        """Destroy or sacrifice: to its owner's graveyard, with "dies" triggers (and, for a
        sacrifice, "whenever you sacrifice" ones)."""
        ch = self.chars(cid)
        p = self.perm.get(cid)
        counters = p.counters if p is not None else None
        self._move(cid, GRAVEYARD)
        if self.zone[cid] != GRAVEYARD:
            if why == "sacrificed" and self.cardset.sacrifice_triggers:
                self._sacrificed(ch)  # exiled instead (614.1a): sacrificed, not died
            return
        self._log("to_graveyard", cid, why)
        self._dies(cid, ch, counters)
        if why == "sacrificed" and self.cardset.sacrifice_triggers:
            self._sacrificed(ch)

    def _sacrificed(self, ch: Chars) -> None:
        """A permanent (its last characteristics `ch`) was sacrificed, by its controller
        (701.21a): the "whenever you sacrifice another <type>" abilities of the permanents
        that player controls trigger (603.2); it has left, so each is another permanent."""
        you = ch.controller
        for c in self.battlefield:
            pch = self.chars(c)
            if pch.controller != you:
                continue
            for idx, ab in enumerate(pch.abilities):
                if (
                    type(ab) is TriggeredAbility
                    and ab.event == "you_sacrifice"
                    and (not ab.subtype or ch.has_subtype(ab.subtype))
                ):
                    self._add_trigger(you, c, ab, idx, {})

    def _dies(self, cid: int, ch: Chars, counters: dict[str, int] | None) -> None:
        """Permanent `cid` (characteristics `ch`, counters `counters`) was put into a
        graveyard from the battlefield: its "dies" triggers if it was a creature (700.4),
        its "is put into a graveyard from the battlefield" triggers whatever it was,
        looking back in time (603.10a). The latter, and persist's and undying's, know the
        card in the graveyard (`this_card`); those two trigger only if it had no counter of
        their kind (603.4, last known information)."""
        creature = ch.types & CREATURE
        for idx, ab in enumerate(ch.abilities):
            if type(ab) is not TriggeredAbility:
                continue
            if ab.event == "dies" and creature:
                info: dict[str, Any] = {}
                if ab.condition and ab.condition[0] in LKI_COUNTER_CONDITIONS:
                    if counters and counters.get(LKI_COUNTER_CONDITIONS[ab.condition[0]]):
                        continue
                    info = {"card": (cid, self.oid[cid])}
            elif ab.event == "to_graveyard":
                info = {"card": (cid, self.oid[cid])}
            else:
                continue
            self.triggers.append(Trigger(ch.controller, cid, self.lki[cid][0], ab, idx, info))
            self._log("trigger", ch.controller, cid, idx)

    def can_enchant(self, aura: int, target: int) -> bool:
        """Could Aura `aura` legally enchant object `target` (CR 303.4, 702.16c)?"""
        spec = self.cdef[aura].enchant
        if spec is None or self.zone[target] != BATTLEFIELD or aura == target:
            return False
        tch = self.chars(target)
        if spec.kind == "creature" and not tch.types & CREATURE:
            return False
        if spec.kind == "land" and not tch.types & LAND:
            return False
        # 702.16c: can't be enchanted by an Aura of a color it has protection from.
        ach = self.chars(aura)
        return not (ach.colors & tch.prot and not _keeps_itself(ach))

    def _source_chars(self, cid: int, oid: int) -> Chars:
        """Characteristics of a source, using last known information if it left (CR 608.2h)."""
        if self.oid[cid] == oid or self.zone[cid] == BATTLEFIELD and self.perm[cid].oid == oid:
            return self.chars(cid)
        lk = self.lki.get(cid)
        if lk is not None and lk[0] == oid:
            return lk[1]
        return self.chars(cid)

    def lib_top(self, seat: int) -> list[int]:
        """Library of `seat`, top card first."""
        return self.library[seat][::-1]


def _keeps_itself(aura: Chars) -> bool:
    """An Aura granting protection that says "This effect doesn't remove [this Aura]"
    (`doesnt_remove_source`): the protection never makes the Aura itself fall off,
    whatever color word a text change put there."""
    return any(
        type(ab) is StaticAbility and "doesnt_remove_source" in ab.rules for ab in aura.abilities
    )
