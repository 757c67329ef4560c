"""Self-play training with sb3-contrib MaskablePPO on `mtg_env/SelfPlay-v0`.

    python scripts/train_ppo.py --config configs/train/ppo_default.yaml [--out runs/ppo]
    python scripts/train_ppo.py --config ... --resume        # continue from the checkpoint
    python scripts/train_ppo.py --smoke                       # a tiny run (tests)

One job per file (CleanRL style): a config dataclass, validated when read from YAML.
The recipe: an entity feature extractor (`mtg_env.nets`), an optional behaviour-cloning
warm start from the scripted heuristic, then PPO against an opponent pool (random,
heuristic and frozen snapshots of the learner, sampled per episode; the learner's seat
alternates). Periodic evaluation against random and heuristic goes to TensorBoard; at the
end the policy (`policy.safetensors`) and a model card (config, steps, wall time,
evaluation) are written to the output folder.

Checkpoints (`checkpoint.pt`) are data only (tensors and JSON; read back with
`torch.load(weights_only=True)`) and hold the weights, the optimizer state, the step count
and the run's state together, written atomically in one file at a rollout boundary: a run
killed at any point resumes (`--resume`) from its last checkpoint and ends at exactly the
step count of an uninterrupted run. A resume with another configuration (anything but
`total_timesteps`, `torch_threads`, `vec_env`, `device`) is refused. Ctrl-C stops the run with one
line and exit status 130; the last checkpoint resumes it. Every config value is checked
when the file is read (one `error: FILE: field X: ...` line, exit status 2).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import multiprocessing
import os
import random
import signal
import sys
import time
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import torch
from pydantic import ConfigDict, Field, ValidationError, field_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

from agents.base import make_agent
from agents.heuristic import HeuristicAgent
from agents.match import deck_pairs, play_game
from agents.policy import (
    MAX_ENTITY_DIM,
    MAX_LAYERS,
    CheckpointError,
    PolicyAgent,
    export_policy,
)
from agents.train_fields import (  # ranged field types (every value is ranged)
    MAX_GAMES,
    BatchSize,
    ClipRange,
    Decisions,
    Device,
    Envs,
    Epochs,
    Format,
    Fraction,
    Games,
    Rate,
    RolloutSteps,
    Seed,
    Steps,
    Threads,
    Width,
    config_error,
    device_name,
    run_script,
    torch_device,
)
from mtg_env.engine import Game, load_cards
from mtg_env.env import SelfPlayEnv
from mtg_env.env.spaces import Layout
from mtg_env.io import load_config_yaml, write_bytes, write_json
from mtg_env.workers import worker_setup

CHECKPOINT_FORMAT = "mtg_env.train_checkpoint.v1"
# Settings a resumed run may change: they decide neither the games nor the network.
RESUMABLE_CHANGES = frozenset({"total_timesteps", "torch_threads", "vec_env", "device"})


@pydantic_dataclass(config=ConfigDict(extra="forbid"))
class Config:
    """Training configuration (a YAML file with these keys; unknown keys are errors, and
    every value is ranged)."""

    format: Format = "classic"
    total_timesteps: Steps = 1_000_000
    n_envs: Envs = 2
    # "subproc": one process per env (SubprocVecEnv), for many-core machines; "dummy": all
    # envs in the learner's process (DummyVecEnv). On 2 cores the network, not the env,
    # is the cost, and one batched forward pass over 16 in-process envs beats 16 processes
    # talking through pipes (951 vs 682 steps/s measured; see docs/agents.md, "Training").
    vec_env: Literal["subproc", "dummy"] = "subproc"
    torch_threads: Threads = 1
    # Where the network trains: "auto" (the GPU where PyTorch sees one, else the CPU),
    # "cpu" or "cuda". Checkpoints and policy files are device-independent: a run resumes
    # on either, and its policies play on the CPU.
    device: Device = "auto"
    seed: Seed = 0
    learning_rate: Rate = 3e-4
    n_steps: RolloutSteps = 1024
    batch_size: BatchSize = 512
    n_epochs: Epochs = 4
    gamma: Rate = 0.995
    gae_lambda: Fraction = 0.95
    ent_coef: Fraction = 0.01
    clip_range: ClipRange = 0.2
    net_arch: Annotated[list[Width], Field(min_length=1, max_length=MAX_LAYERS)] = field(
        default_factory=lambda: [256]
    )
    entity_dim: Annotated[int, Field(gt=0, le=MAX_ENTITY_DIM)] = 24
    # Feed the network a race summary computed from the observation (mtg_env.nets
    # `race_summary`). With `init_from` a policy trained without it, the policy is widened
    # with zero weights for the new inputs, so it starts out playing exactly as before.
    race_features: bool = False
    # "flat": a linear action head; "slot": slot actions scored from each slot's embedding.
    head: Literal["flat", "slot"] = "flat"
    # Opponent pool: weights of "random", "heuristic" and "snapshots" per episode.
    # (The keys are the pool's own names, never agent specs: a training config can't name
    # a plug-in agent, whose spec would run code.)
    opponents: dict[
        Literal["random", "heuristic", "snapshots"],
        Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False)],
    ] = field(default_factory=lambda: {"random": 0.2, "heuristic": 0.6, "snapshots": 0.2})
    snapshot_every: Steps = 200_000
    max_snapshots: Annotated[int, Field(gt=0, le=64)] = 4  # each env keeps them loaded
    eval_every: Steps = 100_000
    eval_games: Games = 40
    # behaviour-cloning warm start from heuristic play (0 = off)
    bc_games: Annotated[int, Field(ge=0, le=MAX_GAMES)] = 200
    bc_epochs: Epochs = 3
    # Also fit the value head to the cloned games' discounted outcomes, so PPO starts with a
    # critic that matches the cloned policy instead of one that drags it off course.
    bc_value: bool = True
    reward_shaping: bool = False
    # Start from a trained policy's weights (a `.safetensors` policy file) instead of
    # behaviour cloning; the network settings must match it. Unlike `--resume`, the PPO
    # settings come from this config, so a plateaued run can be continued with a different
    # recipe. A pickled file (an sb3 `.zip`, an old `.pt`) can run code when loaded: it is
    # refused unless `trust_init_from: true` (only for a file you trust).
    init_from: Annotated[str, Field(max_length=4096)] | None = None  # a path (PATH_MAX)
    trust_init_from: bool = False
    # Divide the initial policy's action logits by this (> 1 flattens a near-deterministic
    # cloned policy so that PPO explores again); 1 keeps it as it is.
    init_temperature: Annotated[float, Field(ge=0.01, le=100, allow_inf_nan=False)] = 1.0
    max_decisions: Decisions = 2000  # per game
    checkpoint_every: Steps = 50_000

    # Checks across fields, each on the later field (pydantic validates in field order), so
    # that the error names it.
    @field_validator("opponents")
    @classmethod
    def _some_weight(cls, v: dict[str, float]) -> dict[str, float]:
        if not math.fsum(v.values()) > 0:
            raise ValueError("the weights must sum to more than 0")
        return v


def load_config(path: str | None) -> Config:
    return load_config_yaml(path, Config)


def with_changes(cfg: Config, path: str | None, **changes: Any) -> Config:
    """The config with some values replaced (the command line's overrides), checked again."""
    try:
        return dataclasses.replace(cfg, **changes)
    except ValidationError as e:
        raise config_error(path, e) from None


# ---------------------------------------------------------------------- opponent pool


class PoolOpponent:
    """Samples the opponent for each episode: random, heuristic, or a frozen snapshot."""

    @property
    def needs_observation(self) -> bool:
        return getattr(self.current, "needs_observation", True)

    @property
    def decides_from_engine(self) -> bool:
        return getattr(self.current, "decides_from_engine", False)

    def choose(self, game: Any) -> Any:
        return self.current.choose(game)

    def __init__(self, weights: dict[str, float], seed: int, fmt: str) -> None:
        self.weights = dict(weights)
        self.rng = random.Random(seed)
        self.fmt = fmt
        self.snapshots: list[str] = []
        self.current: Any = None
        self._loaded: dict[str, Any] = {}  # snapshot path -> agent, loaded once
        self.fixed = {"random": make_agent("random", seed), "heuristic": HeuristicAgent(seed)}

    def reseed(self, seed: int) -> None:
        self.rng.seed(seed)

    def add_snapshot(self, path: str, keep: int) -> None:
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-keep:]
        self._loaded = {p: a for p, a in self._loaded.items() if p in self.snapshots}

    def reset(self) -> None:
        names = [
            k for k, w in self.weights.items() if w > 0 and (k != "snapshots" or self.snapshots)
        ]
        w = [self.weights[k] for k in names]
        pick = self.rng.choices(names, weights=w)[0]
        if pick == "snapshots":
            path = self.rng.choice(self.snapshots)
            if path not in self._loaded:
                self._loaded[path] = PolicyAgent.from_path(path, fmt=self.fmt, deterministic=False)
            self.current = self._loaded[path]
        else:
            self.current = self.fixed[pick]
            if hasattr(self.current, "reset"):
                self.current.reset()

    def act(self, obs: Any, mask: np.ndarray, info: dict[str, Any]) -> int:
        if self.current is None:
            self.reset()
        return self.current.act(obs, mask, info)


