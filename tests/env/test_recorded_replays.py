"""Replays recorded with an earlier version (tests/data/replays) still verify: the same
actions reproduce every recorded state hash, in every format."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtg_env.env.replay import load_replay, verify

REPLAYS = sorted((Path(__file__).parents[1] / "data" / "replays").glob("*.json"))


def test_there_are_recorded_replays_of_every_format() -> None:
    assert {p.name.split("_")[0] for p in REPLAYS} == {"classic", "adventure", "pocket"}


@pytest.mark.parametrize("path", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_a_recorded_replay_verifies(path: Path) -> None:
    m = load_replay(path)
    g = verify(m)
    assert g.state_hash() == m.final_hash and m.hashes_checked >= 2
