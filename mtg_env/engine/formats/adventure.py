"""`adventure`: "Adventure Cards" (source document 004) on the engine's steps.

Six phases instead of CR 500's steps: DRAW is the untap step (untap, mana, draw; no
priority), MAIN the first main step, ATTACKERS and BLOCKERS the two declaration steps (a
declaration only, no priority), BATTLE the combat damage step (priority first; damage when
both players pass in succession) and END the end step (enchantments' triggers, then the
turn's damage and "until end of turn" effects end; no priority).

No lands: an automatic mana pool grows by one at the start of each of its owner's turns up
to eight and is refilled then; a cost takes its mana value from it, colours ignored. After
any action other than a pass priority goes to the other player, and what is put on the
stack resolves at once.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .. import combat as cb
from ..constants import (
    COMBAT_DAMAGE,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    ENCHANTMENT,
    END,
    MAIN1,
    UNTAP,
)
from ..frames import (
    F_BATTLE,
    F_BEGIN_STEP,
    F_CLEANUP,
    F_END_STEP,
    F_PRIO,
    F_SETTLE,
)
from ..layers import Chars
from ..mana import Source
from ..objects import FormatState
from ..protocol import GameLike
from .base import Format

POOL_COLORS: Final = 63  # a pool mana pays any pip (all five colors and colorless)
# Pool mana as sources (negative ids: no permanent); never mutated, so shared.
_POOL_SOURCES: Final = [Source(-1 - i, POOL_COLORS, 0, 0, POOL_COLORS) for i in range(64)]


@mypyc_attr(serializable=True)  # its initialiser takes arguments: pickle calls it
class AdventureState(FormatState):
    """Adventure's own per-game state: each player's mana pool (`pool`, the mana left this
    turn) and its size (`pool_max`, one more each turn up to the cap)."""

    __slots__ = ("pool", "pool_max")

    def __init__(self, pool: list[int], pool_max: list[int]) -> None:
        self.pool = pool
        self.pool_max = pool_max

    def copy(self) -> AdventureState:
        return AdventureState(self.pool[:], self.pool_max[:])


def adventure_state(g: GameLike) -> AdventureState:
    """The game's adventure state (an adventure game always has one)."""
    st = g.format_state
    assert isinstance(st, AdventureState)
    return st


def _begin_phase(g: GameLike) -> None:
    step = g.step
    a = g.active
    g.passes = 0
    g._log("step", step)
    k = g.k
    if step == UNTAP:
        # DRAW: no player has priority; untap, +1 mana up to the cap, refill, draw.
        g._untap_all(a)
        st = adventure_state(g)
        st.pool_max[a] = min(Adventure.pool_cap, st.pool_max[a] + 1)
        st.pool[a] = st.pool_max[a]
        g._log("mana", a, st.pool[a])
        g._draw(a)
        k.append((F_END_STEP,))
        k.append((F_SETTLE,))
    elif step == DECLARE_ATTACKERS:
        # ATTACKERS: only the active player's declarations; done ends the phase.
        k.append((F_END_STEP,))
        k.append((F_SETTLE,))
        cb.begin_combat(g)
        cb.start_declare_attackers(g)
    elif step == DECLARE_BLOCKERS:
        # BLOCKERS: only the inactive player's declarations; done ends the phase.
        k.append((F_END_STEP,))
        k.append((F_SETTLE,))
        cb.start_declare_blockers(g)
    elif step == END:
        # END: no player has priority; enchantments' end triggers, then the turn ends.
        g._step_triggers("end_step")
        k.append((F_CLEANUP,))
        k.append((F_SETTLE,))
    else:
        # MAIN and BATTLE: priority to the active player first.
        k.append((F_PRIO, a))


def _end_phase(g: GameLike) -> None:
    step = g.step
    if step == COMBAT_DAMAGE:
        # BATTLE: both players passed in succession; combat damage, then the phase ends.
        g.k.append((F_BATTLE,))
        return
    if step == UNTAP:
        nxt = MAIN1
    elif step == MAIN1:
        nxt = DECLARE_ATTACKERS
    elif step == DECLARE_ATTACKERS:
        nxt = DECLARE_BLOCKERS if g.attackers else END  # no attack, no battle
    else:
        nxt = COMBAT_DAMAGE
    g.step = nxt
    g.k.append((F_BEGIN_STEP,))


def _end_of_turn(g: GameLike) -> None:
    # The end of an END phase: damage and "until end of turn" effects end; no priority;
    # the next turn begins (its DRAW phase checks state-based actions first).
    g._end_turn_effects()
    g._start_turn(1 - g.active)


def _priority(g: GameLike, p: int) -> None:
    # The stack resolves before anyone acts again.
    g._f_prio(p, True)


@mypyc_attr(allow_interpreted_subclasses=True)  # a new format may extend it
class Adventure(Format):
    __slots__ = ()

    name = "adventure"
    card_set = "adventure"
    deck_size = 30
    opening_hand = 5
    max_hand = None
    mulligans = False
    pool_cap: ClassVar[int] = 8
    step_names = {
        UNTAP: "draw",
        MAIN1: "main",
        DECLARE_ATTACKERS: "attackers",
        DECLARE_BLOCKERS: "blockers",
        COMBAT_DAMAGE: "battle",
        END: "end",
    }
    after_blocks = COMBAT_DAMAGE  # BLOCKERS is a declaration only; BATTLE has priority
    player_fields = ("mana", "mana_max")
    frames = {
        F_BEGIN_STEP: _begin_phase,
        F_END_STEP: _end_phase,
        F_CLEANUP: _end_of_turn,
        F_PRIO: _priority,
    }

    def check_setup_step(self, step: int) -> None:
        if step not in (MAIN1, COMBAT_DAMAGE):
            raise ValueError(
                f"a {self.name} position starts where a player has priority: "
                f"{self.step_name(MAIN1)} or {self.step_name(COMBAT_DAMAGE)}, "
                f"not {self.step_name(step)}"
            )

    def setup_player(self, g: GameLike, seat: int, spec: dict[str, Any]) -> None:
        st = adventure_state(g)
        st.pool_max[seat] = int(spec.get("mana_max", spec.get("mana", 0)))
        st.pool[seat] = int(spec.get("mana", st.pool_max[seat]))

    def triggers_at_step(self, ch: Chars) -> bool:
        return bool(ch.types & ENCHANTMENT)  # END executes the enchantments' triggers

    def priority_after(self, p: int) -> int:
        return 1 - p

    def after_resolve(self, g: GameLike) -> None:
        pass  # the frame that resolved the stack continues the game

    def mana_sources(self, g: GameLike, seat: int, exclude: int = -1) -> list[Source]:
        # Each pool mana is a source that pays any pip.
        return _POOL_SOURCES[: adventure_state(g).pool[seat]]

    def pay_mana(self, g: GameLike, seat: int, cost: Any, exclude: int = -1) -> None:
        st = adventure_state(g)
        if cost.mv > st.pool[seat]:  # pragma: no cover - legality was checked before
            raise RuntimeError("internal error: cost became unpayable")
        st.pool[seat] -= cost.mv
        g._log("pay", seat, cost.text, ())

    def mana_text(self, g: GameLike, seat: int) -> str | None:
        st = adventure_state(g)
        return f"{st.pool[seat]}/{st.pool_max[seat]}"

    def new_state(self) -> AdventureState:
        return AdventureState([0, 0], [0, 0])

    def hash_extras(self, g: GameLike) -> list:
        st = adventure_state(g)
        return [tuple(st.pool), tuple(st.pool_max)]


ADVENTURE: Final = Adventure()
