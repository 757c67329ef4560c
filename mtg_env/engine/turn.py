"""The turn: steps and their turn-based actions (CR 500-514), the loop that settles state-based
actions, triggers and the stack between them, cleanup, and the London mulligan before the
first turn (CR 103.5).

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from typing import Any

from . import combat as cb
from .cards import (
    VENTURE,
    TriggeredAbility,
)
from .constants import (
    BATTLEFIELD,
    BEGIN_COMBAT,
    CLEANUP,
    COMBAT_DAMAGE,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    D_BOTTOM,
    D_CHOICE,
    D_DISCARD,
    D_MULLIGAN,
    D_PRIORITY,
    D_SELECT,
    D_TARGET,
    D_TRIGGER_ORDER,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    DRAW,
    DUR_EOT,
    DUR_UNTIL_YOUR_NEXT_TURN,
    END,
    END_COMBAT,
    KEEP,
    LIBRARY,
    PASS,
    UNTAP,
    UPKEEP,
)
from .decisions import (
    CLEANUP_DISCARD,
    Announce,
    CleanupDiscard,
    Legend,
    LegendKeep,
    Resolving,
    Targets,
)
from .frames import (
    F_AFTER_BATTLE,
    F_BATTLE,
    F_BEGIN_STEP,
    F_BOTTOM,
    F_CLEANUP,
    F_DAMAGE,
    F_END_STEP,
    F_MULLIGAN,
    F_PRIO,
    F_SETTLE,
)
from .mana import mana_symbols
from .objects import (
    Action,
    Decision,
    Trigger,
)
from .priority import Priority
from .rng import SHUFFLE


class Turn(Priority):
    __slots__ = ()

    def _start_turn(self, seat: int, first: bool = False) -> None:
        self.turn += 1
        self.active = seat
        self.lands_played = 0
        if self.cardset.turn_statics:
            self._dirty = True  # statics that apply only during a player's turn
        if self.draws is not None:
            self.draws = [0, 0]
        if self.damaged_turn is not None:
            self.damaged_turn = [False, False]
        if self.initiative is not None and self.effects:
            # 611.2b: "until your next turn" effects of this player end as their turn begins
            # (only the Undercity's rooms make them: kept in a set with the initiative).
            n = len(self.effects)
            self.effects = [
                e
                for e in self.effects
                if not (e.duration == DUR_UNTIL_YOUR_NEXT_TURN and e.controller == seat)
            ]
            if len(self.effects) != n:
                self._dirty = True
        if self._dirty:
            self._recompute()  # control changes at end of turn happen before the turn begins
        stamp = self._tick()
        self.last_turn_start[seat] = stamp
        self.turn_start_clock = stamp
        self.step = UNTAP
        self._log("turn", self.turn, seat)
        self.k.append((F_BEGIN_STEP,))

    def _f_begin_step(self) -> None:
        step = self.step
        a = self.active
        self.passes = 0
        pool = self.mana_pool
        if pool is not None and (pool[0] or pool[1]):
            self._empty_pools(pool)
        self._log("step", step)
        if step == UNTAP:
            # 502.3: untap the active player's permanents; no priority in this step.
            self._untap_all(a)
            self.k.append((F_END_STEP,))
            return
        if step == UPKEEP:
            self._step_triggers("upkeep")
        elif step == DRAW:
            # 103.8a: the starting player skips the draw of the game's first turn.
            if not (self.turn == 1 and a == self.first_player):
                self._draw(a)
        elif step == BEGIN_COMBAT:
            cb.begin_combat(self)
        elif step == DECLARE_ATTACKERS:
            self.k.append((F_PRIO, a))
            cb.start_declare_attackers(self)
            return
        elif step == DECLARE_BLOCKERS:
            self.k.append((F_PRIO, a))
            cb.start_declare_blockers(self)
            return
        elif step == COMBAT_DAMAGE:
            self.k.append((F_PRIO, a))
            self.k.append((F_DAMAGE,))
            return
        elif step == END:
            self._step_triggers("end_step")
        elif step == CLEANUP:
            self.k.append((F_CLEANUP,))
            return
        self.k.append((F_PRIO, a))

    def _empty_pools(self, pool: list[list[int]]) -> None:
        """CR 500.4: unspent mana empties from each player's pool as a step or phase ends;
        done as the next step begins, before anything else can happen (no player acts
        between the two)."""
        for seat in (0, 1):
            if pool[seat]:
                self._log("mana_empties", seat, mana_symbols(pool[seat]))
                pool[seat] = []

    def _untap_all(self, a: int) -> None:
        """Untap (ready) every permanent player `a` controls."""
        skip = self.skip_untap
        for cid in self.battlefield:
            p = self.perm[cid]
            if skip and p.oid in skip and self.chars(cid).controller == a:
                # "It doesn't untap during its controller's next untap step" (502.3): this
                # is that step; the effect ends with it.
                skip.remove(p.oid)
                continue
            if p.tapped:
                ch = self.chars(cid)
                # 502.3: an effect may keep a permanent from untapping ("doesn't untap").
                if ch.controller == a and "doesnt_untap" not in ch.rules:
                    self._untap(cid)

    def _f_battle(self) -> None:
        """Combat damage of the BATTLE phase: first-strike damage and then regular damage
        (702.7b, 702.4b) as in classic, with state-based actions between, but no priority."""
        cb.combat_damage(self)
        if self.fs_step:
            self.fs_step = False
            self.k.append((F_BATTLE,))
        else:
            self.k.append((F_AFTER_BATTLE,))
        self.k.append((F_SETTLE,))

    def _f_after_battle(self) -> None:
        cb.end_combat(self)
        self.step = END
        self.k.append((F_BEGIN_STEP,))

    def _f_settle(self) -> None:
        """State-based actions, triggers and the stack without giving anyone priority: the
        steps of adventure and pocket in which no player has priority, and pocket's
        reactions, which resolve at once."""
        self._settled((F_SETTLE,), True)

    def _f_end_step(self) -> None:
        """All players passed with an empty stack: the step ends (CR 500.2)."""
        step = self.step
        if step == COMBAT_DAMAGE and self.fs_step:
            # 510.4: a first-strike damage step is followed by the regular one.
            self.fs_step = False
            self.k.append((F_BEGIN_STEP,))
            return
        if step == END_COMBAT:
            cb.end_combat(self)
        if step == CLEANUP:
            self.k.append((F_BEGIN_STEP,))  # 514.3a: a new cleanup step
            return
        nxt = step + 1
        if nxt in (DECLARE_BLOCKERS, COMBAT_DAMAGE) and not self.attackers:
            nxt = END_COMBAT  # 508.8: no attackers, skip blockers and damage
        self.step = nxt
        self.k.append((F_BEGIN_STEP,))

    def _f_cleanup(self) -> None:
        a = self.active
        # 514.1: discard down to maximum hand size.
        mh = self.rules.max_hand
        if mh is not None and len(self.hand[a]) > mh:
            self.k.append((F_CLEANUP,))
            self.ctx = CLEANUP_DISCARD
            self._set_decision(D_DISCARD, a, -1, f"discard to {mh} cards")
            return
        self._end_turn_effects()
        # 514.3a: if SBAs or triggers would happen, players get priority, then another
        # cleanup step follows.
        if self._sba_pending() or self.triggers:
            self.k.append((F_PRIO, a))  # when all pass: another cleanup step (F_END_STEP)
            return
        self._start_turn(1 - a)

    def _end_turn_effects(self) -> None:
        """514.2: damage is removed and "until end of turn" effects end."""
        for p in self.perm.values():
            p.damage = 0
            p.deathtouched = False
            p.shields = 0  # 701.15a: a shield lasts "this turn"
        n = len(self.effects)
        self.effects = [e for e in self.effects if e.duration != DUR_EOT]
        if len(self.effects) != n:
            self._dirty = True
        self.fog_turn = -1
        if self.prevent_next:
            self.prevent_next.clear()  # 514.2: "this turn" shields end
        if self.exile_if_dies:
            self.exile_if_dies.clear()

    def _echo_upkeep(self, cid: int) -> None:
        """Echo (CR 702.30a) asks whether the permanent came under its controller's control
        since the beginning of their last upkeep: as this upkeep begins, note the answer
        (for the trigger and its recheck on resolution, 603.4) and this upkeep's clock."""
        p = self.perm[cid]
        p.echo_turn = self.turn if p.control_since >= p.upkeep_clock else -1
        p.upkeep_clock = self.clock  # what comes under control from now on is later

    def _step_triggers(self, event: str) -> None:
        a = self.active
        for cid in self._derived().triggered:
            ch = self.chars(cid)
            if not self.rules.triggers_at_step(ch):
                continue
            for idx, ab in enumerate(ch.abilities):
                if type(ab) is not TriggeredAbility or ab.event != event:
                    continue
                info: dict[str, Any] = {}
                if ab.whose == "you":
                    if ch.controller != a:
                        continue
                    if "echo" in ab.condition:
                        self._echo_upkeep(cid)
                elif ab.whose == "enchanted_controller":
                    t = self.perm[cid].attached
                    if t < 0 or self.zone[t] != BATTLEFIELD or self.chars(t).controller != a:
                        continue
                    info["enchanted"] = (t, self.oid[t])
                if not self._condition_holds(ab, cid, ch.controller):
                    continue
                self._add_trigger(ch.controller, cid, ab, idx, info)
        ini = self.initiative
        if ini is not None and event == "upkeep" and ini[0] == a:
            # 725.2: "At the beginning of the upkeep of the player who has the initiative,
            # that player ventures into Undercity."
            self.triggers.append(Trigger(a, ini[1], ini[2], VENTURE, -1, {}))
        if self.delayed and event in ("end_step", "upkeep"):
            # Delayed triggers (603.7): "at the beginning of the next end step" or "of
            # the next turn's upkeep" trigger once, as that step begins.
            at = "next_end_step" if event == "end_step" else "next_upkeep"
            rest: list[Trigger] = []
            for trig in self.delayed:
                if trig.info.get("at") == at:
                    self.triggers.append(trig)
                else:
                    rest.append(trig)
            self.delayed = rest

    def _f_damage(self) -> None:
        cb.combat_damage(self)

    def _f_mulligan(self) -> None:
        """London mulligan (CR 103.5): in turn order each undecided player keeps or
        mulligans; mulligans shuffle and draw seven; a keeper bottoms one card per
        mulligan taken."""
        order = (self.first_player, 1 - self.first_player)
        for seat in order:
            if not self.mull_kept[seat] and seat not in self.mull_round:
                self.k.append((F_MULLIGAN,))
                self._set_decision(
                    D_MULLIGAN, seat, -1, f"keep {len(self.hand[seat])} cards or mulligan"
                )
                return
        # Everyone declared this round: those who mulliganed draw new hands.
        again = [s for s in order if not self.mull_kept[s]]
        if again:
            for s in again:
                for cid in list(self.hand[s]):
                    self._move(cid, LIBRARY)
                self.rng.for_seat(s, SHUFFLE).shuffle(self.library[s])
                for _ in range(self.rules.opening_hand):
                    self._draw(s)
            self.mull_round = []
            self.k.append((F_MULLIGAN,))
            return
        self._start_turn(self.first_player, first=True)

    def _answer_mulligan(self, p: int, a: Action) -> None:
        self.mull_round.append(p)
        if a.kind == KEEP:
            self.mull_kept[p] = True
            self._log("keep", p, len(self.hand[p]) - self.mull_count[p])
            n = min(self.mull_count[p], len(self.hand[p]))
            for _ in range(n):
                self.k.append((F_BOTTOM, p))
        else:
            self.mull_count[p] += 1
            self._log("mulligan", p)

    def _f_bottom(self, p: int) -> None:
        self._set_decision(D_BOTTOM, p, -1, "put a card on the bottom of your library")

    def _answer(self, d: Decision, a: Action) -> None:
        k = d.kind
        p = d.player
        if k == D_PRIORITY:
            if a.kind == PASS:
                self._pass(p)
                return
            self.passes = 0
            self.rules.answer_priority(self, p, a)
            return
        ctx = self.ctx
        if ctx is not None:
            answer = self.rules.answers.get(type(ctx))
            if answer is not None:
                answer(self, p, a)
                return
        if k == D_TARGET:
            ctx = self.ctx
            assert isinstance(ctx, Targets)
            item = ctx.item
            if a.kind == PASS:
                # "Up to N target ...": no more targets (601.2c); the choosing ends.
                self.ctx = Targets(item, ctx.specs[: len(item.targets)], ctx.done)
                return
            item.targets.append((a.obj, 0 if a.obj < 0 else self.oid[a.obj]))
            self._next_target()
            return
        if k == D_ATTACKERS:
            cb.answer_attackers(self, a)
            return
        if k in (D_BLOCKERS, D_BLOCK_TARGET):
            cb.answer_blockers(self, a)
            return
        if k == D_MULLIGAN:
            self._answer_mulligan(p, a)
            return
        if k == D_BOTTOM:
            self._move(a.obj, LIBRARY, bottom=True)
            self._log("bottom", p)
            return
        if k == D_DISCARD:
            if isinstance(ctx, CleanupDiscard):
                self._discard(p, a.obj)
                self.ctx = None
            elif isinstance(ctx, Announce):
                self._announced(ctx, a.obj)  # a card to discard as a spell's cost
            else:
                assert self.res is not None
                self.res.vars["answer"] = a.obj
            return
        if k == D_TRIGGER_ORDER:
            mine = [t for t in self.triggers if t.controller == p]
            t = mine[a.arg]
            self.triggers.remove(t)
            self._put_trigger(t)
            return
        if k == D_CHOICE:
            if isinstance(ctx, Resolving):
                assert self.res is not None
                self.res.vars["answer"] = a.arg
            elif isinstance(ctx, Announce):
                self._announced(ctx, ctx.choices[a.arg])
            return
        if k == D_SELECT:
            if isinstance(ctx, Legend):
                self.ctx = LegendKeep(a.obj)
            elif isinstance(ctx, Announce):
                self._announced(ctx, a.obj)  # a permanent to sacrifice as a spell's cost
            elif isinstance(ctx, Resolving):
                assert self.res is not None
                self.res.vars["answer"] = a.obj
            return
        raise AssertionError(k)  # pragma: no cover
