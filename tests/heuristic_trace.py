"""The scripted player's games along fixed seeds: heuristic against heuristic over every
ordered deck pair of every format, and against random. Each game's final state hash (any
different choice changes the rest of the game) and decision count; the record
(tests/data/heuristic_trace.json) proves a rewrite of the heuristic plays as before.

Regenerate (only when a change of play is intended): `python -P tests/heuristic_trace.py`
(`-P`: the script's folder is not put first on the import path, where `tests/agents/`, the
agents' tests, would stand for the `agents` package).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRACE = Path(__file__).parent / "data" / "heuristic_trace.json"


def heuristic_trace() -> dict[str, Any]:
    from agents import make_agent
    from mtg_env.engine import Game, load_decks
    from mtg_env.engine.formats import FORMATS

    out = []
    for fmt in ("classic", "adventure", "pocket"):
        decks = load_decks(fmt)
        names = sorted(decks)
        pairs = [(a, b) for a in names for b in names if FORMATS[fmt].piles == 2 or a == b]
        games = [(a, b, "heuristic") for a, b in pairs] + [(a, b, "random") for a, b in pairs]
        seeds = range(4) if len(pairs) == 1 else range(1)
        for i, (a, b, opp) in enumerate(games):
            for s in seeds:
                seed = 100 * i + s
                agents = [make_agent("heuristic", seed, fmt=fmt), make_agent(opp, seed + 1)]
                g = Game.new((decks[a], decks[b]), seed=seed, format=fmt, max_decisions=3000)
                while not g.is_over:
                    g.apply(agents[g.current_player].choose(g))
                out.append(
                    {
                        "format": fmt,
                        "decks": [a, b],
                        "opponent": opp,
                        "seed": seed,
                        "decisions": g.n_decisions,
                        "hash": g.state_hash(),
                    }
                )
    return {"games": out}


if __name__ == "__main__":
    from mtg_env.io import atomic_write_text

    atomic_write_text(TRACE, json.dumps(heuristic_trace(), indent=1) + "\n")
    print(f"wrote {TRACE}")
