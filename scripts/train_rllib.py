"""Self-play PPO on Ray RLlib (new API stack), on one machine or a Ray cluster.

    python scripts/train_rllib.py --config configs/train/rllib_default.yaml [--out runs/rllib]
    python scripts/train_rllib.py --config ... --address auto    # join a running cluster
    python scripts/train_rllib.py --out runs/rllib --resume       # continue a run
    python scripts/train_rllib.py --smoke                         # two tiny iterations (tests)

One job per file (CleanRL style): a config dataclass, validated when read from YAML.
The env is `agents.rllib.MtgMultiAgentEnv` (masked observations, turn-based), the policy
`MaskedSlotModule` (the SB3 recipe's network). One shared module, `main`, is trained; its
opponents are itself, frozen snapshots of it added to the league every `snapshot_every`
iterations (`LeagueCallback`, `Algorithm.add_module`), and engine agents played inside the
env with the probabilities in `opponents`. Every `eval_every` iterations RLlib's evaluation
runners play `eval_episodes` games against the heuristic agent (greedy actions). The
algorithm checkpoint is written atomically to OUT/checkpoint; it plays in `mtg-env match`
as `policy:rllib:OUT/checkpoint`. A model card (config, iterations, env steps, wall time,
evaluations) goes to OUT/model_card.json. `--resume` restores OUT/checkpoint with
`Algorithm.from_checkpoint` (the league's snapshots and the agent-to-module mapping
included) and runs on to `iterations` (the run's own config, from OUT/state.json;
`--iterations` extends it).

Without `--address` a local Ray starts with `num_cpus` CPUs. With `--address` (e.g. `auto`
on a node of the cluster, or `ray://HEAD:10001`), the env runners spread over the cluster's
nodes; every node needs this package installed (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import shutil
import time
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

from agents.plugin import is_plugin_spec
from agents.policy import MAX_ENTITY_DIM
from agents.train_fields import (  # ranged field types (every value is ranged)
    ClipRange,
    Decisions,
    Epochs,
    Format,
    Fraction,
    Rate,
    Seed,
    Width,
    config_error,
    run_script,
)
from mtg_env.io import atomic_write_text, load_config_yaml

# Ranged field types: a negative, non-finite or absurdly large value is an error naming
# the field, before Ray starts. The upper bounds are far beyond any real run (the cluster
# recipe: 62 runners of 8 envs, batches of 65,536 steps, 500 iterations) and keep a typo
# from asking for what no machine has; the network's bounds are the policy file's.
MAX_ITERATIONS = 10**6
MAX_BATCH = 1 << 20  # steps per training batch
Count = Annotated[int, Field(ge=0, le=MAX_ITERATIONS)]  # 0 = off where the field says
Pos = Annotated[int, Field(gt=0, le=MAX_ITERATIONS)]
# Engine agents a config may name (a spec's part before any colon): a plug-in spec
# (`module:attr`, `file.py:attr`, `text:...`) runs code, and comes only from a command line.
BUILT_IN_AGENTS = ("random", "heuristic", "ismcts", "policy")


@pydantic_dataclass(config=ConfigDict(extra="forbid"))
class Config:
    """Training configuration (a YAML file with these keys; unknown keys are errors, and
    every value is ranged)."""

    format: Format = "classic"
    iterations: Pos = 100
    seed: Seed = 0
    # Ray actors that sample (each steps `num_envs_per_env_runner` envs with one batched
    # forward pass); 0 samples in the driver process.
    num_env_runners: Annotated[int, Field(ge=0, le=4096)] = 1
    num_envs_per_env_runner: Annotated[int, Field(gt=0, le=256)] = 8
    num_cpus: Annotated[int, Field(gt=0, le=4096)] | None = None  # local Ray only (None: all)
    # Learner processes (0: learn in the driver); with GPUs on the cluster, 1 per GPU.
    num_learners: Annotated[int, Field(ge=0, le=1024)] = 0
    num_gpus_per_learner: Annotated[float, Field(ge=0, le=64, allow_inf_nan=False)] = 0.0
    train_batch_size: Annotated[int, Field(gt=0, le=MAX_BATCH)] = 4096
    minibatch_size: Annotated[int, Field(gt=0, le=MAX_BATCH)] = 512
    num_epochs: Epochs = 4
    lr: Rate = 3e-4
    gamma: Rate = 0.995
    gae_lambda: Fraction = 0.95
    entropy_coeff: Fraction = 0.01
    clip_param: ClipRange = 0.2
    vf_loss_coeff: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] = 0.5
    hidden: Width = 256
    entity_dim: Annotated[int, Field(gt=0, le=MAX_ENTITY_DIM)] = 24
    race_features: bool = False  # the race summary (mtg_env.nets), as in train_ppo.py
    # "flat" (mtg/duel-v0, MaskedSlotModule) or "entity" (mtg/duel_entity-v1,
    # MaskedCandidateModule)
    obs_type: Literal["flat", "entity"] = "flat"
    # Engine opponents inside the env: spec -> probability per episode; the rest of the
    # episodes are league games (main against itself or a snapshot). Built-in agents only
    # (random, heuristic, ismcts[:N], policy:PATH).
    opponents: Annotated[
        dict[Annotated[str, Field(max_length=4096)], Fraction], Field(max_length=16)
    ] = field(default_factory=lambda: {"heuristic": 0.3, "random": 0.2})
    self_play: Fraction = 0.5  # in league games: main against itself, else a snapshot
    snapshot_every: Count = 10  # iterations (0 = no snapshots)
    max_snapshots: Annotated[int, Field(gt=0, le=64)] = 4
    eval_every: Count = 10  # iterations (0 = no evaluation)
    eval_episodes: Annotated[int, Field(gt=0, le=100_000)] = 20
    checkpoint_every: Pos = 10
    max_decisions: Decisions = 2000  # per game
    # Start `main` from a trained SB3 slot policy (`default` or a policy file); the network
    # keys (hidden, entity_dim, race_features) must match it; a policy without the race
    # summary can start a run with it (widened with zero weights).
    init_from: Annotated[str, Field(max_length=4096)] | None = None

    @field_validator("opponents")
    @classmethod
    def _built_in_agents(cls, opponents: dict[str, float]) -> dict[str, float]:
        for spec in opponents:
            shown = repr(spec) if len(spec) <= 80 else repr(spec[:80]) + "..."
            if is_plugin_spec(spec):
                raise ValueError(
                    f"{shown} is a plug-in spec, which runs Python code: a training config "
                    "may name built-in agents only (random, heuristic, ismcts[:N], "
                    "policy:PATH)"
                )
            if spec.split(":", 1)[0].strip().lower() not in BUILT_IN_AGENTS:
                raise ValueError(
                    f"unknown agent spec {shown} (random, heuristic, ismcts[:N], policy:PATH)"
                )
        if not math.fsum(opponents.values()) <= 1:
            raise ValueError("the probabilities sum to more than 1")
        return opponents

    @field_validator("minibatch_size")
    @classmethod
    def _minibatch_in_batch(cls, v: int, info: ValidationInfo) -> int:
        batch = info.data.get("train_batch_size")
        if batch is not None and v > batch:
            raise ValueError(f"{v} is more than a training batch (train_batch_size = {batch})")
        return v


SMOKE = {
    "iterations": 2,
    "num_env_runners": 0,
    "num_envs_per_env_runner": 2,
    "num_cpus": 2,
    "train_batch_size": 256,
    "minibatch_size": 128,
    "num_epochs": 1,
    "hidden": 32,
    "entity_dim": 8,
    "opponents": {"heuristic": 0.25, "random": 0.25},
    "snapshot_every": 1,
    "max_snapshots": 1,
    "eval_every": 2,
    "eval_episodes": 2,
    "checkpoint_every": 1,
    "max_decisions": 400,
}


def load_config(path: str | None) -> Config:
    return load_config_yaml(path, Config)


def build_config(cfg: Config) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from agents.rllib import MAIN, LeagueCallback, MtgMultiAgentEnv, league_mapping, module_spec

    env_config = {
        "format": cfg.format,
        "max_decisions": cfg.max_decisions,
        "opponents": cfg.opponents,
        "seed": cfg.seed,
        "obs_type": cfg.obs_type,
    }
    model = _model_config(cfg)
    per_runner = max(1, cfg.num_env_runners)
    config = (
        PPOConfig()
        # RLlib's env checker stays on: it steps the env with an unmasked random action,
        # which ends that episode like any illegal action (-1 to the offender).
        .environment(MtgMultiAgentEnv, env_config=env_config)
        .framework("torch")
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            rollout_fragment_length=max(
                1, cfg.train_batch_size // (per_runner * cfg.num_envs_per_env_runner)
            ),
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=cfg.num_learners, num_gpus_per_learner=cfg.num_gpus_per_learner)
        .training(
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            entropy_coeff=cfg.entropy_coeff,
            clip_param=cfg.clip_param,
            vf_loss_coeff=cfg.vf_loss_coeff,
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
        )
        .multi_agent(
            policies={MAIN},
            policy_mapping_fn=league_mapping([], cfg.self_play),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: module_spec(model)}))
        .callbacks(
            functools.partial(
                LeagueCallback,
                snapshot_every=cfg.snapshot_every,
                max_snapshots=cfg.max_snapshots,
                self_play=cfg.self_play,
            )
        )
        .debugging(seed=cfg.seed)
    )
    if cfg.eval_every > 0:
        config = config.evaluation(
            evaluation_interval=cfg.eval_every,
            evaluation_duration=cfg.eval_episodes,
            evaluation_duration_unit="episodes",
            evaluation_num_env_runners=0,
            evaluation_config=PPOConfig.overrides(
                # RLlib merges this into the training env_config key by key: every training
                # opponent is set to 0 explicitly.
                env_config={
                    **env_config,
                    "opponents": {**dict.fromkeys(cfg.opponents, 0.0), "heuristic": 1.0},
                    "seed": 10_000,
                },
                num_envs_per_env_runner=1,
                explore=False,
            ),
        )
    return config


def _model_config(cfg: Config) -> dict[str, Any]:
    return {
        "format": cfg.format,
        "hidden": cfg.hidden,
        "entity_dim": cfg.entity_dim,
        "race_features": cfg.race_features,
        "obs_type": cfg.obs_type,
    }


def init_main(algo: Any, cfg: Config, path: str) -> None:
    """Start `main` (learner and env runners) from an SB3 slot policy."""
    from agents.rllib import MAIN, load_sb3_policy, module_spec, set_module_state

    env = algo.config.env(algo.config.env_config)
    space = env.observation_spaces["learner"]
    spec = module_spec(_model_config(cfg))
    spec.observation_space, spec.action_space = space, env.action_spaces["learner"]
    module = spec.build()
    load_sb3_policy(module, path)
    set_module_state(algo, MAIN, module.get_state())


def save_checkpoint(algo: Any, out: Path) -> Path:
    """The algorithm checkpoint at OUT/checkpoint, replaced atomically (a crash while
    writing leaves the previous one)."""
    final = out / "checkpoint"
    tmp = out / "checkpoint.tmp"
    old = out / "checkpoint.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def _num(v: Any) -> float | None:
    """A finite float, or None (RLlib reports NaN for a metric with no new values)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def summary(result: dict[str, Any], evaluated: bool) -> dict[str, Any]:
    """The figures of one `train()` result worth printing. `evaluated`: this iteration
    ran the evaluation (RLlib keeps reporting the last evaluation's keys afterwards)."""
    from ray.rllib.utils.metrics import (
        ENV_RUNNER_RESULTS,
        EVALUATION_RESULTS,
        NUM_ENV_STEPS_SAMPLED_LIFETIME,
        NUM_EPISODES_LIFETIME,
    )

    er = result.get(ENV_RUNNER_RESULTS, {})
    out: dict[str, Any] = {
        "iteration": result.get("training_iteration"),
        "env_steps": int(_num(er.get(NUM_ENV_STEPS_SAMPLED_LIFETIME)) or 0),
        "episodes": int(_num(er.get(NUM_EPISODES_LIFETIME)) or 0),
        "league": result.get("league", []),
    }
    for k, v in er.items():
        if k.startswith("win_rate_vs_") and _num(v) is not None:
            out[k] = round(float(v), 3)
    ev = result.get(EVALUATION_RESULTS, {}).get(ENV_RUNNER_RESULTS, {})
    rate = _num(ev.get("win_rate_vs_heuristic"))
    if evaluated and rate is not None:
        out["eval_vs_heuristic"] = round(rate, 3)
        out["eval_episodes"] = int(_num(ev.get("num_episodes")) or 0)
    return out


