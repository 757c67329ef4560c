"""Puzzles: scenario files with a `goal` (docs/scenarios.md), solved by an agent playing seat 0
against an opponent agent (the heuristic by default)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mtg_env.scenario import Scenario, build, goal_status

from .base import make_agent

BUNDLED = Path(__file__).resolve().parent.parent / "mtg_env" / "data" / "puzzles"


@dataclass
class PuzzleResult:
    name: str
    path: str
    solved: bool
    turns: int
    log: str


def run_puzzle(
    sc: Scenario, agent: str, opponent: str = "heuristic", seed: int = 0
) -> PuzzleResult:
    m = sc.model
    if m.goal is None:
        raise ValueError(f"{sc.path}: not a puzzle (no goal)")
    g, _ = build(sc, auto_pass=True)
    players = [
        make_agent(agent, seed * 2 + 1, fmt=m.format),
        make_agent(opponent, seed * 2 + 2, fmt=m.format),
    ]
    status = goal_status(g, m.goal, m.setup.turn)
    while status is None:
        p = g.current_player
        assert p is not None
        g.apply(players[p].choose(g))
        status = goal_status(g, m.goal, m.setup.turn)
    return PuzzleResult(m.name, sc.path, status, g.turn - m.setup.turn + 1, g.log_text())


def bundled_puzzles(fmt: str = "classic") -> list[Path]:
    return sorted((BUNDLED / fmt).glob("*.yaml"))
