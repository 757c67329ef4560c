"""Uniformly random legal play (seeded)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from mtg_env.engine import Action, Game

from .registry import Budget


class RandomAgent:
    """Picks uniformly among legal actions: from the env mask (`act`) or from the engine
    (`choose`). It needs no observation."""

    needs_observation = False
    decides_from_engine = False  # `act` draws from the mask, `choose` from the engine
    budget: Budget | None = None
    fallbacks = 0

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self) -> None:
        pass

    def reseed(self, seed: int) -> None:
        """Restart the random stream (an env's `reset(seed=...)` calls this)."""
        self.seed = seed
        self.rng.seed(seed)

    def act(self, observation: Any, mask: np.ndarray, info: dict[str, Any] | None = None) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.randrange(len(legal))])

    def choose(self, game: Game) -> Action:
        return self.rng.choice(game.legal_actions())
