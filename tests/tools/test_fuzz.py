"""Invariant fuzzing: every check of `mtg_env.tools.fuzz` after every action, in chunks of 12,500
decisions, and 10,000 decisions of core games between seeded random (generated) decks.
`make test` runs the first two chunks (25,000 decisions; the pure-engine pass the first);
`make test-all` (and CI) runs all 80, a million decisions. Longer runs: `python
scripts/fuzz.py --decisions N` and `python scripts/fuzz.py --decisions N --random-decks core`."""

from __future__ import annotations

import pytest

from mtg_env.tools.fuzz import run

CHUNKS = 80
PER_CHUNK = 12_500
QUICK_CHUNKS = 1  # in make test (and its pure-engine pass); the rest are marked long


@pytest.mark.parametrize(
    "chunk",
    [pytest.param(c, marks=[pytest.mark.long] if c >= QUICK_CHUNKS else []) for c in range(CHUNKS)],
)
def test_invariant_fuzz(chunk: int, tmp_path) -> None:
    stats = run(PER_CHUNK, seed=1000 + chunk, out_dir=tmp_path)
    assert stats.failures == []
    assert stats.decisions >= PER_CHUNK


# 5,000 decisions in make test, 5,000 more (another seed) in make test-all.
@pytest.mark.parametrize("seed", [7, pytest.param(8, marks=pytest.mark.long)])
def test_invariant_fuzz_core_random_decks(tmp_path, seed: int) -> None:
    stats = run(5_000, seed=seed, formats=("core",), out_dir=tmp_path, random_decks=True)
    assert stats.failures == []
    assert stats.decisions >= 5_000 and stats.games >= 2
