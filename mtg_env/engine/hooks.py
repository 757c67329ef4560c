"""`FormatHooks`: what the engine asks of a rules format, as the type of the game's `rules`.

A format (engine.formats.base.Format and its subclasses) is called by the shared engine
through these hooks and never asked which format it is. The hooks are declared here, below
the game's state (engine.state), so that the state's `rules` field is typed: every hook
call in the engine is type-checked (its name, its arguments, what it returns) and compiled
as a typed method call. `Format` itself takes the game as `GameLike` (engine.protocol),
which sits above the state, so its hooks are declared here with the game as `Any` and
implemented there; tests/engine/test_format_hooks.py checks that `Format` implements every
declaration with the same parameters.

What needs no game is here in full: the format's numbers (class attributes), its step
names and piles, and the hooks that read only a permanent's characteristics or a seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from .cards import CardDef
from .chars import Chars
from .constants import DECLARE_BLOCKERS, STEP_NAMES
from .mana import Source
from .objects import NO_FORMAT_STATE, Action, FormatState
from .rng import Rng

Frame = Callable[..., None]


# A format may be plain Python (a test's, a user's module) where this class is compiled.
@mypyc_attr(allow_interpreted_subclasses=True)
class FormatHooks:
    """The hooks of a rules format, with the numbers of the Comprehensive Rules."""

    __slots__ = ()

    name: ClassVar[str] = ""
    card_set: ClassVar[str] = ""
    deck_size: ClassVar[int] = 40
    starting_life: ClassVar[int] = 20
    opening_hand: ClassVar[int] = 7
    max_hand: ClassVar[int | None] = 7  # discard down to this at cleanup (None: no maximum)
    mulligans: ClassVar[bool] = True  # London mulligans as decisions (CR 103.5)
    summoning_sickness: ClassVar[bool] = True  # CR 302.6
    # How many libraries (and graveyards): 2, one each; 1, one pile both players share.
    piles: ClassVar[int] = 2
    # Step names players and scenario files use, by engine step constant.
    step_names: ClassVar[dict[int, str]] = {i: n for i, n in enumerate(STEP_NAMES)}
    # The step in which the players act after blockers are declared, before damage.
    after_blocks: ClassVar[int] = DECLARE_BLOCKERS
    # Per-player fields a scripted position may give beyond life and zones.
    player_fields: ClassVar[tuple[str, ...]] = ()
    # Frames this format replaces or adds: frame id -> function(game, *args).
    frames: ClassVar[dict[int, Frame]] = {}
    # Answers to decisions only this format asks: context class -> function(game, p, a).
    answers: ClassVar[dict[type, Callable[[Any, int, Action], None]]] = {}

    # ------------------------------------------------------------------ names and piles

    def step_name(self, step: int) -> str:
        if step < 0:
            return "pregame"
        return self.step_names.get(step) or STEP_NAMES[step]

    def step_by_name(self, name: str) -> int | None:
        for step, n in self.step_names.items():
            if n == name:
                return step
        return None

    # pile_of[seat]: the index of `seat`'s library and graveyard (0 for both with one
    # shared pile); a table, since every zone change reads it.
    pile_of: ClassVar[tuple[int, int]] = (0, 1)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.pile_of = (0, 1) if cls.piles == 2 else (0, 0)

    def pile(self, seat: int) -> int:
        """The index of `seat`'s library and graveyard (0 for both with one shared pile)."""
        return self.pile_of[seat]

    def __repr__(self) -> str:
        return f"<format {self.name}>"

    # ------------------------------------------------------------------ without the game

    def check_setup_step(self, step: int) -> None:
        """Raise ValueError if a scripted position may not start in `step`."""

    def triggers_at_step(self, ch: Chars) -> bool:
        """Whether the "at the beginning of ..." abilities of permanent `ch` trigger."""
        return True

    def priority_after(self, p: int) -> int:
        """Who receives priority after `p` cast or activated (CR 117.3c)."""
        return p

    def taps_on_attack(self, ch: Chars) -> bool:
        """508.1f: attacking causes a creature without vigilance to tap."""
        return "vigilance" not in ch.keywords

    def new_state(self) -> FormatState:
        """A new game's format state (`Game.format_state`): what this format keeps per game
        beyond the shared fields, which it copies (`FormatState.copy`) and hashes
        (`hash_extras`). None by default."""
        return NO_FORMAT_STATE

    # ------------------------------------------------------------------ with the game
    # Declarations: `Format` (engine.formats.base) implements each, the game typed there.

    def deal(self, g: Any, names: Any, first_player: int | None, mulligans: bool) -> None:
        raise NotImplementedError

    def setup_player(self, g: Any, seat: int, spec: dict[str, Any]) -> None:
        raise NotImplementedError

    def draw(self, g: Any, seat: int) -> None:
        raise NotImplementedError

    def priority_actions(self, g: Any, p: int) -> list[Action]:
        raise NotImplementedError

    def answer_priority(self, g: Any, p: int, a: Action) -> None:
        raise NotImplementedError

    def pass_priority(self, g: Any, p: int) -> None:
        raise NotImplementedError

    def after_cast(self, g: Any, p: int) -> None:
        raise NotImplementedError

    def after_resolve(self, g: Any) -> None:
        raise NotImplementedError

    def mana_sources(self, g: Any, seat: int, exclude: int = -1) -> list[Source]:
        raise NotImplementedError

    def pay_mana(self, g: Any, seat: int, cost: Any, exclude: int = -1) -> None:
        raise NotImplementedError

    def cost(self, g: Any, p: int, cd: CardDef) -> Any:
        raise NotImplementedError

    def mana_text(self, g: Any, seat: int) -> str | None:
        raise NotImplementedError

    def divide_damage(
        self, g: Any, a: int, blockers: list[int], power: int, defender: int
    ) -> list[tuple[int, int]]:
        raise NotImplementedError

    def hash_extras(self, g: Any) -> list:
        raise NotImplementedError

    def resample_hidden(self, g: Any, seat: int, r: Rng) -> None:
        raise NotImplementedError
