"""Why an action is illegal: the message of `IllegalActionError` (names the rule)."""

from __future__ import annotations

from typing import Final

from . import combat as cb
from .constants import (
    ACTION_NAMES,
    ACTIVATE,
    ATTACK,
    BATTLEFIELD,
    BLOCK,
    BLOCKER,
    CARD,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    D_PRIORITY,
    D_TARGET,
    DECISION_NAMES,
    EXILE,
    GRAVEYARD,
    HAND,
    INSTANT,
    LAND,
    MAIN1,
    MAIN2,
    PASS,
    PLAY,
    TARGET,
)
from .decisions import BlockTarget
from .log import describe_action
from .mana import can_pay
from .objects import Action, activated_at
from .priority import extra_cost_choices, reduced_cost, sacrifice_choices
from .protocol import GameLike

_KINDS: Final = {
    D_PRIORITY: "pass, play or activate",
    D_ATTACKERS: "attack or pass (done)",
    D_BLOCKERS: "blocker or pass (done)",
    D_BLOCK_TARGET: "block",
    D_TARGET: "target",
}


def why_illegal(g: GameLike, a: Action) -> str:
    d = g.decision
    if d is None:
        return "no decision is pending"
    try:
        label = describe_action(g, a)
    except Exception:
        label = repr(a)
    head = f"illegal action {label!r} at a {DECISION_NAMES[d.kind]} decision of player {d.player}"
    reason = _reason(g, a)
    legal_kinds = sorted({ACTION_NAMES[x.kind] for x in g.legal_actions()})
    if reason:
        return f"{head}: {reason}"
    return f"{head}: not among the legal actions (legal kinds now: {', '.join(legal_kinds)})"


def _reason(g: GameLike, a: Action) -> str:
    d = g.decision
    assert d is not None
    p = d.player
    k = a.kind
    n = len(g.cdef)
    if k in (PLAY, ACTIVATE, ATTACK, BLOCKER, BLOCK, CARD) and not 0 <= a.obj < n:
        return f"there is no card with id {a.obj}"
    if d.kind == D_PRIORITY and k == PLAY:
        cid = a.obj
        cd = g.cdef[cid]
        flashback = g.zone[cid] == GRAVEYARD and cd.flashback is not None
        plotted = g.zone[cid] == EXILE and cid in (g.plotted or {})
        exiled = g.zone[cid] == EXILE and cid in (g.playable or {})
        if exiled:
            oid, seat, last = (g.playable or {})[cid]
            if seat != p or g.oid[cid] != oid or g.turn > last:
                return f"{cd.name} is in exile, and you may not play it now"
        elif (g.zone[cid] != HAND and not flashback and not plotted) or g.owner[cid] != p:
            return f"{cd.name} is not in your hand"
        main = g.active == p and g.step in (MAIN1, MAIN2) and not g.stack
        if plotted and (not main or (g.plotted or {})[cid][1] >= g.turn):
            return (
                f"{cd.name} is plotted: it can be cast only in your main phase with an empty "
                "stack, on a later turn than it was plotted (CR 702.170d)"
            )
        if cd.types & LAND:
            if g.lands_played >= 1:
                return "you have already played a land this turn (CR 305.2)"
            if not main:
                return (
                    "a land can be played only in your main phase when the stack is empty "
                    "and you have priority (CR 305.2, 505.5b)"
                )
            return ""
        if not (main or cd.types & INSTANT or "flash" in g.chars(cid).keywords):
            return (
                f"{cd.name} can be cast only at sorcery speed: in your main phase with an "
                "empty stack (CR 307.1); only instants and spells with flash (CR 702.8a) "
                "can be cast now"
            )
        cost = cd.flashback if flashback else None if plotted else cd.cost
        cost = None if cost is None else reduced_cost(g, p, cd, cost)
        sac = cd.flashback_sacrifice if flashback else None
        if sac is not None and len(sacrifice_choices(g, p, sac, ())) < sac.count:
            return f"you can't {sac.text} for its flashback cost (CR 702.34a, 601.2h)"
        if cost is not None and not can_pay(g.mana_sources(p), cost):
            if flashback:
                return f"you can't pay its flashback cost {cost.text} (CR 702.34a, 601.2h)"
            alt = cd.alt_sacrifice
            if alt is not None:
                return f"you can't pay {cost.text}, nor {alt.text} instead (CR 601.2h, 118.9)"
            return f"you can't pay {cost.text} (CR 601.2h)"
        if (cd.sacrifice_types or cd.discard_cost) and not extra_cost_choices(g, p, cid):
            what = "another card to discard" if cd.discard_cost else "a permanent to sacrifice"
            return f"you have no {what} for its additional cost (CR 601.2b, 601.2h)"
        return "it has no legal targets (CR 601.2c)"
    if d.kind == D_PRIORITY and k == ACTIVATE:
        cid = a.obj
        sorcery_ok = g.active == p and g.step in (MAIN1, MAIN2) and not g.stack
        if a.arg in g.cdef[cid].from_hand:  # cycling: from its owner's hand (702.29a)
            if g.zone[cid] != HAND or g.owner[cid] != p:
                return f"{g.cdef[cid].name} is not in your hand"
            ch = g.chars(cid)
            return g._can_activate(p, cid, ch, activated_at(ch, a.arg), a.arg, sorcery_ok) or ""
        if g.zone[cid] != BATTLEFIELD:
            return f"{g.cdef[cid].name} is not on the battlefield"
        ch = g.chars(cid)
        if ch.controller != p:
            return f"you don't control {ch.name} (CR 602.2)"

        try:
            ab = activated_at(ch, a.arg)
        except Exception as e:  # noqa: BLE001 - the message is the reason
            return str(e)
        return g._can_activate(p, cid, ch, ab, a.arg, sorcery_ok) or ""
    if d.kind == D_ATTACKERS and k == PASS:
        must = [c for c in cb.can_attack_list(g) if "attacks_each_combat" in g.chars(c).rules]
        if must:
            return f"{g.cdef[must[0]].name} attacks each combat if able (CR 508.1d)"
    if d.kind == D_ATTACKERS and k == ATTACK:
        if a.arg != 1 - g.active:
            return "a creature attacks the opponent"
        return cb.attack_problem(g, a.obj) or ""
    if d.kind == D_BLOCKERS and k == BLOCKER:
        probs = [cb.block_problem(g, a.obj, x) for x in g.attackers]
        if probs and all(probs):
            return "; ".join(x for x in probs if x)
        if a.obj in g.blockers:
            return f"{g.cdef[a.obj].name} is already blocking"
        return ""
    if d.kind == D_BLOCK_TARGET and k == BLOCK:
        ctx = g.ctx
        assert isinstance(ctx, BlockTarget)
        return cb.block_problem(g, ctx.blocker, a.obj) or ""
    if d.kind == D_TARGET and k == TARGET:
        return "that is not a legal target for this spell or ability (CR 115, 601.2c)"
    if d.kind in _KINDS and ACTION_NAMES[k] not in _KINDS[d.kind]:
        return f"a {DECISION_NAMES[d.kind]} decision takes: {_KINDS[d.kind]}"
    return ""
