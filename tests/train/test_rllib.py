"""Ray RLlib support: the multi-agent env, the masked module, the league, checkpoints as
agents, and the training script's smoke run."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.rllib import (
    LEARNER,
    MaskedSlotModule,
    MtgMultiAgentEnv,
    league_mapping,
    load_sb3_policy,
    module_spec,
)

ROOT = Path(__file__).resolve().parents[2]


def _train(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """`scripts/train_rllib.py ARGS` in a subprocess (its own Ray), output captured."""
    return subprocess.run(
        [sys.executable, "scripts/train_rllib.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _play(env: MtgMultiAgentEnv, seed: int) -> tuple[dict[str, float], dict, dict, int]:
    """One game with uniformly random legal actions; checks the turn-based contract at
    every step and returns the summed rewards, the last terminateds and infos."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    totals: dict[str, float] = {}
    steps = 0
    while True:
        assert len(obs) == 1, f"only the deciding agent observes, got {sorted(obs)}"
        ((agent, o),) = obs.items()
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        assert len(legal) > 0
        obs, rew, term, trunc, infos = env.step({agent: int(rng.choice(legal))})
        steps += 1
        for k, v in rew.items():
            totals[k] = totals.get(k, 0.0) + v
        if term["__all__"] or trunc["__all__"]:
            for o in obs.values():
                assert not o["action_mask"].any(), "no action after the end"
            return totals, term, infos, steps


def test_rllib_env_league_game_rewards_both_players_at_the_end() -> None:
    env = MtgMultiAgentEnv({"max_decisions": 3000})
    for seed in range(3):
        totals, term, infos, _ = _play(env, seed)
        assert set(totals) == {"player_0", "player_1"}
        assert term["__all__"] and term["player_0"] and term["player_1"]
        winner = infos["player_0"]["winner"]
        assert winner in (0, 1)
        assert totals[f"player_{winner}"] == 1.0 and totals[f"player_{1 - winner}"] == -1.0


def test_rllib_env_engine_opponent_is_played_inside_the_env() -> None:
    env = MtgMultiAgentEnv({"opponents": {"heuristic": 1.0}})
    seats = []
    for seed in range(4):
        totals, term, infos, _ = _play(env, seed)
        assert set(totals) == {LEARNER} and set(term) == {LEARNER, "__all__"}
        info = infos[LEARNER]
        assert info["opponent"] == "heuristic"
        assert totals[LEARNER] == (1.0 if info["winner"] == info["seat"] else -1.0)
        seats.append(info["seat"])
    assert seats == [0, 1, 0, 1], "the learner's seat alternates"


def test_rllib_env_truncation_is_not_termination() -> None:
    env = MtgMultiAgentEnv({"max_decisions": 30})
    totals, term, _, steps = _play(env, 0)
    assert not term["__all__"] and steps <= 30
    assert all(v == 0.0 for v in totals.values())


class _FixedSample:
    """An action space stand-in whose `sample()` is one given action: the env checker's
    step made legal (its random action is almost always masked out)."""

    def __init__(self, action: int) -> None:
        self.action = action

    def sample(self) -> int:
        return self.action


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
@pytest.mark.parametrize("opponents", [{}, {"random": 1.0}], ids=["league", "engine"])
@pytest.mark.parametrize("first", ["unmasked", "legal"])
def test_rllib_env_passes_rllibs_env_checker(
    obs_type: str, opponents: dict[str, float], first: str
) -> None:
    """RLlib's own checker (the one its env runners run unless `disable_env_checking`):
    reset(seed=42), one step with a sampled action, every key of the step's dicts among
    `env.agents`. The sampled action is masked out (the usual case) or legal."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    cfg = {"obs_type": obs_type, "opponents": opponents}
    env = MtgMultiAgentEnv(cfg)
    probe = MtgMultiAgentEnv(cfg)
    ((agent, o),) = probe.reset(seed=42, options={})[0].items()
    if first == "legal":
        legal = int(np.flatnonzero(o["action_mask"])[0])
        env.get_action_space = lambda agent_id: _FixedSample(legal)  # type: ignore[method-assign]
    else:
        space = env.get_action_space(agent)
        space.seed(0)
        assert not o["action_mask"][space.sample()], "the checker's action is masked out"
        space.seed(0)
    assert hasattr(env, "_agent_ids"), "else the checker only warns and checks nothing"
    check_multiagent_environments(env)


def test_rllib_env_illegal_action_ends_the_episode_with_minus_one() -> None:
    """PettingZoo's illegal-move convention: the offender gets -1, the other agent 0."""
    env = MtgMultiAgentEnv({})
    obs, _ = env.reset(seed=1)
    ((first, o),) = obs.items()
    obs, _, term, _, _ = env.step({first: int(np.flatnonzero(o["action_mask"])[0])})
    ((second, o),) = obs.items()
    assert not term["__all__"] and second != first
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rew, term, trunc, infos = env.step({second: illegal})
    assert rew == {second: -1.0, first: 0.0}
    assert term == {first: True, second: True, "__all__": True} and not trunc["__all__"]
    assert infos[second]["illegal_action"] == illegal
    assert all(not x["action_mask"].any() for x in obs.values())
    assert set(obs) <= set(env.agents)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({first: 0})
    obs, _ = env.reset(seed=2)
    assert len(obs) == 1


