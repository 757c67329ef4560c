"""`GameLike`: the game as its parts and the modules below `Game` see it.

`Game` (engine.game) is built from its jobs (zones, turn, priority, targets, stack,
state-based actions, setup), one module each, and calls down into the rules modules
(combat, effects, layers, log, explain) and into the format's hooks (engine.formats).
Those take the game as an argument typed `GameLike`, so that one job can call another's
methods and every import in the engine points down (none hidden from the import graph).

The jobs form one chain of base classes, `Game -> Setup -> Zones -> Turn -> Priority ->
Targeting -> Stack -> StateBasedActions -> GameLike -> GameFields` (the method resolution
order a class listing all seven jobs as bases would have): with single inheritance the
compiled build (docs/compiling.md) reads fields at fixed offsets and calls methods
through a vtable, where traits (interfaces) cost a search on every access. Its fields
come from `GameFields` (generated from engine.fields.FIELDS); its methods are declared
here and implemented by `Game` or one of its jobs: tests/test_layout.py checks that each
has an implementation elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsIndex

from .cards import ActivatedAbility, CardDef, TargetSpec, TriggeredAbility
from .chars import Chars
from .derived import Derived
from .mana import Source
from .objects import Action, Decision, StackItem, Trigger
from .state import GameFields


class GameLike(GameFields):
    # Declarations, not stubs: each method below is implemented by `Game` or one of its
    # jobs, which come first in `Game`'s method resolution order, so these bodies never run
    # (tests/test_layout.py checks that every one has an implementation elsewhere).
    __slots__ = ()

    # The public API (engine.game).
    @property
    def decision(self) -> Decision | None:
        raise NotImplementedError

    def legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def chars(self, cid: SupportsIndex) -> Chars:
        raise NotImplementedError

    def name(self, cid: int) -> str:
        raise NotImplementedError

    def controller(self, cid: int) -> int:
        raise NotImplementedError

    def controller_off_battlefield(self, cid: int) -> int:
        raise NotImplementedError

    def controlled(self, seat: int) -> list[int]:
        raise NotImplementedError

    def sick(self, cid: int) -> bool:
        raise NotImplementedError

    def mana_sources(self, seat: int, exclude: int = -1) -> list[Source]:
        raise NotImplementedError

    def can_enchant(self, aura: int, target: int) -> bool:
        raise NotImplementedError

    # The run loop, the event log and the characteristics cache (engine.game).
    def _run(self) -> None:
        raise NotImplementedError

    def _recompute(self) -> None:
        raise NotImplementedError

    def _log(self, *event: Any) -> None:
        raise NotImplementedError

    def _derived(self) -> Derived:
        raise NotImplementedError

    def _set_decision(
        self,
        kind: int,
        player: int,
        source: int = -1,
        prompt: str = "",
        options: tuple[str, ...] = (),
    ) -> None:
        raise NotImplementedError

    # Setup (engine.setup) and zones (engine.zones).
    def _choose_first(self, first_player: int | None) -> int:
        raise NotImplementedError

    def _new_card(self, cdef: CardDef, owner: int) -> int:
        raise NotImplementedError

    def _new_oid(self) -> int:
        raise NotImplementedError

    def _tick(self) -> int:
        raise NotImplementedError

    def _move(
        self,
        cid: int,
        to: int,
        seat: int | None = None,
        bottom: bool = False,
        controller: int | None = None,
    ) -> None:
        raise NotImplementedError

    def _draw(self, seat: int) -> None:
        raise NotImplementedError

    def _discard(self, seat: int, cid: int) -> None:
        raise NotImplementedError

    # The turn (engine.turn).
    def _start_turn(self, seat: int, first: bool = False) -> None:
        raise NotImplementedError

    def _untap_all(self, a: int) -> None:
        raise NotImplementedError

    def _end_turn_effects(self) -> None:
        raise NotImplementedError

    def _step_triggers(self, event: str) -> None:
        raise NotImplementedError

    def _settled(self, again: tuple[Any, ...], resolve: bool) -> bool:
        raise NotImplementedError

    def _answer_mulligan(self, p: int, a: Action) -> None:
        raise NotImplementedError

    def _add_trigger(
        self, controller: int, cid: int, ab: TriggeredAbility, idx: int, info: dict[str, Any]
    ) -> None:
        raise NotImplementedError

    def _condition_holds(self, ab: TriggeredAbility, cid: int, controller: int) -> bool:
        raise NotImplementedError

    # Priority and casting (engine.priority).
    def _f_prio(self, p: int, resolve: bool = False) -> None:
        raise NotImplementedError

    def _priority_actions(self, p: int) -> list[Action]:
        raise NotImplementedError

    def _take_priority_action(self, p: int, a: Action) -> None:
        raise NotImplementedError

    def _begin_cast(self, p: int, cid: int) -> None:
        raise NotImplementedError

    def _pay_mana(self, seat: int, cost: Any, exclude: int = -1) -> None:
        raise NotImplementedError

    def _can_activate(
        self,
        p: int,
        cid: int,
        ch: Chars,
        ab: ActivatedAbility,
        sorcery_ok: bool,
        srcs: list[Source] | None = None,
    ) -> str | None:
        raise NotImplementedError

    # Targets (engine.targets), the stack (engine.stack), state-based actions (engine.sba).
    def _targets_exist(
        self, specs: Sequence[TargetSpec], src: int, you: int, kind: int, src_ch: Any
    ) -> bool:
        raise NotImplementedError

    def _source_chars(self, cid: int, oid: int) -> Chars:
        raise NotImplementedError

    def _next_target(self) -> None:
        raise NotImplementedError

    def _target_choices(self) -> list[int]:
        raise NotImplementedError

    def target_still_legal(self, item: StackItem, i: int) -> bool:
        raise NotImplementedError

    def _put_trigger(self, t: Trigger) -> None:
        raise NotImplementedError

    def _enter_from_stack(self, item: StackItem, copy_def: CardDef | None) -> None:
        raise NotImplementedError

    def _etb(self, cid: int) -> None:
        raise NotImplementedError

    def _fire(self, event: str, cid: int, info: dict[str, Any] | None = None) -> None:
        raise NotImplementedError

    def _targeted(self, item: StackItem) -> None:
        raise NotImplementedError

    def _damage(self, src: int, src_ch: Chars, target: int, amount: int, combat: bool) -> int:
        raise NotImplementedError

    def _to_graveyard(self, cid: int, why: str) -> None:
        raise NotImplementedError

    def _sba(self) -> str:
        raise NotImplementedError

    def _sba_pending(self) -> bool:
        raise NotImplementedError
