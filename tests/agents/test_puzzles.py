"""Bundled puzzles: each has a winning line that meets its goal; agents are scored."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agents.puzzles import bundled_puzzles, run_puzzle
from mtg_env.cli import app
from mtg_env.scenario import check_solution, load_scenario

PUZZLES = bundled_puzzles()


def test_at_least_ten_bundled_puzzles() -> None:
    assert len(PUZZLES) >= 10


@pytest.mark.parametrize("path", PUZZLES, ids=lambda p: p.stem)
def test_puzzle_solution_meets_goal(path) -> None:
    r = check_solution(load_scenario(path))
    assert r.ok, f"{r.name}: {r.message}\n{r.log}"


def test_heuristic_solves_more_puzzles_than_random() -> None:
    h = sum(run_puzzle(load_scenario(p), "heuristic").solved for p in PUZZLES)
    r = sum(run_puzzle(load_scenario(p), "random").solved for p in PUZZLES)
    assert h >= 9 and h > r


def test_puzzle_cli() -> None:
    res = CliRunner().invoke(app, ["puzzle", "run", "--agent", "heuristic", str(PUZZLES[1])])
    assert res.exit_code == 0 and res.output.startswith("SOLVED")
