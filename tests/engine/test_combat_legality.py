"""509.1 / 508.1: legal_actions() offers exactly the attacks and blocks the rules allow.

An independent brute force enumerates every complete block declaration from the rules
(untapped, not forbidden, flying/reach, landwalk, protection, menace) and checks that the
engine offers a blocker pick exactly when it appears in some legal complete declaration.
"""

from __future__ import annotations

import itertools
import random

from mtg_env.engine import Game, load_decks
from mtg_env.engine.constants import (
    BLOCKER,
    CREATURE,
    D_ATTACKERS,
    D_BLOCKERS,
    LAND,
)

DECKS = load_decks("classic")
NAMES = sorted(DECKS)
WALK = {
    "islandwalk": "Island",
    "swampwalk": "Swamp",
    "forestwalk": "Forest",
    "mountainwalk": "Mountain",
    "plainswalk": "Plains",
}


def can_block(g: Game, b: int, a: int) -> bool:
    bch, ach = g.chars(b), g.chars(a)
    if "flying" in ach.keywords and not ({"flying", "reach"} & bch.keywords):
        return False
    defender = 1 - g.active
    for kw, land in WALK.items():
        if kw in ach.keywords and any(
            g.chars(c).controller == defender
            and g.chars(c).types & LAND
            and land in g.chars(c).subtypes
            for c in g.battlefield
        ):
            return False
    return not bch.colors & ach.prot


def legal_declarations(g: Game) -> list[dict[int, int]]:
    defender = 1 - g.active
    cands = [
        c
        for c in g.battlefield
        if g.chars(c).types & CREATURE
        and g.chars(c).controller == defender
        and not g.perm[c].tapped
        and "cant_block" not in g.chars(c).rules
    ]
    attackers = list(g.attackers)
    out = []
    options = [[None] + [a for a in attackers if can_block(g, b, a)] for b in cands]
    for combo in itertools.product(*options):
        decl = {b: a for b, a in zip(cands, combo, strict=True) if a is not None}
        ok = all(
            "menace" not in g.chars(a).keywords or sum(1 for x in decl.values() if x == a) != 1
            for a in attackers
        )
        if ok:
            out.append(decl)
    return out


def can_attack(g: Game, c: int) -> bool:
    ch = g.chars(c)
    return bool(
        ch.types & CREATURE
        and ch.controller == g.active
        and not g.perm[c].tapped
        and "defender" not in ch.keywords
        and "cant_attack" not in ch.rules
        and (not g.sick(c) or "haste" in ch.keywords)
    )


def test_509_1_offered_blockers_equal_brute_force_and_508_1_attackers() -> None:
    checked_blocks = checked_attacks = 0
    for seed in range(40):
        g = Game.new(
            (DECKS[NAMES[seed % 6]], DECKS[NAMES[(seed * 5 + 1) % 6]]), seed=seed, mulligans=False
        )
        r = random.Random(seed)
        while not g.is_over:
            d = g.decision
            if d.kind == D_ATTACKERS and not g.attackers:
                want = sorted(c for c in g.battlefield if can_attack(g, c))
                got = sorted(a.obj for a in g.legal_actions() if a.kind != 0)
                assert got == want
                checked_attacks += 1
            if d.kind == D_BLOCKERS and not g.blockers:
                decls = legal_declarations(g)
                if len(decls) < 5000:
                    want = sorted({b for decl in decls for b in decl})
                    got = sorted(a.obj for a in g.legal_actions() if a.kind == BLOCKER)
                    assert got == want
                    checked_blocks += 1
            g.apply(r.choice(g.legal_actions()))
    assert checked_blocks > 20 and checked_attacks > 50
