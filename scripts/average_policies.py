"""Average the weights of policies of one network into one policy file that `policy:PATH`
loads: snapshots of one training run, or the final policies of runs fine-tuned from the
same starting policy.

    python scripts/average_policies.py --out runs/avg.safetensors \\
        runs/ppo/snapshots/snap_2500000.safetensors runs/ppo/snapshots/snap_3000000.safetensors \\
        runs/ppo/policy.safetensors

Late snapshots of a fine-tuning run sit close together in weight space, and their average
is a cheap ensemble (stochastic weight averaging, applied after the fact). Runs fine-tuned
from one policy with different seeds can be averaged the same way (a "model soup"): here
the average of two such runs scored above both against the heuristic and between them
against random (docs/agents.md, "Every run of the recipe's development"). Averaging runs that
started from different policies is not meaningful and is not detected, since only the
network is checked: every input must be the same network (same class, constructor
arguments and parameter shapes), and a mismatch names the file and the parameter.
"""

from __future__ import annotations

import argparse
import sys

import torch

from agents.policy import CheckpointError, export_policy, load_model


def average_policies(paths: list[str], out: str) -> None:
    if len(paths) < 2:
        raise CheckpointError("averaging needs at least two policy files")
    policies = [load_model(p) for p in paths]
    first = policies[0]
    dicts = [pol.state_dict() for pol in policies]
    ref = dicts[0]
    for p, pol, sd in zip(paths[1:], policies[1:], dicts[1:], strict=True):
        if type(pol) is not type(first):
            raise CheckpointError(
                f"{p}: a {type(pol).__name__}, but {paths[0]} is a {type(first).__name__}"
            )
        if sd.keys() != ref.keys():
            differ = sorted(ref.keys() ^ sd.keys())
            raise CheckpointError(f"{p}: parameters differ from {paths[0]}: {differ[:3]}")
        for k, v in sd.items():
            if v.shape != ref[k].shape:
                raise CheckpointError(
                    f"{p}: parameter {k} has shape {tuple(v.shape)}, "
                    f"{paths[0]} has {tuple(ref[k].shape)}"
                )
            if not v.is_floating_point() and not torch.equal(v, ref[k]):
                raise CheckpointError(f"{p}: index buffer {k} differs from {paths[0]}'s")
    avg = {}
    for k, v in ref.items():
        if v.is_floating_point():
            avg[k] = sum(sd[k].float() for sd in dicts) / len(dicts)
        else:  # index buffers (the slot head's action tables): equal in every input
            avg[k] = v
    # A new network: load_model caches by path, so the loaded ones are left untouched.
    merged = type(first)(**first._get_constructor_parameters())
    merged.load_state_dict(avg)
    export_policy(merged, out)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("policies", nargs="+", help="policy files (.safetensors) of one network")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        average_policies(args.policies, args.out)
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: the average of {len(args.policies)} policies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
