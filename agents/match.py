"""Seat-swapped paired games between two agents (used by `mtg-env match` and tests)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mtg_env.engine import Deck, Game, load_decks, resolve_deck
from mtg_env.engine.formats import rules_for

from .base import Agent, make_agent
from .plugin import PluginFault, guard


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a win rate (draws counted as half wins)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class MatchResult:
    agent_a: str
    agent_b: str
    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C stopped the match: the games so far are counted

    @property
    def win_rate_a(self) -> float:
        return (self.wins_a + 0.5 * self.draws) / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        lo, hi = wilson(self.wins_a + 0.5 * self.draws, self.games)
        return {
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "games": self.games,
            "wins_a": self.wins_a,
            "wins_b": self.wins_b,
            "draws": self.draws,
            "win_rate_a": round(self.win_rate_a, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
        }


def deck_pairs(fmt: str, decks: Sequence[str] | None, n: int, seed: int) -> list[tuple[Deck, Deck]]:
    """The deck pair of each game pair: fixed if given, else cycling through every
    ordered pair of bundled decks (shuffled by the seed)."""
    if decks:
        a, b = (resolve_deck(d, fmt) for d in decks)
        return [(a, b)] * n
    import random

    bundled = [load_decks(fmt)[k] for k in sorted(load_decks(fmt))]
    if rules_for(fmt).piles == 1:  # both players draw from one shared pile
        pairs = [(x, x) for x in bundled]
    else:
        pairs = [(x, y) for x in bundled for y in bundled]
    random.Random(seed).shuffle(pairs)
    return [pairs[i % len(pairs)] for i in range(n)]


def play_game(
    agents: Sequence[Agent],
    decks: tuple[Deck, Deck],
    seed: int,
    fmt: str = "classic",
    max_decisions: int = 5000,
) -> Game:
    g = Game.new(decks, seed=seed, format=fmt, max_decisions=max_decisions)
    for ag in agents:
        ag.reset()
    while not g.is_over:
        p = g.current_player
        assert p is not None
        g.apply(agents[p].choose(g))
    return g


def run_match(
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int = 0,
    fmt: str = "classic",
    decks: Sequence[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """`games` games (rounded up to even): each seed is played twice, seats swapped. Ctrl-C
    ends the match with the finished games counted (`interrupted` is set)."""
    res = MatchResult(spec_a, spec_b)
    try:
        _play_match(res, spec_a, spec_b, games, seed, fmt, decks, progress)
    except KeyboardInterrupt:
        res.interrupted = True
    return res


def _play_match(
    res: MatchResult,
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int,
    fmt: str,
    decks: Sequence[str] | None,
    progress: Callable[[int], None] | None,
) -> None:
    pairs = (games + 1) // 2
    dps = deck_pairs(fmt, decks, pairs, seed)
    for i in range(pairs):
        gseed = seed * 100_003 + i
        for swap in (False, True):
            # A plug-in is checked at every call: breaking the protocol is one line.
            a = guard(make_agent(spec_a, gseed * 2 + 1, fmt=fmt), spec_a)
            b = guard(make_agent(spec_b, gseed * 2 + 2, fmt=fmt), spec_b)
            seats = [b, a] if swap else [a, b]
            da, db = dps[i]
            try:
                g = play_game(seats, (db, da) if swap else (da, db), gseed, fmt)
            except PluginFault as e:
                raise PluginFault(f"{e}, in game {res.games + 1} (seed {gseed})") from None
            seat_a = 1 if swap else 0
            res.games += 1
            if g.winner is None:
                res.draws += 1
                outcome = "draw"
            elif g.winner == seat_a:
                res.wins_a += 1
                outcome = "a"
            else:
                res.wins_b += 1
                outcome = "b"
            res.records.append(
                {
                    "seed": gseed,
                    "seat_a": seat_a,
                    "deck_a": da.name,
                    "deck_b": db.name,
                    "winner": outcome,
                    "turns": g.turn,
                    "decisions": g.n_decisions,
                }
            )
            if progress is not None:
                progress(1)
