"""Positions along random games, and the game secret, for the Spellbench tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from mtg_env.engine import Game, load_decks
from mtg_env.spellbench import ids

SECRET = ids.game_secret(bytes(range(32)), 0)


def states(fmt: str, games: int = 3, every: int = 7) -> Iterator[Game]:
    """Positions along random games of the format's bundled decks."""
    decks = load_decks(fmt)
    names = sorted(decks)
    rng = random.Random(1)
    for i in range(games):
        pair = (decks[names[i % len(names)]], decks[names[(i + 3) % len(names)]])
        g = Game.new(pair, seed=i, max_decisions=500, format=fmt)
        n = 0
        while not g.is_over:
            if n % every == 0:
                yield g
            g.apply(rng.choice(g.legal_actions()))
            n += 1
