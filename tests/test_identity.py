"""Identity gate: every format x deck pair x 20 seeds plays, observes and masks exactly as
recorded (tests/identity_trace.py). A refactor that is meant to be behaviour-identical must
leave every digest as it is; one that changes behaviour on purpose regenerates the file
(`pytest tests/test_identity.py --regen-identity`) and says why in its commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from identity_trace import games, trace

DATA = Path(__file__).parent / "data" / "identity"
FORMATS = sorted({g[0] for g in games()})


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_game_plays_observes_and_masks_as_recorded(
    fmt: str, request: pytest.FixtureRequest
) -> None:
    got = [trace(*g) for g in games() if g[0] == fmt]
    path = DATA / f"{fmt}.json"
    if request.config.getoption("--regen-identity"):
        from mtg_env.io import write_json

        write_json(path, got)
    want = json.loads(path.read_text())
    assert len(got) == len(want) >= 20
    pairs = zip(want, got, strict=True)
    bad = [(w["game"], w["actions"], g["actions"]) for w, g in pairs if w != g]
    assert not bad, f"{len(bad)} of {len(want)} {fmt} games differ, first: {bad[:3]}"
