"""`mtg-env evaluate`: an agent's strength on a fixed, anchored rating scale.

Every evaluation plays the same games, so that two agents' numbers can be compared with
each other, not only with the heuristic's.

Deck sets. `classic`: the six bundled decks of the classic format. `core-heldout`: the
held-out decks of the core format (`mtg_env/data/benchmarks/heldout.yaml`,
`agents.heldout.load_split`), which no policy is trained on.

Anchors. Fixed agents per deck set, listed with their ratings in
`mtg_env/data/benchmarks/anchors.yaml`: `random`, `heuristic`, ISMCTS at a fixed number
of iterations per decision (a fixed node budget, not seconds, so the anchor is the same
player on every machine) and, on classic, `policy:default` (a classic-format policy: it
does not play the core format). `random` is pinned at 1000. The other anchors' ratings
were measured once by an anchor-vs-anchor round robin on the same schedule
(`measure_anchors`, run by `scripts/leaderboard.py --anchors`, which writes the file and
the command that made it) and are then pinned too: an evaluation never moves them.

Schedule. For each anchor, `games` games (rounded up to even) in seat-swapped pairs: pair
k is one game position (a seed and a deck for each seat) played twice, once with the agent
in seat 0 and once with the anchor in seat 0; decks belong to the seats, so within a pair
each side plays each deck and each seat once. Pair k's decks are the k-th of every ordered
pair of the deck set's decks (mirrors included), shuffled once by the seed and cycled; its
game seed is `seed * 100003 + k`, the agent's seed `2 * game seed + 1` and the anchor's
`2 * game seed + 2`. None of this depends on the evaluated agent: every agent plays the
same deck pairs, seeds and seats against each anchor (and the anchor, seeded the same,
meets the same positions), so two results files compare game by game. A run with more
games plays the smaller run's games first (pair k does not depend on `games`).

Rating. Bradley-Terry on the Elo scale: the agent scores against an anchor rated R_a
with probability 1 / (1 + 10^((R_a - R) / 400)); a draw (a game that reaches the decision
cap) counts half a win. The agent's rating is the maximum-likelihood R given the pinned
anchors (the root of the score equation, found by bisection on [lowest anchor - 1200,
highest anchor + 1200]; a result at the bound, as when the agent wins every game, is
flagged `at_bound`: its likelihood keeps rising beyond the scale). The anchors' own
ratings are the same fit with only `random` pinned, every other anchor free (coordinate
ascent; the log-likelihood is concave).

Interval. A percentile bootstrap, 2000 resamples with a fixed seed: the unit is the
seat-swapped pair (its two games share a position, so they are not independent), resampled
within each anchor so that every anchor keeps its number of pairs. Per-anchor win rates
come with Wilson 95% intervals, and a per-deck breakdown (the agent's deck) with them.

Time. The agent's mean seconds per decision (every call of its `choose`, forced ones
included) is measured and recorded, with its search budget (ISMCTS iterations or seconds
per decision) and the anchors' budgets, the wall time of play (`wall_seconds`, summed over
the runs that made the file) and of this run (`this_run_seconds`).

Files and resume. `--out FILE` gets the result as JSON (written atomically; a number that
is not finite is written as null, so that every JSON reader accepts the file). While the
run plays, each finished game is appended as one line to `FILE.games.jsonl`, whose first
line is the run's configuration (agent spec, the digest of the file behind a policy or
plug-in spec, anchors and their ratings, format, deck set and the decks' contents, games,
seed, decision cap, project version). A rerun with the same FILE skips the games already
played there (or recorded in FILE); when the run is complete FILE is written and the
progress file removed. Each game row records the digest of the code and data it was played
with (`code`; the file lists them in `code_digests`, more than one when the code changed
between runs). A rerun with another configuration is refused in one line naming
the fields that differ: a results file never mixes games of two configurations. Resuming
reads only JSON: the agent is always built from the spec on the command line.

Checked when read. Every results or progress file is checked before it is used: each game
row field by field (`GameRow`: names, types, ranges, a key that agrees with its fields, and
the deck, seat and seed the schedule gives that game), and an evaluation's configuration
(its anchors rated by finite numbers); a file edited by hand or written by another version
is one line naming the file, the line or entry, and the field. A rerun of a finished file
plays nothing and recomputes every figure from the file's games: a file whose stored
rating, win rates or counts are not those of its games is refused in one line naming the
field, and the file is left as it is. The anchors file may name built-in agents only: a
plug-in spec in any of its entries is refused before anything runs.

Plug-in faults. A plug-in agent whose `choose` raises, exits the process or returns
something that is not one of the legal actions (or whose `reset` raises) stops the run
with one line naming the spec, the decision and what it returned or raised
(`agents.plugin.guard`); the finished games stay in the progress file, and the same
command resumes. Such a run never exits with status 0.

Comparing. `compare` takes two results files made on the same schedule (refused
otherwise) and bootstraps the paired score difference over the shared seat-swapped pairs.
`--width` is from 0.001 to 2. Printed and written JSON is valid JSON (no NaN or Infinity:
a figure that is not a finite number would be null).

Code by job: the deck sets, the schedule and one game played (`agents.schedule`); the
anchors, results and progress files, read and checked as data (`agents.results`); the
rating fit and its intervals (`agents.ratings`); this module runs an evaluation, the
anchors' round robin and a comparison from them.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from mtg_env.io import (
    atomic_append_line,
    check_writable,
    remove_stale_temps,
    write_text,
)

from .base import make_agent
from .plugin import PluginFault, shown
from .ratings import (
    BOOTSTRAP,
    BOOTSTRAP_SEED,
    MIN_WIDTH,
    PINNED,
    SPAN,
    fit_one,
    rate,
    rounded,
    win_rates,
)
from .results import (
    ANCHORS_FILE,
    ANCHORS_KIND,
    KIND,
    Anchor,
    EvaluateError,
    check_stored,
    json_text,
    load_anchors,
    load_result,
    progress_path,
    read_progress,
)
from .runs import config_diff, spec_file_digest, versions
from .schedule import (
    MAX_DECISIONS,
    DeckSet,
    Scheduled,
    deck_set,
    decks_digest,
    play_scheduled,
    schedule,
    search_budget,
)


def _scheduled_fields(t: Scheduled) -> dict[str, Any]:
    return {
        "seed": t.seed,
        "seat_agent": int(t.swap),
        "deck_agent": t.deck1 if t.swap else t.deck0,
        "deck_opponent": t.deck0 if t.swap else t.deck1,
    }


def _resume(
    out: Path, config: dict[str, Any], tasks: list[Scheduled]
) -> tuple[Path, dict[str, dict[str, Any]], dict[str, Any] | None]:
    """Check `out` and its progress file against `config` (refusing another run's files)
    and return the progress file, the games already played, by key, and the results
    file's contents (None when there is none)."""
    prog = progress_path(out)
    for p in (out, prog):
        check_writable(p)
    remove_stale_temps(out.parent, (out.name, prog.name))
    done: dict[str, dict[str, Any]] = {}
    sources: list[tuple[Path, Any, list[dict[str, Any]]]] = []
    prog_rows: list[dict[str, Any]] = []
    stored = None
    if out.exists():
        stored = load_result(out)
        sources.append((out, stored["config"], stored["games"]))
    if prog.exists():
        cfg, prog_rows = read_progress(prog)
        sources.append((prog, cfg, prog_rows))
    by_key = {t.key: t for t in tasks}
    for path, cfg, rows in sources:
        if cfg != config:
            raise EvaluateError(
                f"{path}: holds a run with another configuration ({config_diff(cfg, config)}); "
                "rerun with its settings to resume it, or give a new --out file"
            )
        for r in rows:
            task = by_key.get(r["key"])
            if task is None:
                continue
            for f, want in _scheduled_fields(task).items():
                if r[f] != want:
                    raise EvaluateError(
                        f"{path}: game {shown(r['key'])}: field {f}: {shown(r[f])} there, but "
                        f"the schedule has {shown(want)}: the file was edited or damaged; "
                        "give a new --out file"
                    )
            done[r["key"]] = r
    if not prog.exists() or len(done) > len(prog_rows):
        # Start the progress file (or complete it from a finished results file).
        lines = [json_text({"config": config})] + [json_text(r) for r in done.values()]
        write_text(prog, "\n".join(lines) + "\n")
    return prog, done, stored


def _games(
    out: Path | None,
    config: dict[str, Any],
    tasks: list[Scheduled],
    fmt: str,
    progress: Callable[[int, int], None] | None,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The games of `tasks`, played now or resumed from `out` and its progress file, and
    the results file's contents when it already held the finished run (None otherwise).
    Nothing is left to play then: the file records the run(s) that made it (their
    versions, code, times and command), so it is left as it is."""
    if out is None:
        try:
            return [play_scheduled(t, fmt) for t in _counted(tasks, progress)], None
        except PluginFault as e:
            raise PluginFault(f"{e}; no game is kept without --out FILE") from None
    prog, done, stored = _resume(out, config, tasks)
    if stored is not None and len(done) == len(tasks):
        prog.unlink(missing_ok=True)
        return [done[t.key] for t in tasks], stored
    return _play_all(tasks, fmt, prog, done, progress), None


def _play_all(
    tasks: list[Scheduled],
    fmt: str,
    prog: Path,
    done: dict[str, dict[str, Any]],
    progress: Callable[[int, int], None] | None,
) -> list[dict[str, Any]]:
    todo = [t for t in tasks if t.key not in done]
    if progress is not None:
        progress(0, len(todo))
    for t in todo:
        try:
            row = play_scheduled(t, fmt)
        except PluginFault as e:
            n = len(done)
            raise PluginFault(
                f"{e}; {n} finished game{'' if n == 1 else 's'} kept in {prog} (the same "
                "command resumes)"
            ) from None
        atomic_append_line(prog, json_text(row))
        done[t.key] = row
        if progress is not None:
            progress(1, len(todo))
    return [done[t.key] for t in tasks]


def run_config(
    agent: str, anchors: list[Anchor], ds: DeckSet, games: int, seed: int
) -> dict[str, Any]:
    """Everything that decides which games an evaluation plays and how."""
    import mtg_env

    return {
        "kind": KIND,
        "agent": agent,
        # A policy or plug-in file's contents, not only its path: another file at the same
        # path is another agent, whose games must not mix with the old one's.
        "agent_file": spec_file_digest(agent),
        "anchors": [
            {"spec": a.spec, "rating": a.rating, "file": spec_file_digest(a.spec)} for a in anchors
        ],
        "format": ds.format,
        "deck_set": ds.name,
        "decks": list(ds.decks),
        "decks_sha256": decks_digest(ds),
        "games": games + games % 2,
        "seed": seed,
        "max_decisions": MAX_DECISIONS,
        "mtg_env": mtg_env.__version__,
    }


def evaluate(
    agent: str,
    deck_set_name: str = "classic",
    games: int = 40,
    seed: int = 0,
    out: Path | None = None,
    anchors_file: Path = ANCHORS_FILE,
    progress: Callable[[int, int], None] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Evaluate (or resume evaluating) an agent; returns the result, also written to `out`
    (see the module docstring). Without `out` nothing is written or resumed."""
    if games < 1:
        raise ValueError("games: at least 1 per anchor")
    ds = deck_set(deck_set_name)
    anchors = load_anchors(ds.name, anchors_file)
    for spec in [agent] + [a.spec for a in anchors]:
        make_agent(spec, fmt=ds.format)  # a bad spec fails before any game
    config = run_config(agent, anchors, ds, games, seed)
    tasks = schedule([(agent, a.spec) for a in anchors], ds, config["games"], seed)
    start = time.perf_counter()
    rows, stored = _games(out, config, tasks, ds.format, progress)
    result = summarize(config, rows, anchors)
    if stored is not None:
        # The finished file: its figures are recomputed from its games, never shown as
        # stored, and the record of the runs that made it is kept.
        assert out is not None
        check_stored(out, stored, result, EVALUATION_FIGURES)
        result.update({k: stored[k] for k in ("command", "budgets", "versions") if k in stored})
        result["this_run_seconds"] = stored.get("this_run_seconds")
        return result
    result["command"] = command
    result["budgets"] = {
        s: search_budget(s, ds.format) for s in [agent] + [a.spec for a in anchors]
    }
    result["versions"] = versions()
    result["this_run_seconds"] = round(time.perf_counter() - start, 2)
    if out is not None:
        write_text(out, json_text(result, indent=1) + "\n")
        progress_path(out).unlink(missing_ok=True)
    return result


# The figures of a finished results file that must be those of its games.
EVALUATION_FIGURES = (
    "complete",
    "games_played",
    "rating",
    "per_anchor",
    "per_deck",
    "agent_decisions",
    "seconds_per_decision",
    "fallbacks",
)


def _counted(
    tasks: list[Scheduled], progress: Callable[[int, int], None] | None
) -> Iterator[Scheduled]:
    if progress is not None:
        progress(0, len(tasks))
    for t in tasks:
        yield t
        if progress is not None:
            progress(1, len(tasks))


def summarize(
    config: dict[str, Any], rows: list[dict[str, Any]], anchors: list[Anchor]
) -> dict[str, Any]:
    """The result of an evaluation from its games (recomputed, never read back)."""
    agent = config["agent"]
    players = [agent] + [a.spec for a in anchors]
    pinned = {a.spec: a.rating for a in anchors}
    if agent in pinned:
        # An anchor evaluated against the anchors (itself included): its rating is fitted
        # as a player of its own, named apart from the pinned copy.
        agent_key = f"{agent} (evaluated)"
        rows_fit = [dict(r, agent=agent_key) for r in rows]
        players = [agent_key] + players[1:]
    else:
        agent_key, rows_fit = agent, rows
    ratings = rate(rows_fit, players, pinned) if rows else {}
    own = ratings.get(agent_key, {"rating": None, "ci95": None, "at_bound": False})
    decisions = sum(r["agent_decisions"] for r in rows)
    seconds = sum(r["agent_seconds"] for r in rows)
    expected = len(config["anchors"]) * config["games"]
    return {
        "kind": KIND,
        "agent": agent,
        "config": config,
        "complete": len(rows) == expected,
        "games_played": len(rows),
        "rating": {
            "elo": own["rating"],
            "ci95": own.get("ci95"),
            "at_bound": own.get("at_bound", False),
            "model": "Bradley-Terry, Elo scale, anchors pinned",
            "interval": f"percentile bootstrap of seat-swapped pairs within each anchor, "
            f"{BOOTSTRAP} resamples, seed {BOOTSTRAP_SEED}",
        },
        "anchors": [{"spec": a.spec, "rating": a.rating} for a in anchors],
        "per_anchor": win_rates(rows, "opponent"),
        "per_deck": sorted(win_rates(rows, "deck_agent"), key=lambda d: d["deck_agent"]),
        "schedule": {
            "deck_set": config["deck_set"],
            "format": config["format"],
            "decks": config["decks"],
            "games_per_anchor": config["games"],
            "pairs_per_anchor": config["games"] // 2,
            "seed": config["seed"],
            "seat_balance": "each pair played twice, agents swapped, decks staying with seats",
        },
        "agent_decisions": decisions,
        "seconds_per_decision": round(seconds / decisions, 6) if decisions else None,
        "fallbacks": sum(r.get("fallbacks", 0) for r in rows),
        # More than one means the code changed between (or during) the runs of this file.
        "code_digests": sorted({r.get("code", "?") for r in rows}),
        "wall_seconds": round(sum(r["seconds"] for r in rows), 2),  # of play, all runs
        "games": rows,
    }


def measure_anchors(
    specs: list[str],
    deck_set_name: str,
    games: int,
    seed: int = 0,
    out: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The round robin between the anchors on the evaluation schedule, `random` pinned at
    1000 and the others fitted jointly; resumable through `out` like an evaluation."""
    if not specs or specs[0] != PINNED[0]:
        raise ValueError("the first anchor is random (pinned at 1000)")
    ds = deck_set(deck_set_name)
    for s in specs:
        make_agent(s, fmt=ds.format)
    import mtg_env

    config: dict[str, Any] = {
        "kind": ANCHORS_KIND,
        "anchors": list(specs),
        "anchor_files": {s: spec_file_digest(s) for s in specs},
        "format": ds.format,
        "deck_set": ds.name,
        "decks": list(ds.decks),
        "decks_sha256": decks_digest(ds),
        "games": games + games % 2,
        "seed": seed,
        "max_decisions": MAX_DECISIONS,
        "mtg_env": mtg_env.__version__,
    }
    matchups = [(a, b) for i, a in enumerate(specs) for b in specs[i + 1 :]]
    tasks = schedule(matchups, ds, config["games"], seed)
    rows, stored = _games(out, config, tasks, ds.format, progress)
    ratings = rate(rows, list(specs), {PINNED[0]: PINNED[1]})
    pairs = []
    for a, b in matchups:
        sub = [r for r in rows if r["agent"] == a and r["opponent"] == b]
        (wr,) = win_rates(sub, "opponent") if sub else [{}]
        pairs.append(
            {"agent_a": a, "agent_b": b, **{k: v for k, v in wr.items() if k != "opponent"}}
        )
    result = {
        "kind": ANCHORS_KIND,
        "config": config,
        "ratings": ratings,
        "pairs": pairs,
        "code_digests": sorted({r.get("code", "?") for r in rows}),
        "wall_seconds": round(sum(r["seconds"] for r in rows), 2),  # of play, all runs
        "games": rows,
    }
    if stored is not None:  # the finished file, recomputed (see evaluate)
        assert out is not None
        check_stored(out, stored, result, ("ratings", "pairs"))
        return {**result, "budgets": stored.get("budgets"), "versions": stored.get("versions")}
    result["budgets"] = {s: search_budget(s, ds.format) for s in specs}
    result["versions"] = versions()
    if out is not None:
        write_text(out, json_text(result, indent=1) + "\n")
        progress_path(out).unlink(missing_ok=True)
    return result


# The fields two results files must share to be on the same schedule: all but the agent
# (and its file) and the number of games (the shared games are compared).
SCHEDULE_FIELDS = (
    "kind",
    "anchors",
    "format",
    "deck_set",
    "decks",
    "decks_sha256",
    "seed",
    "max_decisions",
    "mtg_env",
)


def compare(a: Path, b: Path, width: float = 0.1, resamples: int = BOOTSTRAP) -> dict[str, Any]:
    """Is A stronger than B? The paired difference of their scores over the games both
    played (same anchor, deck pair, seed and seat), bootstrapped over seat-swapped pairs
    (resampled within each anchor): mean score difference per game and rating difference,
    each with a 95% interval, and the bootstrap probability that A's score is higher (one
    minus it is the one-sided p-value of "A is not stronger"). `games_needed` is how many
    games per anchor a 95% interval of the score difference `width` (from MIN_WIDTH to 2)
    wide would take, from the observed variance of the paired difference.
    `rating_diff_at_bound` flags a side that won or lost every shared game: its rating sits
    at the bound of the scale, so the rating difference is only a bound. Both files are
    checked when read (`GameRow`; anchors rated finitely): a bad one is one line naming it
    and the field."""
    ra, rb = load_result(a), load_result(b)
    ca, cb = ra["config"], rb["config"]
    for path, c in ((a, ca), (b, cb)):
        if c.get("kind") != KIND:
            raise EvaluateError(f"{path}: not the results of mtg-env evaluate")
    diff = [k for k in SCHEDULE_FIELDS if ca.get(k) != cb.get(k)]
    if diff:
        k = diff[0]
        raise EvaluateError(
            f"{a} and {b} were made on different schedules ({k}: {json.dumps(ca.get(k))[:60]} "
            f"in one, {json.dumps(cb.get(k))[:60]} in the other); compare needs the same "
            "anchors, decks, seed and version"
        )
    if not (math.isfinite(width) and MIN_WIDTH <= width <= 2):
        raise ValueError(f"width {width}: a number from {MIN_WIDTH:g} to 2")

    def by_game(rows: list[dict[str, Any]]) -> dict[tuple[str, int, int], float]:
        return {(r["opponent"], r["pair"], r["swap"]): float(r["score"]) for r in rows}

    ga, gb = by_game(ra["games"]), by_game(rb["games"])
    shared = sorted(set(ga) & set(gb))
    if not shared:
        raise EvaluateError(f"{a} and {b} share no game: nothing to compare")
    anchors = [x["spec"] for x in ca["anchors"]]
    ratings = {x["spec"]: float(x["rating"]) for x in ca["anchors"]}
    # Per anchor, per pair: (A's score, B's score, games) over the pair's shared games.
    units: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    acc: dict[tuple[str, int], list[tuple[float, float]]] = defaultdict(list)
    for key in shared:
        acc[(key[0], key[1])].append((ga[key], gb[key]))
    for (opp, _), games in sorted(acc.items()):
        units[opp].append((sum(g[0] for g in games), sum(g[1] for g in games), len(games)))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    opps = [o for o in anchors if o in units]
    # Tables [B, anchors] of A's score, B's score and games, observed (row 0) and resampled.
    sa = np.zeros((resamples + 1, len(opps)))
    sb, n = np.zeros_like(sa), np.zeros_like(sa)
    for j, o in enumerate(opps):
        arr = np.array(units[o])
        pick = np.vstack(
            [np.arange(len(arr))[None], rng.integers(0, len(arr), (resamples, len(arr)))]
        )
        sa[:, j], sb[:, j], n[:, j] = (arr[pick][:, :, c].sum(axis=1) for c in range(3))
    d = (sa.sum(1) - sb.sum(1)) / n.sum(1)
    lo, hi = np.percentile(d[1:], [2.5, 97.5])
    p_better = float(np.mean(d[1:] > 0) + 0.5 * np.mean(d[1:] == 0))
    r_anchor = np.array([ratings[o] for o in opps])
    pinned_lo, pinned_hi = min(ratings.values()) - SPAN, max(ratings.values()) + SPAN
    rating_a = fit_one(sa, n, r_anchor, (pinned_lo, pinned_hi))
    rating_b = fit_one(sb, n, r_anchor, (pinned_lo, pinned_hi))
    rd = rating_a - rating_b
    rlo, rhi = np.percentile(rd[1:], [2.5, 97.5])
    # A player that won (or lost) every shared game sits at the bound of the scale: its
    # likelihood keeps rising beyond it, so the difference is only a bound.
    at_bound = any(
        min(abs(float(r[0]) - pinned_lo), abs(float(r[0]) - pinned_hi)) < 0.01
        for r in (rating_a, rating_b)
    )
    # Games needed: the score difference per pair, its variance across pairs.
    per_pair = np.concatenate(
        [
            (np.array(units[o])[:, 0] - np.array(units[o])[:, 1]) / np.array(units[o])[:, 2]
            for o in opps
        ]
    )
    sd = float(np.std(per_pair, ddof=1)) if len(per_pair) > 1 else float("nan")
    if math.isfinite(sd) and sd > 0:
        # Bounded: a per-pair difference is in [-1, 1], so sd < 1.5 and with width at least
        # MIN_WIDTH this is under 4e7 pairs (a tiny width overflowed the float power).
        pairs_needed = math.ceil((2 * 1.96 * sd / width) ** 2)
        per_anchor = 2 * math.ceil(pairs_needed / len(opps))
        needed: dict[str, Any] = {
            "width": width,
            "games_per_anchor": per_anchor,
            "games_total": per_anchor * len(opps),
        }
    else:
        needed = {
            "width": width,
            "games_per_anchor": None,
            "games_total": None,
            "why": "no variance in the paired difference observed",
        }
    return {
        "a": ra["agent"],
        "b": rb["agent"],
        "files": [str(a), str(b)],
        "shared_games": len(shared),
        "shared_pairs": int(sum(len(units[o]) for o in opps)),
        "score_a": round(float(sa[0].sum() / n[0].sum()), 4),
        "score_b": round(float(sb[0].sum() / n[0].sum()), 4),
        "score_diff": round(float(d[0]), 4),
        "score_diff_ci95": [round(float(lo), 4), round(float(hi), 4)],
        "prob_a_stronger": round(p_better, 4),
        "p_one_sided": round(1 - p_better, 4),
        "rating_diff": rounded(rd[0], 1),
        "rating_diff_ci95": [rounded(rlo, 1), rounded(rhi, 1)],
        "rating_diff_at_bound": at_bound,
        "pair_sd": None if not math.isfinite(sd) else round(sd, 4),
        "games_needed": needed,
        "method": f"paired percentile bootstrap of seat-swapped pairs within each anchor, "
        f"{resamples} resamples, seed {BOOTSTRAP_SEED}",
    }
