"""CI-sized invariant fuzzing: 8 chunks of 25,000 decisions (200,000 in all), every check
of `mtg_env.fuzz` after every action, and 10,000 decisions of core games between seeded
random (generated) decks. Long runs: `python scripts/fuzz.py --decisions N` and
`python scripts/fuzz.py --decisions N --random-decks core`."""

from __future__ import annotations

import pytest

from mtg_env.fuzz import run

CHUNKS = 8
PER_CHUNK = 25_000


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_invariant_fuzz(chunk: int, tmp_path) -> None:
    stats = run(PER_CHUNK, seed=1000 + chunk, out_dir=tmp_path)
    assert stats.failures == []
    assert stats.decisions >= PER_CHUNK


def test_invariant_fuzz_core_random_decks(tmp_path) -> None:
    stats = run(10_000, seed=7, formats=("core",), out_dir=tmp_path, random_decks=True)
    assert stats.failures == []
    assert stats.decisions >= 10_000 and stats.games >= 2
