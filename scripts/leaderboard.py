"""The leaderboard: `mtg-env evaluate` for a fixed set of agents on each deck set, written
under docs/results/leaderboard/ (the docs page `leaderboard.md` is built from these files
by docs/hooks.py).

    python scripts/leaderboard.py --anchors     # measure and pin the anchors (once)
    python scripts/leaderboard.py               # evaluate every row (resumable)
    python scripts/leaderboard.py --smoke --out DIR --anchors-file FILE   # tiny (tests)

One job per file (CleanRL style): the configuration is the dataclass below. `--anchors`
plays the round robin between the anchors of each deck set on the evaluation schedule and
writes their fitted ratings (random pinned at 1000) to the anchors file, with the command
that produced them, and the round robin's games beside the results. The rows are then
evaluated against those pinned anchors; each row is one results file, resumable (rerun
the same command after an interruption) and refused if made with another configuration.
`policy:default` is a classic-format policy: the core rows leave it out and rate instead the
policy trained on the core training decks only (docs/results/core_heldout_policy/).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from agents.evaluate import evaluate, measure_anchors
from agents.results import ANCHORS_FILE, write_anchors

ROOT = Path(__file__).resolve().parents[1]


@dataclasses.dataclass(frozen=True)
class Config:
    """What the leaderboard plays. Game counts were chosen from measured game times so that
    a full run (anchors, then rows) fits in about half an hour on one core."""

    out: Path = ROOT / "docs" / "results" / "leaderboard"
    anchors_file: Path = ANCHORS_FILE
    seed: int = 0
    # The anchors of each deck set, in order (random first: pinned at 1000).
    anchors: dict[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {
            "classic": ("random", "heuristic", "ismcts:10", "policy:default"),
            "core-heldout": ("random", "heuristic", "ismcts:10"),
        }
    )
    anchor_games: int = 40  # per pair of anchors
    # The rows of each deck set.
    rows: dict[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {
            "classic": ("random", "heuristic", "policy:default", "ismcts:10", "ismcts:50"),
            # The v1 policy trained on the core training decks only (docs/agents.md).
            "core-heldout": (
                "random",
                "heuristic",
                "ismcts:10",
                "ismcts:50",
                "policy:docs/results/core_heldout_policy/policy.safetensors",
            ),
        }
    )
    games: int = 16  # per anchor, for each row


SMOKE = {
    "anchors": {"classic": ("random", "heuristic"), "core-heldout": ("random", "heuristic")},
    "anchor_games": 2,
    "rows": {"classic": ("random", "ismcts:2"), "core-heldout": ("heuristic",)},
    "games": 2,
}


def slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec)


def _rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def run_anchors(cfg: Config) -> None:
    for ds, specs in cfg.anchors.items():
        t = time.perf_counter()
        out = cfg.out / f"anchors__{ds}.json"
        res = measure_anchors(list(specs), ds, cfg.anchor_games, cfg.seed, out=out)
        cmd = "python scripts/leaderboard.py --anchors"
        if cfg.anchor_games != Config.anchor_games or cfg.out != Config.out:
            cmd += f" (anchor_games={cfg.anchor_games}, out={_rel(cfg.out)})"
        entry = {
            "command": cmd,
            "games_per_pair": res["config"]["games"],
            "seed": cfg.seed,
            "games_file": _rel(out),
            "code": res["code_digests"],
            "anchors": [
                {
                    "spec": s,
                    "rating": res["ratings"][s]["rating"],
                    **({"ci95": res["ratings"][s]["ci95"]} if "ci95" in res["ratings"][s] else {}),
                }
                for s in specs
            ],
        }
        write_anchors(cfg.anchors_file, ds, entry)
        ratings = ", ".join(f"{s} {res['ratings'][s]['rating']}" for s in specs)
        print(f"{ds}: {ratings} ({time.perf_counter() - t:.0f} s)", flush=True)


def run_rows(cfg: Config) -> None:
    for ds, specs in cfg.rows.items():
        for spec in specs:
            t = time.perf_counter()
            out = cfg.out / f"{ds}__{slug(spec)}.json"
            cmd = f"mtg-env evaluate {spec} --decks {ds} --games {cfg.games} --out {_rel(out)}"
            if cfg.seed:
                cmd += f" --seed {cfg.seed}"
            res = evaluate(
                spec,
                ds,
                cfg.games,
                cfg.seed,
                out=out,
                anchors_file=cfg.anchors_file,
                command=cmd,
            )
            r = res["rating"]
            print(
                f"{ds} {spec}: {r['elo']} ({r['ci95'][0]}-{r['ci95'][1]}), "
                f"{res['games_played']} games, {time.perf_counter() - t:.0f} s",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--anchors", action="store_true", help="Measure and pin the anchors.")
    ap.add_argument("--smoke", action="store_true", help="Tiny budgets (tests).")
    ap.add_argument("--out", type=Path, help="Folder for the results files.")
    ap.add_argument("--anchors-file", type=Path, help="The anchors file (read and written).")
    args = ap.parse_args(argv)
    kw: dict = dict(SMOKE) if args.smoke else {}
    if args.out is not None:
        kw["out"] = args.out
    if args.anchors_file is not None:
        kw["anchors_file"] = args.anchors_file
    cfg = Config(**kw)
    try:
        if args.anchors:
            run_anchors(cfg)
        else:
            run_rows(cfg)
    except (ValueError, OSError) as e:
        print(f"error: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
