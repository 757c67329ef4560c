"""The games of `mtg-env evaluate` (agents.evaluate): the deck sets, the seat-swapped
schedule every agent plays against each anchor, and one scheduled game played and timed."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mtg_env.engine import Game, load_decks

from .base import make_agent
from .heldout import load_split
from .match import play_game
from .plugin import PluginFault, guard, shown
from .runs import code_digest

# The deck sets an evaluation plays on: name -> (format, part). A part of None is every
# bundled deck of the format; "heldout" / "train" a part of the fixed held-out split
# (agents.heldout). The first set of a format is that format's default.
DECK_SETS: dict[str, tuple[str, str | None]] = {
    "classic": ("classic", None),  # the six classic v0 decks
    "core-heldout": ("core", "heldout"),
}


MAX_DECISIONS = 5000  # play_game's cap per game (a draw), part of the configuration


@dataclass(frozen=True)
class DeckSet:
    name: str
    format: str
    decks: tuple[str, ...]


def deck_set(name: str) -> DeckSet:
    """The decks a deck set names (see the module docstring)."""
    if name not in DECK_SETS:
        raise ValueError(f"unknown deck set {name!r} (known: {', '.join(DECK_SETS)})")
    fmt, part = DECK_SETS[name]
    if part is None:
        return DeckSet(name, fmt, tuple(sorted(load_decks(fmt))))
    s = load_split()
    if s.format != fmt:  # pragma: no cover - the table and the split file disagree
        raise ValueError(f"deck set {name!r}: the held-out split is of {s.format}, not {fmt}")
    return DeckSet(name, fmt, tuple(getattr(s, part)))


def resolve_deck_set(fmt: str | None, decks: str | None) -> DeckSet:
    """The deck set of `--format F --decks SET`: either one picks the other (classic <->
    classic, core <-> core-heldout); both must agree."""
    default: dict[str, str] = {}
    for set_name, (set_fmt, _) in DECK_SETS.items():
        default.setdefault(set_fmt, set_name)
    if decks is None:
        if fmt is not None and fmt not in default:
            raise ValueError(
                f"--format {fmt!r}: evaluate has deck sets for the formats "
                f"{', '.join(default)} only"
            )
        decks = default[fmt] if fmt is not None else next(iter(DECK_SETS))
    ds = deck_set(decks)
    if fmt is not None and fmt != ds.format:
        raise ValueError(f"--decks {decks}: its decks are {ds.format} decks, not {fmt}")
    return ds


def decks_digest(ds: DeckSet) -> str:
    decks = load_decks(ds.format)
    body = {n: list(decks[n].cards) for n in ds.decks}
    return hashlib.sha256(json.dumps(body).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Scheduled:
    """One game of the schedule: `agent` against `opponent` on pair `pair`; `swap` puts
    the opponent in seat 0. Decks belong to seats: `deck0` is seat 0's."""

    agent: str
    opponent: str
    pair: int
    swap: bool
    seed: int
    deck0: str
    deck1: str

    @property
    def key(self) -> str:
        return f"{self.agent}|{self.opponent}|{self.pair}|{int(self.swap)}"


def deck_pair_order(ds: DeckSet, seed: int) -> list[tuple[str, str]]:
    """Every ordered pair of the set's decks (mirrors included), shuffled by the seed."""
    pairs = [(x, y) for x in ds.decks for y in ds.decks]
    random.Random(f"evaluate:{seed}:{ds.name}").shuffle(pairs)
    return pairs


def schedule(
    matchups: Sequence[tuple[str, str]], ds: DeckSet, games: int, seed: int
) -> list[Scheduled]:
    """The games of each matchup (agent, opponent): `games` rounded up to even, in
    seat-swapped pairs; the same positions for every matchup."""
    order = deck_pair_order(ds, seed)
    out = []
    for agent, opp in matchups:
        for k in range((games + 1) // 2):
            d0, d1 = order[k % len(order)]
            for swap in (False, True):
                out.append(Scheduled(agent, opp, k, swap, seed * 100_003 + k, d0, d1))
    return out


class _Timed:
    """Times every decision of the agent it wraps."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.decisions = 0
        self.seconds = 0.0

    def reset(self) -> None:
        self.agent.reset()

    def choose(self, game: Game) -> Any:
        t = time.perf_counter()
        a = self.agent.choose(game)
        self.seconds += time.perf_counter() - t
        self.decisions += 1
        return a


def play_scheduled(s: Scheduled, fmt: str) -> dict[str, Any]:
    """Play one scheduled game; its row (score: the agent's, a draw counting 0.5). A
    plug-in that breaks the agent protocol is a `PluginFault` naming the game."""
    decks = load_decks(fmt)
    agent = make_agent(s.agent, s.seed * 2 + 1, fmt=fmt)
    fallbacks_before = agent.fallbacks
    opp = make_agent(s.opponent, s.seed * 2 + 2, fmt=fmt)
    timed = _Timed(guard(agent, s.agent))
    seats = [guard(opp, s.opponent), timed] if s.swap else [timed, guard(opp, s.opponent)]
    t = time.perf_counter()
    try:
        g = play_game(seats, (decks[s.deck0], decks[s.deck1]), s.seed, fmt, MAX_DECISIONS)
    except PluginFault as e:
        swapped = ", seats swapped" if s.swap else ""
        raise PluginFault(
            f"{e}, in the game against {shown(s.opponent)}, pair {s.pair}{swapped} (seed {s.seed})"
        ) from None
    seat = 1 if s.swap else 0
    score = 0.5 if g.winner is None else float(g.winner == seat)
    return {
        "key": s.key,
        "agent": s.agent,
        "opponent": s.opponent,
        "pair": s.pair,
        "swap": int(s.swap),
        "seed": s.seed,
        "seat_agent": seat,
        "deck_agent": s.deck1 if s.swap else s.deck0,
        "deck_opponent": s.deck0 if s.swap else s.deck1,
        "score": score,
        "turns": g.turn,
        "decisions": g.n_decisions,
        "agent_decisions": timed.decisions,
        "agent_seconds": round(timed.seconds, 6),
        # A plug-in instance is shared between games: count this game's fallbacks only.
        "fallbacks": agent.fallbacks - fallbacks_before,
        "seconds": round(time.perf_counter() - t, 4),
        "code": code_digest(),
    }


def search_budget(spec: str, fmt: str) -> dict[str, Any] | None:
    """The per-decision budget of a search agent (ISMCTS iterations or seconds), or None."""
    try:
        agent = make_agent(spec, 0, fmt=fmt)
    except ValueError:
        return None
    budget = agent.budget
    if budget is None:
        return None
    return {"iterations_per_decision": budget.iterations, "seconds_per_decision": budget.seconds}
