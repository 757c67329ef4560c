"""`mtg-env scenario run` and `mtg-env puzzle run`: scenario files and puzzles."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import DEBUG, clean, command_group, echo, fail, one_line

scenario_app = command_group("Scripted positions (docs: the scenario format).")
puzzle_app = command_group("Puzzles: positions with a goal.")


@scenario_app.command("run")
def scenario_run(
    paths: Annotated[list[str], typer.Argument(help="Scenario files or folders.")],
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print the log of failures.")
    ] = False,
) -> None:
    """Run scenario files: PASS/FAIL per file; exit status 0 only if all pass."""
    from ..scenario import ScenarioError, load_scenario, run_scenario, scenario_paths

    files = scenario_paths(paths)
    if not files:
        fail("no scenario files found")
    failed = malformed = 0
    for f in files:
        try:
            sc = load_scenario(f)
            if sc.model.goal is not None and not sc.model.script:
                continue  # puzzles are solved by agents (mtg-env puzzle run)
            r = run_scenario(sc)
        except KeyboardInterrupt:
            raise
        except Exception as e:  # noqa: BLE001 - one file's crash must not stop the batch
            if DEBUG["on"]:
                raise
            malformed += 1
            msg = one_line(e)
            if not isinstance(e, ScenarioError):
                msg = f"{f}: the runner failed ({type(e).__name__}: {msg})"
            if json_out:
                echo(json.dumps({"path": str(f), "ok": False, "error": msg}))
            else:
                echo(f"ERROR {f}: {msg}")
            continue
        if not r.ok:
            failed += 1
        if json_out:
            echo(
                json.dumps(
                    {
                        "name": r.name,
                        "path": str(f),
                        "ok": r.ok,
                        "message": r.message,
                        "rules": r.rules,
                    }
                )
            )
        elif r.ok:
            echo(f"PASS {r.name}")
        else:
            echo(f"FAIL {r.name}: {r.message}")
            if verbose:
                echo(r.log)
    # Exit 2 for malformed files (bad input), 1 for scenarios that ran and failed.
    raise typer.Exit(2 if malformed else 1 if failed else 0)


@puzzle_app.command("run")
@clean
def puzzle_run(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Puzzle files or folders (default: bundled).")
    ] = None,
    agent: Annotated[str, typer.Option(help="Agent spec playing seat 0.")] = "heuristic",
    opponent: Annotated[str, typer.Option(help="Agent spec playing seat 1.")] = "heuristic",
    seed: Annotated[int, typer.Option(min=0, help="Agent seed.")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """Solve puzzles (scenarios with a goal): SOLVED/UNSOLVED per puzzle."""
    from agents.puzzles import bundled_puzzles, run_puzzle

    from ..scenario import load_scenario, scenario_paths

    files = scenario_paths(paths) if paths else bundled_puzzles()
    solved = 0
    for f in files:
        sc = load_scenario(f)
        if sc.model.goal is None:
            continue
        r = run_puzzle(sc, agent, opponent, seed)
        solved += r.solved
        if json_out:
            echo(json.dumps({"name": r.name, "path": str(f), "solved": r.solved}))
        else:
            echo(f"{'SOLVED' if r.solved else 'UNSOLVED'} {r.name}")
    if not json_out:
        echo(f"{agent}: {solved}/{len(files)} solved")
