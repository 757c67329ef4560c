"""Expert iteration (scripts/train_expert.py), run as users run it: a smoke run killed after
its first generation's checkpoint resumes to its budget and writes every output; the
policy it writes plays; the checkpoint is data only; a resume with another configuration,
a bad config value and a new run over a checkpoint are each one line with exit status 2.
The search's visit counts (`PUCTAgent.search`) and the targets made from them are checked
in this process. (`device: cuda` without a GPU: tests/train/test_device.py.)"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "scripts/train_expert.py"
# The smoke run's games stop at 20 decisions, all draws: with gate_score 0 every trained
# network is promoted, so the run also evaluates each generation it makes.
CONFIG = "gate_score: 0.0\n"


def _run(cfg: Path, out: Path, *extra: str, kill_at: str | None = None) -> Any:
    env = dict(os.environ)
    env.pop("MTG_ENV_TRAIN_KILL_AT", None)
    if kill_at:
        env["MTG_ENV_TRAIN_KILL_AT"] = kill_at
    return subprocess.run(
        [sys.executable, SCRIPT, "--smoke", "--no-progress", "--config", str(cfg)]
        + ["--out", str(out), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def _files(folder: Path) -> list[str]:
    return sorted(str(f.relative_to(folder)) for f in folder.rglob("*") if f.is_file())


@pytest.fixture
def made(made_once: Any) -> Path:
    """A smoke run killed right after generation 1's checkpoint, then resumed: the folder
    holds the config (smoke.yaml), the run (run/), what the killed run left (killed.json)
    and what the resumed one printed (stdout.txt)."""

    def make(folder: Path) -> None:
        cfg = folder / "smoke.yaml"
        cfg.write_text(CONFIG)
        out = folder / "run"
        r = _run(cfg, out, kill_at="after_checkpoint:1")
        assert r.returncode == -signal.SIGKILL, (r.returncode, r.stderr[-2000:])
        state = json.loads((out / "checkpoint" / "state.json").read_text())
        left = {"generation": state["generation"], "files": _files(out)}
        (folder / "killed.json").write_text(json.dumps(left))
        r = _run(cfg, out, "--resume")
        assert r.returncode == 0, r.stderr[-2000:]
        (folder / "stdout.txt").write_text(r.stdout)

    return made_once("expert-smoke-killed-and-resumed", make)


def test_a_killed_run_resumes_to_its_budget(made: Path) -> None:
    killed = json.loads((made / "killed.json").read_text())
    assert killed["generation"] == 1
    assert not [f for f in killed["files"] if f.endswith(".tmp")]
    assert "generations/gen_002.safetensors" not in killed["files"]  # it had not got there
    out = made / "run"
    printed = (made / "stdout.txt").read_text()
    assert f"resumed from {out / 'checkpoint' / 'state.json'} at generation 1" in printed
    last = json.loads(printed.strip().splitlines()[-1])
    assert last["generations"] == 2 and last["generator"] == 2
    rows = [json.loads(x) for x in (out / "curve.jsonl").read_text().splitlines()]
    assert [r["generation"] for r in rows] == [0, 1, 2]  # none twice, none lost
    assert rows[-1]["total_samples"] == rows[1]["samples"] + rows[2]["samples"] > 0
    state = json.loads((out / "checkpoint" / "state.json").read_text())
    assert state["generation"] == 2 and state["rows"] == rows
    # The checkpoint keeps the last learner and the window's samples, nothing older.
    assert sorted(f.name for f in (out / "checkpoint").iterdir()) == [
        "learner_g002.safetensors",
        "samples_g001.safetensors",
        "samples_g002.safetensors",
        "state.json",
    ]


def test_the_run_writes_every_output(made: Path) -> None:
    from agents import make_agent
    from mtg_env.engine import Game, load_decks

    out = made / "run"
    policy = out / "policy.safetensors"
    # Every trained network was promoted: the policy is the last generation's.
    assert policy.read_bytes() == (out / "generations" / "gen_002.safetensors").read_bytes()
    agent = make_agent(f"policy:{policy}", 0, fmt="classic")
    decks = load_decks("classic")
    names = sorted(decks)
    g = Game.new((decks[names[0]], decks[names[1]]), seed=1, max_decisions=40)
    rival = make_agent("heuristic", 1)
    while not g.is_over:
        a = (agent if g.current_player == 0 else rival).choose(g)
        assert a in g.legal_actions()
        g.apply(a)

    card = json.loads((out / "model_card.json").read_text())
    assert card["recipe"] == "scripts/train_expert.py" and card["finished"] is True
    assert card["config"]["generations"] == 2 and card["config"]["gate_score"] == 0.0
    assert card["device"] == "cpu" or card["device"].startswith("cuda (")  # device: auto
    assert card["hardware"]["cpus"] >= 1
    assert card["generations"] == 2 and card["generator_generation"] == 2
    assert card["samples"] > 0 and card["wall_time_s"] > 0
    assert [x["generation"] for x in card["gates"]] == [1, 2]
    for gate in card["gates"]:
        assert gate["passed"] and gate["games"] == 2
        assert 0 <= gate["ci95"][0] <= gate["score"] <= gate["ci95"][1] <= 1

    rows = [json.loads(x) for x in (out / "curve.jsonl").read_text().splitlines()]
    for r in rows:
        assert r["wall_hours"] >= 0
        assert r["eval"]["games"] == 2 and r["eval"]["network"] == r["generator"]
        lo, hi = r["eval"]["ci95"]
        assert 0 <= lo <= r["eval"]["score"] <= hi <= 1
        assert isinstance(r["eval"]["rating_estimate"], float)  # classic has anchors
    assert rows[0]["policy_loss"] is None and rows[0]["gate"] is None
    assert all(r["policy_loss"] > 0 and r["value_loss"] >= 0 for r in rows[1:])
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if importlib.util.find_spec("tensorboard") is not None:
        assert list((out / "tb").glob("events.out.tfevents.*"))

    # Data only: JSON and safetensors (a JSON header first), no pickle anywhere.
    for f in (out / "checkpoint").iterdir():
        data = f.read_bytes()
        if f.suffix == ".json":
            json.loads(data)
        else:
            assert f.suffix == ".safetensors" and data[8:9] == b"{", f
    for name in _files(out):
        assert not name.endswith((".pt", ".pkl", ".pickle", ".zip")), name
        head = (out / name).read_bytes()[:2]
        assert head[:1] != b"\x80" and head != b"PK", name  # pickle and torch.save's zip


@pytest.mark.long
@pytest.mark.skipif(
    torch.cuda.is_available(),
    reason="trained on the GPU (device: auto), whose kernels need not repeat bit for bit",
)
def test_the_resumed_run_made_the_networks_of_an_uninterrupted_one(
    made: Path, tmp_path: Path
) -> None:
    """Every stream is seeded per generation and game: a run that was never killed, its
    games played by two worker processes, trains the same networks byte for byte."""
    te = _script()
    cfg = tmp_path / "two_workers.yaml"
    cfg.write_text(CONFIG + "".join(f"{k}: {v}\n" for k, v in {**te.SMOKE, "workers": 2}.items()))
    assert te.SMOKE["workers"] == 1  # the killed and resumed run played in one process
    out = tmp_path / "run"
    r = subprocess.run(
        [sys.executable, SCRIPT, "--no-progress", "--config", str(cfg), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    for n in range(3):
        name = f"generations/gen_{n:03d}.safetensors"
        assert (out / name).read_bytes() == (made / "run" / name).read_bytes(), name
    rows = [json.loads(x) for x in (out / "curve.jsonl").read_text().splitlines()]
    were = [json.loads(x) for x in (made / "run" / "curve.jsonl").read_text().splitlines()]
    for r1, r2 in zip(rows, were, strict=True):
        del r1["wall_hours"], r2["wall_hours"]
        assert r1 == r2


def test_resume_with_another_configuration_is_refused(made: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    shutil.copytree(made / "run", out)
    before = (out / "checkpoint" / "state.json").read_bytes()
    other = tmp_path / "other.yaml"
    other.write_text(CONFIG + "lr: 0.001\n")
    r = _run(other, out, "--resume")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert "another configuration (lr: 0.0001 there, 0.001 now)" in line and "new --out" in line
    assert (out / "checkpoint" / "state.json").read_bytes() == before
    # A new run where a run's checkpoint is: refused too (it would replace its files).
    r = _run(made / "smoke.yaml", out)
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert line == (
        f"error: {out}: holds a run's checkpoint; go on with it (--resume), or give another --out"
    )
    assert (out / "checkpoint" / "state.json").read_bytes() == before


def test_a_bad_config_value_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    out = tmp_path / "out"
    cfg.write_text("games: 0\n")
    r = _run(cfg, out)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    (err,) = r.stderr.strip().splitlines()
    assert err.startswith(f"error: {cfg}: field games")
    assert not out.exists()


@pytest.mark.parametrize(
    ("line", "field", "says"),
    [
        ("gate_scor: 0.5", "gate_scor", "Unexpected keyword argument"),
        ("search_iterations: 8", "search_iterations", "expand the root"),
        ("decks: train", "decks", "'train' is the split of format 'core'"),
        ("gate_score: 1.5", "gate_score", "less than or equal to 1"),
        ("init: missing.safetensors", "init", "not found"),
        ("format: core", "init", "plays the classic format, not core"),
    ],
)
def test_each_bad_value_names_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, field: str, says: str
) -> None:
    """The script's own entry point, as its command line runs it."""
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(line + "\n")
    out = tmp_path / "out"
    assert _script().main(["--config", str(cfg), "--out", str(out), "--no-progress"]) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert err.startswith(f"error: {cfg}: field {field}") and says in err, err
    assert not out.exists()


