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
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mtg_env.engine import Game, load_decks
from mtg_env.io import (
    InputFileError,
    atomic_append_line,
    check_writable,
    load_json,
    load_yaml,
    read_text,
    remove_stale_temps,
    write_text,
)

from .base import make_agent
from .heldout import load_split
from .match import play_game, wilson
from .plugin import PluginFault, check_spec_from_file, guard, shown
from .runs import code_digest, config_diff, spec_file_digest, versions

ANCHORS_FILE = (
    Path(__file__).resolve().parents[1] / "mtg_env" / "data" / "benchmarks" / "anchors.yaml"
)
# The deck sets an evaluation plays on: name -> (format, part). A part of None is every
# bundled deck of the format; "heldout" / "train" a part of the fixed held-out split
# (agents.heldout). The first set of a format is that format's default.
DECK_SETS: dict[str, tuple[str, str | None]] = {
    "classic": ("classic", None),  # the six classic v0 decks
    "core-heldout": ("core", "heldout"),
}
PINNED = ("random", 1000.0)  # the scale's zero point: random is 1000 by definition
MAX_DECISIONS = 5000  # play_game's cap per game (a draw), part of the configuration
BOOTSTRAP = 2000  # resamples
BOOTSTRAP_SEED = 20260101  # fixed: the same games give the same interval
SPAN = 1200.0  # the fit's bounds: this far beyond the lowest and highest anchor
MAX_RATING = 100_000.0  # an anchor rated beyond this (either sign) is a damaged file
MIN_WIDTH = 0.001  # compare --width: narrower would need more games than can be played
KIND = "mtg_env.evaluate.v1"
ANCHORS_KIND = "mtg_env.anchors.v1"


class EvaluateError(ValueError):
    """A results or anchors file that can't be used for this run (one line naming it)."""


# ----------------------------------------------------------------------------- deck sets


@dataclass(frozen=True)
class DeckSet:
    name: str
    format: str
    decks: tuple[str, ...]


def deck_set(name: str) -> DeckSet:
    """The decks a deck set names (see the module docstring)."""
    if name not in DECK_SETS:
        raise ValueError(f"unknown deck set {name!r} (known: {', '.join(DECK_SETS)})")
    fmt, part = DECK_SETS[name]
    if part is None:
        return DeckSet(name, fmt, tuple(sorted(load_decks(fmt))))
    s = load_split()
    if s.format != fmt:  # pragma: no cover - the table and the split file disagree
        raise ValueError(f"deck set {name!r}: the held-out split is of {s.format}, not {fmt}")
    return DeckSet(name, fmt, tuple(getattr(s, part)))


def resolve_deck_set(fmt: str | None, decks: str | None) -> DeckSet:
    """The deck set of `--format F --decks SET`: either one picks the other (classic <->
    classic, core <-> core-heldout); both must agree."""
    default: dict[str, str] = {}
    for set_name, (set_fmt, _) in DECK_SETS.items():
        default.setdefault(set_fmt, set_name)
    if decks is None:
        if fmt is not None and fmt not in default:
            raise ValueError(
                f"--format {fmt!r}: evaluate has deck sets for the formats "
                f"{', '.join(default)} only"
            )
        decks = default[fmt] if fmt is not None else next(iter(DECK_SETS))
    ds = deck_set(decks)
    if fmt is not None and fmt != ds.format:
        raise ValueError(f"--decks {decks}: its decks are {ds.format} decks, not {fmt}")
    return ds


def _decks_digest(ds: DeckSet) -> str:
    decks = load_decks(ds.format)
    body = {n: list(decks[n].cards) for n in ds.decks}
    return hashlib.sha256(json.dumps(body).encode()).hexdigest()[:16]


# ------------------------------------------------------------------------------- anchors


@dataclass(frozen=True)
class Anchor:
    spec: str
    rating: float


