"""A trained policy (an sb3-contrib MaskablePPO checkpoint) as an agent.

Specs: `policy:PATH` (a .zip written by `scripts/train_ppo.py`) and `policy:default` (the
policy shipped in `mtg_env/data/policies/default.zip`). A checkpoint that can't be read is
a clear error naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mtg_env.engine import Action, Game, load_cards
from mtg_env.env.spaces import Layout

DEFAULT = Path(__file__).resolve().parent.parent / "mtg_env" / "data" / "policies" / "default.zip"
_cache: dict[str, Any] = {}


class CheckpointError(ValueError):
    """A policy checkpoint that is missing or unreadable."""


def load_model(path: str | Path) -> Any:
    p = Path(path)
    key = str(p.resolve())
    if key in _cache:
        return _cache[key]
    if not p.exists():
        raise CheckpointError(f"{p}: policy checkpoint not found")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - the train extra is missing
        raise CheckpointError(f"{p}: loading a policy needs the 'train' extra ({e})") from None
    try:
        model = MaskablePPO.load(p, device="cpu")
    except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
        raise CheckpointError(
            f"{p}: not a readable MaskablePPO checkpoint ({type(e).__name__}: {e})"
        ) from None
    _cache[key] = model
    return model


class PolicyAgent:
    """Acts with a trained policy: from the env's observation and mask (`act`) or from an
    engine state (`choose`, which encodes the observation itself)."""

    needs_observation = True

    def __init__(
        self, model: Any, fmt: str = "classic", deterministic: bool = True, name: str = "policy"
    ) -> None:
        self.model = model
        self.deterministic = deterministic
        self.layout = Layout(load_cards(fmt))
        self.name = name
        n = model.observation_space.shape[0]
        if n != self.layout.n_obs:
            raise CheckpointError(
                f"{name}: the policy expects observations of size {n}, the "
                f"{fmt} format has {self.layout.n_obs}"
            )

    @classmethod
    def from_path(cls, path: str | Path, **kw: Any) -> PolicyAgent:
        return cls(load_model(path), name=str(path), **kw)

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, mask: np.ndarray, info: Any = None) -> int:
        a, _ = self.model.predict(
            observation, action_masks=mask.astype(bool), deterministic=self.deterministic
        )
        return int(a)

    def choose(self, game: Game) -> Action:
        seat = game.current_player
        assert seat is not None
        obs = self.layout.observe(game, seat)
        mask, amap, _ = self.layout.mask_and_map(game, seat)
        i = self.act(obs, mask)
        return amap[i]
