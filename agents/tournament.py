"""Round-robin tournaments: seat-swapped paired games on shared seeds, played in parallel
processes, each finished game appended to `games.csv` (atomically) so that a rerun with
the same folder skips what is done. Then per-pair win rates with Wilson intervals,
ratings (openskill Plackett-Luce, and a batch Elo fit), a heatmap PNG and `summary.json`.

The folder records the configuration that made it (`config.json`: agents, games, seed,
format, the decks' contents); a rerun with another configuration is refused
(`TournamentError`), so a resumed run never reports games of another one. Ctrl-C stops the
workers at once; every finished game is already in `games.csv`, and a rerun resumes.
Workers ignore Ctrl-C themselves (the parent stops them) and exit when the parent dies
(`mtg_env.workers`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import multiprocessing
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtg_env.engine import load_decks
from mtg_env.io import (
    InputFileError,
    OutputPathError,
    atomic_append_line,
    check_writable,
    load_json,
    remove_stale_temps,
    write_bytes,
    write_json,
    write_text,
)
from mtg_env.workers import worker_setup

from .base import make_agent
from .match import deck_pairs, play_game, wilson
from .plugin import PluginFault, guard, shown
from .runs import config_diff, spec_file_digest

FIELDS = [
    "key",
    "agent_a",
    "agent_b",
    "pair",
    "seat_a",
    "seed",
    "deck_a",
    "deck_b",
    "winner",
    "turns",
    "decisions",
]


MAX_DECISIONS = 5000  # play_game's cap per game, part of the recorded configuration


class TournamentError(ValueError):
    """A tournament folder that can't be used for this run (one line naming it)."""


@dataclass(frozen=True)
class Task:
    a: str
    b: str
    pair: int  # index of the seed pair within this matchup
    swap: bool
    seed: int
    fmt: str

    @property
    def key(self) -> str:
        return f"{self.a}|{self.b}|{self.pair}|{int(self.swap)}"


def _play_task(job: tuple[Task, str, str]) -> dict[str, Any]:
    return _play(*job)


def _play(task: Task, deck_a: str, deck_b: str) -> dict[str, Any]:
    decks = load_decks(task.fmt)
    da, db = decks[deck_a], decks[deck_b]
    # A plug-in is checked at every call: breaking the protocol is one line (finished
    # games stay in games.csv).
    a = guard(make_agent(task.a, task.seed * 2 + 1, fmt=task.fmt), task.a)
    b = guard(make_agent(task.b, task.seed * 2 + 2, fmt=task.fmt), task.b)
    seats = [b, a] if task.swap else [a, b]
    try:
        g = play_game(seats, (db, da) if task.swap else (da, db), task.seed, task.fmt)
    except PluginFault as e:
        raise PluginFault(f"{e}, in the game {shown(task.key)}") from None
    seat_a = 1 if task.swap else 0
    winner = "draw" if g.winner is None else ("a" if g.winner == seat_a else "b")
    return {
        "key": task.key,
        "agent_a": task.a,
        "agent_b": task.b,
        "pair": task.pair,
        "seat_a": seat_a,
        "seed": task.seed,
        "deck_a": deck_a,
        "deck_b": deck_b,
        "winner": winner,
        "turns": g.turn,
        "decisions": g.n_decisions,
    }