def make_env(cfg: Config, rank: int) -> Any:
    def _init() -> SelfPlayEnv:
        parent = multiprocessing.parent_process()
        if parent is not None and parent.pid is not None:
            # A SubprocVecEnv worker: Ctrl-C is the trainer's to handle, and the worker must
            # not outlive a trainer that was killed.
            worker_setup(os.getppid())
        env = SelfPlayEnv(
            format=cfg.format,
            opponent="random",
            max_decisions=cfg.max_decisions,
            reward_shaping=cfg.reward_shaping,
            replay_hashes=False,  # nobody reads training games' replays
        )
        env.set_opponent(PoolOpponent(cfg.opponents, cfg.seed * 1000 + rank, cfg.format))
        env.reset(seed=cfg.seed * 1000 + rank)
        return env

    return _init


def timed_vec_env(venv: Any) -> Any:
    """The vector env with the wall time spent inside it counted (`.env_seconds`), so the
    model card can say what share of training the env took."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class Timed(VecEnvWrapper):
        env_seconds = 0.0

        def reset(self) -> Any:
            t = time.perf_counter()
            out = self.venv.reset()
            self.env_seconds += time.perf_counter() - t
            return out

        def step_async(self, actions: Any) -> None:
            t = time.perf_counter()
            self.venv.step_async(actions)
            self.env_seconds += time.perf_counter() - t

        def step_wait(self) -> Any:
            t = time.perf_counter()
            out = self.venv.step_wait()
            self.env_seconds += time.perf_counter() - t
            return out

    return Timed(venv)


def stop_vec_env(venv: Any, interrupted: bool) -> None:
    """Close the vector env. After Ctrl-C a SubprocVecEnv may be halfway through reading
    its workers' replies, and its own close() would wait for a reply already read: its
    workers are terminated instead (they ignore SIGINT and hold nothing to save)."""
    inner = getattr(venv, "venv", venv)
    procs = getattr(inner, "processes", None)
    if interrupted and procs is not None:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.join(5)
        inner.closed = True
        return
    venv.close()


def add_snapshot(venv: Any, path: str, keep: int) -> None:
    venv.env_method("call_opponent", "add_snapshot", path, keep)


# ---------------------------------------------------------------------- evaluation


def evaluate(model: Any, cfg: Config, games: int, seed: int) -> dict[str, float]:
    """Win rates (draws half) of the current policy against random and heuristic."""
    out = {}
    agent = PolicyAgent(model.policy, fmt=cfg.format, deterministic=True, name="learner")
    for spec in ("random", "heuristic"):
        pairs = deck_pairs(cfg.format, None, (games + 1) // 2, seed)
        score = 0.0
        n = 0
        for i, (da, db) in enumerate(pairs):
            for swap in (False, True):
                opp = make_agent(spec, seed + i)
                seats = [opp, agent] if swap else [agent, opp]
                g = play_game(
                    seats,
                    (db, da) if swap else (da, db),
                    seed * 7919 + i,
                    cfg.format,
                    max_decisions=cfg.max_decisions,
                )
                me = 1 if swap else 0
                score += 0.5 if g.winner is None else float(g.winner == me)
                n += 1
        out[spec] = score / n
    return out


# ---------------------------------------------------------------------- warm start


def behaviour_cloning(model: Any, cfg: Config, log: Any) -> None:
    """Fit the policy to the heuristic's choices (masked cross-entropy), in rounds of
    freshly played games so memory stays small."""
    if cfg.bc_games <= 0:
        return
    lay = Layout(load_cards(cfg.format))
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rng = random.Random(cfg.seed)
    pairs = deck_pairs(cfg.format, None, cfg.bc_games, cfg.seed + 17)
    rounds = max(1, cfg.bc_games // 25)
    per = max(1, cfg.bc_games // rounds)
    for r in range(rounds):
        obs_l, mask_l, act_l, ret_l = [], [], [], []
        for k in range(per):
            da, db = pairs[(r * per + k) % len(pairs)]
            g = Game.new(
                (da, db),
                seed=rng.getrandbits(32),
                format=cfg.format,
                max_decisions=cfg.max_decisions,
            )
            bots = [HeuristicAgent(rng.getrandbits(31)) for _ in range(2)]
            if rng.random() < 0.3:
                bots[rng.randrange(2)] = make_agent("random", rng.getrandbits(31))
            seats: list[int] = []  # the seat of each sample recorded in this game
            while not g.is_over:
                p = g.current_player
                assert p is not None
                a = bots[p].choose(g)
                if isinstance(bots[p], HeuristicAgent) and len(g.legal_actions()) > 1:
                    mask, amap, _ = lay.mask_and_map(g, p)
                    own, opp, st = lay.slots(g, p)
                    i = lay.action_index(g, a, p, own, opp, st)
                    if i >= 0:
                        obs_l.append(lay.observe(g, p).astype(np.float16))
                        mask_l.append(mask.astype(bool))
                        act_l.append(i)
                        seats.append(p)
                        a = amap[i]
                g.apply(a)
            # Discounted outcome from each sample's seat, counted in that seat's decisions.
            left = [seats.count(0), seats.count(1)]
            for p in seats:
                left[p] -= 1
                z = 0.0 if g.winner is None else (1.0 if g.winner == p else -1.0)
                ret_l.append(z * cfg.gamma ** left[p])
        dev = policy.device  # the samples go there once; the masks stay numpy
        obs = torch.tensor(np.stack(obs_l).astype(np.float32), device=dev)
        masks = np.stack(mask_l)
        acts = torch.tensor(act_l, device=dev)
        rets = torch.tensor(ret_l, dtype=torch.float32, device=dev)
        n = len(act_l)
        for _ in range(cfg.bc_epochs):
            perm = torch.randperm(n)
            total = 0.0
            for s in range(0, n, 256):
                idx = perm[s : s + 256]
                on = idx.to(dev)
                values, logp, _ = policy.evaluate_actions(
                    obs[on], acts[on], action_masks=masks[idx.numpy()]
                )
                loss = -logp.mean()
                if cfg.bc_value:
                    loss = loss + 0.5 * ((values.flatten() - rets[on]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
        log(f"behaviour cloning round {r + 1}/{rounds}: {n} samples, loss {total / n:.3f}")


def init_weights(model: Any, path: str, trust_pickle: bool = False) -> None:
    """Copy a trained policy's weights into `model`, naming the file on a mismatch."""
    from agents.policy import load_model
    from mtg_env.nets import widen_state_dict

    try:
        src = load_model(path, trust_pickle=trust_pickle)
    except CheckpointError as e:
        raise SystemExit(f"error: init_from: {e} (in a config: trust_init_from: true)") from None
    weights = {k: v.float() if v.is_floating_point() else v for k, v in src.state_dict().items()}
    try:
        model.policy.load_state_dict(widen_state_dict(weights, model.policy.state_dict()))
    except RuntimeError as e:
        raise SystemExit(
            f"error: init_from {path}: its network does not match this config's ({e})"
        ) from None


