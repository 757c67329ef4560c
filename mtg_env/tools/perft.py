"""Perft: the number of leaves of the legal-action tree to a fixed depth (python-chess's
perft idea). Pinned for fixed seeded positions, any change in legality shows up."""

from __future__ import annotations

import random

from ..engine import Game, load_decks

# Positions: (deck_a, deck_b, seed, random decisions played before counting, depth).
POSITIONS = [
    ("Green Stompy", "Red Burn", 1, 12, 3),
    ("White Weenie", "Blue-Black Control", 2, 25, 3),
    ("Merfolk Auras", "Rakdos Vampires", 3, 40, 3),
    ("Red Burn", "White Weenie", 4, 60, 3),
    ("Blue-Black Control", "Green Stompy", 5, 80, 3),
    ("Rakdos Vampires", "Merfolk Auras", 6, 100, 3),
    ("Green Stompy", "White Weenie", 7, 50, 4),
    ("Blue-Black Control", "Merfolk Auras", 8, 70, 4),
]


def position(deck_a: str, deck_b: str, seed: int, advance: int) -> Game:
    decks = load_decks("classic")
    g = Game.new((decks[deck_a], decks[deck_b]), seed=seed)
    r = random.Random(seed)
    for _ in range(advance):
        if g.is_over:
            break
        g.apply(r.choice(g.legal_actions()))
    # Then on to a decision with real branching, so the tree says something.
    while not g.is_over and len(g.legal_actions()) < 4:
        g.apply(r.choice(g.legal_actions()))
    return g


def perft(g: Game, depth: int) -> int:
    if depth == 0 or g.is_over:
        return 1
    total = 0
    for a in g.legal_actions():
        c = g.clone()
        c.apply(a)
        total += perft(c, depth - 1)
    return total


def table() -> list[dict]:
    out = []
    for a, b, seed, adv, depth in POSITIONS:
        g = position(a, b, seed, adv)
        out.append(
            {
                "deck_a": a,
                "deck_b": b,
                "seed": seed,
                "advance": adv,
                "depth": depth,
                "hash": g.state_hash(),
                "count": perft(g, depth),
            }
        )
    return out
