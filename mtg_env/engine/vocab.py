"""The card-data vocabulary shared by the card loader (`carddb`) and the effect ops'
declarations (`effects`): names, keywords, references and the strict pydantic base every
card-data model uses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from .constants import BASIC_LAND_TYPES, COLOR_WORDS

COLOR_NAMES = Literal["W", "U", "B", "R", "G"]
TYPE_NAMES = Literal["artifact", "creature", "enchantment", "instant", "land", "sorcery"]
SUPERTYPE_NAMES = Literal["basic", "legendary"]
DURATIONS = Literal["end_of_turn", "forever", "while_you_control_source"]

_LANDWALKS = {f"{t.lower()}walk" for t in BASIC_LAND_TYPES}
_PROTECTIONS = {f"protection_from_{c}" for c in COLOR_WORDS}
_FIRST_KEYWORDS = frozenset(
    {
        "flying",
        "first_strike",
        "double_strike",
        "deathtouch",
        "defender",
        "flash",
        "haste",
        "vigilance",
        "reach",
        "trample",
        "lifelink",
        "menace",
    }
    | _LANDWALKS
    | _PROTECTIONS
)
# Keywords added since, in the order they were added. `KEYWORD_ORDER` is the order of the
# observations' keyword features and bits: append-only, so that an observation of a game
# whose cards use none of the new keywords is what it was before they existed.
_ADDED_KEYWORDS = ("hexproof", "indestructible")
KEYWORD_ORDER: tuple[str, ...] = tuple(sorted(_FIRST_KEYWORDS)) + _ADDED_KEYWORDS
KEYWORDS = frozenset(KEYWORD_ORDER)
FIRST_KEYWORDS = _FIRST_KEYWORDS

REFS = Literal[
    "target",
    "target1",
    "target2",
    "self",
    "enchanted",
    "you",
    "that_player",
    "all_creatures",
    "each_opponent",
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_keywords(v: list[str]) -> list[str]:
    for k in v:
        if k not in KEYWORDS:
            raise ValueError(f"unknown keyword {k!r} (known: {', '.join(sorted(KEYWORDS))})")
    return v