def soften_policy(model: Any, temperature: float) -> None:
    """Divide every action logit by `temperature`: the action head is linear in its last
    layers' weights (the flat layer, and the slot queries and their bias), so scaling those
    scales the logits exactly."""
    import torch

    if temperature <= 0:
        raise SystemExit(f"error: init_temperature must be > 0, not {temperature}")
    net = model.policy.action_net
    params = (
        [net.flat.weight, net.flat.bias, net.query.weight, net.query.bias, net.bias]
        if hasattr(net, "query")
        else [net.weight, net.bias]
    )
    with torch.no_grad():
        for t in params:
            t.div_(temperature)


# ---------------------------------------------------------------------- checkpoints


def policy_spec(cfg: Config) -> tuple[Any, dict[str, Any]]:
    """The policy class (or sb3 name) and its keyword arguments for this config."""
    from mtg_env.nets import EntityExtractor, SlotPolicy

    extractor = {
        "features_extractor_class": EntityExtractor,
        "features_extractor_kwargs": {
            "format": cfg.format,
            "entity_dim": cfg.entity_dim,
            "race_features": cfg.race_features,
        },
    }
    if cfg.head == "slot":
        return SlotPolicy, {**extractor, "format": cfg.format, "hidden": cfg.net_arch[0]}
    return "MlpPolicy", {**extractor, "net_arch": {"pi": cfg.net_arch, "vf": cfg.net_arch}}


