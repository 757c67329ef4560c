"""Shared helpers for scripted and search agents: values, board reading, evaluation."""

from __future__ import annotations

import abc
import random
from typing import Any

import numpy as np

from mtg_env.engine import Action, Game
from mtg_env.engine.cards import (
    ActivatedAbility,
    CardDef,
    StaticAbility,
    TriggeredAbility,
)
from mtg_env.engine.constants import BATTLEFIELD, CREATURE, LAND

from .registry import Budget

KW_VALUE = {
    "flying": 1.5,
    "first_strike": 1.0,
    "double_strike": 2.0,
    "deathtouch": 1.5,
    "lifelink": 1.0,
    "trample": 0.5,
    "vigilance": 0.5,
    "menace": 0.7,
    "shadow": 1.2,
    "horsemanship": 1.2,
    "exalted": 0.3,
    "reach": 0.3,
    "haste": 0.3,
    "islandwalk": 0.7,
    "protection_from_black": 0.5,
    "flash": 0.0,
}
HARMFUL_OPS = {
    "damage",
    "destroy",
    "return_to_hand",
    "counter",
    "set_base_pt",
    "lose_abilities",
    "gain_control",
    "tap",
    "text_change",
    "sacrifice",
}


def power(g: Game, cid: int) -> int:
    return max(g.chars(cid).power or 0, 0)


def toughness(g: Game, cid: int) -> int:
    return g.chars(cid).toughness or 0


def creatures(g: Game, seat: int) -> list[int]:
    # `controlled` is the layer state's per-seat list, in battlefield order.
    return [c for c in g.controlled(seat) if g.chars(c).types & CREATURE]


def lands(g: Game, seat: int) -> list[int]:
    return [c for c in g.controlled(seat) if g.chars(c).types & LAND]


def creature_value(g: Game, cid: int) -> float:
    """A rough value of a creature on the battlefield (for trades and targets)."""
    ch = g.chars(cid)
    p = max(ch.power or 0, 0)
    t = max(ch.toughness or 0, 0)
    v = 1.5 * p + t
    for k in ch.keywords:
        v += KW_VALUE.get(k, 0.3)
    if "double_strike" in ch.keywords:
        v += p
    if "defender" in ch.keywords:
        v -= 1.5 * p
    for ab in ch.abilities:
        if ab.__class__ in (ActivatedAbility, TriggeredAbility, StaticAbility):
            v += 1.5
    if ch.types & LAND:
        v -= 1.0  # an animated land is less of a threat than it looks
    return v


def def_value(cd: CardDef) -> float:
    """A creature card's value before it is cast (from its printed characteristics)."""
    p = cd.power or 0
    t = cd.toughness or 0
    v = 1.5 * p + t
    for k in cd.keywords:
        v += KW_VALUE.get(k, 0.3)
    if "defender" in cd.keywords:
        v -= 1.5 * p
    v += 1.5 * sum(1 for ab in cd.abilities if ab.__class__.__name__ != "ManaAbility")
    return v


def evaluate(g: Game, seat: int) -> float:
    """Static evaluation from `seat`'s side, roughly in [-1, 1] (used by search)."""
    if g.is_over:
        if g.winner is None:
            return 0.0
        return 1.0 if g.winner == seat else -1.0
    opp = 1 - seat
    score = 0.0
    score += 0.05 * (min(g.life[seat], 30) - min(g.life[opp], 30))
    if g.life[opp] <= 5:
        score += 0.03 * (5 - g.life[opp])
    if g.life[seat] <= 5:
        score -= 0.03 * (5 - g.life[seat])
    mine = sum(creature_value(g, c) for c in creatures(g, seat))
    theirs = sum(creature_value(g, c) for c in creatures(g, opp))
    score += 0.02 * (mine - theirs)
    score += 0.04 * (len(g.hand[seat]) - len(g.hand[opp]))
    score += 0.02 * (len(lands(g, seat)) - len(lands(g, opp)))
    return float(np.tanh(score))


class EngineAgent(abc.ABC):
    """Base for agents that decide from the engine state: `act` gets the game from the
    env's info and maps the chosen engine action back to the env index."""

    needs_observation = False
    # `act` is `choose(game)` mapped to its index: an env may call `choose` directly
    # (`SelfPlay-v0` then builds neither observation nor mask for this agent's moves).
    decides_from_engine = True
    budget: Budget | None = None  # no search: it answers at once
    fallbacks = 0  # its moves are always legal

    def reset(self) -> None:  # noqa: B027 - optional hook, nothing to reset by default
        pass

    def reseed(self, seed: int) -> None:
        """Restart the agent's random stream (an env's `reset(seed=...)` calls this)."""
        rng = getattr(self, "rng", None)
        if rng is not None:
            rng.seed(seed)
        inner = getattr(self, "heuristic", None)  # ISMCTS's own rollout heuristic
        if isinstance(inner, EngineAgent):
            inner.reseed(seed)

    @abc.abstractmethod
    def choose(self, game: Game) -> Action: ...

    def act(self, observation: Any, mask: np.ndarray, info: dict[str, Any]) -> int:
        game = info["game"]
        a = self.choose(game)
        i = info["env"].index_of(a)
        if i < 0 or not mask[i]:
            raise RuntimeError(f"agent chose an action with no legal index: {a}")
        return i


class SearchAgent(EngineAgent):
    """An engine agent that searches within a budget: `iterations` per decision, or
    `seconds` per decision (the iterations are then what fits)."""

    def __init__(self, iterations: int, seconds: float | None, seed: int) -> None:
        self.iterations = iterations
        self.seconds = seconds
        self.rng = random.Random(seed)

    @property
    def budget(self) -> Budget:  # type: ignore[override]  # a property over the class's None
        """Iterations per decision, or seconds (the iterations are then what fits)."""
        return Budget(None if self.seconds else self.iterations, self.seconds)


def on_battlefield(g: Game, cid: int) -> bool:
    return cid >= 0 and g.zone[cid] == BATTLEFIELD
