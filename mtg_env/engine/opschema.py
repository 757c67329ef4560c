"""The card-data schema of each effect op's arguments (pydantic models), named by
`engine.effects.OPS` beside the op's behaviour and text.

A module of its own because it stays Python in the compiled build: pydantic builds these
classes and their validators at import time, which classes compiled by mypyc do not allow
(docs/compiling.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from .cards import parse_mana_cost
from .vocab import COLOR_NAMES, DURATIONS, REFS, TYPE_NAMES, Strict, check_keywords


class DamageOp(Strict):
    amount: int = Field(ge=0)
    to: REFS


class WhatOp(Strict):
    what: REFS


class DrawOp(Strict):
    count: int = Field(default=1, ge=1)
    who: REFS = "you"


class DiscardOp(Strict):
    count: int = Field(default=1, ge=1)
    who: REFS
    random: bool = False


class LifeOp(Strict):
    amount: int = Field(ge=0)
    who: REFS = "you"


class MillOp(Strict):
    count: int = Field(default=1, ge=1)
    who: REFS = "you"


class LookOp(Strict):
    """Scry / surveil N (CR 701.22, 701.25): the controller looks at the top N cards of
    their library. At most 10, so that a choice has at most 20 options."""

    count: int = Field(ge=1, le=10)


class FightOp(Strict):
    what: REFS
    other: REFS


class PumpOp(Strict):
    what: REFS
    power: int = 0
    toughness: int = 0
    duration: DURATIONS = "end_of_turn"


class SwitchOp(Strict):
    what: REFS
    duration: DURATIONS = "end_of_turn"


class GrantOp(Strict):
    what: REFS
    keywords: list[str]
    duration: DURATIONS = "end_of_turn"

    _kw = field_validator("keywords")(check_keywords)


class ControlOp(Strict):
    what: REFS
    duration: DURATIONS = "end_of_turn"


class TokenOp(Strict):
    token: str
    count: int = Field(default=1, ge=1)


class CounterOp(Strict):
    what: REFS
    counter: Literal["+1/+1", "-1/-1"]
    count: int = Field(default=1, ge=1)


class AnimateOp(Strict):
    what: REFS
    duration: DURATIONS = "end_of_turn"
    add_types: list[TYPE_NAMES] = []
    all_creature_types: bool = False
    power: int
    toughness: int


class SubtypeOp(Strict):
    what: REFS
    subtypes: list[str]
    duration: DURATIONS = "forever"


class LandTypeOp(Strict):
    what: REFS
    duration: DURATIONS = "end_of_turn"


class AttachOp(Strict):
    what: REFS = "self"
    to: REFS


class TokenCopyOp(Strict):
    what: REFS
    haste: bool = False
    sacrifice_at_next_end_step: bool = False


class CostOp(Strict):
    cost: str

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: str) -> str:
        parse_mana_cost(v)
        return v


class ColorsOp(Strict):
    colors: list[COLOR_NAMES]


class EmptyOp(Strict):
    pass
