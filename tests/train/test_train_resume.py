"""Training resumes consistently after a kill at any point: the step count and the weights
are one atomic, data-only checkpoint written at a rollout boundary, so a resumed run ends at
exactly the step count of an uninterrupted one. Ctrl-C ends a run with one line and exit
status 130, leaving a resumable checkpoint."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = str(ROOT / "scripts" / "train_ppo.py")
# Four rollouts of 64 steps, a checkpoint after each, no evaluation or behaviour cloning in
# the way: the budget is a multiple of the rollout, so an uninterrupted run ends at it.
CONFIG = """
n_envs: 1
vec_env: dummy
n_steps: 64
batch_size: 64
n_epochs: 1
total_timesteps: 256
checkpoint_every: 64
snapshot_every: 128
eval_every: 100000
eval_games: 1
bc_games: 0
max_decisions: 300
"""


def _train(cfg: Path, out: Path, *extra: str, kill_at: str | None = None):
    env = dict(os.environ)
    env.pop("MTG_ENV_TRAIN_KILL_AT", None)
    if kill_at:
        env["MTG_ENV_TRAIN_KILL_AT"] = kill_at
    return subprocess.run(
        [sys.executable, SCRIPT, "--config", str(cfg), "--out", str(out), "--no-progress", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def _final_steps(r: subprocess.CompletedProcess[str]) -> int:
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])["timesteps"]


@pytest.mark.parametrize(
    "kill_at",
    [
        # right after the first checkpoint was written (make test-all: the resume from a
        # checkpoint is also what the other two points exercise)
        pytest.param("after_checkpoint:64", marks=pytest.mark.long),
        pytest.param("step:150", marks=pytest.mark.long),  # in the middle of the third rollout
        "before_checkpoint:192",  # between two rollouts, before the checkpoint is written
    ],
)
def test_a_run_killed_at_any_point_resumes_to_the_exact_budget(tmp_path: Path, kill_at) -> None:
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(CONFIG)
    out = tmp_path / "run"
    r = _train(cfg, out, kill_at=kill_at)
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.stderr[-2000:])
    assert not (out / "policy.safetensors").exists()  # it did not finish
    assert not [f for f in out.iterdir() if f.name.endswith(".tmp")]
    saved = json.loads((out / "state.json").read_text())["timesteps"]
    assert saved % 64 == 0 and 0 < saved < 256  # a checkpoint at a rollout boundary
    r = _train(cfg, out, "--resume")
    assert f"resumed from {out / 'checkpoint.pt'} at {saved} steps" in r.stdout
    assert _final_steps(r) == 256


@pytest.fixture
def finished(made_once) -> Path:
    """One uninterrupted run of CONFIG, trained once for the tests that read it: the
    folder holds the config (tiny.yaml), the run (run/) and what it printed (stdout.txt)."""

    def make(folder: Path) -> None:
        cfg = folder / "tiny.yaml"
        cfg.write_text(CONFIG)
        r = _train(cfg, folder / "run")
        assert r.returncode == 0, r.stderr[-2000:]
        (folder / "stdout.txt").write_text(r.stdout)

    return made_once("uninterrupted-tiny-run", make)


def test_an_uninterrupted_run_ends_at_the_budget(finished: Path) -> None:
    last = (finished / "stdout.txt").read_text().strip().splitlines()[-1]
    assert json.loads(last)["timesteps"] == 256


def test_resume_with_another_configuration_is_refused(finished: Path, tmp_path: Path) -> None:
    cfg = finished / "tiny.yaml"
    out = tmp_path / "run"
    shutil.copytree(finished / "run", out)
    other = tmp_path / "other.yaml"
    other.write_text(CONFIG.replace("n_steps: 64", "n_steps: 128"))
    before = (out / "checkpoint.pt").read_bytes()
    r = _train(other, out, "--resume", "--total-timesteps", "512")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "another configuration (n_steps: 64 there, 128 now)" in r.stderr
    assert "new --out" in r.stderr
    assert (out / "checkpoint.pt").read_bytes() == before
    # A longer budget is a change a resume may make.
    assert _final_steps(_train(cfg, out, "--resume", "--total-timesteps", "384")) == 384


def test_a_checkpoint_is_data_only(finished: Path) -> None:
    import torch

    path = finished / "run" / "checkpoint.pt"
    saved = torch.load(path, map_location="cpu", weights_only=True)
    assert saved["format"] == "mtg_env.train_checkpoint.v1" and saved["num_timesteps"] == 256
    assert json.loads(saved["state"])["timesteps"] == 256


def test_an_old_pickled_checkpoint_is_not_resumed(tmp_path: Path) -> None:
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(CONFIG)
    out = tmp_path / "run"
    out.mkdir()
    marker = tmp_path / "MARKER"
    from evil_files import evil_sb3_zip

    evil_sb3_zip(out / "checkpoint.zip", marker)
    r = _train(cfg, out, "--resume")
    assert r.returncode == 2 and "checkpoint.zip" in r.stderr and "Traceback" not in r.stderr
    assert not marker.exists()


# SubprocVecEnv's workers on Ctrl-C in make test-all; test_env_workers_die_with_a_killed_trainer
# checks in make test that they never outlive the trainer.
@pytest.mark.parametrize("vec_env", ["dummy", pytest.param("subproc", marks=pytest.mark.long)])
def test_ctrl_c_stops_training_with_one_line_and_it_resumes(tmp_path: Path, vec_env: str) -> None:
    """SIGINT to the process group, as a terminal sends Ctrl-C: SubprocVecEnv's workers get
    it too, and must neither print a traceback nor outlive the trainer."""
    cfg = tmp_path / "long.yaml"
    text = CONFIG.replace("total_timesteps: 256", "total_timesteps: 100000")
    if vec_env == "subproc":
        text = text.replace("n_envs: 1\nvec_env: dummy", "n_envs: 2\nvec_env: subproc")
    cfg.write_text(text)
    out = tmp_path / "run"
    p = subprocess.Popen(
        [sys.executable, SCRIPT, "--config", str(cfg), "--out", str(out), "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 120
    while not (out / "state.json").exists() and time.time() < deadline:
        time.sleep(0.2)
    t = time.time()
    os.killpg(p.pid, signal.SIGINT)
    out_s, err = p.communicate(timeout=60)
    # The run's budget is minutes of training, so stopping within seconds shows Ctrl-C ended
    # it; the bound is loose because a busy test machine (xdist, the other parametrization's
    # workers) can take seconds to schedule the handler, and this is not a speed test.
    assert time.time() - t < 20.0
    assert p.returncode == 130, err[-2000:]
    assert "Traceback" not in out_s + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted; the last checkpoint (")
    saved = json.loads((out / "state.json").read_text())["timesteps"]
    assert f"({saved} steps)" in lines[0]
    # The interrupted run resumes; a shorter budget than the original is a change a resume
    # may make, so it ends one rollout (64 steps per env) after the checkpoint.
    rollout = 64 * (2 if vec_env == "subproc" else 1)
    r = _train(cfg, out, "--resume", "--total-timesteps", str(saved + rollout))
    assert _final_steps(r) == saved + rollout


def test_env_workers_die_with_a_killed_trainer(tmp_path: Path) -> None:
    cfg = tmp_path / "sub.yaml"
    cfg.write_text(
        CONFIG.replace("total_timesteps: 256", "total_timesteps: 100000").replace(
            "n_envs: 1\nvec_env: dummy", "n_envs: 2\nvec_env: subproc"
        )
    )
    out = tmp_path / "run"
    p = subprocess.Popen(
        [sys.executable, SCRIPT, "--config", str(cfg), "--out", str(out), "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: every process it starts is in it
    )
    deadline = time.time() + 120
    while not (out / "state.json").exists() and time.time() < deadline:
        time.sleep(0.2)
    assert len(_group(p.pid)) >= 3  # the trainer and its env workers
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    deadline = time.time() + 5
    while _group(p.pid) and time.time() < deadline:
        time.sleep(0.2)
    assert _group(p.pid) == [], "processes outlived the killed trainer"


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    ps = subprocess.run(["ps", "-eo", "pid,pgid,stat"], capture_output=True, text=True).stdout
    rows = [line.split() for line in ps.splitlines()[1:]]
    return [int(r[0]) for r in rows if int(r[1]) == pgid and not r[2].startswith("Z")]