def load_anchors(name: str, path: Path = ANCHORS_FILE) -> list[Anchor]:
    """The pinned anchors of a deck set, checked: one line naming the file and field."""
    raw = load_yaml(path, "anchors file")
    if not isinstance(raw, dict):
        raise EvaluateError(f"{path}: a mapping from deck set to its anchors")
    # The file is data: a plug-in spec anywhere in it (any deck set's entry) is refused
    # before any agent is built, so that nothing it names runs.
    for set_name, entry in raw.items():
        items = entry.get("anchors") if isinstance(entry, dict) else None
        for i, a in enumerate(items if isinstance(items, list) else []):
            if isinstance(a, dict):
                check_spec_from_file(a.get("spec"), f"{path}: field {set_name}.anchors[{i}].spec")
    if name not in raw:
        raise EvaluateError(
            f"{path}: no anchors for the deck set {name!r} (measure them with "
            f"scripts/leaderboard.py --anchors)"
        )
    entry = raw[name]
    items = entry.get("anchors") if isinstance(entry, dict) else None
    if not isinstance(items, list) or not items:
        raise EvaluateError(f"{path}: field {name}.anchors: a list of {{spec, rating}}")
    out = []
    for i, a in enumerate(items):
        where = f"{path}: field {name}.anchors[{i}]"
        if not isinstance(a, dict) or not {"spec", "rating"} <= set(a) <= {
            "spec",
            "rating",
            "ci95",
        }:
            raise EvaluateError(f"{where}: a mapping with spec and rating (and ci95)")
        spec, rating = a["spec"], a["rating"]
        if not isinstance(spec, str) or not spec:
            raise EvaluateError(f"{where}.spec: an agent spec")
        if isinstance(rating, bool) or not isinstance(rating, int | float):
            raise EvaluateError(f"{where}.rating: a number")
        if not (math.isfinite(rating) and abs(rating) <= MAX_RATING):
            raise EvaluateError(
                f"{where}.rating: a finite number from -{MAX_RATING:g} to {MAX_RATING:g}"
            )
        out.append(Anchor(spec, float(rating)))
    if out[0] != Anchor(*PINNED):
        raise EvaluateError(f"{path}: field {name}.anchors[0]: must be random at 1000")
    if len({a.spec for a in out}) != len(out):
        raise EvaluateError(f"{path}: field {name}.anchors: an anchor is listed twice")
    return out


def write_anchors(path: Path, name: str, entry: dict[str, Any]) -> None:
    """Replace one deck set's entry of the anchors file (others are kept)."""
    import yaml

    old: dict[str, Any] = {}
    if path.exists():
        raw = load_yaml(path, "anchors file")
        if isinstance(raw, dict):
            old = raw
    old[name] = entry
    head = (
        "# The pinned anchors of `mtg-env evaluate` (agents/evaluate.py), per deck set: random\n"
        "# is 1000 by definition; the other ratings are a Bradley-Terry fit of the round\n"
        "# robin between the anchors on the evaluation schedule, made by `command`.\n"
    )
    body = yaml.safe_dump({k: old[k] for k in sorted(old)}, sort_keys=False, width=100)
    write_text(path, head + body)


# ------------------------------------------------------------------------------ schedule


@dataclass(frozen=True)
class Scheduled:
    """One game of the schedule: `agent` against `opponent` on pair `pair`; `swap` puts
    the opponent in seat 0. Decks belong to seats: `deck0` is seat 0's."""

    agent: str
    opponent: str
    pair: int
    swap: bool
    seed: int
    deck0: str
    deck1: str

    @property
    def key(self) -> str:
        return f"{self.agent}|{self.opponent}|{self.pair}|{int(self.swap)}"


def deck_pair_order(ds: DeckSet, seed: int) -> list[tuple[str, str]]:
    """Every ordered pair of the set's decks (mirrors included), shuffled by the seed."""
    pairs = [(x, y) for x in ds.decks for y in ds.decks]
    random.Random(f"evaluate:{seed}:{ds.name}").shuffle(pairs)
    return pairs


