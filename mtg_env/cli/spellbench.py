"""`mtg-env spellbench agent`: the Spellbench protocol v2 (docs/spellbench.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import clean, command_group, fail

spellbench_app = command_group(
    "The Spellbench protocol v2: serve our engine or a bot to a Spellbench host (the host "
    "is not built yet)."
)


@spellbench_app.command("agent")
@clean
def agent(
    bot: Annotated[
        str, typer.Argument(help="The bot: random (seeded from the game's agent_seed) or first.")
    ],
) -> None:
    """Serve BOT in the agent role: NDJSON requests on stdin, one response line each on
    stdout, until stdin closes."""
    import sys

    from ..spellbench.agent import BOTS, serve

    if bot not in BOTS:
        fail(f"unknown bot {bot!r} (bots: {', '.join(BOTS)})")
    serve(BOTS[bot](), sys.stdin.buffer, sys.stdout.buffer)


@spellbench_app.command("engine")
@clean
def engine(
    fmt: Annotated[
        str, typer.Option("--format", help="The format the engine plays: core or classic.")
    ] = "core",
) -> None:
    """Serve our engine in the environment role: NDJSON requests (hello, reset, step) on
    stdin, one response line each on stdout, until stdin closes."""
    import sys

    from ..spellbench.engine import FORMATS, serve

    if fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    serve(fmt, sys.stdin.buffer, sys.stdout.buffer)
