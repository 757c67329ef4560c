"""Card definitions: the compiled, immutable form of the YAML card data.

Abilities are structured data, never parsed English. The YAML schema lives in
`carddb.py` (pydantic); this module holds the small frozen value types the rules engine
reads on its hot paths.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from .constants import (
    ALL_COLORS,
    COLOR_BITS,
    CREATURE,
    L_ABILITY,
    L_COLOR,
    L_CONTROL,
    L_PT_MOD,
    L_PT_SET,
    L_PT_SWITCH,
    L_TYPE,
)
from .frozen import Frozen


class CardDataError(ValueError):
    """Malformed card, deck or token data; the message names the file, entry and field."""


# --------------------------------------------------------------------------- mana costs

_SYMBOL: Final = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True, slots=True)
class ManaCost(Frozen):
    generic: int = 0
    pips: tuple[int, ...] = ()  # one color bit per colored symbol, e.g. {G}{G} -> (16, 16)
    text: str = ""
    # {X} symbols (CR 107.3): the caster announces X (601.2b) and pays x * X more generic
    # mana. Everywhere but on the stack X is 0 (202.3e), so `mv` leaves it out.
    x: int = 0

    @property
    def mv(self) -> int:
        return self.generic + len(self.pips)

    def __bool__(self) -> bool:
        return self.generic > 0 or bool(self.pips) or self.x > 0

    def with_x(self, value: int) -> ManaCost:
        """The cost to pay once X is `value` (CR 601.2f): X's mana is generic."""
        if not self.x:
            return self
        return ManaCost(self.generic + self.x * value, self.pips, self.text, 0)

    def less(self, n: int) -> ManaCost:
        """This cost reduced by {n} (CR 601.2f: a reduction reduces only the generic
        part, never below zero)."""
        generic = max(0, self.generic - n)
        return ManaCost(generic, self.pips, _mana_text(generic, list(self.pips), self.x), self.x)

    def plus(self, other: ManaCost) -> ManaCost:
        """This cost and an additional one, as one total cost (CR 601.2f: a kicker cost
        added to the mana cost)."""
        return ManaCost(
            self.generic + other.generic, self.pips + other.pips, self.text + other.text, self.x
        )


NO_MANA: Final = ManaCost()


@dataclass(frozen=True, slots=True)
class SacCost(Frozen):
    """A spell's cost that sacrifices permanents instead of paying mana: an alternative
    cost ("You may sacrifice two Mountains rather than pay this spell's mana cost", CR
    118.9) or flashback's ("Flashback—Sacrifice a Mountain", 702.34a). How many, and of
    which card types (a mask) or subtype; `text` is the cost as Oracle words it
    ("sacrifice two Mountains")."""

    count: int = 1
    types: int = 0
    subtype: str = ""
    text: str = ""


@dataclass(frozen=True, slots=True)
class Cost(Frozen):
    """The cost of an activated ability (CR 602.1a) or an extra cost."""

    mana: ManaCost = NO_MANA
    tap: bool = False
    sacrifice_self: bool = False
    text: str = ""
    # "Discard this card": an ability with this cost is activated from its owner's hand
    # (cycling, CR 702.29a), never from the battlefield.
    discard_self: bool = False
    # Ninjutsu's "Reveal this card from your hand, Return an unblocked attacker you control
    # to hand" (CR 702.49a): activated from the hand, while an unblocked attacker of its
    # controller's exists.
    ninjutsu: bool = False
    # Plot's "exile this card from your hand" (CR 702.170a): a special action (116.2k),
    # taken from the hand without the stack; the card becomes plotted.
    plot: bool = False
    # "Sacrifice a creature" / "an artifact or land" (a mask of card types), "another"
    # (`sac_other`: not the source), "Discard a card" (`discard`): a permanent or a card
    # chosen as the costs are paid (CR 602.2b, 601.2h).
    sac_types: int = 0
    sac_other: bool = False
    discard: bool = False
    # "Pay 2 life" (CR 119.4): payable only by a player with at least that much life.
    pay_life: int = 0
    # "Return a Forest you control to its owner's hand": the permanent (of these card
    # types or this subtype) is chosen as the costs are paid (CR 602.2b), as a sacrifice is.
    returned: SacCost | None = None

    @property
    def from_hand(self) -> bool:
        """Whether an ability with this cost is activated from its card's owner's hand."""
        return self.discard_self or self.ninjutsu or self.plot


