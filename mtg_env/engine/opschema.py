"""The card-data schema of each effect op's arguments (pydantic models), named by
`engine.effects.OPS` beside the op's behaviour and text.

A module of its own because it stays Python in the compiled build: pydantic builds these
classes and their validators at import time, which classes compiled by mypyc do not allow
(docs/compiling.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from .cards import parse_mana_cost
from .vocab import COLOR_NAMES, DURATIONS, REFS, TYPE_NAMES, Strict, check_keywords

# A number an op may take from the spell's announced X (CR 107.3a): "X" (or "-X" for a
# P/T change), allowed only in the spell of a card whose mana cost has {X} (carddb checks).
X = Literal["X"]
SIGNED_X = Literal["X", "-X"]


def _without_none(out: dict[str, Any], key: str) -> dict[str, Any]:
    """A model's data without the optional field `key` when it is unset (None)."""
    if out.get(key) is None:
        out.pop(key, None)
    return out


class CountOf(Strict):
    """A number counted as the effect resolves (608.2h): "for each creature you control"
    (`types: [creature]`, `whose: you`), "for each Elf on the battlefield" (`subtype: Elf`,
    `whose: any`), "for each card in your graveyard" (`zone: graveyard`), "... in your
    hand" (`zone: hand`); `times` N for "N ... for each"; `as_x` where the text says "X
    ..., where X is the number of ...". Permanents are counted by their characteristics,
    cards in a graveyard or hand by their printed types."""

    types: list[TYPE_NAMES] = []
    subtype: str | None = None
    zone: Literal["battlefield", "graveyard", "hand"] = "battlefield"
    whose: Literal["you", "any"] = "you"
    times: Annotated[int, Field(ge=1, le=20)] = 1
    as_x: bool = False
    # "for each creature you control with defender": permanents with this keyword only.
    keyword: str | None = None

    @model_validator(mode="after")
    def _keyword(self) -> CountOf:
        if self.keyword is not None:
            check_keywords([self.keyword])
            if self.zone != "battlefield":
                raise ValueError("'keyword' narrows a count of permanents on the battlefield")
        return self

    @model_serializer(mode="wrap")
    def _without_unset_keyword(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Unset, it is not stored: counts read as they did before it existed.
        return _without_none(handler(self), "keyword")


class DamageOp(Strict):
    amount: Annotated[int, Field(ge=0)] | X | CountOf
    to: REFS


class WhatOp(Strict):
    what: REFS


class CounterSpellOp(Strict):
    """ "Counter target spell." (701.5a); with `exile`, "If that spell is countered this
    way, exile it instead of putting it into its owner's graveyard." (614.1a)."""

    what: REFS
    exile: bool = False


class ExileLinkedOp(Strict):
    """ "When this enters, exile target creature." where a "When this leaves the
    battlefield, return the exiled card ..." ability of the same card is linked to it
    (607.2a)."""

    what: REFS


class DestroyOp(Strict):
    what: REFS
    # False: "It can't be regenerated" (CR 701.15b): no regeneration shield replaces it.
    regenerate: bool = True


class DrawOp(Strict):
    count: Annotated[int, Field(ge=1)] | X | CountOf = 1
    who: REFS = "you"


class DiscardOp(Strict):
    count: Annotated[int, Field(ge=1)] | X = 1
    who: REFS
    random: bool = False


class LifeOp(Strict):
    amount: Annotated[int, Field(ge=0)] | X | CountOf
    who: REFS = "you"


class MillOp(Strict):
    count: Annotated[int, Field(ge=1)] | X = 1
    who: REFS = "you"


class ImpulseOp(Strict):
    """ "Exile the top card of your library. Until end of turn, you may play that card"
    (`until: turn`; "Until the end of your next turn": `next_turn`), and with `count` N,
    "the top N cards ... those cards". The cards are exiled face up (public)."""

    count: Annotated[int, Field(ge=1, le=10)] = 1
    until: Literal["turn", "next_turn"]


class AddManaOp(Strict):
    """ "Add {B}{B}{B}." from a spell or a triggered ability (CR 106.4): the mana goes to
    its controller's pool until the step ends. An activated ability that adds mana is a
    mana ability (605.1a), written `mana:` instead."""

    mana: Annotated[str, Field(pattern=r"^(\{[WUBRGC]\}){1,10}$")]


class LookOp(Strict):
    """Scry / surveil N (CR 701.22, 701.25): the controller looks at the top N cards of
    their library. At most 10, so that a choice has at most 20 options."""

    count: int = Field(ge=1, le=10)


CARD_TYPE = Literal["artifact", "creature", "enchantment", "land", "instant", "sorcery"]


class LookTakeOp(Strict):
    """ "Look at the top N cards of your library. Put K of them into your hand and the rest
    ...", or "You may reveal a [type] card from among them and put it into your hand. Put
    the rest ...": the controller takes `take` of the top `count` (`reveal`: up to one card
    of one of `types`, revealed; with `any_number`, "any number of [type] cards", one at a
    time), and the rest go to the graveyard or the library's bottom (`random`: in a random
    order)."""

    count: int = Field(ge=1, le=10)
    take: int = Field(default=1, ge=1, le=2)
    reveal: bool = False
    any_number: bool = False
    types: list[CARD_TYPE] = []
    rest: Literal["graveyard", "bottom"]
    random: bool = False

    def model_post_init(self, __context: Any) -> None:
        if self.reveal and self.take != 1:
            raise ValueError("a revealed card is one card")
        if self.any_number and not (self.reveal and self.types):
            raise ValueError("'any_number' reveals cards of 'types'")
        if self.types and not self.reveal:
            raise ValueError("'types' names what may be revealed")
        if self.take >= self.count:
            raise ValueError("'take' is fewer cards than 'count'")


class RevealTakeOp(Strict):
    """ "Reveal the top N cards of your library. Put all land cards revealed this way into
    your hand and the rest into your graveyard.": every revealed card of one of `types` goes
    to the hand; with `choose` ("Choose creature or land."), of the one type the controller
    chooses first. The rest go to the graveyard or the library's bottom."""

    count: int = Field(ge=1, le=10)
    types: list[CARD_TYPE] = Field(min_length=1, max_length=3)
    choose: bool = False
    rest: Literal["graveyard", "bottom"]

    def model_post_init(self, __context: Any) -> None:
        if self.choose and len(self.types) < 2:
            raise ValueError("'choose' is a choice among two or more 'types'")


class TakeInitiativeOp(Strict):
    """ "You take the initiative." (CR 725.3): `damaging_player` is the initiative's own
    ability, which gives it to the player whose creatures dealt combat damage (725.2)."""

    who: Literal["you", "damaging_player"] = "you"


class RevealPutOp(Strict):
    """Undercity's last room (CR 309.4): "Reveal the top ten cards of your library. Put a
    creature card from among them onto the battlefield with three +1/+1 counters on it. It
    gains hexproof until your next turn. Then shuffle." """

    count: int = Field(ge=1, le=20)
    types: list[CARD_TYPE] = Field(min_length=1)
    counters: int = Field(default=0, ge=0, le=20)
    keywords: list[str] = []
    _kw = field_validator("keywords")(check_keywords)


class UntapUpToOp(Strict):
    """ "Untap up to N lands" (not targeted: chosen as it resolves)."""

    count: int = Field(ge=1, le=10)


class FightOp(Strict):
    what: REFS
    other: REFS


# The refs naming a group of creatures, which a creature type can narrow ("Humans you
# control gain haste until end of turn").
GROUP_REFS: Final = frozenset({"your_creatures", "opponent_creatures", "all_creatures"})


class _OfSubtype(Strict):
    what: REFS
    # Only the creatures of the group with this creature type ("Elves you control").
    subtype: str | None = None

    @model_validator(mode="after")
    def _group(self) -> _OfSubtype:
        if self.subtype is not None and self.what not in GROUP_REFS:
            raise ValueError(f"'subtype' narrows a group of creatures: {sorted(GROUP_REFS)}")
        return self

    @model_serializer(mode="wrap")
    def _without_unset_subtype(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Unset, it is not stored: the op's arguments read as they did before it existed
        # (the text view recognises prowess and exalted by theirs).
        return _without_none(handler(self), "subtype")


class PumpOp(_OfSubtype):
    power: int | SIGNED_X | CountOf = 0
    toughness: int | SIGNED_X | CountOf = 0
    duration: DURATIONS = "end_of_turn"


class SwitchOp(Strict):
    what: REFS
    duration: DURATIONS = "end_of_turn"


class RestrictOp(Strict):
    """ "Target creature can't block this turn" (`rules: [cant_block]`), "can't attack or
    block this turn" (`[cant_attack, cant_block]`), "can't be blocked this turn"
    (`[unblockable]`): the rules the objects get for the duration."""

    what: REFS
    rules: list[Literal["cant_attack", "cant_block", "unblockable"]] = Field(min_length=1)
    duration: DURATIONS = "end_of_turn"


def restriction_text(rules: Sequence[str]) -> str:
    """The words of a `restrict` op's rules: "can't block", "can't attack or block",
    "can't be blocked" (the effect's description and the text view both say them)."""
    if list(rules) == ["unblockable"]:
        return "can't be blocked"
    return "can't " + " or ".join(r.removeprefix("cant_") for r in rules)


LandType = Literal["Plains", "Island", "Swamp", "Mountain", "Forest"]


class SearchOp(Strict):
    """ "Search your library for a basic land card, reveal it, put it into your hand, then
    shuffle" (`to: hand`) or "..., put it onto the battlefield tapped, then shuffle"
    (`to: battlefield_tapped`), CR 701.19; with `land_type`, for a card of that basic land
    type instead ("an Island card", which landcycling of a type looks for, 702.29e)."""

    # `top`: "reveal it, then shuffle and put that card on top" (of the library).
    to: Literal["hand", "battlefield_tapped", "top"]
    land_type: LandType | None = None
    # "a basic Swamp, Mountain, or Forest card": a basic land card of any of these types.
    basic_types: list[LandType] = []
    # Whose library: "you" (the controller), or "target_controller" ("Its controller may
    # search their library ...", the first target's controller as it last was).
    who: Literal["you", "target_controller"] = "you"
    # "may search": the searcher may also decline, and then the library is not shuffled.
    may: bool = False


class RevealDiscardOp(Strict):
    """ "Target opponent reveals their hand. You choose a nonland card from it. That player
    discards that card." (`who: target`, `not_types: [land]`): the card types chosen from
    (any of `types`, none of `not_types`; empty: any card)."""

    who: REFS
    types: list[TYPE_NAMES] = []
    not_types: list[TYPE_NAMES] = []


class GrantOp(_OfSubtype):
    keywords: list[str]
    duration: DURATIONS = "end_of_turn"
    # Backup's "if that's another creature, it gains ..." (CR 702.165a): not the source.
    if_other: bool = False

    _kw = field_validator("keywords")(check_keywords)


class ControlOp(Strict):
    what: REFS
    duration: DURATIONS = "end_of_turn"


class TokenOp(Strict):
    token: str
    count: Annotated[int, Field(ge=1)] | X = 1


class CounterOp(Strict):
    what: REFS
    # A stun counter (CR 122.1d): untapping it removes one instead.
    counter: Literal["+1/+1", "-1/-1", "stun"]
    count: Annotated[int, Field(ge=1)] | X = 1


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


class CardTypesOp(Strict):
    """ "You may exile a creature card from your graveyard. If you do, ...": the card types
    the card may be of (any of them; empty: any card)."""

    types: list[CARD_TYPE] = []


class CostOp(Strict):
    cost: str

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: str) -> str:
        parse_mana_cost(v)
        return v


class CounterUnlessOp(CostOp):
    """Counter a spell or ability unless its controller pays `cost`: the one that
    triggered this ability (ward), or with `what: target` the spell this one targets."""

    what: Literal["target"] | None = None


class ColorsOp(Strict):
    colors: list[COLOR_NAMES]


class EmptyOp(Strict):
    pass


class PreventOp(Strict):
    """ "Prevent the next 3 damage that would be dealt to any target this turn" (615.7)."""

    amount: int = Field(ge=1, le=100)
    to: REFS


class PlayerOp(Strict):
    who: REFS


class TappedOp(Strict):
    # "... to the battlefield tapped".
    tapped: bool = False
