"""The `mtg-env` command.

Each command imports what it runs inside its own function: `mtg-env --help` and a quick
command then start without loading the env, the agents or the training stack (torch,
sb3), which some commands need and most do not. These deferred imports are for start-up
time only: the imports point one way (engine <- env <- agents <- cli) without them."""

from __future__ import annotations

import errno
import functools
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(
    add_completion=False,
    help="mtg_env: a Magic-style card game engine and RL environment.",
)


def _usage_without_command(ctx: typer.Context) -> None:
    """A group called without a command is a usage error: its help goes to stderr and the
    exit status is 2 (typer's no_args_is_help prints it to stdout)."""
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        import contextlib

        # typer's rich help prints itself to stdout and returns "": send it to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            text = ctx.get_help()
        if text:
            _echo(text, err=True)
        _echo(f"\nError: Missing command (see '{ctx.command_path} --help').", err=True)
        raise typer.Exit(2)


def _group(help_text: str) -> typer.Typer:
    sub = typer.Typer(help=help_text, invoke_without_command=True)
    sub.callback()(_usage_without_command)
    return sub


scenario_app = _group("Scripted positions (docs: the scenario format).")
app.add_typer(scenario_app, name="scenario")
replay_app = _group("Record, verify and show replays.")
app.add_typer(replay_app, name="replay")
puzzle_app = _group("Puzzles: positions with a goal.")
app.add_typer(puzzle_app, name="puzzle")
policy_app = _group("Policy files: convert a trusted pickled checkpoint to safetensors.")
app.add_typer(policy_app, name="policy")
deck_app = _group("Deck lists: import a text deck list, generate a random legal deck.")
app.add_typer(deck_app, name="deck")

DEBUG = {"on": False}
MAX_GAMES = 1_000_000  # a bound on --games: a typo of many zeros is an error, not a week


def _finite(value: float, name: str, low: float, high: float) -> float:
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
    _usage_without_command(ctx)


def _fail(msg: str) -> None:
    _echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


def _user_errors() -> tuple[type[BaseException], ...]:
    """Errors caused by bad input: one clear message and exit status 2 (no traceback
    unless --debug). The project's own error types are ValueErrors; OSError covers a file
    or folder the system refuses (permissions, a full disk)."""
    return (ValueError, OSError, RecursionError, MemoryError)


MAX_MESSAGE = 500  # characters of an error line; the rest is cut


def _short(line: str) -> str:
    """An error line cut to MAX_MESSAGE characters: a message that quotes the input (an
    unknown card name) stays one readable line however long the input is."""
    if len(line) <= MAX_MESSAGE:
        return line
    return f"{line[:MAX_MESSAGE]}... ({len(line) - MAX_MESSAGE:,} more characters)"


def _one_line(e: BaseException) -> str:
    """An error as one line: its message's first line, or its type where it has none."""
    if isinstance(e, RecursionError):
        return "input nested too deeply"
    if isinstance(e, MemoryError):
        return "input too large (out of memory)"
    text = str(e).strip()
    return _short(text.splitlines()[0]) if text else type(e).__name__


def _echo(text: object = "", err: bool = False) -> None:
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


def _markup(text: object) -> str:
    """User-provided text inside rich markup: printable, with rich's brackets escaped."""
    from rich.markup import escape

    return escape(printable(text))


def _clean(func: Any) -> Any:
    """Bad input (a malformed file, an unknown card or deck, an illegal action, a corrupt
    replay) gives one clear line and exit status 2, no traceback unless --debug."""

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            raise  # a closed stdout is not bad input: main() ends the command quietly
        except _user_errors() as e:
            if DEBUG["on"]:
                raise
            _fail(_one_line(e))

    return run


def _deck_pair(fmt: str, decks: str | None, seed: int) -> list:
    from .engine import load_decks, resolve_deck

    bundled = load_decks(fmt)
    if decks:
        names = [d.strip() for d in decks.split(",")]
        if len(names) != 2:
            _fail("--decks needs two decks, e.g. 'Green Stompy,Red Burn'")
        return [resolve_deck(n, fmt) for n in names]
    order = sorted(bundled)
    return [bundled[order[seed % len(order)]], bundled[order[(seed + 1) % len(order)]]]


