"""CI-sized invariant fuzzing: 8 chunks of 25,000 decisions (200,000 in all), every check
of `mtg_env.fuzz` after every action. Long runs: `python scripts/fuzz.py --decisions N`."""

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
