"""`GameLike`: the game as the rules modules below `Game` see it.

`Game` (engine.game) is built from its jobs, one module each, in one chain of base classes
from the public API down to the kernel: `Game -> Setup -> Turn -> Priority -> Stack ->
Targeting -> StateBasedActions -> GameLike -> Kernel -> GameFields`. Each job calls only
itself and the jobs below it (tests/test_layout.py reads the chain and counts the calls that
go up: none); where a lower job must continue in a higher one it pushes a frame on the
continuation stack (`self.k`, engine.frames) that the run loop (engine.game) dispatches. The
kernel (engine.kernel) owns what every job reaches: the event log, the characteristics
cache, decisions and zone moves. Single inheritance because the compiled build
(docs/compiling.md) reads fields at fixed offsets and calls methods through a vtable, where
traits (interfaces) cost a search on every access. The fields come from `GameFields`
(generated from engine.fields.FIELDS).

The rules modules below the chain (combat, effects, layers, log, explain, the formats'
hooks) take the game as an argument typed `GameLike`, so that every import in the engine
points down. `GameLike` is the kernel, whose code they call directly, and a declaration of
each method of a job above it that they call: a rules module that reaches up the chain
(combat dealing damage, an effect paying mana, a format starting a turn) is what a
declaration is for. Each has the job that implements it and the modules that call it;
nothing else is declared (tests/test_layout.py checks that every declaration has an
implementation and a caller below the chain).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import ActivatedAbility, CardDef, ManaCost, SacCost, TargetSpec
from .chars import Chars
from .kernel import Kernel
from .mana import Source
from .objects import Action, Decision, StackItem


class GameLike(Kernel):
    # Declarations, not stubs: each method below is implemented by `Game` or one of its
    # jobs, which come first in `Game`'s method resolution order, so these bodies never run.
    __slots__ = ()

    # engine.game; called by explain, log.
    @property
    def decision(self) -> Decision | None:
        raise NotImplementedError

    # engine.game; called by explain.
    def legal_actions(self) -> list[Action]:
        raise NotImplementedError

    # engine.priority; called by effects, explain.
    def mana_sources(self, seat: int, exclude: int = -1) -> list[Source]:
        raise NotImplementedError

    # engine.setup; called by formats.base, formats.pocket.
    def _choose_first(self, first_player: int | None) -> int:
        raise NotImplementedError

    # engine.turn; called by formats.adventure, formats.base, formats.pocket.
    def _start_turn(self, seat: int, first: bool = False) -> None:
        raise NotImplementedError

    # engine.turn; called by formats.adventure, formats.pocket.
    def _untap_all(self, a: int) -> None:
        raise NotImplementedError

    # engine.turn; called by formats.adventure, formats.pocket.
    def _end_turn_effects(self) -> None:
        raise NotImplementedError

    # engine.turn; called by formats.adventure.
    def _step_triggers(self, event: str) -> None:
        raise NotImplementedError

    # engine.priority; called by formats.adventure.
    def _f_prio(self, p: int, resolve: bool = False) -> None:
        raise NotImplementedError

    # engine.priority; called by formats.base.
    def _priority_actions(self, p: int) -> list[Action]:
        raise NotImplementedError

    # engine.priority; called by formats.base.
    def _take_priority_action(self, p: int, a: Action) -> None:
        raise NotImplementedError

    # engine.priority; called by formats.pocket.
    def _begin_cast(self, p: int, cid: int) -> None:
        raise NotImplementedError

    # engine.priority; called by effects.
    def _pay_mana(self, seat: int, cost: Any, exclude: int = -1) -> None:
        raise NotImplementedError

    # engine.priority; called by effects (madness: whether its owner can cast the card).
    def _can_cast(
        self,
        p: int,
        cid: int,
        cost: ManaCost | None,
        srcs: list[Source],
        sac: SacCost | None = None,
    ) -> bool:
        raise NotImplementedError

    # engine.priority; called by explain.
    def _can_activate(
        self,
        p: int,
        cid: int,
        ch: Chars,
        ab: ActivatedAbility,
        idx: int,
        sorcery_ok: bool,
        srcs: list[Source] | None = None,
    ) -> str | None:
        raise NotImplementedError

    # engine.targets; called by formats.pocket.
    def _targets_exist(
        self, specs: Sequence[TargetSpec], src: int, you: int, kind: int, src_ch: Any
    ) -> bool:
        raise NotImplementedError

    # engine.stack; called by effects.
    def _enter_from_stack(self, item: StackItem, copy_def: CardDef | None) -> None:
        raise NotImplementedError

    # engine.stack; called by effects.
    def _etb(self, cid: int) -> None:
        raise NotImplementedError

    # engine.stack; called by combat.
    def _fire(self, event: str, cid: int, info: dict[str, Any] | None = None) -> None:
        raise NotImplementedError

    # engine.stack; called by combat, effects, formats.base.
    def _damage(self, src: int, src_ch: Chars, target: int, amount: int, combat: bool) -> int:
        raise NotImplementedError