def main(argv: list[str] | None = None) -> int:
    """Bad input is one `error:` line on stderr and exit status 2 (argparse's own usage
    errors are exit status 2 too), before Ray starts."""
    return run_script(_main, argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--config", default=None)
    ap.add_argument("--out", default="runs/rllib")
    ap.add_argument("--address", default=None, help="a running Ray cluster (e.g. auto)")
    ap.add_argument("--smoke", action="store_true", help="two tiny iterations, for tests")
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint")
    args = ap.parse_args(argv)

    out = Path(args.out)
    state_path = out / "state.json"
    state: dict[str, Any] = {"iteration": 0, "evals": [], "train_s": 0.0, "wall_s": 0.0}
    if args.resume:
        try:
            state = json.loads(state_path.read_text())
            cfg = Config(**state["config"])
        except ValidationError as e:
            raise config_error(f"{state_path}: cannot resume", e) from None
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit(
                f"error: {state_path}: cannot resume ({type(e).__name__}: {e})"
            ) from None
    else:
        cfg = load_config(args.config)
    try:
        if args.smoke:
            cfg = dataclasses.replace(cfg, **SMOKE)
    except ValidationError as e:
        raise config_error(args.config or "config", e) from None
    try:
        if args.iterations is not None:
            cfg = dataclasses.replace(cfg, iterations=args.iterations)
    except ValidationError as e:
        raise config_error("--iterations", e) from None
    out.mkdir(parents=True, exist_ok=True)

    import ray

    from agents.rllib import snapshot_ids

    # Inside a Ray session that is already running (a notebook's, a test's) the run uses it
    # and leaves it running; otherwise it starts its own and stops it at the end.
    own_ray = not ray.is_initialized()
    if own_ray and args.address:
        ray.init(address=args.address, log_to_driver=False)
    elif own_ray:
        ray.init(num_cpus=cfg.num_cpus, include_dashboard=False, log_to_driver=False)
    start = time.perf_counter()
    if args.resume:
        from ray.rllib.algorithms.algorithm import Algorithm

        try:
            algo = Algorithm.from_checkpoint(str((out / "checkpoint").resolve()))
        except Exception as e:  # noqa: BLE001 - any failure means an unusable checkpoint
            if own_ray:
                ray.shutdown()
            raise SystemExit(
                f"error: {out / 'checkpoint'}: cannot resume ({type(e).__name__}: {e})"
            ) from None
    else:
        algo = build_config(cfg).build_algo()
        if cfg.init_from:
            init_main(algo, cfg, cfg.init_from)
    # The checkpoint is the truth: state.json is written after it, so it is never ahead.
    first = algo.iteration + 1
    evals: list[dict[str, Any]] = [e for e in state["evals"] if e["iteration"] < first]
    line: dict[str, Any] = {}
    ckpt = out / "checkpoint" if args.resume else None
    train_s = float(state["train_s"])
    prior_wall = float(state["wall_s"])
    try:
        for it in range(first, cfg.iterations + 1):
            t = time.perf_counter()
            result = algo.train()
            train_s += time.perf_counter() - t
            line = summary(result, cfg.eval_every > 0 and it % cfg.eval_every == 0)
            line["env_steps_per_s"] = round(line["env_steps"] / train_s, 1)
            if "eval_vs_heuristic" in line:
                evals.append(
                    {
                        "iteration": it,
                        "env_steps": line["env_steps"],
                        "heuristic": line["eval_vs_heuristic"],
                        "episodes": line["eval_episodes"],
                    }
                )
            if it % cfg.checkpoint_every == 0 or it == cfg.iterations:
                ckpt = save_checkpoint(algo, out)
                state = {
                    "config": dataclasses.asdict(cfg),
                    "iteration": it,
                    "evals": evals,
                    "train_s": train_s,
                    "wall_s": prior_wall + time.perf_counter() - start,
                }
                atomic_write_text(state_path, json.dumps(state, indent=1))
            if not args.smoke:
                print(json.dumps(line), flush=True)
        card = {
            "config": dataclasses.asdict(cfg),
            "iterations": cfg.iterations,
            "env_steps": line.get("env_steps", 0),
            "wall_seconds": round(prior_wall + time.perf_counter() - start, 1),
            "env_steps_per_s": line.get("env_steps_per_s"),
            "league": snapshot_ids(algo),
            "evals": evals,
            "checkpoint": str(ckpt),
            "play_with": f"policy:rllib:{ckpt}",
        }
        atomic_write_text(out / "model_card.json", json.dumps(card, indent=1))
    finally:
        algo.stop()
        if own_ray:
            ray.shutdown()
    line["checkpoint"] = str(ckpt)
    line["wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
