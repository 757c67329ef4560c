"""Tournaments: results appended per game, resume after an interruption, summary files."""

from __future__ import annotations

import json
from pathlib import Path

from agents.tournament import elo_fit, read_games, run_tournament


def test_tournament_writes_results_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "t"
    s1 = run_tournament(["random", "heuristic", "ismcts:3"], 2, out, jobs=1, seed=1)
    rows = read_games(out / "games.csv")
    assert len(rows) == 6 and s1["games"] == 6
    assert (out / "heatmap.png").stat().st_size > 1000
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["elo"]) == {"random", "heuristic", "ismcts:3"}
    # Interrupt: drop two finished games and leave a torn last line, as a kill would.
    lines = (out / "games.csv").read_text().splitlines()
    (out / "games.csv").write_text("\n".join(lines[:-2]) + "\nrandom|heuristic|0|1,rand")
    calls = []
    s2 = run_tournament(
        ["random", "heuristic", "ismcts:3"],
        2,
        out,
        jobs=1,
        seed=1,
        progress=lambda n, total: calls.append((n, total)),
    )
    assert calls[0] == (0, 2)  # only the two missing games are played again
    rows2 = read_games(out / "games.csv")
    assert len(rows2) == 6
    assert sorted(r["key"] for r in rows2) == sorted(r["key"] for r in rows)
    assert s2["win_rate"] == s1["win_rate"]


def test_elo_fit_orders_agents() -> None:
    wins = [[0, 9, 10], [1, 0, 8], [0, 2, 0]]
    games = [[0, 10, 10], [10, 0, 10], [10, 10, 0]]
    elo = elo_fit(["a", "b", "c"], wins, games)
    assert elo["a"] > elo["b"] > elo["c"]
    assert abs(sum(elo.values()) / 3 - 1500) < 60


def test_tournament_with_a_policy_agent_in_parallel_workers_finishes(tmp_path: Path) -> None:
    # Regression: forked workers of a process that had used torch hung on the first policy
    # game; workers are spawned now. Run as a subprocess so a hang fails by timeout.
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    policy = root / "mtg_env" / "data" / "policies" / "default.safetensors"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mtg_env.cli",
            "tournament",
            "--agents",
            f"random,policy:{policy}",
            "--games",
            "2",
            "--out",
            str(tmp_path / "t"),
            "--jobs",
            "2",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 0, r.stderr
    assert len(read_games(tmp_path / "t" / "games.csv")) == 2
