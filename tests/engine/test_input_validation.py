"""Input files and specs are validated before any heavy work: decks (counts bounded before
they are expanded), replays (actions are JSON integers, hash keys name decisions), agent
specs (search budgets finite and positive), policies in the format they were trained for."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from agents import make_agent
from mtg_env.engine import CardDataError, Game, load_deck_file, resolve_deck
from mtg_env.env.replay import Recorder, ReplayError, load_replay


def _deck(tmp_path: Path, cards: list[str], name: str = "d.yaml") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps({"name": "Test", "format": "classic", "cards": cards}))
    return p


@pytest.mark.parametrize("count", [10**8, 10**12, 41])
def test_deck_counts_are_bounded_before_they_are_expanded(tmp_path: Path, count: int) -> None:
    p = _deck(tmp_path, [f"{count} Mountain"])
    tracemalloc.start()
    try:
        message = r"d\.yaml: deck 'Test': cards\[0\]: .*more than 40"
        with pytest.raises(CardDataError, match=message):
            load_deck_file(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # A list of a hundred million names would take 800 MB of pointers alone; memory, unlike
    # time, does not depend on how busy the test machine is.
    assert peak < 64 * 2**20


def test_deck_running_total_is_bounded(tmp_path: Path) -> None:
    p = _deck(tmp_path, ["20 Mountain", "20 Forest", "1 Island"])
    with pytest.raises(CardDataError, match=r"cards\[2\]: '1 Island': .*more than 40"):
        load_deck_file(p)


def test_a_zero_count_is_an_error(tmp_path: Path) -> None:
    p = _deck(tmp_path, ["0 Mountain", "40 Forest"])
    with pytest.raises(CardDataError, match=r"cards\[0\]: '0 Mountain': a count is at least 1"):
        load_deck_file(p)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"name: caf\xe9\n", "not UTF-8"),
        (b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),
        (b"name: [unclosed\n", "not valid YAML"),
        (b"!!python/object/apply:os.system ['true']\n", "not valid YAML"),
    ],
)
def test_unreadable_deck_files_are_one_line(tmp_path: Path, content: bytes, message: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_bytes(content)
    with pytest.raises(CardDataError, match=rf"bad\.yaml: {message}"):
        resolve_deck(str(p))


def test_a_deck_path_that_is_a_folder_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="is a directory, not a deck file"):
        resolve_deck(str(tmp_path) + "/")


def _replay(tmp_path: Path) -> dict:
    from agents.random_agent import RandomAgent
    from mtg_env.engine import load_decks

    decks = load_decks("classic")
    pair = [decks["Red Burn"], decks["Green Stompy"]]
    g = Game.new(pair, seed=4)
    rec = Recorder(g, pair, 4)
    bots = [RandomAgent(1), RandomAgent(2)]
    while not g.is_over:
        rec.apply(bots[g.current_player].choose(g))
    return rec.to_dict()


@pytest.mark.parametrize("bad", [True, "34", 34.0])
def test_replay_actions_are_json_integers(tmp_path: Path, bad: object) -> None:
    m = _replay(tmp_path)
    m["actions"][0] = bad
    p = tmp_path / "r.json"
    p.write_text(json.dumps(m))
    with pytest.raises(ReplayError, match=r"r\.json: field actions\.0: Input should be"):
        load_replay(p)


def test_replay_hash_keys_name_decisions_and_the_count_is_exact(tmp_path: Path) -> None:
    m = _replay(tmp_path)
    n = len(m["actions"])
    p = tmp_path / "r.json"
    p.write_text(json.dumps(m))
    ok = load_replay(p)
    assert ok.hashes_checked == len([k for k in m["hashes"] if 1 <= int(k) <= n]) + 1
    for key in ("0", str(n + 1), "x"):
        bad = dict(m, hashes={**m["hashes"], key: "0" * 32})
        p.write_text(json.dumps(bad))
        with pytest.raises(ReplayError, match=rf"hashes: key '{key}' is not a decision number"):
            load_replay(p)


@pytest.mark.parametrize(
    "spec",
    ["ismcts:nans", "ismcts:0", "ismcts:-3", "ismcts:inf", "ismcts:0s", "ismcts:infs",
     "ismcts:1e3", "ismcts:\u00b2", "ismcts:99999999999"],
)  # fmt: skip
def test_search_budgets_are_finite_and_positive(spec: str) -> None:
    with pytest.raises(ValueError, match=rf"agent spec '{spec}'"):
        make_agent(spec)


def test_policy_in_another_format_is_one_line() -> None:
    from agents.policy import CheckpointError

    for fmt in ("adventure", "pocket"):
        with pytest.raises(CheckpointError, match=f"plays the classic format, not {fmt}"):
            make_agent("policy:default", fmt=fmt)
    assert make_agent("policy:default", fmt="classic").layout is not None


def _alias_bomb(levels: int = 9, width: int = 9) -> str:
    """A scenario whose `expect` life value is `width ** levels` strings once its aliases are
    expanded, in a few hundred bytes."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * width)
        lines.append(f"a{i}: &a{i} [{refs}]")
    lines.append("name: bomb")
    lines.append("setup: {players: [{}, {}]}")
    lines.append(f"expect: [{{player: 0, life: *a{levels - 1}}}]")
    return "\n".join(lines) + "\n"


