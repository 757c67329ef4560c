"""The `mtg-env` command."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="mtg_env: a Magic-style card game engine and RL environment.",
)
scenario_app = typer.Typer(no_args_is_help=True, help="Scripted positions (DESIGN §5).")
app.add_typer(scenario_app, name="scenario")


def _fail(msg: str) -> None:
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


@scenario_app.command("run")
def scenario_run(
    paths: Annotated[list[str], typer.Argument(help="Scenario files or folders.")],
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print the log of failures.")
    ] = False,
) -> None:
    """Run scenario files: PASS/FAIL per file; exit status 0 only if all pass."""
    from .scenario import ScenarioError, load_scenario, run_scenario, scenario_paths

    files = scenario_paths(paths)
    if not files:
        _fail("no scenario files found")
    failed = 0
    for f in files:
        try:
            sc = load_scenario(f)
            if sc.model.goal is not None and not sc.model.script:
                continue  # puzzles are solved by agents (mtg-env puzzle run)
            r = run_scenario(sc)
        except ScenarioError as e:
            failed += 1
            if json_out:
                typer.echo(json.dumps({"path": str(f), "ok": False, "error": str(e)}))
            else:
                typer.echo(f"ERROR {f}: {e}")
            continue
        if not r.ok:
            failed += 1
        if json_out:
            typer.echo(
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
            typer.echo(f"PASS {r.name}")
        else:
            typer.echo(f"FAIL {r.name}: {r.message}")
            if verbose:
                typer.echo(r.log)
    raise typer.Exit(1 if failed else 0)


@app.command()
def watch(
    seed: Annotated[int, typer.Option(help="Game seed (decks shuffle, first player).")] = 0,
    agents: Annotated[
        str, typer.Option(help="Two agent specs, comma separated.")
    ] = "random,random",
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    decks: Annotated[
        str | None, typer.Option(help="DECK_A,DECK_B: bundled names or YAML paths.")
    ] = None,
    board: Annotated[bool, typer.Option(help="Print the board at the start of every turn.")] = True,
    explain: Annotated[
        str | None,
        typer.Option(
            help="A card name: with each board, list the continuous effects applied to "
            "permanents of that name, layer by layer (CR 613)."
        ),
    ] = None,
) -> None:
    """Watch a game between two agents, as a readable log with the result."""
    from agents import make_agent

    from .engine import CardDataError, Game, load_decks
    from .render import render

    try:
        specs = [s.strip() for s in agents.split(",")]
        if len(specs) != 2:
            _fail("--agents needs two specs, e.g. random,random")
        players = [make_agent(s, seed * 2 + i) for i, s in enumerate(specs)]
        bundled = load_decks(fmt)
        if decks:
            names = [d.strip() for d in decks.split(",")]
            if len(names) != 2:
                _fail("--decks needs two decks, e.g. 'Green Stompy,Red Burn'")
            deck_pair = names
        else:
            order = sorted(bundled)
            deck_pair = [order[seed % len(order)], order[(seed + 1) % len(order)]]
        game = Game.new(deck_pair, seed=seed, format=fmt)
    except (CardDataError, ValueError) as e:
        _fail(str(e))
        return
    typer.echo(
        f"Decks: player 0 {deck_pair[0]!r} ({specs[0]}), player 1 {deck_pair[1]!r} ({specs[1]})"
    )
    shown = 0
    last_turn = -1
    while not game.is_over:
        p = game.current_player
        assert p is not None
        game.apply(players[p].choose(game))
        ev = game.events
        if board and game.turn != last_turn and not game.is_over:
            text = game.log_text(ev[shown:])
            if text:
                typer.echo(text)
            shown = len(ev)
            typer.echo("--- board ---\n" + render(game) + "\n-------------")
            if explain:
                for cid in game.battlefield:
                    if explain in (game.chars(cid).name, game.cdef[cid].name):
                        typer.echo("\n".join(game.explain(cid)))
            last_turn = game.turn
    typer.echo(game.log_text(game.events[shown:]))
    result = "draw" if game.winner is None else f"player {game.winner} ({specs[game.winner]}) wins"
    typer.echo(f"Result: {result} after {game.turn} turns and {game.n_decisions} decisions")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