def read_games(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    rows = []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            if row.get("winner") in ("a", "b", "draw"):
                rows.append(row)
    return rows


def _csv_line(row: dict[str, Any]) -> str:
    buf = io.StringIO()
    csv.DictWriter(buf, FIELDS, lineterminator="").writerow(row)
    return buf.getvalue()


def run_config(agents: list[str], games: int, seed: int, fmt: str) -> dict[str, Any]:
    """Everything that decides which games a tournament plays and how: two runs with equal
    configurations play the same games."""
    decks = load_decks(fmt)
    digest = hashlib.sha256(
        json.dumps({n: list(d.cards) for n, d in sorted(decks.items())}).encode()
    ).hexdigest()[:16]
    return {
        "kind": "mtg_env.tournament.v1",
        "agents": list(agents),
        # A policy file's contents, not only its path: a retrained policy at the same path
        # is another agent, whose games must not mix with the old one's.
        "agent_files": {a: _file_digest(a) for a in agents if _file_digest(a)},
        "games": games,
        "seed": seed,
        "format": fmt,
        "decks": sorted(decks),
        "decks_sha256": digest,
        "max_decisions": MAX_DECISIONS,
    }


def _file_digest(spec: str) -> str | None:
    """sha256 (16 hex digits) of the file behind a `policy:` spec, or None."""
    if not spec.startswith("policy:"):
        return None
    return spec_file_digest(spec)


def _check_folder(out: Path, config: dict[str, Any]) -> None:
    """Refuse a folder that holds another run (or is not a folder)."""
    if out.exists() and not out.is_dir():
        raise TournamentError(f"{out}: exists and is not a folder (--out names a folder)")
    cfg_path, games_path = out / "config.json", out / "games.csv"
    if cfg_path.exists():
        try:
            old = load_json(cfg_path, "tournament config")
        except InputFileError as e:
            raise TournamentError(f"{e}; use a new --out folder to start a new run") from None
        if old != config:
            diff = config_diff(old, config)
            raise TournamentError(
                f"{out}: holds a tournament with another configuration ({diff}); rerun "
                "with its settings to resume it, or give a new --out folder to start a new run"
            )
    elif games_path.exists() or (out / "summary.json").exists():
        raise TournamentError(
            f"{out}: holds tournament results but no config.json (a run from before runs "
            "recorded their configuration); give a new --out folder to start a new run"
        )
    for name in ("games.csv", "summary.json", "heatmap.png", "config.json"):
        check_writable(out / name)


def run_tournament(
    agents: list[str],
    games: int,
    out: Path,
    jobs: int = 1,
    seed: int = 0,
    fmt: str = "classic",
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Play (or resume) a round robin; returns the summary (also written to out/)."""
    config = run_config(agents, games, seed, fmt)
    _check_folder(out, config)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputPathError(f"{out}: can't create the folder ({e.strerror})") from None
    path = out / "games.csv"
    # A run killed mid-write (SIGKILL) may have left a temporary file: this run's own.
    remove_stale_temps(out, ("games.csv", "summary.json", "heatmap.png", "config.json"))
    if not (out / "config.json").exists():
        write_json(out / "config.json", config)
    if not path.exists():
        write_text(path, ",".join(FIELDS) + "\n")
    done = {r["key"] for r in read_games(path)}
    pairs_per = (games + 1) // 2
    tasks: list[tuple[Task, str, str]] = []
    keys: set[str] = set()
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if j <= i:
                continue
            dps = deck_pairs(fmt, None, pairs_per, seed)
            for k in range(pairs_per):
                gseed = seed * 100_003 + k
                for swap in (False, True):
                    t = Task(a, b, k, swap, gseed, fmt)
                    keys.add(t.key)
                    if t.key not in done:
                        tasks.append((t, dps[k][0].name, dps[k][1].name))
    total = len(tasks)
    if progress is not None:
        progress(0, total)
    try:
        if jobs <= 1 or total <= 1:
            for job in tasks:
                atomic_append_line(path, _csv_line(_play_task(job)))
                if progress is not None:
                    progress(1, total)
        else:
            # "spawn", not the default fork: a forked child of a process that has used torch
            # can deadlock in torch's thread pool (policy agents hung the tournament). A Pool,
            # not a ProcessPoolExecutor: terminate() stops games in progress at once.
            ctx = multiprocessing.get_context("spawn")
            # Started with SIGINT ignored, which a new interpreter keeps: a Ctrl-C that arrives
            # while a worker is still importing (before its initializer) must not print a
            # traceback there. The parent's own handler is back once the workers exist.
            handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                pool = ctx.Pool(min(jobs, total), initializer=_worker_init, initargs=(os.getpid(),))
            finally:
                signal.signal(signal.SIGINT, handler)
            try:
                for row in pool.imap_unordered(_play_task, tasks):
                    atomic_append_line(path, _csv_line(row))
                    if progress is not None:
                        progress(1, total)
                pool.close()
            finally:
                pool.terminate()  # a no-op after close(); on Ctrl-C or an error, stops workers
                pool.join()
    except PluginFault as e:
        raise PluginFault(
            f"{e}; every finished game is in {path} (the same command resumes)"
        ) from None
    rows = [r for r in read_games(path) if r["key"] in keys]
    summary = summarize(agents, rows)
    write_json(out / "summary.json", summary)
    heatmap(summary, out / "heatmap.png")
    return summary


def _worker_init(parent: int) -> None:
    """A worker leaves Ctrl-C to the parent, dies with it, and uses one torch thread (the
    workers already use every core)."""
    worker_setup(parent)
    try:
        import torch
    except ImportError:  # pragma: no cover - no train extra: no policy agents either
        return
    torch.set_num_threads(1)


def summarize(agents: list[str], rows: list[dict[str, str]]) -> dict[str, Any]:
    n = len(agents)
    wins = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    idx = {a: i for i, a in enumerate(agents)}
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    for r in rows:
        if r["agent_a"] not in idx or r["agent_b"] not in idx:
            continue
        i, j = idx[r["agent_a"]], idx[r["agent_b"]]
        games[i][j] += 1
        games[j][i] += 1
        w = {"a": 1.0, "b": 0.0, "draw": 0.5}[r["winner"]]
        wins[i][j] += w
        wins[j][i] += 1 - w
        ra, rb = ratings[r["agent_a"]], ratings[r["agent_b"]]
        ranks = [0, 1] if w == 1 else [1, 0] if w == 0 else [0, 0]
        [[na], [nb]] = model.rate([[ra], [rb]], ranks=ranks)
        ratings[r["agent_a"]], ratings[r["agent_b"]] = na, nb
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            if games[i][j]:
                lo, hi = wilson(wins[i][j], games[i][j])
                pairs.append(
                    {
                        "agent_a": agents[i],
                        "agent_b": agents[j],
                        "games": games[i][j],
                        "win_rate_a": wins[i][j] / games[i][j],
                        "ci95": [lo, hi],
                    }
                )
    elo = elo_fit(agents, wins, games)
    return {
        "agents": agents,
        "games": sum(games[i][j] for i in range(n) for j in range(i + 1, n)),
        "win_rate": [
            [(wins[i][j] / games[i][j]) if games[i][j] else None for j in range(n)]
            for i in range(n)
        ],
        "pairs": pairs,
        "openskill": {
            a: {
                "mu": ratings[a].mu,
                "sigma": ratings[a].sigma,
                "ordinal": ratings[a].mu - 3 * ratings[a].sigma,
            }
            for a in agents
        },
        "elo": elo,
    }


def elo_fit(
    agents: list[str], wins: list[list[float]], games: list[list[int]], iters: int = 2000
) -> dict[str, float]:
    """Batch Bradley-Terry fit (MM algorithm), reported on the Elo scale (mean 1500)."""
    n = len(agents)
    p = [1.0] * n
    for _ in range(iters):
        new = []
        for i in range(n):
            w = sum(wins[i][j] for j in range(n) if j != i) + 0.5  # a weak prior
            d = sum(games[i][j] / (p[i] + p[j]) for j in range(n) if j != i and games[i][j])
            d += 1.0 / (p[i] + 1.0)  # prior game against a 1.0-strength player
            new.append(w / d if d > 0 else p[i])
        s = math.exp(sum(math.log(x) for x in new) / n)
        p = [x / s for x in new]
    return {a: 1500 + 400 * math.log10(p[i]) for i, a in enumerate(agents)}


def heatmap(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    agents = summary["agents"]
    m = np.array([[np.nan if x is None else x for x in row] for row in summary["win_rate"]])
    fig, ax = plt.subplots(figsize=(1.2 * len(agents) + 2, 1.0 * len(agents) + 1.5))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    # Agent specs are user text: as plain labels, not mathtext ("$" would be parsed).
    labels = [a.replace("$", r"\$") for a in agents]
    ax.set_xticks(range(len(agents)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(agents)), labels)
    for i in range(len(agents)):
        for j in range(len(agents)):
            if not np.isnan(m[i, j]):
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title("Win rate of row vs column")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_bytes(path, buf.getvalue())
