"""Export a training checkpoint (.zip, with optimizer state) to a small policy file (.pt,
float16 weights) that `policy:PATH` loads.

    python scripts/export_policy.py runs/ppo/checkpoint.zip mtg_env/data/policies/default.pt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.policy import export_policy, load_model  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    args = ap.parse_args()
    export_policy(load_model(args.checkpoint), args.out)
    print(f"wrote {args.out} ({Path(args.out).stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
