"""The held-out-deck benchmark: a fixed split of the core decks, win rates per part with
intervals, the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.heldout import (
    load_split,
    run_heldout,
    train_decks,
    unseen_card_decks,
    unseen_cards,
)
from mtg_env.engine import load_decks

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


def test_the_split_puts_every_bundled_core_deck_in_exactly_one_part() -> None:
    s = load_split()
    assert s.format == "core"
    assert not set(s.train) & set(s.heldout)
    assert set(s.train) | set(s.heldout) == set(load_decks("core"))
    assert [d.name for d in train_decks(s)] == list(s.train)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("format: core\ntrain: [Nope]\nheldout: [Rakdos Removal]\n", r"train\[0\]: no bundled"),
        ("format: core\ntrain: []\nheldout: [Rakdos Removal]\n", "field train: a list"),
        ("format: core\ntrain: [Rakdos Aggro]\n", "a mapping with 'format', 'train'"),
    ],
)
def test_a_bad_split_names_the_file_and_field(tmp_path: Path, text: str, error: str) -> None:
    p = tmp_path / "split.yaml"
    p.write_text(text)
    with pytest.raises(ValueError, match=error) as e:
        load_split(p)
    assert str(p) in str(e.value)


def test_a_deck_in_both_parts_or_in_neither_is_refused(tmp_path: Path) -> None:
    names = sorted(load_decks("core"))
    p = tmp_path / "split.yaml"
    p.write_text(json.dumps({"format": "core", "train": names, "heldout": names[:1]}))
    with pytest.raises(ValueError, match="is in both parts"):
        load_split(p)
    p.write_text(json.dumps({"format": "core", "train": names[:1], "heldout": names[1:2]}))
    if len(names) > 2:
        with pytest.raises(ValueError, match="is in neither part"):
            load_split(p)


def test_each_part_reports_a_win_rate_with_its_interval_and_the_gap() -> None:
    r = run_heldout("random", "random", games=4, seed=1)
    for part in ("train", "heldout"):
        x = r[part]
        assert x["games"] == 4
        assert x["win_rate"] == pytest.approx((x["wins"] + 0.5 * x["draws"]) / 4, abs=1e-4)
        assert 0 <= x["ci95"][0] <= x["win_rate"] <= x["ci95"][1] <= 1
    assert r["gap"] == pytest.approx(r["train"]["win_rate"] - r["heldout"]["win_rate"], abs=1e-4)
    assert run_heldout("random", "random", games=4, seed=1) == r  # seeded


def test_heldout_command_prints_json_and_refuses_a_bad_agent() -> None:
    ok = subprocess.run(
        [MTG_ENV, "heldout", "random", "--opponent", "random", "--games", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ok.returncode == 0, ok.stderr
    res = json.loads(ok.stdout)
    assert res["train"]["games"] == res["heldout"]["games"] == 2
    bad = subprocess.run(
        [MTG_ENV, "heldout", "nope", "--games", "2"], capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "unknown agent spec 'nope'" in bad.stderr


def test_the_held_out_card_part_is_decks_of_cards_no_training_deck_holds() -> None:
    """The held-out card part (issue: decks of cards never seen in training): its decks
    are generated, the same every time, legal, and hold no card of any training deck but
    basic lands."""
    s = load_split()
    assert s.unseen_decks >= 8
    decks = unseen_card_decks(s)
    assert decks == unseen_card_decks(s)
    seen = {c for d in train_decks(s) for c in d.cards}
    basics = {"Plains", "Island", "Swamp", "Mountain", "Forest"}
    for d in decks.values():
        assert len(d.cards) == 40
        spells = set(d.cards) - basics
        assert spells and spells <= unseen_cards(s) and not spells & seen


def test_run_heldout_plays_the_unseen_card_part_when_asked() -> None:
    res = run_heldout("random", "random", games=2, seed=1, unseen=True)
    assert res["unseen_cards"]["games"] == 2
    assert set(res["unseen_cards_decks"]) <= set(unseen_card_decks())
    assert res["gap_unseen_cards"] == round(
        res["train"]["win_rate"] - res["unseen_cards"]["win_rate"], 4
    )
