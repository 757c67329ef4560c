"""Loading and validating card sets and decks (YAML, validated with pydantic).

Card data is package data under `mtg_env/data/cards/<set>.yaml`; decks under
`mtg_env/data/decks/<format>/*.yaml`. Every error names the file, the entry and the field.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .cards import (
    NO_MANA,
    PERSIST,
    STATIC_OPS,
    UNDYING,
    ActivatedAbility,
    CardDataError,
    CardDef,
    CardSet,
    CharDef,
    Component,
    Cost,
    Count,
    Filter,
    ManaAbility,
    Op,
    Room,
    SacCost,
    SpellAbility,
    StaticAbility,
    TargetSpec,
    TriggeredAbility,
    colors_of_cost,
    parse_cost,
    parse_mana_cost,
)
from .constants import (
    AURA_SUBTYPE,
    BASIC_LAND_TYPES,
    COLOR_BITS,
    FACE_DOWN,
    MANA_BITS,
    SUPERTYPE_BITS,
    TYPE_BITS,
    bit_mask,
)
from .effects import NESTED, NESTED_ARGS, OPS, inner_lists
from .files import MAX_INPUT_BYTES, InputFileError, load_yaml, read_lines
from .formats import FORMATS
from .opschema import CountOf
from .vocab import (
    COLOR_NAMES,
    FABRICATE_TYPE,
    SOULSHIFT_TYPE,
    SUPERTYPE_NAMES,
    TYPE_NAMES,
    check_static_conditions,
)
from .vocab import KEYWORDS as KEYWORDS  # re-exported: the keywords card data may use
from .vocab import Strict as _Strict
from .vocab import check_event as _check_event
from .vocab import check_keywords as _check_keywords

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


# --------------------------------------------------------------------------- schema


class FilterModel(_Strict):
    types: list[TYPE_NAMES] = []
    not_types: list[TYPE_NAMES] = []
    subtypes: list[str] = []
    not_subtypes: list[str] = []
    supertypes: list[SUPERTYPE_NAMES] = []
    not_supertypes: list[SUPERTYPE_NAMES] = []
    colors: list[COLOR_NAMES] = []
    not_colors: list[COLOR_NAMES] = []
    controller: Literal["you", "opponent"] | None = None
    owner: Literal["you"] | None = None
    other: bool = False
    # "with mana value N or less / N or greater" (CR 202.3), inclusive.
    min_mana_value: int = Field(default=0, ge=0, le=1000)
    max_mana_value: int | None = Field(default=None, ge=0, le=1000)
    # "with mana value X or less, where X is the number of [subtype plural] you control":
    # the subtype (a spell target's filter only: read where targets are chosen and checked).
    max_mana_value_count: str | None = None
    # Any of these keywords ("target creature with flying").
    keywords: list[str] = []
    # None of these keywords ("target creature without flying").
    not_keywords: list[str] = []
    # "Target attacking or blocking creature" (a target's filter only: combat is known
    # where targets are chosen and checked).
    in_combat: bool = False
    # "Target attacking creature", "target blocking creature" (a target's filter only).
    attacking: bool = False
    blocking: bool = False
    # "Target tapped creature", "target untapped creature" (a target's filter only).
    tapped: bool = False
    untapped: bool = False
    # "with power N or greater / N or less", inclusive.
    min_power: int | None = Field(default=None, ge=0, le=1000)
    max_power: int | None = Field(default=None, ge=0, le=1000)

    _fkw = field_validator("keywords", "not_keywords")(_check_keywords)

    def model_post_init(self, __context: Any) -> None:
        if self.tapped and self.untapped:
            raise ValueError("a filter asks for tapped or untapped, not both")
        if self.max_mana_value_count is not None and self.max_mana_value is not None:
            raise ValueError("a filter bounds the mana value by a number or by a count, not both")


TARGET_KINDS = Literal[
    "any",
    "creature",
    "player",
    "opponent",
    "permanent",
    "land",
    "spell",
    "graveyard_card",
    "aura",
    "enchantment",
]


class TargetModel(FilterModel):
    kind: TARGET_KINDS
    # "up to N target ..." (CR 601.2c): N targets, each of which the controller may leave
    # unchosen; different objects, as one word "target" names them (115.3).
    up_to: int | None = Field(default=None, ge=1, le=5)

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.max_mana_value_count is not None and self.kind != "spell":
            raise ValueError("'max_mana_value_count' is for a spell target")


TargetField = TARGET_KINDS | TargetModel


def _check_up_to(targets: list[Any]) -> list[Any]:
    """ "Up to N target ..." is the only target of its spell, ability or mode (`targets`
    then names them all), not a kind of player."""
    ups = [t for t in targets if isinstance(t, TargetModel) and t.up_to is not None]
    if ups and len(targets) > 1:
        raise ValueError("an 'up to N' target is the only target of its ability")
    if ups and ups[0].kind in ("player", "opponent", "any"):
        raise ValueError("an 'up to N' target names objects, not players")
    return targets


def compile_targets(targets: Sequence[TargetField]) -> tuple[TargetSpec, ...]:
    """The target requirements, "up to N" as N optional ones (`TargetSpec.up_to`)."""
    out: list[TargetSpec] = []
    for t in targets:
        spec = compile_target(t)
        n = t.up_to if isinstance(t, TargetModel) and t.up_to is not None else 0
        out += [dataclasses.replace(spec, up_to=n)] * n if n else [spec]
    return tuple(out)


# The effect ops' schemas are declared with their behaviour and text (engine.effects).
OP_MODELS: dict[str, type[_Strict]] = {n: d.model for n, d in OPS.items() if d.model is not None}


def _validate_op(v: Any) -> dict[str, Any]:
    if not isinstance(v, dict) or len(v) != 1:
        raise ValueError("an effect is a mapping with exactly one key, the op name")
    ((name, args),) = v.items()
    if name in NESTED:
        fields = NESTED[name]
        params = NESTED_ARGS.get(name)
        allowed = [*fields, *(params.model_fields if params is not None else ())]
        if not isinstance(args, dict) or "effects" not in args or not set(args) <= set(allowed):
            raise ValueError(f"{name!r} takes the fields {', '.join(allowed)} ('effects' needed)")
        for f in fields:
            if f in args and not isinstance(args[f], list):
                raise ValueError(f"{name!r}: {f!r} is a list of effects")
        out: dict[str, Any] = {f: [_validate_op(e) for e in args[f]] for f in fields if f in args}
        if params is not None:
            rest = {k: v for k, v in args.items() if k not in fields}
            out.update(params.model_validate(rest).model_dump())
        return {name: out}
    if name not in OP_MODELS:
        known = ", ".join(sorted([*OP_MODELS, *NESTED]))
        raise ValueError(f"unknown effect op {name!r} (known: {known})")
    model = OP_MODELS[name].model_validate(args or {})
    return {name: model.model_dump()}


EffectField = Annotated[dict[str, Any], Field()]


class _Effects(_Strict):
    effects: list[dict[str, Any]] = []

    @field_validator("effects", mode="before")
    @classmethod
    def _ops(cls, v: Any) -> Any:
        if not isinstance(v, list):
            raise ValueError("effects must be a list")
        return [_validate_op(e) for e in v]


class ModeModel(_Effects):
    """One mode of a modal spell (CR 700.2): its rules text, targets and effects."""

    text: str = Field(min_length=1)
    targets: Annotated[list[TargetField], AfterValidator(_check_up_to)] = []


# How effects name a spell's targets, in order (engine.effects reads the same names).
_TARGET_NAMES: Final = ("target", "target1", "target2")


class SpellModel(_Effects):
    targets: Annotated[list[TargetField], AfterValidator(_check_up_to)] = []
    # "Choose one —" (CR 700.2): the caster chooses one of these as the spell is cast.
    modes: list[ModeModel] = []
    # "Choose one or both —": two modes, and the caster may choose both (700.2d).
    one_or_both: bool = False

    def model_post_init(self, __context: Any) -> None:
        if self.modes and (self.targets or self.effects):
            raise ValueError("a modal spell has its targets and effects in its modes")
        if len(self.modes) == 1:
            raise ValueError("a modal spell has two or more modes")
        if self.one_or_both:
            if len(self.modes) != 2:
                raise ValueError("'one_or_both' takes exactly two modes")
            if len(self.modes[0].targets) + len(self.modes[1].targets) > len(_TARGET_NAMES):
                raise ValueError(f"both modes together have more than {len(_TARGET_NAMES)} targets")


class ManaModel(_Strict):
    cost: str = "{T}"
    add: list[Literal["W", "U", "B", "R", "G", "C"]]
    damage_to_you: int = 0
    # "{T}, Sacrifice this artifact: Add one mana of any color" (the token of CR
    # 111.10a), "Sacrifice this creature: Add {C}" (cost "").
    sacrifice_self: bool = False
    # More than one mana of one kind: "{T}: Add {C}{C}." (2), "Add {G} for each Elf on the
    # battlefield." (a count of permanents on the battlefield).
    amount: Annotated[int, Field(ge=1, le=10)] | CountOf = 1

    @model_validator(mode="after")
    def _cost(self) -> ManaModel:
        c = parse_cost(self.cost)
        if c.mana or not (c.tap or self.sacrifice_self):
            raise ValueError(
                "field cost: a mana ability costs {T}, {T} and sacrificing it, or sacrificing it"
            )
        if self.amount != 1 and (len(self.add) != 1 or self.damage_to_you):
            raise ValueError("field amount: more than one mana is of one kind, without pain")
        if isinstance(self.amount, CountOf) and (
            self.amount.zone != "battlefield" or self.amount.as_x
        ):
            raise ValueError("field amount: a mana ability counts permanents on the battlefield")
        return self


BASIC_LAND_TYPE = Literal["Plains", "Island", "Swamp", "Mountain", "Forest"]


class ActivatedModel(_Effects):
    cost: str
    sacrifice_self: bool = False
    # "Discard this card" in the cost: activated from the hand (cycling, CR 702.29a).
    discard_self: bool = False
    # "Sacrifice a creature" ([creature]), "an artifact or land" (any of the types);
    # `sacrifice_other`: "another"; `discard`: "Discard a card" (CR 602.2b).
    sacrifice: list[TYPE_NAMES] = []
    sacrifice_other: bool = False
    discard: int = Field(default=0, ge=0, le=1)
    # "Pay 2 life" (CR 119.4): payable only with at least that much life.
    pay_life: int = Field(default=0, ge=0, le=1000)
    # "Return a land you control to its owner's hand" (`land`), "... a Forest ..." (a card
    # type or a basic land type): chosen as the costs are paid (CR 602.2b).
    return_to_hand: TYPE_NAMES | BASIC_LAND_TYPE | None = None
    targets: Annotated[list[TargetField], AfterValidator(_check_up_to)] = []
    timing: Literal["your_turn", "sorcery"] | None = None
    # "Activate only once each turn" (CR 602.5b).
    once_each_turn: bool = False

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: str) -> str:
        parse_cost(v)
        return v

    def model_post_init(self, __context: Any) -> None:
        if self.discard_self and (self.sacrifice_self or parse_cost(self.cost).tap):
            raise ValueError("an ability that discards its card is activated from the hand")
        if self.sacrifice_other and not self.sacrifice:
            raise ValueError("'sacrifice_other' needs the types in 'sacrifice'")
        given = bool(self.discard) + bool(self.sacrifice) + (self.return_to_hand is not None)
        if given > 1 or (self.discard and self.discard_self):
            raise ValueError(
                "a cost gives one chosen card or permanent: discard, sacrifice or return"
            )
        if _names_op(self.effects, "add_mana"):
            # CR 605.1a: it would be a mana ability, which doesn't use the stack.
            raise ValueError("an activated ability that adds mana is a mana ability: use 'mana'")


class TriggeredModel(_Effects):
    event: str  # one of vocab.TRIGGER_EVENTS
    whose: Literal["you", "enchanted_controller", "each"] = "you"
    if_: list[
        Literal[
            "not_attacked_this_turn",
            "controlled_since_turn_start",
            "kicked",
            "metalcraft",
            "threshold",
            "hellbent",
            "another_named",
        ]
    ] = Field(default=[], alias="if")
    targets: Annotated[list[TargetField], AfterValidator(_check_up_to)] = []
    # "Whenever you sacrifice another Eldrazi": the creature type of the sacrificed
    # permanent (event `you_sacrifice` only).
    subtype: str | None = None
    # "Whenever another creature you control enters" (event `permanent_enters` only): the
    # entering permanent's filter, relative to this ability's source ("another": `other`);
    # `or_self`: "Whenever this creature or another Ally you control enters".
    enters: FilterModel | None = None
    or_self: bool = False
    # "Whenever this creature blocks a creature with flying" (event `blocks` only): the
    # blocked creature's filter.
    blocked: FilterModel | None = None
    # An ability word that heads it ("Alliance", "Constellation"): no rules of its own
    # (CR 207.2c), printed before the trigger.
    word: Annotated[str, Field(pattern=r"^[A-Z][A-Za-z' ]{0,39}$")] | None = None

    _event = field_validator("event")(_check_event)

    def model_post_init(self, __context: Any) -> None:
        if self.subtype is not None and self.event != "you_sacrifice":
            raise ValueError("'subtype' is the sacrificed permanent's, for you_sacrifice")
        if (self.enters is not None) != (self.event == "permanent_enters"):
            raise ValueError("'enters' is the entering permanent's filter, for permanent_enters")
        if self.or_self and (self.enters is None or not self.enters.other):
            raise ValueError("'or_self' is said of 'another' permanent entering")
        if self.blocked is not None and self.event != "blocks":
            raise ValueError("'blocked' is the blocked creature's filter, for blocks")


class CountModel(_Strict):
    """A number read from the game (CDAs): what is counted, plus a constant."""

    count: Literal["card_types_in_graveyards"]
    plus: int = 0


class CdaModel(_Strict):
    """A characteristic-defining ability (CR 604.3): power and/or toughness as counts."""

    power: CountModel | None = None
    toughness: CountModel | None = None


class SpendModel(_Strict):
    """A mana-spending rule for the source's controller (CR 609.4b): mana of `any_color`
    colors may be spent as though it were mana of any color; with `other_colorless`, other
    mana only as though it were colorless."""

    any_color: list[COLOR_NAMES]
    other_colorless: bool = False


class StaticModel(_Strict):
    affects: Literal["enchanted", "equipped", "self"] | FilterModel
    control: Literal["you"] | None = None
    add_types: list[TYPE_NAMES] = []
    add_subtypes: list[str] = []
    all_creature_types: bool = False
    set_land_type: Literal["Plains", "Island", "Swamp", "Mountain", "Forest"] | None = None
    set_colors: list[COLOR_NAMES] | None = None
    add_keywords: list[str] = []
    add_abilities: list[AbilityModel] = []
    lose_all_abilities: bool = False
    set_pt: tuple[int, int] | None = None
    set_pt_mv: bool = False
    modify_pt: tuple[int, int] | None = None
    # "... gets +1/+1 for each +1/+1 counter on this Aura" (CR 613.4c reads the count as
    # the effect applies): `modify_pt` once for each counter of this kind on the source.
    per_counter: Literal["+1/+1"] | None = None
    switch_pt: bool = False
    rules: list[
        Literal[
            "cant_attack",
            "cant_block",
            "doesnt_remove_source",
            "doesnt_untap",
            "attacks_each_combat",
            "unblockable",
            "max_one_blocker",
            "block_only_flying",
            "cant_attack_unless_island",
        ]
    ] = []
    spend_mana: SpendModel | None = None
    cda: CdaModel | None = None
    everywhere: bool = False
    # "During your turn, ..." / "Otherwise, ...": whose turn it must be for it to apply.
    during: Literal["your_turn", "not_your_turn"] | None = None
    # "... as long as you control three or more artifacts": the conditions (its
    # controller's, or the permanent's own) under which it applies (CR 611.3a).
    if_: list[str] = Field(default=[], alias="if")  # vocab.STATIC_CONDITIONS

    _if = field_validator("if_")(check_static_conditions)

    def model_post_init(self, __context: Any) -> None:
        if (self.during is not None or self.if_) and (
            self.rules or self.cda or self.spend_mana or self.everywhere or self.control
        ):
            raise ValueError(
                "'during' and 'if' are for keywords and P/T changes, not rules or control"
            )
        if self.per_counter is not None and self.modify_pt is None:
            raise ValueError("'per_counter' counts how many times 'modify_pt' applies")

    _kw = field_validator("add_keywords")(_check_keywords)


class AbilityModel(_Strict):
    mana: ManaModel | None = None
    activated: ActivatedModel | None = None
    triggered: TriggeredModel | None = None
    static: StaticModel | None = None
    text: str = ""

    def model_post_init(self, __context: Any) -> None:
        n = sum(x is not None for x in (self.mana, self.activated, self.triggered, self.static))
        if n != 1:
            raise ValueError("an ability has exactly one of: mana, activated, triggered, static")


StaticModel.model_rebuild()


class EntersAsCopyModel(_Strict):
    except_pt: tuple[int, int] | None = None


class AdditionalCostModel(_Strict):
    """ "As an additional cost to cast this spell, sacrifice a creature" (`sacrifice:
    [creature]`; "an artifact or creature": `[artifact, creature]`) or "discard a card"
    (`discard: 1`), CR 601.2b: one of the two."""

    sacrifice: list[TYPE_NAMES] = []
    discard: int = Field(default=0, ge=0, le=1)

    def model_post_init(self, __context: Any) -> None:
        if bool(self.sacrifice) == bool(self.discard):
            raise ValueError("an additional cost sacrifices a permanent or discards a card")


_COUNT_WORDS: Final = {1: "a", 2: "two", 3: "three", 4: "four", 5: "five"}


def sacrifice_text(count: int, kind: str) -> str:
    """A cost that sacrifices `count` permanents of card type or subtype `kind`, as Oracle
    words it: "sacrifice a Mountain", "sacrifice two Mountains"."""
    if count == 1:
        return f"sacrifice {'an' if kind[0] in 'aeiouAEIOU' else 'a'} {kind}"
    return f"sacrifice {_COUNT_WORDS[count]} {kind}s"


class SacrificeModel(_Strict):
    """A spell's cost that sacrifices permanents instead of paying mana: `count` of them,
    each of card type or basic land type `kind` ("two Mountains": `{count: 2, kind:
    Mountain}`)."""

    count: int = Field(default=1, ge=1, le=5)
    kind: TYPE_NAMES | BASIC_LAND_TYPE

    def text(self) -> str:
        """The cost as Oracle words it: "sacrifice a Mountain", "sacrifice two Mountains"."""
        return sacrifice_text(self.count, self.kind)


class CostsLessModel(_Strict):
    """ "This spell costs {N} less to cast if you control a [kind]" (CR 601.2f): the
    reduction, and the kinds of permanent the caster must control (each, by one of theirs)."""

    amount: int = Field(ge=1, le=20)
    if_you_control: list[TargetField] = Field(min_length=1, max_length=2)

    def model_post_init(self, __context: Any) -> None:
        for t in self.if_you_control:
            kind = t if isinstance(t, str) else t.kind
            if kind not in ("creature", "permanent", "land", "enchantment"):
                raise ValueError(f"'if_you_control' names permanents, not {kind!r}")


class FabricateModel(_Strict):
    count: int = Field(ge=1, le=10)
    # The set's 1/1 colorless Servo artifact creature token (named after its type).
    token: str = FABRICATE_TYPE


class BackupModel(_Strict):
    count: int = Field(ge=1, le=20)
    keywords: list[str] = []

    _kw = field_validator("keywords")(_check_keywords)


class CardModel(_Strict):
    name: str
    cost: str | None = None
    types: list[TYPE_NAMES] = Field(min_length=1)
    subtypes: list[str] = []
    supertypes: list[SUPERTYPE_NAMES] = []
    colors: list[COLOR_NAMES] | None = None  # tokens and costless cards
    power: int | Literal["*"] | None = None
    toughness: int | Literal["*"] | None = None
    keywords: list[str] = []
    abilities: list[AbilityModel] = []
    spell: SpellModel | None = None
    enchant: TargetField | None = None
    enters_as_copy: EntersAsCopyModel | None = None
    # Pocket reactions (instants): when they may be played.
    reaction: Literal["opponent_plays_card", "during_attack"] | None = None
    # Ward (CR 702.21) and its cost, a mana cost ("{2}"): the keyword and its ability.
    ward: str | None = None
    # "This permanent enters tapped" (CR 614.1c).
    enters_tapped: bool = False
    # "This land enters tapped unless a player has N or less life" (CR 614.1c): N.
    enters_tapped_unless_life: int | None = Field(default=None, ge=0, le=1000)
    # "This creature enters with two +1/+1 counters on it" (CR 614.1c).
    enters_with: dict[Literal["+1/+1", "-1/-1"], Annotated[int, Field(ge=1, le=100)]] = {}
    # Kicker (CR 702.33a) and its cost, a mana cost ("{2}{G}"); the counters a kicked
    # creature enters with (702.33d).
    kicker: str | None = None
    # Changeling (CR 702.73a): every creature type, in every zone.
    changeling: bool = False
    # Echo (CR 702.30a) and its cost, a mana cost ("{1}{R}"): its upkeep trigger.
    echo: str | None = None
    # Bushido N (CR 702.45a): "Whenever this creature blocks or becomes blocked, it gets
    # +N/+N until end of turn".
    bushido: int | None = Field(default=None, ge=1, le=100)
    # Soulshift N (CR 702.46a): "When this creature dies, you may return target Spirit card
    # with mana value N or less from your graveyard to your hand".
    soulshift: int | None = Field(default=None, ge=0, le=1000)
    # Ninjutsu (CR 702.49a) and its cost, a mana cost ("{1}{U}"): its ability, activated
    # from the hand.
    ninjutsu: str | None = None
    # Backup N (CR 702.165a): "When this creature enters, put N +1/+1 counters on target
    # creature. If that's another creature, it gains the following abilities until end of
    # turn": the keywords printed below it (which the card has as well).
    backup: BackupModel | None = None
    kicked_enters_with: dict[Literal["+1/+1", "-1/-1"], Annotated[int, Field(ge=1, le=100)]] = {}
    # "This permanent enters with X +1/+1 counters on it" (CR 107.3m, 614.1c): X is the
    # value announced as it was cast, 0 when it enters any other way.
    enters_with_x: Literal["+1/+1"] | None = None
    # Bestow (CR 702.103a) and its cost, a mana cost that may have X ("{X}{G}{G}"): cast
    # for it, the enchantment creature is an Aura spell with enchant creature, and the Aura
    # it becomes is an enchantment creature again once it is not attached (702.103e, f).
    bestow: str | None = None
    additional_cost: AdditionalCostModel | None = None
    # Flashback (CR 702.34a) and its cost, a mana cost ("{2}{R}"): the instant or sorcery
    # may be cast from its owner's graveyard for that cost, and is then exiled.
    flashback: str | None = None
    # Flashback whose cost sacrifices permanents instead ("Flashback—Sacrifice a
    # Mountain", 702.34a), and an alternative cost that does ("You may sacrifice two
    # Mountains rather than pay this spell's mana cost", CR 118.9).
    flashback_sacrifice: SacrificeModel | None = None
    alternative_cost: SacrificeModel | None = None
    # Madness (CR 702.35a) and its cost, a mana cost ("{R}").
    madness: str | None = None
    # Plot (CR 702.170a) and its cost, a mana cost ("{1}{R}").
    plot: str | None = None
    # Job select: as this Equipment enters, the token named here (a 1/1 colorless creature
    # the set defines), and this Equipment attached to it.
    job_select: str | None = None
    # Affinity for a card type or a basic land type (CR 702.41a): "artifact", "Swamp".
    affinity: (
        Literal["artifact", "creature", "enchantment", "land"]
        | Literal["Plains", "Island", "Swamp", "Mountain", "Forest"]
        | None
    ) = None
    # Buyback (CR 702.27a) and its cost, a mana cost ("{3}").
    buyback: str | None = None
    # Convoke (CR 702.51a).
    convoke: bool = False
    # Persist (CR 702.79a) and undying (702.93a): the ability each gives the card.
    persist: bool = False
    undying: bool = False
    # Extort (CR 702.101a): the ability it gives the card.
    extort: bool = False
    # Cascade (CR 702.85a): the "when you cast this spell" ability it gives the card.
    cascade: bool = False
    # Infect (CR 702.90a) and intimidate (702.13a): the static ability each gives the card.
    infect: bool = False
    intimidate: bool = False
    # Toxic N (CR 702.164a): the static ability it gives the card, and N.
    toxic: int | None = Field(default=None, ge=1, le=20)
    # Bloodthirst N (CR 702.54a): +1/+1 counters it enters with after damage to an opponent.
    bloodthirst: int | None = Field(default=None, ge=1, le=20)
    # Fabricate N (CR 702.123a) and the set's Servo token it creates.
    fabricate: FabricateModel | None = None
    # "This spell costs {2} less to cast if you control ..." (CR 601.2f).
    costs_less: CostsLessModel | None = None
    text: str = ""

    _kw = field_validator("keywords")(_check_keywords)

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: str | None) -> str | None:
        if v is not None:
            parse_mana_cost(v)
        return v

    @field_validator("ward", "bestow")
    @classmethod
    def _some_mana(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and not parse_mana_cost(v):
            raise ValueError(f"{info.field_name} costs some mana, not {v!r}")
        return v

    @field_validator("kicker", "echo", "flashback", "ninjutsu", "buyback", "madness", "plot")
    @classmethod
    def _mana_without_x(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and (not parse_mana_cost(v) or parse_mana_cost(v).x):
            raise ValueError(f"the {info.field_name} cost is some mana without X, not {v!r}")
        return v

    def model_post_init(self, __context: Any) -> None:
        is_creature = "creature" in self.types
        if is_creature and (self.power is None or self.toughness is None):
            raise ValueError("a creature needs power and toughness")
        if not is_creature and (self.power is not None or self.toughness is not None):
            raise ValueError("only creatures have power and toughness")
        spell_like = {"instant", "sorcery"} & set(self.types)
        if spell_like and self.spell is None:
            raise ValueError("an instant or sorcery needs a 'spell' section")
        if not spell_like and self.spell is not None:
            raise ValueError("only instants and sorceries have a 'spell' section")
        if self.enters_tapped and self.enters_tapped_unless_life is not None:
            raise ValueError("a permanent enters tapped, or tapped unless ..., not both")
        tapped = self.enters_tapped or self.enters_tapped_unless_life is not None
        if spell_like and (tapped or self.enters_with or self.kicked_enters_with):
            raise ValueError("only a permanent enters tapped or with counters")
        if self.buyback is not None and not spell_like:
            raise ValueError("only an instant or sorcery has buyback")
        if (self.flashback is not None or self.flashback_sacrifice is not None) and not spell_like:
            raise ValueError("only an instant or sorcery has flashback")
        if self.flashback is not None and self.flashback_sacrifice is not None:
            raise ValueError("flashback has one cost: some mana or a sacrifice, not both")
        if self.alternative_cost is not None and self.cost is None:
            raise ValueError("an alternative cost replaces a mana cost the card has")
        if self.job_select is not None and "Equipment" not in self.subtypes:
            raise ValueError("only an Equipment has job select")
        if self.ninjutsu is not None and not is_creature:
            raise ValueError("only a creature has ninjutsu")
        if self.backup is not None:
            if not is_creature:
                raise ValueError("only a creature has backup")
            if not set(self.backup.keywords) <= set(self.keywords):
                raise ValueError("backup grants keywords the card has (those printed below it)")
        discards = self.additional_cost is not None and self.additional_cost.discard > 0
        if not discards and any(_names_op(x, "discarded_nonland") for x in _effect_lists(self)):
            raise ValueError("only a spell whose additional cost discards a card asks of it")
        if spell_like and self.enters_with_x is not None:
            raise ValueError("only a permanent enters with counters")
        if self.bestow is not None:
            if not {"creature", "enchantment"} <= set(self.types) or self.enchant is not None:
                raise ValueError("only an enchantment creature has bestow")
            if parse_mana_cost(self.bestow).x and not (self.cost and parse_mana_cost(self.cost).x):
                raise ValueError(
                    f"the bestow cost has X only if the mana cost has X: {self.bestow!r}"
                )
        if self.kicker is None and (self.kicked_enters_with or _uses_kicked(self)):
            raise ValueError("only a card with kicker asks whether it was kicked")
        if "Aura" in self.subtypes and self.enchant is None:
            raise ValueError("an Aura needs 'enchant'")
        if self.reaction is not None and "instant" not in self.types:
            raise ValueError("only an instant is a reaction")
        # X in an effect is the value announced for the {X} in the mana cost (CR 107.3a).
        has_x = self.cost is not None and parse_mana_cost(self.cost).x > 0
        uses_x = _uses_x(self) or self.enters_with_x is not None
        if has_x and not uses_x:
            raise ValueError("a card with {X} in its mana cost uses X in its spell's effects")
        if uses_x and not has_x:
            raise ValueError("only a spell with {X} in its mana cost uses X in its effects")
        if has_x and self.spell is None and self.enters_with_x is None:
            raise ValueError(
                "{X} in a mana cost is supported for instants and sorceries, and for "
                "permanents that enter with X counters"
            )


def _effect_lists(m: CardModel) -> list[list[dict[str, Any]]]:
    """Every effect list of a card's data: its abilities', its spell's and its modes'."""
    lists = [a.activated.effects for a in m.abilities if a.activated is not None]
    lists += [a.triggered.effects for a in m.abilities if a.triggered is not None]
    if m.spell is not None:
        lists.append(m.spell.effects)
        lists += [mode.effects for mode in m.spell.modes]
    return lists


def _uses_x(m: CardModel) -> bool:
    """Whether any effect of the card's data takes a number from X (in its spell, its
    modes, or its abilities: the last is an error the caller reports)."""

    def walk(ops: list[dict[str, Any]]) -> bool:
        for op in ops:
            ((name, args),) = op.items()
            if name in NESTED:
                if any(walk(args[f]) for f in NESTED[name] if f in args):
                    return True
            elif any(v in ("X", "-X") for v in args.values()):
                return True
        return False

    return any(walk(x) for x in _effect_lists(m))


def _names_op(ops: list[dict[str, Any]], name: str) -> bool:
    """Whether op `name` is among `ops`, or inside a wrapper op among them."""
    for op in ops:
        ((n, args),) = op.items()
        if n == name or (
            n in NESTED and any(_names_op(args[f], name) for f in NESTED[n] if f in args)
        ):
            return True
    return False


def _uses_kicked(m: CardModel) -> bool:
    """Whether the card's data asks whether it was kicked: a "kicked" effect, or a trigger's
    "if it was kicked" (CR 702.33d)."""
    if any(a.triggered is not None and "kicked" in a.triggered.if_ for a in m.abilities):
        return True
    return any(_names_op(x, "kicked") for x in _effect_lists(m))


class SetModel(_Strict):
    set: str
    tokens: list[CardModel] = []
    cards: list[CardModel]


# --------------------------------------------------------------------------- compile


def compile_filter(f: FilterModel) -> Filter:
    return Filter(
        types=bit_mask(f.types, TYPE_BITS),
        not_types=bit_mask(f.not_types, TYPE_BITS),
        subtypes=frozenset(f.subtypes),
        not_subtypes=frozenset(f.not_subtypes),
        supertypes=bit_mask(f.supertypes, SUPERTYPE_BITS),
        not_supertypes=bit_mask(f.not_supertypes, SUPERTYPE_BITS),
        colors=bit_mask(f.colors, COLOR_BITS),
        not_colors=bit_mask(f.not_colors, COLOR_BITS),
        controller=f.controller,
        owner=f.owner,
        other=f.other,
        min_mana_value=f.min_mana_value,
        max_mana_value=-1 if f.max_mana_value is None else f.max_mana_value,
        max_mv_count=f.max_mana_value_count or "",
        keywords=frozenset(f.keywords),
        not_keywords=frozenset(f.not_keywords),
        in_combat=f.in_combat,
        attacking=f.attacking,
        blocking=f.blocking,
        tapped=f.tapped,
        untapped=f.untapped,
        min_power=-1 if f.min_power is None else f.min_power,
        max_power=-1 if f.max_power is None else f.max_power,
    )


def compile_target(t: TargetField) -> TargetSpec:
    if isinstance(t, str):
        return TargetSpec(t, Filter(), t)
    return TargetSpec(t.kind, compile_filter(t), t.kind)


def compile_ops(effects: list[dict[str, Any]]) -> tuple[Op, ...]:
    out = []
    for e in effects:
        ((name, args),) = e.items()
        if name in NESTED:
            nested = NESTED[name]
            out.append(Op(name, {f: compile_ops(v) if f in nested else v for f, v in args.items()}))
        else:
            out.append(Op(name, dict(args)))
    return tuple(out)


def compile_static(s: StaticModel, text: str) -> StaticAbility:
    comps: list[Component] = []
    if s.control:
        comps.append(Component(STATIC_OPS["control"], "control", s.control))
    if s.add_types:
        comps.append(
            Component(STATIC_OPS["add_types"], "add_types", bit_mask(s.add_types, TYPE_BITS))
        )
    if s.add_subtypes:
        comps.append(
            Component(STATIC_OPS["add_subtypes"], "add_subtypes", frozenset(s.add_subtypes))
        )
    if s.all_creature_types:
        comps.append(Component(STATIC_OPS["all_creature_types"], "all_creature_types", True))
    if s.set_land_type:
        comps.append(Component(STATIC_OPS["set_land_type"], "set_land_type", s.set_land_type))
    if s.set_colors is not None:
        comps.append(
            Component(STATIC_OPS["set_colors"], "set_colors", bit_mask(s.set_colors, COLOR_BITS))
        )
    if s.add_keywords:
        comps.append(
            Component(STATIC_OPS["add_keywords"], "add_keywords", frozenset(s.add_keywords))
        )
    if s.add_abilities:
        comps.append(
            Component(
                STATIC_OPS["add_abilities"],
                "add_abilities",
                tuple(compile_ability(a) for a in s.add_abilities),
            )
        )
    if s.lose_all_abilities:
        comps.append(Component(STATIC_OPS["lose_all_abilities"], "lose_all_abilities", True))
    if s.set_pt is not None:
        comps.append(Component(STATIC_OPS["set_pt"], "set_pt", tuple(s.set_pt)))
    if s.set_pt_mv:
        comps.append(Component(STATIC_OPS["set_pt_mv"], "set_pt_mv", True))
    if s.modify_pt is not None:
        pt: tuple[Any, ...] = tuple(s.modify_pt)
        if s.per_counter is not None:
            pt += (s.per_counter,)  # read by layers._apply: once for each such counter
        comps.append(Component(STATIC_OPS["modify_pt"], "modify_pt", pt))
    if s.switch_pt:
        comps.append(Component(STATIC_OPS["switch_pt"], "switch_pt", True))
    if isinstance(s.affects, str):
        # "enchanted" and "equipped" both mean the object the source is attached to.
        affects = Filter(relation="self" if s.affects == "self" else "enchanted")
    else:
        affects = compile_filter(s.affects)
    spend = None
    if s.spend_mana is not None:
        spend = (bit_mask(s.spend_mana.any_color, COLOR_BITS), s.spend_mana.other_colorless)
    if not comps and not s.rules and not s.cda and spend is None:
        raise ValueError("a static ability must do something")
    cda = None
    if s.cda is not None:
        cda = CharDef(
            *(None if c is None else Count(c.count, c.plus) for c in (s.cda.power, s.cda.toughness))
        )
    return StaticAbility(
        affects,
        tuple(comps),
        frozenset(s.rules),
        cda,
        text,
        everywhere=s.everywhere,
        spend=spend,
        during=s.during or "",
        condition=tuple(s.if_),
    )


def compile_ability(a: AbilityModel) -> Any:
    text = a.text
    if a.mana is not None:
        c = parse_cost(a.mana.cost)
        if a.mana.sacrifice_self:
            c = type(c)(c.mana, c.tap, True, c.text)
        amount = a.mana.amount
        per: tuple[tuple[str, Any], ...] = ()
        if isinstance(amount, CountOf):
            fields = amount.model_dump().items()  # an unset keyword is left out
            per = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in fields))
            amount = 1
        produce = bit_mask(a.mana.add, MANA_BITS)
        return ManaAbility(c, produce, a.mana.damage_to_you, text, amount=amount, per=per)
    if a.activated is not None:
        m = a.activated
        c = parse_cost(m.cost)
        given = m.sacrifice or m.discard or m.return_to_hand is not None
        if m.sacrifice_self or m.discard_self or given or m.pay_life:
            c = Cost(
                c.mana,
                c.tap,
                m.sacrifice_self,
                c.text,
                m.discard_self,
                sac_types=bit_mask(m.sacrifice, TYPE_BITS),
                sac_other=m.sacrifice_other,
                discard=m.discard > 0,
                pay_life=m.pay_life,
                returned=_returned(m.return_to_hand),
            )
        return ActivatedAbility(
            c,
            compile_targets(m.targets),
            compile_ops(m.effects),
            m.timing,
            text,
            once_each_turn=m.once_each_turn,
        )
    if a.triggered is not None:
        t = a.triggered
        return TriggeredAbility(
            t.event,
            t.whose,
            tuple(t.if_),
            compile_targets(t.targets),
            compile_ops(t.effects),
            text,
            subtype=t.subtype or "",
            filter=(
                compile_filter(t.enters)
                if t.enters is not None
                else compile_filter(t.blocked)
                if t.blocked is not None
                else None
            ),
            or_self=t.or_self,
            word=t.word or "",
        )
    assert a.static is not None
    return compile_static(a.static, text)


def ward_ability(cost: str) -> TriggeredAbility:
    """Ward [cost] (CR 702.21a): "Whenever this permanent becomes the target of a spell or
    ability an opponent controls, counter that spell or ability unless that player pays
    [cost]"."""
    return TriggeredAbility(
        "targeted_by_opponent",
        effects=(Op("counter_unless_pay", {"cost": cost}),),
        text=f"Ward {cost}",
    )


