"""The opponent pool of the v1 training recipe (scripts/train_entity.py) and of
`mtg-env bench --train`: each episode's opponent is the scripted heuristic with probability
`p_heuristic`, else uniform random, drawn from its own seeded stream.

- `PoolBot`: the opponent of one game of a `mtg_env.vector` batch (`opponent_factory`),
  drawn when the batch starts the game (`reset`).
- `PoolEnv`: `SelfPlayEntity-v1` whose opponent is drawn when the env resets (for SB3's
  `DummyVecEnv`).
- `pool_vec_env`: N such games as an SB3 vector env, the one the recipe trains on."""

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


def _draw(rng: random.Random, p_heuristic: float) -> str:
    """The next episode's opponent: the heuristic with probability `p_heuristic`."""
    return "heuristic" if rng.random() < p_heuristic else "random"


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
        self.current = self.bots[_draw(self.pool_rng, self.p_heuristic)]

    def choose(self, game: Any) -> Any:
        return self.current.choose(game)

    def act(self, obs: Any, mask: np.ndarray, info: dict[str, Any]) -> int:
        return self.current.act(obs, mask, info)


class PoolEnv(SelfPlayEnv):
    """SelfPlayEntity-v1 whose opponent is drawn per episode: heuristic or random."""

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
        self.set_opponent(self.bots[_draw(self.pool_rng, self.p_heuristic)])
        return super().reset(seed=seed, options=options)


def pool_vec_env(
    fmt: str,
    n: int,
    *,
    decks: list[Deck] | None,
    p_heuristic: float,
    max_decisions: int,
    seed: int,
    vec_env: str = "batch",
    workers: int = 1,
) -> Any:
    """`n` games against the pool for SB3, seeded from `seed` (game i's opponent from
    `seed * 1000 + i`): a `mtg_env.vector.DuelVecEnv` (`vec_env` "batch", stepped by
    `workers` processes) or SB3's `DummyVecEnv` of `PoolEnv`s ("dummy")."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from mtg_env.vector.sb3 import DuelVecEnv

    if vec_env == "batch":
        venv: Any = DuelVecEnv(
            n,
            fmt,
            decks=decks,
            obs_type="entity",
            opponent_factory=lambda i: PoolBot(fmt, p_heuristic, seed * 1000 + i),
            max_decisions=max_decisions,
            workers=workers,
        )
    else:
        venv = DummyVecEnv(
            [
                lambda i=i: PoolEnv(fmt, decks, p_heuristic, max_decisions, seed * 1000 + i)
                for i in range(n)
            ]
        )
    venv.seed(seed)
    return venv
