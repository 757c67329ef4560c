"""Every training-config value is checked when the file is read: a bad value is one
`error: FILE: field X: ...` line with exit status 2, no traceback, and nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

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


@pytest.mark.parametrize(("line", "field"), BAD, ids=[b[0].split("\n")[0] for b in BAD])
def test_a_bad_config_value_is_one_line_naming_the_field(
    tmp_path: Path, line: str, field: str
) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(line + "\n")
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
    assert len(err) == 1 and err[0].startswith(f"error: {cfg}") and field in err[0], err
    assert not out.exists()


@pytest.mark.parametrize("flag", [["--total-timesteps", "-1000"], ["--bc-games", "-1"]])
def test_command_line_overrides_are_checked_too(tmp_path: Path, flag: list[str]) -> None:
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "scripts/train_ppo.py", "--smoke", "--out", str(out), *flag],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert flag[0] in r.stderr and not out.exists()


def test_a_pickled_init_from_is_refused_unless_trusted(tmp_path: Path) -> None:
    from test_no_code_from_files import evil_torch_pt

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
