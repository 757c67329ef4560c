"""Tournaments: results appended per game, resume after an interruption, summary files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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

    root = Path(__file__).resolve().parents[2]
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


LATE_NONE = """
class LateNone:
    # Plays its first pair of games, then returns None: those games must be kept.
    def __init__(self, seed=0):
        self.seed = seed

    def choose(self, game):
        return None if self.seed > 2 else game.legal_actions()[0]
"""


def test_a_plugin_that_breaks_the_protocol_is_one_line_in_match_and_tournament(
    tmp_path: Path,
) -> None:
    """`choose` returning None was an internal TypeError; now one line naming the spec and
    the decision (exit status 2), and a tournament keeps its finished games."""
    import subprocess
    import sys

    (tmp_path / "late.py").write_text(LATE_NONE)
    mtg_env = str(Path(sys.executable).parent / "mtg-env")
    out = tmp_path / "t"
    runs = {
        "match": ["match", "late.py:LateNone", "random", "--games", "4"],
        "tournament": ["tournament", "--agents", "random,late.py:LateNone", "--out", str(out)],
    }
    for name, args in runs.items():
        r = subprocess.run(
            [mtg_env, *args, "--games", "4"] if name == "tournament" else [mtg_env, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 2, (name, r.returncode, r.stderr)
        assert "Traceback" not in r.stdout + r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, (name, lines)
        assert lines[0].startswith("error: agent spec 'late.py:LateNone': choose() returned None")
        assert "at decision " in lines[0] and "not one of its" in lines[0], lines[0]
    assert "every finished game is in" in lines[0]
    kept = sorted(r["key"] for r in read_games(out / "games.csv"))
    assert kept == ["random|late.py:LateNone|0|0", "random|late.py:LateNone|0|1"]


ALWAYS_NONE = """
class AlwaysNone:
    def choose(self, game):
        return None
"""


@pytest.mark.parametrize(
    "args",
    [
        ["heldout", "always.py:AlwaysNone", "--games", "2"],
        ["puzzle", "run", "--agent", "always.py:AlwaysNone"],
    ],
    ids=["heldout", "puzzle run"],
)
def test_every_command_that_plays_a_plugin_checks_it(tmp_path: Path, args: list[str]) -> None:
    """`make_agent` guards every plug-in it builds: the held-out benchmark and the puzzles
    say the plug-in's fault in one line too, instead of an internal error."""
    import subprocess
    import sys

    (tmp_path / "always.py").write_text(ALWAYS_NONE)
    mtg_env = str(Path(sys.executable).parent / "mtg-env")
    r = subprocess.run([mtg_env, *args], cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: agent spec 'always.py:AlwaysNone': choose() returned None")
