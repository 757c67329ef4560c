"""The scripted player plays as recorded (tests/heuristic_trace.py): same final state and
decision count in every game of the record, so a rewrite of how it picks cards (by their
characteristics and effects instead of their names) changed none of its choices."""

from __future__ import annotations

import json

from heuristic_trace import TRACE, heuristic_trace


def test_the_heuristic_plays_every_recorded_game_as_before() -> None:
    want = json.loads(TRACE.read_text())["games"]
    got = heuristic_trace()["games"]
    assert len(want) > 100
    for w, g in zip(want, got, strict=True):
        assert g == w, f"{w['format']} {w['decks']} vs {w['opponent']} seed {w['seed']} diverges"