def echo_ability(cost: str) -> TriggeredAbility:
    """Echo [cost] (CR 702.30a): "At the beginning of your upkeep, if this permanent came
    under your control since the beginning of your last upkeep, sacrifice it unless you pay
    [cost]" (the condition: `Turn._echo_upkeep`)."""
    return TriggeredAbility(
        "upkeep",
        condition=("echo",),
        effects=(Op("sacrifice_unless_pay", {"cost": cost}),),
        text=f"Echo {cost}",
    )


def bushido_ability(n: int) -> TriggeredAbility:
    """Bushido N (CR 702.45a): blocking or becoming blocked, it gets +N/+N until end of
    turn."""
    pump = {"what": "self", "power": n, "toughness": n, "duration": "end_of_turn"}
    return TriggeredAbility("blocks_or_blocked", effects=(Op("pump", pump),), text=f"Bushido {n}")


def ninjutsu_ability(cost: str) -> ActivatedAbility:
    """Ninjutsu (CR 702.49a): "[Cost], Reveal this card from your hand, Return an unblocked
    attacking creature you control to its owner's hand: Put this card onto the battlefield
    from your hand tapped and attacking." """
    c = parse_cost(cost)
    return ActivatedAbility(
        Cost(c.mana, text=c.text, ninjutsu=True),
        effects=(Op("ninjutsu", {}),),
        text=f"Ninjutsu {cost}",
    )


