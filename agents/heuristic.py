"""A strong scripted player for the classic format.

It plays a land every turn (the colors its hand needs), spends its mana on the best
castable spell, attacks when the race or the trades favour it, blocks to prevent lethal
and to make good trades (chump-blocking only to survive), burns face when that is lethal
and otherwise removes the best threat, uses pump spells and flash creatures in combat,
counters big threats, and pings at the end of the opponent's turn. Multi-step actions
(targets, blocker-then-attacker picks) are planned once and then carried out.

It picks cards by what they do (`agents.roles`: effects, targets, keywords and static
abilities read from the card data), never by name, so it plays any card set; which plan
runs depends on the format's turn structure (dispatch on the format class). What it values,
without state (cards, spells, effects, what to keep), is `agents.heuristic_scores`; its
attack and block plans are `agents.heuristic_combat`; this module keeps the player and the
plans it carries between the steps of one action.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import singledispatch
from typing import Any

from mtg_env.engine import Action, Game
from mtg_env.engine.cards import ActivatedAbility, StaticAbility
from mtg_env.engine.constants import (
    ACTIVATE,
    ATTACK,
    BATTLEFIELD,
    BLOCK,
    BLOCKER,
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
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    END,
    LAND,
    MAIN1,
    MAIN2,
    PLAY,
    STACK,
    TARGET,
    player_ref,
)
from mtg_env.engine.decisions import Announce, Targets
from mtg_env.engine.formats import Adventure, Format, Pocket
from mtg_env.engine.objects import SPELL

from . import pocket_play, roles
from .common import (
    EngineAgent,
    creatures,
    power,
    toughness,
)
from .heuristic_combat import plan_attack, plan_blocks
from .heuristic_scores import (
    HARMFUL,
    PASS_A,
    activated,
    best_land,
    creature_value,
    damage_amount,
    def_value,
    dies_to,
    discard,
    doomed,
    fight_pair,
    indestructible,
    item_ops,
    keep_on_top,
    max_x,
    mulligan,
    score_def,
    select,
    spell_score,
    target_new_effects,
    targetable,
)

Plan = Callable[[Any, Game, int, list[Action]], Action]


# How the player takes priority, and how it defends on the opponent's turn, by the
# format's turn structure (dispatch on the format class, so a format derived from one of
# these plays like it).
@singledispatch
def _turn_plan(fmt: Format) -> Plan:
    return HeuristicAgent._priority_in_turn


@_turn_plan.register
def _(fmt: Pocket) -> Plan:
    return pocket_play.priority


@singledispatch
def _defence(fmt: Format) -> Plan:
    return HeuristicAgent._defend_in_steps


@_defence.register
def _(fmt: Adventure) -> Plan:
    return HeuristicAgent._defend_in_phases


class HeuristicAgent(EngineAgent):
    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.plan: list[int] = []  # planned targets, in order
        self.attack_plan: list[int] | None = None
        self.block_plan: dict[int, int] | None = None

    def reset(self) -> None:
        self.plan = []
        self.attack_plan = None
        self.block_plan = None

    # ------------------------------------------------------------------ dispatch

    def choose(self, g: Game) -> Action:
        d = g.decision
        assert d is not None
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        k = d.kind
        p = d.player
        if k == D_PRIORITY:
            a = self._priority(g, p, legal)
        elif k == D_TARGET:
            a = self._target(g, p, legal)
        elif k == D_ATTACKERS:
            a = self._attack(g, p, legal)
        elif k in (D_BLOCKERS, D_BLOCK_TARGET):
            a = self._block(g, p, legal)
        elif k == D_MULLIGAN:
            a = mulligan(g, p)
        elif k in (D_BOTTOM, D_DISCARD):
            a = discard(g, p, legal)
        elif k == D_SELECT:
            a = select(g, p, legal)
        elif k == D_CHOICE:
            a = self._choice(g, d, legal)
        elif k == D_TRIGGER_ORDER:
            a = legal[0]
        else:  # pragma: no cover
            a = legal[0]
        if a not in legal:  # a plan that went stale: fall back safely
            a = PASS_A if PASS_A in legal else legal[0]
        return a

    # ------------------------------------------------------------------ mulligan, discard

    def _choice(self, g: Game, d: Any, legal: list[Action]) -> Action:
        if isinstance(g.ctx, Announce):
            return self._announce(g, d.player, g.ctx)
        opts = [o.lower() for o in d.options]
        if (
            len(opts) >= 2
            and opts[0].endswith(" on top")
            and opts[1].endswith((" on the bottom", " into the graveyard"))
        ):
            return Action(CHOOSE, 0, 0 if keep_on_top(g, d) else 1)
        if "yes" in opts:
            return Action(CHOOSE, 0, opts.index("yes"))
        for i, o in enumerate(opts):
            if o.startswith("pay"):
                return Action(CHOOSE, 0, i)
        return legal[0]

    def _announce(self, g: Game, p: int, ctx: Announce) -> Action:
        """A spell being cast: its mode (CR 700.2a), then X (107.3a). The mode: one that
        counters when an opponent's spell is on the stack below it, else the best scored
        (targets planned with it); X: just enough to kill the planned creature target of a
        damage or -X/-X spell, otherwise all it can pay. A kicker it can pay is paid (it is
        offered only then, CR 702.33a): the kicked spell does more."""
        item = ctx.item
        cid = item.cid
        cd = g.cdef[cid]
        if ctx.what == "kicker":
            return Action(CHOOSE, 0, ctx.choices.index(1))
        if ctx.what == "mode":
            assert cd.spell is not None
            below = [s for s in g.stack if s is not item]
            theirs = bool(below) and below[-1].controller != p and below[-1].kind == SPELL
            best, best_i, plan = -2.0, 0, list[int]()
            for i, mode in enumerate(ctx.choices):
                ops = cd.spell.modes[mode].effects
                if theirs and any(o.name in ("counter", "counter_unless_pay") for o in ops):
                    self.plan = [below[-1].cid]
                    return Action(CHOOSE, 0, i)
                var = roles.variants(cd, max_x(g, p, cd))[mode][1]
                score, targets = score_def(g, p, cid, var, g.step == MAIN2)
                if score > best:
                    best, best_i, plan = score, i, targets
            self.plan = plan
            return Action(CHOOSE, 0, best_i)
        top = ctx.choices[-1]
        ops = roles.with_x(item.ability.effects if item.ability is not None else (), top)
        shrink = [o for o in ops if (o.name == "damage" and o.args["to"] == "target")]
        shrink += [o for o in ops if o.name == "pump" and o.args["toughness"] < 0]
        t = self.plan[0] if self.plan else -1
        if shrink and t >= 0 and g.zone[t] == BATTLEFIELD and g.chars(t).types & CREATURE:
            need = toughness(g, t) - (g.perm[t].damage if shrink[0].name == "damage" else 0)
            if 0 <= need <= top:
                return Action(CHOOSE, 0, ctx.choices.index(max(need, 0)))
        return Action(CHOOSE, 0, len(ctx.choices) - 1)

    # ------------------------------------------------------------------ priority

    def _priority(self, g: Game, p: int, legal: list[Action]) -> Action:
        return _turn_plan(g.rules)(self, g, p, legal)

    def _priority_in_turn(self, g: Game, p: int, legal: list[Action]) -> Action:
        """Priority in a turn of steps or phases (classic, adventure)."""
        self.plan = []
        if g.stack:
            return self._respond(g, p, legal)
        my_turn = g.active == p
        step = g.step
        if my_turn and step in (MAIN1, MAIN2):
            lands_ = [a for a in legal if a.kind == PLAY and g.cdef[a.obj].types & LAND]
            if lands_:
                return best_land(g, p, lands_)
            a = self._best_spell(g, p, legal, main2=step == MAIN2)
            if a is not None:
                return a
            a = self._best_activation(g, p, legal, sorcery=True)
            if a is not None:
                return a
            return PASS_A
        # The window after blocks and before damage (the format's `after_blocks` step).
        if my_turn and step == g.rules.after_blocks:
            a = self._combat_trick(g, p, legal, attacking=True)
            if a is not None:
                return a
        if not my_turn:
            return _defence(g.rules)(self, g, p, legal)
        return PASS_A

    def _defend_in_steps(self, g: Game, p: int, legal: list[Action]) -> Action:
        """The opponent's turn in CR 500's steps."""
        step = g.step
        if step == DECLARE_ATTACKERS and g.attackers:
            a = self._defend_instant(g, p, legal)
            if a is not None:
                return a
        if step == DECLARE_BLOCKERS:
            a = self._combat_trick(g, p, legal, attacking=False)
            if a is not None:
                return a
        if step == END:
            a = self._end_of_turn(g, p, legal)
            if a is not None:
                return a
        return PASS_A

    def _defend_in_phases(self, g: Game, p: int, legal: list[Action]) -> Action:
        """The opponent's turn in source 004's six phases."""
        step = g.step
        if step == COMBAT_DAMAGE:
            a = self._combat_trick(g, p, legal, attacking=False) or self._defend_instant(
                g, p, legal
            )
            if a is not None:
                return a
        if step == MAIN1 and g.passes == 1:
            # Flash blockers go down before the attack: there is no window between
            # ATTACKERS and BLOCKERS.
            a = self._defend_instant(g, p, legal)
            if a is not None:
                return a
        # No priority at END: the last window of the opponent's turn is BATTLE, or MAIN
        # once the active player has passed; the pool refills at our DRAW anyway.
        if step == COMBAT_DAMAGE or (step == MAIN1 and g.passes == 1):
            a = self._end_of_turn(g, p, legal)
            if a is not None:
                return a
        return PASS_A

    # ------------------------------------------------------------------ casting

    def _best_spell(self, g: Game, p: int, legal: list[Action], main2: bool) -> Action | None:
        best: tuple[float, Action, list[int]] | None = None
        seen: set[str] = set()
        for a in legal:
            if a.kind != PLAY or g.cdef[a.obj].types & LAND:
                continue
            name = g.cdef[a.obj].name
            if name in seen:
                continue
            seen.add(name)
            score, targets = spell_score(g, p, a.obj, main2)
            if score > 0 and (best is None or score > best[0]):
                best = (score, a, targets)
        if best is None and not main2:
            # Nothing worth casting before combat: creatures too (they can't attack anyway).
            return None
        if best is None:
            # In main 2 also cast the creatures held back before combat.
            for a in legal:
                if (
                    a.kind == PLAY
                    and g.cdef[a.obj].types & CREATURE
                    and not (g.cdef[a.obj].enters_as_copy)
                ):
                    return a
            return None
        self.plan = list(best[2])
        return best[1]

    def _best_activation(
        self, g: Game, p: int, legal: list[Action], sorcery: bool
    ) -> Action | None:
        opp = 1 - p
        for a in legal:
            if a.kind != ACTIVATE:
                continue
            ab = activated(g, a)
            if roles.equips(ab):
                mine = [c for c in creatures(g, p) if g.perm[a.obj].attached != c]
                pingers = [c for c in mine if roles.has_pinger(g.chars(c).abilities)]
                if g.perm[a.obj].attached < 0 and mine:
                    t = pingers[0] if pingers else max(mine, key=lambda c: creature_value(g, c))
                    self.plan = [t]
                    return a
            dmg = roles.damages_target_creature(ab)
            if dmg:
                kills = [
                    c
                    for c in creatures(g, opp)
                    if toughness(g, c) - g.perm[c].damage <= dmg
                    and targetable(g, c, p)
                    and not indestructible(g, c)
                ]
                if kills:
                    self.plan = [max(kills, key=lambda c: creature_value(g, c))]
                    return a
            kinds = roles.steals_subtype(ab)
            if kinds:
                vamps = [
                    c
                    for c in creatures(g, opp)
                    if any(g.chars(c).has_subtype(k) for k in kinds) and targetable(g, c, p)
                ]
                if vamps:
                    self.plan = [max(vamps, key=lambda c: creature_value(g, c))]
                    return a
            if roles.copies_own_creature(ab):
                mine = [c for c in creatures(g, p) if not g.chars(c).supertypes & 2]
                if mine:
                    self.plan = [max(mine, key=lambda c: creature_value(g, c))]
                    return a
        return None

    # ------------------------------------------------------------------ instant speed

    def _respond(self, g: Game, p: int, legal: list[Action]) -> Action:
        top = g.stack[-1]
        if top.controller == p:
            return PASS_A
        counters = [a for a in legal if a.kind == PLAY and roles.counters_spells(g.cdef[a.obj])]
        if counters and top.kind == SPELL:
            cd = g.cdef[top.cid]
            dmg = damage_amount(item_ops(g, top))
            targets_mine = any(
                r >= 0 and g.zone[r] == 2 and g.chars(r).controller == p for r, _ in top.targets
            )
            if (
                cd.mv >= 4
                or (dmg and dmg >= g.life[p])
                or (cd.types & CREATURE and def_value(cd) >= 8)
                or (targets_mine and roles.removal_worth_countering(cd))
            ):
                self.plan = [top.cid]
                return counters[0]
        # Save a creature from damage with a pump spell.
        ops = item_ops(g, top)
        dmg = damage_amount(ops)
        if dmg:
            for r, _ in top.targets:
                if r >= 0 and g.zone[r] == 2 and g.chars(r).controller == p:
                    left = toughness(g, r) - g.perm[r].damage
                    if left <= dmg and not indestructible(g, r):
                        for a in legal:
                            bonus = roles.pump(g.cdef[a.obj]) if a.kind == PLAY else 0
                            if bonus and left + bonus > dmg:
                                self.plan = [r]
                                return a
        # Save a creature from a removal spell or ability with hexproof: the target
        # becomes illegal and the removal does nothing to it.
        shields = [a for a in legal if a.kind == PLAY and roles.grants_hexproof(g.cdef[a.obj])]
        if shields:
            lost = [r for r, _ in top.targets if doomed(g, p, top, r, ops, dmg)]
            if lost:
                self.plan = [max(lost, key=lambda c: creature_value(g, c))]
                return shields[0]
        return PASS_A

    def _combat_trick(self, g: Game, p: int, legal: list[Action], attacking: bool) -> Action | None:
        plays = [a for a in legal if a.kind == PLAY]
        pumps = [a for a in plays if roles.pump(g.cdef[a.obj])]
        burns = [a for a in plays if roles.burn(g.cdef[a.obj])]
        humbles = [a for a in plays if roles.shrinks(g.cdef[a.obj])]
        fogs = [a for a in plays if roles.fogs(g.cdef[a.obj])]
        bonus = roles.pump(g.cdef[pumps[0].obj]) if pumps else 0
        if not attacking:
            unblocked = sum(power(g, a) for a in g.attackers if a not in g.blocked)
            if fogs and unblocked >= g.life[p]:
                return fogs[0]
        if attacking and pumps:
            # Lethal with a pump on an unblocked attacker (double strike counts twice)?
            opp_life = g.life[1 - p]
            unblocked = [a for a in g.attackers if a not in g.blocked and g.zone[a] == 2]

            def dealt(c: int, bonus: int) -> int:
                n = 2 if "double_strike" in g.chars(c).keywords and not g.fs_participants else 1
                return (power(g, c) + bonus) * n

            base = sum(dealt(c, 0) for c in unblocked)
            if unblocked and base < opp_life:
                best = max(unblocked, key=lambda c: dealt(c, bonus) - dealt(c, 0))
                if base - dealt(best, 0) + dealt(best, bonus) >= opp_life:
                    self.plan = [best]
                    return pumps[0]
        # fights: (mine, theirs)
        fights: list[tuple[int, int]] = []
        for b, a in g.blockers.items():
            if attacking:
                fights.append((a, b))
            else:
                fights.append((b, a))
        for mine, theirs in fights:
            if g.zone[mine] != 2 or g.zone[theirs] != 2:
                continue
            my_p, my_t = power(g, mine), toughness(g, mine) - g.perm[mine].damage
            th_p, th_t = power(g, theirs), toughness(g, theirs) - g.perm[theirs].damage
            dies = dies_to(g, mine, my_t, theirs, th_p)
            kills = dies_to(g, theirs, th_t, mine, my_p)
            if (
                dies
                and pumps
                and th_p < my_t + bonus
                and "deathtouch" not in g.chars(theirs).keywords
            ):
                self.plan = [mine]
                return pumps[0]
            if dies and not kills and burns and targetable(g, theirs, p):
                if th_t <= roles.burn(g.cdef[burns[0].obj]) and not indestructible(g, theirs):
                    self.plan = [theirs]
                    return burns[0]
            if dies and humbles and targetable(g, theirs, p):
                self.plan = [theirs]
                return humbles[0]
        return None

    def _defend_instant(self, g: Game, p: int, legal: list[Action]) -> Action | None:
        for a in legal:
            if (
                a.kind == PLAY
                and "flash" in g.cdef[a.obj].keywords
                and g.cdef[a.obj].types & (CREATURE)
            ):
                return a
        attackers = [a for a in g.attackers if g.zone[a] == 2]
        if not attackers:
            return None
        big = max(attackers, key=lambda c: creature_value(g, c))
        # An attacker our spells can target and that destroy and damage can kill.
        mortal = targetable(g, big, p) and not indestructible(g, big)
        for a in legal:
            if a.kind != PLAY:
                continue
            cd = g.cdef[a.obj]
            spared = roles.destroy_target_creature(cd)
            if spared is not None and not g.chars(big).colors & spared and mortal:
                self.plan = [big]
                return a
            if (
                roles.bounces_target_creature(cd)
                and creature_value(g, big) >= 4
                and targetable(g, big, p)
            ):
                self.plan = [big]
                return a
            dmg = roles.burn(cd)
            if dmg:
                ok = [
                    c
                    for c in attackers
                    if toughness(g, c) - g.perm[c].damage <= dmg
                    and targetable(g, c, p)
                    and not indestructible(g, c)
                ]
                if ok:
                    self.plan = [max(ok, key=lambda c: creature_value(g, c))]
                    return a
            if (
                roles.exiles_target_permanent(cd)
                and creature_value(g, big) >= 4
                and targetable(g, big, p)
                and not g.chars(big).prot & cd.colors
                and roles.life_loss(roles.spell_ops(cd), "you") < g.life[p]
            ):
                self.plan = [big]
                return a
            boost = roles.fight_boost(cd)
            if boost is not None:
                # An instant fight: one of ours kills an attacker.
                _, pair = fight_pair(g, p, creatures(g, p), attackers, boost, cd.colors)
                if pair:
                    self.plan = pair
                    return a
        return None

    def _end_of_turn(self, g: Game, p: int, legal: list[Action]) -> Action | None:
        opp = 1 - p
        for a in legal:
            if a.kind == ACTIVATE and roles.pings(activated(g, a)):
                kills = [
                    c
                    for c in creatures(g, opp)
                    if toughness(g, c) - g.perm[c].damage <= 1
                    and targetable(g, c, p)
                    and not indestructible(g, c)
                ]
                self.plan = (
                    [max(kills, key=lambda c: creature_value(g, c))] if kills else [player_ref(opp)]
                )
                return a
            if (
                a.kind == ACTIVATE
                and isinstance(activated(g, a), ActivatedAbility)
                and any(o.name == "create_token" for o in activated(g, a).effects)
            ):
                return a
        for a in legal:
            if a.kind == PLAY and roles.instant_tokens(g.cdef[a.obj]):
                return a
            if a.kind == PLAY and roles.burn(g.cdef[a.obj]):
                if roles.burn(g.cdef[a.obj]) >= g.life[opp]:
                    self.plan = [player_ref(opp)]
                    return a
        for a in legal:
            # Drain the opponent (life loss, valued as damage to their face) with mana
            # that would go unused.
            if a.kind == ACTIVATE and roles.drains_opponent(activated(g, a)):
                self.plan = [player_ref(opp)]
                return a
        return None

    # ------------------------------------------------------------------ targets

    def _target(self, g: Game, p: int, legal: list[Action]) -> Action:
        while self.plan:
            t = self.plan.pop(0)
            a = Action(TARGET, t)
            if a in legal:
                return a
        item = g.ctx.item if isinstance(g.ctx, Targets) else None
        harmful = True
        names: set[str] = set()
        if item is not None:
            if item.kind == SPELL and g.cdef[item.cid].enchant is not None:
                harmful = False
                for ab in g.cdef[item.cid].abilities:
                    if isinstance(ab, StaticAbility) and (
                        ab.rules or any(c.op == "control" for c in ab.components)
                    ):
                        harmful = True
            else:
                ops = item_ops(g, item)
                names = {o.name for o in ops}
                harmful = bool(names & HARMFUL) or any(
                    o.name == "pump" and o.args["power"] < 0 for o in ops
                )
                if names & {"fight", "lose_life", "exile"}:
                    a = target_new_effects(g, p, legal, item, tuple(ops))
                    if a is not None:
                        return a
        opp = 1 - p
        # Destroy and damage do nothing to an indestructible creature: any other target
        # of the opponent's first.
        futile = harmful and bool(names) and names <= {"damage", "destroy", "gain_life"}

        def score(a: Action) -> float:
            if a is PASS_A or a == PASS_A:
                return 0.0  # "up to N targets": choosing no more is worth nothing either way
            r = a.obj
            if r < 0:
                return 5.0 if (r == player_ref(opp)) == harmful else -5.0
            if g.zone[r] == STACK:
                return 1.0 if harmful and g.controller(r) == opp else -1.0
            if g.zone[r] != 2:
                return float(def_value(g.cdef[r]))
            ch = g.chars(r)
            v = creature_value(g, r) if ch.types & CREATURE else 1.0
            ours = ch.controller == p
            if futile and not ours and "indestructible" in ch.keywords:
                return 0.1
            return v if ours != harmful else -v

        return max(legal, key=lambda a: (score(a), -a.obj))

    # ------------------------------------------------------------------ combat

    def _attack(self, g: Game, p: int, legal: list[Action]) -> Action:
        if self.attack_plan is None or not g.attackers:
            self.attack_plan = plan_attack(g, p, [a.obj for a in legal if a.kind == ATTACK])
        while self.attack_plan:
            c = self.attack_plan.pop(0)
            a = Action(ATTACK, c, 1 - p)
            if a in legal:
                return a
        self.attack_plan = None
        return PASS_A

    def _block(self, g: Game, p: int, legal: list[Action]) -> Action:
        if self.block_plan is None or (
            not g.blockers and g.decision.kind == D_BLOCKERS and (self._block_started is False)
        ):
            self.block_plan = plan_blocks(g, p)
            self._block_started = True
        d = g.decision
        if d is not None and d.kind == D_BLOCK_TARGET:
            b = g.ctx.blocker
            a = self.block_plan.get(b)
            act = Action(BLOCK, a) if a is not None else None
            if act in legal:
                del self.block_plan[b]
                return act
            return legal[0]
        for b in list(self.block_plan):
            act = Action(BLOCKER, b)
            if act in legal:
                return act
            del self.block_plan[b]
        self.block_plan = None
        self._block_started = False
        return PASS_A if PASS_A in legal else legal[0]

    _block_started = False
