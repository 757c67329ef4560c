"""Scenario files are validated when loaded: every field of every step and expectation is
type-checked, labels can't shadow cards or players, passes are bounded, and no check can
pass by accident; each error names the file, the entry and the field."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mtg_env.scenario import ScenarioError, parse_scenario, run_scenario

BASE: dict[str, Any] = {
    "name": "base",
    "setup": {
        "turn": 3,
        "players": [
            {"battlefield": [{"card": "Serra Angel", "id": "angel"}, "Plains"]},
            {"battlefield": [{"card": "Grizzly Bears", "id": "bears"}]},
        ],
    },
    "expect": [{"object": "angel", "power": 4}],
}


def scenario(**changes: Any) -> dict[str, Any]:
    raw = copy.deepcopy(BASE)
    raw.update(changes)
    return raw


def test_base_scenario_is_valid_and_passes() -> None:
    assert run_scenario(parse_scenario(scenario(), "base.yaml")).ok


def test_lacks_keywords_as_a_string_no_longer_passes_falsely() -> None:
    """`lacks_keywords: flying` used to be read as the letters of "flying", none of which
    is a keyword, so it passed for Serra Angel, which has flying."""
    raw = scenario(expect=[{"object": "angel", "lacks_keywords": "flying"}])
    with pytest.raises(ScenarioError, match=r"s\.yaml: expect\[0\]: field lacks_keywords: a list"):
        parse_scenario(raw, "s.yaml")
    raw = scenario(expect=[{"object": "angel", "lacks_keywords": ["flying"]}])
    assert not run_scenario(parse_scenario(raw, "s.yaml")).ok


WRONG_EXPECTATIONS = [
    ({"object": "angel", "power": "4"}, "power"),
    ({"object": "angel", "power": True}, "power"),
    ({"object": "angel", "tapped": "no"}, "tapped"),
    ({"object": "angel", "types": "creature"}, "types"),
    ({"object": "angel", "colors": "W"}, "colors"),
    ({"object": "angel", "colors": ["white"]}, "colors"),
    ({"object": "angel", "keywords": "flying"}, "keywords"),
    ({"object": "angel", "has_keywords": "flying"}, "has_keywords"),
    ({"object": "angel", "counters": {"+1/+1": "one"}}, "counters"),
    ({"object": "angel", "counters": 3}, "counters"),
    ({"object": "angel", "zone": "table"}, "zone"),
    ({"object": "angel", "controller": 2}, "controller"),
    ({"object": "angel", "damage": -1}, "damage"),
    ({"object": ["angel"], "power": 4}, "object"),
    ({"player": 1, "life": "20"}, "life"),
    ({"player": 2, "life": 20}, "player"),
    ({"player": True, "life": 20}, "player"),
    ({"player": 0, "hand_size": -1}, "hand_size"),
    ({"winner": 3}, "winner"),
    ({"game_over": "no"}, "game_over"),
    ({"stack_size": "0"}, "stack_size"),
    ({"step": 5}, "step"),
    ({"step": "lunch"}, "step"),
    ({"objects": {"name": "Grizzly Bears"}, "count": "1"}, "count"),
    ({"objects": {"zone": "table"}, "count": 1}, "objects"),
]


@pytest.mark.parametrize(
    ("exp", "field"), WRONG_EXPECTATIONS, ids=[w[1] for w in WRONG_EXPECTATIONS]
)
def test_expectations_of_the_wrong_type_are_one_error(exp: dict, field: str) -> None:
    with pytest.raises(ScenarioError, match=rf"^s\.yaml: expect\[0\]: field {field}: "):
        parse_scenario(scenario(expect=[exp]), "s.yaml")


WRONG_STEPS = [
    ({"player": "0", "play": "Shock"}, "player"),
    ({"player": True, "play": "Shock"}, "player"),
    ({"player": 0, "play": 7}, "play"),
    ({"player": 0, "play": "Shock", "targets": "bears"}, "targets"),
    ({"player": 0, "activate": "angel", "ability": "0"}, "ability"),
    ({"player": 0, "activate": "angel", "ability": -1}, "ability"),
    ({"player": 0, "attack": "angel"}, "attack"),
    ({"player": 0, "block": ["angel"]}, "block"),
    ({"player": 0, "choose": {"x": 1}}, "choose"),
    ({"pass": -5}, "pass"),
    ({"pass": 0}, "pass"),
    ({"pass": 1_000_000_000}, "pass"),
    ({"pass": "3"}, "pass"),
    ({"advance": 3}, "advance"),
    ({"player": 0, "play": "Shock", "expect_error": "yes"}, "expect_error"),
]


@pytest.mark.parametrize(
    ("step", "field"), WRONG_STEPS, ids=[f"{w[1]}-{i}" for i, w in enumerate(WRONG_STEPS)]
)
def test_steps_of_the_wrong_type_are_one_error(step: dict, field: str) -> None:
    with pytest.raises(ScenarioError, match=rf"^s\.yaml: script\[0\]: field {field}: "):
        parse_scenario(scenario(script=[step]), "s.yaml")


@pytest.mark.parametrize(
    ("label", "message"),
    [
        ("Grizzly Bears", "is a card name"),
        ("Lightning Bolt", "is a card name"),  # any card of the format, not only this one's
        ("player1", "names a player"),
        ("", "an empty label"),
        ("   ", "an empty label"),
        ("angel", "used twice"),
    ],
)
def test_labels_may_not_shadow_cards_or_players(label: str, message: str) -> None:
    raw = scenario()
    raw["setup"]["players"][1]["battlefield"] = [{"card": "Grizzly Bears", "id": label}]
    with pytest.raises(
        ScenarioError,
        match=rf"s\.yaml: setup\.players\[1\]\.battlefield\[0\]: field id: .*{message}",
    ):
        parse_scenario(raw, "s.yaml")


HS = "Holy Strength"


@pytest.mark.parametrize(
    ("entry", "zone", "message"),
    [
        ({"card": HS, "id": "hs", "attached_to": "hs"}, "battlefield", "the entry itself"),
        ({"card": HS, "attached_to": "inhand"}, "battlefield", "not the label of a permanent"),
        ({"card": HS, "attached_to": "nobody"}, "battlefield", "not the label of a permanent"),
        ({"card": HS, "attached_to": "angel"}, "hand", "only a permanent on the battlefield"),
    ],
)
def test_attached_to_names_another_permanent(entry: dict, zone: str, message: str) -> None:
    raw = scenario()
    raw["setup"]["players"][0]["hand"] = [{"card": "Shock", "id": "inhand"}]
    raw["setup"]["players"][0][zone] = raw["setup"]["players"][0].get(zone, []) + [entry]
    with pytest.raises(ScenarioError, match=rf"field attached_to: .*{message}"):
        parse_scenario(raw, "s.yaml")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"card": "Shock", "source": "angel"}, r"stack\[0\]: a spell names its 'card'"),
        ({"ability": 0}, r"stack\[0\]: a spell names its 'card'"),
        ({"source": "inhand"}, r"stack\[0\]: field source: 'inhand' is not the label of a"),
        ({"card": "Shock", "targets": ["nobody"]}, r"field targets\[0\]: 'nobody' is neither"),
        ({"card": "Shock", "id": "angel"}, r"stack\[0\]: field id: label 'angel' is used twice"),
        ({"card": "Shock", "mode": -1}, r"field setup\.stack\[0\]\.mode: Input should be"),
    ],
)
def test_stack_entries_are_checked_when_loaded(entry: dict, message: str) -> None:
    raw = scenario()
    raw["setup"]["players"][0]["hand"] = [{"card": "Shock", "id": "inhand"}]
    raw["setup"]["stack"] = [entry]
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(raw, "s.yaml")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"card": "Plains"}, "'Plains' is no card that is cast"),
        ({"source": "angel", "ability": 0}, "Serra Angel has no activated ability 0"),
        ({"card": "Shock", "mode": 1}, "Shock has no mode 1"),
    ],
)
def test_a_stack_entry_the_game_cannot_set_up_is_one_error(entry: dict, message: str) -> None:
    raw = scenario()
    raw["setup"]["stack"] = [entry]
    with pytest.raises(ScenarioError, match=rf"^s\.yaml: setup: stack\[0\]: {message}"):
        run_scenario(parse_scenario(raw, "s.yaml"))


def test_poison_counters_in_a_set_without_infect_are_one_error() -> None:
    """A classic game keeps no poison counters (no card of the set has infect, CR 702.90):
    setting some up names the player and the field; a count of them is checked as loaded."""
    raw = scenario()
    raw["setup"]["players"][1]["poison"] = 3
    with pytest.raises(
        ScenarioError,
        match=r"^s\.yaml: setup: players\[1\]: field poison: the classic card set has no card "
        r"with infect",
    ):
        run_scenario(parse_scenario(raw, "s.yaml"))
    raw["setup"]["players"][1]["poison"] = -1
    with pytest.raises(ScenarioError, match=r"poison"):
        parse_scenario(raw, "s.yaml")


def test_a_pocket_scenario_with_a_huge_pass_is_refused_before_running() -> None:
    raw = {
        "name": "pocket pass",
        "format": "pocket",
        "setup": {"players": [{}, {}]},
        "script": [{"pass": 1_000_000_000}],
        "expect": [{"game_over": False}],
    }
    with pytest.raises(ScenarioError, match=r"script\[0\]: field pass: a count from 1 to 1000"):
        parse_scenario(raw, "pocket.yaml")


def test_a_crash_inside_the_runner_is_a_failed_result_naming_the_step(monkeypatch) -> None:
    from mtg_env import scenario as sc_mod

    def boom(self: Any, n: int) -> None:
        raise KeyError("engine bug")

    monkeypatch.setattr(sc_mod.Runner, "passes", boom)
    r = run_scenario(parse_scenario(scenario(script=["pass"]), "s.yaml"))
    assert not r.ok and r.message.startswith("script[0] pass: the runner failed (KeyError")


def test_a_folder_run_reports_every_file_and_goes_on(tmp_path: Path) -> None:
    import yaml

    (tmp_path / "a_good.yaml").write_text(yaml.safe_dump(scenario()))
    (tmp_path / "b_bad.yaml").write_text(
        yaml.safe_dump(scenario(expect=[{"object": "angel", "lacks_keywords": "flying"}]))
    )
    (tmp_path / "c_good.yaml").write_text(yaml.safe_dump(scenario()))
    r = subprocess.run(
        [str(Path(sys.executable).parent / "mtg-env"), "scenario", "run", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = r.stdout.strip().splitlines()
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr
    assert lines[0] == "PASS base" and lines[2] == "PASS base"
    assert (
        lines[1].startswith("ERROR ") and "b_bad.yaml: expect[0]: field lacks_keywords" in lines[1]
    )