def policy_from_checkpoint(path: Path) -> Any:
    """The policy network of a training checkpoint (data only), without an env."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        cfg = Config(**json.loads(saved["config"]))
    except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
        raise CheckpointError(
            f"{path}: not a training checkpoint ({type(e).__name__}: {e})"
        ) from None
    lay = Layout(load_cards(cfg.format))
    cls, pkw = policy_spec(cfg)
    policy = (MaskableActorCriticPolicy if cls == "MlpPolicy" else cls)(
        spaces.Box(0.0, 1.0, (lay.n_obs,), np.float32),
        spaces.Discrete(lay.n_actions),
        lambda _: 0.0,
        **pkw,
    )
    policy.load_state_dict(saved["params"]["policy"])
    policy.set_training_mode(False)
    return policy


def save_checkpoint(model: Any, path: Path, cfg: Config, state: dict[str, Any]) -> None:
    """Weights, optimizer state, step count and run state in one data-only file, written
    atomically: they can't disagree after a kill at any point."""
    buf = io.BytesIO()
    torch.save(
        {
            "format": CHECKPOINT_FORMAT,
            "config": json.dumps(dataclasses.asdict(cfg)),
            "state": json.dumps(state),
            # Tensors stay on the run's device: `load_checkpoint` maps them to the CPU and
            # `set_parameters` onto the resuming run's device, so a run resumes on either.
            "params": model.get_parameters(),
            "num_timesteps": int(model.num_timesteps),
            "n_updates": int(model._n_updates),
        },
        buf,
    )
    write_bytes(path, buf.getvalue())