def test_yaml_alias_expansion_is_bounded(tmp_path: Path) -> None:
    from mtg_env.io import InputFileError, load_yaml

    p = tmp_path / "bomb.yaml"
    p.write_text(_alias_bomb())
    with pytest.raises(InputFileError, match=r"bomb\.yaml: not a YAML file: its aliases stand"):
        load_yaml(p)
    p.write_text("a: &a [1, *a]\n")
    with pytest.raises(InputFileError, match="recursive"):
        load_yaml(p)
    # Aliases that stay small are plain YAML and load as before (the same object twice).
    p.write_text("base: &b {life: 20}\nplayers: [*b, *b]\n")
    data = load_yaml(p)
    assert data["players"] == [{"life": 20}, {"life": 20}]


def test_a_scenario_alias_bomb_is_one_short_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    p = tmp_path / "bomb.yaml"
    p.write_text(_alias_bomb())
    exe = Path(sys.executable).with_name("mtg-env")
    r = subprocess.run(
        [str(exe), "scenario", "run", str(p)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2, r.stdout + r.stderr
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert len(lines) == 1 and "aliases" in lines[0] and len(lines[0]) < 400, lines
    assert "lol" not in lines[0]


def test_a_huge_deck_list_line_is_refused_before_it_is_searched() -> None:
    # A 60 MB one-line list used to cost gigabytes in the card-name suggestion; the line is
    # refused by its length before any pattern or suggestion reads it.
    from mtg_env.engine.carddb import MAX_DECK_LINE, parse_deck_text

    with pytest.raises(CardDataError, match=r"big\.txt:1: a line of 6,000,002 characters") as e:
        parse_deck_text("4 " + "x" * 6_000_000, "big.txt", "classic")
    assert len(str(e.value)) < 300
    # A line at the bound is still read (and is an unknown card, with no suggestion search
    # beyond the problems shown).
    with pytest.raises(CardDataError, match="unknown card"):
        parse_deck_text("4 " + "x" * (MAX_DECK_LINE - 2), "ok.txt", "classic")


def test_deck_list_problems_are_reported_in_a_screenful() -> None:
    from mtg_env.engine.carddb import MAX_DECK_PROBLEMS, parse_deck_text

    text = "\n".join(f"1 Bogus{i}" for i in range(3000))
    with pytest.raises(CardDataError) as e:
        parse_deck_text(text, "many.txt", "classic")
    lines = str(e.value).splitlines()
    assert len(lines) == MAX_DECK_PROBLEMS + 1 and lines[-1].endswith("2951 more problems")


def test_a_yaml_deck_is_bounded_and_its_errors_are_one_short_line() -> None:
    from mtg_env.engine import parse_deck

    with pytest.raises(CardDataError, match="at most 2000 items") as e:
        parse_deck({"name": "d", "cards": ["Mountain"] * 5000}, "d.yaml")
    with pytest.raises(CardDataError, match="at most 500 characters") as e:
        parse_deck({"name": "d", "cards": ["y" * 100_000]}, "d.yaml")
    assert len(str(e.value)) < 300
    with pytest.raises(CardDataError, match=r"unknown card 'zzz+' in set") as e:
        parse_deck({"name": "d", "cards": ["z" * 400]}, "d.yaml")
    assert len(str(e.value)) < 300
    bad = {"name": "d", "cards": [1] * 1000}
    with pytest.raises(CardDataError, match=r"and 995 more$"):
        parse_deck(bad, "d.yaml")
