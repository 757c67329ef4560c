"""A scenario file read and checked (docs/scenarios.md): the pydantic models of its
setup, script, expectations and goal, and the checks of every step's and expectation's
fields, labels and types when the file is loaded, so that no check can pass by accident.
A malformed file is one `ScenarioError` naming the file, the entry and the field."""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..engine.carddb import load_cards
from ..engine.constants import (
    COLOR_LETTERS,
    DECISION_NAMES,
    ZONE_BY_NAME,
)
from ..engine.formats import CLASSIC, Rules, rules_for
from ..io import InputFileError, load_yaml


class ScenarioError(ValueError):
    """A malformed scenario file (the message names the file and the field)."""


class ScenarioFailure(Exception):
    """A scenario step or expectation that did not hold."""


# --------------------------------------------------------------------------- schema


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntryModel(_Strict):
    card: str
    id: str | None = None
    tapped: bool = False
    face_down: bool = False  # pocket: a card face down on the battlefield (a mana source)
    sick: bool = False
    damage: int = Field(default=0, ge=0)
    counters: dict[Literal["+1/+1", "-1/-1", "stun"], int] = {}
    attached_to: str | None = None
    timestamp: int | None = None
    owner: Literal[0, 1] | None = None


Entry = str | EntryModel


class PlayerModel(_Strict):
    life: int | None = None  # default: the format's starting life
    poison: int = Field(default=0, ge=0)  # poison counters (CR 122.1f), in a set with infect
    # Pool formats (adventure): the mana left this turn and the pool's size (default: mana).
    mana: int | None = Field(default=None, ge=0)
    mana_max: int | None = Field(default=None, ge=0)
    hand: list[Entry] = []
    library: list[Entry] = []
    graveyard: list[Entry] = []
    exile: list[Entry] = []
    battlefield: list[Entry] = []


class StackEntryModel(_Strict):
    """A spell (`card`) or an activated ability (`source`, the label of its permanent, and
    `ability`, its index among the permanent's activated abilities, mana abilities
    counted) already on the stack, its costs paid and its targets chosen: labels, or
    `player0` / `player1`."""

    card: str | None = None
    id: str | None = None
    owner: Literal[0, 1] = 0
    controller: Literal[0, 1] | None = None  # default: the owner (a spell), the source's
    source: str | None = None
    ability: int = Field(default=0, ge=0)
    targets: list[str] = []
    mode: int | None = Field(default=None, ge=0)
    x: int | None = Field(default=None, ge=0)


class SetupModel(_Strict):
    turn: int = Field(default=1, ge=1)
    active: Literal[0, 1] = 0
    # A step name of the scenario's format (classic: main1, ...; adventure: main, ...).
    step: str | None = None
    seed: int = 0
    players: list[PlayerModel] = Field(min_length=2, max_length=2)
    # Spells and abilities on the stack as the position starts, bottom first.
    stack: list[StackEntryModel] = []


class GoalModel(_Strict):
    winner: Literal[0, 1] = 0
    within_turns: int = Field(default=1, ge=1)


class ScenarioModel(_Strict):
    name: str
    format: str = "classic"
    rules: list[str] = []
    description: str = ""
    setup: SetupModel
    script: list[Any] = []
    expect: list[dict[str, Any]] = []
    goal: GoalModel | None = None
    # A winning line for a puzzle (script steps), checked by tests; not shown to agents.
    solution: list[Any] = []


@dataclass
class Scenario:
    model: ScenarioModel
    path: str

    @property
    def name(self) -> str:
        return self.model.name


@dataclass
class Result:
    name: str
    ok: bool
    message: str = ""
    path: str = ""
    log: str = ""
    rules: list[str] = field(default_factory=list)


