"""The game's state fields, declared once.

`FIELDS` lists every attribute a `Game` holds: its type, how a new game starts it, how
`clone()` copies it, and how `state_hash()` reads it, or why the hash leaves it out.
`Game.__slots__`, its typed fields (`GameFields`), its initialiser, `clone()` and the hashed
parts are all built from this table, so a new field is one line here. `engine.state`, the
typed fields and the straight-line code of the initialiser, `clone()` and the hash, is
generated from this table as source text (`MTG_ENV_PURE=1 python -m mtg_env.engine.fields >
mtg_env/engine/state.py`: a compiled module cannot run as `-m`), and a test checks that it
is current.

The order of the hashed fields is the order of `state_hash()`'s parts: never reorder them
(recorded traces and replays compare hashes).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .chars import Effect
from .decisions import Announce, Context, Targets
from .objects import StackItem

# How a field is copied by clone(); `{}` is the source game's field.
SHARE: Final = "{}"  # immutable, or never mutated in place
LIST: Final = "{}[:]"
PAIR: Final = "[{0}[0][:], {0}[1][:]]"  # one list per seat
DICT: Final = "dict({})"
SET: Final = "set({})"
# How a field enters the hash.
VALUE: Final = "{}"
TUPLE: Final = "tuple({})"
PAIR_TUPLE: Final = "tuple(map(tuple, {}))"


class Field(NamedTuple):
    name: str
    type: str  # its annotation (GameFields, engine.state)
    init: str  # a new game's value: an expression of init_state's parameters
    copy: str  # clone()'s copy of it, `{}` being the source's value
    hash: str | None  # its part of state_hash(), or None
    why: str = ""  # why the hash leaves it out


FIELDS: Final[tuple[Field, ...]] = (
    Field("format", "str", "fmt", SHARE, VALUE),
    Field(
        "rules", "FormatHooks", "rules", SHARE, None, "the format's rules object: given by `format`"
    ),
    Field("turn", "int", "0", SHARE, VALUE),
    Field("active", "int", "0", SHARE, VALUE),
    Field("step", "int", "PREGAME", SHARE, VALUE),
    Field("first_player", "int", "0", SHARE, VALUE),
    Field("lands_played", "int", "0", SHARE, VALUE),
    Field("clock", "int", "1", SHARE, VALUE),  # the timestamp counter (CR 613.7)
    Field("last_turn_start", "list[int]", "[-1, -1]", LIST, TUPLE),
    Field("turn_start_clock", "int", "0", SHARE, VALUE),
    Field("life", "list[int]", "[rules.starting_life, rules.starting_life]", LIST, TUPLE),
    Field("lost", "list[bool]", "[False, False]", LIST, TUPLE),
    Field("drew_from_empty", "list[bool]", "[False, False]", LIST, TUPLE),
    Field("rng", "Rng", "Rng(seed)", "{}.copy()", "{}.key()"),
    # Objects: card definition, owner, zone and object id by integer card id.
    Field("cdef", "list[CardDef]", "[]", LIST, "tuple(c.name for c in {})"),
    Field("owner", "list[int]", "[]", LIST, TUPLE),
    Field("zone", "list[int]", "[]", LIST, TUPLE),
    Field("oid", "list[int]", "[]", LIST, TUPLE),
    Field("next_oid", "int", "1", SHARE, VALUE),
    Field("library", "list[list[int]]", "[[], []]", PAIR, PAIR_TUPLE),
    Field("hand", "list[list[int]]", "[[], []]", PAIR, PAIR_TUPLE),
    Field("graveyard", "list[list[int]]", "[[], []]", PAIR, PAIR_TUPLE),
    Field("exile", "list[list[int]]", "[[], []]", PAIR, PAIR_TUPLE),
    Field("battlefield", "list[int]", "[]", LIST, TUPLE),
    Field(
        "perm",
        "dict[int, Perm]",
        "{}",
        "{{c: p.copy() for c, p in {}.items()}}",
        "tuple({0}[c].state() for c in sorted({0}))",
    ),
    Field(
        "stack",
        "list[StackItem]",
        "[]",
        "[items[id(it)] for it in {}]",
        "tuple(it.state() for it in {})",
    ),
    Field(
        "effects", "list[Effect]", "[]", LIST, "tuple(effect_state(e) for e in {})"
    ),  # never mutated
    Field("triggers", "list[Trigger]", "[]", LIST, "tuple(t.state() for t in {})"),  # never mutated
    Field("delayed", "list[Trigger]", "[]", LIST, "tuple(t.state() for t in {})"),
    # Combat.
    Field("attackers", "dict[int, int]", "{}", DICT, "tuple(sorted({}.items()))"),
    Field("blocked", "set[int]", "set()", SET, "tuple(sorted({}))"),
    Field("blockers", "dict[int, int]", "{}", DICT, "tuple(sorted({}.items()))"),
    Field(
        "fs_participants",
        "set[int] | None",
        "None",
        "None if {0} is None else set({0})",
        "None if {0} is None else tuple(sorted({0}))",
    ),
    Field("fs_step", "bool", "False", SHARE, VALUE),
    Field("fog_turn", "int", "-1", SHARE, VALUE),
    # The continuation stack and the pending decision.
    Field("k", "list[tuple[Any, ...]]", "[]", LIST, TUPLE),
    Field("_decision", "Decision | None", "None", SHARE, VALUE),
    Field(
        "ctx",
        "Context | None",
        "None",
        "copy_ctx({}, items)",
        "None if {0} is None else {0}.state()",
    ),
    Field(
        "res",
        "Resolution | None",
        "None",
        "None if {0} is None else {0}.copy(items.get(id({0}.item)) or {0}.item.copy())",
        "None if {0} is None else ({0}.item.oid, {0}.state())",
    ),
    Field("passes", "int", "0", SHARE, VALUE),
    Field("mull_count", "list[int]", "[0, 0]", LIST, TUPLE),
    Field("mull_kept", "list[bool]", "[False, False]", LIST, TUPLE),
    Field("mull_round", "list[int]", "[]", LIST, TUPLE),
    Field("over", "bool", "False", SHARE, VALUE),
    Field("winner", "int | None", "None", SHARE, VALUE),
    Field("truncated", "bool", "False", SHARE, VALUE),
    Field("n_decisions", "int", "0", SHARE, VALUE),
    # The cards each player drew this turn, counted only in a card set that asks
    # ("when you draw your third card in a turn", `CardSet.draw_triggers`), else None.
    Field(
        "draws",
        "list[int] | None",
        "[0, 0] if cardset.draw_triggers else None",
        "None if {0} is None else {0}[:]",
        None,
        "hashed by state_hash where it is counted, so that other sets' hashes stay as they were",
    ),
    # The plotted cards in exile (CR 702.170a): card id -> (its object id then, the turn it
    # was plotted), kept only in a card set with plot (`CardSet.plot`), else None.
    Field(
        "plotted",
        "dict[int, tuple[int, int]] | None",
        "{} if cardset.plot else None",
        "None if {0} is None else dict({0})",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # Cards in exile their owner may play for a while ("Exile the top card of your library.
    # Until end of turn, you may play that card."): card id -> (its object id then, the
    # player, the last turn it may be played), kept only in a card set with such an effect
    # (`CardSet.impulse`), else None.
    Field(
        "playable",
        "dict[int, tuple[int, int, int]] | None",
        "{} if cardset.impulse else None",
        "None if {0} is None else dict({0})",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # Each player's mana pool (CR 106.4): the mana a spell or a triggered ability added, one
    # MANA_BITS colour bit a mana, emptied as each step ends (500.4). Kept only in a card
    # set with such an effect (`CardSet.add_mana`), else None: mana abilities pay costs
    # directly (engine.mana), never through a pool.
    Field(
        "mana_pool",
        "list[list[int]] | None",
        "[[], []] if cardset.add_mana else None",
        "None if {0} is None else [{0}[0][:], {0}[1][:]]",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # Prevention shields (CR 615.7, "Prevent the next 3 damage that would be dealt to any
    # target this turn"): a permanent's object id, or a player's ref (negative), -> the
    # damage still to prevent, emptied as the turn ends (514.2). Kept only in a card set
    # with such an effect (`CardSet.prevent_next`), else None.
    Field(
        "prevent_next",
        "dict[int, int] | None",
        "{} if cardset.prevent_next else None",
        "None if {0} is None else dict({0})",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # "It doesn't untap during its controller's next untap step" (502.3): the object ids of
    # the permanents so marked, each until its controller's next untap step. Kept only in
    # a card set with such an effect (`CardSet.skip_untap`), else None.
    Field(
        "skip_untap",
        "list[int] | None",
        "[] if cardset.skip_untap else None",
        "None if {0} is None else {0}[:]",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # "If that creature would die this turn, exile it instead" (614.1a): the object ids of
    # the permanents so marked, emptied as the turn ends (514.2). Kept only in a card set
    # with such an effect (`CardSet.exile_if_dies`), else None.
    Field(
        "exile_if_dies",
        "list[int] | None",
        "[] if cardset.exile_if_dies else None",
        "None if {0} is None else {0}[:]",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # Cards a permanent exiled for its linked "when this leaves the battlefield, return the
    # exiled card" ability (607.2a): the exiled card -> (the permanent's card, its object
    # id, the card's object id in exile). Kept only in a card set with such an effect
    # (`CardSet.linked_exile`), else None.
    Field(
        "linked_exile",
        "dict[int, tuple[int, int, int]] | None",
        "{} if cardset.linked_exile else None",
        "None if {0} is None else dict({0})",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # Which players were dealt damage this turn (bloodthirst, CR 702.54a), emptied as each
    # turn begins. Kept only in a card set with bloodthirst (`CardSet.bloodthirst`).
    Field(
        "damaged_turn",
        "list[bool] | None",
        "[False, False] if cardset.bloodthirst else None",
        "None if {0} is None else {0}[:]",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # Each player's poison counters (CR 122.1f): infect's damage to a player (702.90b) and
    # toxic's (702.164c). Kept only in a card set with infect or toxic (`CardSet.poison`).
    Field(
        "poison",
        "list[int] | None",
        "[0, 0] if cardset.poison else None",
        "None if {0} is None else {0}[:]",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # The initiative (CR 725): [the player who has it (-1: nobody yet), the card and the
    # object id its abilities are named after, player 0's and player 1's room of Undercity
    # (-1: not in it)]. Kept only in a card set where some card takes the initiative
    # (`CardSet.undercity`), else None.
    Field(
        "initiative",
        "list[int] | None",
        "[-1, -1, -1, -1, -1] if cardset.undercity else None",
        "None if {0} is None else {0}[:]",
        None,
        "hashed by state_hash where it is kept, so that other sets' hashes stay as they were",
    ),
    # The format's own state (pocket's reaction window, adventure's mana pool): the format
    # makes, copies and hashes it (Format.new_state, FormatState.copy, Format.hash_extras).
    Field(
        "format_state",
        "FormatState",
        "rules.new_state()",
        "{}.copy()",
        None,
        "the format hashes what it holds (Format.hash_extras)",
    ),
    # Not state of the game proper.
    Field("cardset", "CardSet", "cardset", SHARE, None, "given by `format`"),
    Field(
        "auto_pass", "bool", "auto_pass", SHARE, None, "an option of the caller, not of the game"
    ),
    Field(
        "max_decisions",
        "int | None",
        "max_decisions",
        SHARE,
        None,
        "an option; `truncated` is hashed",
    ),
    Field(
        "deck_names",
        "list[tuple[str, ...]]",
        "[(), ()]",
        SHARE,
        None,
        "the decks as given: cards are in `cdef`",
    ),
    Field(
        "lose_reason",
        "list[str]",
        '["", ""]',
        LIST,
        None,
        "words for people on why a player lost: the loss itself is `lost`",
    ),
    Field(
        "stray_tokens",
        "list[int]",
        "[]",
        LIST,
        None,
        "tokens that left the battlefield until SBAs remove them: given by `zone` and `cdef`",
    ),
    Field(
        "lki",
        "dict[int, tuple[int, Chars]]",
        "{}",
        DICT,
        None,
        "last known information of objects that left the battlefield (CR 608.2h), read "
        "through the object ids hashed stack items carry; left out, as it always was, so "
        "hashes recorded before stay comparable",
    ),
    # Caches derived from the fields above; shared by clones (never mutated in place).
    Field(
        "_chars",
        "dict[int, Chars]",
        "{}",
        SHARE,
        None,
        "cache: characteristics from the layer system",
    ),
    Field("_drv", "Derived | None", "None", SHARE, None, "cache: tables derived from `_chars`"),
    Field("_sba_ok", "Derived | None", "None", SHARE, None, "cache: no state-based action applies"),
    Field(
        "_offbf",
        "list[int]",
        "[0, 0]",
        SHARE,
        None,
        "cache: layer effects on cards off the battlefield",
    ),
    Field(
        "_spend",
        "list[tuple[int, bool] | None]",
        "[None, None]",
        SHARE,
        None,
        "cache: mana-spending rules from the layers",
    ),
    Field(
        "_dirty", "bool", "True", SHARE, None, "cache flag: the characteristics must be recomputed"
    ),
    Field(
        "_legal",
        "list[Action] | None",
        "None",
        SHARE,
        None,
        "cache: the legal actions of the pending decision",
    ),
    Field(
        "_events",
        "list[tuple[Any, ...]]",
        "[]",
        SHARE,
        None,
        "the event log, shared until written (copy on write)",
    ),
    Field("_ev_shared", "bool", "False", SHARE, None, "the event log's copy-on-write flag"),
)

SLOTS: Final = tuple(f.name for f in FIELDS)
HASHED: Final = tuple(f for f in FIELDS if f.hash is not None)


def copy_ctx(ctx: Context | None, items: dict[int, StackItem]) -> Context | None:
    """The context for a clone: contexts are immutable values, except that the stack item
    whose targets are being chosen is the clone's copy of it."""
    if isinstance(ctx, Targets):
        item = ctx.item
        return Targets(items.get(id(item)) or item.copy(), ctx.specs, ctx.done)
    if isinstance(ctx, Announce):
        item = ctx.item
        return Announce(items.get(id(item)) or item.copy(), ctx.what, ctx.choices)
    return ctx


