"""`mtg-env replay record|verify|show|html`: replays."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import check_output, clean, command_group, echo, make_players, pick_decks, spec_files

replay_app = command_group("Record, verify and show replays.")


@replay_app.command("record")
@clean
def replay_record(
    out: Annotated[str, typer.Option(help="Replay file to write (JSON).")],
    seed: Annotated[int, typer.Option(min=0, help="Game seed.")] = 0,
    agents: Annotated[str, typer.Option(help="Two agent specs.")] = "random,random",
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    decks: Annotated[str | None, typer.Option(help="DECK_A,DECK_B")] = None,
) -> None:
    """Play a game between two agents and record it as a replay."""
    from ..engine import Game
    from ..env.replay import Recorder

    check_output(out, spec_files(agents, decks or ""))  # before the game, not after
    specs, players = make_players(agents, seed, fmt)
    pair = pick_decks(fmt, decks, seed)
    game = Game.new(pair, seed=seed, format=fmt)
    rec = Recorder(game, pair, seed, agents=specs)
    while not game.is_over:
        p = game.current_player
        assert p is not None
        rec.apply(players[p].choose(game))
    rec.save(out)
    res = "draw" if game.winner is None else f"player {game.winner} wins"
    echo(f"recorded {len(rec.actions)} decisions ({res}) to {out}")


@replay_app.command("verify")
@clean
def replay_verify(file: Annotated[str, typer.Argument(help="Replay file.")]) -> None:
    """Re-simulate a replay and check every hash (exit 0 only if it reproduces)."""
    from ..env.replay import load_replay, verify

    m = load_replay(file)
    g = verify(m)
    echo(
        f"OK {file}: {len(m.actions)} decisions, {m.hashes_checked} hashes checked, "
        f"final hash {g.state_hash()}"
    )


@replay_app.command("show")
@clean
def replay_show(file: Annotated[str, typer.Argument(help="Replay file.")]) -> None:
    """Print the readable log of a replay."""
    from ..env.replay import load_replay, verify

    m = load_replay(file)
    g = verify(m)
    echo(
        f"Decks: {m.decks[0].name} vs {m.decks[1].name}; seed {m.seed}; "
        f"agents {', '.join(m.agents) or 'unknown'}"
    )
    echo(g.log_text())


@replay_app.command("html")
@clean
def replay_html(
    file: Annotated[str, typer.Argument(help="Replay file.")],
    out: Annotated[
        str | None, typer.Option(help="HTML file to write (default: FILE with .html).")
    ] = None,
) -> None:
    """Write a self-contained HTML page that steps through a replay (opens offline)."""

    from ..env.replay import load_replay
    from ..io import atomic_write_text
    from ..viewer import render_html, replay_frames

    dest = Path(out) if out is not None else Path(file).with_suffix(".html")
    # Before the work, not after.
    check_output(dest, [file], "--out" if out is not None else "the page (FILE with .html)")
    m = load_replay(file)
    frames = replay_frames(m)  # re-simulates and checks every hash, as `verify` does
    page = render_html(m, frames)
    atomic_write_text(dest, page)
    echo(
        f"wrote {dest} ({len(frames) - 1} decisions, {len(page.encode()) // 1024} KiB); "
        "open it in any browser"
    )
