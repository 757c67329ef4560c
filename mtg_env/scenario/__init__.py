"""Scenario files (docs/scenarios.md): set up a position, run a script of actions, check
expectations. The same files serve as rules tests, puzzles and bug reports.

    from mtg_env.scenario import load_scenario, run_scenario
    path = "tests/scenarios/classic/cr_302_6_summoning_sickness.yaml"
    result = run_scenario(load_scenario(path))
    print(result.ok, result.message)

A malformed file raises `ScenarioError` naming the file, the entry and the field; a
scenario whose expectations fail returns a result with `ok=False` and what differed
(expected vs actual). Every field of every step and expectation is type-checked when the
file is loaded, so no check can pass by accident: a list field given a lone string
(`lacks_keywords: flying`) is an error, not a list of letters. Labels are unique, non-empty,
and may not be a card name of the format or `player0`/`player1`. Pass counts are bounded,
and so is every loop that passes, so no scenario runs forever. The format: docs/scenarios.md.

The package: the file's schema and load-time checks (`schema`), running it (`runner`).
"""

from __future__ import annotations

from .runner import (
    Runner,
    build,
    check_solution,
    goal_status,
    run_scenario,
    run_steps,
    scenario_paths,
)
from .schema import (
    MAX_AUTO_DECISIONS,
    MAX_PASSES,
    Result,
    Scenario,
    ScenarioError,
    ScenarioFailure,
    load_scenario,
    parse_scenario,
)

__all__ = [
    "MAX_AUTO_DECISIONS",
    "MAX_PASSES",
    "Result",
    "Runner",
    "Scenario",
    "ScenarioError",
    "ScenarioFailure",
    "build",
    "check_solution",
    "goal_status",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
    "run_steps",
    "scenario_paths",
]
