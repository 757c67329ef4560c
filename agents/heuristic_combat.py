"""The scripted player's combat plans (agents.heuristic.HeuristicAgent): which creatures
attack and which block what, as pure functions of the game and the seat."""

from __future__ import annotations

from mtg_env.engine import Game

from .common import (
    creatures,
    lands,
    power,
    toughness,
)
from .heuristic_scores import creature_value, dies_to


def can_block(g: Game, b: int, a: int) -> bool:
    akw = g.chars(a).keywords
    bkw = g.chars(b).keywords
    if "flying" in akw and not ({"flying", "reach"} & bkw):
        return False
    if g.chars(b).colors & g.chars(a).prot:
        return False
    if "cant_block" in g.chars(b).rules:
        return False
    return not (
        "islandwalk" in akw
        and any("Island" in g.chars(c).subtypes for c in lands(g, g.chars(b).controller))
    )


def plan_attack(g: Game, p: int, able: list[int]) -> list[int]:
    opp = 1 - p
    blockers = [c for c in creatures(g, opp) if not g.perm[c].tapped]
    # Lethal: what can't be blocked, plus everything if they have few blockers.
    evasive = [a for a in able if not any(can_block(g, b, a) for b in blockers)]
    if sum(power(g, a) for a in evasive) >= g.life[opp]:
        return able
    total = sum(power(g, a) for a in able)
    if (
        total - sum(sorted((power(g, a) for a in able), reverse=True)[: len(blockers)])
        >= (g.life[opp])
    ):
        return able
    plan = []
    for a in sorted(able, key=lambda c: -creature_value(g, c)):
        ap, at = power(g, a), toughness(g, a)
        if ap <= 0:
            continue
        bad = False
        for b in blockers:
            if not can_block(g, b, a):
                continue
            bp, bt = power(g, b), toughness(g, b)
            a_dies = dies_to(g, a, at, b, bp)
            b_dies = dies_to(g, b, bt, a, ap)
            if "first_strike" in g.chars(a).keywords and b_dies:
                a_dies = False
            if a_dies and not b_dies:
                bad = True
                break
            if a_dies and b_dies and creature_value(g, a) > creature_value(g, b) + 1:
                bad = True
                break
        if not bad:
            plan.append(a)
    # Don't leave yourself dead to the crack-back.
    their_power = sum(power(g, c) for c in creatures(g, opp))
    staying = [c for c in creatures(g, p) if c not in plan or "vigilance" in g.chars(c).keywords]
    absorbed = sum(sorted((power(g, c) for c in creatures(g, opp)), reverse=True)[: len(staying)])
    if their_power - absorbed >= g.life[p] and plan:
        keep = sorted(plan, key=lambda c: creature_value(g, c))
        while (
            keep
            and their_power
            - sum(
                sorted((power(g, c) for c in creatures(g, opp)), reverse=True)[: len(staying) + 1]
            )
            >= g.life[p]
        ):
            staying.append(keep.pop(0))
        plan = [c for c in plan if c not in staying or "vigilance" in g.chars(c).keywords]
    return plan


def plan_blocks(g: Game, p: int) -> dict[int, int]:
    attackers = sorted(g.attackers, key=lambda a: -power(g, a))
    free = [
        c
        for c in creatures(g, p)
        if not g.perm[c].tapped and "cant_block" not in (g.chars(c).rules)
    ]
    plan: dict[int, int] = {}
    incoming = sum(
        power(g, a) * (2 if "double_strike" in g.chars(a).keywords else 1) for a in attackers
    )
    for a in attackers:
        ap, at = power(g, a), toughness(g, a)
        best = None
        best_score = 0.0
        for b in free:
            if b in plan or not can_block(g, b, a):
                continue
            bp, bt = power(g, b), toughness(g, b)
            b_dies = dies_to(g, b, bt, a, ap)
            a_dies = dies_to(g, a, at, b, bp)
            if "first_strike" in g.chars(a).keywords and a_dies and b_dies and ap >= bt:
                a_dies = False
            score = 0.0
            if a_dies and not b_dies:
                score = 10 + creature_value(g, a)
            elif a_dies and b_dies and creature_value(g, a) >= creature_value(g, b):
                score = 5 + creature_value(g, a) - creature_value(g, b)
            elif not b_dies:
                score = 2.0  # free block
            if score > best_score:
                best, best_score = b, score
        if best is not None:
            plan[best] = a
            incoming -= ap
    # Chump only to survive.
    if incoming >= g.life[p]:
        for a in attackers:
            if a in plan.values() or incoming < g.life[p]:
                continue
            chumps = [b for b in free if b not in plan and can_block(g, b, a)]
            if chumps:
                b = min(chumps, key=lambda c: creature_value(g, c))
                plan[b] = a
                incoming -= power(g, a)
    # Menace attackers need two blockers: drop single blocks on them.
    for a in attackers:
        if "menace" in g.chars(a).keywords:
            bs = [b for b, x in plan.items() if x == a]
            if len(bs) == 1:
                del plan[bs[0]]
    return plan
