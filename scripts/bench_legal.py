"""Cost of `legal_actions()` per call with the characteristics cache and without it.

Plays seeded random games; at every decision it times (a) a fresh legal-action
computation with cached characteristics (what the engine does) and (b) the same after
forcing a full layer recomputation (what every call would cost without the cache).

    python scripts/bench_legal.py --games 30
"""

from __future__ import annotations

import argparse
import random
import time

from mtg_env.engine import Game, load_decks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=30)
    args = ap.parse_args()
    decks = load_decks("classic")
    names = sorted(decks)
    cached = uncached = 0.0
    n = 0
    for i in range(args.games):
        g = Game.new((decks[names[i % len(names)]], decks[names[(i + 1) % len(names)]]), seed=i)
        r = random.Random(i)
        while not g.is_over:
            g.chars(0)  # make sure the cache is warm, as after any apply()
            g._legal = None
            t0 = time.perf_counter()
            legal = g.legal_actions()
            t1 = time.perf_counter()
            g._legal = None
            g._dirty = True
            g.legal_actions()
            t2 = time.perf_counter()
            cached += t1 - t0
            uncached += t2 - t1
            n += 1
            g.apply(r.choice(legal))
    print(f"decisions: {n}")
    print(f"legal_actions() with the characteristics cache: {1e6 * cached / n:.1f} us/call")
    print(f"legal_actions() recomputing the layers each call: {1e6 * uncached / n:.1f} us/call")


if __name__ == "__main__":
    main()
