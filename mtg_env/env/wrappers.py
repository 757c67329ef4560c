"""Observation wrappers for RL libraries that read the action mask from the observation.

Tianshou's `PettingZooEnv`, PettingZoo's Stable-Baselines3 action-masking tutorial and
RLlib's action-masking RL module expect an observation `{"observation": X, "action_mask":
M}` (RLlib's module: `{"observations": X, "action_mask": M}`). The flat envs (`mtg/duel-v0`)
already give that shape in the AEC env; the entity envs give a Dict of tables of which
`action_mask` is one, and `SelfPlay-v0` gives the vector alone (its mask is in `info`).
These wrappers give every env that shape:

```python
import mtg_env
from mtg_env.env.selfplay import SelfPlayEnv
from mtg_env.env.wrappers import MaskedObservation, MaskedObservationAEC

aec = MaskedObservationAEC(mtg_env.env(obs_type="entity"))  # PettingZoo AEC
aec.reset(seed=0)
obs, reward, termination, truncation, info = aec.last()  # {"observation", "action_mask"}
sp = MaskedObservation(SelfPlayEnv(obs_type="entity"), key="observations")  # RLlib's key
obs, info = sp.reset(seed=0)  # {"observations", "action_mask"}
```

- `view="flat"` (default): `observation` is one float32 vector. For the flat envs it is the
  observation vector itself; for the entity envs it is the tables other than the mask
  (`global`, `objects`, `object_card`, `object_mask`, `candidates`, in that order, each
  row-major) as float32, unscaled (the values and bounds of the tables: a card index is its
  integer). An MLP policy (SB3's `MlpPolicy`, Tianshou's `Net`) reads it as it is.
- `view="tables"`: the entity tables other than the mask as a Dict (for a network that reads
  tables, e.g. `mtg_env.entity_nets`); for the flat envs, the vector.
- `key`: the name of the observation entry, `"observation"` (default) or RLlib's
  `"observations"`.

`action_mask` is the env's own int8 mask, unchanged: in `MaskedObservation` the learner's
mask (`info["action_mask"]`, index 0 alone once the episode is over), in
`MaskedObservationAEC` the acting agent's mask (all zeros for the other agent and for a
finished one, whose action is None). Rewards, `info`, seeds, copies and the action space
are those of the wrapped env; nothing but the observation changes, and like the
observation it holds only what the observing player may see.

Libraries that read the mask from `info` instead (AgileRL: `info["action_mask"]`, with
observations that must not hold an `action_mask` entry) use `SelfPlay-v0` as it is, or the
entity env through `MaskedObservation(...)` with `mask_in_observation=False`, which gives
the observation view alone and leaves the mask in `info`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

VIEWS = ("flat", "tables")
KEYS = ("observation", "observations")
MASK = "action_mask"


class ObservationView:
    """An env observation space's masked-observation view: the space under the observation
    key and the function from an env observation to it."""

    def __init__(self, space: spaces.Space, view: str = "flat") -> None:
        if view not in VIEWS:
            raise ValueError(f"view must be one of {list(VIEWS)}, not {view!r}")
        if isinstance(space, spaces.Dict) and "observation" in space.spaces:
            space = space["observation"]  # the flat AEC env: the vector beside its mask
        if isinstance(space, spaces.Box):
            self.keys: tuple[str, ...] = ()
            self.space: spaces.Space = space
            return
        if not isinstance(space, spaces.Dict) or MASK not in space.spaces:
            raise TypeError(f"not an mtg_env observation space: {space}")
        # The entity tables: a fixed order, so that a flat index means the same field always.
        order = ("global", "objects", "object_card", "object_mask", "candidates")
        self.keys = tuple(k for k in order if k in space.spaces)
        tables = {k: space[k] for k in self.keys}
        if view == "tables":
            self.space = spaces.Dict(tables)
            self.keys = ()  # the Dict entries are passed as they are
            return
        boxes = [tables[k] for k in self.keys]
        assert all(isinstance(b, spaces.Box) for b in boxes)
        low = np.concatenate([np.asarray(b.low, np.float32).ravel() for b in boxes])
        high = np.concatenate([np.asarray(b.high, np.float32).ravel() for b in boxes])
        self.space = spaces.Box(low, high, dtype=np.float32)

    def __call__(self, obs: Any) -> Any:
        if isinstance(obs, dict):
            if "observation" in obs:
                return obs["observation"]
            if self.keys:
                return np.concatenate([obs[k].ravel() for k in self.keys]).astype(np.float32)
            return {k: obs[k] for k in self.space.spaces}
        return obs


def _check_key(key: str) -> str:
    if key not in KEYS:
        raise ValueError(f"key must be one of {list(KEYS)}, not {key!r}")
    return key


def _masked_space(view: spaces.Space, key: str, n: int) -> spaces.Dict:
    # The observation first, in the space as in each observation, as PettingZoo's tutorials
    # unpack them (`observation, action_mask = obs.values()`); a plain dict would be sorted.
    return spaces.Dict(OrderedDict([(key, view), (MASK, spaces.Box(0, 1, (n,), np.int8))]))


class MaskedObservation(gym.Wrapper):
    """`SelfPlay-v0` or `SelfPlayEntity-v1` with observations `{key: view, "action_mask":
    mask}`, the mask being `info["action_mask"]` (see the module's documentation)."""

    def __init__(
        self,
        env: gym.Env,
        view: str = "flat",
        key: str = "observation",
        mask_in_observation: bool = True,
    ) -> None:
        super().__init__(env)
        self.view = ObservationView(env.observation_space, view)
        self.key = _check_key(key)
        self.mask_in_observation = mask_in_observation
        n = int(env.action_space.n)
        if mask_in_observation:
            self.observation_space = _masked_space(self.view.space, key, n)
        else:
            self.observation_space = self.view.space

    def _wrap(self, obs: Any, info: dict[str, Any]) -> Any:
        if not self.mask_in_observation:
            return self.view(obs)
        return {self.key: self.view(obs), MASK: info[MASK]}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, info), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._wrap(obs, info), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's mask as booleans (sb3-contrib's MaskablePPO)."""
        return self.env.unwrapped.action_masks()


class MaskedObservationAEC(BaseWrapper):
    """The AEC env (`raw_env`, `env()`, flat or entity) with observations `{key: view,
    "action_mask": mask}` (see the module's documentation)."""

    def __init__(self, env: Any, view: str = "flat", key: str = "observation") -> None:
        super().__init__(env)
        agent = env.possible_agents[0]
        self.view = ObservationView(env.observation_space(agent), view)
        self.key = _check_key(key)
        n = int(env.action_space(agent).n)
        self._space = _masked_space(self.view.space, key, n)

    def observation_space(self, agent: Any) -> spaces.Space:
        return self._space

    def observe(self, agent: Any) -> dict[str, Any]:
        obs = self.env.observe(agent)
        return {self.key: self.view(obs), MASK: obs[MASK]}