def backup_ability(n: int, keywords: Sequence[str]) -> TriggeredAbility:
    """Backup N (CR 702.165a): as it enters, N +1/+1 counters on target creature; another
    creature gains the keywords printed below the backup until end of turn."""
    counters = {"what": "target", "counter": "+1/+1", "count": n}
    effects = [Op("add_counter", OP_MODELS["add_counter"].model_validate(counters).model_dump())]
    if keywords:
        grant = {"what": "target", "keywords": list(keywords), "if_other": True}
        effects.append(Op("grant", OP_MODELS["grant"].model_validate(grant).model_dump()))
    return TriggeredAbility(
        "enters", targets=(compile_target("creature"),), effects=tuple(effects), text=f"Backup {n}"
    )


def job_select_ability(token: str) -> TriggeredAbility:
    """Job select: "When this Equipment enters, create a 1/1 colorless [token] creature
    token, then attach this to it" (`token`: the set's token)."""
    return TriggeredAbility(
        "enters", effects=(Op("job_select", {"token": token, "count": 1}),), text="Job select"
    )


def plot_ability(cost: str) -> ActivatedAbility:
    """Plot (CR 702.170a): "Any time you have priority during your main phase while the
    stack is empty, you may exile this card from your hand and pay [cost]. It becomes a
    plotted card." A special action (116.2k), taken as an ability from the hand at sorcery
    speed that does not use the stack."""
    c = parse_cost(cost)
    return ActivatedAbility(
        Cost(c.mana, text=c.text, plot=True), timing="sorcery", text=f"Plot {cost}"
    )


