"""`clone()`, `state_hash()` and `resample_hidden()` per second on fixed seeded states (the
first 60 random decisions of 20 classic games), best of `--repeats`. To compare two
checkouts, run each against its own code in one session, alternating:

    PYTHONPATH=OLD_CHECKOUT python scripts/bench_state.py
    PYTHONPATH=. python scripts/bench_state.py
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from mtg_env.engine import Game, load_decks


def rate(states: list[Game], f: Callable[[Game], object], rounds: int) -> float:
    t = time.perf_counter()
    for _ in range(rounds):
        for g in states:
            f(g)
    return rounds * len(states) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=300)
    args = ap.parse_args()
    decks = load_decks("classic")
    names = sorted(decks)
    states = []
    for seed in range(20):
        g = Game.new((decks[names[seed % 6]], decks[names[(seed + 1) % 6]]), seed=seed)
        r = random.Random(seed)
        for _ in range(60):
            if g.is_over:
                break
            g.apply(r.choice(g.legal_actions()))
        states.append(g)
    n = max(1, args.rounds)
    best = {
        name: max(rate(states, f, k) for _ in range(max(1, args.repeats)))
        for name, f, k in (
            ("clone", lambda g: g.clone(), n),
            ("state_hash", lambda g: g.state_hash(), max(1, n // 5)),
            ("resample_hidden", lambda g: g.resample_hidden(0, 1), max(1, n // 2)),
        )
    }
    print("  ".join(f"{k}/s {v:,.0f}" for k, v in best.items()))


if __name__ == "__main__":
    main()
