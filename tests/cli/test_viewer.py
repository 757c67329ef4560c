"""The replay viewer: frames match a re-simulation, the page is self-contained, bad replays
are clear errors. The page in a real browser: tests/cli/test_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agents import make_agent
from mtg_env.cli import app
from mtg_env.engine import Game, load_decks
from mtg_env.engine.constants import CREATURE, DECISION_NAMES
from mtg_env.engine.log import describe_action
from mtg_env.env.replay import (
    Recorder,
    ReplayError,
    ReplayModel,
    layout_for,
    new_game,
    parse_replay,
    replay_games,
)
from mtg_env.viewer import render_html, replay_frames

runner = CliRunner()


def record(
    seed: int, agents: tuple[str, str], decks: tuple[str, str], fmt: str = "classic"
) -> dict:
    pool = load_decks(fmt)
    pair = [pool[decks[0]], pool[decks[1]]]
    g = Game.new(pair, seed=seed, format=fmt)
    players = [make_agent(a, seed * 2 + i) for i, a in enumerate(agents)]
    rec = Recorder(g, pair, seed, agents=list(agents))
    while not g.is_over:
        rec.apply(players[g.current_player].choose(g))
    return rec.to_dict()


@pytest.fixture(scope="module")
def heuristic_game() -> dict:
    """A full game with combat, counters and removal (Olivia Voldaren grows with counters)."""
    return record(3, ("heuristic", "heuristic"), ("Rakdos Vampires", "Red Burn"))


def expected_permanents(g: Game, seat: int) -> list[tuple[Any, ...]]:
    out = []
    for cid in g.battlefield:
        ch = g.chars(cid)
        if ch.controller != seat:
            continue
        pt = f"{ch.power}/{ch.toughness}" if ch.types & CREATURE else None
        out.append((cid, g.cdef[cid].name, pt, g.perm[cid].tapped, g.attackers.get(cid)))
    return out


def test_frames_match_the_game_at_every_decision(heuristic_game: dict) -> None:
    m = parse_replay(heuristic_game)
    frames = replay_frames(m)
    assert len(frames) == len(m.actions) + 1
    g = new_game(m)
    lay = layout_for(m.format)
    for n, idx in enumerate(m.actions):
        f = frames[n]
        assert f["n"] == n + 1
        assert [p["life"] for p in f["players"]] == g.life
        assert f["turn"] == g.turn and f["active"] == g.active
        assert f["step"] == g.rules.step_name(g.step)
        assert [[c for c, _ in p["hand"]] for p in f["players"]] == [list(h) for h in g.hand]
        assert [len(g.library[s]) for s in (0, 1)] == [p["library"] for p in f["players"]]
        for seat in (0, 1):
            got = [
                (c["id"], c["name"], c.get("pt"), c.get("tapped", False), c.get("attacking"))
                for c in f["battlefield"][seat]
            ]
            assert got == expected_permanents(g, seat), f"decision {n + 1}, seat {seat}"
        assert f["decision"]["player"] == g.current_player
        assert f["decision"]["kind"] == DECISION_NAMES[g.decision.kind]
        _, amap, _ = lay.mask_and_map(g, g.current_player)
        assert f["action"]["index"] == idx
        assert f["action"]["text"] == describe_action(g, amap[idx])
        g.apply(amap[idx])
    final = frames[-1]
    assert final["n"] is None and final["action"] is None and final["decision"] is None
    assert [p["life"] for p in final["players"]] == g.life
    assert f"player {g.winner} wins" in final["result"]


def test_pt_comes_from_the_layers_not_the_printed_card(heuristic_game: dict) -> None:
    """A creature with +1/+1 counters shows its current P/T, not the printed one."""
    frames = replay_frames(parse_replay(heuristic_game))
    grown = [
        (f["n"], c)
        for f in frames
        for side in f["battlefield"]
        for c in side
        if c["name"] == "Olivia Voldaren" and c.get("counters")
    ]
    assert grown, "Olivia Voldaren never got a counter in this game"
    n, c = grown[-1]
    bonus = c["counters"]["+1/+1"]
    assert c["pt"] == f"{3 + bonus}/{3 + bonus}", (n, c)


def test_frame_logs_add_up_to_the_game_log(heuristic_game: dict) -> None:
    m = parse_replay(heuristic_game)
    frames = replay_frames(m)
    lines = [e if isinstance(e, str) else e[0] for f in frames for e in f["log"]]
    assert "\n".join(lines) == replay_games(m).log_text()
    # A draw names the card only for the drawing seat; the other seat sees "draws a card".
    draws = [e for f in frames for e in f["log"] if not isinstance(e, str)]
    assert draws and all(
        re.fullmatch(rf"  player {seat} draws a card", red) and "draws" in text
        for text, seat, red in draws
    )


def test_bottom_choice_is_private_to_the_seat_that_makes_it() -> None:
    """With a mulligan, the card put on the bottom is hidden in the other seat's view."""
    for seed in range(40):
        data = record(seed, ("random", "random"), ("White Weenie", "Red Burn"))
        frames = replay_frames(parse_replay(data))
        bottoms = [f for f in frames if f["decision"] and f["decision"]["kind"] == "bottom"]
        if bottoms:
            break
    else:
        pytest.fail("no mulligan with a card to put on the bottom in 40 random games")
    a = bottoms[0]["action"]
    assert a["private"] == bottoms[0]["decision"]["player"]
    assert a["text"].startswith("put ") and a["redacted"] == (
        "put a card on the bottom of the library"
    )


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_page_is_self_contained_and_carries_the_frames(heuristic_game: dict) -> None:
    m = parse_replay(heuristic_game)
    frames = replay_frames(m)
    page = render_html(m, frames)
    low = page.lower()
    for ref in ("<link", " src=", "http://", "https://", "@import", "url(", "<iframe", "<img"):
        assert ref not in low, f"external reference {ref!r} in the page"
    data = embedded(page)
    assert data["frames"] == frames
    assert data["agents"] == ["heuristic", "heuristic"]
    assert data["cards"]["Olivia Voldaren"]["colors"] == "BR"
    assert "Rakdos Vampires (heuristic) vs Red Burn (heuristic)" in page.split("<body>")[0]
    for testid in ("first", "back", "play", "forward", "last", "jump", "view", "log", "position"):
        assert f'data-testid="{testid}"' in page


