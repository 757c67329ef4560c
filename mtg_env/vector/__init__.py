"""
# Batched duels: `mtg_env.vector`

N games stepped by one call, their observations and masks written into preallocated
numpy batch arrays (v0 flat or v1 entity).

| Class | For | Opponent |
|---|---|---|
| `DuelBatch(n, format, decks, opponent=None)` | self-play: both seats act, `seats[i]` says which | none: the caller plays both seats |
| `DuelBatch(n, ..., opponent="heuristic")` | one learner | inside the batch: an agent spec (`random`, `heuristic`, `ismcts`, `policy:PATH`), built once per game; an agent object or callable, shared; or `opponent_factory(i)` per game |
| `VectorDuelEnv(n, ...)` | `gymnasium.vector.VectorEnv` (single learner) | as above (default `random`) |
| `DuelVecEnv(n, ...)` | Stable-Baselines3 `VecEnv` with `action_masks()` for MaskablePPO (`train` extra) | as above |
| `ParallelDuelBatch(n, ..., workers=k)` | a `DuelBatch` whose games are shared among `k` worker processes (shared-memory arrays); `workers=k` in the two envs | as above |

```python
import numpy as np
from mtg_env.vector import DuelBatch

b = DuelBatch(4, "classic", obs_type="flat")       # self-play: both seats
b.reset(seed=0)                                    # game i from seed 0 + i
rng = np.random.default_rng(0)
for _ in range(5):
    acts = np.argmax(rng.random(b.masks.shape) * b.masks, axis=1)  # a legal index per game
    b.step(acts)                                   # b.obs, b.masks, b.seats, b.rewards[:, seat]
```

```python
import numpy as np
from gymnasium.wrappers.vector import NormalizeObservation
from mtg_env.vector import VectorDuelEnv

env = NormalizeObservation(VectorDuelEnv(4, "classic", opponent="random"))
obs, info = env.reset(seed=0)
rng = np.random.default_rng(0)
for _ in range(5):
    acts = np.argmax(rng.random(info["action_mask"].shape) * info["action_mask"], axis=1)
    obs, reward, terminated, truncated, info = env.step(acts)
env.close()
```

- Arrays (shared, overwritten by each call): `obs` (N, F) float32, or a dict of (N, ...)
  tables for `obs_type="entity"`; `masks` (N, A) int8 (v1: `obs["action_mask"]`);
  `seats` (N,) the acting seat (self-play) or the learner's seat; `rewards` (N, 2) each
  seat's reward for the step; `learner_rewards` (N,) in learner mode; `terminated`,
  `truncated`, `needs_reset` (N,) bool; `finals`: `(i, info)` for each game that ended in
  the step (`winner`, `truncated`, and in learner mode `final_obs`, the learner's last
  view, its mask index 0 alone).
- Autoreset (`autoreset_mode=`, gymnasium's `AutoresetMode` or its value): `SameStep`
  starts an ended game again in the same step (the arrays show the new game; the default
  of `DuelBatch`, and what `DuelVecEnv` uses: SB3's convention, no step spent on a
  finished game); `NextStep` shows the ended game's last observation (mask: index 0
  alone; `needs_reset[i]` set) and starts it again at the next step, ignoring that step's
  action (the default of `VectorDuelEnv`, as of gymnasium's own vector envs, and the only
  mode gymnasium's vector observation wrappers such as `NormalizeObservation` and
  `FlattenObservation` accept); `Disabled` leaves it for `reset(mask=...)` and refuses a
  step before that. `VectorDuelEnv` reports an end as `SyncVectorEnv` does: in the step's
  `infos` (`winner`, `truncated`, `illegal_action`) for `NextStep`, in
  `infos["final_obs"]`, `infos["final_info"]` for `SameStep`.
- Resets: `reset(seed, mask=None, learner_seat=None)` starts every game, or those where
  the bool array `mask` is set; `VectorDuelEnv.reset(options=...)` takes `reset_mask` (the
  same, gymnasium's partial reset) and `learner_seat` (0 or 1, as `SelfPlayEnv` takes it),
  and refuses any other option by name.
- Each game plays by the rules of the single env it stands for: in learner mode
  `SelfPlayEnv` (the learner's seat picked by the seed, then alternating per episode;
  reward +1/-1 at the end, shaping optional; an illegal index ends the episode with -1),
  in self-play mode the PettingZoo `raw_env`. With the same seeds a `VectorDuelEnv` gives
  exactly the games of gymnasium's `SyncVectorEnv` over `SelfPlayEnv`s in the same
  autoreset mode, partial resets included (tested for each mode), and self-play mode the
  games of N `raw_env`s.
- Every action is checked before any game moves: in self-play mode an illegal index
  raises `IllegalActionError` naming the game, and every game (the other games' moves
  too) is left as it was.
- Seeds: `reset(seed=s)` starts game i from `s + i` (or `seed[i]` for a list), opponents
  reseeded from it as `SelfPlayEnv` does; later restarts continue each game's own stream,
  so a run is reproducible from its first seed.
- Not kept per game: replays (use `raw_env` to record one), PettingZoo's per-agent
  dictionaries, rendering. Speed: `mtg-env bench` prints `vector_steps_per_s` at N = 64
  next to 64 separate `raw_env`s and their ratio, and the same with one worker per CPU
  (docs/performance.md: about 1.4x in one process, 1.5-2x with two workers).
- Workers: `ParallelDuelBatch` (or `workers=k`) starts `k` processes (`fork` where the
  platform has it); game i is seeded as in one process, so the games are the same whatever
  `k`. The actions are checked in the calling process before any worker moves; a worker's
  error is raised by `step`; a worker that dies is reported, not waited for. `close()`
  ends them (a second call does nothing); after it every method and array of the batch
  raises `RuntimeError: ParallelDuelBatch is closed`, and an array taken before stays
  readable.

## Version history

- 0.2: autoreset modes (`NextStep` the default of `VectorDuelEnv`), partial resets
  (`reset_mask`), `learner_seat` from the seed as in `SelfPlayEnv`, whole-batch action
  checks, `needs_reset`, a closed `ParallelDuelBatch` refuses use.
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