def parse_mana_cost(text: str) -> ManaCost:
    """Parse '{2}{G}{G}' (no tap symbol). Raises ValueError on anything else."""
    cost = parse_cost(text)
    if cost.tap:
        raise ValueError(f"a mana cost cannot contain {{T}}: {text!r}")
    return cost.mana


def parse_cost(text: str) -> Cost:
    """Parse '{1}{R}', '{T}', '{1}, {T}' into a Cost. Raises ValueError naming the bad part."""
    s = text.replace(",", " ").strip()
    pos = 0
    generic = 0
    pips: list[int] = []
    tap = False
    xs = 0
    for m in _SYMBOL.finditer(s):
        if s[pos : m.start()].strip():
            raise ValueError(f"unexpected text {s[pos : m.start()].strip()!r} in cost {text!r}")
        pos = m.end()
        sym = m.group(1)
        if sym.isdigit():
            generic += int(sym)
        elif sym in COLOR_BITS:
            pips.append(COLOR_BITS[sym])
        elif sym in HYBRID_SYMBOLS:
            # A hybrid symbol ({W/U}) is one pip either color pays (CR 107.4e): its mask
            # holds both colors, which the payment's matching reads as "either".
            pips.append(HYBRID_SYMBOLS[sym])
        elif sym == "C":
            # Colorless-specific mana; no card in the sets needs it yet.
            raise ValueError(f"the {{C}} cost symbol is not supported: {text!r}")
        elif sym == "X":
            xs += 1
        elif sym == "T":
            if tap:
                raise ValueError(f"{{T}} appears twice in cost {text!r}")
            tap = True
        else:
            raise ValueError(f"unknown mana symbol {{{sym}}} in cost {text!r}")
    if s[pos:].strip():
        raise ValueError(f"unexpected text {s[pos:].strip()!r} in cost {text!r}")
    if not s and text.strip():
        raise ValueError(f"malformed cost {text!r}")
    # Colored pips are kept in WUBRG order so equal costs compare equal.
    if xs and tap:
        raise ValueError(f"{{X}} in an ability's cost is not supported: {text!r}")
    mana = ManaCost(generic, tuple(sorted(pips)), _mana_text(generic, pips, xs), xs)
    return Cost(mana, tap, False, text)


# The ten two-color hybrid symbols as Oracle text writes them (CR 107.4e), by color mask.
HYBRID_SYMBOLS: Final = {
    f"{a}/{b}": COLOR_BITS[a] | COLOR_BITS[b]
    for a, b in ("WU", "UB", "BR", "RG", "GW", "WB", "UR", "BG", "RW", "GU")
}
_PIP_TEXT: Final = {
    **{bit: c for c, bit in COLOR_BITS.items()},
    **{mask: sym for sym, mask in HYBRID_SYMBOLS.items()},
}


def _mana_text(generic: int, pips: list[int], xs: int = 0) -> str:
    out = "{X}" * xs + (f"{{{generic}}}" if generic or not (pips or xs) else "")
    return out + "".join(f"{{{_PIP_TEXT[p]}}}" for p in sorted(pips))


# --------------------------------------------------------------------------- filters


@dataclass(frozen=True, slots=True)
class Filter(Frozen):
    """Matches objects by characteristics and relation to a source.

    Every field is a conjunction; `types`/`subtypes`/`colors` match any of the listed.
    Color and land-type words are data, so text-changing effects can rewrite them.
    """

    types: int = 0  # any of these card types
    not_types: int = 0
    subtypes: frozenset[str] = frozenset()  # any of
    not_subtypes: frozenset[str] = frozenset()
    supertypes: int = 0
    not_supertypes: int = 0
    colors: int = 0  # any of these colors
    not_colors: int = 0  # none of these colors
    controller: str | None = None  # "you" | "opponent" (relative to the source's controller)
    owner: str | None = None
    other: bool = False  # not the source itself
    relation: str | None = None  # "enchanted" | "self"
    # Mana value bounds (CR 202.3), inclusive; -1: no upper bound. A spell on the stack
    # counts its announced X (CR 202.3e).
    min_mana_value: int = 0
    max_mana_value: int = -1
    # "with mana value X or less, where X is the number of [subtype] you control": the
    # subtype; read by a spell target's check, where the game is known.
    max_mv_count: str = ""
    keywords: frozenset[str] = frozenset()  # any of ("creature with flying")
    not_keywords: frozenset[str] = frozenset()  # none of ("creature without flying")
    # "attacking or blocking creature": read by targeting, where combat is known.
    in_combat: bool = False
    # "attacking creature" / "blocking creature" (506.4): read by targeting too.
    attacking: bool = False
    blocking: bool = False
    # "tapped creature" / "untapped creature": a status (CR 110.5), read by targeting too.
    tapped: bool = False
    untapped: bool = False
    # "with power N or greater / N or less", inclusive; -1: no bound.
    min_power: int = -1
    max_power: int = -1

    def words(self) -> tuple[int, frozenset[str]]:
        return self.colors | self.not_colors, self.subtypes | self.not_subtypes


