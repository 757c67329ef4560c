"""The combat phase (CR 506-511) as decisions, and combat damage.

Attackers are declared one at a time, then "done" (PASS); blockers as a blocker pick then
the attacker it blocks, then "done". A partial declaration is only offered if it can be
completed to a legal one (menace needs two blockers), so a player never walks into a dead
end.

Combat damage division (CR 510.1c-d, current rules: no damage assignment order) is
automatic by this documented deterministic rule, which gives the attacking player the
best split in the sense "kill as many blockers as possible": the blockers are ordered by
the damage that is lethal to them (1 with deathtouch, CR 702.2c; otherwise toughness minus
damage already marked), ties broken by higher power, then by card id; each gets lethal
damage in that order while damage remains. What is left goes to the defending player if
the attacker has trample (CR 702.19b), otherwise to the first blocker in that order that
has not been assigned lethal damage, or to the first blocker if all have.
"""

from __future__ import annotations

from typing import Final

from .constants import (
    ARTIFACT,
    CREATURE,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    LAND,
    PASS,
    B,
    player_ref,
)
from .decisions import ATTACKERS, BLOCKERS, BlockTarget
from .objects import Action
from .protocol import GameLike

_LANDWALK: Final = {
    "plainswalk": "Plains",
    "islandwalk": "Island",
    "swampwalk": "Swamp",
    "mountainwalk": "Mountain",
    "forestwalk": "Forest",
}


def _attackers_changed(g: GameLike) -> None:
    """Which creatures are attacking changed: a set with "as long as it's attacking"
    abilities recomputes the characteristics (611.3a)."""
    if g.cardset.conditional_statics:
        g._dirty = True


def begin_combat(g: GameLike) -> None:
    _attackers_changed(g)
    g.attackers = {}
    g.blocked = set()
    g.blockers = {}
    g.fs_participants = None
    g.fs_step = False


def end_combat(g: GameLike) -> None:
    """511.3: as the end of combat step ends, all creatures are removed from combat."""
    _attackers_changed(g)
    g.attackers = {}
    g.blocked = set()
    g.blockers = {}
    g.fs_participants = None
    g.fs_step = False


# ---------------------------------------------------------------------- attackers


def attack_problem(g: GameLike, cid: int) -> str | None:
    """None if `cid` can be declared as an attacker now, else the rule that forbids it."""
    if cid not in g.perm:
        return "it is not on the battlefield"
    ch = g.chars(cid)
    name = ch.name
    if not ch.types & CREATURE:
        return f"{name} is not a creature"
    if ch.controller != g.active:
        return f"you don't control {name}"
    if cid in g.attackers:
        return f"{name} is already attacking"
    if g.perm[cid].tapped:
        return f"{name} is tapped (CR 508.1a: only untapped creatures attack)"
    if "defender" in ch.keywords:
        return f"{name} has defender and can't attack (CR 702.3b)"
    if "cant_attack" in ch.rules:
        return f"{name} can't attack (an effect forbids it, CR 508.1c)"
    if "cant_attack_unless_island" in ch.rules and not _controls_island(g, 1 - g.active):
        return f"{name} can't attack unless defending player controls an Island (CR 508.1c)"
    if g.sick(cid) and "haste" not in ch.keywords:
        return (
            f"{name} has summoning sickness (CR 302.6): its controller has not controlled it "
            "continuously since their most recent turn began, and it has no haste (CR 702.10b)"
        )
    return None


def _controls_island(g: GameLike, seat: int) -> bool:
    """Whether `seat` controls an Island (a permanent with that land subtype)."""
    for c in g.battlefield:
        ch = g.chars(c)
        if ch.controller == seat and ch.has_subtype("Island"):
            return True
    return False


def can_attack_list(g: GameLike) -> list[int]:
    # Only creatures can attack: the layer state's creature list, in battlefield order.
    return [c for c in g._derived().creatures if attack_problem(g, c) is None]


def attacks_legal(g: GameLike, can_attack: list[int]) -> bool:
    """Whether the attackers declared so far may be the whole declaration, given the
    creatures that can still attack: every one that "attacks each combat if able" is
    already declared (CR 508.1d; the engine's requirements cost nothing, so obeying all of
    them is the maximum)."""
    return not any("attacks_each_combat" in g.chars(c).rules for c in can_attack)