def madness_ability(cost: str) -> TriggeredAbility:
    """Madness (CR 702.35a): "When this card is exiled this way, its owner may cast it by
    paying [cost] rather than paying its mana cost. If that player doesn't, they put this
    card into their graveyard." It triggers as the card is discarded into exile (the
    event `madness`, the keyword's own)."""
    return TriggeredAbility("madness", effects=(Op("madness", {}),), text=f"Madness {cost}")


def soulshift_ability(n: int) -> TriggeredAbility:
    """Soulshift N (CR 702.46a): as it dies, you may return a Spirit card with mana value N
    or less from your graveyard to your hand (a target, chosen as the trigger goes on the
    stack)."""
    spirit = TargetModel(
        kind="graveyard_card", subtypes=[SOULSHIFT_TYPE], max_mana_value=n, owner="you"
    )
    back = Op("return_to_hand", {"what": "target"})
    return TriggeredAbility(
        "dies",
        targets=(compile_target(spirit),),
        effects=(Op("may", {"effects": (back,)}),),
        text=f"Soulshift {n}",
    )


# Flanking (CR 702.25a): "Whenever a creature without flanking blocks this creature, the
# blocking creature gets -1/-1 until end of turn", the ability the keyword gives its card.
FLANKING: Final = TriggeredAbility(
    "flanked",
    effects=(
        Op(
            "pump",
            {"what": "that_object", "power": -1, "toughness": -1, "duration": "end_of_turn"},
        ),
    ),
    text="Flanking",
)