def test_rllib_pettingzoo_wrapper_as_documented_passes_the_checker() -> None:
    """docs/scaling.md: RLlib's own `PettingZooEnv` takes `mtg_env.env()` (illegal actions
    end the game), not `raw_env()` (which raises on the checker's unmasked action)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    import mtg_env
    from mtg_env.engine import IllegalActionError

    env = PettingZooEnv(mtg_env.env())
    for space in env.action_spaces.values():
        space.seed(0)
    check_multiagent_environments(env)
    raw = PettingZooEnv(mtg_env.raw_env())
    for space in raw.action_spaces.values():
        space.seed(0)
    with pytest.raises(ValueError, match="gymnasium-style API") as e:
        check_multiagent_environments(raw)
    assert isinstance(e.value.__cause__, IllegalActionError)


def test_rllib_env_config_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="opponents probabilities"):
        MtgMultiAgentEnv({"opponents": {"heuristic": 0.8, "random": 0.5}})
    with pytest.raises(ValueError, match="bad env_config.*colour"):
        MtgMultiAgentEnv({"colour": "blue"})
    with pytest.raises(ValueError, match="unknown agent spec"):
        MtgMultiAgentEnv({"opponents": {"nobody": 0.5}})


def _module(
    hidden: int = 256, entity_dim: int = 24, race_features: bool = False
) -> tuple[MaskedSlotModule, Any]:
    env = MtgMultiAgentEnv({})
    spec = module_spec({"hidden": hidden, "entity_dim": entity_dim, "race_features": race_features})
    spec.observation_space = env.observation_spaces[LEARNER]
    spec.action_space = env.action_spaces[LEARNER]
    return spec.build(), env


def _batch(obs: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    from ray.rllib.core.columns import Columns

    return {
        Columns.OBS: {
            k: torch.as_tensor(np.stack([o[k] for o in obs]), dtype=torch.float32)
            for k in ("observations", "action_mask")
        }
    }


def _observations(env: MtgMultiAgentEnv, n: int) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    out = []
    obs, _ = env.reset(seed=0)
    while len(out) < n:
        ((agent, o),) = obs.items()
        out.append(o)
        obs, _, term, trunc, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))}
        )
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    return out


def test_masked_module_never_samples_a_masked_action() -> None:
    from ray.rllib.core.columns import Columns

    module, env = _module(hidden=32, entity_dim=8)
    obs = _observations(env, 64)
    batch = _batch(obs)
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    mask = batch[Columns.OBS]["action_mask"] > 0.5
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    probs = torch.softmax(logits, -1)
    assert torch.all(probs[~mask] == 0)
    assert torch.allclose(probs[mask].sum() / len(obs), torch.tensor(1.0))
    for _ in range(20):
        a = dist.sample()
        assert mask[torch.arange(len(obs)), a].all()
    assert torch.isfinite(dist.entropy()).all()
    values = module.compute_values(batch)
    assert values.shape == (len(obs),) and torch.isfinite(values).all()


@pytest.mark.parametrize("source", ["default", "without race summary"])
def test_masked_module_loads_the_sb3_default_policy_exactly(source: str, tmp_path: Path) -> None:
    """Same network, same parameter names: the module started from `policy:default`
    gives the SB3 policy's action logits and values; so does a race-summary module started
    from a policy without the summary (its new inputs start at zero weight)."""
    from policy_files import default_uses_race_features, write_policy_like_default
    from ray.rllib.core.columns import Columns

    from agents.policy import DEFAULT, load_model

    if source == "default":
        path, race = "default", default_uses_race_features()
        sb3 = load_model(DEFAULT)
    else:
        path = str(write_policy_like_default(tmp_path / "plain.pt", race_features=False))
        sb3, race = load_model(path), True
    module, env = _module(race_features=race)
    assert module.features_extractor.race_features is race
    load_sb3_policy(module, path)
    obs = _observations(env, 16)
    batch = _batch(obs)
    x = batch[Columns.OBS]["observations"]
    mask = batch[Columns.OBS]["action_mask"] > 0.5
    with torch.no_grad():
        ours = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        dist = sb3.get_distribution(x, action_masks=mask.numpy())
        theirs = torch.log_softmax(dist.distribution.logits, -1)
        mine = torch.log_softmax(ours, -1)
        assert torch.allclose(mine[mask], theirs[mask], atol=1e-4)
        assert torch.allclose(
            module.compute_values(batch), sb3.predict_values(x).squeeze(-1), atol=1e-4
        )


def test_load_sb3_policy_rejects_a_network_of_another_shape() -> None:
    module, _ = _module(hidden=32, entity_dim=8)
    with pytest.raises(ValueError, match="shape"):
        load_sb3_policy(module, "default")


class _Episode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


def test_league_mapping_puts_main_on_one_seat_and_the_learner_on_main() -> None:
    m = league_mapping(["main_v1", "main_v2"], self_play=0.0)
    seen = set()
    for i in range(200):
        ep = _Episode(f"ep{i}")
        mods = [m("player_0", ep), m("player_1", ep)]
        assert "main" in mods
        assert mods == [m("player_0", ep), m("player_1", ep)], "stable within an episode"
        seen.update(mods)
        assert m(LEARNER, ep) == "main"
    assert seen == {"main", "main_v1", "main_v2"}
    only_self = league_mapping(["main_v1"], self_play=1.0)
    assert all(
        only_self(a, _Episode(str(i))) == "main"
        for i in range(50)
        for a in ("player_0", "player_1")
    )


def _train_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "train_rllib", ROOT / "scripts" / "train_rllib.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def local_ray() -> Any:
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_init_from_default_reaches_learner_and_env_runners(local_ray: Any) -> None:
    """`init_from: default`: the learner's and the env runner's `main` both hold the
    shipped SB3 policy's weights before the first iteration."""
    from policy_files import default_uses_race_features

    from agents.policy import DEFAULT, load_model

    mod = _train_script()
    cfg = dataclasses.replace(
        mod.Config(),
        **{**mod.SMOKE, "eval_every": 0, "hidden": 256, "entity_dim": 24},
        race_features=default_uses_race_features(),
    )
    algo = mod.build_config(cfg).build_algo()
    try:
        mod.init_main(algo, cfg, "default")
        sb3 = load_model(DEFAULT).state_dict()
        for module in (algo.env_runner.module["main"], algo.learner_group._learner.module["main"]):
            sd = module.state_dict()
            assert all(torch.equal(sd[k], sb3[k].to(sd[k].dtype)) for k in sd)
    finally:
        algo.stop()


