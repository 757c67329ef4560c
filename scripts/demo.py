"""`make demo`: the main job on embedded defaults (about 15 minutes on 2 cores).

1. a short self-play MaskablePPO training from scratch (scripts/train_ppo.py), with a
   progress bar;
2. a round-robin tournament among random, heuristic, ISMCTS, the fresh policy and the
   shipped default policy, printing the ratings table and the heatmap's path.

    python scripts/demo.py [--out DIR] [--smoke]

Each run writes a new folder (default `runs/demo/<date-time>`): a tournament folder resumes
only the run that made it, and a second demo trains a new policy.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class DemoConfig:
    train_timesteps: int = 600_000
    bc_games: int = 200
    tournament_games: int = 6  # per pair, seat-swapped
    # A smaller search budget than the default (200) keeps the demo near 15 minutes.
    ismcts: str = "ismcts:60"
    jobs: int = 2


SMOKE = DemoConfig(train_timesteps=256, bc_games=2, tournament_games=2, ismcts="ismcts:3", jobs=1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", default=None, help="output folder (default runs/demo/DATE-TIME)")
    ap.add_argument("--smoke", action="store_true", help="tiny budget, for tests")
    args = ap.parse_args(argv)
    cfg = SMOKE if args.smoke else DemoConfig()
    out = Path(args.out) if args.out else Path("runs/demo") / time.strftime("%Y%m%d-%H%M%S")
    print(f"== output: {out}", flush=True)
    py = sys.executable
    print(f"== 1/2 training a policy from scratch ({cfg.train_timesteps} steps)", flush=True)
    train = [
        py,
        str(ROOT / "scripts" / "train_ppo.py"),
        "--config",
        str(ROOT / "configs" / "train" / "ppo_default.yaml"),
        "--out",
        str(out / "train"),
        "--total-timesteps",
        str(cfg.train_timesteps),
        "--bc-games",
        str(cfg.bc_games),
    ]
    if args.smoke:
        train += ["--smoke", "--no-progress"]
    subprocess.run(train, check=True)
    # The fresh policy next to the shipped default (mtg_env/data/policies/default.safetensors).
    fresh = f"policy:{out / 'train' / 'policy.safetensors'}"
    agents = ["random", "heuristic", cfg.ismcts, fresh, "policy:default"]
    print(f"== 2/2 tournament: {', '.join(agents)}", flush=True)
    subprocess.run(
        [
            py,
            "-m",
            "mtg_env.cli",
            "tournament",
            "--agents",
            ",".join(agents),
            "--games",
            str(cfg.tournament_games),
            "--out",
            str(out / "tournament"),
            "--jobs",
            str(cfg.jobs),
        ],
        check=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
