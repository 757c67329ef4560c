"""Random play through `raw_env` with the observation and mask computed every step.

    python scripts/bench_env.py --seconds 20

Prints steps per second (each step: `observe()` of the acting agent, a random masked-in
action, `step()`), games per second, and the observation and action sizes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import mtg_env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--format", default="classic")
    args = ap.parse_args()
    env = mtg_env.raw_env(format=args.format)
    rng = np.random.default_rng(0)
    steps = games = 0
    t0 = time.perf_counter()
    seed = 0
    while time.perf_counter() - t0 < args.seconds:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
            del agent
        games += 1
    dt = time.perf_counter() - t0
    print(
        f"format {args.format}: observation {env.layout.n_obs} floats, "
        f"{env.layout.n_actions} actions"
    )
    print(
        f"raw_env random play: {steps / dt:.0f} steps/s, {games / dt:.2f} games/s "
        f"({steps} steps, {games} games, {dt:.1f} s)"
    )


if __name__ == "__main__":
    main()