def test_league_snapshot_plays_with_main_weights_and_checkpoint_plays_match(
    tmp_path: Path, local_ray: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot added by LeagueCallback holds main's weights in the learner *and* in the
    env runners (which skip weights of a sequence number they already have); the saved
    checkpoint plays as `policy:rllib:PATH` with legal actions only."""
    from agents import make_agent
    from agents.match import deck_pairs, play_game

    mod = _train_script()
    cfg = dataclasses.replace(mod.Config(), **{**mod.SMOKE, "eval_every": 0, "max_snapshots": 2})
    algo = mod.build_config(cfg).build_algo()
    try:
        algo.train()
        runner = algo.env_runner.module
        learner = algo.learner_group._learner.module
        assert set(runner.keys()) == {"main", "main_v1"}
        snap = runner["main_v1"].state_dict()
        main = learner["main"].state_dict()
        assert all(torch.equal(snap[k], main[k]) for k in main)
        algo.train()
        snap1 = runner["main_v1"].state_dict()
        main = learner["main"].state_dict()
        assert not all(torch.equal(snap1[k], main[k]) for k in main), "main keeps learning"
        assert set(runner.keys()) == {"main", "main_v1", "main_v2"}
        ckpt = mod.save_checkpoint(algo, tmp_path)
    finally:
        algo.stop()
    from agents.policy import CheckpointError

    with pytest.raises(CheckpointError, match="RLlib checkpoint, which unpickles"):
        make_agent(f"policy:rllib:{ckpt}")  # RLlib's checkpoints unpickle: trusted only
    monkeypatch.setenv("MTG_ENV_TRUST_PICKLE", "1")
    agent = make_agent(f"policy:rllib:{ckpt}")
    # Game.apply raises on an illegal action.
    for seed, pair in enumerate(deck_pairs("classic", None, 2, 0)):
        rnd = make_agent("random", seed)
        g = play_game([agent, rnd] if seed % 2 == 0 else [rnd, agent], pair, seed)
        assert g.is_over


def test_rllib_checkpoint_errors_name_the_path(tmp_path: Path) -> None:
    from agents import make_agent
    from agents.policy import CheckpointError

    with pytest.raises(CheckpointError, match="not found"):
        make_agent(f"policy:rllib:{tmp_path / 'nope'}")
    (tmp_path / "junk").mkdir()
    with pytest.raises(CheckpointError, match="junk.*not an RLlib"):
        make_agent(f"policy:rllib:{tmp_path / 'junk'}")


def _main_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    """`scripts/train_rllib.py ARGS` through its `main`, in this process's Ray session (the
    `local_ray` fixture's: the script leaves a running session running); its JSON lines.
    The v1 smoke below runs the script as a command, with a Ray of its own."""
    capsys.readouterr()
    assert _train_script().main(list(args)) == 0, capsys.readouterr().err[-3000:]
    return [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]


def test_train_rllib_smoke(
    tmp_path: Path, local_ray: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`scripts/train_rllib.py --smoke`: two tiny iterations with a snapshot, an
    evaluation against the heuristic and a checkpoint; one JSON result line."""
    lines = _main_in_process(capsys, "--smoke", "--out", str(tmp_path))
    assert len(lines) == 1
    res = lines[0]
    assert res["iteration"] == 2 and res["env_steps"] >= 512
    assert res["eval_episodes"] >= 2 and 0 <= res["eval_vs_heuristic"] <= 1
    assert res["league"] == ["main_v2"]
    assert Path(res["checkpoint"], "learner_group", "learner", "rl_module", "main").is_dir()
    card = json.loads((tmp_path / "model_card.json").read_text())
    assert card["iterations"] == 2 and card["play_with"].startswith("policy:rllib:")
    assert local_ray.is_initialized()  # a session it did not start is left running
    # --resume: the checkpoint's iteration count, env-step counter and league go on.
    res3 = _main_in_process(
        capsys, "--smoke", "--resume", "--iterations", "3", "--out", str(tmp_path)
    )[-1]
    assert res3["iteration"] == 3 and res3["env_steps"] > res["env_steps"]
    assert res3["league"] == ["main_v3"]
    state = json.loads((tmp_path / "state.json").read_text())
    assert state["iteration"] == 3 and [e["iteration"] for e in state["evals"]] == [2]


def test_train_rllib_resume_without_a_run_is_a_clear_error(tmp_path: Path) -> None:
    r = _train("--resume", "--out", str(tmp_path), timeout=120)
    assert r.returncode != 0
    assert "state.json: cannot resume" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
def test_train_rllib_keeps_rllibs_env_checker_on(obs_type: str) -> None:
    """The env runners run RLlib's env checker on MtgMultiAgentEnv (the smoke runs below
    pass with it, for both observation types)."""
    mod = _train_script()
    cfg = dataclasses.replace(mod.Config(), **mod.SMOKE, obs_type=obs_type)
    config = mod.build_config(cfg)
    assert config.disable_env_checking is False
    assert config.env_config["obs_type"] == obs_type


def test_every_rllib_config_loads() -> None:
    mod = _train_script()
    for p in sorted((ROOT / "configs" / "train").glob("rllib_*.yaml")):
        cfg = mod.load_config(str(p))
        assert cfg.iterations > 0 and sum(cfg.opponents.values()) <= 1


def test_result_summary_skips_nan_and_a_stale_evaluation() -> None:
    """RLlib reports NaN for metrics without new values and keeps the last evaluation's
    keys in later results: neither may crash the script or count as a new evaluation."""
    mod = _train_script()
    nan = float("nan")
    result = {
        "training_iteration": 12,
        "env_runners": {
            "num_env_steps_sampled_lifetime": 49152,
            "num_episodes_lifetime": 600,
            "win_rate_vs_random": 0.9,
            "win_rate_vs_snapshots": nan,
        },
        "evaluation": {"env_runners": {"win_rate_vs_heuristic": 0.3, "num_episodes": nan}},
        "league": ["main_v1"],
    }
    line = mod.summary(result, evaluated=False)
    assert line["env_steps"] == 49152 and line["win_rate_vs_random"] == 0.9
    assert "win_rate_vs_snapshots" not in line and "eval_vs_heuristic" not in line
    result["evaluation"]["env_runners"]["num_episodes"] = 20
    line = mod.summary(result, evaluated=True)
    assert line["eval_vs_heuristic"] == 0.3 and line["eval_episodes"] == 20


def test_v1_rllib_env_and_candidate_module_sample_only_legal_moves() -> None:
    """The v1 tables through RLlib: the env's observations fit their space, and the
    candidate module's masked logits sample a legal candidate row."""
    from ray.rllib.core.columns import Columns

    from agents.rllib import MaskedCandidateModule

    env = MtgMultiAgentEnv({"obs_type": "entity", "opponents": {"random": 1.0}, "seed": 3})
    obs, _ = env.reset()
    space = env.observation_spaces[LEARNER]
    spec = module_spec({"obs_type": "entity", "hidden": 32, "entity_dim": 16})
    assert spec.module_class is MaskedCandidateModule
    module = MaskedCandidateModule(
        observation_space=space,
        action_space=env.action_spaces[LEARNER],
        model_config=spec.model_config,
    )
    for _ in range(40):
        ((name, o),) = obs.items()
        assert space.contains(o)
        batch = {
            Columns.OBS: {
                "observations": {k: torch.as_tensor(v)[None] for k, v in o["observations"].items()},
                "action_mask": torch.as_tensor(o["action_mask"])[None],
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        a = int(torch.distributions.Categorical(logits=logits).sample())
        assert o["action_mask"][a] == 1
        obs, _, term, trunc, _ = env.step({name: a})
        if term.get("__all__") or trunc.get("__all__"):
            obs, _ = env.reset()


# A command that starts and stops its own Ray (about 20 s): make test-all. In make test the
# v1 module is checked by the tests above, and the flat smoke runs the script's main.
@pytest.mark.long
def test_train_rllib_smoke_on_the_v1_observation(tmp_path: Path) -> None:
    """Two tiny iterations with `obs_type: entity`: the v1 tables through RLlib's
    connectors, MaskedCandidateModule learning, a snapshot and an evaluation. The script as
    a user runs it: a command that starts its own Ray and stops it."""
    cfg = tmp_path / "v1.yaml"
    cfg.write_text("obs_type: entity\nentity_dim: 16\nhidden: 32\n")
    r = _train("--config", str(cfg), "--smoke", "--out", str(tmp_path / "run"))
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads([x for x in r.stdout.splitlines() if x.startswith("{")][-1])
    assert res["iteration"] == 2 and res["env_steps"] >= 512
    assert 0 <= res["eval_vs_heuristic"] <= 1
