"""
# Batched duels: `mtg_env.vector`

N games stepped by one call, their observations and masks written into preallocated
numpy batch arrays (v0 flat or v1 entity), finished games restarted in the same step.

| Class | For | Opponent |
|---|---|---|
| `DuelBatch(n, format, decks, opponent=None)` | self-play: both seats act, `seats[i]` says which | none: the caller plays both seats |
| `DuelBatch(n, ..., opponent="heuristic")` | one learner | inside the batch: an agent spec (`random`, `heuristic`, `ismcts`, `policy:PATH`), built once per game; an agent object or callable, shared; or `opponent_factory(i)` per game |
| `VectorDuelEnv(n, ...)` | `gymnasium.vector.VectorEnv` (single learner) | as above (default `random`) |
| `DuelVecEnv(n, ...)` | Stable-Baselines3 `VecEnv` with `action_masks()` for MaskablePPO (`train` extra) | as above |
| `ParallelDuelBatch(n, ..., workers=k)` | a `DuelBatch` whose games are shared among `k` worker processes (shared-memory arrays); `workers=k` in the two envs | as above |

```python
from mtg_env.vector import DuelBatch
b = DuelBatch(64, "classic", obs_type="flat")      # self-play: both seats
b.reset(seed=0)                                    # game i from seed 0 + i
acts = sample(b.masks)                             # one legal index per game
b.step(acts)                                       # b.obs, b.masks, b.seats, b.rewards[:, seat]
```

- Arrays (shared, overwritten by each call): `obs` (N, F) float32, or a dict of (N, ...)
  tables for `obs_type="entity"`; `masks` (N, A) int8 (v1: `obs["action_mask"]`);
  `seats` (N,) the acting seat (self-play) or the learner's seat; `rewards` (N, 2) each
  seat's reward for the step; `learner_rewards` (N,) in learner mode; `terminated`,
  `truncated` (N,) bool; `finals`: `(i, info)` for each game that ended in the step
  (`winner`, `truncated`, and in learner mode `final_obs`, the learner's last view).
- Each game plays by the rules of the single env it stands for: in learner mode
  `SelfPlayEnv` (the learner's seat alternates per episode; reward +1/-1 at the end, shaping
  optional; an illegal index ends the episode with -1), in self-play mode the PettingZoo
  `raw_env` (an illegal index raises `IllegalActionError` naming the game). With the same
  seeds a `VectorDuelEnv` gives exactly the games of gymnasium's `SyncVectorEnv` over
  `SelfPlayEnv`s in same-step autoreset mode (tested), and self-play mode the games of N
  `raw_env`s.
- Seeds: `reset(seed=s)` starts game i from `s + i` (or `seed[i]` for a list), opponents
  reseeded from it as `SelfPlayEnv` does; later restarts continue each game's own stream,
  so a run is reproducible from its first seed.
- Not kept per game: replays (use `raw_env` to record one), PettingZoo's per-agent
  dictionaries, rendering. Speed: `mtg-env bench` prints `vector_steps_per_s` at N = 64
  next to 64 separate `raw_env`s and their ratio, and the same with one worker per CPU
  (docs/performance.md: about 1.4x in one process, 1.5-2x with two workers).
- Workers: `ParallelDuelBatch` (or `workers=k`) starts `k` processes (`fork` where the
  platform has it); game i is seeded as in one process, so the games are the same whatever
  `k`. A worker's error is raised by `step` (an illegal index as `IllegalActionError`
  naming the game); a worker that dies is reported, not waited for. `close()` ends them.

## Version history

- 0.1: `DuelBatch`, `ParallelDuelBatch`, `VectorDuelEnv`, `DuelVecEnv`.
"""

from __future__ import annotations

from typing import Any

from .batch import DuelBatch
from .gym import VectorDuelEnv
from .parallel import ParallelDuelBatch, make_batch

__all__ = ["DuelBatch", "DuelVecEnv", "ParallelDuelBatch", "VectorDuelEnv", "make_batch"]


def __getattr__(name: str) -> Any:
    # The SB3 adapter needs stable-baselines3 (the train extra): loaded on first use.
    if name == "DuelVecEnv":
        from .sb3 import DuelVecEnv

        return DuelVecEnv
    raise AttributeError(f"module 'mtg_env.vector' has no attribute {name!r}")
