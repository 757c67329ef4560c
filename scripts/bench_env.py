"""Steps per second of one env figure on seeded uniformly random legal play: `raw` (one
PettingZoo `raw_env`, `last()` then `step()`) or `batch` (a `DuelBatch` of 64 games in
self-play, one call per step of every game), with the flat (v0) or entity (v1)
observation. One figure per run, so that two checkouts can be compared by alternating
runs in one session (the median of the paired ratios is the result; one run each is not,
on a machine whose speed drifts):

    for i in 1 2 3 4 5 6; do
      PYTHONPATH=OLD_CHECKOUT python scripts/bench_env.py raw entity
      PYTHONPATH=. python scripts/bench_env.py raw entity
    done
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mtg_env.env import raw_env
from mtg_env.tools.bench import aec_game
from mtg_env.vector import DuelBatch


def raw_rate(fmt: str, obs_type: str, seconds: float) -> float:
    env = raw_env(format=fmt, obs_type=obs_type)
    rng = np.random.default_rng(0)
    aec_game(env, rng, 0)  # warm: the card set's tables, the first layer computations
    steps, seed = 0, 1
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += aec_game(env, rng, seed)
        seed += 1
    return steps / (time.perf_counter() - start)


def batch_rate(fmt: str, obs_type: str, seconds: float, n: int = 64) -> float:
    batch = DuelBatch(n, fmt, obs_type=obs_type)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> None:
        # One uniformly random legal index per game: the largest noise on a legal entry.
        batch.step(np.argmax(rng.random(batch.masks.shape) * batch.masks, axis=1))

    for _ in range(5):
        step()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        steps += n
    return steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("env", choices=("raw", "batch"))
    ap.add_argument("obs_type", choices=("flat", "entity"))
    ap.add_argument("--format", default="classic")
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    rate = raw_rate if args.env == "raw" else batch_rate
    steps = rate(args.format, args.obs_type, args.seconds)
    print(f"{args.env} {args.obs_type} {args.format}: {steps:,.0f} steps/s")


if __name__ == "__main__":
    main()
