"""Replays: record, verify, show; tampered or corrupt replays are rejected clearly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import mtg_env
from mtg_env.cli import app
from mtg_env.env.replay import (
    ReplayError,
    layout_for,
    load_replay,
    new_game,
    parse_replay,
    verify,
)
from mtg_env.io import atomic_write_text

runner = CliRunner()


@pytest.fixture()
def replay_file(tmp_path: Path) -> Path:
    out = tmp_path / "game.json"
    r = runner.invoke(app, ["replay", "record", "--seed", "4", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_record_verify_show(replay_file: Path) -> None:
    data = json.loads(replay_file.read_text())
    assert data["version"] == 1 and data["format"] == "classic"
    assert len(data["decks"]) == 2 and len(data["decks"][0]["cards"]) == 40
    assert data["agents"] == ["random", "random"]
    assert all(isinstance(a, int) for a in data["actions"]) and data["hashes"]
    r = runner.invoke(app, ["replay", "verify", str(replay_file)])
    assert r.exit_code == 0 and r.output.startswith("OK")
    r = runner.invoke(app, ["replay", "show", str(replay_file)])
    assert r.exit_code == 0 and "Game over" in r.output


def test_edited_action_is_rejected_at_its_decision(replay_file: Path) -> None:
    data = json.loads(replay_file.read_text())
    k = len(data["actions"]) // 2
    data["actions"][k] = 824  # choose[39]: not legal anywhere in this game
    with pytest.raises(ReplayError) as e:
        verify(parse_replay(data))
    assert f"decision {k + 1}:" in str(e.value) and "not legal" in str(e.value)


def test_changed_action_shows_as_hash_mismatch_or_illegal(replay_file: Path) -> None:
    data = json.loads(replay_file.read_text())
    m = parse_replay(data)
    g = new_game(m)
    lay = layout_for("classic")
    # find a decision with at least two legal indices and swap to another legal one
    for n, idx in enumerate(m.actions):
        _, amap, _ = lay.mask_and_map(g, g.current_player)
        if len(amap) > 1:
            other = next(i for i in amap if i != idx)
            data["actions"][n] = other
            break
        g.apply(amap[idx])
    with pytest.raises(ReplayError) as e:
        verify(parse_replay(data))
    assert "decision" in str(e.value)


def test_wrong_hash_names_the_decision(replay_file: Path) -> None:
    data = json.loads(replay_file.read_text())
    key = sorted(data["hashes"], key=int)[0]
    data["hashes"][key] = "0" * 32
    with pytest.raises(ReplayError) as e:
        verify(parse_replay(data))
    assert f"decision {key}: state hash mismatch" in str(e.value)


def test_unknown_version_and_corrupt_files(tmp_path: Path, replay_file: Path) -> None:
    data = json.loads(replay_file.read_text())
    data["version"] = 99
    with pytest.raises(ReplayError, match="unknown replay version 99"):
        parse_replay(data)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ReplayError, match="not valid JSON"):
        load_replay(bad)
    data["version"] = 1
    del data["final_hash"]
    with pytest.raises(ReplayError, match="final_hash"):
        parse_replay(data)


def test_cli_corrupt_replay_exits_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "format": "classic"}')
    r = subprocess.run(
        [sys.executable, "-m", "mtg_env.cli", "replay", "verify", str(bad)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "bad.json" in r.stderr and "decks" in r.stderr


def test_env_records_the_game_it_plays(tmp_path: Path) -> None:
    e = mtg_env.raw_env()
    e.reset(seed=9)
    rng = np.random.default_rng(1)
    for agent in e.agent_iter():
        o, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        del agent
    path = tmp_path / "env.json"
    e.save_replay(str(path))
    g = verify(load_replay(path))
    assert g.is_over and g.winner == e.game.winner


def test_atomic_write_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    atomic_write_text(target, "first")

    class Boom(Exception):
        pass

    import mtg_env.io as io

    real = io.os.replace

    def fail(*a: object, **k: object) -> None:
        raise Boom

    io.os.replace = fail  # type: ignore[assignment]
    try:
        with pytest.raises(Boom):
            atomic_write_text(target, "second")
    finally:
        io.os.replace = real  # type: ignore[assignment]
    assert target.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
