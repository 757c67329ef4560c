"""Perft counts and golden playthroughs, pinned in tests/data. Regenerate on purpose with
`python scripts/perft.py --regen` and `pytest tests/tools/test_golden_perft.py --regen-golden`."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from mtg_env.tools.golden import GAMES, playthrough
from mtg_env.tools.perft import perft, position

DATA = Path(__file__).parents[1] / "data"


def test_perft_counts_are_pinned() -> None:
    rows = json.loads((DATA / "perft.json").read_text())
    assert len(rows) >= 6
    for r in rows:
        g = position(r["deck_a"], r["deck_b"], r["seed"], r["advance"])
        assert g.state_hash() == r["hash"], f"position drifted: {r}"
        assert perft(g, r["depth"]) == r["count"], r


@pytest.mark.parametrize("name,deck_a,deck_b,seed", GAMES)
def test_golden_playthrough(
    name: str, deck_a: str, deck_b: str, seed: int, request: pytest.FixtureRequest
) -> None:
    path = DATA / "golden" / f"{name}.txt"
    text = playthrough(deck_a, deck_b, seed)
    if request.config.getoption("--regen-golden"):
        from mtg_env.io import atomic_write_text

        atomic_write_text(path, text)
    want = path.read_text()
    if text != want:
        diff = "".join(
            list(
                difflib.unified_diff(want.splitlines(True), text.splitlines(True), "pinned", "now")
            )[:60]
        )
        pytest.fail(f"{name} differs from the pinned playthrough:\n{diff}")