def start_declare_attackers(g: GameLike) -> None:
    """508.1: the active player declares attackers (skipped if none can attack)."""
    _attackers_changed(g)
    g.attackers = {}
    g.blocked = set()
    g.blockers = {}
    if can_attack_list(g):
        g.ctx = ATTACKERS
        g._set_decision(D_ATTACKERS, g.active, -1, "declare attackers (one at a time, then done)")
    else:
        g._log("no_attackers", g.active)


def answer_attackers(g: GameLike, a: Action) -> None:
    if a.kind == PASS:
        g.ctx = None
        for cid in g.attackers:
            p = g.perm[cid]
            if g.rules.taps_on_attack(g.chars(cid)):  # 508.1f, or the format's rule
                p.tapped = True
            p.attacked_turn = g.turn
            g._log("attack", cid, g.attackers[cid])
        for cid in g.attackers:
            g._fire("attacks", cid)  # 508.1m: once the attackers are declared
        if len(g.attackers) == 1 and g.cardset.alone_triggers:
            # 702.83a (exalted): "whenever a creature you control attacks alone".
            for lone in g.attackers:
                info = {"object": (lone, g.oid[lone])}
                for cid in list(g.battlefield):
                    if g.chars(cid).controller == g.active:
                        g._fire("attacks_alone", cid, info)
        return
    g.attackers[a.obj] = a.arg
    _attackers_changed(g)
    g._set_decision(D_ATTACKERS, g.active, -1, "declare attackers (one at a time, then done)")


# ---------------------------------------------------------------------- blockers


def block_problem(g: GameLike, b: int, a: int) -> str | None:
    """None if creature `b` may block attacker `a` (ignoring menace), else why not."""
    if b not in g.perm:
        return "it is not on the battlefield"
    if a not in g.attackers:
        return "that creature is not attacking"
    bch = g.chars(b)
    ach = g.chars(a)
    defender = 1 - g.active
    if not bch.types & CREATURE:
        return f"{bch.name} is not a creature"
    if bch.controller != defender:
        return f"you don't control {bch.name}"
    if g.perm[b].tapped:
        return f"{bch.name} is tapped (CR 509.1a: only untapped creatures block)"
    if "cant_block" in bch.rules:
        return f"{bch.name} can't block (an effect forbids it, CR 509.1b)"
    if "block_only_flying" in bch.rules and "flying" not in ach.keywords:
        return f"{bch.name} can block only creatures with flying (CR 509.1b)"
    if "unblockable" in ach.rules:
        return f"{ach.name} can't be blocked (CR 509.1b)"
    if "max_one_blocker" in ach.rules and any(x == a for y, x in g.blockers.items() if y != b):
        return f"{ach.name} can't be blocked by more than one creature (CR 509.1b)"
    akw = ach.keywords
    if "flying" in akw and not ("flying" in bch.keywords or "reach" in bch.keywords):
        return (
            f"{ach.name} has flying and can be blocked only by creatures with flying or "
            "reach (CR 702.9b, 702.17b)"
        )
    bkw = bch.keywords
    if ("shadow" in akw) != ("shadow" in bkw):
        # 702.28b: shadow blocks and is blocked only by shadow.
        if "shadow" in akw:
            return (
                f"{ach.name} has shadow and can be blocked only by creatures with shadow "
                "(CR 702.28b)"
            )
        return f"{bch.name} has shadow and can block only creatures with shadow (CR 702.28b)"
    if "fear" in akw and not (bch.types & ARTIFACT or bch.colors & B):
        return (
            f"{ach.name} has fear and can be blocked only by artifact creatures and/or black "
            "creatures (CR 702.36b)"
        )
    if "intimidate" in ach.rules and not (bch.types & ARTIFACT or bch.colors & ach.colors):
        return (
            f"{ach.name} has intimidate and can be blocked only by artifact creatures and/or "
            "creatures that share a color with it (CR 702.13b)"
        )
    if "horsemanship" in akw and "horsemanship" not in bkw:
        return (
            f"{ach.name} has horsemanship and can be blocked only by creatures with "
            "horsemanship (CR 702.31b)"
        )
    for kw in akw:
        land_type = _LANDWALK.get(kw)
        if land_type and _controls_land_type(g, defender, land_type):
            return f"{ach.name} has {kw} and you control an {land_type} (CR 702.14c)"
    if bch.colors & ach.prot:
        return f"{ach.name} has protection from a color of {bch.name} (CR 702.16f)"
    return None


