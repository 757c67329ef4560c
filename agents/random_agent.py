"""Uniformly random legal play (seeded)."""

from __future__ import annotations

import random

from mtg_env.engine import Action, Game


class RandomAgent:
    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        return self.rng.choice(game.legal_actions())