def test_card_text_cannot_break_out_of_the_data_script(heuristic_game: dict) -> None:
    m = parse_replay(heuristic_game)
    frames = replay_frames(m)
    evil = "</script><script>alert(1)</script><!-- & -->"
    frames[0]["log"].append(evil)
    page = render_html(m, frames)
    assert evil not in page
    assert page.count("</script>") == 2  # the data element and the viewer's script
    assert embedded(page)["frames"][0]["log"][-1] == evil


def test_unfinished_replay_says_so(heuristic_game: dict) -> None:
    data = dict(heuristic_game)
    m = parse_replay(data)
    g = new_game(m)
    lay = layout_for(m.format)
    for idx in m.actions[:30]:
        _, amap, _ = lay.mask_and_map(g, g.current_player)
        g.apply(amap[idx])
    short = ReplayModel.model_validate(
        {**data, "actions": m.actions[:30], "hashes": {}, "final_hash": g.state_hash()}
    )
    frames = replay_frames(short)
    assert len(frames) == 31 and "stops before the end" in frames[-1]["result"]


def test_cli_replay_html(tmp_path: Path, heuristic_game: dict) -> None:
    src = tmp_path / "game.json"
    src.write_text(json.dumps(heuristic_game))
    r = runner.invoke(app, ["replay", "html", str(src), "--out", str(tmp_path / "v.html")])
    assert r.exit_code == 0, r.output
    assert f"{len(heuristic_game['actions'])} decisions" in r.output
    assert embedded((tmp_path / "v.html").read_text())["seed"] == 3
    r = runner.invoke(app, ["replay", "html", str(src)])  # default: FILE with .html
    assert r.exit_code == 0 and (tmp_path / "game.html").exists()


def test_cli_corrupt_replay_is_a_clear_error(tmp_path: Path, heuristic_game: dict) -> None:
    data = json.loads(json.dumps(heuristic_game))
    data["actions"][5] = 824  # choose[39]: not legal anywhere in this game
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    out = tmp_path / "bad.html"
    r = runner.invoke(app, ["replay", "html", str(bad), "--out", str(out)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "decision 6: action 824" in r.output and "not legal" in r.output
    assert not out.exists()
    with pytest.raises(ReplayError, match="decision 6"):
        replay_frames(parse_replay(data))
    r = runner.invoke(app, ["replay", "html", str(tmp_path / "missing.json")])
    assert r.exit_code == 2 and "file not found" in r.output
    r = runner.invoke(app, ["replay", "html", str(bad), "--out", str(bad)])
    assert r.exit_code == 2


def test_a_scry_choice_is_private_to_the_seat_that_makes_it() -> None:
    """Which card a player keeps on top or sends away when scrying is theirs to know: the
    other seat's view shows only that a looked-at card was put somewhere (CR 701.22a)."""
    from mtg_env.scenario import Runner, build, parse_scenario, run_steps
    from mtg_env.viewer import _action

    raw = {
        "name": "scry",
        "format": "core",
        "setup": {
            "turn": 3,
            "step": "main1",
            "players": [
                {
                    "hand": [{"card": "Preordain", "id": "p"}],
                    "library": ["Craw Wurm", "Lightning Bolt", "Forest"],
                    "battlefield": ["Island"],
                },
                {"library": ["Forest"]},
            ],
        },
        "expect": [{"game_over": False}],
    }
    g, labels = build(parse_scenario(raw, "test"))
    r = Runner(g, labels)
    run_steps(r, [{"player": 0, "play": "p"}, "resolve"])
    a = _action(r.g, r.g.legal_actions()[0], 0)
    assert a["text"] == "choose Craw Wurm on top"
    assert a["private"] == 0 and a["redacted"] == "put a card looked at on top or away"