def _controls_land_type(g: GameLike, seat: int, land_type: str) -> bool:
    for cid in g.battlefield:
        ch = g.chars(cid)
        if ch.controller == seat and ch.types & LAND and land_type in ch.subtypes:
            return True
    return False


def start_declare_blockers(g: GameLike) -> None:
    """509.1: the defending player declares blockers (skipped if none can block)."""
    g.blockers = {}
    if blocker_choices(g):
        g.ctx = BLOCKERS
        g._set_decision(
            D_BLOCKERS,
            1 - g.active,
            -1,
            "declare blockers (a blocker, then the attacker it blocks; then done)",
        )
    else:
        _finish_blocks(g)


def _candidates(g: GameLike) -> list[int]:
    defender = 1 - g.active
    out = []
    for cid in g.battlefield:
        if cid in g.blockers or g.perm[cid].tapped:
            continue
        ch = g.chars(cid)
        if ch.types & CREATURE and ch.controller == defender and "cant_block" not in ch.rules:
            out.append(cid)
    return out


def menace_completable(g: GameLike, blockers: dict[int, int], free: list[int]) -> bool:
    """Can every menace attacker with exactly one blocker get a second from `free`?"""
    needy = []
    for a in g.attackers:
        ach = g.chars(a)
        if "menace" in ach.keywords:
            n = sum(1 for x in blockers.values() if x == a)
            if n == 1:
                if "max_one_blocker" in ach.rules:
                    return False  # menace and "no more than one": it can't be blocked
                needy.append(a)
    if not needy:
        return True
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for f in free:
            if f not in seen and block_problem(g, f, needy[i]) is None:
                seen.add(f)
                if f not in owner or augment(owner[f], seen):
                    owner[f] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(needy)))


def _pick_ok(g: GameLike, b: int, a: int, cands: list[int]) -> bool:
    if block_problem(g, b, a) is not None:
        return False
    trial = dict(g.blockers)
    trial[b] = a
    return menace_completable(g, trial, [c for c in cands if c != b])


def blocker_choices(g: GameLike) -> list[int]:
    cands = _candidates(g)
    return [b for b in cands if any(_pick_ok(g, b, a, cands) for a in g.attackers)]


def block_target_choices(g: GameLike, b: int) -> list[int]:
    cands = _candidates(g)
    return [a for a in g.attackers if _pick_ok(g, b, a, cands)]


def blocks_legal(g: GameLike) -> bool:
    """509.1c: the declaration as a whole obeys restrictions (menace: 702.111b)."""
    for a in g.attackers:
        if "menace" in g.chars(a).keywords:
            if sum(1 for x in g.blockers.values() if x == a) == 1:
                return False
    return True


def answer_blockers(g: GameLike, a: Action) -> None:
    defender = 1 - g.active
    ctx = g.ctx
    if isinstance(ctx, BlockTarget):
        b = ctx.blocker
        g.blockers[b] = a.obj
        g.ctx = BLOCKERS
        g._set_decision(
            D_BLOCKERS,
            defender,
            -1,
            "declare blockers (a blocker, then the attacker it blocks; then done)",
        )
        return
    if a.kind == PASS:
        g.ctx = None
        _finish_blocks(g)
        return
    g.ctx = BlockTarget(a.obj)
    g._set_decision(D_BLOCK_TARGET, defender, a.obj, f"choose the attacker {g.name(a.obj)} blocks")


