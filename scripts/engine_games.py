"""A fixed engine workload: `--games` seeded games of random legal play on a format's
decks (the games `mtg-env bench` times), printing the decisions made and decisions/s.
With `--env`, the same number of games through `raw_env` (observation, mask and replay
included, the loop `mtg-env bench` times for `raw_env`), printing steps and steps/s.

Its use is a timing-free comparison of two engines, where a shared machine makes
wall-clock figures swing by tens of percent: the instructions each executes, counted by
valgrind's callgrind, minus those of the same run with `--games 0` (start-up and imports),
per decision:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python scripts/engine_games.py --games 60     # "Collected : N"
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python scripts/engine_games.py --games 0

with `PYTHONHASHSEED=0` for both, and `PYTHONPATH=OTHER_CHECKOUT` for the other engine.
`--callgrind-out-file=FILE` and `callgrind_annotate --inclusive=yes FILE` give the share of
each compiled function (`Game.apply`, `Layout.observe`, `Game.state_hash`, ...).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from mtg_env.engine import Game, load_decks
from mtg_env.engine.formats import FORMATS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--format", default="classic", choices=sorted(FORMATS))
    ap.add_argument(
        "--env", action="store_true", help="play through raw_env (observations, masks, replay)"
    )
    args = ap.parse_args()
    if args.games < 0:
        ap.error("--games must be 0 or more")
    if args.env:
        env_games(args.games, args.format)
        return
    # The bench's engine games, written out with the engine API alone, so that the script
    # also drives an older checkout's engine (PYTHONPATH=) whose bench differs.
    by_name = load_decks(args.format)
    decks = [by_name[k] for k in sorted(by_name)]
    n = 0
    t = time.perf_counter()
    for i in range(args.games):
        pair = (decks[i % len(decks)], decks[(i + 1) % len(decks)])
        g = Game.new(pair, seed=i, format=args.format)
        r = random.Random(i)
        while not g.is_over:
            g.apply(r.choice(g.legal_actions()))
            n += 1
    dt = time.perf_counter() - t
    print(f"{n} decisions, {n / dt if dt else 0:.0f} decisions/s")


def env_games(games: int, fmt: str) -> None:
    # Imported here: the engine workload above measures the engine without the env.
    from mtg_env.env import raw_env
    from mtg_env.tools.bench import aec_game

    env = raw_env(format=fmt)
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    n = sum(aec_game(env, rng, seed) for seed in range(games))
    dt = time.perf_counter() - t
    print(f"{n} steps, {n / dt if dt else 0:.0f} steps/s")


if __name__ == "__main__":
    main()