# ---------------------------------------------------------------------- in this process


def test_the_bundled_config_loads_and_is_the_default() -> None:
    """configs/train/expert_default.yaml is valid, and every value it names is the
    Config's own default (docs/agents.md lists them once)."""
    import dataclasses

    from mtg_env.io import load_config_yaml

    te = _script()
    cfg = load_config_yaml(ROOT / "configs" / "train" / "expert_default.yaml", te.Config)
    assert dataclasses.asdict(cfg) == dataclasses.asdict(te.Config())


def _script() -> ModuleType:
    name = "train_expert_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / SCRIPT)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def _position(legal_at_least: int) -> Any:
    """A classic game played by the heuristic until the acting seat has that many moves."""
    from agents import make_agent
    from mtg_env.engine import Game, load_decks

    decks = load_decks("classic")
    names = sorted(decks)
    g = Game.new((decks[names[0]], decks[names[1]]), seed=6, max_decisions=300)
    rival = make_agent("heuristic", 1)
    while len(g.legal_actions()) < legal_at_least:
        g.apply(rival.choose(g))
    return g


def test_visit_targets_are_a_distribution_over_the_legal_indices() -> None:
    from agents import make_agent
    from agents.ismcts import action_key
    from agents.puct import BATCH

    torch.set_num_threads(1)  # the suite runs one worker per core
    te = _script()
    agent = make_agent(f"ismcts:{BATCH + 6}+policy:default", 3, fmt="classic")
    g = _position(3)
    _, visits = agent.search(g)  # type: ignore[attr-defined]
    # Every iteration after the first batch (which expands the root) visits one root move.
    assert sum(visits.values()) == 6
    seat = g.current_player
    legal = agent.policy.observer.legal(g, seat)  # type: ignore[attr-defined]
    target = te.visit_targets(g, legal, visits)
    assert target is not None and target.dtype == np.float32
    assert target.shape == legal.mask.shape
    assert abs(float(target.sum()) - 1.0) < 1e-6
    assert not target[legal.mask == 0].any()
    visited = {k for k, n in visits.items() if n > 0}
    for i in np.flatnonzero(legal.mask):
        assert (target[i] > 0) == (action_key(g, legal.actions[int(i)]) in visited)

    # One move that two indices play (two copies of a card in hand are one move to the
    # search) has its visits split between them; no visits, no target.
    moves = g.legal_actions()
    a = moves[0]
    b = next(x for x in moves if action_key(g, x) != action_key(g, a))
    two = SimpleNamespace(mask=np.array([1, 1, 0, 1], np.int8), actions={0: a, 1: a, 3: b})
    split = te.visit_targets(g, two, {action_key(g, a): 3, action_key(g, b): 1})
    assert split is not None and split.tolist() == [0.375, 0.375, 0.0, 0.25]
    assert te.visit_targets(g, two, {}) is None


def test_search_plays_the_move_choose_plays() -> None:
    from agents import make_agent

    torch.set_num_threads(1)
    one = make_agent("ismcts:12+policy:default", 5, fmt="classic")
    two = make_agent("ismcts:12+policy:default", 5, fmt="classic")
    g = _position(2)
    rival = make_agent("heuristic", 2)
    checked = 0
    while not g.is_over and checked < 4:
        if len(g.legal_actions()) > 1 and g.current_player == 0:
            move, visits = one.search(g)  # type: ignore[attr-defined]
            assert move == two.choose(g) and sum(visits.values()) > 0
            checked += 1
            g.apply(move)
        else:
            g.apply(rival.choose(g))
    assert checked == 4
    forced = _position(1)
    while not forced.is_over and len(forced.legal_actions()) != 1:
        forced.apply(rival.choose(forced))
    assert one.search(forced) == (forced.legal_actions()[0], {})  # type: ignore[attr-defined]
