"""The `mtg-env` command: scenario run and watch."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mtg_env.cli import app

runner = CliRunner()
GOOD = Path(__file__).parents[1] / "scenarios" / "classic" / "cr_302_6_summoning_sickness.yaml"

FAILING = """
name: Bolt deals 4 (wrong on purpose)
setup:
  players:
    - hand: [Lightning Bolt]
      battlefield: [Mountain]
    - {}
script:
  - {player: 0, play: Lightning Bolt, targets: [player1]}
  - resolve
expect:
  - {player: 1, life: 16}
"""


def test_scenario_run_pass(tmp_path: Path) -> None:
    r = runner.invoke(app, ["scenario", "run", str(GOOD)])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("PASS ")


def test_scenario_run_fail_says_expected_and_actual(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(FAILING)
    r = runner.invoke(app, ["scenario", "run", str(GOOD), str(f)])
    assert r.exit_code == 1
    assert "PASS " in r.output
    assert (
        "FAIL Bolt deals 4 (wrong on purpose): player 1: life: expected 16, actual 17" in r.output
    )


def test_scenario_run_json(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(FAILING)
    r = runner.invoke(app, ["scenario", "run", "--json", str(f)])
    rec = json.loads(r.output.strip().splitlines()[0])
    assert rec["ok"] is False and "expected 16" in rec["message"]


def test_malformed_scenario_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "malformed.yaml"
    f.write_text("name: x\nsetup:\n  players: [{}, {}]\n  stepp: main1\nexpect: [{step: main1}]\n")
    r = runner.invoke(app, ["scenario", "run", str(f)])
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert "malformed.yaml" in r.output and "stepp" in r.output


def test_scenario_with_unknown_card_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "unknown.yaml"
    f.write_text(
        "name: x\nsetup:\n  players: [{hand: [Lightning Blot]}, {}]\nexpect: [{step: main1}]\n"
    )
    r = runner.invoke(app, ["scenario", "run", str(f)])
    assert r.exit_code == 2 and "Lightning Blot" in r.output and "Traceback" not in r.output


def test_watch_prints_a_game_with_result() -> None:
    r = runner.invoke(app, ["watch", "--seed", "2"])
    assert r.exit_code == 0, r.output
    assert "Turn 1" in r.output and "Result:" in r.output


def test_watch_bad_deck_is_a_clear_error() -> None:
    r = runner.invoke(app, ["watch", "--decks", "Nope,Red Burn"])
    assert r.exit_code == 2
    assert "Nope" in r.output


def test_watch_explain_lists_layer_effects() -> None:
    r = runner.invoke(
        app,
        [
            "watch",
            "--seed",
            "4",
            "--decks",
            "Merfolk Auras,Rakdos Vampires",
            "--explain",
            "Coral Merfolk",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "Coral Merfolk" in r.output and "printed Coral Merfolk 2/1" in r.output
    assert "7c (modify P/T): Lord of Atlantis" in r.output and "(timestamp" in r.output
