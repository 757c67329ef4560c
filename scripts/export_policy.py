"""Export the policy of a training checkpoint (`checkpoint.pt`, written by
scripts/train_ppo.py, with optimizer state) to a policy file that `policy:PATH` loads
(`.safetensors`, float16 weights and the network's description). The checkpoint is data
only: nothing in it runs. (A pickled sb3 `.zip` or an old `.pt` policy you trust converts
with `mtg-env --trust-pickle policy convert`.)

    python scripts/export_policy.py runs/ppo/checkpoint.pt runs/ppo/now.safetensors
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from train_ppo import policy_from_checkpoint

from agents.policy import CheckpointError, export_policy
from mtg_env.io import OutputPathError


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    args = ap.parse_args()
    try:
        export_policy(policy_from_checkpoint(Path(args.checkpoint)), args.out)
    except (CheckpointError, OutputPathError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({Path(args.out).stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
