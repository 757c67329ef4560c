"""What a pending decision is about (`Game.ctx`): one small frozen value per kind of
context, read by the engine, the env's encoder and the agents by type and field instead of
by tag strings and tuple positions.

`state()` gives each context's part of `Game.state_hash()`; it is the tuple the engine
hashed before these types existed, so hashes (and every recorded trace) are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import TargetSpec
from .frozen import Frozen
from .objects import StackItem


@dataclass(frozen=True, slots=True)
class Targets(Frozen):
    """Targets of a spell or ability being put on the stack, chosen one at a time
    (CR 601.2c): `item` collects them; `done` is the frame that continues after them."""

    item: StackItem
    specs: tuple[TargetSpec, ...]
    done: int

    def state(self) -> tuple[Any, ...]:
        return ("targets", self.item.state(), len(self.specs), self.done)


@dataclass(frozen=True, slots=True)
class Announce(Frozen):
    """A spell being cast announces its mode (CR 700.2a, 601.2b), whether it is kicked
    (702.33a) or the value of X (CR 107.3a, 601.2b), before its targets; after them, what
    its additional cost gives (601.2h). `choices` are the mode numbers, X values or the
    permanents or cards offered, in option order; `what` is "mode", "kicker", "x" or
    "extra"."""

    item: StackItem
    what: str
    choices: tuple[int, ...]

    def state(self) -> tuple[Any, ...]:
        return ("announce", self.item.state(), self.what, self.choices)


@dataclass(frozen=True, slots=True)
class Attackers(Frozen):
    """Attackers being declared one at a time (CR 508.1)."""

    def state(self) -> tuple[Any, ...]:
        return ("attackers",)


@dataclass(frozen=True, slots=True)
class Blockers(Frozen):
    """Blockers being declared: a blocker, then the attacker it blocks (CR 509.1)."""

    def state(self) -> tuple[Any, ...]:
        return ("blockers",)


@dataclass(frozen=True, slots=True)
class BlockTarget(Frozen):
    """The attacker that `blocker`, just chosen, blocks."""

    blocker: int

    def state(self) -> tuple[Any, ...]:
        return ("block_target", self.blocker)


@dataclass(frozen=True, slots=True)
class TriggerOrder(Frozen):
    """Simultaneous triggers of one player being put on the stack in order (CR 603.3b)."""

    def state(self) -> tuple[Any, ...]:
        return ("trigger_order",)


@dataclass(frozen=True, slots=True)
class CleanupDiscard(Frozen):
    """Discarding to hand size in the cleanup step (CR 514.1)."""

    def state(self) -> tuple[Any, ...]:
        return ("cleanup_discard",)


@dataclass(frozen=True, slots=True)
class Redraw(Frozen):
    """Pocket's opening: `seat` throws back cards one at a time to draw as many (`n` so
    far); `last` is the second player's turn to do so."""

    seat: int
    n: int
    last: bool

    def state(self) -> tuple[Any, ...]:
        return ("redraw", self.seat, self.n, self.last)


@dataclass(frozen=True, slots=True)
class Unstable(Frozen):
    """Pocket: which unspent unstable mana source to remove (`choices`)."""

    choices: tuple[int, ...]

    def state(self) -> tuple[Any, ...]:
        return ("unstable", self.choices)


@dataclass(frozen=True, slots=True)
class Legend(Frozen):
    """The legend rule: which of `choices` to keep (CR 704.5j)."""

    choices: tuple[int, ...]

    def state(self) -> tuple[Any, ...]:
        return ("legend", self.choices)


@dataclass(frozen=True, slots=True)
class LegendKeep(Frozen):
    """The legend rule's answer, applied when state-based actions are checked again."""

    card: int

    def state(self) -> tuple[Any, ...]:
        return ("legend_keep", self.card)


@dataclass(frozen=True, slots=True)
class Resolving(Frozen):
    """A choice asked while a spell or ability resolves (yes/no, a mode, an option), or
    with `choices` an object to select. `purpose` says what the choice is for, so that
    agents and views need not read the prompt's words: `copy`, what a copy effect copies;
    `enter_as_copy`, whether a permanent enters as a copy, yes or no; `look`, where a card
    looked at by scry or surveil goes, which only its player knows; `may`, "you may", yes
    or no; `unless_payment`, pay a cost or not, where not paying counters or sacrifices;
    `copy_payment`, pay a cost to copy the resolving spell or not;
    `basic_land_type`; `text_change`, which word a text change replaces with which;
    `return_to_hand`, which permanent an effect returns to its owner's hand; `untap`,
    which land "untap up to N lands" untaps (each after a `may`); `card_type`, the card
    type "choose creature or land" names; `exile_from_graveyard`, which card "you may exile
    a creature card from your graveyard" exiles, or none; `room`, the room of Undercity a
    venture moves into; `reveal_put`, which revealed card goes onto the battlefield. It
    follows from the resolving effect, so it is not hashed."""

    choices: tuple[int, ...] | None = None
    purpose: str = ""

    def state(self) -> tuple[Any, ...]:
        return ("res",) if self.choices is None else ("res", self.choices)


Context = (
    Targets
    | Announce
    | Attackers
    | Blockers
    | BlockTarget
    | TriggerOrder
    | CleanupDiscard
    | Redraw
    | Unstable
    | Legend
    | LegendKeep
    | Resolving
)
ATTACKERS: Final = Attackers()
BLOCKERS: Final = Blockers()
TRIGGER_ORDER: Final = TriggerOrder()
CLEANUP_DISCARD: Final = CleanupDiscard()
