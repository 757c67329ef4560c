"""One move of a duel: the step rules every env shares (`raw_env`, and through it
`SelfPlayEnv`; `DuelBatch` for each of its games).

`advance` plays an engine action and says what it did: each seat's reward for the move
(shaping, or +1/-1 when the game is won), whether the game goes on, ended, or was truncated
and why. Recording a replay observes the move (`after_apply`); it is not the road to the
engine. What an env does with the outcome (PettingZoo's reward and flag dictionaries, a
batch's arrays) is the env's own bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ..engine import Action, Game, IllegalActionError
from .observers import Observer
from .spaces import Layout

# How a move left the game.
RUNNING: Final = 0
TERMINATED: Final = 1  # won, lost or drawn
TRUNCATED: Final = 2  # the decision cap, or a state the observation cannot show

DECISION_CAP: Final = "decision cap reached"
NO_INDEX: Final = "a legal action has no index in the layout"
# The shaping reward per point of life difference (`reward_shaping=True`).
SHAPING: Final = 0.01

Rewards = tuple[float, float] | None


def advance(
    g: Game,
    action: Action,
    observer: Observer,
    unindexed: Callable[[], int],
    shaping: bool = False,
    engine_seat: int | None = None,
    after_apply: Callable[[], None] | None = None,
) -> tuple[Rewards, int, str | None]:
    """Play `action` (a legal engine action of the acting seat) and return (each seat's
    reward for the move or None for none, RUNNING/TERMINATED/TRUNCATED, the truncation's
    reason).

    `unindexed()` builds the next acting seat's legal moves (the env keeps them for its mask)
    and returns how many legal actions have no index; it is not called for `engine_seat`,
    a seat that moves by engine action (an engine opponent), which needs no mask.
    `after_apply()` runs right after the engine moves (a replay records the move there).
    """
    life = g.life[:] if shaping else None
    g.apply(action)
    if after_apply is not None:
        after_apply()
    rewards: Rewards = None
    if g.is_over:
        if g.truncated:
            return None, TRUNCATED, DECISION_CAP
        if g.winner is not None:
            rewards = (1.0, -1.0) if g.winner == 0 else (-1.0, 1.0)
        return rewards, TERMINATED, None
    if life is not None:
        d0, d1 = g.life[0] - life[0], g.life[1] - life[1]
        rewards = (SHAPING * (d0 - d1), SHAPING * (d1 - d0))
    reason = observer.overflow(g)
    if reason is None and g.current_player != engine_seat and unindexed() > 0:
        # A seat that decides by index: every legal action needs one.
        reason = NO_INDEX
    return rewards, (RUNNING if reason is None else TRUNCATED), reason


def engine_move(layout: Layout, g: Game, action: Action) -> tuple[int, Action]:
    """An engine agent's move checked and made canonical: its flat index and the action that
    index stands for (the first legal action with it, e.g. the first of two Forests in
    hand), so a move made by engine action is the move its index makes."""
    seat = g.current_player
    legal = g.legal_actions()
    if seat is None or action not in legal:
        raise IllegalActionError(f"{action} is not a legal action now")
    return canonical(layout, g, seat, action, legal)


def canonical(
    layout: Layout, g: Game, seat: int, action: Action, legal: list[Action]
) -> tuple[int, Action]:
    """The layout index of a legal engine action and the action that index stands for
    (the first legal action with it: e.g. the first of two Forests in hand), so that a
    move made by engine action is the move its index makes."""
    own, opp, stack = layout.slots(g, seat)
    i = layout.action_index(g, action, seat, own, opp, stack)
    if i < 0:
        raise IllegalActionError(f"{action} has no index in the action layout")
    for b in legal:
        if b == action:
            break
        if layout.action_index(g, b, seat, own, opp, stack) == i:
            return i, b
    return i, action