def fabricate_ability(n: int, token: str) -> TriggeredAbility:
    """Fabricate N (CR 702.123a): "When this permanent enters, you may put N +1/+1
    counters on it. If you don't, create N 1/1 colorless Servo artifact creature tokens"
    (`token`: the set's Servo)."""
    return TriggeredAbility(
        "enters", effects=(Op("fabricate", {"count": n, "token": token}),), text=f"Fabricate {n}"
    )


# Cascade (CR 702.85a): "When you cast this spell, exile cards from the top of your library
# until you exile a nonland card whose mana value is less than this spell's. You may cast it
# without paying its mana cost. Put the exiled cards on the bottom in a random order."
CASCADE: Final = TriggeredAbility("cast_self", effects=(Op("cascade", {}),), text="Cascade")

# Infect (CR 702.90a): a static ability of the permanent, read where damage is dealt
# (702.90b-c: poison counters to a player, -1/-1 counters to a creature). Written as a rule
# of the permanent's own (`Chars.rules`), so that an effect removing its abilities removes
# it; a card field, not a keyword, so the observations' keyword columns stay as they are.
INFECT: Final = StaticAbility(Filter(relation="self"), rules=frozenset({"infect"}), text="Infect")


def toxic_ability(n: int) -> StaticAbility:
    """Toxic N (CR 702.164a): "Players dealt combat damage by this creature also get N
    poison counters", read where combat damage is dealt (702.164c) as the rule `toxic` of
    the permanent's own, with N from its card (`CardDef.toxic`)."""
    return StaticAbility(Filter(relation="self"), rules=frozenset({"toxic"}), text=f"Toxic {n}")


# Intimidate (CR 702.13a): evasion, read where a block is checked (702.13b), a rule of the
# permanent's own as infect is.
INTIMIDATE: Final = StaticAbility(
    Filter(relation="self"), rules=frozenset({"intimidate"}), text="Intimidate"
)


# Extort (CR 702.101a): "Whenever you cast a spell, you may pay {W/B}. If you do, each
# opponent loses 1 life and you gain that much life" (with two players, 1 life).
EXTORT: Final = TriggeredAbility(
    "cast_spell",
    effects=(
        Op(
            "may_pay",
            {
                "cost": "{W/B}",
                "effects": (
                    Op("lose_life", {"amount": 1, "who": "each_opponent"}),
                    Op("gain_life", {"amount": 1, "who": "you"}),
                ),
            },
        ),
    ),
    text="Extort",
)


# Exalted (CR 702.83a): "Whenever a creature you control attacks alone, that creature gets
# +1/+1 until end of turn", the ability the keyword gives its card.
EXALTED: Final = TriggeredAbility(
    "attacks_alone",
    effects=(
        Op("pump", {"what": "that_object", "power": 1, "toughness": 1, "duration": "end_of_turn"}),
    ),
    text="Exalted",
)


def _from_hand(abilities: tuple[Any, ...]) -> tuple[int, ...]:
    """The indexes of the activated abilities activated from the hand (cycling, ninjutsu),
    numbered as `objects.activated_at` numbers them (mana and activated abilities, in text
    order)."""
    out: list[int] = []
    i = -1
    for ab in abilities:
        if isinstance(ab, ManaAbility | ActivatedAbility):
            i += 1
            if isinstance(ab, ActivatedAbility) and ab.cost.from_hand:
                out.append(i)
    return tuple(out)


def _both(first: ModeModel, second: ModeModel) -> SpellAbility:
    """The mode "both" of a "choose one or both" spell (CR 700.2d): the first mode's
    targets and effects, then the second's, whose targets follow the first's (its
    "target" becomes "target1" after a one-target first mode), in printed order."""
    shift = {
        n: _TARGET_NAMES[i + len(first.targets)]
        for i, n in enumerate(_TARGET_NAMES[: len(second.targets)])
    }

    def renamed(v: Any) -> Any:
        if isinstance(v, str):
            return shift.get(v, v)
        if isinstance(v, list):
            return [renamed(x) for x in v]
        if isinstance(v, dict):
            return {k: renamed(x) for k, x in v.items()}
        return v

    return SpellAbility(
        compile_targets([*first.targets, *second.targets]),
        compile_ops(first.effects) + compile_ops(renamed(second.effects)),
        f"{first.text} {second.text}",
    )


def compile_card(m: CardModel, set_name: str, index: int, token: bool = False) -> CardDef:
    cost = parse_mana_cost(m.cost) if m.cost is not None else None
    colors = bit_mask(m.colors, COLOR_BITS) if m.colors is not None else colors_of_cost(cost)
    spell = None
    if m.spell is not None:
        modes = tuple(
            SpellAbility(compile_targets(md.targets), compile_ops(md.effects), md.text)
            for md in m.spell.modes
        )
        if m.spell.one_or_both:
            modes += (_both(*m.spell.modes),)
        spell = SpellAbility(
            compile_targets(m.spell.targets),
            compile_ops(m.spell.effects),
            m.text,
            modes,
            m.spell.one_or_both,
        )
    abilities = (
        ((INFECT,) if m.infect else ())  # printed first among its abilities
        + ((INTIMIDATE,) if m.intimidate else ())
        + ((toxic_ability(m.toxic),) if m.toxic else ())
        + tuple(compile_ability(a) for a in m.abilities)
        + ((ward_ability(m.ward),) if m.ward is not None else ())
        + ((echo_ability(m.echo),) if m.echo is not None else ())
        + ((EXALTED,) if "exalted" in m.keywords else ())
        + ((FLANKING,) if "flanking" in m.keywords else ())
        + ((bushido_ability(m.bushido),) if m.bushido is not None else ())
        + ((soulshift_ability(m.soulshift),) if m.soulshift is not None else ())
        + ((ninjutsu_ability(m.ninjutsu),) if m.ninjutsu is not None else ())
        + ((backup_ability(m.backup.count, m.backup.keywords),) if m.backup is not None else ())
        + ((madness_ability(m.madness),) if m.madness is not None else ())
        + ((plot_ability(m.plot),) if m.plot is not None else ())
        + ((PERSIST,) if m.persist else ())
        + ((UNDYING,) if m.undying else ())
        + ((EXTORT,) if m.extort else ())
        + ((CASCADE,) if m.cascade else ())
        + ((fabricate_ability(m.fabricate.count, m.fabricate.token),) if m.fabricate else ())
        + ((job_select_ability(m.job_select),) if m.job_select is not None else ())
    )
    mana = [a for a in abilities if isinstance(a, ManaAbility)]
    if any(a.cost.sacrifice_self for a in mana) and (
        len(mana) > 1 or set(m.subtypes) & set(BASIC_LAND_TYPES)
    ):
        # Payment treats a permanent as one source: sacrificed when used, or not.
        raise ValueError("a card with a mana ability that sacrifices it has no other one")
    if any(a.amount != 1 or a.per for a in mana) and (
        len(mana) > 1 or set(m.subtypes) & set(BASIC_LAND_TYPES)
    ):
        # Its mana are the permanent's sources (engine.derived), all made at once.
        raise ValueError("a card with a mana ability that makes several mana has no other one")
    return CardDef(
        name=m.name,
        types=bit_mask(m.types, TYPE_BITS),
        subtypes=frozenset(m.subtypes),
        supertypes=bit_mask(m.supertypes, SUPERTYPE_BITS),
        colors=colors,
        cost=cost,
        power=None if m.power is None else (0 if m.power == "*" else m.power),
        toughness=None if m.toughness is None else (0 if m.toughness == "*" else m.toughness),
        keywords=frozenset(m.keywords) | ({"ward"} if m.ward is not None else set()),
        abilities=abilities,
        spell=spell,
        enchant=compile_target(m.enchant) if m.enchant is not None else None,
        token=token,
        enters_as_copy=m.enters_as_copy is not None,
        reaction=m.reaction or "",
        enters_tapped=m.enters_tapped,
        enters_tapped_unless_life=(
            -1 if m.enters_tapped_unless_life is None else m.enters_tapped_unless_life
        ),
        from_hand=_from_hand(abilities),
        enters_with=tuple(sorted(m.enters_with.items())),
        kicker=parse_mana_cost(m.kicker) if m.kicker is not None else None,
        kicked_enters_with=tuple(sorted(m.kicked_enters_with.items())),
        enters_with_x=m.enters_with_x or "",
        bestow=parse_mana_cost(m.bestow) if m.bestow is not None else None,
        changeling=m.changeling,
        bloodthirst=m.bloodthirst or 0,
        toxic=m.toxic or 0,
        sacrifice_types=(
            bit_mask(m.additional_cost.sacrifice, TYPE_BITS) if m.additional_cost is not None else 0
        ),
        discard_cost=m.additional_cost is not None and m.additional_cost.discard > 0,
        # Flashback that sacrifices instead of paying mana pays no mana (702.34a).
        flashback=(
            parse_mana_cost(m.flashback)
            if m.flashback is not None
            else NO_MANA
            if m.flashback_sacrifice is not None
            else None
        ),
        flashback_sacrifice=_sac_cost(m.flashback_sacrifice),
        alt_sacrifice=_sac_cost(m.alternative_cost),
        madness=parse_mana_cost(m.madness) if m.madness is not None else None,
        plot=parse_mana_cost(m.plot) if m.plot is not None else None,
        job_select=m.job_select or "",
        affinity=m.affinity or "",
        costs_less=m.costs_less.amount if m.costs_less is not None else 0,
        convoke=m.convoke,
        buyback=parse_mana_cost(m.buyback) if m.buyback is not None else None,
        asks_entered=any(_names_op(ops, "unless_entered_this_turn") for ops in _effect_lists(m)),
        costs_less_if=(
            tuple(compile_target(t) for t in m.costs_less.if_you_control)
            if m.costs_less is not None
            else ()
        ),
        copy_except_pt=(
            tuple(m.enters_as_copy.except_pt)  # type: ignore[arg-type]
            if m.enters_as_copy is not None and m.enters_as_copy.except_pt is not None
            else None
        ),
        text=m.text,
        set_name=set_name,
        index=index,
    )


def _returned(kind: str | None) -> SacCost | None:
    """A cost's permanent returned to its owner's hand, of card type or land type `kind`."""
    if kind is None:
        return None
    bits = TYPE_BITS.get(kind, 0)
    return SacCost(1, bits, "" if bits else kind, "")


