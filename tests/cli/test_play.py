"""Terminal play against an agent, driven by scripted input (bad entries included)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mtg_env.cli import app
from mtg_env.engine import load_decks
from mtg_env.env.replay import layout_for, load_replay, new_game, verify
from mtg_env.play import play

runner = CliRunner()
PROMPT = re.compile(r"your choice \(0-(\d+),")


class Script:
    """input(): answers from a list, then from `then(prompt)`; records every prompt."""

    def __init__(self, answers: Iterable[str], then: Callable[[str], str] | None = None):
        self.answers = list(answers)
        self.then = then
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.answers:
            return self.answers.pop(0)
        if self.then is None:
            raise EOFError
        return self.then(prompt)


def decks() -> list:
    pool = load_decks("classic")
    return [pool["White Weenie"], pool["Red Burn"]]


def human_decisions(path: Path, seat: int) -> int:
    """How many of the replay's decisions were the human's (re-simulated)."""
    m = load_replay(path)
    g = new_game(m)
    lay = layout_for(m.format)
    n = 0
    for idx in m.actions:
        n += g.current_player == seat
        _, amap, _ = lay.mask_and_map(g, g.current_player)
        g.apply(amap[idx])
    return n


def test_bad_entries_ask_again_and_quit_saves(tmp_path: Path) -> None:
    out: list[str] = []
    script = Script(["", "abc", "-1", "999", "1.5", "?", "0", "q"])
    save = tmp_path / "g.json"
    res = play("heuristic", 0, 5, "classic", decks(), script, out.append, save)
    text = "\n".join(out)
    assert "an empty line is not a choice: enter a number from 0 to 1" in text
    assert "'abc' is not a choice" in text and "'1.5' is not a choice" in text
    assert "-1 is out of range" in text and "999 is out of range" in text
    # The first decision (the mulligan) was asked six more times, then kept; "?" reprinted
    # the board; then q at the next decision.
    assert len(script.prompts) == 8
    assert text.count("0: keep hand") == 2 and "Decision: mulligan for player 0" in text
    assert not res.over and res.winner is None and res.path == save
    assert "Stopped after" in text and f"replay saved to {save}" in text
    m = load_replay(save)
    assert not m.result["over"] and m.agents == ["human", "heuristic"]
    verify(m)  # the partial game is a valid replay
    assert human_decisions(save, 0) == 1


def test_a_full_game_with_valid_random_choices(tmp_path: Path) -> None:
    rng = random.Random(0)

    def pick(prompt: str) -> str:
        m = PROMPT.match(prompt)
        assert m, prompt
        return str(rng.randint(0, int(m.group(1))))

    out: list[str] = []
    script = Script([], then=pick)
    save = tmp_path / "full.json"
    res = play("heuristic", 1, 11, "classic", decks(), script, out.append, save)
    text = "\n".join(out)
    assert res.over and "Result:" in text
    g = verify(load_replay(save))
    assert g.is_over and g.winner == res.winner
    assert human_decisions(save, 1) == len(script.prompts) > 10
    # The human sits at seat 1: the opponent's hand and draws stay hidden until the end.
    assert not re.search(r"player 0 draws (?!a card|\d+ cards)", text)
    assert "player 0 draws a card" in text and re.search(r"player 1 draws \w", text)
    boards = text.split("Your options:")[:-1]
    assert all("Player 0: life" in b for b in boards)
    assert not any(
        re.search(r"^  hand: ", b.split("Player 0: life")[1].split("Player 1")[0], re.M)
        for b in boards
    )


def test_end_of_input_stops_cleanly(tmp_path: Path) -> None:
    out: list[str] = []
    res = play("random", 0, 2, "classic", decks(), Script(["0"]), out.append, tmp_path / "e.json")
    assert not res.over and res.decisions >= 1
    verify(load_replay(tmp_path / "e.json"))


def test_unknown_opponent_and_seat_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown agent spec 'nope'"):
        play("nope", 0, 0, "classic", decks(), Script([]), print, tmp_path / "x.json")
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        play("random", 2, 0, "classic", decks(), Script([]), print, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_cli_play_with_bad_entries(tmp_path: Path) -> None:
    save = tmp_path / "cli.json"
    args = ["play", "--opponent", "heuristic", "--seed", "3", "--save", str(save)]
    r = runner.invoke(app, [*args, "--decks", "White Weenie,Red Burn"], input="x\n\n42\n0\nq\n")
    assert r.exit_code == 0, r.output
    assert "'x' is not a choice" in r.output and "42 is out of range" in r.output
    assert "Your options:" in r.output and f"replay saved to {save}" in r.output
    assert load_replay(save).agents == ["human", "heuristic"]
    # End of input (no q) ends the game without a traceback, and still saves it.
    save.unlink()
    r = runner.invoke(app, args, input="0\n")
    assert r.exit_code == 0 and "Traceback" not in r.output and save.exists()
    r = runner.invoke(app, ["play", "--opponent", "nope", "--save", str(save)])
    assert r.exit_code == 2 and "unknown agent spec" in r.output
    r = runner.invoke(app, ["play", "--seat", "2"])
    assert r.exit_code == 2
