"""Small mutable state records of a game: permanents, stack items, triggers, resolution.

All use `__slots__` and a hand-written `copy()` so that `Game.clone()` stays cheap.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from .cards import ActivatedAbility, CardDef, ManaAbility
from .constants import ACTION_NAMES, DECISION_NAMES

SPELL: Final = 0
ABILITY: Final = 1
TRIGGER: Final = 2


class Action(NamedTuple):
    """One legal move. `obj` is a card id (or a player ref for targets), `arg` an index."""

    kind: int
    obj: int = 0
    arg: int = 0

    def __repr__(self) -> str:
        return f"Action({ACTION_NAMES[self.kind]}, {self.obj}, {self.arg})"


# Legal actions are made once and shared (an Action is an immutable value): making a
# NamedTuple runs its interpreted `__new__`, the slowest call the compiled engine makes
# when it lists the legal actions at every decision.
_MADE: Final[dict[int, Action]] = {}
_SPAN: Final = 1 << 20  # obj and arg in (-_SPAN, _SPAN) are cached


def action(kind: int, obj: int = 0, arg: int = 0) -> Action:
    """`Action(kind, obj, arg)`, shared with every equal action made before."""
    if -_SPAN < obj < _SPAN and -_SPAN < arg < _SPAN:
        key = ((kind * 2 * _SPAN) + obj + _SPAN) * 2 * _SPAN + arg + _SPAN
        a = _MADE.get(key)
        if a is None:
            if len(_MADE) > 100_000:
                _MADE.clear()
            a = _MADE[key] = Action(kind, obj, arg)
        return a
    return Action(kind, obj, arg)


class Decision(NamedTuple):
    """What is pending: a decision `kind` for `player`, about `source` (a card id or -1),
    with readable `options` for choices."""

    kind: int
    player: int
    source: int = -1
    prompt: str = ""
    options: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return DECISION_NAMES[self.kind]


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the message says why."""


class FormatState:
    """What a format keeps per game beyond the shared fields, the way python-chess's
    `ThreeCheckBoard` keeps its check counts: the format makes it (`Format.new_state`),
    `clone()` copies it (`copy`) and the format hashes what it holds (`Format.hash_extras`).
    The shared fields hold no format's state. This base holds nothing, so the formats without
    state of their own share one instance."""

    __slots__ = ()

    def copy(self) -> FormatState:
        return self


NO_FORMAT_STATE: Final = FormatState()


class Perm:
    """Status of a permanent on the battlefield (CR 110)."""

    __slots__ = (
        "cid",
        "oid",
        "controller",  # the player who put it onto the battlefield (layer 2 may change it)
        "tapped",
        "damage",
        "deathtouched",  # dealt damage by a deathtouch source since SBAs were checked
        "counters",
        "attached",  # card id it is attached to, or -1
        "timestamp",
        "control_since",  # clock when its current controller began controlling it
        "last_ctrl",  # controller at the last characteristics computation
        "attacked_turn",  # last turn it was declared as an attacker
        "copy_def",  # copiable values if it is a copy (layer 1), else None
        "shields",  # regeneration shields (CR 701.15a), used or gone at cleanup (514.2)
        "kicked",  # it was a kicked spell (CR 702.33d): its "if it was kicked" abilities
        "used",  # ability index -> the turn it was last activated ("only once each turn")
        # Echo (CR 702.30a): the clock as its controller's most recent upkeep began, and the
        # turn whose upkeep found it come under their control since the one before (-1: none).
        "upkeep_clock",
        "echo_turn",
        # The turn it entered the battlefield, for a card whose text asks ("unless this
        # creature entered this turn", `CardDef.asks_entered`); -1 otherwise.
        "entered_turn",
    )

    # No initialiser: `Perm()` is the cheapest way to make an instance, in plain Python and
    # compiled (mypyc cannot make one by __new__); `new` fills a fresh one, `copy` a copy.
    cid: int
    oid: int
    controller: int
    tapped: bool
    damage: int
    deathtouched: bool
    counters: dict[str, int] | None
    attached: int
    timestamp: int
    control_since: int
    last_ctrl: int
    attacked_turn: int
    copy_def: CardDef | None
    shields: int
    kicked: bool
    used: dict[int, int] | None
    upkeep_clock: int
    echo_turn: int
    entered_turn: int

    @staticmethod
    def new(cid: int, oid: int, controller: int, timestamp: int, clock: int) -> Perm:
        p = Perm()
        p.cid = cid
        p.oid = oid
        p.controller = controller
        p.tapped = False
        p.damage = 0
        p.deathtouched = False
        p.counters = None
        p.attached = -1
        p.timestamp = timestamp
        p.control_since = clock
        p.last_ctrl = controller
        p.attacked_turn = -1
        p.copy_def = None
        p.shields = 0
        p.kicked = False
        p.used = None
        p.upkeep_clock = -1
        p.echo_turn = -1
        p.entered_turn = -1
        return p

    def copy(self) -> Perm:
        p = Perm()
        p.cid = self.cid
        p.oid = self.oid
        p.controller = self.controller
        p.tapped = self.tapped
        p.damage = self.damage
        p.deathtouched = self.deathtouched
        p.counters = dict(self.counters) if self.counters else None
        p.attached = self.attached
        p.timestamp = self.timestamp
        p.control_since = self.control_since
        p.last_ctrl = self.last_ctrl
        p.attacked_turn = self.attacked_turn
        p.copy_def = self.copy_def
        p.shields = self.shields
        p.kicked = self.kicked
        p.used = dict(self.used) if self.used else None
        p.upkeep_clock = self.upkeep_clock
        p.echo_turn = self.echo_turn
        p.entered_turn = self.entered_turn
        return p

    def state(self) -> tuple:
        return (
            self.cid,
            self.oid,
            self.controller,
            self.tapped,
            self.damage,
            self.deathtouched,
            tuple(sorted(self.counters.items())) if self.counters else (),
            self.attached,
            self.timestamp,
            self.control_since,
            self.last_ctrl,
            self.attacked_turn,
            self.copy_def.name if self.copy_def else None,
        ) + (
            # Absent while none or not kicked: a state hashes as it did before these.
            ((self.shields,) if self.shields else ())
            + (("kicked",) if self.kicked else ())
            + ((tuple(sorted(self.used.items())),) if self.used else ())
            + ((self.upkeep_clock, self.echo_turn) if self.upkeep_clock >= 0 else ())
            + ((("entered", self.entered_turn),) if self.entered_turn >= 0 else ())
        )


