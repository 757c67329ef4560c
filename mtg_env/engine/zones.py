"""Zones: moving objects between zones (CR 400), drawing and discarding, object ids and
timestamps.

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from . import combat as cb
from .cards import (
    CardDef,
)
from .constants import (
    BATTLEFIELD,
    EXILE,
    GRAVEYARD,
    HAND,
    LIBRARY,
    NOWHERE,
    STACK,
)
from .objects import (
    SPELL,
    Perm,
)
from .turn import Turn


class Zones(Turn):
    __slots__ = ()

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
        frm = self.zone[cid]
        owner = self.owner[cid]
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
                    del self.stack[i]
                    break
        elif frm == BATTLEFIELD:
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
            cb.remove_from_combat(self, cid)

    def _enter_battlefield(self, cid: int, controller: int) -> None:
        ts = self._tick()
        p = Perm.new(cid, self.oid[cid], controller, ts, ts)
        self.perm[cid] = p
        self.battlefield.append(cid)
        self._dirty = True

    def _draw(self, seat: int) -> None:
        self.rules.draw(self, seat)

    def _discard(self, seat: int, cid: int) -> None:
        self._move(cid, GRAVEYARD)
        self._log("discard", seat, cid)

    def lib_top(self, seat: int) -> list[int]:
        """Library of `seat`, top card first."""
        return self.library[seat][::-1]
