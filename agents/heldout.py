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

from mtg_env.decks import generate_deck
from mtg_env.engine import Deck, load_cards, load_decks
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
    # The held-out card part: decks generated from the cards no training deck holds.
    unseen_decks: int = 0
    unseen_seed: int = 0


def load_split(path: Path = SPLIT_FILE) -> Split:
    """The fixed split, checked against the bundled decks: every deck in exactly one part."""
    raw = load_yaml(path, "benchmark split")
    if not isinstance(raw, dict) or set(raw) - {"unseen_cards"} != {"format", "train", "heldout"}:
        raise ValueError(
            f"{path}: a mapping with 'format', 'train' and 'heldout' (and 'unseen_cards')"
        )
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
    unseen = raw.get("unseen_cards", {"decks": 0, "seed": 0})
    if not (
        isinstance(unseen, dict)
        and set(unseen) == {"decks", "seed"}
        and all(type(v) is int and v >= 0 for v in unseen.values())
    ):
        raise ValueError(f"{path}: field unseen_cards: a mapping of 'decks' and 'seed' (integers)")
    return Split(fmt, tuple(raw["train"]), tuple(raw["heldout"]), unseen["decks"], unseen["seed"])


def train_decks(split: Split | None = None) -> list[Deck]:
    """The decks a policy may be trained on."""
    s = split or load_split()
    decks = load_decks(s.format)
    return [decks[n] for n in s.train]


def unseen_cards(split: Split | None = None) -> frozenset[str]:
    """The cards of the format's set that no training deck holds (what a policy trained on
    the training decks has never seen), basic lands aside."""
    s = split or load_split()
    seen = {c for d in train_decks(s) for c in d.cards}
    return frozenset(n for n in load_cards(s.format).cards if n not in seen)


def unseen_card_decks(split: Split | None = None) -> dict[str, Deck]:
    """The held-out card part: `unseen_decks` decks from the deck generator, seeded, whose
    spells are all unseen cards (`unseen_cards`) and whose lands are basics."""
    s = split or load_split()
    only = unseen_cards(s)
    out: dict[str, Deck] = {}
    for i in range(s.unseen_decks):
        name = f"Unseen cards {i + 1}"
        out[name] = generate_deck(s.format, seed=s.unseen_seed * 1000 + i, name=name, only=only)
    return out


def run_heldout(
    agent: str,
    opponent: str = "heuristic",
    games: int = 100,
    seed: int = 0,
    split: Split | None = None,
    progress: Callable[[int], None] | None = None,
    unseen: bool = False,
) -> dict[str, Any]:
    """`games` games (rounded up to even) on each part: the agent's deck and the opponent's
    drawn from that part with the seed, each pair played twice with seats swapped. With
    `unseen`, the held-out card part too (`unseen_card_decks`), and its gap."""
    s = split or load_split()
    decks = dict(load_decks(s.format))
    extra = unseen_card_decks(s) if unseen else {}
    decks.update(extra)
    parts = {"train": s.train, "heldout": s.heldout}
    if unseen:
        if not extra:
            raise ValueError("the split has no held-out card part (unseen_cards: decks 0)")
        parts["unseen_cards"] = tuple(extra)
    make_agent(agent, fmt=s.format)  # a bad spec fails before any game
    make_agent(opponent, fmt=s.format)
    out: dict[str, Any] = {
        "format": s.format,
        "agent": agent,
        "opponent": opponent,
        "seed": seed,
        "split": {"train": list(s.train), "heldout": list(s.heldout)},
    }
    for part, names in parts.items():
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
    if unseen:
        out["unseen_cards_decks"] = {n: list(d.cards) for n, d in extra.items()}
        out["gap_unseen_cards"] = round(
            out["train"]["win_rate"] - out["unseen_cards"]["win_rate"], 4
        )
    return out
