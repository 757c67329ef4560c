"""What every command shares: the root `app` and its options (`--debug`, `--trust-pickle`),
one error line for bad input (`clean`, `fail`), printing user text safely (`echo`,
`printable`, `markup`) and the checks of agent specs, decks and output paths."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(
    add_completion=False,
    help="mtg_env: a Magic-style card game engine and RL environment.",
)


def usage_without_command(ctx: typer.Context) -> None:
    """A group called without a command is a usage error: its help goes to stderr and the
    exit status is 2 (typer's no_args_is_help prints it to stdout)."""
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        import contextlib

        # typer's rich help prints itself to stdout and returns "": send it to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            text = ctx.get_help()
        if text:
            echo(text, err=True)
        echo(f"\nError: Missing command (see '{ctx.command_path} --help').", err=True)
        raise typer.Exit(2)


def command_group(help_text: str) -> typer.Typer:
    sub = typer.Typer(help=help_text, invoke_without_command=True)
    sub.callback()(usage_without_command)
    return sub


DEBUG = {"on": False}  # --debug: tracebacks instead of one error line
MAX_GAMES = 1_000_000  # a bound on --games: a typo of many zeros is an error, not a week


def finite(value: float, name: str, low: float, high: float) -> float:
    """A float option that must be finite and in (low, high]: NaN passes every range check
    (all comparisons with it are false), so it is checked by hand."""
    import math

    if not math.isfinite(value) or not low < value <= high:
        raise typer.BadParameter(f"{value} is not a number more than {low:g} and at most {high:g}")
    return value


@app.callback(invoke_without_command=True)
def _main(
    ctx: typer.Context,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    trust_pickle: Annotated[
        bool,
        typer.Option(
            "--trust-pickle",
            help="Load pickled checkpoints (sb3 .zip, old .pt policies, RLlib checkpoints). "
            "Unpickling can run code stored in the file: only for files you trust.",
        ),
    ] = False,
) -> None:
    DEBUG["on"] = debug
    if trust_pickle:
        import os

        # An environment variable, so that worker processes (tournament --jobs) inherit it.
        os.environ["MTG_ENV_TRUST_PICKLE"] = "1"
    usage_without_command(ctx)


def fail(msg: str) -> None:
    echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


def user_errors() -> tuple[type[BaseException], ...]:
    """Errors caused by bad input: one clear message and exit status 2 (no traceback
    unless --debug). The project's own error types are ValueErrors; OSError covers a file
    or folder the system refuses (permissions, a full disk)."""
    return (ValueError, OSError, RecursionError, MemoryError)


MAX_MESSAGE = 500  # characters of an error line; the rest is cut


def shorten(line: str) -> str:
    """An error line cut to MAX_MESSAGE characters: a message that quotes the input (an
    unknown card name) stays one readable line however long the input is."""
    if len(line) <= MAX_MESSAGE:
        return line
    return f"{line[:MAX_MESSAGE]}... ({len(line) - MAX_MESSAGE:,} more characters)"


def one_line(e: BaseException) -> str:
    """An error as one line: its message's first line, or its type where it has none."""
    if isinstance(e, RecursionError):
        return "input nested too deeply"
    if isinstance(e, MemoryError):
        return "input too large (out of memory)"
    text = str(e).strip()
    return shorten(text.splitlines()[0]) if text else type(e).__name__


def echo(text: object = "", err: bool = False) -> None:
    """Print a line to the terminal, user-provided text in it made printable (a deck name
    or an agent spec may hold escape sequences); line breaks are kept."""
    typer.echo("\n".join(printable(line) for line in str(text).split("\n")), err=err)


def printable(text: object) -> str:
    """User-provided text made safe for the terminal: control characters (escape
    sequences among them) are shown as escapes instead of being sent to the terminal."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)


def markup(text: object) -> str:
    """User-provided text inside rich markup: printable, with rich's brackets escaped."""
    from rich.markup import escape

    return escape(printable(text))


def clean(func: Any) -> Any:
    """Bad input (a malformed file, an unknown card or deck, an illegal action, a corrupt
    replay) gives one clear line and exit status 2, no traceback unless --debug."""

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            raise  # a closed stdout is not bad input: main() ends the command quietly
        except user_errors() as e:
            if DEBUG["on"]:
                raise
            fail(one_line(e))

    return run


def pick_decks(fmt: str, decks: str | None, seed: int) -> list:
    from ..engine import load_decks, resolve_deck

    bundled = load_decks(fmt)
    if decks:
        names = [d.strip() for d in decks.split(",")]
        if len(names) != 2:
            fail("--decks needs two decks, e.g. 'Green Stompy,Red Burn'")
        return [resolve_deck(n, fmt) for n in names]
    order = sorted(bundled)
    return [bundled[order[seed % len(order)]], bundled[order[(seed + 1) % len(order)]]]


def spec_files(*specs: str) -> list[str]:
    """The files that agent specs and deck names may read (`policy:PATH`, a plug-in's
    `FILE.py:ATTR`, a deck file): every part of a spec, split at its commas and colons,
    that names an existing file. An output that is one of them is refused."""
    parts = {p.strip() for s in specs for piece in s.split(",") for p in piece.split(":")}
    return sorted(p for p in parts if p and os.path.isfile(p))


def check_output(out: str | Path, inputs: list[str], option: str = "--out") -> None:
    """An output path checked before the work: none of the command's input files
    (`io.check_not_input`) and writable (`io.check_writable`)."""
    from ..io import check_not_input, check_writable

    check_not_input(out, inputs, option)
    check_writable(out)


def make_players(spec: str, seed: int, fmt: str) -> tuple[list[str], list]:
    from agents import make_agent

    specs = [s.strip() for s in spec.split(",")]
    if len(specs) != 2:
        fail("--agents needs two specs, e.g. random,random")
    return specs, [make_agent(s, seed * 2 + i, fmt=fmt) for i, s in enumerate(specs)]


def write_records(path: str, rows: list[dict[str, Any]]) -> None:
    import csv
    import io

    from ..io import write_text

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["seed"])
    w.writeheader()
    w.writerows(rows)
    write_text(path, buf.getvalue())
