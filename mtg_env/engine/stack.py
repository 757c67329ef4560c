"""The stack and triggers: putting triggered abilities on the stack (CR 603.3), resolving
spells and abilities (CR 608), permanents entering, damage (CR 120).

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from typing import Any

from . import effects as fx
from .cards import (
    LKI_COUNTER_CONDITIONS,
    TAKE_INITIATIVE,
    CardDef,
    Op,
    TriggeredAbility,
)
from .constants import (
    BATTLEFIELD,
    CREATURE,
    D_TRIGGER_ORDER,
    GRAVEYARD,
    HAND,
    INSTANT,
    LAND,
    PERMANENT_TYPES,
    SORCERY,
    STACK,
    ref_player,
)
from .decisions import (
    TRIGGER_ORDER,
    Targets,
)
from .frames import (
    F_CAST_DONE,
    F_OPS,
    F_PUT_TRIGGERS,
    F_TRIG_DONE,
)
from .layers import Chars, matches
from .objects import (
    SPELL,
    TRIGGER,
    Resolution,
    StackItem,
    Trigger,
)
from .targets import Targeting


class Stack(Targeting):
    __slots__ = ()

    def _f_put_triggers(self) -> None:
        """CR 603.3b: APNAP order; a player with several triggers orders them."""
        if not self.triggers:
            return
        for seat in (self.active, 1 - self.active):
            mine = [t for t in self.triggers if t.controller == seat]
            if not mine:
                continue
            self.k.append((F_PUT_TRIGGERS,))
            if len(mine) == 1:
                self.triggers.remove(mine[0])
                self._put_trigger(mine[0])
            else:
                opts = tuple(
                    f"{self.name(t.cid)}: {t.ability.text or t.ability.event}" for t in mine
                )
                self.ctx = TRIGGER_ORDER
                self._set_decision(
                    D_TRIGGER_ORDER, seat, -1, "choose the next trigger to put on the stack", opts
                )
            return

    def _put_trigger(self, t: Trigger) -> None:
        ab: TriggeredAbility = t.ability
        item = StackItem.new(
            self._new_oid(), TRIGGER, t.cid, t.src_oid, t.controller, ab, t.ab_index, dict(t.info)
        )
        if ab.targets:
            src_ch = self._source_chars(t.cid, t.src_oid)
            if not self._targets_exist(ab.targets, t.cid, t.controller, TRIGGER, src_ch):
                self._log("trigger_removed", t.controller, t.cid)  # 603.3d
                return
            self.k.append((F_TRIG_DONE,))
            self.ctx = Targets(item, tuple(ab.targets), F_TRIG_DONE)
            self._next_target()
            return
        self.stack.append(item)

    def _f_trig_done(self) -> None:
        ctx = self.ctx
        assert isinstance(ctx, Targets)
        item = ctx.item
        self.ctx = None
        if not (self.stack and self.stack[-1] is item):  # a copy of a spell is there already
            self.stack.append(item)
        self._targeted(item)

    def _copy_spell(self, item: StackItem, cd: CardDef, seat: int) -> None:
        """CR 707.10: a copy of spell `item` (card `cd`) put on the stack under `seat`'s
        control, who owns it too; it is not cast. Its controller chooses its targets
        again (707.10c: the same ones or new). A new object of its own, it ceases to exist
        as it leaves the stack (704.5e; `_move`)."""
        cid = self._new_card(cd, seat)
        self._move(cid, STACK)
        copy = StackItem.new(
            self.oid[cid], SPELL, cid, self.oid[cid], seat, item.ability, item.ab_index
        )
        copy.info["copy"] = 1
        self.stack.append(copy)
        self._log("copy_spell", seat, cid)
        specs = item.ability.targets if item.ability is not None else ()
        if specs:
            self.k.append((F_TRIG_DONE,))
            self.ctx = Targets(copy, tuple(specs), F_TRIG_DONE)
            self._next_target()

    def _targeted(self, item: StackItem) -> None:
        """`item`, now on the stack, has become a spell or ability that targets its
        targets: each permanent among them triggers "targeted" (CR 603.2), and each that an
        opponent of its controller controls "targeted_by_opponent" (ward, 702.21a), once
        per permanent. Only a set with such a trigger looks."""
        if not self.cardset.target_triggers:
            return
        seen: list[int] = []
        for ref, oid in item.targets:
            if ref < 0 or ref in seen or self.zone[ref] != BATTLEFIELD or self.oid[ref] != oid:
                continue
            seen.append(ref)
            self._fire("targeted", ref, {"item": item.oid})
            if self.chars(ref).controller != item.controller:
                self._fire("targeted_by_opponent", ref, {"item": item.oid})

    def _f_resolve(self) -> None:
        """CR 608: resolve the top object; then the active player gets priority."""
        item = self.stack[-1]
        self.rules.after_resolve(self)
        if item.targets:
            legal = [self.target_still_legal(item, i) for i in range(len(item.targets))]
            if not any(legal) and item.kind == SPELL and self.cdef[item.cid].bestowed:
                # 702.103e: a bestowed Aura spell whose target is illegal isn't countered;
                # it resolves as the enchantment creature spell it is again.
                self._end_bestow(item.cid)
                item.targets = []
                legal = []
            elif not any(legal):
                # 608.2b: every target illegal: it doesn't resolve.
                self._log("fizzle", item.cid)
                if item.kind == SPELL:
                    self._move(item.cid, GRAVEYARD)  # 608.2b, 702.34a in _move
                else:
                    self.stack.pop()
                return
            item.info["illegal"] = tuple(i for i, ok in enumerate(legal) if not ok)
        if item.kind == TRIGGER and item.ability.condition:
            if not self._condition_holds(item.ability, item.cid, item.controller):
                self.stack.pop()
                self._log("condition_false", item.cid)
                return
        if item.kind == SPELL and self.cdef[item.cid].types & PERMANENT_TYPES:
            self._resolve_permanent(item)
            return
        ops = item.ability.effects if item.ability is not None else ()
        self._log("resolve", item.cid, item.kind)
        self.res = Resolution(item, ops)
        self.k.append((F_OPS,))

    def _resolve_permanent(self, item: StackItem) -> None:
        """608.3: a permanent spell enters the battlefield; an Aura attaches to its target.
        A card that may enter as a copy makes its choice first (CR 707.5)."""
        cd = self.cdef[item.cid]
        if cd.enters_as_copy:
            self._log("resolve", item.cid, SPELL)
            ops = (Op("enter_as_copy"), Op("enter_battlefield"))
            self.res = Resolution(item, ops)
            self.k.append((F_OPS,))
            return
        self.stack.pop()
        self._log("resolve", item.cid, SPELL)
        self._enter_from_stack(item, None)

    def _enter_from_stack(self, item: StackItem, copy_def: CardDef | None) -> None:
        cid = item.cid
        if self.stack and self.stack[-1] is item:
            self.stack.pop()
        self._move(cid, BATTLEFIELD, controller=item.controller)
        # Counters that are part of how it enters (614.1c), before anything sees it: a
        # kicked spell's (702.33d: the permanent it becomes was kicked), and X of "enters
        # with X counters" (107.3m: X the value announced as it was cast).
        cd = self.cdef[cid]
        more: list[tuple[str, int]] = []
        if item.info.get("kicked"):
            self.perm[cid].kicked = True
            more += cd.kicked_enters_with
        x = item.info.get("x", 0)
        if cd.enters_with_x and x:
            more.append((cd.enters_with_x, x))
        if more:
            p = self.perm[cid]
            counters = p.counters or {}
            for kind, n in more:
                counters[kind] = counters.get(kind, 0) + n
            p.counters = counters
            self._dirty = True
            self._sba_ok = None
        if copy_def is not None:
            self.perm[cid].copy_def = copy_def
            self._log("copy", cid, copy_def.name)
        if self.cdef[cid].enchant is not None:
            self.perm[cid].attached = item.targets[0][0]
            self._sba_ok = None
        self._etb(cid)

    def _f_ops(self) -> None:
        res = self.res
        assert res is not None
        while res.frames:
            frame = res.frames[-1]
            ops, pc = frame
            if pc >= len(ops):
                res.frames.pop()
                continue
            done = fx.run_op(self, res, ops[pc])
            if self.over:
                return
            if not done:
                self.k.append((F_OPS,))
                return
            frame[1] = pc + 1
        item = res.item
        self.res = None
        copier = item.info.get("copy_for")  # who paid to copy it (effects.op_pay_to_copy)
        # Its card now, before it leaves the stack (a half becomes its whole card then).
        cd = self.cdef[item.cid] if copier is not None else None
        if item.kind == SPELL and self.zone[item.cid] == STACK:
            # 608.2n: an instant or sorcery goes to its owner's graveyard (`_move` takes
            # it off the stack, and exiles it instead if it was cast with flashback); with
            # its buyback cost paid, to its owner's hand instead (702.27a).
            self._move(item.cid, HAND if item.info.get("buyback") else GRAVEYARD)
        elif self.stack and self.stack[-1] is item:
            self.stack.pop()
            if item.info.get("cast"):
                # Madness (702.35a): its owner chose to cast the card as the trigger
                # resolved; the cast is the caster's job (priority), which this frame
                # begins.
                self.k.append((F_CAST_DONE, item.cid))
            free = item.info.get("cast_free")
            if free is not None:
                # Cascade (702.85a): the exiled card, cast without paying its mana cost.
                self.k.append((F_CAST_DONE, free, 1))
        if copier is not None and cd is not None:
            self._copy_spell(item, cd, copier)

    def _etb(self, cid: int) -> None:
        self._fire("enters", cid)
        if self.cardset.enters_triggers:
            # "Whenever another creature you control enters" (603.6a): each permanent's
            # ability whose filter the entering one matches, the entering one included
            # when it has such an ability itself ("this creature or another Ally").
            ch = self.chars(cid)
            owner = self.owner[cid]
            for other in list(self.battlefield):
                och = self.chars(other)
                for idx, ab in enumerate(och.abilities):
                    if type(ab) is TriggeredAbility and ab.event == "permanent_enters":
                        f = ab.filter
                        if (ab.or_self and other == cid) or (
                            f is not None and matches(f, ch, cid, other, och.controller, owner)
                        ):
                            self._add_trigger(och.controller, other, ab, idx, {})
        if self.cardset.landfall_triggers:
            ch = self.chars(cid)
            if ch.types & LAND:
                # Landfall: "whenever a land you control enters" (603.2), the land itself
                # included. Only a set with such a trigger looks.
                for other in list(self.battlefield):
                    if self.chars(other).controller == ch.controller:
                        self._fire("landfall", other)

    def _fire(self, event: str, cid: int, info: dict[str, Any] | None = None) -> None:
        """Object `cid`'s triggered abilities for `event` (vocab.TRIGGER_EVENTS) trigger
        (CR 603.2): "enters" (603.6a), "attacks" (508.1m), "blocks" (509.1i), each
        controlled by the object's controller (603.3a). `info` goes with each trigger (a
        copy each; none: an empty one, made only when something triggers)."""
        ch = self.chars(cid)
        for idx, ab in enumerate(ch.abilities):
            if type(ab) is TriggeredAbility and ab.event == event:
                # 603.4: an intervening "if" is checked as it triggers, and on resolution.
                if ab.condition and not self._condition_holds(ab, cid, ch.controller):
                    continue
                if (
                    ab.filter is not None
                    and event == "blocks"
                    and not self._blocks_one(ab, cid, ch.controller)
                ):
                    continue
                self._add_trigger(ch.controller, cid, ab, idx, dict(info) if info else {})

    def _blocks_one(self, ab: TriggeredAbility, cid: int, you: int) -> bool:
        """Whether blocker `cid` (controlled by `you`) blocks a creature that `ab`'s filter
        names ("whenever this creature blocks a creature with flying")."""
        a = self.blockers.get(cid)
        assert ab.filter is not None
        return a is not None and matches(ab.filter, self.chars(a), a, cid, you, self.owner[a])

    def _fire_cast(self, seat: int, types: int) -> None:
        """`seat` cast a spell of card types `types`: the "whenever you cast a spell"
        triggers of the permanents they control (extort, 702.101a), and for a noncreature
        spell the "whenever you cast a noncreature spell" ones (prowess, 702.108a), for an
        instant or sorcery "whenever you cast an instant or sorcery spell" (603.2). Only a
        set with such a trigger looks."""
        cs = self.cardset
        noncreature = not types & CREATURE
        # A creature spell triggers only "whenever you cast a spell": no loop without one.
        if not cs.cast_triggers or not (noncreature or cs.cast_spell_triggers):
            return
        spell = types & (INSTANT | SORCERY)
        for cid in list(self.battlefield):
            if self.chars(cid).controller == seat:
                if noncreature:
                    self._fire("cast_noncreature", cid)
                    if spell:
                        self._fire("cast_instant_sorcery", cid)
                self._fire("cast_spell", cid)

    def _fire_cast_self(self, item: StackItem) -> None:
        """The spell's own "When you cast this spell" abilities trigger as it becomes cast
        (CR 603.2, 601.2i), controlled by its caster, with the spell as their source: they
        resolve whether or not the spell does."""
        # Its printed abilities: no effect reaches a spell's own abilities in these sets.
        self._triggers_of(item.cid, self.cdef[item.cid].abilities, "cast_self", item.controller)

    def _damaged_initiative(self, seat: int, src: int, taker: int) -> None:
        """CR 725.2: "Whenever one or more creatures a player controls deal combat damage to
        the player who has the initiative, that player takes the initiative", controlled by
        `seat`, who has it; once for the creatures dealing their damage together."""
        if not any(t.ability is TAKE_INITIATIVE for t in self.triggers):
            trig = Trigger(seat, src, self.oid[src], TAKE_INITIATIVE, -1, {"taker": taker})
            self.triggers.append(trig)

    def _damage(self, src: int, src_ch: Chars, target: int, amount: int, combat: bool) -> int:
        """Deal damage (CR 120) after prevention; returns the damage dealt."""
        if amount <= 0:
            return 0
        if combat and self.fog_turn == self.turn:
            return 0
        if target < 0:
            if self.prevent_next:
                amount = self._prevent(target, amount)
                if not amount:
                    return 0
            seat = ref_player(target)
            # 702.90b: damage from a source with infect to a player is dealt as that many
            # poison counters (122.1f), not as life loss.
            poison = self.poison if "infect" in src_ch.rules else None
            if poison is None:
                self.life[seat] -= amount
            else:
                poison[seat] += amount
            self._sba_ok = None
            if self.damaged_turn is not None:
                self.damaged_turn[seat] = True
            self._log("damage", src, target, amount)
            if poison is not None:
                self._log("poison", seat, amount)
            toxic = src_ch.cdef.toxic if combat and "toxic" in src_ch.rules else 0
            if toxic and self.poison is not None:
                # 702.164c: combat damage from a creature with toxic also gives the player
                # poison counters, its total toxic value.
                self.poison[seat] += toxic
                self._log("poison", seat, toxic)
            if seat != src_ch.controller:
                ini = self.initiative
                if ini is not None and combat and ini[0] == seat:
                    self._damaged_initiative(seat, src, src_ch.controller)
                for idx, ab in enumerate(src_ch.abilities):
                    if type(ab) is TriggeredAbility and (
                        ab.event == "damage_to_opponent"
                        or (combat and ab.event == "combat_damage_to_player")
                    ):
                        self._add_trigger(src_ch.controller, src, ab, idx, {"player": seat})
        else:
            if self.zone[target] != BATTLEFIELD:
                return 0
            tch = self.chars(target)
            if src_ch.colors & tch.prot:
                return 0  # 702.16e: damage from a source of that color is prevented
            if self.prevent_next:
                amount = self._prevent(self.oid[target], amount)
                if not amount:
                    return 0
            p = self.perm[target]
            if "wither" in src_ch.keywords or "infect" in src_ch.rules:
                # 702.80c, 702.90c: damage from a source with wither or infect to a
                # creature is dealt as that many -1/-1 counters, not marked damage.
                if p.counters is None:
                    p.counters = {}
                p.counters["-1/-1"] = p.counters.get("-1/-1", 0) + amount
                self._dirty = True
            else:
                p.damage += amount
            self._sba_ok = None
            if "deathtouch" in src_ch.keywords:
                p.deathtouched = True
            self._log("damage", src, target, amount)
        if "lifelink" in src_ch.keywords:
            self.life[src_ch.controller] += amount  # 702.15b
            self._log("lifelink", src_ch.controller, amount)
        return amount

    def _prevent(self, key: int, amount: int) -> int:
        """What is left of `amount` after the "prevent the next N damage" shield of `key`
        (a player's ref or a permanent's object id) prevents what it can (615.7)."""
        shields = self.prevent_next
        assert shields is not None
        left = shields.get(key, 0)
        if not left:
            return amount
        n = min(left, amount)
        if n == left:
            del shields[key]
        else:
            shields[key] = left - n
        self._log("prevented", key, n)
        return amount - n

    def _another_named(self, cid: int, controller: int) -> bool:
        """ "If you control another creature named ~": a creature other than `cid` with
        its name (201.2) that `controller` controls."""
        name = self.chars(cid).name
        for c in self._derived().controlled[controller]:
            if c != cid:
                ch = self.chars(c)
                if ch.types & CREATURE and ch.name == name:
                    return True
        return False

    def _condition_holds(self, ab: TriggeredAbility, cid: int, controller: int) -> bool:
        """Intervening "if" clauses (CR 603.4), checked on triggering and resolving."""
        for cond in ab.condition:
            if cond in LKI_COUNTER_CONDITIONS:
                continue  # checked as it triggered; what it had as it died stays so
            p = self.perm.get(cid)
            if p is None:
                return False
            if cond == "not_attacked_this_turn" and p.attacked_turn == self.turn:
                return False
            if cond == "controlled_since_turn_start" and p.control_since > self.turn_start_clock:
                return False
            if cond == "kicked" and not p.kicked:
                return False
            if cond == "echo" and p.echo_turn != self.turn:
                return False
            if cond in fx.STATE_CONDITIONS and not fx.state_condition(self, cond, controller):
                return False
            if cond == "another_named" and not self._another_named(cid, controller):
                return False
        return True