class RoomModel(_Effects):
    """A room of a dungeon (CR 309.4): its name, the rooms it leads to, its room ability's
    targets and effects, and its text."""

    name: str = Field(min_length=1)
    leads_to: list[str] = Field(default=[], max_length=2)
    targets: Annotated[list[TargetField], AfterValidator(_check_up_to)] = []
    text: str = Field(min_length=1)


class DungeonModel(_Strict):
    name: str
    tokens: list[dict[str, Any]] = []
    rooms: list[RoomModel] = Field(min_length=1)

    def model_post_init(self, __context: Any) -> None:
        names = [r.name for r in self.rooms]
        for r in self.rooms:
            for n in r.leads_to:
                if n not in names or names.index(n) <= names.index(r.name):
                    raise ValueError(f"room {r.name!r} leads to {n!r}, no room below it")


_UNDERCITY: list[DungeonModel] = []  # read once


def undercity(tokens: dict[str, CardDef], set_name: str, path: str, taker: str) -> tuple[Room, ...]:
    """Undercity's rooms (package data `dungeons/undercity.yaml`), first room first, for a
    card set with `tokens`: a room creates the set's token with the characteristics of the
    one the dungeon declares (names differ between sets: a compiled pool names tokens by
    what tells them apart). A set without one is an error naming it."""
    upath = DATA_DIR / "dungeons" / "undercity.yaml"
    if not _UNDERCITY:
        try:
            _UNDERCITY.append(DungeonModel.model_validate(_read_yaml(upath)))
        except ValidationError as e:
            raise CardDataError(f"{upath}: {_errors(e)}") from None
    m = _UNDERCITY[0]
    own: dict[str, str] = {}
    for i, raw in enumerate(m.tokens):
        want = compile_card(CardModel.model_validate(raw), set_name, i, True)
        same = [n for n, t in tokens.items() if _token_chars(t) == _token_chars(want)]
        if not same:
            raise CardDataError(
                f"{path}: card {taker!r}: field take_initiative: Undercity creates a "
                f"{want.name} token, and the set has no token like it (add it to 'tokens')"
            )
        own[want.name] = same[0]

    def named(op: dict[str, Any]) -> dict[str, Any]:
        if "create_token" in op:
            args = op["create_token"]
            return {"create_token": {**args, "token": own[args["token"]]}}
        return op

    names = [r.name for r in m.rooms]
    return tuple(
        Room(
            r.name,
            tuple(names.index(n) for n in r.leads_to),
            TriggeredAbility(
                "room",
                targets=compile_targets(r.targets),
                effects=compile_ops([named(op) for op in r.effects]),
                text=f"{r.name} — {r.text}",
            ),
        )
        for r in m.rooms
    )


def _token_chars(t: CardDef) -> tuple[Any, ...]:
    return (t.types, t.subtypes, t.colors, t.power, t.toughness, t.keywords, t.abilities)


def _sac_cost(m: SacrificeModel | None) -> SacCost | None:
    if m is None:
        return None
    bits = TYPE_BITS.get(m.kind, 0)
    return SacCost(m.count, bits, "" if bits else m.kind, m.text())


# --------------------------------------------------------------------------- loading


def _fmt_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


MAX_FIELD_ERRORS = 5  # a file with a million bad entries is still one short line


def _errors(e: ValidationError) -> str:
    errs = e.errors()
    text = "; ".join(
        f"field {_fmt_loc(err['loc']) or '(entry)'}: {err['msg']}"
        for err in errs[:MAX_FIELD_ERRORS]
    )
    if len(errs) > MAX_FIELD_ERRORS:
        text += f"; and {len(errs) - MAX_FIELD_ERRORS} more"
    return text


def _read_yaml(path: Path, what: str = "YAML file", max_bytes: int = MAX_INPUT_BYTES) -> Any:
    """A card-set or deck file: every way it can be unreadable is one CardDataError line
    naming the file (missing, a directory, not UTF-8, too large, nested too deeply,
    malformed)."""
    try:
        return load_yaml(path, what, max_bytes)
    except InputFileError as e:
        raise CardDataError(str(e)) from None


def parse_card_set(raw: Any, path: str, parts: Sequence[tuple[str, Any]] = ()) -> CardSet:
    """Validate raw YAML data of a card set; errors name the file, card and field. `parts`
    are further files of the set, (path, raw) each: a mapping with `cards` only."""
    if not isinstance(raw, dict):
        raise CardDataError(f"{path}: a card set is a mapping with 'set' and 'cards'")
    for key in raw:
        if key not in ("set", "include", "tokens", "cards", "layout"):
            raise CardDataError(f"{path}: unknown top-level key {key!r}")
    set_name = raw.get("set")
    if not isinstance(set_name, str):
        raise CardDataError(f"{path}: field 'set' (the set name) is missing")
    layout = _layout_limits(raw.get("layout", {}), path)
    if "include" in raw:
        raw = _with_included(raw, path)
    cards: dict[str, CardDef] = {}
    tokens: dict[str, CardDef] = {}
    face_down: dict[str, CardDef] = {}
    sections: list[tuple[str, str, Any, dict[str, CardDef], bool]] = [
        (path, "tokens", raw.get("tokens", []), tokens, True),
        (path, "cards", raw.get("cards", []), cards, False),
    ]
    for part_path, part in parts:
        if not isinstance(part, dict) or set(part) != {"cards"}:
            raise CardDataError(f"{part_path}: a part of a card set is a mapping with 'cards'")
        sections.append((part_path, "cards", part["cards"], cards, False))
    for where_path, section, entries, out, is_token in sections:
        if not isinstance(entries, list):
            raise CardDataError(f"{where_path}: '{section}' must be a list")
        for i, entry in enumerate(entries):
            label = entry.get("name") if isinstance(entry, dict) else None
            where = (
                f"{where_path}: {section[:-1]} {label!r}"
                if label
                else f"{where_path}: {section}[{i}]"
            )
            if isinstance(entry, dict) and ("top" in entry or "bottom" in entry):
                _add_split(entry, where, set_name, out, face_down)
                continue
            try:
                model = CardModel.model_validate(entry)
            except ValidationError as e:
                raise CardDataError(f"{where}: {_errors(e)}") from None
            if model.name in out:
                raise CardDataError(f"{where}: duplicate name")
            try:
                out[model.name] = compile_card(model, set_name, len(out), is_token)
            except ValueError as e:
                raise CardDataError(f"{where}: {e}") from None
    # Token references in create_token ops must exist.
    for c in cards.values():
        for op in _all_ops(c):
            if op.name in ("create_token", "job_select", "fabricate") and (
                op.args["token"] not in tokens
            ):
                raise CardDataError(
                    f"{path}: card {c.name!r}: field {op.name}.token: unknown token "
                    f"{op.args['token']!r}"
                )
    if face_down:
        tokens.setdefault(FACE_DOWN, _face_down(set_name, "", len(tokens)))
    bestowed = {c.name: _bestowed(c) for c in cards.values() if c.bestow is not None}
    every = (*cards.values(), *tokens.values())
    cast = any(
        _has_event(c, e)
        for c in every
        for e in ("cast_noncreature", "cast_instant_sorcery", "cast_spell")
    )
    cast_spell = any(_has_event(c, "cast_spell") for c in every)
    cast_self = any(_has_event(c, "cast_self") for c in cards.values())
    landfall = any(_has_event(c, "landfall") for c in every)
    enters = any(_has_event(c, "permanent_enters") for c in every)
    alone = any(_has_event(c, "attacks_alone") for c in every)
    block = any(
        _has_event(c, e) for c in every for e in ("blocked", "blocks_or_blocked", "flanked")
    )
    flashback = any(c.flashback is not None for c in cards.values())
    target = any(_has_event(c, e) for c in every for e in ("targeted", "targeted_by_opponent"))
    draw = any(_has_event(c, e) for c in every for e in ("third_draw", "second_draw"))
    leave = any(_has_event(c, "leaves") for c in every)
    turn = any(isinstance(a, StaticAbility) and a.during for c in every for a in c.abilities)
    plot = any(c.plot is not None for c in cards.values())
    sacrifice = any(_has_event(c, "you_sacrifice") for c in every)
    impulse = any(op.name == "impulse" for c in every for op in _all_ops(c))
    add_mana = any(op.name == "add_mana" for c in every for op in _all_ops(c)) or any(
        isinstance(a, ManaAbility) and (a.amount != 1 or a.per) for c in every for a in c.abilities
    )
    prevent = any(op.name == "prevent_damage" for c in every for op in _all_ops(c))
    exile_if_dies = any(op.name == "exile_if_dies" for c in every for op in _all_ops(c))
    skip_untap = any(op.name == "skip_untap" for c in every for op in _all_ops(c))
    conditional = any(
        isinstance(a, StaticAbility) and a.condition for c in every for a in c.abilities
    )
    bloodthirst = any(c.bloodthirst for c in cards.values())
    poison = any(
        type(a) is StaticAbility and a.rules & {"infect", "toxic"}
        for c in every
        for a in c.abilities
    )
    linked = any(op.name == "exile_linked" for c in every for op in _all_ops(c))
    rooms: tuple[Room, ...] = ()
    taker = next((c for c in every for op in _all_ops(c) if op.name == "take_initiative"), None)
    if taker is not None:
        rooms = undercity(tokens, set_name, path, taker.name)
    # By name: the flags are many booleans, and one in the wrong place is silent.
    return CardSet(
        set_name,
        cards,
        tokens,
        path,
        face_down,
        layout,
        cast_triggers=cast,
        cast_self_triggers=cast_self,
        landfall_triggers=landfall,
        enters_triggers=enters,
        alone_triggers=alone,
        block_triggers=block,
        flashback=flashback,
        target_triggers=target,
        draw_triggers=draw,
        leave_triggers=leave,
        turn_statics=turn,
        plot=plot,
        sacrifice_triggers=sacrifice,
        impulse=impulse,
        add_mana=add_mana,
        conditional_statics=conditional,
        undercity=rooms,
        bloodthirst=bloodthirst,
        poison=poison,
        linked_exile=linked,
        cast_spell_triggers=cast_spell,
        prevent_next=prevent,
        exile_if_dies=exile_if_dies,
        skip_untap=skip_untap,
        bestowed=bestowed,
    )


def _has_event(c: CardDef, event: str) -> bool:
    """Whether card `c` has, or grants with a static ability, a trigger on `event`."""
    for a in c.abilities:
        if isinstance(a, TriggeredAbility) and a.event == event:
            return True
        if isinstance(a, StaticAbility):
            for comp in a.components:
                if comp.op == "add_abilities" and any(
                    isinstance(x, TriggeredAbility) and x.event == event for x in comp.arg
                ):
                    return True
    return False


