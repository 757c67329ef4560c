"""Training on whatever hardware the machine has: every training config takes `device:
auto | cpu | cuda`; "auto" is the GPU where PyTorch sees one; "cuda" without one is one
error line before anything is written; the files a run writes are device-independent.
(The GPU path itself runs on a machine with one; these tests run the CPU path and the
decisions around it.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from agents.train_fields import device_name, torch_device

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ("train_entity", "train_ppo", "distill_search", "train_expert")


def test_auto_is_the_gpu_where_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert torch_device("cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert torch_device("auto") == torch.device("cpu")
    with pytest.raises(SystemExit) as e:
        torch_device("cuda", "run.yaml")
    line = str(e.value.code)
    assert line.startswith("error: run.yaml: field device: 'cuda' asked for, but ")
    assert "\n" not in line and "'auto'" in line
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert torch_device("auto") == torch.device("cuda")
    assert torch_device("cuda") == torch.device("cuda")
    assert torch_device("cpu") == torch.device("cpu")
    assert device_name(torch.device("cpu")) == "cpu"


def _script(script: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A training script run as users run it, writing into `out`."""
    cmd = [sys.executable, f"scripts/{script}.py", *args, "--out", str(out)]
    if script == "distill_search":
        from agents.policy import DEFAULT

        cmd += ["--init", str(DEFAULT)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_training_config_takes_a_device(script: str, tmp_path: Path) -> None:
    """The field exists in each script's config and refuses other names with one line
    naming the file and the field."""
    cfg = tmp_path / "run.yaml"
    cfg.write_text("device: tpu\n")
    r = _script(script, tmp_path / "o", "--config", str(cfg))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "device" in r.stderr and str(cfg) in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
@pytest.mark.parametrize("script", SCRIPTS)
def test_cuda_without_a_gpu_is_one_line_and_writes_nothing(script: str, tmp_path: Path) -> None:
    cfg = tmp_path / "run.yaml"
    cfg.write_text("device: cuda\n")
    r = _script(script, tmp_path / "out", "--config", str(cfg), "--smoke")
    assert r.returncode == 2, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"error: {cfg}: field device: 'cuda' asked for, but ")
    assert not (tmp_path / "out").exists()


def test_the_policy_reads_its_inputs_on_its_own_device() -> None:
    """The evaluation's forward pass builds its tensors where the policy lives (a policy on
    the "meta" device stands for a GPU here: a CPU tensor handed to it would be refused)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "train_entity_dev", ROOT / "scripts/train_entity.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)

    class Dist:
        def mode(self) -> torch.Tensor:
            return torch.tensor([3])

    class MetaPolicy:
        device = torch.device("meta")
        seen: list[torch.device] = []

        def get_distribution(self, obs: dict[str, torch.Tensor], action_masks: object) -> Dist:
            self.seen += [t.device for t in obs.values()]
            return Dist()

    import mtg_env

    env = mtg_env.raw_env(format="classic", obs_type="entity")
    env.reset(seed=0)
    policy = MetaPolicy()
    assert mod.policy_action(policy, env.observe(env.agent_selection)) == 3
    assert policy.seen and all(d.type == "meta" for d in policy.seen)