def effect_state(e: Effect) -> tuple:
    return (e.ts, repr(e.components), e.affected, e.duration, e.source, e.source_oid, e.controller)


def generate() -> str:
    """The source of `engine.state`: `init_state`, `clone_state` and `hash_parts` written
    out field by field from FIELDS (straight-line code: a loop over the fields would make
    `clone()` 1.7x slower). `MTG_ENV_PURE=1 python -m mtg_env.engine.fields >
    mtg_env/engine/state.py` writes it; a test checks that the file is what this returns."""
    out = [
        '"""Generated from `engine.fields.FIELDS` by `MTG_ENV_PURE=1 python -m',
        "mtg_env.engine.fields`: do not edit (change FIELDS and regenerate; a test compares",
        'this file with the generator)."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any",
        "",
        "from .cards import CardDef, CardSet",
        "from .chars import Chars, Effect",
        "from .constants import PREGAME",
        "from .decisions import Context",
        "from .derived import Derived",
        "from .fields import copy_ctx, effect_state",
        "from .hooks import FormatHooks",
        "from .objects import Action, Decision, FormatState, Perm, Resolution, StackItem, Trigger",
        "from .rng import Rng",
        "",
        "",
        "class GameFields:",
        '    """The state fields of a game, typed (`rules` is the game\'s format, through the',
        "    hooks it implements: engine.hooks): the root of `Game`'s single chain of base",
        "    classes, so that the compiled build reads and writes them at fixed offsets. Never",
        '    instantiated alone."""',
        "",
        "    __slots__ = (",
    ]
    out += [f'        "{f.name}",' for f in FIELDS]
    out += ["    )", ""]
    out += [f"    {f.name}: {f.type}" for f in FIELDS]
    out += [
        "",
        "",
        "def init_state(",
        "    g: GameFields,",
        "    fmt: str,",
        "    rules: FormatHooks,",
        "    cardset: CardSet,",
        "    seed: int,",
        "    auto_pass: bool,",
        "    max_decisions: int | None,",
        ") -> None:",
    ]
    out += [f"    g.{f.name} = {f.init}" for f in FIELDS]
    out += [
        "",
        "",
        "def clone_state(s: GameFields, g: GameFields) -> None:",
        "    items = {id(it): it.copy() for it in s.stack}  # shared by stack, ctx and res",
    ]
    for f in FIELDS:
        if f.name == "_ev_shared":
            out.append("    g._ev_shared = s._ev_shared = True  # the log is shared now")
        else:
            out.append(f"    g.{f.name} = {f.copy.format('s.' + f.name)}")
    out += ["", "", "def hash_parts(s: GameFields) -> list:", "    return ["]
    out += [f"        {f.hash.format('s.' + f.name)}," for f in HASHED]  # type: ignore[union-attr]
    out.append("    ]")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(generate(), end="")