def _spec_files(*specs: str) -> list[str]:
    """The files that agent specs and deck names may read (`policy:PATH`, a plug-in's
    `FILE.py:ATTR`, a deck file): every part of a spec, split at its commas and colons,
    that names an existing file. An output that is one of them is refused."""
    parts = {p.strip() for s in specs for piece in s.split(",") for p in piece.split(":")}
    return sorted(p for p in parts if p and os.path.isfile(p))


def _check_output(out: str | Path, inputs: list[str], option: str = "--out") -> None:
    """An output path checked before the work: none of the command's input files
    (`io.check_not_input`) and writable (`io.check_writable`)."""
    from .io import check_not_input, check_writable

    check_not_input(out, inputs, option)
    check_writable(out)


def _agents(spec: str, seed: int, fmt: str) -> tuple[list[str], list]:
    from agents import make_agent

    specs = [s.strip() for s in spec.split(",")]
    if len(specs) != 2:
        _fail("--agents needs two specs, e.g. random,random")
    return specs, [make_agent(s, seed * 2 + i, fmt=fmt) for i, s in enumerate(specs)]


@app.command()
@_clean
def bench(
    seconds: Annotated[
        float,
        typer.Option(
            callback=lambda v: _finite(v, "--seconds", 0.0, 3600.0),
            help="Budget of each timed loop (seconds, more than 0, at most 3600).",
        ),
    ] = 5.0,
    fmt: Annotated[
        str | None, typer.Option("--format", help="One format (default: every format).")
    ] = None,
    chess: Annotated[
        bool, typer.Option(help="Also run PettingZoo's chess raw_env and print the ratio.")
    ] = False,
    ppo: Annotated[bool, typer.Option(help="Include the MaskablePPO training figure.")] = True,
    ppo_rollouts: Annotated[
        int, typer.Option(min=1, help="Rollouts (16 x 128 steps each) of the PPO figure.")
    ] = 10,
    vector: Annotated[
        bool, typer.Option(help="Include the vector env against 64 separate raw_envs.")
    ] = True,
    pure: Annotated[
        bool,
        typer.Option(
            help="With the compiled engine: also measure the pure-Python engine (engine, "
            "clone, raw_env) in a child process and print compiled / pure."
        ),
    ] = True,
    rounds: Annotated[
        int,
        typer.Option(
            min=1,
            help="Paired rounds behind each ratio (compiled / pure, ours / chess): the two "
            "sides alternate and the ratio is the median of the rounds'.",
        ),
    ] = 3,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Throughput: engine, raw_env, vector env, wrapped env, SelfPlay-v0, clone, memory, PPO;
    compiled and pure-Python engine side by side."""
    from rich.console import Console
    from rich.table import Table

    from .bench import FORMATS, run_all

    if fmt is not None and fmt not in FORMATS:
        _fail(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    err = Console(stderr=True)
    res = run_all(
        seconds=seconds,
        formats=(fmt,) if fmt else FORMATS,
        chess=chess,
        ppo=ppo,
        ppo_rollouts=ppo_rollouts,
        vector=vector,
        pure=pure,
        rounds=rounds,
        progress=lambda m: err.print(f"[dim]bench: {m}...[/dim]"),
    )
    if json_out:
        _echo(json.dumps(res))
        return
    note = res["engine_build_note"]
    build = res["engine_build"] + (f": {note}" if note else "")
    t = Table(title=f"mtg-env bench ({seconds:g} s per figure; engine: {build})")
    t.add_column("figure")
    for f in res["formats"]:
        t.add_column(f, justify="right")
    rows = [
        ("engine decisions/s", "engine", "decisions_per_s"),
        ("engine games/s", "engine", "games_per_s"),
        ("decisions per game (random play)", "engine", "decisions_per_game"),
        ("turns per game (random play)", "engine", "turns_per_game"),
        ("raw_env steps/s (obs + mask)", "raw_env", "steps_per_s"),
        ("raw_env v1 steps/s (entity obs)", "raw_env_v1", "steps_per_s"),
        ("observation bytes, v0", "obs_bytes", "v0"),
        ("observation bytes, v1", "obs_bytes", "v1"),
        ("env (wrapped) steps/s", "env", "steps_per_s"),
        ("SelfPlay-v0 steps/s", "selfplay", "steps_per_s"),
        ("clone()/s", "state", "clone_per_s"),
        ("resample_hidden()/s", "state", "resample_hidden_per_s"),
        ("peak MiB per env", "memory", "peak_mib_per_env"),
    ]
    if vector:
        rows[6:6] = [
            ("vector env steps/s (64 games per call)", "vector", "vector_steps_per_s"),
            ("64 separate raw_envs steps/s", "vector", "separate_raw_env_steps_per_s"),
            ("vector / separate raw_envs", "vector", "vector_ratio"),
            ("vector env steps/s, one worker per CPU", "vector", "vector_parallel_steps_per_s"),
            ("vector (workers) / separate raw_envs", "vector", "vector_parallel_ratio"),
            ("vector env v1 steps/s", "vector_v1", "vector_steps_per_s"),
            ("64 separate raw_envs v1 steps/s", "vector_v1", "separate_raw_env_steps_per_s"),
            ("vector v1 / separate raw_envs v1", "vector_v1", "vector_ratio"),
        ]
    for label, group, key in rows:
        if any(key not in r[group] for r in res["formats"].values()):
            continue  # the workers' figure on a one-CPU machine
        t.add_row(
            label,
            *(
                f"{r[group][key]:,.2f}" if key.endswith("ratio") else f"{r[group][key]:,.1f}"
                for r in res["formats"].values()
            ),
        )
    if "chess" in res:
        t.add_row("chess raw_env steps/s (median round)", f"{res['chess']['steps_per_s']:,.0f}")
        t.add_row("raw_env / chess", *(f"{x:.2f}x" for x in res["raw_env_vs_chess"].values()))
        t.add_row("raw_env v1 / chess", *(f"{x:.2f}x" for x in res["raw_env_v1_vs_chess"].values()))
    if "compiled_vs_pure_ratio" in res:
        for label, key in (
            ("engine decisions/s", "decisions_per_s"),
            ("clone()/s", "clone_per_s"),
            ("raw_env steps/s", "raw_env_steps_per_s"),
        ):
            t.add_row(
                f"compiled {label}, paired rounds",
                *(f"{p[key]:,.1f}" for p in res["compiled_paired"].values()),
            )
            t.add_row(f"pure-Python {label}", *(f"{p[key]:,.1f}" for p in res["pure"].values()))
            t.add_row(
                f"compiled / pure, {label}",
                *(f"{r[key]:.2f}x" for r in res["compiled_vs_pure_ratio"].values()),
            )
    Console().print(t)
    if "ppo" in res:
        p = res["ppo"]
        _echo(
            f"MaskablePPO ({p['n_envs']} envs): {p['steps_per_s']:,.0f} steps/s, "
            f"env {100 * p['env_share']:.0f}% of wall time "
            f"(engine, observation and mask {100 * p['env_share_without_opponent']:.0f}%, "
            f"the heuristic opponent's decisions {100 * p['opponent_share']:.0f}%)"
        )


@app.command()
@_clean
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

    from .engine import resolve_deck

    make_agent(agent_a, fmt=fmt)  # validate the specs before playing
    make_agent(agent_b, fmt=fmt)
    deck_list = [d.strip() for d in decks.split(",")] if decks else None
    if deck_list is not None and len(deck_list) != 2:
        _fail("--decks needs two decks")
    for deck in deck_list or []:
        resolve_deck(deck, fmt)  # a bad deck is one line before any game is played
    if records is not None:  # before the games, not after
        _check_output(records, _spec_files(agent_a, agent_b, decks or ""), "--records")
    with Progress(transient=True, disable=json_out) as bar:
        task = bar.add_task(f"{_markup(agent_a)} vs {_markup(agent_b)}", total=games + games % 2)
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
        _write_records(records, res.records)
    if json_out:
        _echo(json.dumps(d))
    else:
        _echo(
            f"{agent_a} vs {agent_b}: {d['wins_a']}-{d['wins_b']}-{d['draws']} over "
            f"{d['games']} games; win rate of {agent_a} {d['win_rate_a']:.3f} "
            f"(95% CI {d['ci95'][0]:.3f}-{d['ci95'][1]:.3f})"
        )
    if res.interrupted:
        _echo(
            f"interrupted after {res.games} of {games + games % 2} games (the result above "
            "counts the finished games only)",
            err=True,
        )
        raise typer.Exit(130)


@app.command()
def heldout(
    agent: Annotated[str, typer.Argument(help="Agent spec (random, heuristic, ismcts, ...).")],
    opponent: Annotated[str, typer.Option(help="The fixed opponent's agent spec.")] = "heuristic",
    games: Annotated[
        int, typer.Option(min=2, max=MAX_GAMES, help="Games on each part (seat-swapped pairs).")
    ] = 100,
    seed: Annotated[int, typer.Option(min=0, help="Base seed.")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The held-out-deck benchmark: win rates on the training decks and on the held-out
    decks of the core format (Wilson 95% intervals) and the gap between them."""
    from rich.progress import Progress

    from agents.heldout import run_heldout

    with Progress(transient=True, disable=json_out) as bar:
        task = bar.add_task(
            f"{_markup(agent)} vs {_markup(opponent)}", total=2 * (games + games % 2)
        )
        res = run_heldout(
            agent, opponent, games, seed, progress=lambda n: bar.update(task, advance=n)
        )
    if json_out:
        _echo(json.dumps(res))
        return
    for part, label in (("train", "training decks"), ("heldout", "held-out decks")):
        r = res[part]
        _echo(
            f"{agent} vs {opponent} on the {label}: win rate {r['win_rate']:.3f} "
            f"(95% CI {r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}, {r['games']} games)"
        )
    _echo(f"gap (training - held out): {res['gap']:+.3f}")


def _write_records(path: str, rows: list[dict[str, Any]]) -> None:
    import csv
    import io

    from .io import write_text

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["seed"])
    w.writeheader()
    w.writerows(rows)
    write_text(path, buf.getvalue())