# The table sizes a set may raise: the flat layout's (env.spaces.Limits) and the v1
# entity tables' (env.entity.EntityLimits).
LAYOUT_LIMIT_KEYS = ("permanents", "stack", "abilities", "options", "objects", "candidates")


def _layout_limits(raw: Any, path: str) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise CardDataError(f"{path}: field 'layout' must be a mapping of table sizes")
    out: dict[str, int] = {}
    for key, value in raw.items():
        if key not in LAYOUT_LIMIT_KEYS:
            raise CardDataError(
                f"{path}: field layout.{key}: unknown table (one of {', '.join(LAYOUT_LIMIT_KEYS)})"
            )
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1024:
            raise CardDataError(f"{path}: field layout.{key}: a whole number from 1 to 1024")
        out[str(key)] = value
    return out


_SPLIT_KEYS = {"name", "suits", "top", "bottom"}


def _face_down(set_name: str, whole: str, index: int) -> CardDef:
    """A card played face down as a mana source (pocket): no name of its own on the table,
    no types, "{T}: add one mana"; `half_of` remembers the card (for when it leaves)."""
    mana = compile_ability(AbilityModel.model_validate({"mana": {"add": ["C"]}}))
    return CardDef(
        name=FACE_DOWN,
        types=0,
        abilities=(mana,),
        text="{T}: Add one mana. (A face-down card.)",
        set_name=set_name,
        index=index,
        half_of=whole,
    )


def _bestowed(card: CardDef) -> CardDef:
    """The Aura form of a card with bestow (CR 702.103a): "it becomes an Aura enchantment
    and gains enchant creature"; no longer a creature, it has no creature types (205.1b)
    and no power or toughness (208.3). Its abilities are the card's: its "enchanted
    creature gets ..." now has an object to apply to."""
    return dataclasses.replace(
        card,
        types=TYPE_BITS["enchantment"],
        subtypes=frozenset({AURA_SUBTYPE}),
        power=None,
        toughness=None,
        enchant=compile_target("creature"),
        bestowed=True,
        half_of=card.name,
    )


def _add_split(
    entry: dict[str, Any],
    where: str,
    set_name: str,
    out: dict[str, CardDef],
    face_down: dict[str, CardDef],
) -> None:
    """A two-part card: `name`, `suits` (card subtypes, on both halves) and `top` and
    `bottom` halves, each a card of its own (the top half's name defaults to the card's).
    The whole card is named "TOP / BOTTOM"; decks list it by that name."""
    bad = set(entry) - _SPLIT_KEYS
    if bad:
        raise CardDataError(f"{where}: unknown field(s) {sorted(bad)}")
    if "top" not in entry or "bottom" not in entry:
        raise CardDataError(f"{where}: a two-part card needs both 'top' and 'bottom'")
    suits = entry.get("suits") or []
    if not isinstance(suits, list) or not all(isinstance(x, str) for x in suits):
        raise CardDataError(f"{where}: field suits: a list of suit names")
    halves = []
    for part in ("top", "bottom"):
        raw = entry[part]
        if not isinstance(raw, dict):
            raise CardDataError(f"{where}: field {part}: a mapping (a card)")
        raw = dict(raw)
        if part == "top":
            raw.setdefault("name", entry.get("name"))
        raw["subtypes"] = list(raw.get("subtypes") or []) + suits
        try:
            model = CardModel.model_validate(raw)
        except ValidationError as e:
            raise CardDataError(f"{where}: field {part}: {_errors(e)}") from None
        halves.append(model)
    whole_name = f"{halves[0].name} / {halves[1].name}"
    for name in (halves[0].name, halves[1].name, whole_name):
        if name in out:
            raise CardDataError(f"{where}: duplicate name {name!r}")
    defs = []
    for m in halves:
        try:
            d = compile_card(m, set_name, len(out))
        except ValueError as e:
            raise CardDataError(f"{where}: {e}") from None
        d = dataclasses.replace(d, half_of=whole_name)
        out[m.name] = d
        defs.append(d)
    out[whole_name] = CardDef(
        name=whole_name,
        types=0,
        subtypes=frozenset(suits),
        text=f"{defs[0].name}: {defs[0].text} // {defs[1].name}: {defs[1].text}",
        set_name=set_name,
        index=len(out),
        halves=tuple(defs),
    )
    face_down[whole_name] = _face_down(set_name, whole_name, 0)


def _with_included(raw: dict[str, Any], path: str) -> dict[str, Any]:
    """`include: {set: NAME, cards: [...]}`: take those cards' definitions (and all of that
    set's tokens) from another bundled set, so a format reuses cards without copying them."""
    inc = raw["include"]
    if not isinstance(inc, dict) or set(inc) != {"set", "cards"}:
        raise CardDataError(f"{path}: field include: a mapping with 'set' and 'cards'")
    base_path = DATA_DIR / "cards" / f"{inc['set']}.yaml"
    if not base_path.exists():
        raise CardDataError(f"{path}: field include.set: unknown card set {inc['set']!r}")
    base = _read_yaml(base_path)
    by_name = {e.get("name"): e for e in base.get("cards", []) if isinstance(e, dict)}
    picked = []
    for i, name in enumerate(inc["cards"] or []):
        if name not in by_name:
            raise CardDataError(
                f"{path}: field include.cards[{i}]: no card {name!r} in set {inc['set']!r}"
            )
        picked.append(by_name[name])
    out = dict(raw)
    out["cards"] = picked + list(raw.get("cards") or [])
    own_tokens = list(raw.get("tokens") or [])
    names = {t.get("name") for t in own_tokens if isinstance(t, dict)}
    out["tokens"] = [t for t in base.get("tokens", []) if t.get("name") not in names] + own_tokens
    return out


def _all_ops(c: CardDef) -> list[Op]:
    ops: list[Op] = []

    def walk(seq: Any) -> None:
        for op in seq:
            ops.append(op)
            for inner in inner_lists(op):
                walk(inner)

    if c.spell:
        walk(c.spell.effects)
        for mode in c.spell.modes:
            walk(mode.effects)
    for a in c.abilities:
        if isinstance(a, ActivatedAbility | TriggeredAbility):
            walk(a.effects)
        elif isinstance(a, StaticAbility):
            for comp in a.components:
                if comp.op == "add_abilities":
                    for sub in comp.arg:
                        if isinstance(sub, ActivatedAbility | TriggeredAbility):
                            walk(sub.effects)
    return ops


def set_keywords(cs: CardSet) -> frozenset[str]:
    """Every keyword the set's cards and tokens can have: printed, granted by a static
    ability or by an effect (an observation encodes only the keywords its set can show)."""
    out: set[str] = set()
    for c in (*cs.cards.values(), *cs.tokens.values()):
        out |= c.keywords
        for op in _all_ops(c):
            if op.name == "grant":
                out.update(op.args["keywords"])
        for a in c.abilities:
            if isinstance(a, StaticAbility):
                for comp in a.components:
                    if comp.op == "add_keywords":
                        out |= comp.arg
    return frozenset(out)


# Card sets this process was given from elsewhere than package data (`register_card_set`).
_REGISTERED: dict[str, CardSet] = {}


def register_card_set(cs: CardSet) -> None:
    """Make a card set read from a file of the user's (a pool `mtg-env cards compile`
    wrote, validated by `parse_card_set`: data only) known to `load_cards` by its name, in
    this process. It never replaces a package set: a package set's name is refused."""
    if cs.name in card_set_names():
        raise CardDataError(f"card set {cs.name!r}: a bundled card set has that name")
    _REGISTERED[cs.name] = cs


@functools.cache
def load_cards(set_name: str = "classic") -> CardSet:
    """The card set `set_name` from package data (cached; CardDefs are immutable): the file
    `cards/<set>.yaml`, or the folder `cards/<set>/` of a large set (its `set.yaml` with the
    set's name and tokens, then every other `*.yaml` in name order, each with `cards`)."""
    # Only the package's own sets, by name: a name is never a path, so a set name read from
    # a file (a policy's `game_format`, say) can't load a card file from elsewhere. A set
    # registered by the process itself is the one exception.
    if set_name in _REGISTERED:
        return _REGISTERED[set_name]
    known = card_set_names()
    if set_name not in known:
        raise CardDataError(f"unknown card set {set_name!r} (known: {', '.join(known)})")
    folder = DATA_DIR / "cards" / set_name
    path = DATA_DIR / "cards" / f"{set_name}.yaml"
    if folder.is_dir() and not path.exists():
        head = folder / "set.yaml"
        parts = [(str(p), _read_yaml(p)) for p in sorted(folder.glob("*.yaml")) if p != head]
        return parse_card_set(_read_yaml(head), str(head), parts)
    return parse_card_set(_read_yaml(path), str(path))


def card_set_names() -> list[str]:
    """The card sets in package data: `cards/<set>.yaml` files and `cards/<set>/` folders."""
    root = DATA_DIR / "cards"
    names = {p.stem for p in root.glob("*.yaml")}
    names |= {p.name for p in root.iterdir() if p.is_dir() and (p / "set.yaml").is_file()}
    return sorted(names)


# --------------------------------------------------------------------------- decks

_DECK_LINE = re.compile(r"^\s*(\d+)\s*x?\s+(.+?)\s*$")


@dataclass(frozen=True)
class Deck:
    """A deck list: `cards` is the full list of card names (40 for classic)."""

    name: str
    format: str
    cards: tuple[str, ...]
    path: str = ""

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cards:
            out[c] = out.get(c, 0) + 1
        return out


class DeckModel(_Strict):
    # Bounded as a text deck list's lines are (MAX_DECK_LINE): no name is near this long.
    name: str = Field(max_length=200)
    format: str = Field(default="classic", max_length=100)
    cards: list[Annotated[str, Field(max_length=500)]] = Field(min_length=1, max_length=2000)
    description: str = Field(default="", max_length=10_000)


DECK_SIZE = {name: r.deck_size for name, r in FORMATS.items()}
MAX_DECK_CARDS = 1000  # a deck of a format without a fixed size


