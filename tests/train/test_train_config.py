"""Every training-config value is checked when the file is read: a bad value is one
`error: FILE: field X: ...` line with exit status 2, no traceback, and nothing written."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

BAD = [
    ("n_envs: 0", "n_envs"),
    ("n_envs: -2", "n_envs"),
    ("n_steps: 0", "n_steps"),
    ("total_timesteps: -1000", "total_timesteps"),
    ("total_timesteps: 0", "total_timesteps"),
    ("batch_size: 0", "batch_size"),
    ("batch_size: -64", "batch_size"),
    ("net_arch: []", "net_arch"),
    ("net_arch: [0]", "net_arch"),
    ("opponents: {random: 0, heuristic: 0}", "opponents"),
    ("opponents: {random: -1, heuristic: 2}", "opponents"),
    ("opponents: {randm: 1}", "opponents"),
    ("max_decisions: 0", "max_decisions"),
    ("format: modern", "format"),
    ("learning_rate: .nan", "learning_rate"),
    ("gamma: 1.5", "gamma"),
    ("init_temperature: 0", "init_temperature"),
    ("n_steps: 8\nbatch_size: 64\nn_envs: 1", "batch_size"),
    ("seed: -1", "seed"),
    ("init_from: missing.safetensors", "init_from"),
    ("head: pointer", "head"),
]


def test_a_bad_config_value_is_one_line_from_the_command_line(tmp_path: Path) -> None:
    """As a user runs it: the script in its own process, exit status 2, one line, no
    traceback, nothing written. (The other values go through the same entry point
    in-process, below.)"""
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(BAD[0][0] + "\n")
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "scripts/train_ppo.py", "--config", str(cfg), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stdout + r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {cfg}") and BAD[0][1] in err[0], err
    assert not out.exists()


@pytest.mark.parametrize(("line", "field"), BAD, ids=[b[0].split("\n")[0] for b in BAD])
def test_a_bad_config_value_is_one_line_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, field: str
) -> None:
    """The script's own entry point, as its command line runs it."""
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(line + "\n")
    out = tmp_path / "out"
    assert _script("train_ppo").main(["--config", str(cfg), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {cfg}") and field in err[0], err
    assert not out.exists()


@pytest.mark.parametrize("flag", [["--total-timesteps", "-1000"], ["--bc-games", "-1"]])
def test_command_line_overrides_are_checked_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    out = tmp_path / "out"
    assert _script("train_ppo").main(["--smoke", "--out", str(out), *flag]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and flag[0] in err and not out.exists()


def test_a_pickled_init_from_is_refused_unless_trusted(tmp_path: Path) -> None:
    from evil_files import evil_torch_pt

    marker = tmp_path / "MARKER"
    evil = evil_torch_pt(tmp_path / "evil.pt", marker)
    cfg = tmp_path / "init.yaml"
    cfg.write_text(f"init_from: {evil}\n")
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "scripts/train_ppo.py", "--config", str(cfg), "--smoke"]
        + ["--out", str(out), "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert not marker.exists(), "the file's code ran"
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "evil.pt" in r.stderr and "trust_init_from" in r.stderr
    assert not out.exists()


# ---------------------------------------------------------------- upper bounds, every script


def _script(name: str) -> Any:
    """A training script as a module (its own name, so tests elsewhere keep theirs)."""
    mod_name = f"_config_test_{name}"
    if mod_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(mod_name, ROOT / "scripts" / f"{name}.py")
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = mod  # pydantic resolves the Config's annotations through it
        spec.loader.exec_module(mod)
    return sys.modules[mod_name]


LONG_PATH = "x" * 5000

# (script, config lines, the field the error names): values no real run would use, each of
# which ended in a traceback (or ran on toward one) before it was bounded.
TOO_BIG = [
    ("train_ppo", "seed: 100000000000000000000000000000", "seed"),
    ("train_ppo", "seed: 4294967296", "seed"),
    ("train_ppo", "net_arch: [8192, 8192]", "net_arch"),
    ("train_ppo", f"net_arch: [{', '.join(['64'] * 17)}]", "net_arch"),
    ("train_ppo", "n_steps: 1000000000", "n_steps"),
    ("train_ppo", "n_steps: 8192\nn_envs: 16", "n_steps"),
    ("train_ppo", "bc_games: 1000000000", "bc_games"),
    ("train_ppo", "total_timesteps: 1000000000000000", "total_timesteps"),
    ("train_ppo", "batch_size: 100000000", "batch_size"),
    ("train_ppo", "n_epochs: 1000000", "n_epochs"),
    ("train_ppo", "bc_epochs: 1000000", "bc_epochs"),
    ("train_ppo", "eval_games: 1000000000", "eval_games"),
    ("train_ppo", "eval_every: 1000000000000000", "eval_every"),
    ("train_ppo", "snapshot_every: 1000000000000000", "snapshot_every"),
    ("train_ppo", "checkpoint_every: 1000000000000000", "checkpoint_every"),
    ("train_ppo", "max_snapshots: 1000000", "max_snapshots"),
    ("train_ppo", "max_decisions: 1000000000", "max_decisions"),
    ("train_ppo", "entity_dim: 4096", "entity_dim"),
    ("train_ppo", "learning_rate: 1.0e+300", "learning_rate"),
    ("train_ppo", "ent_coef: 1.0e+300", "ent_coef"),
    ("train_ppo", "clip_range: 1.0e+300", "clip_range"),
    ("train_ppo", "init_temperature: 1.0e-300", "init_temperature"),
    ("train_ppo", "opponents: {random: 1.0e+300, heuristic: 1.0e+300}", "opponents"),
    ("train_ppo", f"init_from: {LONG_PATH}", "init_from"),
    ("train_ppo", f"format: {LONG_PATH}", "format"),
    ("train_entity", "seed: 100000000000000000000000000000", "seed"),
    ("train_entity", "n_steps: 1000000000", "n_steps"),
    ("train_entity", "n_steps: 8192\nn_envs: 16", "n_steps"),
    ("train_entity", "n_steps: 8\nn_envs: 2\nbatch_size: 64", "batch_size"),
    ("train_entity", "bc_games: 1000000000", "bc_games"),
    ("train_entity", "total_timesteps: 1000000000000000", "total_timesteps"),
    ("train_entity", "eval_games: 1000000000", "eval_games"),
    ("train_entity", "final_eval_games: 1000000000", "final_eval_games"),
    ("train_entity", "eval_every: 1000000000000000", "eval_every"),
    ("train_entity", "n_epochs: 1000000", "n_epochs"),
    ("train_entity", "bc_epochs: 1000000", "bc_epochs"),
    ("train_entity", "max_decisions: 1000000000", "max_decisions"),
    ("train_entity", "hidden: 100000", "hidden"),
    ("train_entity", "entity_dim: 4096", "entity_dim"),
    ("train_entity", "wall_minutes: 1.0e+300", "wall_minutes"),
    ("train_entity", "learning_rate: 1.0e+300", "learning_rate"),
    ("train_rllib", "seed: 100000000000000000000000000000", "seed"),
    ("train_rllib", "seed: -1", "seed"),
    ("train_rllib", "iterations: 0", "iterations"),
    ("train_rllib", "iterations: 1000000000000", "iterations"),
    ("train_rllib", "num_env_runners: -1", "num_env_runners"),
    ("train_rllib", "num_env_runners: 1000000", "num_env_runners"),
    ("train_rllib", "num_envs_per_env_runner: 0", "num_envs_per_env_runner"),
    ("train_rllib", "num_cpus: 0", "num_cpus"),
    ("train_rllib", "num_learners: 1000000", "num_learners"),
    ("train_rllib", "num_gpus_per_learner: .inf", "num_gpus_per_learner"),
    ("train_rllib", "train_batch_size: 1000000000", "train_batch_size"),
    ("train_rllib", "train_batch_size: 256\nminibatch_size: 512", "minibatch_size"),
    ("train_rllib", "num_epochs: 0", "num_epochs"),
    ("train_rllib", "lr: .nan", "lr"),
    ("train_rllib", "gamma: 2", "gamma"),
    ("train_rllib", "hidden: 100000", "hidden"),
    ("train_rllib", "entity_dim: 4096", "entity_dim"),
    ("train_rllib", "self_play: 1.5", "self_play"),
    ("train_rllib", "snapshot_every: -1", "snapshot_every"),
    ("train_rllib", "max_snapshots: 1000000", "max_snapshots"),
    ("train_rllib", "eval_episodes: 1000000000", "eval_episodes"),
    ("train_rllib", "checkpoint_every: 0", "checkpoint_every"),
    ("train_rllib", "max_decisions: 0", "max_decisions"),
    ("train_rllib", "format: modern", "format"),
    ("train_rllib", "opponents: {heuristic: 0.8, random: 0.8}", "opponents"),
    ("train_rllib", "opponents: {heuristic: -0.1}", "opponents"),
    ("train_rllib", "opponents: {nonsense: 0.1}", "opponents"),
]


@pytest.mark.parametrize(
    ("script", "lines", "field"),
    TOO_BIG,
    ids=[f"{s}-{x.split(chr(10))[0][:40]}" for s, x, _ in TOO_BIG],
)
def test_every_number_in_a_training_config_is_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str, lines: str, field: str
) -> None:
    """The script's own entry point, as its command line runs it: exit status 2, one
    `error: FILE: field X: ...` line, and nothing written."""
    cfg = tmp_path / "big.yaml"
    cfg.write_text(lines + "\n")
    out = tmp_path / "out"
    assert _script(script).main(["--config", str(cfg), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {cfg}: field {field}"), err
    assert len(err[0]) < 1000, "the message repeats the whole value"
    assert not out.exists()


@pytest.mark.parametrize(
    ("script", "flag"),
    [
        ("train_ppo", ["--total-timesteps", "1000000000000000"]),
        ("train_ppo", ["--bc-games", "1000000000"]),
        ("train_rllib", ["--iterations", "0"]),
        ("train_rllib", ["--iterations", "1000000000000"]),
    ],
)
def test_command_line_numbers_are_bounded_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str, flag: list[str]
) -> None:
    out = tmp_path / "out"
    assert _script(script).main(["--out", str(out), *flag]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {flag[0]}: field"), err
    assert not out.exists()


# ------------------------------------------------- no plug-in agent spec from a config file

EVIL_AGENT = """
from pathlib import Path

Path({marker!r}).write_text("the plug-in's code ran")


class Agent:
    def choose(self, game):
        return game.legal_actions()[0]
"""


# A tiny run of each script: what a config that got through would start. (train_rllib's
# --smoke replaces the opponents, so its tiny run is spelled out.)
TINY = {
    "train_ppo": ("", ["--smoke", "--no-progress"]),
    "train_entity": ("", ["--smoke"]),
    "train_rllib": (
        "iterations: 1\nnum_env_runners: 0\nnum_envs_per_env_runner: 1\nnum_cpus: 1\n"
        "train_batch_size: 64\nminibatch_size: 32\nnum_epochs: 1\nhidden: 16\n"
        "entity_dim: 4\nsnapshot_every: 0\neval_every: 0\nmax_decisions: 100\n",
        [],
    ),
}


@pytest.mark.parametrize("script", sorted(TINY))
def test_a_plugin_spec_in_a_training_config_is_refused_before_it_runs(
    tmp_path: Path, script: str
) -> None:
    """A plug-in spec runs its code when the agent is made: a training config may name
    built-in agents only. The run is refused in one line naming the file and the field,
    and the plug-in's file never runs."""
    marker = tmp_path / "MARKER"
    evil = tmp_path / "evil.py"
    evil.write_text(EVIL_AGENT.format(marker=str(marker)))
    cfg = tmp_path / "plugin.yaml"
    lines, args = TINY[script]
    cfg.write_text(f'{lines}opponents: {{"{evil}:Agent": 0.5, "text:{evil}:Agent": 0.1}}\n')
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, f"scripts/{script}.py", "--config", str(cfg), *args] + ["--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert not marker.exists(), "the plug-in's code ran"
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stdout + r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {cfg}: field opponents"), err
    assert not out.exists()