@app.command()
@_clean
def tournament(
    agents: Annotated[str, typer.Option(help="Agent specs, comma separated.")],
    out: Annotated[str, typer.Option(help="Folder for games.csv, summary.json, heatmap.png.")],
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="Games per pair of agents (seat-swapped).")
    ] = 20,
    jobs: Annotated[int, typer.Option(min=1, max=256, help="Parallel processes.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Base seed (shared by every pairing).")] = 0,
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
) -> None:
    """Round robin; resumable (a rerun with the same --out skips finished games)."""
    from pathlib import Path

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from agents.base import make_agent
    from agents.tournament import run_tournament

    specs = [a.strip() for a in agents.split(",") if a.strip()]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        _fail("--agents needs two or more different specs")
    for s_ in specs:
        make_agent(s_, fmt=fmt)
    with Progress(transient=True) as bar:
        task = bar.add_task("tournament", total=None)

        def prog(n: int, total: int) -> None:
            bar.update(task, total=total, advance=n)

        try:
            summary = run_tournament(
                specs, games, Path(out), jobs=jobs, seed=seed, fmt=fmt, progress=prog
            )
        except KeyboardInterrupt:
            bar.stop()
            _echo(
                f"interrupted: every finished game is in {Path(out) / 'games.csv'}; "
                "rerun the same command to resume",
                err=True,
            )
            raise typer.Exit(130) from None
    console = Console()
    t = Table(title=f"Ratings ({summary['games']} games)")
    for col in ("agent", "Elo (batch fit)", "openskill mu", "sigma", "ordinal"):
        t.add_column(col)
    for a in sorted(specs, key=lambda a: -summary["elo"][a]):
        o = summary["openskill"][a]
        t.add_row(
            _markup(a),
            f"{summary['elo'][a]:.0f}",
            f"{o['mu']:.1f}",
            f"{o['sigma']:.1f}",
            f"{o['ordinal']:.1f}",
        )
    console.print(t)
    p = Table(title="Pairs")
    for col in ("A", "B", "games", "win rate A", "95% CI"):
        p.add_column(col)
    for r in summary["pairs"]:
        p.add_row(
            _markup(r["agent_a"]),
            _markup(r["agent_b"]),
            str(r["games"]),
            f"{r['win_rate_a']:.3f}",
            f"{r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}",
        )
    console.print(p)
    _echo(f"heatmap: {Path(out) / 'heatmap.png'}")
    _echo(f"summary: {Path(out) / 'summary.json'}")