class StackItem:
    """A spell or ability on the stack (CR 405). For spells `cid` is the card itself; for
    abilities it is the source. `targets` holds (ref, oid) pairs chosen on casting."""

    __slots__ = (
        "oid",
        "kind",
        "cid",
        "src_oid",
        "controller",
        "ability",
        "ab_index",
        "targets",
        "info",
    )

    oid: int
    kind: int
    cid: int
    src_oid: int
    controller: int
    ability: Any
    ab_index: int
    targets: list[tuple[int, int]]
    info: dict[str, Any]

    # No initialiser, as Perm: `new` fills a fresh item, `copy` a copy.
    @staticmethod
    def new(
        oid: int,
        kind: int,
        cid: int,
        src_oid: int,
        controller: int,
        ability: Any,
        ab_index: int,
        info: dict[str, Any] | None = None,
    ) -> StackItem:
        s = StackItem()
        s.oid = oid
        s.kind = kind
        s.cid = cid
        s.src_oid = src_oid
        s.controller = controller
        s.ability = ability
        s.ab_index = ab_index
        s.targets = []
        s.info = info or {}
        return s

    def copy(self) -> StackItem:
        s = StackItem()
        s.oid = self.oid
        s.kind = self.kind
        s.cid = self.cid
        s.src_oid = self.src_oid
        s.controller = self.controller
        s.ability = self.ability
        s.ab_index = self.ab_index
        s.targets = list(self.targets)
        s.info = dict(self.info)
        return s

    def state(self) -> tuple:
        return (
            self.oid,
            self.kind,
            self.cid,
            self.src_oid,
            self.controller,
            self.ab_index,
            tuple(self.targets),
            tuple(sorted((k, repr(v)) for k, v in self.info.items())),
        )


# An initialiser with arguments: serializable tells the compiled build how pickle and
# deepcopy rebuild it (restore the fields, don't call __init__), as plain Python does.
@mypyc_attr(serializable=True)
class Trigger:
    """A triggered ability waiting to be put on the stack (CR 603.3)."""

    __slots__ = ("controller", "cid", "src_oid", "ability", "ab_index", "info")

    def __init__(
        self,
        controller: int,
        cid: int,
        src_oid: int,
        ability: Any,
        ab_index: int,
        info: dict[str, Any],
    ) -> None:
        self.controller = controller
        self.cid = cid
        self.src_oid = src_oid
        self.ability = ability
        self.ab_index = ab_index
        self.info = info

    def state(self) -> tuple:
        return (
            self.controller,
            self.cid,
            self.src_oid,
            self.ab_index,
            tuple(sorted((k, repr(v)) for k, v in self.info.items())),
        )


# An initialiser with arguments: serializable tells the compiled build how pickle and
# deepcopy rebuild it (restore the fields, don't call __init__), as plain Python does.
@mypyc_attr(serializable=True)
class Resolution:
    """A resolving spell or ability paused for a choice: nested op lists with their
    program counters, scratch variables, and the pending answer."""

    __slots__ = ("item", "frames", "vars")

    def __init__(self, item: StackItem, ops: tuple) -> None:
        self.item = item
        self.frames: list[list[Any]] = [[ops, 0]]
        self.vars: dict[str, Any] = {}

    def copy(self, item: StackItem) -> Resolution:
        r = Resolution(item, ())
        r.frames = [list(f) for f in self.frames]
        r.vars = dict(self.vars)
        return r

    def state(self) -> tuple:
        return (
            tuple((len(f[0]), f[1]) for f in self.frames),
            tuple(sorted((k, repr(v)) for k, v in self.vars.items())),
        )


def activated_at(ch: Any, idx: int) -> ActivatedAbility:
    """The `idx`-th activated ability of an object with characteristics `ch` (mana
    abilities counted, in text order), as players and the action space number them."""
    i = -1
    for ab in ch.abilities:
        if type(ab) is ManaAbility or type(ab) is ActivatedAbility:
            i += 1
            if i == idx:
                if type(ab) is ManaAbility:
                    raise IllegalActionError(
                        "mana abilities are not activated directly: payment is automatic"
                    )
                return ab  # type: ignore[return-value]
    raise IllegalActionError(f"{ch.name} has no activated ability {idx}")