def _errors(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        loc = ""
        for p in err["loc"]:
            loc += f"[{p}]" if isinstance(p, int) else (("." if loc else "") + str(p))
        parts.append(f"field {loc or '(top)'}: {err['msg']}")
    return "; ".join(parts)


def parse_scenario(raw: Any, path: str = "<scenario>") -> Scenario:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: a scenario is a YAML mapping")
    try:
        model = ScenarioModel.model_validate(raw)
    except ValidationError as e:
        raise ScenarioError(f"{path}: {_errors(e)}") from None
    if model.goal is None and not model.script and not model.expect:
        raise ScenarioError(f"{path}: a scenario needs a script, expectations, or a goal")
    try:
        rules = rules_for(model.format)
    except ValueError as e:
        raise ScenarioError(f"{path}: field format: {e}") from None
    names = [rules.step_name(i) for i in sorted(rules.step_names)]
    if model.setup.step is not None and rules.step_by_name(model.setup.step) is None:
        raise ScenarioError(
            f"{path}: field setup.step: unknown step {model.setup.step!r} for format "
            f"{rules.name} (steps: {', '.join(names)})"
        )
    for pm in model.setup.players:
        for name in ("mana", "mana_max"):
            if getattr(pm, name) is not None and name not in rules.player_fields:
                raise ScenarioError(
                    f"{path}: field setup.players: {name} is not a player field of format "
                    f"{rules.name} (its extra fields: {', '.join(rules.player_fields) or 'none'})"
                )
    _check_labels(model, path)
    _STEPS_OF.set(rules)
    for i, step in enumerate(model.script):
        _check_step(step, f"{path}: script[{i}]")
    for i, exp in enumerate(model.expect):
        _check_expect(exp, f"{path}: expect[{i}]")
    for i, step in enumerate(model.solution):
        _check_step(step, f"{path}: solution[{i}]")
    if model.solution and model.goal is None:
        raise ScenarioError(f"{path}: field solution: only a puzzle (with a goal) has one")
    return Scenario(model, path)


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        raw = load_yaml(p, "scenario file")
    except InputFileError as e:
        raise ScenarioError(str(e)) from None
    return parse_scenario(raw, str(p))


HALVES = {"top": 0, "bottom": 1, "face_down": 2}

# The rules of the scenario being parsed, for checks of step names deep in script steps.
_STEPS_OF: ContextVar[Rules] = ContextVar("scenario_rules", default=CLASSIC)

_ACTION_KEYS = {"play", "activate", "attack", "block", "choose"}
_STEP_KEYS = {
    "player",
    "play",
    "half",
    "activate",
    "ability",
    "targets",
    "mode",
    "kicker",
    "x",
    "choose",
    "attack",
    "block",
    "pass",
    "resolve",
    "advance",
    "expect",
    "expect_error",
}
MAX_PASSES = 1000  # `pass: N`: a scenario passes a few times, never a billion
# Decisions `resolve` and `advance` may pass through: far more than two turns take, so only
# a position that cycles without progress reaches it.
MAX_AUTO_DECISIONS = 20_000


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _seat(x: Any) -> bool:
    return _is_int(x) and x in (0, 1)


def _str_list(x: Any) -> bool:
    return isinstance(x, list) and all(isinstance(v, str) for v in x)


def _counters(x: Any) -> bool:
    return isinstance(x, dict) and all(
        k in ("+1/+1", "-1/-1", "stun") and _is_int(v) and v >= 0 for k, v in x.items()
    )


def _nonneg(x: Any) -> bool:
    return _is_int(x) and x >= 0


def _is_bool(x: Any) -> bool:
    return isinstance(x, bool)


def _is_str(x: Any) -> bool:
    return isinstance(x, str) and x != ""


def _zone(x: Any) -> bool:
    return isinstance(x, str) and x in ZONE_BY_NAME


# Expected value of each field: a check and what it must be (for the error message).
_OBJ_TYPES: dict[str, tuple[Any, str]] = {
    "power": (_is_int, "an integer"),
    "toughness": (_is_int, "an integer"),
    "damage": (_nonneg, "an integer, 0 or more"),
    "zone": (_zone, f"one of {', '.join(ZONE_BY_NAME)}"),
    "tapped": (_is_bool, "true or false"),
    "attacking": (_is_bool, "true or false"),
    "blocking": (_is_bool, "true or false"),
    "sick": (_is_bool, "true or false"),
    "controller": (_seat, "0 or 1"),
    "owner": (_seat, "0 or 1"),
    "types": (_str_list, "a list of names, e.g. [Creature]"),
    "subtypes": (_str_list, "a list of names, e.g. [Elf, Warrior]"),
    "supertypes": (_str_list, "a list of names, e.g. [Legendary]"),
    "colors": (
        lambda x: _str_list(x) and all(c.upper() in COLOR_LETTERS for c in x),
        "a list of color letters (W U B R G), [] for colorless",
    ),
    "keywords": (_str_list, "a list of keywords, e.g. [flying]"),
    "has_keywords": (_str_list, "a list of keywords, e.g. [flying]"),
    "lacks_keywords": (_str_list, "a list of keywords, e.g. [flying]"),
    "counters": (_counters, 'a mapping {"+1/+1": N, "-1/-1": N, "stun": N}'),
    "name": (_is_str, "a card name"),
    "attached_to": (lambda x: x is None or _is_str(x), "a label, a card name or null"),
}
_PLAYER_TYPES: dict[str, tuple[Any, str]] = {
    "life": (_is_int, "an integer"),
    "hand_size": (_nonneg, "an integer, 0 or more"),
    "library_size": (_nonneg, "an integer, 0 or more"),
    "graveyard_size": (_nonneg, "an integer, 0 or more"),
    "lost": (_is_bool, "true or false"),
    "mana": (_nonneg, "an integer, 0 or more"),
    "mana_max": (_nonneg, "an integer, 0 or more"),
    "mana_pool": (
        lambda x: isinstance(x, str) and re.fullmatch(r"(\{[WUBRGC]\})*", x) is not None,
        'mana symbols, e.g. "{R}{G}" ("" for none)',
    ),
    "initiative": (_is_bool, "true or false"),
    "poison": (_nonneg, "an integer, 0 or more"),
    "room": (lambda x: x is None or _is_str(x), "a room of Undercity or null"),
}
_STATE_TYPES: dict[str, tuple[Any, str]] = {
    "winner": (lambda x: _seat(x) or x == "draw", "0, 1 or draw"),
    "game_over": (_is_bool, "true or false"),
    "step": (_is_str, "a step name"),
    "active": (_seat, "0 or 1"),
    "priority": (lambda x: x is None or _seat(x), "0, 1 or null"),
    "stack_size": (_nonneg, "an integer, 0 or more"),
    "decision": (lambda x: x is None or x in DECISION_NAMES, "a decision name"),
    "turn": (lambda x: _is_int(x) and x >= 1, "an integer, 1 or more"),
}
_OBJ_FIELDS = set(_OBJ_TYPES)
_PLAYER_FIELDS = set(_PLAYER_TYPES)


def _typed(where: str, table: dict[str, tuple[Any, str]], e: dict[str, Any]) -> None:
    for k, v in e.items():
        if k in table and not table[k][0](v):
            raise ScenarioError(f"{where}: field {k}: {table[k][1]}, not {v!r}")


def _target(x: Any) -> bool:
    """A target or object reference: a label, a card name or playerN."""
    return _is_str(x)


def _choice(x: Any) -> bool:
    return isinstance(x, str | int) or (
        isinstance(x, list) and x != [] and all(isinstance(v, str | int) for v in x)
    )


def _check_labels(model: ScenarioModel, path: str) -> None:
    """Labels name one entry each and can't be mistaken for a card or a player; an Aura's
    `attached_to` names another entry on the battlefield."""
    names = set(load_cards(model.format).cards)
    labels: dict[str, str] = {}  # label -> zone
    entries: list[tuple[str, str, Any]] = [
        (f"{path}: setup.players[{seat}].{z}[{i}]", z, e)
        for seat, pm in enumerate(model.setup.players)
        for z in ("hand", "library", "graveyard", "exile", "battlefield")
        for i, e in enumerate(getattr(pm, z))
    ]
    entries += [(f"{path}: setup.stack[{i}]", "stack", e) for i, e in enumerate(model.setup.stack)]
    for where, z, e in entries:
        if isinstance(e, str):
            continue
        if e.id is None:
            continue
        if not e.id.strip():
            raise ScenarioError(f"{where}: field id: an empty label")
        if e.id in ("player0", "player1"):
            raise ScenarioError(f"{where}: field id: {e.id!r} names a player")
        if e.id in names:
            raise ScenarioError(
                f"{where}: field id: {e.id!r} is a card name; a label that shadowed "
                "it would change what steps naming that card mean"
            )
        if e.id in labels:
            raise ScenarioError(f"{where}: field id: label {e.id!r} is used twice")
        labels[e.id] = z
    for seat, pm in enumerate(model.setup.players):
        for z in ("hand", "library", "graveyard", "exile", "battlefield"):
            for i, e in enumerate(getattr(pm, z)):
                if isinstance(e, str) or e.attached_to is None:
                    continue
                where = f"{path}: setup.players[{seat}].{z}[{i}]: field attached_to"
                if z != "battlefield":
                    raise ScenarioError(f"{where}: only a permanent on the battlefield is attached")
                if e.attached_to == e.id:
                    raise ScenarioError(f"{where}: {e.attached_to!r} is the entry itself")
                if labels.get(e.attached_to) != "battlefield":
                    raise ScenarioError(
                        f"{where}: {e.attached_to!r} is not the label of a permanent on the "
                        "battlefield"
                    )
    for i, st in enumerate(model.setup.stack):
        where = f"{path}: setup.stack[{i}]"
        if (st.card is None) == (st.source is None):
            raise ScenarioError(f"{where}: a spell names its 'card', an ability its 'source'")
        if st.source is not None and labels.get(st.source) != "battlefield":
            raise ScenarioError(
                f"{where}: field source: {st.source!r} is not the label of a permanent on the "
                "battlefield"
            )
        for j, t in enumerate(st.targets):
            if t not in labels and t not in ("player0", "player1"):
                raise ScenarioError(
                    f"{where}: field targets[{j}]: {t!r} is neither a label nor player0/player1"
                )


def _check_step(step: Any, where: str) -> None:
    if step in ("pass", "resolve"):
        return
    if not isinstance(step, dict):
        raise ScenarioError(f"{where}: a step is 'pass', 'resolve' or a mapping")
    unknown = set(step) - _STEP_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {sorted(unknown)}")
    kinds = [
        k for k in ("play", "activate", "attack", "block", "pass", "advance", "expect") if k in step
    ]
    if "choose" in step and not kinds:
        kinds = ["choose"]
    if len(kinds) != 1:
        raise ScenarioError(
            f"{where}: a step does exactly one of play, activate, attack, "
            f"block, choose, pass, resolve, advance, expect (got {kinds or 'none'})"
        )
    k = kinds[0]
    if k in _ACTION_KEYS and not _seat(step.get("player")):
        raise ScenarioError(f"{where}: field player: 0 or 1 is required for {k}")
    if "player" in step and not _seat(step["player"]):
        raise ScenarioError(f"{where}: field player: 0 or 1, not {step['player']!r}")
    for key in ("play", "activate"):
        if key in step and not _target(step[key]):
            raise ScenarioError(f"{where}: field {key}: a label or a card name")
    if "ability" in step and not (_nonneg(step["ability"]) and k == "activate"):
        raise ScenarioError(f"{where}: field ability: an integer index, 0 or more, with activate")
    if "targets" in step and not (
        isinstance(step["targets"], list) and all(_target(t) for t in step["targets"])
    ):
        raise ScenarioError(f"{where}: field targets: a list of labels, card names or playerN")
    if "mode" in step and not (
        isinstance(step["mode"], str) and step["mode"].strip() and k == "play"
    ):
        raise ScenarioError(f"{where}: field mode: the chosen mode's text, with play")
    if "kicker" in step and not (_is_bool(step["kicker"]) and k == "play"):
        raise ScenarioError(f"{where}: field kicker: true or false (pay it or not), with play")
    if "x" in step and not (_nonneg(step["x"]) and k == "play"):
        raise ScenarioError(f"{where}: field x: the value of X, 0 or more, with play")
    if "choose" in step and not _choice(step["choose"]):
        raise ScenarioError(f"{where}: field choose: an answer, or a list of answers")
    if "expect_error" in step and not _is_bool(step["expect_error"]):
        raise ScenarioError(f"{where}: field expect_error: true or false")
    if "half" in step and (k != "play" or step["half"] not in HALVES):
        raise ScenarioError(
            f"{where}: field half: one of {', '.join(HALVES)}, with play (pocket cards)"
        )
    if k == "attack" and not (
        isinstance(step["attack"], list) and all(_target(x) for x in step["attack"])
    ):
        raise ScenarioError(f"{where}: field attack: a list of attackers")
    if k == "block" and not (
        isinstance(step["block"], dict)
        and all(_target(b) and _target(a) for b, a in step["block"].items())
    ):
        raise ScenarioError(f"{where}: field block: a mapping blocker: attacker")
    if k == "pass" and not (
        step["pass"] is None or (_is_int(step["pass"]) and 1 <= step["pass"] <= MAX_PASSES)
    ):
        raise ScenarioError(f"{where}: field pass: a count from 1 to {MAX_PASSES}")
    rules = _STEPS_OF.get()
    if k == "advance" and (
        not isinstance(step["advance"], str) or rules.step_by_name(step["advance"]) is None
    ):
        names = [rules.step_name(i) for i in sorted(rules.step_names)]
        raise ScenarioError(
            f"{where}: field advance: unknown step {step['advance']!r} "
            f"(steps of format {rules.name}: {', '.join(names)})"
        )
    if k == "expect":
        if not isinstance(step["expect"], list):
            raise ScenarioError(f"{where}: field expect: a list")
        for i, e in enumerate(step["expect"]):
            _check_expect(e, f"{where}.expect[{i}]")


def _check_expect(e: Any, where: str) -> None:
    if not isinstance(e, dict) or not e:
        raise ScenarioError(f"{where}: an expectation is a mapping")
    if "object" in e:
        bad = set(e) - _OBJ_FIELDS - {"object"}
        if not _target(e["object"]):
            raise ScenarioError(f"{where}: field object: a label or a card name")
        _typed(where, _OBJ_TYPES, e)
    elif "objects" in e:
        bad = set(e) - {"objects", "count"}
        if "count" not in e:
            raise ScenarioError(f"{where}: field count: required with objects")
        if not _nonneg(e["count"]):
            raise ScenarioError(f"{where}: field count: an integer, 0 or more")
        spec = e["objects"]
        if not (
            _is_str(spec)
            or isinstance(spec, dict)
            and set(spec) <= {"name", "zone", "controller"}
            and (_is_str(spec.get("name", "x")))
            and _zone(spec.get("zone", "battlefield"))
            and (spec.get("controller", 0) in (0, 1) and not _is_bool(spec.get("controller")))
        ):
            raise ScenarioError(
                f"{where}: field objects: a card name, or a mapping of name, zone and controller"
            )
    elif "player" in e and not ({"legal", "illegal"} & set(e)):
        bad = set(e) - _PLAYER_FIELDS - {"player"}
        if not _seat(e["player"]):
            raise ScenarioError(f"{where}: field player: 0 or 1, not {e['player']!r}")
        _typed(where, _PLAYER_TYPES, e)
    elif len(e) == 1 and next(iter(e)) in (*_STATE_TYPES, "legal", "illegal"):
        bad = set()
        if "legal" in e or "illegal" in e:
            inner = e.get("legal", e.get("illegal"))
            _check_step(inner, f"{where}.{next(iter(e))}")
        else:
            _typed(where, _STATE_TYPES, e)
            if "step" in e and _STEPS_OF.get().step_by_name(e["step"]) is None:
                raise ScenarioError(f"{where}: field step: unknown step {e['step']!r}")
    else:
        raise ScenarioError(f"{where}: unknown expectation {sorted(e)}")
    if bad:
        raise ScenarioError(f"{where}: unknown field(s) {sorted(bad)}")
