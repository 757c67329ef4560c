"""`DuelVecEnv`: a Stable-Baselines3 `VecEnv` over a `DuelBatch` in learner mode, with
`action_masks()` for sb3-contrib's MaskablePPO. Needs the `train` extra. See
`mtg_env.vector`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from .batch import SAME_STEP
from .parallel import learner_batch


class DuelVecEnv(VecEnv):
    """N self-play games with the opponent inside the batch, for SB3. A game that ends
    restarts in the same step; its info has `terminal_observation`, `winner` and
    `TimeLimit.truncated` (SB3's conventions). `seed(s)` then `reset()` starts game i from
    `s + i`, as SB3's own vector envs do."""

    def __init__(
        self,
        num_envs: int = 64,
        format: str = "classic",
        decks: Any = None,
        *,
        opponent: Any = "random",
        obs_type: str = "flat",
        **kwargs: Any,
    ) -> None:
        if "autoreset_mode" in kwargs:
            # SB3's VecEnv contract is the same-step restart; no other mode fits it.
            raise ValueError("DuelVecEnv restarts games in the same step: no autoreset_mode")
        kwargs = {**kwargs, "autoreset_mode": SAME_STEP}
        self.batch = learner_batch(
            "DuelVecEnv", num_envs, format, decks, opponent, obs_type, kwargs
        )
        super().__init__(
            num_envs, self.batch.single_observation_space, spaces.Discrete(self.batch.n_actions)
        )
        self._actions: np.ndarray | None = None

    def reset(self) -> Any:
        seeds = self._seeds
        self.batch.reset(None if all(s is None for s in seeds) else seeds)
        self._reset_seeds()
        self._reset_options()
        return self._obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        b = self.batch
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        b.step(self._actions)
        self._actions = None
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i, info in b.finals:
            out = infos[i]
            out["terminal_observation"] = info["final_obs"]
            out["winner"] = info.get("winner")
            out["TimeLimit.truncated"] = bool(b.truncated[i] and not b.terminated[i])
        dones = b.terminated | b.truncated
        return self._obs(), b.learner_rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.batch.action_masks()

    def close(self) -> None:
        self.batch.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "action_masks" else None
        if value is None:
            value = getattr(self.batch, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"DuelVecEnv: cannot set {attr_name!r} on the games")

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kw: Any
    ) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"DuelVecEnv: the games have no method {method_name!r}")
        masks = self.batch.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

    def _obs(self) -> Any:
        obs = self.batch.obs
        if isinstance(obs, dict):
            return {k: v.copy() for k, v in obs.items()}
        return obs.copy()
