"""`VectorDuelEnv`: a `gymnasium.vector.VectorEnv` over a `DuelBatch` in learner mode (the
single-learner case: N `SelfPlayEnv`s in one object). See `mtg_env.vector`."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from .batch import NEXT_STEP, SAME_STEP, autoreset_mode_of
from .parallel import learner_batch

try:  # gymnasium >= 1.1 names its autoreset modes; its wrappers read them from metadata
    from gymnasium.vector import AutoresetMode

    def _mode_tag(value: str) -> Any:
        return AutoresetMode(value)

except ImportError:  # pragma: no cover - older gymnasium

    def _mode_tag(value: str) -> Any:
        return value


# What `reset(options=...)` takes: gymnasium's partial reset and SelfPlayEnv's option.
RESET_OPTIONS = ("reset_mask", "learner_seat")


class VectorDuelEnv(VectorEnv):
    """N self-play games with the opponent inside the batch, as one gymnasium vector env.

    Observations, rewards, terminations and truncations are batched arrays;
    `infos["action_mask"]` carries the learners' masks, `infos["learner_seat"]` their
    seats. With `copy=False` the returned observation is the batch's own buffer,
    overwritten by the next step.

    `autoreset_mode` (gymnasium's `AutoresetMode` or its value; `metadata["autoreset_mode"]`)
    says what follows a game's end, as in gymnasium's `SyncVectorEnv`:

    - `NextStep` (the default, as in gymnasium's own vector envs, and the mode its vector
      observation wrappers such as `NormalizeObservation` accept): the step returns the
      game's last observation (mask: index 0 alone) and its end in `infos` (`winner`,
      `truncated`, `illegal_action`); the next step ignores the game's action and returns
      the new game's first observation, reward 0.
    - `SameStep`: the new game's first observation at once, the last one in
      `infos["final_obs"]` and the end in `infos["final_info"]`.
    - `Disabled`: the game waits for `reset(options={"reset_mask": ...})`.

    `reset(options=...)` takes `reset_mask` (a bool array, one per game: start those games
    only, as gymnasium's vector envs do) and `learner_seat` (0 or 1: the learner's seat in
    the games started, as `SelfPlayEnv` takes it). `winner` is an object array (None: no
    winner).
    """

    def __init__(
        self,
        num_envs: int = 64,
        format: str = "classic",
        decks: Any = None,
        *,
        opponent: Any = "random",
        obs_type: str = "flat",
        copy: bool = True,
        autoreset_mode: Any = NEXT_STEP,
        **kwargs: Any,
    ) -> None:
        mode = autoreset_mode_of(autoreset_mode)
        self.batch = learner_batch(
            "VectorDuelEnv",
            num_envs,
            format,
            decks,
            opponent,
            obs_type,
            {**kwargs, "autoreset_mode": mode},
        )
        self.autoreset_mode = _mode_tag(mode)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": []}
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
        options = options or {}
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(
                f"reset: options {unknown} are not supported (supported: {list(RESET_OPTIONS)})"
            )
        mask = options.get("reset_mask")
        self.batch.reset(seed, mask, options.get("learner_seat"))
        # As gymnasium's vector envs: the infos flag the games that were reset.
        return self._obs(), self._infos(self._all if mask is None else np.asarray(mask))

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        b = self.batch
        b.step(actions)
        infos = self._infos(self._all)
        if b.finals:
            same_step = self.batch.autoreset_mode == SAME_STEP
            # `winner` may be None (a truncated game): an object array from the start, where
            # gymnasium's merging would make an int array of the first winner and fail.
            ends: dict[str, Any] = {"winner": np.full(self.num_envs, None, object)}
            ends["_winner"] = np.zeros(self.num_envs, bool)
            if same_step:
                infos["final_info"] = ends
            else:
                infos.update(ends)
            for i, info in b.finals:
                if same_step:
                    final = {k: v for k, v in info.items() if k != "final_obs"}
                    final["action_mask"] = self._end_mask()  # SelfPlayEnv's: index 0 alone
                    self._add_info(infos, {"final_obs": info["final_obs"], "final_info": final}, i)
                else:
                    # The end in the step's own infos, as SelfPlayEnv's info has it.
                    end = {k: v for k, v in info.items() if k not in ("final_obs", "learner_seat")}
                    self._add_info(infos, end, i)
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

    def _end_mask(self) -> np.ndarray:
        mask = np.zeros(self.batch.n_actions, np.int8)
        mask[0] = 1
        return mask

    def _obs(self) -> Any:
        obs = self.batch.obs
        if not self.copy:
            return obs
        if isinstance(obs, dict):
            return {k: v.copy() for k, v in obs.items()}
        return obs.copy()

    def _infos(self, which: np.ndarray) -> dict[str, Any]:
        b = self.batch
        return {
            "learner_seat": b.seats.astype(int),
            "_learner_seat": which.copy(),
            "action_mask": b.masks.copy(),
            "_action_mask": which.copy(),
        }