ANY_FILTER: Final = Filter()


# Target kinds: what a target may be (CR 115).
TK_ANY: Final = "any"  # creature, player or planeswalker (CR 115.4)
TK_CREATURE: Final = "creature"
TK_PLAYER: Final = "player"
TK_OPPONENT: Final = "opponent"  # "target opponent": a player, never the source's controller
TK_PERMANENT: Final = "permanent"
TK_LAND: Final = "land"
TK_SPELL: Final = "spell"
TK_CARD_IN_GRAVEYARD: Final = "graveyard_card"
TK_AURA: Final = "aura"
TK_ENCHANTMENT: Final = "enchantment"


@dataclass(frozen=True, slots=True)
class TargetSpec(Frozen):
    kind: str
    filter: Filter = ANY_FILTER
    text: str = ""
    # One of the N of "up to N target ..." (CR 601.2c): the controller may stop choosing
    # at it; the chosen objects differ (115.3). 0: a target that must be chosen.
    up_to: int = 0

    @property
    def allows_player(self) -> bool:
        return self.kind in (TK_ANY, TK_PLAYER, TK_OPPONENT)


# --------------------------------------------------------------------------- abilities


@dataclass(frozen=True, slots=True)
class Op(Frozen):
    """One instruction of an effect: `name` plus validated parameters."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:  # args are never mutated after loading
        return hash((self.name, repr(sorted(self.args.items(), key=lambda kv: kv[0]))))


@dataclass(frozen=True, slots=True)
class SpellAbility(Frozen):
    """What an instant or sorcery does on resolution (CR 608.2). A modal spell ("Choose
    one —", CR 700.2) has no targets or effects of its own but `modes`, each a
    SpellAbility; the caster chooses one as the spell is cast (601.2b), and the spell on
    the stack then has that mode's targets and effects."""

    targets: tuple[TargetSpec, ...] = ()
    effects: tuple[Op, ...] = ()
    text: str = ""
    modes: tuple[SpellAbility, ...] = ()
    # "Choose one or both —" (CR 700.2): the last of `modes` is the first two together.
    one_or_both: bool = False


@dataclass(frozen=True, slots=True)
class ManaAbility(Frozen):
    """{T}: add one mana of one of `produce` (CR 605). `pain` damage to you when it
    makes colored mana (a painland). `amount` mana of the one kind `produce` names ("{T}:
    Add {C}{C}."), or one for each permanent on the battlefield that `per` counts ("Add
    {G} for each Elf on the battlefield": an `opschema.CountOf`'s fields as sorted pairs,
    lists as tuples, so that the ability stays a hashable value)."""

    cost: Cost
    produce: int  # MANA_BITS mask of choices
    pain: int = 0
    text: str = ""
    kind: str = "mana"
    amount: int = 1
    per: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ActivatedAbility(Frozen):
    cost: Cost
    targets: tuple[TargetSpec, ...] = ()
    effects: tuple[Op, ...] = ()
    timing: str | None = None  # None | "your_turn" | "sorcery"
    text: str = ""
    kind: str = "activated"
    # "Activate only once each turn" (CR 602.5b): the permanent remembers the turn.
    once_each_turn: bool = False


@dataclass(frozen=True, slots=True)
class TriggeredAbility(Frozen):
    # A name in vocab.TRIGGER_EVENTS, or next_end_step, next_upkeep (delayed), or madness
    # (the keyword's own trigger, 702.35a).
    event: str
    whose: str = "you"  # for step triggers: "you" | "enchanted_controller" | "each"
    condition: tuple[str, ...] = ()  # intervening "if" clauses (CR 603.4)
    targets: tuple[TargetSpec, ...] = ()
    effects: tuple[Op, ...] = ()
    text: str = ""
    kind: str = "triggered"
    # `you_sacrifice`: the creature type the sacrificed permanent has ("" for any).
    subtype: str = ""
    # `permanent_enters`: the entering permanent's filter (relative to the source), and
    # whether the source's own entering triggers it too ("this creature or another ...");
    # `blocks`: the blocked creature's ("whenever this creature blocks a creature with
    # flying").
    filter: Filter | None = None
    or_self: bool = False
    # An ability word heading it (CR 207.2c: no rules meaning): for its text.
    word: str = ""


# Intervening "if" clauses about the counters a creature had as it died (last known
# information, checked as the ability triggers: persist's and undying's), and the kind of
# counter each names: the condition holds when it had none.
LKI_COUNTER_CONDITIONS: Final = {"had_no_minus_counters": "-1/-1", "had_no_plus_counters": "+1/+1"}


def dies_return_ability(counter: str, keyword: str) -> TriggeredAbility:
    """Persist (CR 702.79a, `-1/-1`) and undying (702.93a, `+1/+1`): "When this creature
    dies, if it had no [counter] counters on it, return it to the battlefield under its
    owner's control with a [counter] counter on it." """
    cond = "had_no_minus_counters" if counter == "-1/-1" else "had_no_plus_counters"
    return TriggeredAbility(
        "dies", condition=(cond,), effects=(Op("return_dead", {"counter": counter}),), text=keyword
    )


PERSIST: Final = dies_return_ability("-1/-1", "Persist")
UNDYING: Final = dies_return_ability("+1/+1", "Undying")


# The initiative's inherent triggered abilities (CR 725.2). They have no source; the engine
# puts them on the stack in the name of the card that gave the initiative (or of the
# creature that took it), as it does a delayed trigger in the name of the card that made it.
VENTURE: Final = TriggeredAbility(
    "initiative", effects=(Op("venture", {}),), text="venture into Undercity"
)
TAKE_INITIATIVE: Final = TriggeredAbility(
    "initiative",
    effects=(Op("take_initiative", {"who": "damaging_player"}),),
    text="that player takes the initiative",
)


@dataclass(frozen=True, slots=True)
class Room(Frozen):
    """A room of a dungeon (CR 309.4): its name, the rooms it leads to (their indices in
    the dungeon; none for the bottommost room) and its room ability, a triggered ability
    that triggers as a player's venture marker moves into it (309.4c)."""

    name: str
    leads_to: tuple[int, ...]
    ability: TriggeredAbility


@dataclass(frozen=True, slots=True)
class Component(Frozen):
    """One layer's part of a continuous effect (CR 613.1). `arg` depends on `op`."""

    layer: int
    op: str
    arg: Any = None


@dataclass(frozen=True, slots=True)
class Count(Frozen):
    """A number a characteristic-defining ability reads from the game: `what` counted
    (`card_types_in_graveyards`: the card types among cards in all graveyards), plus
    `plus`."""

    what: str
    plus: int = 0


@dataclass(frozen=True, slots=True)
class CharDef(Frozen):
    """What a characteristic-defining ability defines (card data `cda:`): power and/or
    toughness as counts (for example card types in graveyards, and that plus 1)."""

    power: Count | None = None
    toughness: Count | None = None


@dataclass(frozen=True, slots=True)
class StaticAbility(Frozen):
    """A static ability: continuous-effect components applied to `affects`, and/or rules
    modifications (`rules`: e.g. "cant_attack", "cant_block") for the affected objects."""

    affects: Filter
    components: tuple[Component, ...] = ()
    rules: frozenset[str] = frozenset()
    cda: CharDef | None = None  # a characteristic-defining ability (CR 604.3)
    text: str = ""
    kind: str = "static"
    # Also affects spells its controller controls and nonland cards they own outside the
    # battlefield ("The same is true for spells you control and nonland cards you own").
    everywhere: bool = False
    # A mana-spending rule for its controller (CR 609.4b): (colors whose mana may be spent
    # as any color, whether other mana is spent only as colorless).
    spend: tuple[int, bool] | None = None

    def layers(self) -> frozenset[int]:
        return frozenset(c.layer for c in self.components)

    @property
    def defines_pt(self) -> bool:
        """A characteristic-defining ability that defines power and toughness: a copy
        effect that sets them to specific values does not copy it (CR 707.9d)."""
        return self.cda is not None and (
            self.cda.power is not None or self.cda.toughness is not None
        )

    # "During your turn" / "Otherwise" (not during its controller's turn): whose turn it
    # must be for the ability to apply ("your_turn", "not_your_turn"), or "" for always.
    during: str = ""
    # "... as long as <condition>" (CR 611.3a): conditions of its controller's that must
    # all hold for it to apply (vocab.STATIC_CONDITIONS), or () for always.
    condition: tuple[str, ...] = ()


Ability = ManaAbility | ActivatedAbility | TriggeredAbility | StaticAbility


# --------------------------------------------------------------------------- card


@dataclass(frozen=True, slots=True, eq=False)
class CardDef(Frozen):
    """A card's printed characteristics and abilities (immutable; shared by all games)."""

    name: str
    types: int
    subtypes: frozenset[str] = frozenset()
    supertypes: int = 0
    colors: int = 0
    cost: ManaCost | None = None
    power: int | None = None
    toughness: int | None = None
    keywords: frozenset[str] = frozenset()
    abilities: tuple[Ability, ...] = ()
    spell: SpellAbility | None = None
    enchant: TargetSpec | None = None  # Auras (CR 303.4)
    token: bool = False
    # "You may have this enter as a copy of any creature on the battlefield" (CR 707.5),
    # with an optional copy exception for power/toughness ("except it's 7/7", CR 707.9b).
    enters_as_copy: bool = False
    copy_except_pt: tuple[int, int] | None = None
    text: str = ""
    set_name: str = ""
    index: int = 0  # position in the format's card list (stable ids for encoders)
    # Two-part cards (pocket): the whole card has `halves` (top, bottom); each half, and the
    # card's face-down side, names the whole card in `half_of` (as a bestowed Aura does:
    # each is the card again once it leaves the battlefield and the stack).
    halves: tuple[CardDef, ...] = ()
    half_of: str = ""
    # A reaction (pocket instant): when it may be played, "opponent_plays_card" or
    # "during_attack".
    reaction: str = ""
    # "This permanent enters tapped" (CR 614.1c): a replacement effect of the card's own,
    # applied as it enters the battlefield from anywhere.
    enters_tapped: bool = False
    # "... enters tapped unless a player has N or less life" (614.1c): N, or -1.
    enters_tapped_unless_life: int = -1
    # The indexes (as `objects.activated_at` numbers them) of the abilities activated from
    # the hand, whose cost discards the card (cycling, CR 702.29a): derived when loading,
    # so that a priority check reads one field per card in hand.
    from_hand: tuple[int, ...] = ()
    # "This creature enters with two +1/+1 counters on it" (CR 614.1c): (kind, count).
    enters_with: tuple[tuple[str, int], ...] = ()
    # Kicker (CR 702.33a): an additional cost the caster may pay as the spell is cast, and
    # the counters a kicked creature enters with ("If this creature was kicked, it enters
    # with two +1/+1 counters on it", 702.33d/614.1c).
    kicker: ManaCost | None = None
    kicked_enters_with: tuple[tuple[str, int], ...] = ()
    # "This permanent enters with X +1/+1 counters on it" (107.3m): the kind, or "".
    enters_with_x: str = ""
    # Bestow (CR 702.103a): the cost to cast the card as an Aura. `bestowed` marks the
    # card's Aura form (`CardSet.bestowed`): an Aura enchantment with enchant creature and
    # no creature type, which names the card in `half_of` to become it again.
    bestow: ManaCost | None = None
    bestowed: bool = False
    # "As an additional cost to cast this spell, sacrifice a creature" (or "an artifact or
    # creature": a mask of card types) or "discard a card" (CR 601.2b, 601.2h): paid with
    # the rest of the spell's cost, after its targets; without a permanent or another card
    # to give, the spell can't be cast.
    sacrifice_types: int = 0
    discard_cost: bool = False
    # Flashback (CR 702.34a): the cost to cast this instant or sorcery from its owner's
    # graveyard; cast that way, it is exiled whenever it would leave the stack.
    flashback: ManaCost | None = None
    # Flashback's cost when it sacrifices permanents instead (`flashback` is then no mana),
    # and an alternative cost that does (CR 118.9: the caster chooses, as the spell is
    # cast, to pay it rather than the mana cost).
    flashback_sacrifice: SacCost | None = None
    alt_sacrifice: SacCost | None = None
    # Madness (CR 702.35a) and its cost: discarded, the card is exiled instead, and its
    # owner may cast it for that cost as the madness trigger resolves.
    madness: ManaCost | None = None
    # Job select: "When this Equipment enters, create a 1/1 colorless creature token, then
    # attach this to it" (its ability, `carddb.job_select_ability`): the token's name.
    job_select: str = ""
    # Plot (CR 702.170a) and its cost: a special action exiles it from the hand; on a
    # later turn it may be cast from exile without paying its mana cost, as a sorcery.
    plot: ManaCost | None = None
    # Affinity for [a card type or basic land type] (CR 702.41a): casting it costs {1} less
    # for each permanent of that type its caster controls ("artifact", "Swamp").
    affinity: str = ""
    # "This spell costs {N} less to cast if you control a [kind]" (CR 601.2f): N, and the
    # kinds, each of which a permanent its caster controls must be.
    costs_less: int = 0
    costs_less_if: tuple[TargetSpec, ...] = ()
    # Its text asks whether it entered the battlefield this turn: its permanent keeps the
    # turn it entered (`Perm.entered_turn`; others leave it unset, as their hash does).
    asks_entered: bool = False
    # Buyback (CR 702.27a): an optional additional cost; paid, the spell goes to its
    # owner's hand as it resolves instead of the graveyard.
    buyback: ManaCost | None = None
    # Convoke (CR 702.51a): its caster's untapped creatures help pay for it, each tapped
    # paying {1} or one mana of its color.
    convoke: bool = False
    # Changeling (CR 702.73a): a characteristic-defining ability, "this object is every
    # creature type", in every zone.
    changeling: bool = False
    # Bloodthirst N (CR 702.54a): "If an opponent was dealt damage this turn, this permanent
    # enters with N +1/+1 counters on it" (0: none).
    bloodthirst: int = 0
    # Toxic N (CR 702.164a): N, which its static ability (the rule "toxic") reads.
    toxic: int = 0

    @property
    def mv(self) -> int:
        return self.cost.mv if self.cost else 0

    @property
    def is_creature(self) -> bool:
        return bool(self.types & CREATURE)

    def __repr__(self) -> str:
        return f"CardDef({self.name!r})"


def colors_of_cost(cost: ManaCost | None) -> int:
    """A card's color comes from its mana cost (CR 202.2)."""
    if cost is None:
        return 0
    mask = 0
    for p in cost.pips:
        mask |= p
    return mask & ALL_COLORS


# Layers a component op belongs to (validated when loading).
STATIC_OPS: Final = {
    "control": L_CONTROL,
    "add_types": L_TYPE,
    "add_subtypes": L_TYPE,
    "all_creature_types": L_TYPE,
    "set_land_type": L_TYPE,
    "set_colors": L_COLOR,
    "add_keywords": L_ABILITY,
    "add_abilities": L_ABILITY,
    "lose_all_abilities": L_ABILITY,
    "set_pt": L_PT_SET,
    "set_pt_mv": L_PT_SET,
    "modify_pt": L_PT_MOD,
    "switch_pt": L_PT_SWITCH,
    "text": 3,
}


def spell_targets(cd: CardDef) -> tuple[TargetSpec, ...]:
    """What casting `cd` targets: its spell's targets, or an Aura's enchant target."""
    if cd.spell is not None:
        return cd.spell.targets
    if cd.enchant is not None:
        return (cd.enchant,)
    return ()


@dataclass(frozen=True)
class CardSet(Frozen):
    name: str
    cards: dict[str, CardDef]
    tokens: dict[str, CardDef]
    path: str
    # Two-part cards (pocket): whole card name -> its face-down side (a mana source).
    face_down: dict[str, CardDef] = field(default_factory=dict)
    # Observation table sizes the set asks for (LAYOUT_LIMIT_KEYS): a set whose games hold
    # more permanents than the default layout gives itself room without changing the
    # layouts of other sets.
    layout: dict[str, int] = field(default_factory=dict)
    # Whether some card or token of the set has a "whenever you cast a noncreature spell"
    # trigger (prowess): only then does casting look for one.
    cast_triggers: bool = False
    # The same for a spell's own "When you cast this spell".
    cast_self_triggers: bool = False
    # The same for landfall ("whenever a land you control enters"): only then does a land
    # entering look for one.
    landfall_triggers: bool = False
    # The same for "whenever another creature you control enters" (`permanent_enters`).
    enters_triggers: bool = False
    # The same for "whenever a creature you control attacks alone" (exalted).
    alone_triggers: bool = False
    # The same for "whenever ~ becomes blocked", "blocks or becomes blocked" and flanking:
    # only then does declaring blockers look for them.
    block_triggers: bool = False
    # Whether some card of the set has flashback (CR 702.34a): only then does a priority
    # decision look for cards to cast from the graveyard.
    flashback: bool = False
    # The same for "becomes the target of a spell or ability" (any, or an opponent's: ward):
    # only then does a spell or ability that targets look for them.
    target_triggers: bool = False
    # The same for "when you draw your third card in a turn" (from the graveyard): only
    # then does a game count each player's draws this turn (`Game.draws`).
    draw_triggers: bool = False
    # The same for "when this permanent leaves the battlefield": only then does a permanent
    # leaving look for one.
    leave_triggers: bool = False
    # The same for static abilities that apply only during (or outside) their controller's
    # turn: only then does a turn's start recompute the characteristics.
    turn_statics: bool = False
    # Whether some card of the set has plot (CR 702.170a): only then does a game keep the
    # plotted cards (`Game.plotted`) and a priority decision look for them in exile.
    plot: bool = False
    # The same for "whenever you sacrifice another ...": only then does a sacrifice look.
    sacrifice_triggers: bool = False
    # Whether some static ability of the set applies "as long as" a condition of its
    # controller's holds: only then does every zone move recompute the characteristics
    # (a card put into a graveyard or a hand can change whether one holds).
    conditional_statics: bool = False
    # Whether some card of the set exiles cards that may be played for a while (`impulse`):
    # only then does a game keep them (`Game.playable`) and a priority look in exile.
    impulse: bool = False
    # Whether some spell or triggered ability of the set adds mana ("Add {B}{B}{B}."), or
    # a mana ability makes more than one mana ("{T}: Add {C}{C}.", what a payment leaves
    # unspent goes to the pool): only then does a game keep the players' mana pools
    # (`Game.mana_pool`, CR 106.4).
    add_mana: bool = False
    # Whether some card of the set prevents "the next N damage" (`prevent_damage`): only
    # then does a game keep prevention shields (`Game.prevent_next`, CR 615.7).
    prevent_next: bool = False
    # The same for "if that creature would die this turn, exile it instead"
    # (`exile_if_dies`): only then does a game keep the marked permanents.
    exile_if_dies: bool = False
    # The same for "it doesn't untap during its controller's next untap step"
    # (`skip_untap`).
    skip_untap: bool = False
    # Cards with bestow (CR 702.103a): card name -> its Aura form, which a spell cast for
    # its bestow cost is while on the stack and on the battlefield (a game's `cdef` entry
    # for the card is swapped, as for a split card's half). Empty: no card has bestow.
    bestowed: dict[str, CardDef] = field(default_factory=dict)
    # Whether some card of the set exiles a card that its linked "leaves the battlefield"
    # ability returns: only then does a game keep them (`Game.linked_exile`).
    linked_exile: bool = False
    # Whether some card of the set has "whenever you cast a spell" (extort): only then does
    # casting a creature spell look for cast triggers.
    cast_spell_triggers: bool = False
    # Whether some card of the set has infect or toxic: only then does a game keep each
    # player's poison counters (`Game.poison`).
    poison: bool = False
    # Whether some card of the set has bloodthirst: only then does a game keep which
    # players were dealt damage this turn (`Game.damaged_turn`).
    bloodthirst: bool = False
    # Undercity's rooms, first room first (CR 725, 309), where some card of the set takes
    # the initiative: only then does a game keep who has it and each player's room
    # (`Game.initiative`). Empty otherwise.
    undercity: tuple[Room, ...] = ()

    def get(self, name: str) -> CardDef:
        try:
            return self.cards[name]
        except KeyError:
            raise CardDataError(f"unknown card {name!r} in set {self.name!r}") from None
