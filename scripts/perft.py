"""Print perft counts, or pin them: `python scripts/perft.py --regen` rewrites
tests/data/perft.json (do this only when a rules change is intended)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mtg_env.io import atomic_write_text
from mtg_env.tools.perft import table

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "perft.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--regen", action="store_true", help="rewrite the pinned counts")
    args = ap.parse_args()
    rows = table()
    for r in rows:
        print(
            f"{r['deck_a']} vs {r['deck_b']} seed {r['seed']} after {r['advance']}: "
            f"perft({r['depth']}) = {r['count']}"
        )
    if args.regen:
        atomic_write_text(DATA, json.dumps(rows, indent=1) + "\n")
        print(f"wrote {DATA}")


if __name__ == "__main__":
    main()
