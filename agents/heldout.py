"""The held-out-deck benchmark: does an agent play decks it was not trained on as well as
the decks it was?

The bundled decks of a format are split, once and for all, into training decks and
held-out decks (`mtg_env/data/benchmarks/heldout.yaml`; docs/agents.md). The benchmark plays
the agent against a fixed opponent on each part: every game a deck of that part for each
side, seat-swapped pairs, and reports each part's win rate with a Wilson 95% interval and
the gap (training minus held out). A policy should be trained on the training decks only
(`train_decks()`); the scripted agents, which train on nothing, show what gap deck
difficulty alone makes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtg_env.engine import Deck, load_decks
from mtg_env.engine.files import load_yaml

from .base import make_agent
from .match import play_game, wilson

SPLIT_FILE = (
    Path(__file__).resolve().parents[1] / "mtg_env" / "data" / "benchmarks" / "heldout.yaml"
)
PARTS = ("train", "heldout")


@dataclass(frozen=True)
class Split:
    format: str
    train: tuple[str, ...]
    heldout: tuple[str, ...]


def load_split(path: Path = SPLIT_FILE) -> Split:
    """The fixed split, checked against the bundled decks: every deck in exactly one part."""
    raw = load_yaml(path, "benchmark split")
    if not isinstance(raw, dict) or set(raw) != {"format", "train", "heldout"}:
        raise ValueError(f"{path}: a mapping with 'format', 'train' and 'heldout'")
    fmt = raw["format"]
    decks = load_decks(fmt)
    for part in PARTS:
        names = raw[part]
        if not isinstance(names, list) or len(names) < 1:
            raise ValueError(f"{path}: field {part}: a list of deck names")
        for i, n in enumerate(names):
            if n not in decks:
                raise ValueError(f"{path}: {part}[{i}]: no bundled {fmt} deck {n!r}")
    both = set(raw["train"]) & set(raw["heldout"])
    if both:
        raise ValueError(f"{path}: deck {sorted(both)[0]!r} is in both parts")
    missing = set(decks) - set(raw["train"]) - set(raw["heldout"])
    if missing:
        raise ValueError(f"{path}: bundled deck {sorted(missing)[0]!r} is in neither part")
    return Split(fmt, tuple(raw["train"]), tuple(raw["heldout"]))


def train_decks(split: Split | None = None) -> list[Deck]:
    """The decks a policy may be trained on."""
    s = split or load_split()
    decks = load_decks(s.format)
    return [decks[n] for n in s.train]


def run_heldout(
    agent: str,
    opponent: str = "heuristic",
    games: int = 100,
    seed: int = 0,
    split: Split | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """`games` games (rounded up to even) on each part: the agent's deck and the opponent's
    drawn from that part with the seed, each pair played twice with seats swapped."""
    s = split or load_split()
    decks = load_decks(s.format)
    make_agent(agent, fmt=s.format)  # a bad spec fails before any game
    make_agent(opponent, fmt=s.format)
    out: dict[str, Any] = {
        "format": s.format,
        "agent": agent,
        "opponent": opponent,
        "seed": seed,
        "split": {"train": list(s.train), "heldout": list(s.heldout)},
    }
    for part in PARTS:
        names = getattr(s, part)
        rng = random.Random(f"{seed}:{part}")
        wins = draws = n = 0
        for i in range((games + 1) // 2):
            pair = (decks[rng.choice(names)], decks[rng.choice(names)])
            gseed = seed * 100_003 + i
            for swap in (False, True):
                a = make_agent(agent, gseed * 2 + 1, fmt=s.format)
                b = make_agent(opponent, gseed * 2 + 2, fmt=s.format)
                seats = [b, a] if swap else [a, b]
                g = play_game(seats, pair[::-1] if swap else pair, gseed, s.format)
                n += 1
                if g.winner is None:
                    draws += 1
                elif g.winner == (1 if swap else 0):
                    wins += 1
                if progress is not None:
                    progress(1)
        rate = (wins + 0.5 * draws) / n
        lo, hi = wilson(wins + 0.5 * draws, n)
        out[part] = {
            "games": n,
            "wins": wins,
            "draws": draws,
            "win_rate": round(rate, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
        }
    out["gap"] = round(out["train"]["win_rate"] - out["heldout"]["win_rate"], 4)
    return out
