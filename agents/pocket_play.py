"""The scripted player's choices in the pocket format (source 003), where a turn is one
main phase with repeated attacks, cards have two halves, mana comes from face-down cards
and reactions have windows. `HeuristicAgent` calls `priority` for every pocket priority
decision; combat declarations, blocks and targets use its shared logic.

The rules of thumb: play a card face down as mana every turn (the least useful one), since
an unspent face-down source is lost at cleanup anyway; then cast the most valuable half
that can be paid for; then attack with what survives the likely blocks; in the opponent's
turn or during an attack use every reaction that does something (mana spent there is
free: it readies at the next READY).
"""

from __future__ import annotations

from typing import Any, Protocol

from mtg_env.engine import Action, Game
from mtg_env.engine.cards import CardDef, StaticAbility, TriggeredAbility
from mtg_env.engine.constants import ATTACK, CREATURE, ENCHANTMENT, PASS, PLAY, STACK
from mtg_env.engine.formats.pocket import pocket_state

from .common import creature_value, creatures, power, toughness
from .heuristic_combat import plan_attack


class Planner(Protocol):
    """What these choices use of the scripted player (agents.heuristic.HeuristicAgent): its
    plans, kept between the steps of one declaration. A protocol, so that this module does
    not import the player that imports it."""

    plan: list[int]
    attack_plan: list[int] | None


PASS_A = Action(PASS)
FACE_DOWN = 2


def _ops(cd: CardDef) -> list[Any]:
    return list(cd.spell.effects) if cd.spell is not None else []


def _damage(cd: CardDef) -> int:
    return sum(o.args["amount"] for o in _ops(cd) if o.name == "damage")


def _left(g: Game, c: int) -> int:
    """Damage still needed to kill creature `c`."""
    return toughness(g, c) - g.perm[c].damage


def half_value(g: Game, p: int, half: CardDef) -> tuple[float, list[int]]:
    """How good playing this half is now, and the planned targets (empty: none needed)."""
    opp = 1 - p
    theirs = creatures(g, opp)
    mine = creatures(g, p)
    if half.types & CREATURE:
        v = (half.power or 0) + (half.toughness or 0)
        if any(isinstance(a, TriggeredAbility) for a in half.abilities):
            v += 1.5
        return v, []
    if half.types & ENCHANTMENT:
        statics = [a for a in half.abilities if isinstance(a, StaticAbility)]
        if not statics:  # a stable mana source
            return 3.0, []
        suit = half.subtypes
        return 1.0 + 1.5 * sum(1 for c in mine if g.chars(c).subtypes & suit), []
    names = {o.name for o in _ops(half)}
    dmg = _damage(half)
    if "damage" in names:
        if any(o.args["to"] == "all_creatures" for o in _ops(half) if o.name == "damage"):
            killed = [c for c in theirs if _left(g, c) <= dmg]
            lost = [c for c in mine if _left(g, c) <= dmg]
            v = sum(creature_value(g, c) for c in killed) - sum(creature_value(g, c) for c in lost)
            return v, []
        kills = [c for c in theirs if _left(g, c) <= dmg]
        if kills:
            best = max(kills, key=lambda c: creature_value(g, c))
            return creature_value(g, best), [best]
        spec = half.spell.targets[0].kind if half.spell and half.spell.targets else ""
        if spec in ("any", "player") and dmg >= g.life[opp]:
            return 100.0, [-1 - opp]
        return 0.0, []
    if "return_to_hand" in names:
        if theirs:
            best = max(theirs, key=lambda c: creature_value(g, c))
            return creature_value(g, best) - 1.0, [best]
        return 0.0, []
    if "tap" in names:
        ready = [c for c in theirs if not g.perm[c].tapped]
        if ready and mine:
            return 1.0, [max(ready, key=lambda c: power(g, c))]
        return 0.0, []
    if "add_counter" in names and mine:
        return 2.0, [max(mine, key=lambda c: creature_value(g, c))]
    if "draw" in names:
        return 1.2 * sum(o.args["count"] for o in _ops(half) if o.name == "draw"), []
    if "gain_life" in names:
        return (3.0 if g.life[p] <= 10 else 0.5), []
    if "create_token" in names:
        return 2.5, []
    return 0.0, []  # pumps outside combat: not worth a card


def priority(agent: Planner, g: Game, p: int, legal: list[Action]) -> Action:
    agent.plan = []
    w = pocket_state(g).window
    if w is not None:
        return _react(agent, g, p, legal, w)
    casts = [a for a in legal if a.kind == PLAY and a.arg != FACE_DOWN]
    mana = [a for a in legal if a.kind == PLAY and a.arg == FACE_DOWN]
    if mana and len(g.hand[p]) >= 2:
        # The card to put face down is the one whose loss leaves the best cast with one
        # more mana (unspent face-down sources are lost at cleanup: mana is for spending).
        n = len(g.mana_sources(p)) + 1

        def after(a: Action) -> tuple[float, float]:
            rest = [c for c in g.hand[p] if c != a.obj]
            best = max(
                (
                    half_value(g, p, h)[0]
                    for c in rest
                    for h in g.cdef[c].halves
                    if not h.reaction and g.cost_of(p, h).mv <= n
                ),
                default=0.0,
            )
            own = max(half_value(g, p, h)[0] for h in g.cdef[a.obj].halves)
            return (best, -own)

        return max(mana, key=lambda a: (after(a), -a.obj))
    best: tuple[float, Action | None, list[int]] = (0.5, None, [])
    for a in casts:
        v, targets = half_value(g, p, g.cdef[a.obj].halves[a.arg])
        if v > best[0]:
            best = (v, a, targets)
    if best[1] is not None:
        agent.plan = list(best[2])
        return best[1]
    able = [a.obj for a in legal if a.kind == ATTACK]
    if able:
        plan = plan_attack(g, p, able)
        if plan:
            agent.attack_plan = plan[1:]
            return Action(ATTACK, plan[0], 1 - p)
    return PASS_A


def _react(agent: Planner, g: Game, p: int, legal: list[Action], w: str) -> Action:
    opp = 1 - p
    fighting = set(g.attackers) | set(g.blockers)
    for a in legal:
        if a.kind != PLAY:
            continue
        half = g.cdef[a.obj].halves[a.arg]
        names = {o.name for o in _ops(half)}
        if "counter" in names:
            top = g.stack[-1] if g.stack else None
            if top is not None and g.zone[top.cid] == STACK:
                cd = g.cdef[top.cid]
                big = (cd.types & CREATURE and (cd.power or 0) + (cd.toughness or 0) >= 6) or (
                    cd.types & ENCHANTMENT
                )
                if big:
                    agent.plan = [top.cid]
                    return a
            continue
        if "damage" in names:
            dmg = _damage(half)
            pool = [c for c in creatures(g, opp) if w == "cast" or c in fighting]
            kills = [c for c in pool if _left(g, c) <= dmg]
            if kills:
                agent.plan = [max(kills, key=lambda c: creature_value(g, c))]
                return a
            continue
        if "pump" in names:
            mine = [c for c in creatures(g, p) if c in fighting]
            if mine:
                agent.plan = [max(mine, key=lambda c: creature_value(g, c))]
                return a
            continue
        if names & {"draw", "create_token"}:
            return a
    return PASS_A