def parse_deck(raw: Any, path: str, card_set: CardSet | None = None) -> Deck:
    try:
        model = DeckModel.model_validate(raw)
    except ValidationError as e:
        raise CardDataError(f"{path}: deck: {_errors(e)}") from None
    if model.format not in FORMATS:
        raise CardDataError(
            f"{path}: deck {model.name!r}: field format: unknown format {model.format!r} "
            f"(one of {', '.join(sorted(FORMATS))})"
        )
    cs = card_set or load_cards(model.format)
    size = DECK_SIZE.get(model.format)
    # Counts are bounded before any list is built: "100000000 Mountain" must be an error,
    # not gigabytes of names.
    limit = size if size is not None else MAX_DECK_CARDS
    names: list[str] = []
    total = 0
    for i, line in enumerate(model.cards):
        m = _DECK_LINE.match(line)
        count, name = (int(m.group(1)), m.group(2)) if m else (1, line.strip())
        total += count
        if count < 1 or total > limit:
            raise CardDataError(
                f"{path}: deck {model.name!r}: cards[{i}]: {line.strip()[:60]!r}: "
                + (
                    f"a count is at least 1, not {count}"
                    if count < 1
                    else f"the deck would have more than {limit} cards"
                )
            )
        if name in cs.cards and cs.cards[name].half_of:
            raise CardDataError(
                f"{path}: deck {model.name!r}: cards[{i}]: {name!r} is half of a card; "
                f"list the whole card {cs.cards[name].half_of!r}"
            )
        if name not in cs.cards:
            raise CardDataError(
                f"{path}: deck {model.name!r}: cards[{i}]: unknown card {name[:60]!r} in set "
                f"{cs.name!r}"
            )
        names.extend([name] * count)
    if size is not None and len(names) != size:
        raise CardDataError(
            f"{path}: deck {model.name!r}: field cards: has {len(names)} cards, "
            f"{'an' if model.format[0] in 'aeiou' else 'a'} {model.format} deck has exactly {size}"
        )
    return Deck(model.name, model.format, tuple(names), path)


def load_deck_file(path: str | Path) -> Deck:
    """A YAML deck file (at most MAX_DECK_FILE_BYTES, refused unread beyond)."""
    p = Path(path)
    return parse_deck(_read_yaml(p, "deck file", MAX_DECK_FILE_BYTES), str(p))


@functools.cache
def _load_decks(fmt: str) -> tuple[tuple[str, Deck], ...]:
    folder = DATA_DIR / "decks" / fmt
    out = []
    for p in sorted(folder.glob("*.yaml")):
        d = load_deck_file(p)
        out.append((d.name, d))
    if not out:
        raise CardDataError(f"no bundled decks for format {fmt!r}")
    return tuple(out)


def load_decks(fmt: str = "classic") -> dict[str, Deck]:
    """Bundled decks of a format: name -> Deck."""
    return dict(_load_decks(fmt))


def resolve_deck(spec: str | Deck, fmt: str = "classic") -> Deck:
    """A bundled deck name, a YAML path, a text deck-list path (`.txt`), or a Deck."""
    if isinstance(spec, Deck):
        return spec
    decks = load_decks(fmt)
    if spec in decks:
        return decks[spec]
    if spec.endswith(".txt"):
        return load_deck_text(spec, fmt)
    if spec.endswith((".yaml", ".yml")) or "/" in spec:
        return load_deck_file(spec)
    raise CardDataError(f"unknown deck {spec!r} (bundled {fmt} decks: {', '.join(decks)})")


# --------------------------------------------------------------------------- text deck lists

# "4 NAME", "4x NAME", "4 x NAME".
_TEXT_LINE = re.compile(r"^(\d+)\s*[xX]?\s+(\S.*?)\s*$")
# An exported line's set code and collector number: "4 NAME (M10) 146".
_SET_SUFFIX = re.compile(r"\s+\([A-Za-z0-9]{2,6}\)(\s+\S+)?$")
_MAIN_HEADERS = {"deck", "main", "maindeck", "mainboard"}
_SIDE_HEADERS = {"sideboard", "side", "sb"}
MAX_DECK_PROBLEMS = 50  # a file of a million bad lines is reported in a screenful
# No card name is near this long: a longer line is refused before any pattern or suggestion
# looks at it (a 60 MB one-line file must cost its size, not gigabytes).
MAX_DECK_LINE = 500
# A legal list never needs more lines (a deck of the largest size has one line per card);
# the file is refused at the first line past the bound, unread beyond it.
MAX_DECK_LINES = 2000
# A YAML deck file is a name, a format, a description and one short line per card.
MAX_DECK_FILE_BYTES = 1024 * 1024


def _header(line: str) -> str:
    return line.rstrip(":").strip().lower()


def _lookup(name: str, cs: CardSet, folded: dict[str, str]) -> str | None:
    """The set's name for a deck-list name: exact, else the one card equal ignoring case
    (lists are typed by hand), else without an exported set code and collector number.
    Whole cards only (`folded` holds no halves of two-part cards)."""
    for n in (name, _SET_SUFFIX.sub("", name)):
        if n in cs.cards and not cs.cards[n].half_of:
            return n
        if n.casefold() in folded:
            return folded[n.casefold()]
    return None


def deck_text_lines(
    text: str, path: str, limit: int
) -> tuple[list[tuple[int, str, int, bool]], list[tuple[int, str]]]:
    """The entries of a text deck list, as written: (line number, name, count, in the
    sideboard), and the problems of its lines with their line numbers (not a deck-list
    line, a count out of 1 to `limit`, a line too long). Names are not checked here
    (`parse_deck_text` checks them against a card set, `mtg-env cards compile --deck`
    against a card database)."""
    problems: list[tuple[int, str]] = []
    out: list[tuple[int, str, int, bool]] = []
    sideboard = False
    # A byte-order mark (Windows editors write one) is not part of the first line.
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        where = f"{path}:{lineno}"
        if len(raw) > MAX_DECK_LINE:
            problems.append(
                (
                    lineno,
                    f"{where}: a line of {len(raw):,} characters is not a deck-list line "
                    f"(at most {MAX_DECK_LINE})",
                )
            )
            continue
        line = raw.strip()
        if not line or line.startswith(("#", "//")):
            continue
        if _header(line) in _MAIN_HEADERS:
            sideboard = False
            continue
        if _header(line) in _SIDE_HEADERS:
            sideboard = True
            continue
        in_side = sideboard
        if line[:3].lower() == "sb:":
            in_side, line = True, line[3:].strip()
        m = _TEXT_LINE.match(line)
        if m is None:
            problems.append((lineno, f"{where}: not a deck-list line: {line[:60]!r}"))
            continue
        digits, card = m.group(1), m.group(2)
        # Bounded before int(): a line of thousands of digits is an error, not a slow
        # conversion (and no list of that many names is ever built).
        count = int(digits) if len(digits) <= 9 else limit + 1
        if count < 1:
            problems.append((lineno, f"{where}: a count is at least 1, not {count}"))
        elif count > limit:
            problems.append((lineno, f"{where}: a count is at most {limit}, not {digits[:12]}"))
        out.append((lineno, card, count, in_side))
    return out, problems


def parse_deck_text(
    text: str,
    path: str,
    fmt: str = "classic",
    name: str | None = None,
    card_set: CardSet | None = None,
) -> Deck:
    """A text deck list: one `4 Name` (or `4x Name`) a line; blank lines, `#` and `//`
    comments and a `Deck` header are ignored; entries after a `Sideboard` header (or with
    an `SB:` prefix) are checked but kept out of the deck. Every bad line is reported at
    once: one CardDataError, one `PATH:LINE: problem` line each, then the deck size."""
    if fmt not in FORMATS:
        raise CardDataError(f"{path}: unknown format {fmt!r} (one of {', '.join(sorted(FORMATS))})")
    cs = card_set or load_cards(fmt)
    size = DECK_SIZE.get(fmt)
    limit = size if size is not None else MAX_DECK_CARDS
    # Whole cards only: a half of a two-part card is named in its own message, and
    # suggestions never offer a half.
    wholes = sorted(n for n, c in cs.cards.items() if not c.half_of)
    folded: dict[str, str] = {}
    for n in wholes:
        # Two names equal but for case are ambiguous: neither is matched loosely.
        folded[n.casefold()] = "" if n.casefold() in folded else n
    folded = {k: v for k, v in folded.items() if v}
    lines, line_problems = deck_text_lines(text, path, limit)
    entries: list[tuple[str, int]] = []  # main deck only: (name, count)
    name_problems: list[tuple[int, str]] = []
    before = 0  # line problems on lines up to this one (line_problems is in line order)
    for lineno, card, count, in_side in lines:
        where = f"{path}:{lineno}"
        while before < len(line_problems) and line_problems[before][0] <= lineno:
            before += 1
        if card in cs.cards and cs.cards[card].half_of:
            name_problems.append(
                (
                    lineno,
                    f"{where}: {card[:60]!r} is half of a card; list the whole card "
                    f"{cs.cards[card].half_of!r}",
                )
            )
            continue
        found = _lookup(card, cs, folded)
        if found is None:
            # Suggestions only for the problems that will be shown (each is a search).
            close = (
                difflib.get_close_matches(card, wholes, n=1)
                if before + len(name_problems) < MAX_DECK_PROBLEMS
                else []
            )
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            name_problems.append(
                (lineno, f"{where}: unknown card {card[:60]!r} in set {cs.name!r}{hint}")
            )
            continue
        if 1 <= count <= limit and not in_side:
            entries.append((found, count))
    # Every problem in the order of the lines: a line's own first, then its name's (a
    # stable sort of the two lists by line).
    problems = [m for _, m in sorted(line_problems + name_problems, key=lambda p: p[0])]
    total = sum(n for _, n in entries)
    if size is not None and total != size:
        article = "an" if fmt[0] in "aeiou" else "a"
        problems.append(f"{path}: has {total} cards, {article} {fmt} deck has exactly {size}")
    elif size is None and not 1 <= total <= limit:
        problems.append(f"{path}: has {total} cards, a deck has 1 to {limit}")
    if problems:
        if len(problems) > MAX_DECK_PROBLEMS:
            more = len(problems) - MAX_DECK_PROBLEMS
            problems = [*problems[:MAX_DECK_PROBLEMS], f"{path}: ... and {more} more problems"]
        raise CardDataError("\n".join(problems))
    names = tuple(n for n, count in entries for _ in range(count))
    return Deck(name if name is not None else Path(path).stem, fmt, names, path)


def load_deck_text(path: str | Path, fmt: str = "classic") -> Deck:
    """A text deck-list file (see `parse_deck_text`); named after the file. Its lines are
    bounded as it is read (MAX_DECK_LINES lines of MAX_DECK_LINE characters): a 60 MB file of
    one line costs one line's bound, not its size and what parsing it builds."""
    p = Path(path)
    try:
        text = read_lines(p, "deck list", MAX_DECK_LINES, MAX_DECK_LINE)
    except InputFileError as e:
        raise CardDataError(str(e)) from None
    return parse_deck_text(text, str(p), fmt)
