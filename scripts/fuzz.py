"""Long invariant-fuzzing runs (the CI-sized run is in tests/test_fuzz.py).

    python scripts/fuzz.py --decisions 1000000 [--seed 1] [--out fuzz_failures/]
    python scripts/fuzz.py --replay fuzz_failures/fuzz_fail_classic_12.json

Exit status 1 if any invariant failed (each failure wrote a replay that reproduces it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mtg_env.fuzz import check_replay, run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decisions", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="fuzz_failures")
    ap.add_argument("--replay", help="re-run the checks along a failure's replay file")
    args = ap.parse_args()
    if args.replay:
        err = check_replay(args.replay)
        print(err or f"no invariant fails along {args.replay}")
        return 1 if err else 0
    t0 = time.perf_counter()
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
