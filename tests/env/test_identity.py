"""Identity gate: every format x deck pair x 20 seeds plays, observes and masks exactly as
recorded (tests/identity_trace.py): make test plays the first seeds of every pair, make
test-all (--long) the rest. A refactor that is meant to be behaviour-identical must
leave every digest as it is; one that changes behaviour on purpose regenerates the file
(`pytest tests/env/test_identity.py --regen-identity`) and says why in its commit.

The env gate (tests/env_trace.py) does the same for what the envs show: both observation
types through `raw_env`, `SelfPlayEnv` and `DuelBatch`, one digest each."""

from __future__ import annotations

import json
from pathlib import Path

import env_trace
import pytest
from identity_trace import games, trace

DATA = Path(__file__).parents[1] / "data" / "identity"
FORMATS = sorted({g[0] for g in games()})


QUICK_SEEDS = 4  # make test checks the first seeds of every deck pair; --long the rest
PARTS = [
    pytest.param(fmt, part, marks=[pytest.mark.long] if part == "rest" else [])
    for fmt in FORMATS
    for part in ("quick", "rest")
]


@pytest.mark.parametrize(("fmt", "part"), PARTS)
def test_every_game_plays_observes_and_masks_as_recorded(
    fmt: str, part: str, request: pytest.FixtureRequest
) -> None:
    """Every deck pair of the format at seeds below QUICK_SEEDS (`quick`, in make test), or
    the other seeds (`rest`, make test-all): the two together are the whole record."""
    everything = [g for g in games() if g[0] == fmt]
    path = DATA / f"{fmt}.json"
    if request.config.getoption("--regen-identity"):
        # Either part rewrites the whole record (the same file either way), so that the
        # comparison below reads it whichever part runs first.
        from mtg_env.io import write_json

        write_json(path, [trace(*g) for g in everything])
    want = json.loads(path.read_text())
    assert len(want) == len(everything) >= 20
    assert [w["game"] for w in want] == ["|".join(map(str, g)) for g in everything]
    chosen = [(w, g) for w, g in zip(want, everything) if (g[3] < QUICK_SEEDS) == (part == "quick")]
    if part == "quick":
        assert len({w["game"].rsplit("|", 1)[0] for w, _ in chosen}) == len(
            {w["game"].rsplit("|", 1)[0] for w in want}
        ), "the quick part plays every deck pair"
    got = [(w, trace(*g)) for w, g in chosen]
    bad = [(w["game"], w["actions"], g["actions"]) for w, g in got if w != g]
    assert not bad, f"{len(bad)} of {len(got)} {fmt} games ({part}) differ, first: {bad[:3]}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_env_shows_what_it_showed_when_recorded(
    fmt: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = DATA / "envs.json"
    got = env_trace.trace(fmt)
    if request.config.getoption("--regen-identity"):
        from filelock import FileLock

        from mtg_env.io import write_json

        # One record for every format: the formats' tests may run in parallel (xdist
        # workers share the parent of their base temp folders).
        with FileLock(str(tmp_path_factory.getbasetemp().parent / "envs.json.lock")):
            record = json.loads(path.read_text()) if path.exists() else {}
            record[fmt] = got
            write_json(path, dict(sorted(record.items())))
    want = json.loads(path.read_text())[fmt]
    bad = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
    assert not bad, f"{fmt}: {len(bad)} of {len(want)} env digests differ: {bad}"
