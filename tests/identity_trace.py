"""Identity traces: every format x ordered deck pair x 20 seeds played by seeded random legal
play through `raw_env`, with the state hash, the acting player's observation and its mask
after every action folded into one digest per game. Recorded before a refactor
(tests/data/identity/FORMAT.json), compared after it: any change to a hash, an observation
or a mask in any game shows as that game's digest. Regenerate on purpose with
`pytest tests/env/test_identity.py --regen-identity`."""

from __future__ import annotations

import hashlib
import random
from typing import Any

SEEDS = range(20)
# A format with more than MAX_ALL_PAIRS decks plays each deck against the next rather than
# every ordered pair, with fewer seeds (MAX_GAMES games in all), so that the gate stays a
# minute of `make test`.
MAX_ALL_PAIRS = 6
MAX_GAMES = 200


def games() -> list[tuple[str, str, str, int]]:
    """(format, deck A, deck B, seed) for every format x ordered deck pair x seed; one
    shared pile plays itself (pocket)."""
    from mtg_env.engine import load_decks
    from mtg_env.engine.formats import FORMATS, rules_for

    out = []
    for fmt in sorted(FORMATS):
        names = sorted(load_decks(fmt))
        seeds = SEEDS
        if rules_for(fmt).piles == 1:
            pairs = [(x, x) for x in names]
        elif len(names) <= MAX_ALL_PAIRS:
            pairs = [(a, b) for a in names for b in names if a != b]
        else:  # many decks (core): each deck against the next, every deck on both sides
            pairs = [(a, names[(i + 1) % len(names)]) for i, a in enumerate(names)]
            seeds = range(max(MAX_GAMES // len(pairs), 2))
        out += [(fmt, a, b, s) for a, b in pairs for s in seeds]
    return out


def trace(fmt: str, deck_a: str, deck_b: str, seed: int) -> dict[str, Any]:
    import numpy as np

    from mtg_env.env import raw_env

    env = raw_env(format=fmt, decks=(deck_a, deck_b), replay_hashes=False)
    env.reset(seed=seed)
    rng = random.Random(seed)
    h = hashlib.sha256()
    n = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
        n += 1
        g = env.game
        h.update(g.state_hash().encode())
        if not g.is_over and env.agent_selection is not None:
            now = env.observe(env.agent_selection)
            h.update(now["observation"].tobytes())
            h.update(now["action_mask"].tobytes())
    return {
        "game": f"{fmt}|{deck_a}|{deck_b}|{seed}",
        "actions": n,
        "digest": h.hexdigest()[:32],
    }
