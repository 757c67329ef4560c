"""The card-data vocabulary shared by the card loader (`carddb`) and the effect ops'
declarations (`effects`): names, keywords, references and the strict pydantic base every
card-data model uses."""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from .constants import BASIC_LAND_TYPES, COLOR_WORDS

COLOR_NAMES = Literal["W", "U", "B", "R", "G"]
TYPE_NAMES = Literal["artifact", "creature", "enchantment", "instant", "land", "sorcery"]
SUPERTYPE_NAMES = Literal["basic", "legendary", "snow"]
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
# "ward" (CR 702.21) has a cost: a card writes it `ward: "{N}"`, which gives the card the
# keyword (this feature) and its triggered ability.
# Shadow (702.28) and horsemanship (702.31) are evasion, read where blocks are checked.
# "exalted" (702.83a) is a keyword that gives its card a triggered ability (`attacks_alone`),
# and so is "flanking" (702.25a, `flanked`). Wither (702.80) is read where damage is dealt,
# fear (702.36b) where a block is checked, shroud (702.18a) where a target is.
_ADDED_KEYWORDS = (
    "hexproof", "indestructible", "ward", "shadow", "horsemanship", "exalted", "wither",
    "flanking", "fear", "shroud",
)  # fmt: skip
# Creature types that a keyword's rule names (soulshift, CR 702.46a: "Spirit"): rules words
# in engine code, as the basic land types are, though a token may be named after one.
SOULSHIFT_TYPE: Final = "Spirit"
FABRICATE_TYPE: Final = "Servo"  # the token fabricate creates (702.123a)
RULES_SUBTYPES: Final = frozenset({SOULSHIFT_TYPE, FABRICATE_TYPE})
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
    "target_controller",
    "all_creatures",
    "each_opponent",
    "your_creatures",
    "opponent_creatures",
    "this_card",
    "creatures_without_flying",
    "targets",
    "all_enchantments",
    "attacking_creatures",
]


class EventDef(NamedTuple):
    """A triggered ability's trigger event (CR 603.2): its card-data name, the rule that
    says when it triggers, and how the rules text says it."""

    name: str
    rule: str
    text: str


# Every trigger event card data may name (`triggered: {event: ...}`), declared once. The
# engine fires each where its rule says (engine.stack `_fire` for events of one object;
# engine.turn `_step_triggers` for the beginnings of steps).
TRIGGER_EVENTS: dict[str, EventDef] = {
    e.name: e
    for e in (
        EventDef("enters", "603.6a", "When this permanent enters"),
        EventDef("dies", "603.6c", "When this creature dies"),
        EventDef("upkeep", "503.1a", "At the beginning of the upkeep"),
        EventDef("end_step", "513.1a", "At the beginning of the end step"),
        EventDef("damage_to_opponent", "603.2", "Whenever this deals damage to an opponent"),
        EventDef(
            "combat_damage_to_player",
            "510.2",
            "Whenever this creature deals combat damage to a player",
        ),
        EventDef("attacks", "508.1m", "Whenever this creature attacks"),
        EventDef("blocks", "509.1i", "Whenever this creature blocks"),
        EventDef("blocked", "509.3c", "Whenever this creature becomes blocked"),
        EventDef(
            "blocks_or_blocked", "702.45a", "Whenever this creature blocks or becomes blocked"
        ),
        EventDef("flanked", "702.25a", "Whenever a creature without flanking blocks this creature"),
        EventDef(
            "cast_noncreature",
            "702.108a",
            "Whenever you cast a noncreature spell",
        ),
        EventDef("cast_spell", "603.2", "Whenever you cast a spell"),
        EventDef(
            "cast_instant_sorcery",
            "603.2",
            "Whenever you cast an instant or sorcery spell",
        ),
        EventDef("landfall", "603.2", "Whenever a land you control enters"),
        # Of another permanent entering (603.6a) that `enters` (a filter relative to the
        # ability's source) matches; with `or_self`, of the source entering too.
        EventDef("permanent_enters", "603.6a", "Whenever another creature you control enters"),
        # The spell's own, as it becomes cast (601.2i); its source is the spell.
        EventDef("cast_self", "603.2", "When you cast this spell"),
        # Of the permanents of the player who sacrificed (701.21a); `subtype` of the
        # sacrificed permanent as it last was (603.10a), which is another permanent.
        EventDef("you_sacrifice", "603.2", "Whenever you sacrifice another <type>"),
        EventDef("attacks_alone", "702.83a", "Whenever a creature you control attacks alone"),
        # From its owner's graveyard only: its effect returns the card from there (113.6k).
        EventDef("third_draw", "603.2", "When you draw your third card in a turn"),
        # Of the permanents the drawing player controls.
        EventDef("second_draw", "603.2", "Whenever you draw your second card each turn"),
        EventDef("leaves", "603.6c", "When this permanent leaves the battlefield"),
        EventDef(
            "to_graveyard",
            "603.6c",
            "When this permanent is put into a graveyard from the battlefield",
        ),
        EventDef(
            "targeted",
            "603.2",
            "When this permanent becomes the target of a spell or ability",
        ),
        EventDef(
            "targeted_by_opponent",
            "702.21a",
            "Whenever this permanent becomes the target of a spell or ability an opponent controls",
        ),
    )
}


# The conditions a static ability may apply under ("as long as ...", CR 611.3a; card data
# `static: {if: [...]}`), of its controller's or of the permanent itself; engine.layers
# (`static_condition`) says when each holds.
STATIC_CONDITIONS: Final = (
    "threshold",
    "metalcraft",
    "hellbent",
    "delirium",
    "control_artifact",
    "equipped",
    "attacking",
)


def check_static_conditions(v: list[str]) -> list[str]:
    for c in v:
        if c not in STATIC_CONDITIONS:
            raise ValueError(
                f"unknown condition {c!r} (known: {', '.join(sorted(STATIC_CONDITIONS))})"
            )
    return v


def check_event(v: str) -> str:
    if v not in TRIGGER_EVENTS:
        raise ValueError(
            f"unknown trigger event {v!r} (known: {', '.join(sorted(TRIGGER_EVENTS))})"
        )
    return v


class NameSet(frozenset[str]):
    """A frozenset of names (keywords, rules, subtypes) whose repr lists them in sorted
    order. An effect made during a game enters the state hash through its repr
    (`fields.effect_state`), which must be the same in every process; a plain frozenset
    of two or more strings lists them in the order of the per-process string hash. With
    one name the repr is a plain frozenset's."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self:
            return "frozenset()"
        return "frozenset({" + ", ".join(sorted(repr(x) for x in self)) + "})"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# Keywords with a parameter: written as their own card field, not in a keyword list.
PARAM_KEYWORDS = frozenset({"ward"})


def check_keywords(v: list[str]) -> list[str]:
    for k in v:
        if k in PARAM_KEYWORDS:
            raise ValueError(f'{k!r} has a cost: write it as its own field ({k}: "{{2}}")')
        if k not in KEYWORDS:
            raise ValueError(f"unknown keyword {k!r} (known: {', '.join(sorted(KEYWORDS))})")
    return v
