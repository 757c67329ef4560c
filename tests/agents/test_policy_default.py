"""The shipped policy:default in the data-only format plays exactly as the pickled file it
was converted from: the same action at every decision of fixed seeded games, recorded with
the old file before the conversion (tests/data/default_policy_trace.json)."""

from __future__ import annotations

import json
from pathlib import Path

from policy_trace import policy_trace

TRACE = Path(__file__).parents[1] / "data" / "default_policy_trace.json"


def test_default_policy_plays_as_recorded_before_the_format_change() -> None:
    from agents.policy import DEFAULT, load_model

    assert DEFAULT.suffix == ".safetensors"
    want = json.loads(TRACE.read_text())
    got = policy_trace(load_model(DEFAULT))
    assert sum(len(g["actions"]) for g in want["games"]) > 1000
    for w, g in zip(want["games"], got["games"], strict=True):
        assert g["actions"] == w["actions"], f"game seed {w['seed']} diverges"
        assert g["hash"] == w["hash"]


def test_default_policy_says_which_format_it_plays() -> None:
    import pytest

    from agents.policy import DEFAULT, CheckpointError, PolicyAgent, load_model

    model = load_model(DEFAULT)
    assert model.mtg_spec.game_format == "classic"
    with pytest.raises(CheckpointError, match="plays the classic format, not adventure"):
        PolicyAgent(model, fmt="adventure", name="policy:default")
