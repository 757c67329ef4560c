"""Playing games: `match` (paired games with an interval), `watch` (one game as a log)
and `play` (a human against an agent in the terminal)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import (
    MAX_GAMES,
    check_output,
    clean,
    echo,
    fail,
    make_players,
    markup,
    pick_decks,
    spec_files,
    write_records,
)


@clean
def match(
    agent_a: Annotated[str, typer.Argument(help="Agent spec A (random, heuristic, ...).")],
    agent_b: Annotated[str, typer.Argument(help="Agent spec B.")],
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="Number of games (pairs with seats swapped).")
    ] = 100,
    seed: Annotated[int, typer.Option(min=0, help="Base seed.")] = 0,
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    decks: Annotated[
        str | None, typer.Option(help="DECK_A,DECK_B (default: cycle every bundled pair).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    records: Annotated[
        str | None,
        typer.Option(
            help="Also write one CSV row per game here (seed, seat and deck of each agent, "
            "winner, turns, decisions): which pairings and game lengths are lost."
        ),
    ] = None,
) -> None:
    """Seat-swapped paired games between two agents, with a Wilson 95% interval."""
    from rich.progress import Progress

    from agents.base import make_agent
    from agents.match import run_match

    from ..engine import resolve_deck

    make_agent(agent_a, fmt=fmt)  # validate the specs before playing
    make_agent(agent_b, fmt=fmt)
    deck_list = [d.strip() for d in decks.split(",")] if decks else None
    if deck_list is not None and len(deck_list) != 2:
        fail("--decks needs two decks")
    for deck in deck_list or []:
        resolve_deck(deck, fmt)  # a bad deck is one line before any game is played
    if records is not None:  # before the games, not after
        check_output(records, spec_files(agent_a, agent_b, decks or ""), "--records")
    with Progress(transient=True, disable=json_out) as bar:
        task = bar.add_task(f"{markup(agent_a)} vs {markup(agent_b)}", total=games + games % 2)
        res = run_match(
            agent_a,
            agent_b,
            games,
            seed=seed,
            fmt=fmt,
            decks=deck_list,
            progress=lambda n: bar.update(task, advance=n),
        )
    d = res.to_dict()
    if res.interrupted:
        d["interrupted"] = True
    if records is not None:
        write_records(records, res.records)
    if json_out:
        echo(json.dumps(d))
    else:
        echo(
            f"{agent_a} vs {agent_b}: {d['wins_a']}-{d['wins_b']}-{d['draws']} over "
            f"{d['games']} games; win rate of {agent_a} {d['win_rate_a']:.3f} "
            f"(95% CI {d['ci95'][0]:.3f}-{d['ci95'][1]:.3f})"
        )
    if res.interrupted:
        echo(
            f"interrupted after {res.games} of {games + games % 2} games (the result above "
            "counts the finished games only)",
            err=True,
        )
        raise typer.Exit(130)


@clean
def watch(
    seed: Annotated[int, typer.Option(min=0, help="Game seed (decks shuffle, first player).")] = 0,
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
    from ..engine import Game
    from ..render import render

    specs, players = make_players(agents, seed, fmt)
    deck_pair = pick_decks(fmt, decks, seed)
    game = Game.new(deck_pair, seed=seed, format=fmt)
    echo(
        f"Decks: player 0 {deck_pair[0].name!r} ({specs[0]}), "
        f"player 1 {deck_pair[1].name!r} ({specs[1]})"
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
                echo(text)
            shown = len(ev)
            echo("--- board ---\n" + render(game) + "\n-------------")
            if explain:
                for cid in game.battlefield:
                    if explain in (game.chars(cid).name, game.cdef[cid].name):
                        echo("\n".join(game.explain(cid)))
            last_turn = game.turn
    echo(game.log_text(game.events[shown:]))
    result = "draw" if game.winner is None else f"player {game.winner} ({specs[game.winner]}) wins"
    echo(f"Result: {result} after {game.turn} turns and {game.n_decisions} decisions")


@clean
def play(
    opponent: Annotated[
        str, typer.Option(help="Agent spec to play against (random, heuristic, ismcts, ...).")
    ] = "heuristic",
    seat: Annotated[int, typer.Option(min=0, max=1, help="Your seat: 0 or 1.")] = 0,
    seed: Annotated[int, typer.Option(min=0, help="Game seed (decks shuffle, first player).")] = 0,
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    decks: Annotated[
        str | None, typer.Option(help="DECK_A,DECK_B for seats 0 and 1: names or YAML paths.")
    ] = None,
    save: Annotated[
        str | None, typer.Option(help="Replay file to write (default: replays/play-SEED.json).")
    ] = None,
) -> None:
    """Play against an agent in the terminal: enter the number of an action at each
    decision (q quits; the game is saved as a replay either way)."""
    from ..play import play as play_game

    if save is not None:
        check_output(save, spec_files(opponent, decks or ""), "--save")
    pair = pick_decks(fmt, decks, seed)
    play_game(opponent, seat, seed, fmt, pair, input_fn=input, output_fn=echo, save=save)