def schedule(
    matchups: Sequence[tuple[str, str]], ds: DeckSet, games: int, seed: int
) -> list[Scheduled]:
    """The games of each matchup (agent, opponent): `games` rounded up to even, in
    seat-swapped pairs; the same positions for every matchup."""
    order = deck_pair_order(ds, seed)
    out = []
    for agent, opp in matchups:
        for k in range((games + 1) // 2):
            d0, d1 = order[k % len(order)]
            for swap in (False, True):
                out.append(Scheduled(agent, opp, k, swap, seed * 100_003 + k, d0, d1))
    return out


class _Timed:
    """Times every decision of the agent it wraps."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.decisions = 0
        self.seconds = 0.0

    def reset(self) -> None:
        self.agent.reset()

    def choose(self, game: Game) -> Any:
        t = time.perf_counter()
        a = self.agent.choose(game)
        self.seconds += time.perf_counter() - t
        self.decisions += 1
        return a


def play_scheduled(s: Scheduled, fmt: str) -> dict[str, Any]:
    """Play one scheduled game; its row (score: the agent's, a draw counting 0.5). A
    plug-in that breaks the agent protocol is a `PluginFault` naming the game."""
    decks = load_decks(fmt)
    agent = make_agent(s.agent, s.seed * 2 + 1, fmt=fmt)
    fallbacks_before = agent.fallbacks
    opp = make_agent(s.opponent, s.seed * 2 + 2, fmt=fmt)
    timed = _Timed(guard(agent, s.agent))
    seats = [guard(opp, s.opponent), timed] if s.swap else [timed, guard(opp, s.opponent)]
    t = time.perf_counter()
    try:
        g = play_game(seats, (decks[s.deck0], decks[s.deck1]), s.seed, fmt, MAX_DECISIONS)
    except PluginFault as e:
        swapped = ", seats swapped" if s.swap else ""
        raise PluginFault(
            f"{e}, in the game against {shown(s.opponent)}, pair {s.pair}{swapped} (seed {s.seed})"
        ) from None
    seat = 1 if s.swap else 0
    score = 0.5 if g.winner is None else float(g.winner == seat)
    return {
        "key": s.key,
        "agent": s.agent,
        "opponent": s.opponent,
        "pair": s.pair,
        "swap": int(s.swap),
        "seed": s.seed,
        "seat_agent": seat,
        "deck_agent": s.deck1 if s.swap else s.deck0,
        "deck_opponent": s.deck0 if s.swap else s.deck1,
        "score": score,
        "turns": g.turn,
        "decisions": g.n_decisions,
        "agent_decisions": timed.decisions,
        "agent_seconds": round(timed.seconds, 6),
        # A plug-in instance is shared between games: count this game's fallbacks only.
        "fallbacks": agent.fallbacks - fallbacks_before,
        "seconds": round(time.perf_counter() - t, 4),
        "code": code_digest(),
    }


# ------------------------------------------------------------------------ resumable runs


def progress_path(out: Path) -> Path:
    return out.with_name(out.name + ".games.jsonl")


NonNegative = Annotated[int, Field(ge=0)]
Seat = Annotated[int, Field(ge=0, le=1)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Rating = Annotated[float, Field(ge=-MAX_RATING, le=MAX_RATING, allow_inf_nan=False)]


class GameRow(BaseModel):
    """One game of a results or progress file, as `play_scheduled` writes it. Files edited
    by hand or written by another version are checked field by field when read, so that a
    bad file is one line naming the file and the field, not an error halfway through."""

    model_config = ConfigDict(strict=True, extra="allow")

    key: str
    agent: str
    opponent: str
    pair: NonNegative
    swap: Seat
    seed: NonNegative
    seat_agent: Seat
    deck_agent: str
    deck_opponent: str
    score: float
    turns: NonNegative
    decisions: NonNegative
    agent_decisions: NonNegative
    agent_seconds: Seconds
    fallbacks: NonNegative = 0
    seconds: Seconds
    code: str = "?"

    @field_validator("score")
    @classmethod
    def _score(cls, v: float) -> float:
        if v not in (0, 0.5, 1):
            raise ValueError("0, 0.5 or 1")
        return v

    @model_validator(mode="after")
    def _key(self) -> GameRow:
        # The key names the game in the schedule: it must agree with the fields it is made
        # of, or the game would be counted as another one.
        want = f"{self.agent}|{self.opponent}|{self.pair}|{self.swap}"
        if self.key != want:
            raise ValueError(f"key {shown(self.key)} does not match its fields ({shown(want)})")
        return self


class AnchorEntry(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    spec: str
    rating: Rating
    file: str | None = None


class EvaluationConfig(BaseModel):
    """The fields of an evaluation's configuration that reading its results relies on (a
    resumed run compares the whole configuration with its own)."""

    model_config = ConfigDict(strict=True, extra="allow")

    agent: str
    anchors: list[AnchorEntry] = Field(min_length=1)
    games: Annotated[int, Field(ge=1)]


def _check(model: type[BaseModel], data: Any, where: str, field: str = "") -> None:
    """Validate `data` (the value of `field` in the file `where`) against `model`: one
    EvaluateError line naming the file and the first bad field."""
    try:
        model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = field + "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in err["loc"])
        loc = loc.lstrip(".")
        more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
        at = f"{where}: field {loc}" if loc else where
        raise EvaluateError(f"{at}: {err['msg']}{more}") from None


def _read_progress(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    """(the configuration line, the game rows) of a progress file."""
    text = read_text(path, "evaluation progress file")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    parsed = []
    for i, line in enumerate(lines, 1):
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise EvaluateError(f"{path}: line {i}: not JSON ({e.msg})") from None
    if not parsed or not isinstance(parsed[0], dict) or "config" not in parsed[0]:
        raise EvaluateError(f"{path}: line 1: the run's configuration is missing")
    rows = []
    for i, r in enumerate(parsed[1:], 2):
        _check(GameRow, r, f"{path}: line {i}")
        rows.append(r)
    return parsed[0]["config"], rows


def _load_result(path: Path, what: str = "evaluation results") -> dict[str, Any]:
    """A results file, checked: every game row (`GameRow`) and, for an evaluation, the
    fields of its configuration that reading it relies on."""
    try:
        raw = load_json(path, what)
    except InputFileError as e:
        raise EvaluateError(str(e)) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("config"), dict):
        raise EvaluateError(f"{path}: not an evaluation results file (no config)")
    config = raw["config"]
    games = raw.get("games")
    if not isinstance(games, list):
        raise EvaluateError(f"{path}: field games: a list of game rows")
    for i, r in enumerate(games):
        _check(GameRow, r, str(path), f"games[{i}]")
    if config.get("kind") == KIND:
        _check(EvaluationConfig, config, str(path), "config")
        if "agent" not in raw:
            raise EvaluateError(f"{path}: field agent: Field required")
        if raw["agent"] != config["agent"]:
            raise EvaluateError(f"{path}: field agent: not the agent of config.agent")
        specs = {a["spec"] for a in config["anchors"]}
        for i, r in enumerate(games):
            if r["agent"] != config["agent"]:
                raise EvaluateError(f"{path}: field games[{i}].agent: not config.agent")
            if r["opponent"] not in specs:
                raise EvaluateError(f"{path}: field games[{i}].opponent: not an anchor")
    return raw


# The game fields that the schedule decides: a stored game must agree with its task.
_SCHEDULED = ("seed", "seat_agent", "deck_agent", "deck_opponent")


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
        stored = _load_result(out)
        sources.append((out, stored["config"], stored["games"]))
    if prog.exists():
        cfg, prog_rows = _read_progress(prog)
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


def json_text(obj: Any, indent: int | None = None) -> str:
    """JSON that every reader accepts: a float that is not finite (which `json.dumps`
    writes as the invalid `NaN` or `Infinity`) becomes null."""
    return json.dumps(_finite_only(obj), indent=indent, allow_nan=False)


def _finite_only(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite_only(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite_only(v) for v in obj]
    return obj


def _check_stored(
    path: Path, stored: dict[str, Any], new: dict[str, Any], fields: Sequence[str]
) -> None:
    """Refuse a finished results file whose figures are not those of its own games (an
    edited or damaged file): the figures shown are always recomputed from the games."""
    for f in fields:
        diff = _difference(stored.get(f), new.get(f), f)
        if diff is not None:
            where, old, now = diff
            raise EvaluateError(
                f"{path}: field {where}: {shown(old)} there, but its games give {shown(now)}: "
                "the file was edited or damaged; give a new --out file to rerun"
            )


def _difference(old: Any, new: Any, where: str) -> tuple[str, Any, Any] | None:
    """The first place where two figures differ (numbers within rounding), or None."""
    if isinstance(new, dict):
        if not isinstance(old, dict) or set(old) != set(new):
            return where, old, new
        for k in new:
            d = _difference(old[k], new[k], f"{where}.{k}")
            if d is not None:
                return d
        return None
    if isinstance(new, list):
        if not isinstance(old, list) or len(old) != len(new):
            return where, old, new
        for i, (o, n) in enumerate(zip(old, new, strict=True)):
            d = _difference(o, n, f"{where}[{i}]")
            if d is not None:
                return d
        return None
    numeric = (int, float)
    if isinstance(new, numeric) and not isinstance(new, bool):
        if isinstance(old, bool) or not isinstance(old, numeric):
            return where, old, new
        # Ratings are rounded to 0.1 and rates to 1e-4: a recomputation on another machine
        # may land on the other side of a rounding step, an edit does not.
        tol = 0.11 if "rating" in where else 2e-4
        return None if abs(old - new) <= tol else (where, old, new)
    return None if old == new and type(old) is type(new) else (where, old, new)


# ------------------------------------------------------------------------------- ratings


def _expected(diff: np.ndarray) -> np.ndarray:
    """P(score) for a rating difference on the Elo scale."""
    return 1.0 / (1.0 + np.power(10.0, -diff / 400.0))


def fit_ratings(
    n: np.ndarray,
    w: np.ndarray,
    pinned: dict[int, float],
    bounds: tuple[float, float],
    sweeps: int = 200,
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry ratings (Elo scale) of a batch of tables.

    `n[b, i, j]` games between players i and j in batch b, `w[b, i, j]` i's score in them;
    the `pinned` players keep their ratings, each free one is solved for by bisection on its
    score equation within `bounds`, sweeping until no rating moves (coordinate ascent of a
    concave log-likelihood). A free player without games gets NaN."""
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    batch, players = n.shape[0], n.shape[1]
    lo, hi = bounds
    r = np.full((batch, players), (lo + hi) / 2)
    for i, v in pinned.items():
        r[:, i] = v
    free = [i for i in range(players) if i not in pinned]
    for _ in range(sweeps if len(free) > 1 else 1):
        before = r.copy()
        for i in free:
            a = np.full(batch, lo)
            b = np.full(batch, hi)
            for _ in range(60):  # 2400 points wide: 60 halvings reach float precision
                mid = (a + b) / 2
                # i's score minus its expectation at rating `mid`: decreasing in mid.
                g = (w[:, i, :] - n[:, i, :] * _expected(mid[:, None] - r)).sum(axis=1)
                up = g > 0
                a = np.where(up, mid, a)
                b = np.where(up, b, mid)
            r[:, i] = (a + b) / 2
        if np.nanmax(np.abs(r - before)) < 1e-6:
            break
    for i in free:
        r[n[:, i, :].sum(axis=1) == 0, i] = np.nan
    return r


def _units(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[int, float, int]]]:
    """Seat-swapped pairs by matchup (agent, opponent): (pair, score sum, games)."""
    acc: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for r in rows:
        acc[(r["agent"], r["opponent"], r["pair"])].append(float(r["score"]))
    out: dict[tuple[str, str], list[tuple[int, float, int]]] = defaultdict(list)
    for (a, o, k), scores in sorted(acc.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
        out[(a, o)].append((k, sum(scores), len(scores)))
    return out


def _tables(
    units: dict[tuple[str, str], list[tuple[int, float, int]]],
    players: list[str],
    resamples: int,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Game and score tables [B, P, P]: the observed ones (rng None, B = 1), or `resamples`
    bootstrap tables resampling each matchup's pairs with replacement."""
    idx = {p: i for i, p in enumerate(players)}
    b = 1 if rng is None else resamples
    n = np.zeros((b, len(players), len(players)))
    w = np.zeros_like(n)
    for (a, o), us in units.items():
        scores = np.array([u[1] for u in us])
        counts = np.array([u[2] for u in us], dtype=float)
        if rng is None:
            ws, ns = scores.sum()[None], counts.sum()[None]
        else:
            pick = rng.integers(0, len(us), size=(b, len(us)))
            ws, ns = scores[pick].sum(axis=1), counts[pick].sum(axis=1)
        i, j = idx[a], idx[o]
        n[:, i, j] += ns
        n[:, j, i] += ns
        w[:, i, j] += ws
        w[:, j, i] += ns - ws
    return n, w


def rate(
    rows: list[dict[str, Any]],
    players: list[str],
    pinned: dict[str, float],
    resamples: int = BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, dict[str, Any]]:
    """Each free player's rating with its bootstrap 95% interval (pinned ones as given)."""
    bounds = (min(pinned.values()) - SPAN, max(pinned.values()) + SPAN)
    pin = {players.index(p): v for p, v in pinned.items()}
    units = _units(rows)
    n, w = _tables(units, players, 1, None)
    point = fit_ratings(n, w, pin, bounds)[0]
    nb, wb = _tables(units, players, resamples, np.random.default_rng(seed))
    boot = fit_ratings(nb, wb, pin, bounds)
    out: dict[str, dict[str, Any]] = {}
    for i, p in enumerate(players):
        if p in pinned:
            out[p] = {"rating": pinned[p], "pinned": True}
            continue
        if math.isnan(point[i]):
            out[p] = {"rating": None, "ci95": None, "pinned": False, "at_bound": False}
            continue
        lo, hi = np.nanpercentile(boot[:, i], [2.5, 97.5])
        out[p] = {
            "rating": round(float(point[i]), 1),
            "ci95": [round(float(lo), 1), round(float(hi), 1)],
            "pinned": False,
            "at_bound": bool(min(abs(point[i] - bounds[0]), abs(point[i] - bounds[1])) < 0.01),
        }
    return out


def _win_rates(rows: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    by: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by[r[field]].append(float(r["score"]))
    out = []
    for name, scores in by.items():
        n = len(scores)
        lo, hi = wilson(sum(scores), n)
        out.append(
            {
                field: name,
                "games": n,
                "wins": sum(1 for s in scores if s == 1),
                "draws": sum(1 for s in scores if s == 0.5),
                "losses": sum(1 for s in scores if s == 0),
                "win_rate": round(sum(scores) / n, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        )
    return out


def search_budget(spec: str, fmt: str) -> dict[str, Any] | None:
    """The per-decision budget of a search agent (ISMCTS iterations or seconds), or None."""
    try:
        agent = make_agent(spec, 0, fmt=fmt)
    except ValueError:
        return None
    budget = agent.budget
    if budget is None:
        return None
    return {"iterations_per_decision": budget.iterations, "seconds_per_decision": budget.seconds}


# ------------------------------------------------------------------------------ evaluate


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
        "decks_sha256": _decks_digest(ds),
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
        _check_stored(out, stored, result, EVALUATION_FIGURES)
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
        "per_anchor": _win_rates(rows, "opponent"),
        "per_deck": sorted(_win_rates(rows, "deck_agent"), key=lambda d: d["deck_agent"]),
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


# ------------------------------------------------------------------------------- anchors


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
        "decks_sha256": _decks_digest(ds),
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
        (wr,) = _win_rates(sub, "opponent") if sub else [{}]
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
        _check_stored(out, stored, result, ("ratings", "pairs"))
        return {**result, "budgets": stored.get("budgets"), "versions": stored.get("versions")}
    result["budgets"] = {s: search_budget(s, ds.format) for s in specs}
    result["versions"] = versions()
    if out is not None:
        write_text(out, json_text(result, indent=1) + "\n")
        progress_path(out).unlink(missing_ok=True)
    return result


# ------------------------------------------------------------------------------- compare

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
    ra, rb = _load_result(a), _load_result(b)
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
    rating_a = _fit_one(sa, n, r_anchor, (pinned_lo, pinned_hi))
    rating_b = _fit_one(sb, n, r_anchor, (pinned_lo, pinned_hi))
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
        "rating_diff": _rounded(rd[0], 1),
        "rating_diff_ci95": [_rounded(rlo, 1), _rounded(rhi, 1)],
        "rating_diff_at_bound": at_bound,
        "pair_sd": None if not math.isfinite(sd) else round(sd, 4),
        "games_needed": needed,
        "method": f"paired percentile bootstrap of seat-swapped pairs within each anchor, "
        f"{resamples} resamples, seed {BOOTSTRAP_SEED}",
    }


def _rounded(x: Any, digits: int) -> float | None:
    """A figure for a JSON result: rounded, or None when it is not a finite number."""
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def _fit_one(
    score: np.ndarray, n: np.ndarray, anchors: np.ndarray, bounds: tuple[float, float]
) -> np.ndarray:
    """One free player against pinned anchors, for every row of [B, anchors] tables."""
    b, k = score.shape
    nn = np.zeros((b, k + 1, k + 1))
    ww = np.zeros_like(nn)
    nn[:, 0, 1:], ww[:, 0, 1:] = n, score
    pinned = {i + 1: float(r) for i, r in enumerate(anchors)}
    return fit_ratings(nn, ww, pinned, bounds)[:, 0]
