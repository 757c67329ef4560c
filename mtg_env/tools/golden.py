"""Golden playthroughs: a seeded game written out in full (every decision, its legal
actions and the chosen action), diffed in tests to catch any silent change."""

from __future__ import annotations

import random

from ..engine import Game, load_decks
from ..engine.constants import DECISION_NAMES

GAMES = [
    ("golden_1", "Green Stompy", "Blue-Black Control", 11),
    ("golden_2", "Merfolk Auras", "Rakdos Vampires", 22),
]


def playthrough(deck_a: str, deck_b: str, seed: int) -> str:
    decks = load_decks("classic")
    g = Game.new((decks[deck_a], decks[deck_b]), seed=seed)
    r = random.Random(seed)
    lines = [f"# {deck_a} vs {deck_b}, seed {seed}"]
    n = 0
    while not g.is_over:
        d = g.decision
        assert d is not None
        legal = g.legal_actions()
        a = r.choice(legal)
        step = g.rules.step_name(g.step)
        lines.append(
            f"{n:04d} turn {g.turn} {step} | {DECISION_NAMES[d.kind]} of player "
            f"{d.player} | life {g.life[0]}-{g.life[1]}"
        )
        for x in legal:
            mark = "*" if x == a else " "
            lines.append(f"   {mark} {g.describe(x)}")
        g.apply(a)
        n += 1
    lines.append(
        f"result: {'draw' if g.winner is None else f'player {g.winner} wins'} "
        f"after {n} decisions; final hash {g.state_hash()}"
    )
    return "\n".join(lines) + "\n"
