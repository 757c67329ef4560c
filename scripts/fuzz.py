"""Long invariant-fuzzing runs (the CI-sized run is in tests/tools/test_fuzz.py).

    python scripts/fuzz.py --decisions 1000000 [--seed 1] [--out fuzz_failures/]
    python scripts/fuzz.py --decisions 1000000 --random-decks core   # generated decks
    python scripts/fuzz.py --decisions 200000 --cards runs/cards/cards.yaml  # a compiled pool
    python scripts/fuzz.py --replay fuzz_failures/fuzz_fail_classic_12.json

Exit status 1 if any invariant failed (each failure wrote a replay that reproduces it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mtg_env.tools.fuzz import check_replay, run


def _count(low: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least `low` (argparse reports anything else as a
    usage error, exit status 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is less than {low}")
        return value

    return parse


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decisions", type=_count(1), default=200_000)
    ap.add_argument("--seed", type=_count(0), default=0)
    ap.add_argument("--out", default="fuzz_failures")
    ap.add_argument("--replay", help="re-run the checks along a failure's replay file")
    ap.add_argument(
        "--random-decks",
        metavar="FORMAT",
        help="every game two new seeded random decks of FORMAT (mtg_env.decks) instead of "
        "the bundled decks of every format",
    )
    ap.add_argument(
        "--cards",
        metavar="FILE",
        help="a card-set file `mtg-env cards compile` wrote: random decks of that pool, with "
        "the core rules (mtg_env.oracle.pool)",
    )
    args = ap.parse_args()
    if args.cards:
        from mtg_env.oracle.pool import load_pool

        try:
            args.random_decks = load_pool(args.cards)
        except (ValueError, OSError) as e:  # a bad card-set file: one line
            print(f"error: {e}", file=sys.stderr)
            return 2
    if args.replay:
        try:
            err = check_replay(args.replay)
        except (ValueError, OSError) as e:  # an unreadable or malformed replay: one line
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(err or f"no invariant fails along {args.replay}")
        return 1 if err else 0
    t0 = time.perf_counter()
    if args.random_decks:
        stats = run(
            args.decisions,
            seed=args.seed,
            formats=(args.random_decks,),
            out_dir=Path(args.out),
            random_decks=True,
        )
    else:
        stats = run(args.decisions, seed=args.seed, out_dir=Path(args.out), progress=True)
    dt = time.perf_counter() - t0
    for f in stats.failures:
        print("FAIL", f)
    print(
        f"{stats.decisions} decisions in {stats.games} games, {len(stats.failures)} "
        f"failure(s), {dt:.0f} s ({stats.decisions / dt:.0f} decisions/s checked)"
    )
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
