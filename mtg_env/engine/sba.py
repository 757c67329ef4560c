"""State-based actions (CR 704) and the end of the game.

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from .constants import (
    AURA_SUBTYPE,
    BATTLEFIELD,
    CREATURE,
    D_SELECT,
    EXILE,
    GRAVEYARD,
    HAND,
    LEGENDARY,
    LIBRARY,
    NOWHERE,
    STACK,
)
from .decisions import (
    Legend,
    LegendKeep,
)
from .frames import F_PUT_TRIGGERS, F_RESOLVE
from .layers import Chars
from .protocol import GameLike


class StateBasedActions(GameLike):
    __slots__ = ()

    def _sba_pending(self) -> bool:
        return bool(self._sba_collect())

    def _sba_collect(self) -> list[tuple]:
        acts: list[tuple] = []
        for seat in (0, 1):
            if self.life[seat] <= 0:
                acts.append(("lose", seat, "life 0 or less (CR 704.5a)"))
            elif self.drew_from_empty[seat]:
                acts.append(("lose", seat, "drew from an empty library (CR 704.5b)"))
            elif self.poison is not None and self.poison[seat] >= 10:
                acts.append(("lose", seat, "ten or more poison counters (CR 704.5c)"))
        # Only tokens that left the battlefield can be in another zone (noted in _move).
        for cid in self.stray_tokens:
            if self.zone[cid] not in (BATTLEFIELD, NOWHERE, STACK):
                acts.append(("token_gone", cid))
        legends: dict[tuple[int, str], list[int]] = {}
        perm = self.perm
        # Only permanents that some state-based action can touch, in battlefield order
        # (the order of `acts` decides the order of zone changes).
        for cid, ch in self._derived().sba:
            p = perm[cid]
            if ch.types & CREATURE:
                t = ch.toughness or 0
                if t <= 0:
                    acts.append(("graveyard", cid, "toughness 0 or less (CR 704.5f)"))
                    continue
                # 702.12b: an indestructible permanent isn't destroyed by lethal or
                # deathtouch damage (its damage stays marked).
                doomed = "indestructible" not in ch.keywords
                if p.damage >= t and doomed:
                    acts.append(("destroy", cid, "lethal damage (CR 704.5g)"))
                    continue
                if p.deathtouched and p.damage > 0 and doomed:
                    acts.append(("destroy", cid, "deathtouch damage (CR 704.5h)"))
                    continue
            if ch.types & 4 and ch.has_subtype(AURA_SUBTYPE):
                if not self._aura_legal(cid, ch):
                    if self.cdef[cid].bestowed:
                        # 702.103f: a bestowed Aura becomes unattached instead, and a
                        # creature again (the exception to 704.5m).
                        acts.append(("unbestow", cid))
                        continue
                    acts.append(("graveyard", cid, "Aura not legally attached (CR 704.5m)"))
                    continue
            elif p.attached >= 0 and "Equipment" in ch.subtypes:
                t = p.attached
                if (
                    self.zone[t] != BATTLEFIELD
                    or not self.chars(t).types & CREATURE
                    or (ch.colors & self.chars(t).prot)
                ):
                    acts.append(("unattach", cid))
            if ch.supertypes & LEGENDARY:
                legends.setdefault((ch.controller, ch.name), []).append(cid)
            c = p.counters
            if c and c.get("+1/+1", 0) and c.get("-1/-1", 0):
                acts.append(("annihilate", cid))
        for (seat, _name), cids in legends.items():
            if len(cids) > 1:
                acts.append(("legend", seat, tuple(cids)))
        return acts

    def _aura_legal(self, cid: int, ch: Chars) -> bool:
        t = self.perm[cid].attached
        return t >= 0 and self.can_enchant(cid, t)

    def _sba(self) -> str:
        """Perform one round of state-based actions (CR 704.3). Returns "none" if there
        were none, "done" if some were performed, "paused" if a choice is pending."""
        # Nothing an SBA reads changed since a check found none: the same layer state (the
        # Derived tables) and no move, damage, life loss, attachment or empty draw since.
        if not self._dirty and self._sba_ok is not None and self._sba_ok is self._drv:
            return "none"
        acts = self._sba_collect()
        if not acts:
            self._sba_ok = self._drv  # _sba_collect brought the layer state up to date
            return "none"
        # The legend rule needs its controller's choice (CR 704.5j).
        keep: dict[tuple[int, ...], int] = {}
        for a in acts:
            if a[0] == "legend":
                cids = a[2]
                ctx = self.ctx
                if isinstance(ctx, LegendKeep) and ctx.card in cids:
                    keep[cids] = ctx.card
                    self.ctx = None
                else:
                    self.ctx = Legend(cids)
                    self._set_decision(
                        D_SELECT, a[1], -1, f"legend rule: choose the {self.name(cids[0])} to keep"
                    )
                    return "paused"
        losers = [a[1] for a in acts if a[0] == "lose"]
        to_gy: list[tuple[int, str]] = []
        for a in acts:
            if a[0] == "destroy" and self._use_shield(a[1]):
                continue
            if a[0] in ("graveyard", "destroy"):
                to_gy.append((a[1], a[2]))
            elif a[0] == "legend":
                kept = keep[a[2]]
                to_gy.extend((c, "legend rule (CR 704.5j)") for c in a[2] if c != kept)
            elif a[0] == "annihilate":
                c = self.perm[a[1]].counters
                assert c is not None
                n = min(c["+1/+1"], c["-1/-1"])
                c["+1/+1"] -= n
                c["-1/-1"] -= n
                for key in ("+1/+1", "-1/-1"):
                    if not c[key]:
                        del c[key]
                self._dirty = True
            elif a[0] == "unbestow":
                self._end_bestow(a[1])
            elif a[0] == "unattach":
                self.perm[a[1]].attached = -1  # 704.5n: it stays on the battlefield
                self._dirty = True
                self._log("unattach", a[1])
            elif a[0] == "token_gone":
                cid = a[1]
                z = self.zone[cid]
                zl = {
                    HAND: self.hand,
                    GRAVEYARD: self.graveyard,
                    EXILE: self.exile,
                    LIBRARY: self.library,
                }[z]
                owner = self.owner[cid]
                zl[self.rules.pile(owner) if z in (GRAVEYARD, LIBRARY) else owner].remove(cid)
                self.zone[cid] = NOWHERE
                self.stray_tokens.remove(cid)
                self._dirty = True
        for p in self.perm.values():
            p.deathtouched = False
        # Leaving simultaneously: gather last known information first (CR 603.10a).
        lki = [(cid, why, self.chars(cid), self.perm[cid].counters) for cid, why in to_gy]
        for cid, why, ch, counters in lki:
            if self.zone[cid] != BATTLEFIELD:
                continue
            self._move(cid, GRAVEYARD)
            if self.zone[cid] == GRAVEYARD:  # else exiled instead (614.1a): it didn't die
                self._log("sba", cid, why)
                self._dies(cid, ch, counters)
        if losers:
            for s in losers:
                self.lost[s] = True
                self.lose_reason[s] = next(a[2] for a in acts if a[0] == "lose" and a[1] == s)
                self._log("lose", s, self.lose_reason[s])
            self._end_game()
        return "done"

    def _end_game(self) -> None:
        self.over = True
        self._decision = None
        self._legal = None
        if self.lost[0] and self.lost[1]:
            self.winner = None  # both lose at once: a draw (CR 104.4a)
        elif self.lost[0]:
            self.winner = 1
        else:
            self.winner = 0
        self._log("game_over", self.winner)

    def _settled(self, again: tuple, resolve: bool) -> bool:
        """CR 117.5's loop: state-based actions (repeatedly), then triggers onto the stack,
        then, if `resolve`, the stack resolves. True once nothing is left to do; otherwise
        the frame `again` is pushed under the work still to do and False is returned."""
        while True:
            r = self._sba()
            if self.over:
                return False
            if r == "paused":
                self.k.append(again)
                return False
            if self.triggers:
                self.k.append(again)
                self.k.append((F_PUT_TRIGGERS,))
                return False
            if r == "none":
                break
        if resolve and self.stack:
            self.k.append(again)
            self.k.append((F_RESOLVE,))
            return False
        return True