def _finish_blocks(g: GameLike) -> None:
    g.blocked = set(g.blockers.values())  # 509.1h: these attackers are blocked
    for b, a in g.blockers.items():
        g._log("block", b, a)
    if not g.cardset.block_triggers:
        for b in g.blockers:
            g._fire("blocks", b)  # 509.1i: once the blockers are declared
        return
    for b in g.blockers:
        g._fire("blocks", b)
        g._fire("blocks_or_blocked", b)  # bushido (702.45a)
    for a in g.attackers:
        if a not in g.blocked:
            continue
        # 509.3c: "becomes blocked" triggers once each combat, however many block it.
        g._fire("blocked", a)
        g._fire("blocks_or_blocked", a)
        for b, x in g.blockers.items():
            # Flanking (702.25a): each blocker without flanking is "the blocking creature".
            if x == a and "flanking" not in g.chars(b).keywords:
                g._fire("flanked", a, {"object": (b, g.oid[b])})


# ---------------------------------------------------------------------- damage


def _has_fs(g: GameLike, cid: int) -> bool:
    kw = g.chars(cid).keywords
    return "first_strike" in kw or "double_strike" in kw


def combat_damage(g: GameLike) -> None:
    """510: each attacking and blocking creature assigns its combat damage; the damage is
    dealt simultaneously. First and double strike add a first step (702.7b, 702.4b)."""
    in_combat = list(g.attackers) + list(g.blockers)
    if g.fs_participants is None:
        fs = {c for c in in_combat if _has_fs(g, c)}
        g.fs_participants = fs
        if fs:
            g.fs_step = True
            dealers = fs
        else:
            dealers = set(in_combat)
    else:
        # 702.7b/702.4b: creatures that had neither first nor double strike as the first
        # step began, plus those that have double strike now (702.4c/d, 702.7c).
        fs = g.fs_participants
        dealers = {c for c in in_combat if c not in fs or "double_strike" in g.chars(c).keywords}
    assignments: list[tuple[int, int, int]] = []
    for a, defender in list(g.attackers.items()):
        if a not in dealers:
            continue
        ach = g.chars(a)
        power = ach.power or 0
        if power <= 0:
            continue  # 510.1a
        if a not in g.blocked:
            assignments.append((a, player_ref(defender), power))
            continue
        blockers = [b for b, x in g.blockers.items() if x == a]
        if not blockers:
            if "trample" in ach.keywords:  # 702.19e
                assignments.append((a, player_ref(defender), power))
            continue
        for target, n in divide(g, a, blockers, power, defender):
            assignments.append((a, target, n))
    for b, a in list(g.blockers.items()):
        if b not in dealers or a not in g.attackers:
            continue
        power = g.chars(b).power or 0
        if power > 0:
            assignments.append((b, a, power))
    srcs = {s: g.chars(s) for s, _, _ in assignments}
    for src, target, n in assignments:
        g._damage(src, srcs[src], target, n, True)
    g._log("combat_damage", len(assignments))


def lethal_for(g: GameLike, attacker_deathtouch: bool, b: int) -> int:
    if attacker_deathtouch:
        return 1  # 702.2c
    bch = g.chars(b)
    return max(0, (bch.toughness or 0) - g.perm[b].damage)


def divide(
    g: GameLike, a: int, blockers: list[int], power: int, defender: int
) -> list[tuple[int, int]]:
    """The attacker's damage split among its blockers: the format's rule."""
    return g.rules.divide_damage(g, a, blockers, power, defender)


def divide_cr(
    g: GameLike, a: int, blockers: list[int], power: int, defender: int
) -> list[tuple[int, int]]:
    """The attacker's damage split among its blockers (module docstring)."""
    ach = g.chars(a)
    dt = "deathtouch" in ach.keywords
    order = sorted(blockers, key=lambda b: (lethal_for(g, dt, b), -(g.chars(b).power or 0), b))
    out: dict[int, int] = {}
    left = power
    for b in order:
        need = lethal_for(g, dt, b)
        if need > left:
            break
        out[b] = out.get(b, 0) + need
        left -= need
    if left > 0:
        if "trample" in ach.keywords:
            out[player_ref(defender)] = left
        else:
            pending = [b for b in order if out.get(b, 0) < lethal_for(g, dt, b)]
            tgt = pending[0] if pending else order[0]
            out[tgt] = out.get(tgt, 0) + left
    return [(t, n) for t, n in out.items() if n > 0]
