"""`VectorDuelEnv`: a `gymnasium.vector.VectorEnv` over a `DuelBatch` in learner mode (the
single-learner case: N `SelfPlayEnv`s in one object). See `mtg_env.vector`."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from .parallel import learner_batch

try:  # gymnasium >= 1.1 names its autoreset modes
    from gymnasium.vector import AutoresetMode

    SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - older gymnasium
    SAME_STEP = "SameStep"


class VectorDuelEnv(VectorEnv):
    """N self-play games with the opponent inside the batch, as one gymnasium vector env.

    Observations, rewards, terminations and truncations are batched arrays; a game that
    ends restarts in the same step (`metadata["autoreset_mode"]` is same-step): `infos`
    then holds `final_obs` and `final_info` (winner, truncated) for it, as gymnasium's
    `SyncVectorEnv` in that mode would. `infos["action_mask"]` carries the learners'
    masks, `infos["learner_seat"]` their seats. With `copy=False` the returned observation
    is the batch's own buffer, overwritten by the next step.
    """

    metadata = {"autoreset_mode": SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 64,
        format: str = "classic",
        decks: Any = None,
        *,
        opponent: Any = "random",
        obs_type: str = "flat",
        copy: bool = True,
        **kwargs: Any,
    ) -> None:
        self.batch = learner_batch(
            "VectorDuelEnv", num_envs, format, decks, opponent, obs_type, kwargs
        )
        self.num_envs = num_envs
        self.copy = copy
        self.single_observation_space = self.batch.single_observation_space
        self.single_action_space = spaces.Discrete(self.batch.n_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._all = np.ones(num_envs, bool)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if options:
            raise ValueError(f"reset: options are not supported, got {sorted(options)}")
        self.batch.reset(seed)
        return self._obs(), self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        b = self.batch
        b.step(actions)
        infos = self._infos()
        for i, info in b.finals:
            final = {k: v for k, v in info.items() if k != "final_obs"}
            mask = np.zeros(b.n_actions, np.int8)
            mask[0] = 1  # a finished episode's mask (SelfPlayEnv): index 0 alone
            final["action_mask"] = mask
            self._add_info(infos, {"final_obs": info["final_obs"], "final_info": final}, i)
        return (
            self._obs(),
            b.learner_rewards.copy(),
            b.terminated.copy(),
            b.truncated.copy(),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        return self.batch.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        # Gymnasium's __del__ closes an env whose __init__ refused its input before the
        # batch existed; there is nothing to close then.
        batch = getattr(self, "batch", None)
        if batch is not None:
            batch.close()

    def _obs(self) -> Any:
        obs = self.batch.obs
        if not self.copy:
            return obs
        if isinstance(obs, dict):
            return {k: v.copy() for k, v in obs.items()}
        return obs.copy()

    def _infos(self) -> dict[str, Any]:
        b = self.batch
        return {
            "learner_seat": b.seats.astype(int),
            "_learner_seat": self._all.copy(),
            "action_mask": b.masks.copy(),
            "_action_mask": self._all.copy(),
        }
