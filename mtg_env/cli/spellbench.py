"""`mtg-env spellbench agent`: the Spellbench protocol v2 (docs/spellbench.md)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import clean, command_group, echo, fail

spellbench_app = command_group(
    "The Spellbench protocol v2: serve our engine or a bot to a Spellbench host, or host a "
    "match between an engine and two bots."
)


@spellbench_app.command("agent")
@clean
def agent(
    bot: Annotated[
        str,
        typer.Argument(
            help="The bot: random (seeded from the game's agent_seed), first, a text "
            "agent, text:MODULE:ATTR or text:FILE.py:ATTR (a function answering the text "
            "view of each seat decision with a candidate number), or a policy on the v1 "
            "entity observation, policy:PATH (read from the neutral view of each decision), or an "
            "agent that reads our engine (heuristic, ismcts:N: it plays on a game rebuilt "
            "from each decision)."
        ),
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="The card pool a policy or an engine agent knows (core or classic). "
            "Default: a policy's own format, core for the others.",
        ),
    ] = None,
) -> None:
    """Serve BOT in the agent role: NDJSON requests on stdin, one response line each on
    stdout, until stdin closes."""
    from ..spellbench.agent import BOTS, Bot, serve

    served: Bot
    if fmt is not None and fmt not in ("core", "classic"):
        fail(f"--format: {fmt!r} is not one of core, classic")
    if bot.startswith("text:"):
        from agents.plugin import PluginError
        from agents.spellbench_bot import text_bot

        try:
            served = text_bot(bot)
        except PluginError as e:
            fail(str(e))
    elif bot.startswith("policy:"):
        from agents.policy import CheckpointError
        from agents.spellbench_bot import policy_bot

        try:
            served = policy_bot(bot, fmt)
        except (CheckpointError, ValueError) as e:
            fail(str(e))
    elif bot in BOTS:
        served = BOTS[bot]()
    else:
        from agents.spellbench_bot import engine_bot

        try:
            served = engine_bot(bot, fmt or "core")
        except ValueError:
            fail(
                f"unknown bot {bot!r} (bots: {', '.join(BOTS)}, text:MODULE:ATTR, "
                "policy:PATH, or an agent that reads the engine: heuristic, ismcts:N)"
            )
    serve(served, sys.stdin.buffer, sys.stdout.buffer)


@spellbench_app.command("engine")
@clean
def engine(
    fmt: Annotated[
        str, typer.Option("--format", help="The format the engine plays: core or classic.")
    ] = "core",
    probe: Annotated[
        bool,
        typer.Option(
            help="Answer probe_resample, the noninterference probe the spec reserves for a "
            "later minor version (for tests; a v2.0 host never sends it)."
        ),
    ] = False,
) -> None:
    """Serve our engine in the environment role: NDJSON requests (hello, reset, step) on
    stdin, one response line each on stdout, until stdin closes."""
    from ..spellbench.engine import FORMATS, serve

    if fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    serve(fmt, sys.stdin.buffer, sys.stdout.buffer, probe=probe)


@spellbench_app.command("host")
@clean
def host(
    engine_cmd: Annotated[
        str, typer.Option("--engine", help="The engine's command line (environment role).")
    ],
    agent_cmds: Annotated[
        list[str], typer.Option("--agent", help="A bot's command line; give two: A, then B.")
    ],
    fmt: Annotated[str, typer.Option("--format", help="The format the engine plays.")] = "core",
    pairs: Annotated[
        int, typer.Option(min=1, max=10_000, help="Deck pairs, two seat-swapped games each.")
    ] = 2,
    seed: Annotated[
        int | None,
        typer.Option(help="Derive the run secret from this (a rerun); default: a fresh one."),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            help="Write the run here as an evaluation results file (mtg-env compare reads it).",
        ),
    ] = None,
    b_rating: Annotated[
        float,
        typer.Option(
            "--b-rating",
            min=-10_000,
            max=10_000,
            help="B's rating on the anchored scale, pinned to rate A (uniform random: 1000).",
        ),
    ] = 1000.0,
) -> None:
    """Host a match: ENGINE against two bots over the protocol, each seat decision checked
    by the live validator, two seat-swapped games per deck pair; A is rated with B pinned
    at --b-rating, as `mtg-env evaluate` rates an agent against its anchors."""
    import hashlib
    import random
    import secrets
    import shlex

    from rich.console import Console

    from agents.hosted import host_config, host_results
    from agents.results import json_text

    from ..io import write_text
    from ..spellbench import ids
    from ..spellbench.host import Host, HostError

    if len(agent_cmds) != 2:
        fail(f"--agent: give two bots (A, then B), got {len(agent_cmds)}")
    run_secret = (
        secrets.token_bytes(32)
        if seed is None
        else hashlib.sha256(f"mtg_env/spellbench/host:{seed}".encode()).digest()
    )
    h = Host(
        shlex.split(engine_cmd),
        (shlex.split(agent_cmds[0]), shlex.split(agent_cmds[1])),
        run_secret,
        fmt,
    )
    console = Console(stderr=True)
    console.print(f"run commitment: {ids.commitment(run_secret)}", markup=False)
    try:
        h._start_engine()
        names = sorted(h.decks())
        rng = random.Random(0 if seed is None else seed)
        chosen = [(rng.choice(names), rng.choice(names)) for _ in range(pairs)]
        records = h.run(chosen)
    except HostError as e:
        fail(str(e))
    rated = [r for r in records if r.rated]
    wins = sum(1 for r in rated if r.score == 1.0)
    draws = sum(1 for r in rated if r.score == 0.5)
    score = (wins + draws / 2) / len(rated) if rated else float("nan")
    for r in records:
        echo(
            f"game {r.index}: A as p{r.seat_agent} ({r.deck_agent} vs {r.deck_opponent}): "
            f"{r.outcome} ({r.classification}, {r.reason}), {r.steps} steps"
        )
    echo(
        f"{h.names[0]} (A) against {h.names[1]} (B): {score:.3f} over {len(rated)} rated "
        f"games ({wins} won, {draws} drawn), {len(records) - len(rated)} not rated"
    )
    config = host_config(
        h.names[0],
        h.names[1],
        b_rating,
        fmt=fmt,
        engine=h.hello.get("engine") or {},
        catalog=h.decks(),
        pairs=pairs,
        seed=ids.commitment(run_secret) if seed is None else seed,
        max_decisions=h.limits["max_decisions"],
    )
    result = host_results(config, records, " ".join(sys.argv))
    result["manifest"] = h.manifest(run_secret)
    rating = result["rating"]
    if result["manifest"]["status"] == "invalid":
        # Section 11.3: a run with a live-validation violation is published, never rated.
        echo("the live validator found violations: the run is invalid and not rated")
    elif rating["elo"] is not None:
        lo, hi = rating["ci95"]
        bound = " (a bound: A won or lost every game)" if rating["at_bound"] else ""
        echo(
            f"{h.names[0]} (A): rating {rating['elo']:.0f}{bound} (95% CI {lo:.0f}-{hi:.0f}) "
            f"with {h.names[1]} (B) pinned at {b_rating:g}"
        )
    if out is not None:
        write_text(out, json_text(result, indent=1) + "\n")