@app.command()
@_clean
def evaluate(
    agent: Annotated[
        str,
        typer.Argument(
            help="Agent spec (random, heuristic, ismcts:N, policy:PATH, or a plug-in "
            "MODULE:ATTR / FILE.py:ATTR / text:MODULE:ATTR, which runs that Python code)."
        ),
    ],
    fmt: Annotated[
        str | None, typer.Option("--format", help="Rules format (picks the default deck set).")
    ] = None,
    decks: Annotated[str | None, typer.Option(help="Deck set: classic or core-heldout.")] = None,
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="Games per anchor (seat-swapped pairs).")
    ] = 40,
    seed: Annotated[int, typer.Option(min=0, help="Schedule seed (0: the standard one).")] = 0,
    out: Annotated[
        str | None,
        typer.Option(help="Results JSON; resumable: a rerun with the same file skips done games."),
    ] = None,
    anchors: Annotated[
        str | None, typer.Option(help="Anchors file (default: the committed one).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Rate an agent on the fixed anchored scale: seat-swapped games against pinned anchor
    agents on a fixed seeded schedule, a Bradley-Terry rating with a bootstrap 95%
    interval, per-anchor and per-deck win rates (docs: Agents and results)."""
    import shlex
    from pathlib import Path

    from rich.progress import Progress

    from agents.evaluate import ANCHORS_FILE, json_text, progress_path, resolve_deck_set
    from agents.evaluate import evaluate as run_evaluate

    ds = resolve_deck_set(fmt, decks)
    out_path = Path(out) if out is not None else None
    if out_path is not None:  # before the games, not after; never the agent's or anchors' file
        _check_output(out_path, _spec_files(agent) + ([anchors] if anchors else []))
    command = f"mtg-env evaluate {shlex.quote(agent)} --decks {ds.name} --games {games}"
    command += f" --seed {seed}" if seed else ""
    command += f" --out {shlex.quote(out)}" if out is not None else ""
    with Progress(transient=True, disable=json_out) as bar:
        task = bar.add_task(f"{_markup(agent)} on {ds.name}", total=None)

        def prog(n: int, total: int) -> None:
            bar.update(task, total=total, advance=n)

        try:
            res = run_evaluate(
                agent,
                ds.name,
                games,
                seed,
                out=out_path,
                anchors_file=Path(anchors) if anchors else ANCHORS_FILE,
                progress=prog,
                command=command,
            )
        except KeyboardInterrupt:
            bar.stop()
            where = (
                f"every finished game is in {progress_path(out_path)}; rerun the same command "
                "to resume"
                if out_path is not None
                else "give --out FILE to make a run resumable"
            )
            _echo(f"interrupted: {where}", err=True)
            raise typer.Exit(130) from None
        except SystemExit as e:
            # Only code run by the evaluation (a plug-in's) calls sys.exit here: an
            # unfinished evaluation must not end with its status (0 would read as success).
            bar.stop()
            kept = f"; finished games are in {progress_path(out_path)}" if out_path else ""
            _fail(f"the evaluation of {agent} stopped unfinished: sys.exit({e.code!r}){kept}")
    if json_out:
        _echo(json_text({k: v for k, v in res.items() if k != "games"}))
        return
    r = res["rating"]
    bound = " (at the bound of the scale)" if r["at_bound"] else ""
    _echo(
        f"{agent} on {ds.name}: rating {r['elo']:.0f} (95% CI {r['ci95'][0]:.0f} to "
        f"{r['ci95'][1]:.0f}){bound}, {res['games_played']} games"
    )
    for a in res["per_anchor"]:
        pinned = next(x["rating"] for x in res["anchors"] if x["spec"] == a["opponent"])
        _echo(
            f"  vs {a['opponent']} ({pinned:.0f}): win rate {a['win_rate']:.3f} "
            f"(95% CI {a['ci95'][0]:.3f}-{a['ci95'][1]:.3f}, {a['games']} games)"
        )
    spd = res["seconds_per_decision"]
    if spd is not None:
        _echo(f"  {spd * 1000:.2f} ms per decision")
    if res["fallbacks"]:
        _echo(f"  {res['fallbacks']} replies were not legal action numbers (random fallback)")
    if out_path is not None:
        _echo(f"results: {out_path}")


@app.command()
@_clean
def compare(
    a: Annotated[str, typer.Argument(help="Results file of agent A (mtg-env evaluate --out).")],
    b: Annotated[str, typer.Argument(help="Results file of agent B, same schedule.")],
    width: Annotated[
        float,
        typer.Option(help="Interval width (score difference) to size the games needed for."),
    ] = 0.1,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Is A stronger than B? A paired bootstrap over the games both played (same anchor,
    deck pair, seed and seat), and the games needed for a given interval width."""
    import math
    from pathlib import Path

    from agents.evaluate import MIN_WIDTH, json_text
    from agents.evaluate import compare as run_compare

    if not (math.isfinite(width) and MIN_WIDTH <= width <= 2):
        # A usage error (exit 2); a tiny width overflowed the games-needed figure.
        raise typer.BadParameter(
            f"{width} is not a number from {MIN_WIDTH:g} to 2", param_hint="'--width'"
        )
    res = run_compare(Path(a), Path(b), width=width)
    if json_out:
        _echo(json_text(res))
        return

    def rating(x: float | None) -> str:
        return "unknown" if x is None else f"{x:+.0f}"

    lo, hi = res["rating_diff_ci95"]
    bound = " (a bound: one side won or lost every game)" if res["rating_diff_at_bound"] else ""
    _echo(
        f"{res['a']} - {res['b']}: score difference {res['score_diff']:+.3f} per game "
        f"(95% CI {res['score_diff_ci95'][0]:+.3f} to {res['score_diff_ci95'][1]:+.3f}), "
        f"rating difference {rating(res['rating_diff'])}{bound} (95% CI {rating(lo)} "
        f"to {rating(hi)}), over {res['shared_games']} shared games"
    )
    _echo(
        f"P({res['a']} stronger) = {res['prob_a_stronger']:.3f} "
        f"(one-sided p = {res['p_one_sided']:.3f})"
    )
    need = res["games_needed"]
    if need["games_per_anchor"] is None:
        _echo(f"games needed for a {width:g}-wide interval: unknown ({need['why']})")
    else:
        _echo(
            f"games needed for a {width:g}-wide interval: about {need['games_per_anchor']} per "
            f"anchor ({need['games_total']} in all)"
        )


@puzzle_app.command("run")
@_clean
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

    from .scenario import load_scenario, scenario_paths

    files = scenario_paths(paths) if paths else bundled_puzzles()
    solved = 0
    for f in files:
        sc = load_scenario(f)
        if sc.model.goal is None:
            continue
        r = run_puzzle(sc, agent, opponent, seed)
        solved += r.solved
        if json_out:
            _echo(json.dumps({"name": r.name, "path": str(f), "solved": r.solved}))
        else:
            _echo(f"{'SOLVED' if r.solved else 'UNSOLVED'} {r.name}")
    if not json_out:
        _echo(f"{agent}: {solved}/{len(files)} solved")


@replay_app.command("record")
@_clean
def replay_record(
    out: Annotated[str, typer.Option(help="Replay file to write (JSON).")],
    seed: Annotated[int, typer.Option(min=0, help="Game seed.")] = 0,
    agents: Annotated[str, typer.Option(help="Two agent specs.")] = "random,random",
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    decks: Annotated[str | None, typer.Option(help="DECK_A,DECK_B")] = None,
) -> None:
    """Play a game between two agents and record it as a replay."""
    from .engine import Game
    from .env.replay import Recorder

    _check_output(out, _spec_files(agents, decks or ""))  # before the game, not after
    specs, players = _agents(agents, seed, fmt)
    pair = _deck_pair(fmt, decks, seed)
    game = Game.new(pair, seed=seed, format=fmt)
    rec = Recorder(game, pair, seed, agents=specs)
    while not game.is_over:
        p = game.current_player
        assert p is not None
        rec.apply(players[p].choose(game))
    rec.save(out)
    res = "draw" if game.winner is None else f"player {game.winner} wins"
    _echo(f"recorded {len(rec.actions)} decisions ({res}) to {out}")


@replay_app.command("verify")
@_clean
def replay_verify(file: Annotated[str, typer.Argument(help="Replay file.")]) -> None:
    """Re-simulate a replay and check every hash (exit 0 only if it reproduces)."""
    from .env.replay import load_replay, verify

    m = load_replay(file)
    g = verify(m)
    _echo(
        f"OK {file}: {len(m.actions)} decisions, {m.hashes_checked} hashes checked, "
        f"final hash {g.state_hash()}"
    )


@replay_app.command("show")
@_clean
def replay_show(file: Annotated[str, typer.Argument(help="Replay file.")]) -> None:
    """Print the readable log of a replay."""
    from .env.replay import load_replay, verify

    m = load_replay(file)
    g = verify(m)
    _echo(
        f"Decks: {m.decks[0].name} vs {m.decks[1].name}; seed {m.seed}; "
        f"agents {', '.join(m.agents) or 'unknown'}"
    )
    _echo(g.log_text())


@replay_app.command("html")
@_clean
def replay_html(
    file: Annotated[str, typer.Argument(help="Replay file.")],
    out: Annotated[
        str | None, typer.Option(help="HTML file to write (default: FILE with .html).")
    ] = None,
) -> None:
    """Write a self-contained HTML page that steps through a replay (opens offline)."""
    from pathlib import Path

    from .env.replay import load_replay
    from .io import atomic_write_text
    from .viewer import render_html, replay_frames

    dest = Path(out) if out is not None else Path(file).with_suffix(".html")
    # Before the work, not after.
    _check_output(dest, [file], "--out" if out is not None else "the page (FILE with .html)")
    m = load_replay(file)
    frames = replay_frames(m)  # re-simulates and checks every hash, as `verify` does
    page = render_html(m, frames)
    atomic_write_text(dest, page)
    _echo(
        f"wrote {dest} ({len(frames) - 1} decisions, {len(page.encode()) // 1024} KiB); "
        "open it in any browser"
    )


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
            msg = _one_line(e)
            if not isinstance(e, ScenarioError):
                msg = f"{f}: the runner failed ({type(e).__name__}: {msg})"
            if json_out:
                _echo(json.dumps({"path": str(f), "ok": False, "error": msg}))
            else:
                _echo(f"ERROR {f}: {msg}")
            continue
        if not r.ok:
            failed += 1
        if json_out:
            _echo(
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
            _echo(f"PASS {r.name}")
        else:
            _echo(f"FAIL {r.name}: {r.message}")
            if verbose:
                _echo(r.log)
    # Exit 2 for malformed files (bad input), 1 for scenarios that ran and failed.
    raise typer.Exit(2 if malformed else 1 if failed else 0)


@policy_app.command("convert")
@_clean
def policy_convert(
    src: Annotated[str, typer.Argument(help="A pickled policy: an sb3 .zip or an old .pt.")],
    out: Annotated[str, typer.Argument(help="The policy file to write (.safetensors).")],
) -> None:
    """Convert a pickled policy checkpoint that you trust to the data-only policy format
    (needs --trust-pickle before the command: unpickling can run code in the file)."""
    from pathlib import Path

    from agents.policy import export_policy, load_model

    if Path(out).suffix != ".safetensors":
        _fail(f"{out}: a policy file is written as .safetensors")
    _check_output(out, [src], "OUT")
    policy = load_model(src)
    export_policy(policy, out)
    _echo(f"wrote {out} ({Path(out).stat().st_size / 1e6:.1f} MB)")


@app.command()
@_clean
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
    from .engine import Game
    from .render import render

    specs, players = _agents(agents, seed, fmt)
    deck_pair = _deck_pair(fmt, decks, seed)
    game = Game.new(deck_pair, seed=seed, format=fmt)
    _echo(
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
                _echo(text)
            shown = len(ev)
            _echo("--- board ---\n" + render(game) + "\n-------------")
            if explain:
                for cid in game.battlefield:
                    if explain in (game.chars(cid).name, game.cdef[cid].name):
                        _echo("\n".join(game.explain(cid)))
            last_turn = game.turn
    _echo(game.log_text(game.events[shown:]))
    result = "draw" if game.winner is None else f"player {game.winner} ({specs[game.winner]}) wins"
    _echo(f"Result: {result} after {game.turn} turns and {game.n_decisions} decisions")


@app.command()
@_clean
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
    from .play import play as play_game

    if save is not None:
        _check_output(save, _spec_files(opponent, decks or ""), "--save")
    pair = _deck_pair(fmt, decks, seed)
    play_game(opponent, seat, seed, fmt, pair, input_fn=input, output_fn=_echo, save=save)


def _deck_out(text: str, out: str | None, what: str) -> None:
    """A deck to stdout, or to `out` through the one write helper."""
    if out is None:
        _echo(text.rstrip("\n"))
        return
    from .io import write_text

    write_text(out, text)
    _echo(f"wrote {out} ({what})")


@deck_app.command("import")
@_clean
def deck_import(
    file: Annotated[str, typer.Argument(help="A text deck list: '4 Name' a line.")],
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    name: Annotated[str | None, typer.Option(help="Deck name (default: the file's).")] = None,
    out: Annotated[
        str | None, typer.Option(help="YAML deck file to write (default: print it).")
    ] = None,
) -> None:
    """Check a text deck list and print it as a YAML deck.

    One '4 Name' (or '4x Name') a line; '#' and '//' comments, Deck and Sideboard headers.
    Every bad line is reported, one 'error: FILE:LINE: ...' line each (exit status 2)."""
    import dataclasses

    from .decks import deck_to_yaml
    from .engine.carddb import load_deck_text
    from .engine.cards import CardDataError

    if out is not None:
        _check_output(out, [file])  # before the work, not after
    try:
        deck = load_deck_text(file, fmt)
    except CardDataError as e:
        # All the problems, not only the first (_clean's one line): a deck list is
        # fixed in one go.
        for line in str(e).splitlines():
            _echo(f"error: {_short(line)}", err=True)
        raise typer.Exit(2) from None
    if name is not None:
        deck = dataclasses.replace(deck, name=name)
    _deck_out(deck_to_yaml(deck), out, f"{deck.name}: {len(deck.cards)} cards")


@deck_app.command("generate")
@_clean
def deck_generate(
    fmt: Annotated[str, typer.Option("--format", help="Rules format (classic, core).")] = "core",
    seed: Annotated[int, typer.Option(min=0, help="Seed: the same seed, the same deck.")] = 0,
    colors: Annotated[
        str | None,
        typer.Option(help="Colour letters, e.g. WU (default: two drawn with the seed)."),
    ] = None,
    lands: Annotated[
        int | None, typer.Option(min=0, help="Basic lands (default 17 of 40, scaled).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Deck name.")] = None,
    text: Annotated[
        bool, typer.Option("--text", help="Write the text deck list instead of YAML.")
    ] = False,
    out: Annotated[str | None, typer.Option(help="File to write (default: print it).")] = None,
) -> None:
    """Generate a seeded random deck, legal for the format.

    The exact deck size, the chosen colours, at most four copies of a card, basic lands by
    the spells' mana symbols, spells on a mana curve; the same seed gives the same deck."""
    from .decks import deck_to_text, deck_to_yaml, generate_deck

    if out is not None:
        from .io import check_writable

        check_writable(out)
    deck = generate_deck(fmt, seed=seed, colors=colors, lands=lands, name=name)
    body = deck_to_text(deck) if text else deck_to_yaml(deck)
    _deck_out(body, out, f"{deck.name}: {len(deck.cards)} cards")


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
for _group_app in (app, scenario_app, replay_app, puzzle_app, policy_app, deck_app):
    for _info in _group_app.registered_commands:
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
        _echo("interrupted", err=True)
        sys.exit(130)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        _echo("interrupted", err=True)
        sys.exit(130)
    except click_exception as e:
        e.show()  # type: ignore[attr-defined]
        sys.exit(e.exit_code)  # type: ignore[attr-defined]
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - turned into one clear line below
        if DEBUG["on"]:
            raise
        if isinstance(e, _user_errors()):
            _echo(f"error: {_one_line(e)}", err=True)
            sys.exit(2)
        _echo(
            f"internal error: {type(e).__name__}: {_one_line(e)} "
            "(rerun with --debug for the traceback, and please report it)",
            err=True,
        )
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
