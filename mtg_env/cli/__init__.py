"""The `mtg-env` command.

Each command imports what it runs inside its own function: `mtg-env --help` and a quick
command then start without loading the env, the agents or the training stack (torch,
sb3), which some commands need and most do not. These deferred imports are for start-up
time only: the imports point one way (engine <- env <- agents <- cli) without them.

One module per group of commands (`bench`, `games`, `ratings`, `scenarios`, `replay`,
`policy`, `deck`, `cards`, `spellbench`), what they share in `common`; this module lists the
commands in the order of `mtg-env --help` and runs them (`main`, the console script)."""

from __future__ import annotations

import errno
import functools
import os
import sys
from typing import Any

import typer

from . import bench, cards, deck, games, policy, ratings, replay, scenarios, spellbench
from .common import DEBUG, app, echo, one_line, user_errors

__all__ = ["app", "main"]

for _command in (
    bench.bench,
    games.match,
    ratings.heldout,
    ratings.tournament,
    ratings.evaluate,
    ratings.compare,
    games.watch,
    games.play,
):
    app.command()(_command)
for _group_app, _name in (
    (scenarios.scenario_app, "scenario"),
    (replay.replay_app, "replay"),
    (scenarios.puzzle_app, "puzzle"),
    (policy.policy_app, "policy"),
    (deck.deck_app, "deck"),
    (cards.cards_app, "cards"),
    (spellbench.spellbench_app, "spellbench"),
):
    app.add_typer(_group_app, name=_name)


def _click_exception() -> type[Exception]:
    """The ClickException class of the click that typer uses: typer 0.29 bundles its own
    copy, older releases use the click package, so it is found from typer's own class."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == "ClickException":
            return cls
    return typer.BadParameter  # pragma: no cover - every click has ClickException


# The exit status of a command whose output was closed under it (`mtg-env ... | head`): 128 +
# SIGPIPE, what a shell reports for a program that SIGPIPE ended (coreutils' commands).
EXIT_BROKEN_PIPE = 141


class _StdoutClosed(Exception):
    """A command's stdout was closed by its reader. Not an OSError: typer turns an EPIPE
    OSError into exit status 1, and main() gives this one 141."""


def _rich_raises_broken_pipe() -> None:
    """rich ends the process itself, with exit status 1, when one of its consoles (a table,
    a progress bar's last line) meets a closed stdout: here it raises BrokenPipeError, as
    every other write does, for main() to handle."""
    from rich.console import Console

    def on_broken_pipe(self: Console) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    Console.on_broken_pipe = on_broken_pipe  # type: ignore[method-assign]


def _pipe_safe(func: Any) -> Any:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        _rich_raises_broken_pipe()
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            raise _StdoutClosed from None

    return run


# Every command, once: a closed stdout ends any of them the same way.
for _typer in (app, *(info.typer_instance for info in app.registered_groups)):
    for _info in _typer.registered_commands:
        _info.callback = _pipe_safe(_info.callback)


def _broken_pipe() -> None:
    """Stdout was closed by its reader: not an error of the user's. Nothing more is
    printed; stdout is pointed at /dev/null so that the flush at exit (the data that could
    not be written is still buffered) fails no more, and the exit status is 141."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    sys.exit(EXIT_BROKEN_PIPE)


def main(argv: list[str] | None = None) -> None:
    """The console script: usage errors print the usage and exit 2; bad input is one
    `error:` line and exit 2; Ctrl-C exits 130; a closed stdout (a pipe into `head`) exits
    141 quietly; nothing prints a traceback unless --debug."""
    try:
        _main_command(argv)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
    except (BrokenPipeError, _StdoutClosed):
        _broken_pipe()


def _main_command(argv: list[str] | None) -> None:
    click_exception = _click_exception()
    try:
        rv = app(args=argv, standalone_mode=False)
        if isinstance(rv, int) and rv:
            sys.exit(rv)  # click returns typer.Exit codes when not in standalone mode
    except (BrokenPipeError, _StdoutClosed):
        raise
    except KeyboardInterrupt:
        echo("interrupted", err=True)
        sys.exit(130)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        echo("interrupted", err=True)
        sys.exit(130)
    except click_exception as e:
        e.show()  # type: ignore[attr-defined]
        sys.exit(e.exit_code)  # type: ignore[attr-defined]
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - turned into one clear line below
        if DEBUG["on"]:
            raise
        if isinstance(e, user_errors()):
            echo(f"error: {one_line(e)}", err=True)
            sys.exit(2)
        echo(
            f"internal error: {type(e).__name__}: {one_line(e)} "
            "(rerun with --debug for the traceback, and please report it)",
            err=True,
        )
        sys.exit(1)