def load_checkpoint(path: Path, cfg: Config) -> dict[str, Any]:
    """A checkpoint written by `save_checkpoint`, checked against this run's config."""
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(saved, dict) or saved.get("format") != CHECKPOINT_FORMAT:
            raise ValueError("not an mtg_env training checkpoint")
        old = json.loads(saved["config"])
        state = json.loads(saved["state"])
    except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
        raise SystemExit(f"error: {path}: can't resume from it ({type(e).__name__}: {e})") from None
    now = dataclasses.asdict(cfg)
    differ = sorted(k for k in now if k not in RESUMABLE_CHANGES and old.get(k) != now[k])
    if differ:
        diff = "; ".join(f"{k}: {old.get(k)!r} there, {now[k]!r} now" for k in differ)
        raise SystemExit(
            f"error: {path}: the run was made with another configuration ({diff}); resume "
            "with its config, or start a new run in a new --out folder (init_from its "
            "policy.safetensors to go on with new settings)"
        )
    saved["state"] = state
    return saved


def _kill_point(name: str, n: int) -> None:
    """For the resume test: SIGKILL this process at a named point (MTG_ENV_TRAIN_KILL_AT=
    NAME:STEPS), as an outside kill at that moment would."""
    want = os.environ.get("MTG_ENV_TRAIN_KILL_AT")
    if want and want == f"{name}:{n}":
        os.kill(os.getpid(), signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    """Bad input is one `error:` line on stderr and exit status 2 (argparse's own usage
    errors are exit status 2 too)."""
    return run_script(_main, argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--config", default=None)
    ap.add_argument("--out", default="runs/ppo")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="tiny budget, for tests")
    ap.add_argument("--total-timesteps", type=int, default=None)
    ap.add_argument("--bc-games", type=int, default=None)
    ap.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    if args.smoke:
        cfg = with_changes(
            cfg,
            args.config,
            total_timesteps=256,
            n_envs=1,
            n_steps=128,
            batch_size=64,
            n_epochs=1,
            eval_every=256,
            eval_games=2,
            bc_games=2,
            bc_epochs=1,
            snapshot_every=128,
            checkpoint_every=128,
            max_decisions=300,
        )
    if args.total_timesteps is not None:
        cfg = with_changes(cfg, "--total-timesteps", total_timesteps=args.total_timesteps)
    if args.bc_games is not None:
        cfg = with_changes(cfg, "--bc-games", bc_games=args.bc_games)
    if cfg.init_from and not args.resume:
        try:
            is_file = Path(cfg.init_from).is_file()
        except (OSError, ValueError):  # a name too long for the file system, say
            is_file = False
        if not is_file:
            raise SystemExit(
                f"error: {args.config or 'config'}: field init_from: {cfg.init_from!r} "
                "is not a file"
            )
        from agents.policy import load_model

        try:  # before anything is written (load_model keeps it for init_weights)
            load_model(cfg.init_from, trust_pickle=cfg.trust_init_from)
        except CheckpointError as e:
            raise SystemExit(
                f"error: {args.config or 'config'}: field init_from: {e} (for a pickled file "
                "you trust: trust_init_from: true)"
            ) from None
    device = torch_device(cfg.device, args.config)  # a GPU asked for and absent: one line
    out = Path(args.out)
    ckpt = out / "checkpoint.pt"
    saved: dict[str, Any] | None = None
    if args.resume:
        if ckpt.exists():
            saved = load_checkpoint(ckpt, cfg)
        elif (out / "checkpoint.zip").exists():
            raise SystemExit(
                f"error: {out / 'checkpoint.zip'}: a checkpoint in the old pickled format, "
                "which this version does not load; start a new run (init_from a policy file "
                "converted with `mtg-env --trust-pickle policy convert`)"
            )
    if out.exists() and not out.is_dir():
        raise SystemExit(f"error: {out}: exists and is not a folder (--out names a folder)")
    try:
        return _train(cfg, args, out, ckpt, saved, device)
    except KeyboardInterrupt:
        try:
            done = json.loads((out / "state.json").read_text())["timesteps"]
            how = f"the last checkpoint ({done} steps) resumes with --resume"
        except (OSError, ValueError, KeyError):
            how = "no checkpoint was written yet"
        print(f"interrupted; {how}", file=sys.stderr, flush=True)
        return 130


def _train(
    cfg: Config,
    args: argparse.Namespace,
    out: Path,
    ckpt: Path,
    saved: dict[str, Any] | None,
    device: Any,
) -> int:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    out.mkdir(parents=True, exist_ok=True)
    state_path = out / "state.json"
    set_random_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.torch_threads))
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f}s] {msg}", flush=True)

    fns = [make_env(cfg, i) for i in range(cfg.n_envs)]
    venv = timed_vec_env(
        SubprocVecEnv(fns) if cfg.vec_env == "subproc" and cfg.n_envs > 1 else DummyVecEnv(fns)
    )
    try:
        policy, pkw = policy_spec(cfg)
        model = MaskablePPO(
            policy,
            venv,
            learning_rate=cfg.learning_rate,
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            ent_coef=cfg.ent_coef,
            clip_range=cfg.clip_range,
            seed=cfg.seed,
            device=device,
            tensorboard_log=str(out / "tb"),
            verbose=0,
            policy_kwargs=pkw,
        )
        state: dict[str, Any] = {"timesteps": 0, "snapshots": [], "evals": [], "wall": 0.0}
        if saved is not None:
            model.set_parameters(saved["params"], exact_match=True, device=device)
            model.num_timesteps = saved["num_timesteps"]
            model._n_updates = saved["n_updates"]
            state = saved["state"]
            for snap in state["snapshots"]:
                if Path(snap).exists():
                    add_snapshot(venv, snap, cfg.max_snapshots)
            log(f"resumed from {ckpt} at {model.num_timesteps} steps")
        else:
            if cfg.init_from:
                init_weights(model, cfg.init_from, cfg.trust_init_from)
                log(f"initialised the policy from {cfg.init_from}")
            else:
                behaviour_cloning(model, cfg, log)
            if cfg.init_temperature != 1.0:
                soften_policy(model, cfg.init_temperature)
                log(f"action logits divided by {cfg.init_temperature:g}")
        prior_wall = float(state.get("wall", 0.0))
        start = int(model.num_timesteps)

        class Periodic(BaseCallback):
            def __init__(self) -> None:
                super().__init__()
                self.next_eval = start + cfg.eval_every
                self.next_snap = start + cfg.snapshot_every
                self.next_ckpt = start + cfg.checkpoint_every

            def _on_rollout_start(self) -> None:
                # A rollout boundary: every finished rollout is in the weights, none of the
                # next is, so the step count and the weights agree.
                n = self.model.num_timesteps
                if n >= self.next_ckpt:
                    self.next_ckpt = n + cfg.checkpoint_every
                    state["timesteps"] = n
                    state["wall"] = prior_wall + time.time() - t0
                    _kill_point("before_checkpoint", n)
                    save_checkpoint(self.model, ckpt, cfg, state)
                    write_json(state_path, state)  # a readable copy; resume reads ckpt
                    _kill_point("after_checkpoint", n)

            def _on_step(self) -> bool:
                n = self.model.num_timesteps
                _kill_point("step", n)
                if n >= self.next_snap:
                    self.next_snap += cfg.snapshot_every
                    snap = out / "snapshots" / f"snap_{n}.safetensors"
                    export_policy(self.model.policy, snap)
                    state["snapshots"] = (state["snapshots"] + [str(snap)])[-cfg.max_snapshots :]
                    add_snapshot(self.training_env, str(snap), cfg.max_snapshots)
                if n >= self.next_eval:
                    self.next_eval += cfg.eval_every
                    te = time.perf_counter()
                    res = evaluate(self.model, cfg, cfg.eval_games, seed=cfg.seed + n)
                    timing["eval"] += time.perf_counter() - te
                    for k, v in res.items():
                        self.logger.record(f"eval/win_rate_vs_{k}", v)
                    state["evals"].append({"timesteps": n, **res})
                    log(
                        f"{n} steps: win rate vs random {res['random']:.2f}, "
                        f"vs heuristic {res['heuristic']:.2f}"
                    )
                return True

        remaining = max(0, cfg.total_timesteps - start)
        timing = {"eval": 0.0}
        t_learn = time.perf_counter()
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=Periodic(),
                reset_num_timesteps=saved is None,
                progress_bar=args.progress,
            )
        # The env's share of this session's training time (evaluation games left out).
        train_s = time.perf_counter() - t_learn - timing["eval"]
        env_share = venv.env_seconds / train_s if train_s > 0 else 0.0
        log(f"env time: {venv.env_seconds:.0f} s of {train_s:.0f} s of training ({env_share:.0%})")
        state["timesteps"] = int(model.num_timesteps)
        state["wall"] = prior_wall + time.time() - t0
        state["env_time_share"] = round(env_share, 3)
        save_checkpoint(model, ckpt, cfg, state)
        export_policy(model.policy, out / "policy.safetensors")
        final = evaluate(model, cfg, max(cfg.eval_games, 2), seed=cfg.seed + 99_991)
        state["final_eval"] = final
        write_json(state_path, state)
        card = {
            "policy": str(out / "policy.safetensors"),
            "algorithm": "sb3-contrib MaskablePPO on mtg_env/SelfPlay-v0",
            "config": dataclasses.asdict(cfg),
            "timesteps": state["timesteps"],
            "wall_time_s": round(state["wall"], 1),
            "device": device_name(device),  # what `device` resolved to
            "env_time_share": state["env_time_share"],
            "evaluations": state["evals"],
            "final_evaluation": {"games_per_opponent": max(cfg.eval_games, 2), **final},
        }
        write_json(out / "model_card.json", card)
    except BaseException:  # Ctrl-C, or an error: stop the workers at once
        stop_vec_env(venv, interrupted=True)
        raise
    else:
        stop_vec_env(venv, interrupted=False)
    print(
        json.dumps(
            {
                "timesteps": state["timesteps"],
                "final_eval": final,
                "policy": str(out / "policy.safetensors"),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
