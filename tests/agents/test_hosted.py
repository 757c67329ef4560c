"""A Spellbench host run rated as an evaluation (`agents.hosted`): rated games become game
rows with B as the pinned anchor; halted games are kept apart and the run is not complete."""

from __future__ import annotations

import pytest

from agents.hosted import game_row, host_config, host_results
from agents.results import GameRow
from mtg_env.spellbench.host import GameRecord


def _record(index: int, score: float, classification: str = "natural") -> GameRecord:
    return GameRecord(
        index=index, game_id=f"g-{index}", agent="a/1", opponent="b/1", seat_agent=index % 2,
        deck_agent="X", deck_opponent="Y", score=score, outcome="p0_win",
        classification=classification, winner="p0", reason="r", steps=50, turns=9,
        digest="sha256:0", seat_steps=[30, 20], seat_ms=[1500.0, 900.0], seconds=2.5,
    )  # fmt: skip


def _config(pairs: int = 2) -> dict:
    return host_config(
        "a/1", "b/1", 1000.0, fmt="classic", engine={"name": "e", "version": "1"},
        catalog={"X": [], "Y": []}, pairs=pairs, seed=7, max_decisions=2000,
    )  # fmt: skip


def test_a_rated_game_is_an_evaluation_row_from_a_side() -> None:
    row = game_row(_record(3, 1.0))
    GameRow.model_validate(row)  # what evaluate and compare check when they read a file
    assert (row["pair"], row["swap"], row["seat_agent"]) == (1, 1, 1)
    assert row["agent_decisions"] == 20 and row["agent_seconds"] == 0.9  # seat 1's
    assert row["key"] == "a/1|b/1|1|1" and row["digest"] == "sha256:0"


def test_halted_games_are_kept_apart_and_the_run_is_not_complete() -> None:
    records = [_record(0, 1.0), _record(1, 0.0), _record(2, 1.0), _record(3, -1.0, "halted")]
    res = host_results(_config(), records, "cmd")
    assert res["games_played"] == 3 and res["complete"] is False
    assert [u["index"] for u in res["unrated"]] == [3]
    assert res["per_anchor"][0]["wins"] == 2 and res["rating"]["elo"] > 1000
    full = host_results(_config(), records[:3] + [_record(3, 0.0)])
    assert full["complete"] is True and not full["unrated"]


def test_a_run_has_one_opponent() -> None:
    config = _config()
    config["anchors"] = config["anchors"] * 2
    with pytest.raises(ValueError, match="one opponent"):
        host_results(config, [_record(0, 1.0)])
