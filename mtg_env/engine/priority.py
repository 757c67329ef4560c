"""Priority and casting: what a player may do (CR 117), answering decisions, playing lands (CR
305), casting spells (CR 601) and activating abilities (CR 602), paying mana.

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from typing import Any, Final

from . import combat as cb
from .cards import (
    NO_MANA,
    ActivatedAbility,
    CardDef,
    Cost,
    ManaCost,
    SacCost,
    TargetSpec,
    spell_targets,
)
from .constants import (
    ACTIVATE,
    ALL_COLORS,
    ATTACK,
    BATTLEFIELD,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    COMBAT_DAMAGE,
    CREATURE,
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
    DECLARE_BLOCKERS,
    ENCHANTMENT,
    END_COMBAT,
    EXILE,
    GRAVEYARD,
    HAND,
    INSTANT,
    KEEP,
    LAND,
    MAIN1,
    MAIN2,
    MULLIGAN,
    PASS,
    PLAY,
    STACK,
    TARGET,
    TYPE_BITS,
    TYPE_NAMES,
)
from .decisions import (
    Announce,
    BlockTarget,
    Legend,
    Redraw,
    Resolving,
    Targets,
    Unstable,
)
from .frames import (
    F_ACT_DONE,
    F_CAST_DONE,
    F_PRIO,
)
from .layers import Chars, matches
from .mana import Source, can_pay, choose_payment
from .objects import (
    ABILITY,
    SPELL,
    Action,
    Decision,
    StackItem,
    action,
    activated_at,
)
from .protocol import GameLike
from .stack import Stack

PASS_ACTION: Final = action(PASS)
KEEP_ACTION: Final = action(KEEP)
MULLIGAN_ACTION: Final = action(MULLIGAN)


_PRIORITY: Final = (Decision(D_PRIORITY, 0), Decision(D_PRIORITY, 1))
# The largest X offered (CR 107.3a lets a player announce any X, but a cast they can't pay
# for is reversed, 601.2 and 729): values up to what the caster can pay, at most this many,
# so that the choice fits the observation's option table.
MAX_X: Final = 20


class Priority(Stack):
    __slots__ = ()

    def _f_prio(self, p: int, resolve: bool = False) -> None:
        """CR 117.5: before a player receives priority, SBAs are checked (repeatedly) and
        then triggered abilities are put on the stack; then the player gets priority. With
        `resolve` (a format's priority policy) the stack resolves before anyone acts."""
        if self._settled((F_PRIO, p), resolve):
            # The two priority decisions are immutable values: shared, not rebuilt each time.
            self._decision = _PRIORITY[p]
            self._legal = None

    def _pass(self, p: int) -> None:
        self.rules.pass_priority(self, p)

    def mana_sources(self, seat: int, exclude: int = -1) -> list[Source]:
        """The mana `seat` can spend now, as payment sources (the format's mana model)."""
        return self.rules.mana_sources(self, seat, exclude)

    def _pay_mana(self, seat: int, cost: Any, exclude: int = -1) -> None:
        if cost:
            self.rules.pay_mana(self, seat, cost, exclude)

    def _compute_legal(self) -> list[Action]:
        d = self._decision
        assert d is not None
        k = d.kind
        p = d.player
        if k == D_PRIORITY:
            return self.rules.priority_actions(self, p)
        if k == D_TARGET:
            targets = [action(TARGET, r) for r in self._target_choices()]
            ctx = self.ctx
            assert isinstance(ctx, Targets)
            if ctx.specs[len(ctx.item.targets)].up_to:
                return [PASS_ACTION, *targets]  # "up to N": stop choosing (601.2c)
            return targets
        if k == D_ATTACKERS:
            can = cb.can_attack_list(self)
            acts = [PASS_ACTION] if cb.attacks_legal(self, can) else []
            return acts + [action(ATTACK, c, 1 - p) for c in can]
        if k == D_BLOCKERS:
            acts = [PASS_ACTION] if cb.blocks_legal(self) else []
            return acts + [action(BLOCKER, c) for c in cb.blocker_choices(self)]
        if k == D_BLOCK_TARGET:
            ctx = self.ctx
            assert isinstance(ctx, BlockTarget)
            return [action(BLOCK, a) for a in cb.block_target_choices(self, ctx.blocker)]
        if k in (D_CHOICE, D_TRIGGER_ORDER):
            return [action(CHOOSE, 0, i) for i in range(len(d.options))]
        if k == D_MULLIGAN:
            return (
                [KEEP_ACTION, MULLIGAN_ACTION]
                if self.mull_count[p] < self.rules.opening_hand - 1
                else [KEEP_ACTION]
            )
        if k in (D_BOTTOM, D_DISCARD):
            cards = [action(CARD, c) for c in self.hand[p]]
            redraw = isinstance(self.ctx, Redraw)
            return [PASS_ACTION, *cards] if redraw else cards
        if k == D_SELECT:
            ctx = self.ctx
            assert isinstance(ctx, Unstable | Legend | Resolving | Announce)
            assert ctx.choices is not None
            return [action(CARD, c) for c in ctx.choices]
        raise AssertionError(k)  # pragma: no cover

    def cost_of(self, p: int, cd: CardDef) -> Any:
        """What `p` pays to cast `cd` now (the format may change a card's cost)."""
        return self.rules.cost(self, p, cd)

    def _priority_actions(self, p: int) -> list[Action]:
        """CR 117.1: what `p` may do with priority (the format decides whether to use this)."""
        acts = [PASS_ACTION]
        sorcery_ok = self.active == p and self.step in (MAIN1, MAIN2) and not self.stack
        hand = self.hand[p]
        if sorcery_ok and self.lands_played < 1:
            for cid in hand:
                if self.cdef[cid].types & LAND:
                    acts.append(action(PLAY, cid))
        srcs: list[Source] | None = None
        castable: dict[CardDef, bool] = {}  # copies of a card in hand share the answer
        for cid in hand:
            cd = self.cdef[cid]
            if cd.types & LAND:
                continue
            # Off the battlefield only characteristic-defining abilities and colour
            # effects apply (chars_off_battlefield), so a card's keywords are printed ones.
            if not (sorcery_ok or cd.types & INSTANT or "flash" in cd.keywords):
                continue
            ok = castable.get(cd)
            if ok is None:
                if srcs is None:
                    srcs = self.rules.mana_sources(self, p)
                ok = self._can_cast(p, cid, cd.cost, srcs) or (
                    # 118.9: or for its alternative cost, sacrificing instead of paying
                    cd.alt_sacrifice is not None
                    and self._can_cast(p, cid, NO_MANA, srcs, cd.alt_sacrifice)
                )
                castable[cd] = ok
            if ok:
                acts.append(action(PLAY, cid))
        for cid in self.graveyard[self.rules.pile_of[p]] if self.cardset.flashback else ():
            cd = self.cdef[cid]
            # 702.34a: flashback casts it from its owner's graveyard, at its usual time.
            if cd.flashback is None or self.owner[cid] != p:
                continue
            if not (sorcery_ok or cd.types & INSTANT or "flash" in cd.keywords):
                continue
            if srcs is None:
                srcs = self.rules.mana_sources(self, p)
            if self._can_cast(p, cid, cd.flashback, srcs, cd.flashback_sacrifice):
                acts.append(action(PLAY, cid))
        plotted = self.plotted
        if plotted and sorcery_ok:
            for cid in self.exile[p]:
                # 702.170d: a plotted card may be cast without paying its mana cost during
                # its owner's main phase, stack empty, on a later turn than it was plotted.
                when = plotted.get(cid)
                if when is None or when[0] != self.oid[cid] or when[1] >= self.turn:
                    continue
                if srcs is None:
                    srcs = self.rules.mana_sources(self, p)
                if self._can_cast(p, cid, NO_MANA, srcs):
                    acts.append(action(PLAY, cid))
        if self.playable:
            for cid in self._exiled_playable(p):
                cd = self.cdef[cid]
                if cd.types & LAND:
                    # A land exiled this way is played with the turn's land play (305.2).
                    if sorcery_ok and self.lands_played < 1:
                        acts.append(action(PLAY, cid))
                    continue
                if not (sorcery_ok or cd.types & INSTANT or "flash" in cd.keywords):
                    continue
                if srcs is None:
                    srcs = self.rules.mana_sources(self, p)
                if self._can_cast(p, cid, cd.cost, srcs):
                    acts.append(action(PLAY, cid))
        for cid, ch, idx, ab in self._derived().activated[p]:
            if srcs is None:
                srcs = self.rules.mana_sources(self, p)
            if self._can_activate(p, cid, ch, ab, idx, sorcery_ok, srcs) is None:
                acts.append(action(ACTIVATE, cid, idx))
        for cid in hand:
            for idx in self.cdef[cid].from_hand:  # cycling (702.29a)
                if srcs is None:
                    srcs = self.rules.mana_sources(self, p)
                ch = self.chars(cid)
                ab = activated_at(ch, idx)
                if self._can_activate(p, cid, ch, ab, idx, sorcery_ok, srcs) is None:
                    acts.append(action(ACTIVATE, cid, idx))
        return acts

    def _can_cast(
        self,
        p: int,
        cid: int,
        cost: ManaCost | None,
        srcs: list[Source],
        sac: SacCost | None = None,
    ) -> bool:
        """Whether `p` can cast spell `cid` for `cost` now (its timing already checked): the
        cost can be paid, with the permanents `sac` sacrifices and an additional cost too,
        and its targets (or one mode's) exist."""
        cd = self.cdef[cid]
        if cost is None:
            return False  # a card without a mana cost can't be cast (CR 202.1b)
        cost = reduced_cost(self, p, cd, cost)
        if (cd.sacrifice_types or cd.discard_cost) and not extra_cost_choices(self, p, cid):
            return False  # 601.2h: an additional cost it can't pay
        if sac is not None and len(sacrifice_choices(self, p, sac, ())) < sac.count:
            return False
        if cd.convoke:
            srcs = srcs + convoke_sources(self, p, srcs)
        if not can_pay(srcs, cost):
            return False
        # Targets are checked against the spell's colours as it would be cast (112.3,
        # 702.16b): a colour effect on cards off the battlefield (`everywhere`) applies, so
        # the card's current characteristics.
        src = self.chars(cid) if self._offbf[p] else cd
        modes = cd.spell.modes if cd.spell is not None else ()
        if modes:
            # 700.2a: a modal spell can be cast if one of its modes can be chosen.
            return any(
                not m.targets or self._targets_exist(m.targets, cid, p, SPELL, src) for m in modes
            )
        specs = spell_targets(cd)
        return not specs or self._targets_exist(specs, cid, p, SPELL, src)

    def _spell_cost(self, item: StackItem) -> ManaCost | None:
        """What casting spell `item` costs before X and kicker: its flashback cost when
        cast from the graveyard (702.34a, an alternative cost), its madness cost when cast
        from exile (702.35a), no mana for an alternative cost that sacrifices instead
        (118.9), else the format's cost; less its affinity (702.41a)."""
        cd = self.cdef[item.cid]
        p = item.controller
        info = item.info
        if info.get("flashback"):
            cost = cd.flashback
        elif info.get("madness"):
            cost = cd.madness
        elif info.get("plot") or info.get("free"):
            cost = NO_MANA  # 702.170d, 702.85a: without paying its mana cost
        elif info.get("alt"):
            cost = NO_MANA
        elif info.get("bestow"):
            cost = cd.bestow  # 702.103a: an alternative cost
        else:
            cost = self.rules.cost(self, p, cd)
        return None if cost is None else reduced_cost(self, p, cd, cost)

    def _sacrifice_due(self, item: StackItem) -> SacCost | None:
        """The permanents casting spell `item` sacrifices instead of paying mana: its
        flashback's (702.34a) or its alternative cost's (118.9), if it is cast that way."""
        cd = self.cdef[item.cid]
        if item.info.get("flashback"):
            return cd.flashback_sacrifice
        return cd.alt_sacrifice if item.info.get("alt") else None

    def _can_activate(
        self,
        p: int,
        cid: int,
        ch: Chars,
        ab: ActivatedAbility,
        idx: int,
        sorcery_ok: bool,
        srcs: list[Source] | None = None,
    ) -> str | None:
        """None if `ab` (the `idx`-th activated ability) of `cid` can be activated by `p`
        now, else the reason. `srcs`: `p`'s mana sources if already computed (the source
        itself is left out when it must tap for the ability)."""
        if ab.timing == "your_turn" and self.active != p:
            return "it can be activated only during your turn"
        if ab.timing == "sorcery" and not sorcery_ok:
            return "it can be activated only as a sorcery"
        if ab.once_each_turn:
            used = self.perm[cid].used if cid in self.perm else None
            if used is not None and used.get(idx) == self.turn:
                return "it can be activated only once each turn (CR 602.5b)"
        cost = ab.cost
        if cost.ninjutsu and not unblocked_attackers(self, p):
            return "there is no unblocked attacking creature you control (CR 702.49a)"
        given = bool(cost.sac_types) or cost.discard or cost.returned is not None
        if given and not cost_choices(self, p, cid, cost):
            return "you have nothing to give for its cost (CR 602.2b)"
        if cost.pay_life and self.life[p] < cost.pay_life:
            return f"you can't pay {cost.pay_life} life (CR 119.4)"
        if cost.tap:
            if self.perm[cid].tapped:
                return f"{ch.name} is tapped"
            if ch.types & CREATURE and self.sick(cid) and "haste" not in ch.keywords:
                return (
                    f"{ch.name} has summoning sickness (CR 302.6): its controller has not "
                    "controlled it continuously since their most recent turn began, so "
                    "abilities with {T} in the cost can't be activated"
                )
        if cost.mana:
            if srcs is None:
                srcs = self.rules.mana_sources(self, p)
            if cost.tap:
                srcs = [s for s in srcs if s.cid != cid]
            if not can_pay(srcs, cost.mana):
                return f"you can't pay {cost.mana.text}"
        if ab.targets and not self._targets_exist(ab.targets, cid, p, ABILITY, ch):
            return "there is no legal target"
        return None

    def _take_priority_action(self, p: int, a: Action) -> None:
        """CR 117.1a: play a land, cast a spell or activate an ability."""
        if a.kind == PLAY:
            if self.cdef[a.obj].types & LAND:
                self._play_land(p, a.obj)
            else:
                self._begin_cast(p, a.obj)
        elif a.kind == ACTIVATE:
            self._begin_activate(p, a.obj, a.arg)

    def _exiled_playable(self, p: int) -> list[int]:
        """The cards in exile that `p` may play now (`Game.playable`): each still the object
        that was exiled, up to its last turn."""
        playable = self.playable
        assert playable is not None
        turn = self.turn
        return [
            cid
            for cid, (oid, seat, last) in playable.items()
            if seat == p and turn <= last and self.zone[cid] == EXILE and self.oid[cid] == oid
        ]

    def _play_land(self, p: int, cid: int) -> None:
        # 305.2: one land per turn; it doesn't use the stack (305.1).
        self.lands_played += 1
        self._move(cid, BATTLEFIELD, controller=p)
        self._log("play_land", p, cid)
        self._etb(cid)
        self.k.append((F_PRIO, p))

    def _begin_cast(self, p: int, cid: int) -> None:
        """CR 601.2: move the card to the stack, announce its mode and X, choose targets
        one at a time, pay."""
        # 702.34a: from the graveyard, cast with flashback; 702.170d: from exile, a plotted
        # card cast without paying its mana cost (one exiled to be played: its usual cost)
        zone = self.zone[cid]
        plot = zone == EXILE and self.plotted is not None and cid in self.plotted
        self._start_cast(p, cid, "flashback" if zone == GRAVEYARD else "plot" if plot else "")

    def _start_cast(self, p: int, cid: int, how: str) -> None:
        """`_begin_cast`, `how` saying which alternative cost is paid if any: "flashback"
        (702.34a) or "madness" (702.35a, cast as its trigger resolves)."""
        cd = self.cdef[cid]
        if how == "plot":
            assert self.plotted is not None
            del self.plotted[cid]  # cast, it is plotted no more (a new object, 400.7)
        self._move(cid, STACK)
        item = StackItem.new(self.oid[cid], SPELL, cid, self.oid[cid], p, cd.spell, -1)
        if how:
            item.info[how] = 1
        self.stack.append(item)
        self.k.append((F_CAST_DONE,))
        self._announce(item)

    def _announce(self, item: StackItem) -> None:
        """CR 601.2b: a modal spell's mode (700.2a: only a mode whose targets exist), then
        whether its kicker is paid (702.33a: offered only when the caster can pay it with
        the rest), then the value of X (107.3a: only a value the caster can pay); then
        targets (601.2c). Each announcement is a choice of the caster's; `item.info`
        keeps what was chosen."""
        cid = item.cid
        p = item.controller
        cd = self.cdef[cid]
        sp = cd.spell
        if sp is not None and sp.modes and "mode" not in item.info:
            src = self.chars(cid)
            ok = tuple(
                i
                for i, m in enumerate(sp.modes)
                if not m.targets or self._targets_exist(m.targets, cid, p, SPELL, src)
            )
            self.ctx = Announce(item, "mode", ok)
            self._set_decision(
                D_CHOICE,
                p,
                cid,
                f"choose one mode of {cd.name}",
                tuple(sp.modes[i].text for i in ok),
            )
            return
        info = item.info
        if (
            cd.alt_sacrifice is not None
            and "alt" not in info
            and not (info.get("flashback") or info.get("madness"))
        ):
            # 601.2b, 118.9: cast from the hand, whether it is for the alternative cost;
            # asked only when both ways can be paid.
            sac = cd.alt_sacrifice
            mana = self._spell_cost(item)
            by_mana = mana is not None and can_pay(self._spell_sources(p, cd), mana)
            by_sac = len(sacrifice_choices(self, p, sac, ())) >= sac.count
            if by_mana and by_sac:
                assert cd.cost is not None
                self._ask_how_to_cast(
                    item,
                    "alt",
                    f"pay its mana cost {cd.cost.text}",
                    f"{sac.text} rather than pay it",
                )
                return
            item.info["alt"] = 0 if by_mana else 1
        if cd.bestow is not None and not cd.bestowed and "bestow" not in info:
            if self._offer_bestow(item, cd.bestow):
                return
            info["bestow"] = 0
        for what, key, extra in (
            ("kicker", "kicked", cd.kicker),
            ("buyback", "buyback", cd.buyback),
        ):
            if extra is not None and key not in item.info:
                if self._offer_optional_cost(item, what, extra):
                    return
                item.info[key] = 0
        # Only a card with {X} printed asks; what is paid is the format's cost of it.
        cost = (
            self._spell_cost(item)
            if cd.cost is not None and cd.cost.x and "x" not in item.info
            else None
        )
        if cost is not None and cost.x:
            cost = self._with_optional_costs(item, cost)  # X is what can be paid beside them
            assert cost is not None
            srcs = self._spell_sources(p, cd)
            top = 0
            while top < MAX_X and can_pay(srcs, cost.with_x(top + 1)):
                top += 1
            self.ctx = Announce(item, "x", tuple(range(top + 1)))
            self._set_decision(
                D_CHOICE,
                p,
                cid,
                f"choose X for {cd.name} (you can pay up to {top})",
                tuple(f"X = {n}" for n in range(top + 1)),
            )
            return
        specs = item.ability.targets if item.ability is not None else spell_targets(cd)
        self.ctx = Targets(item, tuple(specs), F_CAST_DONE)
        self._next_target()

    def _offer_bestow(self, item: StackItem, bestow: ManaCost) -> bool:
        """601.2b: whether a card with bestow is cast for its bestow cost (702.103a), asked
        when the caster can pay it and its Aura form has a creature to enchant (702.103c),
        and no other alternative cost is being paid (118.9a); True when asked."""
        info = item.info
        if info.get("flashback") or info.get("madness") or info.get("plot") or info.get("alt"):
            return False
        cid = item.cid
        p = item.controller
        cd = self.cdef[cid]
        aura = self.cardset.bestowed[cd.name]
        assert aura.enchant is not None
        cost = reduced_cost(self, p, cd, bestow).with_x(0)
        if not can_pay(self._spell_sources(p, cd), cost):
            return False
        if not self._targets_exist((aura.enchant,), cid, p, SPELL, aura):
            return False
        assert cd.cost is not None
        self._ask_how_to_cast(
            item,
            "bestow",
            f"as a creature for its mana cost {cd.cost.text}",
            f"for its bestow cost {bestow.text}, as an Aura",
        )
        return True

    def _ask_how_to_cast(self, item: StackItem, what: str, usual: str, other: str) -> None:
        """601.2b: the caster chooses how spell `item` is cast, for its mana cost (option
        0, `usual`) or an alternative cost (option 1, `other`; 118.9); `item.info[what]`
        keeps the answer (`_announced`)."""
        self.ctx = Announce(item, what, (0, 1))
        name = self.cdef[item.cid].name
        self._set_decision(
            D_CHOICE, item.controller, item.cid, f"how to cast {name}?", (usual, other)
        )

    def _offer_optional_cost(self, item: StackItem, what: str, extra: ManaCost) -> bool:
        """Offer an optional additional cost (kicker, 702.33a; buyback, 702.27a) as the
        spell is cast, when its caster can pay it with the rest (and with a kicker paid
        before it); True when the choice is asked."""
        cd = self.cdef[item.cid]
        p = item.controller
        total = self._spell_cost(item)
        total = extra if total is None else total.with_x(0).plus(extra)
        if what != "kicker":
            total = self._with_optional_costs(item, total)
            assert total is not None
        if not can_pay(self._spell_sources(p, cd), total):
            return False
        self.ctx = Announce(item, what, (0, 1))
        self._set_decision(
            D_CHOICE,
            p,
            item.cid,
            f"pay the {what} cost {extra.text} of {cd.name}?",
            (f"don't pay the {what} cost", f"pay the {what} cost {extra.text}"),
        )
        return True

    def _with_optional_costs(self, item: StackItem, cost: ManaCost | None) -> ManaCost | None:
        """`cost` and the optional additional costs paid for spell `item`: its kicker
        (702.33a), then its buyback (702.27a)."""
        cd = self.cdef[item.cid]
        info = item.info
        for paid, extra in ((info.get("kicked"), cd.kicker), (info.get("buyback"), cd.buyback)):
            if paid and extra is not None:
                cost = extra if cost is None else cost.plus(extra)
        return cost

    def _spell_sources(self, p: int, cd: CardDef) -> list[Source]:
        """What `p` can pay for spell `cd` with: their mana sources, and for a spell with
        convoke their untapped creatures too (702.51a)."""
        srcs = self.rules.mana_sources(self, p)
        return srcs + convoke_sources(self, p, srcs) if cd.convoke else srcs

    def _announced(self, ctx: Announce, value: int) -> None:
        item = ctx.item
        cd = self.cdef[item.cid]
        if ctx.what == "mode":
            assert cd.spell is not None
            item.info["mode"] = value
            item.ability = cd.spell.modes[value]
            self._log("announce", item.controller, item.cid, "mode", value)
        elif ctx.what in ("kicker", "buyback", "alt"):
            item.info["kicked" if ctx.what == "kicker" else ctx.what] = value
            self._log("announce", item.controller, item.cid, ctx.what, value)
        elif ctx.what == "bestow":
            item.info["bestow"] = value
            if value:
                # 702.103a: the spell is an Aura with enchant creature, its card's Aura form
                # until that effect ends (`_end_bestow`, or leaving the stack and battlefield).
                self.cdef[item.cid] = self.cardset.bestowed[cd.name]
            self._log("announce", item.controller, item.cid, "bestow", value)
        elif ctx.what == "extra":
            # The additional cost's permanent or card, chosen as the costs are paid
            # (601.2h); the cast goes on where it paused (`_f_cast_done`).
            item.info["extra"] = value
            return
        elif ctx.what == "sacrifice":
            # One of the permanents an alternative cost sacrifices (118.9), chosen one at
            # a time as the costs are paid; the cast goes on where it paused.
            item.info["sacrificed"] = (*item.info.get("sacrificed", ()), value)
            return
        else:
            item.info["x"] = value
            self._log("announce", item.controller, item.cid, "x", value)
        self._announce(item)

    def _begin_activate(self, p: int, cid: int, idx: int) -> None:
        """CR 602.2: announce, choose targets, pay costs; the ability goes on the stack."""
        ab = activated_at(self.chars(cid), idx)
        perm = self.perm.get(cid) if ab.once_each_turn else None
        if perm is not None:  # (from the hand it is no permanent: the card leaves as a cost)
            perm.used = {**(perm.used or {}), idx: self.turn}  # 602.5b: as it is activated
        item = StackItem.new(self._new_oid(), ABILITY, cid, self.oid[cid], p, ab, idx)
        self.k.append((F_ACT_DONE,))
        self.ctx = Targets(item, tuple(ab.targets), F_ACT_DONE)
        self._next_target()

    def _f_cast_done(self, madness: int = -1, free: int = 0) -> None:
        if madness >= 0:
            # Madness's trigger resolved and its owner casts the card (702.35a), or
            # cascade's and its controller casts the exiled card without paying its mana
            # cost (`free`, 702.85a): the resolution (a lower job) pushed this frame to
            # begin the cast here.
            self._start_cast(self.owner[madness], madness, "free" if free else "madness")
            return
        ctx = self.ctx
        assert isinstance(ctx, Targets | Announce)
        item = ctx.item
        cd = self.cdef[item.cid]
        p = item.controller
        if (cd.sacrifice_types or cd.discard_cost) and "extra" not in item.info:
            # 601.2h: the additional cost is paid with the rest, after the targets; the
            # caster chooses what to give, then this frame runs again.
            choices = extra_cost_choices(self, p, item.cid)
            self.k.append((F_CAST_DONE,))
            self.ctx = Announce(item, "extra", choices)
            if cd.discard_cost:
                self._set_decision(D_DISCARD, p, item.cid, f"discard a card to cast {cd.name}")
            else:
                what = " or ".join(n for b, n in TYPE_NAMES.items() if cd.sacrifice_types & b)
                what = ("an " if what[0] in "aeiou" else "a ") + what
                self._set_decision(D_SELECT, p, item.cid, f"sacrifice {what} to cast {cd.name}")
            return
        sacrifices = cd.alt_sacrifice is not None or cd.flashback_sacrifice is not None
        sac = self._sacrifice_due(item) if sacrifices else None
        chosen: tuple[int, ...] = item.info.get("sacrificed", ()) if sacrifices else ()
        if sac is not None and len(chosen) < sac.count:
            # 601.2h: the permanents an alternative cost sacrifices, one at a time.
            self.k.append((F_CAST_DONE,))
            self.ctx = Announce(item, "sacrifice", sacrifice_choices(self, p, sac, chosen))
            left = sac.count - len(chosen)
            self._set_decision(
                D_SELECT, p, item.cid, f"{sac.text} to cast {cd.name} ({left} to choose)"
            )
            return
        self.ctx = None
        cost = self._spell_cost(item)
        if cost is not None and cost.x:  # 601.2f: X's mana is part of the total cost
            cost = cost.with_x(item.info.get("x", 0))
        cost = self._with_optional_costs(item, cost)  # and the kicker's and buyback's
        if cd.convoke and cost:
            cost = self._convoke(p, cost)
        self._pay_mana(item.controller, cost)
        extra = item.info.get("extra")
        if extra is not None:
            if cd.discard_cost:
                self._discard(p, extra)
            else:
                self._to_graveyard(extra, "sacrificed")
        for c in chosen:
            self._to_graveyard(c, "sacrificed")
        self._log("cast", item.controller, item.cid, tuple(item.targets))
        self._fire_cast(item.controller, cd.types)  # prowess (702.108a), extort (702.101a)
        if self.cardset.cast_self_triggers:
            self._fire_cast_self(item)
        self._targeted(item)
        if not item.info.get("madness"):
            # A spell cast as madness's trigger resolves (702.35a) was cast while no one
            # had priority: the active player gets it once the trigger has resolved (the
            # frame under this one, 117.3b).
            self.rules.after_cast(self, item.controller)

    def _convoke(self, p: int, cost: ManaCost) -> ManaCost:
        """Convoke (CR 702.51a): the automatic payment of `cost` from `p`'s mana sources
        and untapped creatures, creatures last (after every other source but those that
        are sacrificed); the creatures it uses are tapped, each paying {1} or one mana of
        its color. Returns what is left for the mana sources."""
        srcs = self.rules.mana_sources(self, p)
        pay = choose_payment(srcs + convoke_sources(self, p, srcs), cost)
        assert pay is not None  # legality was checked before
        generic = 0
        pips = list(cost.pips)
        tapped: list[int] = []
        for src, color in pay:
            if src.score < CONVOKE_SCORE:
                continue  # a mana source: paid below, as always
            self.perm[src.cid].tapped = True
            tapped.append(src.cid)
            if color:
                pips.remove(color)
            else:
                generic += 1
        if tapped:
            self._log("convoke", p, tuple(tapped))
        return ManaCost(cost.generic - generic, tuple(pips), cost.text, cost.x)

    def _f_act_done(self) -> None:
        ctx = self.ctx
        assert isinstance(ctx, Targets | Announce)
        item = ctx.item
        ab: ActivatedAbility = item.ability
        cid = item.cid
        p = item.controller
        cost = ab.cost
        if cost.plot:
            # 702.170a, 116.2k: a special action, without the stack: the card is exiled
            # and plotted, and its owner gets priority again (116.3c).
            self.ctx = None
            self._pay_mana(p, cost.mana)
            self._move(cid, EXILE)
            assert self.plotted is not None
            self.plotted[cid] = (self.oid[cid], self.turn)
            self._log("plot", p, cid)
            self.k.append((F_PRIO, p))
            return
        given = bool(cost.sac_types) or cost.discard or cost.returned is not None
        if (cost.ninjutsu or given) and "extra" not in item.info:
            # What the cost gives is chosen as the costs are paid (602.2b, 601.2h): the
            # unblocked attacker ninjutsu returns (702.49a), the permanent sacrificed or
            # returned, or the card discarded; then this frame runs again.
            self.k.append((F_ACT_DONE,))
            name = self.cdef[cid].name
            if cost.ninjutsu:
                self.ctx = Announce(item, "extra", unblocked_attackers(self, p))
                prompt = f"return an unblocked attacker to hand for ninjutsu ({name})"
                self._set_decision(D_SELECT, p, cid, prompt)
            elif cost.discard:
                self.ctx = Announce(item, "extra", cost_choices(self, p, cid, cost))
                self._set_decision(D_DISCARD, p, cid, f"discard a card to activate {name}")
            elif cost.returned is not None:
                self.ctx = Announce(item, "extra", cost_choices(self, p, cid, cost))
                prompt = f"return a permanent to its owner's hand to activate {name}"
                self._set_decision(D_SELECT, p, cid, prompt)
            else:
                self.ctx = Announce(item, "extra", cost_choices(self, p, cid, cost))
                self._set_decision(D_SELECT, p, cid, f"sacrifice a permanent to activate {name}")
            return
        self.ctx = None
        self._pay_mana(p, ab.cost.mana, cid if ab.cost.tap else -1)
        if ab.cost.tap:
            self.perm[cid].tapped = True
        if ab.cost.pay_life:
            # 119.4: paying life is losing it (a player at 0 loses at the next check).
            self.life[p] -= ab.cost.pay_life
            self._sba_ok = None
            self._log("pay_life", p, ab.cost.pay_life)
        if ab.cost.sacrifice_self:
            self._to_graveyard(cid, "sacrificed")
        if ab.cost.discard_self:
            self._discard(p, cid)  # 702.29a: cycling discards the card as its cost
        back = item.info.get("extra")
        if back is not None and ab.cost.discard:
            self._discard(p, back)
        elif back is not None and ab.cost.sac_types:
            self._to_graveyard(back, "sacrificed")
        elif back is not None and ab.cost.returned is not None:
            self._move(back, HAND)
            self._log("to_hand", back)
        elif back is not None:
            # 702.49a, 702.49c: the ninja is revealed; it will attack whom the returned
            # creature attacked.
            item.info["defender"] = self.attackers[back]
            self._log("reveal_ninjutsu", p, cid)
            self._move(back, HAND)
            self._log("to_hand", back)
        self.stack.append(item)
        self._log("activate", p, cid, item.ab_index, tuple(item.targets))
        self._targeted(item)
        self.k.append((F_PRIO, self.rules.priority_after(p)))


def reduced_cost(g: GameLike, p: int, cd: CardDef, cost: ManaCost) -> ManaCost:
    """`cost` less the card's cost reductions (CR 601.2f: they reduce only the generic
    part): {1} for each permanent `p` controls of its affinity type (702.41a), and {N}
    when "this spell costs {N} less to cast if you control ..." holds for `p`."""
    if not cost.generic or not (cd.affinity or cd.costs_less):
        return cost
    mine = g._derived().controlled[p]
    n = 0
    if cd.affinity:
        bit = TYPE_BITS.get(cd.affinity, 0)
        for c in mine:
            ch = g.chars(c)
            if ch.types & bit if bit else ch.has_subtype(cd.affinity):
                n += 1
    if cd.costs_less and all(
        any(_controls(g, spec, c, p) for c in mine) for spec in cd.costs_less_if
    ):
        n += cd.costs_less
    return cost.less(n) if n else cost


_KIND_TYPES: Final = {"creature": CREATURE, "land": LAND, "enchantment": ENCHANTMENT}


def _controls(g: GameLike, spec: TargetSpec, cid: int, p: int) -> bool:
    """Whether permanent `cid` (one `p` controls) is of the kind `spec` names."""
    ch = g.chars(cid)
    bit = _KIND_TYPES.get(spec.kind, 0)
    if bit and not ch.types & bit:
        return False
    return matches(spec.filter, ch, cid, -1, p, g.owner[cid])


# Convoke's creatures come after every mana source but those that are sacrificed
# (`derived`'s scores: lands from 0, creatures from 100, sacrificed sources from 200).
CONVOKE_SCORE: Final = 150


def convoke_sources(g: GameLike, p: int, srcs: list[Source]) -> list[Source]:
    """`p`'s untapped creatures as convoke's sources (CR 702.51a): each pays {1} or one
    mana of one of its colors; tapping it is no {T} ability, so a creature that came
    under its control this turn convokes too. A creature that is a mana source already
    is one source, not two."""
    have = {s.cid for s in srcs}
    out: list[Source] = []
    for c in g._derived().controlled[p]:
        ch = g.chars(c)
        if ch.types & CREATURE and not g.perm[c].tapped and c not in have:
            colors = ch.colors & ALL_COLORS
            out.append(Source(c, colors, 0, CONVOKE_SCORE, colors))
    return out


def cost_choices(g: GameLike, p: int, cid: int, cost: Cost) -> tuple[int, ...]:
    """What `p` may give for the cost of `cid`'s ability (CR 602.2b): a card in their hand
    to discard, or a permanent of theirs of one of the cost's types to sacrifice (not
    `cid` itself for "another") or to return to its owner's hand."""
    if cost.returned is not None:
        return sacrifice_choices(g, p, cost.returned, ())
    return _giveable(g, p, cid, cost.discard, cost.sac_types, cost.sac_other)


def sacrifice_choices(
    g: GameLike, p: int, sac: SacCost, chosen: tuple[int, ...]
) -> tuple[int, ...]:
    """The permanents `p` controls that a cost sacrificing `sac` may take (of its card
    type or subtype), those already `chosen` left out, in battlefield order."""
    return tuple(
        c
        for c in g.battlefield
        if (ch := g.chars(c)).controller == p
        and (ch.types & sac.types if sac.types else ch.has_subtype(sac.subtype))
        and c not in chosen
    )


def unblocked_attackers(g: GameLike, p: int) -> tuple[int, ...]:
    """The unblocked attacking creatures `p` controls (CR 509.1h, 506.4): attackers that
    were not blocked, once blockers are declared (from the declare blockers step on)."""
    if g.step not in (DECLARE_BLOCKERS, COMBAT_DAMAGE, END_COMBAT) or not g.attackers:
        return ()
    return tuple(a for a in g.attackers if a not in g.blocked and g.chars(a).controller == p)


def extra_cost_choices(g: GameLike, p: int, cid: int) -> tuple[int, ...]:
    """What `p` may give for spell `cid`'s additional cost (CR 601.2b): a permanent of
    theirs of one of its sacrifice types, or another card in their hand to discard."""
    cd = g.cdef[cid]
    return _giveable(g, p, cid, cd.discard_cost, cd.sacrifice_types, False)


def _giveable(
    g: GameLike, p: int, cid: int, discard: bool, types: int, other: bool
) -> tuple[int, ...]:
    """Another card in `p`'s hand to discard (`discard`), or else a permanent `p` controls
    of one of `types` to sacrifice, `cid` left out with `other`, in battlefield order."""
    if discard:
        return tuple(c for c in g.hand[p] if c != cid)
    return tuple(
        c
        for c in g.battlefield
        if (ch := g.chars(c)).controller == p and ch.types & types and not (other and c == cid)
    )
