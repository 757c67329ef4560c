"""Tiny-budget smoke runs of every script in scripts/."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    r = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_bench_state_smoke() -> None:
    out = run("scripts/bench_state.py", "--repeats", "1", "--rounds", "2")
    assert "clone/s" in out and "resample_hidden/s" in out


def test_bench_env_smoke() -> None:
    for env, obs_type in (("raw", "flat"), ("batch", "entity")):
        out = run("scripts/bench_env.py", env, obs_type, "--seconds", "0.2")
        assert out.startswith(f"{env} {obs_type} classic: ") and out.rstrip().endswith("steps/s")
        assert float(out.split(": ")[1].split()[0].replace(",", "")) > 0


def test_engine_games_smoke() -> None:
    out = run("scripts/engine_games.py", "--games", "2")
    n = int(out.split()[0])
    assert n > 20 and "decisions/s" in out
    out = run("scripts/engine_games.py", "--games", "2", "--env")
    assert int(out.split()[0]) > 20 and "steps/s" in out


def test_bench_legal_smoke() -> None:
    out = run("scripts/bench_legal.py", "--games", "1")
    assert "us/call" in out


def test_bench_command_json_has_every_figure() -> None:
    # Two paired rounds (the default is three) keep the median checks real and the run short;
    # the training figure is checked in process below, at a smaller rollout.
    out = run(
        "-m",
        "mtg_env.cli",
        "bench",
        "--seconds",
        "0.15",
        "--format",
        "classic",
        "--chess",
        "--no-ppo",
        "--rounds",
        "2",
        "--json",
    )
    res = json.loads(out)
    r = res["formats"]["classic"]
    for group, key in [
        ("engine", "decisions_per_s"),
        ("engine", "games_per_s"),
        ("raw_env", "steps_per_s"),
        ("raw_env_v1", "steps_per_s"),
        ("env", "steps_per_s"),
        ("selfplay", "steps_per_s"),
        ("state", "clone_per_s"),
        ("state", "resample_hidden_per_s"),
        ("memory", "peak_mib_per_env"),
        ("vector", "vector_steps_per_s"),
        ("vector", "separate_raw_env_steps_per_s"),
        ("vector_v1", "vector_steps_per_s"),
    ]:
        assert r[group][key] > 0, (group, key)
    for v in ("vector", "vector_v1"):
        assert r[v]["vector_ratio"] == pytest.approx(
            r[v]["vector_steps_per_s"] / r[v]["separate_raw_env_steps_per_s"]
        )
    assert "ppo" not in res
    # Ratios are medians of paired rounds, not of one run each.
    assert len(res["chess"]["rounds"]) == 2 and res["chess"]["steps_per_s"] > 0
    ours = res["raw_env_vs_chess_rounds"]["classic"]["flat"]
    assert res["raw_env_vs_chess"]["classic"] == pytest.approx(
        statistics.median(x / c for x, c in zip(ours, res["chess"]["rounds"]))
    )
    assert res["raw_env_v1_vs_chess"]["classic"] > 0
    assert 0 < r["obs_bytes"]["v1"] <= 8192 < r["obs_bytes"]["v0"]
    # The observation costs are timed on the same states, and their ratio is theirs.
    o = r["observe"]
    assert o["states"] > 0 and o["v0_us"] > 0 and o["v1_us"] > 0
    assert o["v1_vs_v0_ratio"] == pytest.approx(o["v1_us"] / o["v0_us"])
    # The compiled engine's figures come with the pure engine's, measured in the same run.
    from mtg_env.engine import build

    assert res["engine_build"] == build.engine_build()
    if build.COMPILED:
        rounds = res["compiled_vs_pure_rounds"]["classic"]
        ratio = res["compiled_vs_pure_ratio"]["classic"]
        assert len(rounds) == 2
        for key in ("decisions_per_s", "clone_per_s", "raw_env_steps_per_s"):
            assert all(x["pure"][key] > 0 for x in rounds), key
            assert ratio[key] == pytest.approx(
                statistics.median(x["compiled"][key] / x["pure"][key] for x in rounds)
            ), key
            assert res["pure"]["classic"][key] == statistics.median(x["pure"][key] for x in rounds)
    else:
        assert "compiled_vs_pure_ratio" not in res and res["engine_build_note"]


def test_bench_ppo_splits_the_time_inside_the_env() -> None:
    from mtg_env.tools.bench import bench_ppo

    ppo = bench_ppo("classic", rollouts=1, n_envs=2, n_steps=32)
    assert ppo["steps_per_s"] > 0 and 0 < ppo["env_share"] < 1 and ppo["n_envs"] == 2
    # The heuristic opponent's thinking is a part of the time inside the env.
    assert 0 < ppo["opponent_share"] < ppo["env_share"]
    assert ppo["env_share_without_opponent"] == pytest.approx(
        ppo["env_share"] - ppo["opponent_share"]
    )


MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


def _has_gpu() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def test_bench_train_times_the_v1_loop_and_splits_it() -> None:
    """`mtg-env bench --train`: the v1 recipe's loop, end to end, with the collecting and
    learning parts of its wall time and the update's samples per second."""
    r = subprocess.run(
        [
            MTG_ENV, "bench", "--format", "classic", "--seconds", "0.05", "--no-ppo",
            "--no-vector", "--no-pure", "--train", "--train-rollouts", "2", "--train-envs",
            "2", "--train-batch-size", "128", "--train-epochs", "1", "--device", "cpu",
            "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)["train"]
    assert t["steps"] == 2 * 128 * 2 and t["device"] == "cpu"
    assert (t["n_envs"], t["batch_size"], t["n_epochs"], t["vec_env"]) == (2, 128, 1, "batch")
    assert t["steps_per_s"] > 0 and t["update_samples_per_s"] > 0
    assert 0 < t["collect_share"] < 1 and 0 < t["learn_share"] < 1
    assert t["collect_share"] + t["learn_share"] <= 1
    # Collecting alone is faster than the loop it is a part of.
    assert t["collect_steps_per_s"] > t["steps_per_s"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--train-workers", "2", "--train-vec-env", "dummy"], "--train-workers"),
        (["--train-envs", "2", "--train-workers", "3"], "more workers than games"),
        (["--train-envs", "2", "--train-batch-size", "4096"], "more than a rollout"),
        (["--train-vec-env", "subproc"], "--train-vec-env"),
        (["--device", "tpu"], "--device: field device: 'tpu' is not one of"),
        pytest.param(
            ["--device", "cuda"],
            "'cuda' asked for",
            marks=pytest.mark.skipif(_has_gpu(), reason="this machine has a GPU"),
        ),
    ],
)
def test_bench_train_bad_settings_are_one_line(args: list[str], says: str) -> None:
    r = subprocess.run(
        [MTG_ENV, "bench", "--no-ppo", "--no-vector", "--no-pure", "--train", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2 and says in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not r.stdout


def test_bench_command_rejects_unknown_format() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mtg_env.cli", "bench", "--format", "nope"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "unknown format 'nope'" in r.stderr


@pytest.fixture
def ppo_smoke(made_once) -> Path:
    """`train_ppo.py --smoke`, trained once for the tests that read it: the run folder
    (run/) and what it printed (stdout.txt)."""

    def make(folder: Path) -> None:
        out = str(folder / "run")
        stdout = run("scripts/train_ppo.py", "--smoke", "--out", out, "--no-progress")
        (folder / "stdout.txt").write_text(stdout)

    return made_once("train-ppo-smoke", make)


def test_train_ppo_smoke_and_policy_agent(ppo_smoke: Path, tmp_path: Path) -> None:
    assert '"timesteps"' in (ppo_smoke / "stdout.txt").read_text()
    out = tmp_path / "run"
    shutil.copytree(ppo_smoke / "run", out)
    card = json.loads((out / "model_card.json").read_text())
    assert card["timesteps"] >= 256 and "final_evaluation" in card
    assert 0.0 < card["env_time_share"] < 1.0
    assert (out / "policy.safetensors").exists() and (out / "checkpoint.pt").exists()
    assert (out / "policy.safetensors").stat().st_size < 4_000_000  # float16, no optimizer
    # resume continues from the checkpoint
    stdout = run(
        "scripts/train_ppo.py",
        "--smoke",
        "--out",
        str(out),
        "--resume",
        "--total-timesteps",
        "512",
        "--no-progress",
    )
    assert json.loads(stdout.strip().splitlines()[-1])["timesteps"] >= 512
    from agents import make_agent
    from agents.match import run_match

    agent = make_agent(f"policy:{out / 'policy.safetensors'}")
    assert agent.needs_observation
    res = run_match(f"policy:{out / 'policy.safetensors'}", "random", 2, seed=1)
    assert res.games == 2


def test_train_config_errors_name_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_timestep: 5\n")
    r = subprocess.run(
        [sys.executable, "scripts/train_ppo.py", "--config", str(bad)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0 and "total_timestep" in r.stderr and "Traceback" not in r.stderr


def test_corrupt_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    import pytest

    from agents import make_agent
    from agents.policy import CheckpointError

    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="broken.zip"):
        make_agent(f"policy:{bad}")
    with pytest.raises(CheckpointError, match="not found"):
        make_agent(f"policy:{tmp_path / 'missing.zip'}")
    bad_pt = tmp_path / "broken.pt"
    bad_pt.write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="broken.pt"):
        make_agent(f"policy:{bad_pt}")


# The demo chains the training recipe and a tournament, each tested on its own in make test;
# the whole chain runs in make test-all.
@pytest.mark.long
def test_demo_smoke(tmp_path: Path) -> None:
    out = run("scripts/demo.py", "--smoke", "--out", str(tmp_path / "demo"))
    assert "heatmap:" in out and "Ratings" in out
    assert (tmp_path / "demo" / "tournament" / "heatmap.png").exists()


def test_train_ppo_slot_head_smoke(tmp_path: Path) -> None:
    cfg = tmp_path / "slot.yaml"
    cfg.write_text("head: slot\n")
    out = tmp_path / "slot"
    run("scripts/train_ppo.py", "--config", str(cfg), "--smoke", "--out", str(out), "--no-progress")
    from agents.match import run_match

    assert run_match(f"policy:{out / 'policy.safetensors'}", "random", 2, seed=1).games == 2


def test_train_ppo_init_from_a_trained_policy(tmp_path: Path) -> None:
    """Stage 2 of the recipe: new PPO settings on a trained policy's weights (no behaviour
    cloning); a network that does not match the weights is a clear error."""
    from policy_files import default_uses_race_features

    from agents.policy import DEFAULT as init

    cfg = tmp_path / "stage2.yaml"
    race_flag = str(default_uses_race_features()).lower()
    cfg.write_text(
        f"head: slot\nentity_dim: 24\nnet_arch: [256]\nrace_features: {race_flag}\n"
        f"init_from: {init}\n"
    )
    out = tmp_path / "stage2"
    stdout = run(
        "scripts/train_ppo.py", "--config", str(cfg), "--smoke", "--out", str(out), "--no-progress"
    )
    assert f"initialised the policy from {init}" in stdout
    assert "behaviour cloning" not in stdout
    bad = tmp_path / "flat.yaml"
    bad.write_text(f"head: flat\ninit_from: {init}\n")
    r = subprocess.run(
        [sys.executable, "scripts/train_ppo.py", "--config", str(bad), "--smoke"]
        + ["--out", str(tmp_path / "bad"), "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode != 0 and "does not match" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.long  # a third training run (8 s); make test-all runs it
def test_train_ppo_init_from_a_policy_without_the_race_summary_widens_it(tmp_path: Path) -> None:
    """A policy trained without the race summary starts a run that has it (widened)."""
    from policy_files import write_policy_like_default

    plain = write_policy_like_default(tmp_path / "plain.safetensors", race_features=False)
    race = tmp_path / "race.yaml"
    race.write_text(
        f"head: slot\nentity_dim: 24\nnet_arch: [256]\nrace_features: true\ninit_from: {plain}\n"
    )
    stdout = run(
        "scripts/train_ppo.py", "--config", str(race), "--smoke", "--out", str(tmp_path / "r"),
        "--no-progress",
    )  # fmt: skip
    assert f"initialised the policy from {plain}" in stdout
    from agents.policy import load_model

    fe = load_model(tmp_path / "r" / "policy.safetensors").features_extractor
    assert fe.race_features


def test_export_policy_from_checkpoint(ppo_smoke: Path, tmp_path: Path) -> None:
    import torch

    from agents.policy import load_model

    out = ppo_smoke / "run"
    p = tmp_path / "p.safetensors"
    stdout = run("scripts/export_policy.py", str(out / "checkpoint.pt"), str(p))
    assert "MB" in stdout and p.stat().st_size < 4_000_000
    # The last checkpoint is written with the final policy: the same weights.
    a, b = load_model(p).state_dict(), load_model(out / "policy.safetensors").state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_distill_search_smoke(tmp_path: Path) -> None:
    out = tmp_path / "distill"
    from agents.policy import DEFAULT as init

    stdout = run("scripts/distill_search.py", "--smoke", "--init", str(init), "--out", str(out))
    res = json.loads(stdout.strip().splitlines()[-1])
    assert res["labelled_states"] > 0
    card = json.loads((out / "model_card.json").read_text())
    assert card["labelled_states"] == res["labelled_states"] and len(card["losses"]) == 1
    # The distilled policy plays: a legal game against random through the agent spec.
    from agents.match import run_match

    r = run_match(f"policy:{out / 'policy.safetensors'}", "random", 2, seed=1)
    assert r.games == 2


def test_distill_search_rejects_a_bad_checkpoint(tmp_path: Path) -> None:
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a policy")
    r = subprocess.run(
        [sys.executable, "scripts/distill_search.py", "--smoke", "--init", str(bad)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "bad.safetensors" in r.stderr
    assert "not a readable policy" in r.stderr and "Traceback" not in r.stderr


def _script_module(name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{name}_mod", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_every_bundled_training_config_loads() -> None:
    """The recipe's stage configs are valid for train_ppo.py (typos fail here, not after
    an hour of training)."""
    mod = _script_module("train_ppo")
    # The recipe's stages and the experiments under configs/train/experiments/.
    paths = sorted((ROOT / "configs" / "train").rglob("ppo_*.yaml"))
    assert len(paths) >= 5
    for p in paths:
        cfg = mod.load_config(str(p))
        assert cfg.total_timesteps > 0, p
    entity = _script_module("train_entity")
    for p in sorted((ROOT / "configs" / "train").rglob("entity_*.yaml")):
        assert entity.load_config_yaml(str(p), entity.Config).wall_minutes, p
    stage2 = mod.load_config(str(ROOT / "configs" / "train" / "ppo_stage2.yaml"))
    assert stage2.init_temperature == 2.0 and stage2.init_from and stage2.race_features


def test_init_temperature_divides_every_action_logit() -> None:
    """`init_temperature` flattens a cloned policy: log-probabilities become
    log_softmax(logits / T) exactly, for the slot head's flat and pointer parts alike."""
    import copy
    import types

    import torch

    from agents.policy import DEFAULT, load_model
    from mtg_env.env import SelfPlayEnv

    mod = _script_module("train_ppo")
    policy = copy.deepcopy(load_model(DEFAULT))
    env = SelfPlayEnv()
    obs = [env.reset(seed=s)[0] for s in range(4)]
    x = torch.as_tensor(obs)

    def logp() -> torch.Tensor:
        with torch.no_grad():
            return policy.get_distribution(x).distribution.logits

    before = logp()
    mod.soften_policy(types.SimpleNamespace(policy=policy), 2.5)
    after = logp()
    assert torch.allclose(after, torch.log_softmax(before / 2.5, -1), atol=1e-4)
    assert not torch.allclose(after, before, atol=1e-2)


def test_average_policies_is_the_mean_of_the_weights(tmp_path: Path) -> None:
    import copy

    import torch

    from agents.policy import DEFAULT, CheckpointError, export_policy, load_model

    mod = _script_module("average_policies")
    default = DEFAULT
    scaled = copy.deepcopy(load_model(default))
    with torch.no_grad():
        for v in scaled.parameters():  # parameters, not state_dict(): no aliased entries
            v.mul_(3)
    assert any(not v.is_floating_point() for v in scaled.state_dict().values())
    export_policy(scaled, tmp_path / "scaled.safetensors")
    before = {k: v.clone() for k, v in load_model(default).state_dict().items()}
    mod.average_policies(
        [str(default), str(tmp_path / "scaled.safetensors")], str(tmp_path / "avg.safetensors")
    )
    avg = load_model(tmp_path / "avg.safetensors").state_dict()
    for k, v in before.items():
        if v.is_floating_point():  # (w + 3w) / 2 = 2w, up to the file's float16 rounding
            assert torch.allclose(avg[k], 2 * v, rtol=2e-3, atol=1e-3), k
        else:  # index buffers are copied
            assert torch.equal(avg[k], v), k
    # The cached default policy is not touched by the averaging.
    for k, v in load_model(default).state_dict().items():
        assert torch.equal(v, before[k]), k
    # A different network (a narrower hidden layer) is refused, naming the file.
    pol = load_model(default)
    other = type(pol)(**{**pol._get_constructor_parameters(), "hidden": 128})
    export_policy(other, tmp_path / "narrow.safetensors")
    with pytest.raises(CheckpointError, match=r"narrow\.safetensors: parameter .* has shape"):
        mod.average_policies(
            [str(default), str(tmp_path / "narrow.safetensors")], str(tmp_path / "x.safetensors")
        )
    assert not (tmp_path / "x.safetensors").exists()


# The batch env is the recipe's default; the dummy one (one game a step) in make test-all.
@pytest.mark.parametrize("vec_env", [pytest.param("dummy", marks=pytest.mark.long), "batch"])
def test_train_entity_smoke_writes_data_only_results(tmp_path: Path, vec_env: str) -> None:
    import torch
    from safetensors.torch import load_file

    out = tmp_path / "entity"
    config = tmp_path / "config.yaml"
    text = (ROOT / "configs/train/entity_default.yaml").read_text()
    config.write_text(text + f"vec_env: {vec_env}\n")
    stdout = run(
        "scripts/train_entity.py",
        "--config",
        str(config),
        "--smoke",
        "--out",
        str(out),
    )
    assert "done: 256 steps" in stdout
    card = json.loads((out / "model_card.json").read_text())
    assert card["steps"] == 256 and card["config"]["entity_dim"] == 16
    assert card["config"]["vec_env"] == vec_env
    # The run records the hardware it trained on (device "auto": the GPU where there is one).
    assert card["config"]["device"] == "auto"
    assert card["device"].startswith("cuda (") == torch.cuda.is_available()
    assert card["device"] == "cpu" or torch.cuda.is_available()
    evals = [json.loads(x) for x in (out / "eval.jsonl").read_text().splitlines()]
    assert evals[0]["steps"] == 0 and evals[-1]["steps"] == 256
    assert all(0 <= e["random"] <= 1 and 0 <= e["heuristic"] <= 1 for e in evals)
    weights = load_file(out / "policy.safetensors")
    assert any(k.startswith("action_net.") for k in weights)
    # The policy file is an agent spec: `policy:PATH` plays v1 from engine states.
    from agents import make_agent

    agent = make_agent(f"policy:{out / 'policy.safetensors'}", fmt="classic")
    assert agent.observer.kind == "entity"


def test_train_entity_on_the_heldout_training_decks(tmp_path: Path) -> None:
    """`decks: train` (configs/train/entity_core.yaml): every training and evaluation game
    draws from the held-out benchmark's training decks, none from its held-out part."""
    from agents.heldout import load_split

    entity = _script_module("train_entity")
    cfg = entity.load_config_yaml(str(ROOT / "configs/train/entity_core.yaml"), entity.Config)
    split = load_split()
    assert cfg.decks == "train" and cfg.format == split.format
    pool = entity.deck_pool(cfg)
    assert sorted(d.name for d in pool) == sorted(split.train)
    from agents.opponent_pool import PoolEnv

    env = PoolEnv(cfg.format, pool, cfg.p_heuristic, cfg.max_decisions, 0)
    seen = set()
    for s in range(30):
        env.reset(seed=s)
        seen |= {d.name for d in env.aec.decks}
    assert seen <= set(split.train) and len(seen) > 2
    pairs = entity.eval_pairs(cfg, 50, 900)
    assert {d.name for p in pairs for d in p} <= set(split.train)
    assert all(a is not b for a, b in pairs)
    with pytest.raises(ValueError, match="decks"):
        entity.Config(format="classic", decks="train")
    out = tmp_path / "core"
    stdout = run(
        "scripts/train_entity.py", "--config", "configs/train/entity_core.yaml", "--smoke",
        "--out", str(out),
    )  # fmt: skip
    assert "done: 256 steps" in stdout
    card = json.loads((out / "model_card.json").read_text())
    assert card["config"]["decks"] == "train" and card["config"]["format"] == "core"


def test_train_entity_bad_config_is_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("entity_dim: 0\n")
    r = subprocess.run(
        [sys.executable, "scripts/train_entity.py", "--config", str(cfg), "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "field entity_dim" in r.stderr and str(cfg) in r.stderr


def test_openspiel_ismcts_script_smoke(tmp_path: Path) -> None:
    pytest.importorskip("pyspiel")
    out = tmp_path / "ismcts.json"
    stdout = run(
        "scripts/openspiel_ismcts.py",
        "--games", "2", "--simulations", "2", "--max-decisions", "80", "--out", str(out),
    )  # fmt: skip
    assert "IS-MCTS (2 simulations) vs random" in stdout
    res = json.loads(out.read_text())
    assert res["games"] == 2 and 0 <= res["score"] <= 1
    assert res["config"]["simulations"] == 2
