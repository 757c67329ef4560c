"""The files of `mtg-env evaluate` (agents.evaluate): the anchors file, the results file and
the progress file a run resumes from, each read as data and checked field by field, and
the JSON they are written as."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mtg_env.io import (
    InputFileError,
    load_json,
    load_yaml,
    read_text,
    write_text,
)

from .plugin import check_spec_from_file, shown
from .ratings import PINNED

ANCHORS_FILE = (
    Path(__file__).resolve().parents[1] / "mtg_env" / "data" / "benchmarks" / "anchors.yaml"
)

MAX_RATING = 100_000.0  # an anchor rated beyond this (either sign) is a damaged file

NonNegative = Annotated[int, Field(ge=0)]
Seat = Annotated[int, Field(ge=0, le=1)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Rating = Annotated[float, Field(ge=-MAX_RATING, le=MAX_RATING, allow_inf_nan=False)]


KIND = "mtg_env.evaluate.v1"


ANCHORS_KIND = "mtg_env.anchors.v1"


class EvaluateError(ValueError):
    """A results or anchors file that can't be used for this run (one line naming it)."""


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


def progress_path(out: Path) -> Path:
    return out.with_name(out.name + ".games.jsonl")


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


def read_progress(path: Path) -> tuple[Any, list[dict[str, Any]]]:
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


def load_result(path: Path, what: str = "evaluation results") -> dict[str, Any]:
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


def check_stored(
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
