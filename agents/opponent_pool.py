"""The opponent pool of the v1 training recipe (scripts/train_entity.py) and of
`mtg-env bench --train`: each episode's opponent is the scripted heuristic with probability
`p_heuristic`, else uniform random, drawn from its own seeded stream.

- `PoolBot`: the opponent of one game of a `mtg_env.vector` batch (`opponent_factory`),
  drawn when the batch starts the game (`reset`).
- `PoolEnv`: `SelfPlayEntity-v0` whose opponent is drawn when the env resets (for SB3's
  `DummyVecEnv`)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from mtg_env.engine import Deck
from mtg_env.env import SelfPlayEnv

from .base import make_agent


def _bots(fmt: str, seed: int) -> dict[str, Any]:
    return {
        "heuristic": make_agent("heuristic", seed, fmt=fmt),
        "random": make_agent("random", seed + 1),
    }


class PoolBot:
    """One game's opponent: heuristic or random, drawn per episode (`reset`)."""

    def __init__(self, fmt: str, p_heuristic: float, seed: int) -> None:
        self.p_heuristic = p_heuristic
        self.pool_rng = random.Random(seed)
        self.bots = _bots(fmt, seed)
        self.current: Any = self.bots["random"]

    @property
    def needs_observation(self) -> bool:
        return bool(getattr(self.current, "needs_observation", True))

    @property
    def decides_from_engine(self) -> bool:
        return bool(getattr(self.current, "decides_from_engine", False))

    def reset(self) -> None:
        pick = "heuristic" if self.pool_rng.random() < self.p_heuristic else "random"
        self.current = self.bots[pick]

    def choose(self, game: Any) -> Any:
        return self.current.choose(game)

    def act(self, obs: Any, mask: np.ndarray, info: dict[str, Any]) -> int:
        return self.current.act(obs, mask, info)


class PoolEnv(SelfPlayEnv):
    """SelfPlayEntity-v0 whose opponent is drawn per episode: heuristic or random."""

    def __init__(
        self,
        fmt: str,
        decks: list[Deck] | None,
        p_heuristic: float,
        max_decisions: int,
        seed: int,
    ) -> None:
        super().__init__(format=fmt, decks=decks, obs_type="entity", max_decisions=max_decisions)
        self.p_heuristic = p_heuristic
        self.pool_rng = random.Random(seed)
        self.bots = _bots(fmt, seed)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        pick = "heuristic" if self.pool_rng.random() < self.p_heuristic else "random"
        self.set_opponent(self.bots[pick])
        return super().reset(seed=seed, options=options)
