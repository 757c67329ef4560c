"""Self-play training on the v1 entity observation (`mtg_env/SelfPlayEntity-v1`) with
sb3-contrib MaskablePPO and `mtg_env.entity_nets.CandidatePolicy`.

    python scripts/train_entity.py --config configs/train/entity_default.yaml --out runs/entity
    python scripts/train_entity.py --smoke                    # a tiny run (tests)

One job per file (CleanRL style). The recipe mirrors the flat one's first stage
(scripts/train_ppo.py): a behaviour-cloning warm start from the scripted heuristic's
choices (masked cross-entropy on the candidate rows, and the value head on the games'
outcomes), then PPO against an opponent pool (random and heuristic, sampled per episode;
the learner's seat alternates), stopped at `total_timesteps` or after `wall_minutes`.
Evaluation against random and the heuristic (seats swapped, every deck pair) goes to
`eval.jsonl` as it runs; at the end the network's weights (`policy.safetensors`, data
only) and `model_card.json` (config, steps, wall time, evaluations) are written; PPO's
TensorBoard scalars go to `tb/`.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import torch
from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

import mtg_env  # noqa: F401 - registers SelfPlayEntity-v1
from agents.base import make_agent
from agents.heldout import train_decks
from agents.match import deck_pairs
from agents.opponent_pool import pool_vec_env
from agents.policy import (
    MAX_CARD_EMBEDDING,
    MAX_ENTITY_DIM,
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
    Workers,
    config_error,
    device_name,
    run_script,
    torch_device,
    train_split_of_format,
)
from mtg_env.engine import Deck
from mtg_env.entity_nets import CandidatePolicy
from mtg_env.env.duel import AGENTS, raw_env
from mtg_env.io import (
    OutputPathError,
    check_writable,
    load_config_yaml,
    write_bytes,
    write_json,
)


@pydantic_dataclass(config=ConfigDict(extra="forbid"))
class Config:
    format: Format = "classic"
    total_timesteps: Steps = 3_000_000
    # stop after this much training time (at most a year)
    wall_minutes: Annotated[float, Field(gt=0, le=525_600, allow_inf_nan=False)] | None = None
    n_envs: Envs = 16
    torch_threads: Threads = 2
    # Where the network trains: "auto" (the GPU where PyTorch sees one, else the CPU),
    # "cpu" or "cuda". The policy file is device-independent either way.
    device: Device = "auto"
    seed: Seed = 0
    learning_rate: Rate = 3e-4
    n_steps: RolloutSteps = 128
    batch_size: BatchSize = 512
    n_epochs: Epochs = 4
    gamma: Rate = 0.995
    gae_lambda: Fraction = 0.95
    ent_coef: Fraction = 0.005
    clip_range: ClipRange = 0.2
    hidden: Width = 256
    entity_dim: Annotated[int, Field(gt=0, le=MAX_ENTITY_DIM)] = 64
    card_embedding: Annotated[int, Field(ge=0, le=MAX_CARD_EMBEDDING)] = 16
    # Opponent pool: the probability of the heuristic per episode (else random). The pool
    # is fixed: a training config names no agent specs (a plug-in spec would run code).
    p_heuristic: Fraction = 0.8
    bc_games: Annotated[int, Field(ge=0, le=MAX_GAMES)] = 1000
    bc_epochs: Epochs = 4
    eval_every: Steps = 500_000
    eval_games: Games = 40
    final_eval_games: Games = 200  # the evaluation at the end (per opponent)
    max_decisions: Decisions = 2000  # per game
    # The decks games are drawn from: "all" the format's bundled decks, or "train" the
    # held-out benchmark's training decks only (mtg_env/data/benchmarks/heldout.yaml), so
    # that `mtg-env heldout policy:PATH` measures the policy on decks it never saw.
    decks: Literal["all", "train"] = "all"
    # "batch": every game in one mtg_env.vector.DuelVecEnv (opponents inside the batch,
    # one call steps them all); "dummy": SB3's DummyVecEnv of SelfPlayEntity-v1 envs (the
    # runs recorded before the batch became the default used it).
    vec_env: Literal["batch", "dummy"] = "batch"
    # The processes that step the batch's games (vec_env "batch"): 1 steps them in this
    # process; on a machine with cores to spare, up to one per core (docs/performance.md).
    workers: Workers = 1

    # Checks across fields, each on the later field (pydantic validates in field order), so
    # that the error names it.

    _split_of_format = field_validator("decks")(train_split_of_format)

    @field_validator("workers")
    @classmethod
    def _workers_fit(cls, v: int, info: ValidationInfo) -> int:
        if v > 1 and info.data.get("vec_env") == "dummy":
            raise ValueError("workers step a batch: set vec_env: batch")
        if v > info.data.get("n_envs", v):
            raise ValueError(f"more workers than games (n_envs {info.data['n_envs']})")
        return v


def deck_pool(cfg: Config) -> list[Deck] | None:
    """The decks of training games (None: all the format's bundled decks)."""
    return train_decks() if cfg.decks == "train" else None


def eval_pairs(cfg: Config, n: int, seed: int) -> list[tuple[Deck, Deck]]:
    """The deck pair of each evaluation game pair, from the training pool."""
    pool = deck_pool(cfg)
    if pool is None:
        return deck_pairs(cfg.format, None, n, seed)
    pairs = [(x, y) for x in pool for y in pool if x is not y]
    random.Random(seed).shuffle(pairs)
    return [pairs[i % len(pairs)] for i in range(n)]


SMOKE = {
    "total_timesteps": 256,
    "n_envs": 2,
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "bc_games": 2,
    "bc_epochs": 1,
    "eval_every": 128,
    "eval_games": 2,
    "final_eval_games": 2,
    "max_decisions": 300,
    "hidden": 32,
    "entity_dim": 16,
    "torch_threads": 1,  # a smoke run shares the machine (the test suite runs one per core)
}


def make_vec_env(cfg: Config) -> Any:
    """The training games: `cfg.n_envs` games against the opponent pool, seeded from
    `cfg.seed`, on a `DuelVecEnv` (`workers` processes) or SB3's `DummyVecEnv`."""
    return pool_vec_env(
        cfg.format,
        cfg.n_envs,
        decks=deck_pool(cfg),
        p_heuristic=cfg.p_heuristic,
        max_decisions=cfg.max_decisions,
        seed=cfg.seed,
        vec_env=cfg.vec_env,
        workers=cfg.workers,
    )


# ---------------------------------------------------------------------- policy as a player


def policy_action(policy: Any, obs: dict[str, np.ndarray], deterministic: bool = True) -> int:
    batch = {k: torch.as_tensor(v, device=policy.device).unsqueeze(0) for k, v in obs.items()}
    with torch.no_grad():
        dist = policy.get_distribution(batch, action_masks=obs["action_mask"].astype(bool)[None])
        a = dist.mode() if deterministic else dist.sample()
    return int(a[0])


def evaluate(policy: Any, cfg: Config, games: int, seed: int) -> dict[str, float]:
    """Win rates (draws half) against random and the heuristic, seats swapped per pair."""
    out = {}
    for spec in ("random", "heuristic"):
        score = n = 0.0
        pairs = eval_pairs(cfg, (games + 1) // 2, seed)
        for i, pair in enumerate(pairs):
            for me in (0, 1):
                e = raw_env(
                    format=cfg.format,
                    decks=pair if me == 0 else pair[::-1],
                    obs_type="entity",
                    max_decisions=cfg.max_decisions,
                    replay_hashes=False,
                )
                e.reset(seed=seed * 7919 + i)
                opp = make_agent(spec, seed + i, fmt=cfg.format)
                while not (all(e.terminations.values()) or all(e.truncations.values())):
                    g = e.game
                    if g.current_player == me:
                        e.step(policy_action(policy, e.observe(AGENTS[me])))
                    else:
                        e.step_engine(opp.choose(g))
                score += 0.5 if g.winner is None else float(g.winner == me)
                n += 1
        out[spec] = score / n
    return out


# ---------------------------------------------------------------------- warm start


def behaviour_cloning(policy: Any, cfg: Config, log: Any) -> None:
    """Fit the policy to the heuristic's choices on the candidate rows (masked
    cross-entropy) and the value head to the games' discounted outcomes."""
    if cfg.bc_games <= 0:
        return
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rng = random.Random(cfg.seed)
    per = 25
    for start in range(0, cfg.bc_games, per):
        samples: list[tuple[dict[str, np.ndarray], int, int]] = []
        outcomes = []
        for _ in range(min(per, cfg.bc_games - start)):
            e = raw_env(
                format=cfg.format,
                decks=deck_pool(cfg),
                obs_type="entity",
                max_decisions=cfg.max_decisions,
                replay_hashes=False,
            )
            e.reset(seed=rng.getrandbits(32))
            bots = [make_agent("heuristic", rng.getrandbits(31)) for _ in range(2)]
            game_samples = []
            while not (all(e.terminations.values()) or all(e.truncations.values())):
                g = e.game
                p = g.current_player
                i = e.index_of(bots[p].choose(g))
                obs = e.observe(AGENTS[p])
                if int(obs["action_mask"].sum()) > 1:
                    game_samples.append((obs, i, p))
                e.step(i)
            outcomes += [e.game.winner] * len(game_samples)
            samples += game_samples
        n = len(samples)
        if n == 0:
            continue
        # The samples go to the policy's device once; the masks stay numpy (the masked
        # distribution puts them beside its logits).
        dev = policy.device
        masks = np.stack([s[0]["action_mask"] for s in samples]).astype(bool)
        obs_b = {
            k: torch.as_tensor(np.stack([s[0][k] for s in samples]), device=dev)
            for k in samples[0][0]
        }
        acts = torch.tensor([s[1] for s in samples], device=dev)
        rets = torch.tensor(
            [0.0 if w is None else (1.0 if w == s[2] else -1.0) for s, w in zip(samples, outcomes)],
            device=dev,
        )
        for _ in range(cfg.bc_epochs):
            perm = torch.randperm(n)
            for s in range(0, n, 256):
                idx = perm[s : s + 256]
                on = idx.to(dev)
                values, logp, _ = policy.evaluate_actions(
                    {k: v[on] for k, v in obs_b.items()}, acts[on], action_masks=masks[idx.numpy()]
                )
                loss = -logp.mean() + 0.5 * ((values.flatten() - rets[on]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        log(f"bc: {start + per} games, {n} samples, last loss {loss.item():.3f}")


# ---------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    """Bad input is one `error:` line on stderr and exit status 2 (argparse's own usage
    errors are exit status 2 too)."""
    return run_script(_main, argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--config", default=None)
    ap.add_argument("--out", default="runs/entity")
    ap.add_argument("--smoke", action="store_true", help="a tiny run (tests)")
    args = ap.parse_args(argv)
    cfg = load_config_yaml(args.config, Config)
    if args.smoke:
        try:
            cfg = dataclasses.replace(cfg, **SMOKE)
        except ValidationError as e:
            raise config_error(args.config, e) from None
    out = Path(args.out)
    for name in ("policy.safetensors", "model_card.json", "eval.jsonl"):
        try:
            check_writable(out / name)
        except OutputPathError as e:
            raise SystemExit(f"error: {e}") from None
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    device = torch_device(cfg.device, args.config)
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    log = print
    venv = make_vec_env(cfg)
    model = MaskablePPO(
        CandidatePolicy,
        venv,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=cfg.ent_coef,
        clip_range=cfg.clip_range,
        policy_kwargs={
            "format": cfg.format,
            "hidden": cfg.hidden,
            "entity_dim": cfg.entity_dim,
            "card_embedding": cfg.card_embedding,
        },
        seed=cfg.seed,
        device=device,
        tensorboard_log=str(out / "tb"),  # and never a folder under the system's temp
        verbose=0,
    )
    t0 = time.time()
    behaviour_cloning(model.policy, cfg, log)
    evals: list[dict[str, Any]] = []

    def record(steps: int, games: int = cfg.eval_games) -> None:
        r = evaluate(model.policy, cfg, games, seed=900)
        evals.append({"steps": steps, "minutes": (time.time() - t0) / 60, "games": games, **r})
        write_bytes(out / "eval.jsonl", "".join(f"{_json(x)}\n" for x in evals).encode())
        log(f"eval at {steps} steps, {evals[-1]['minutes']:.1f} min: {r}")

    class Every(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next = cfg.eval_every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += cfg.eval_every
                record(self.num_timesteps)
            return cfg.wall_minutes is None or time.time() - t0 < cfg.wall_minutes * 60

    record(0)
    model.learn(cfg.total_timesteps, callback=Every())
    trained_minutes = (time.time() - t0) / 60
    record(model.num_timesteps, cfg.final_eval_games)
    export_policy(model.policy, out / "policy.safetensors")  # a `policy:PATH` agent
    card = {
        "recipe": "scripts/train_entity.py",
        "config": {f: getattr(cfg, f) for f in cfg.__dataclass_fields__},
        "steps": model.num_timesteps,
        "wall_minutes": trained_minutes,  # warm start and training, evaluations included
        "device": device_name(device),  # what `device` resolved to
        "evaluations": evals,
    }
    write_json(out / "model_card.json", card)
    log(f"done: {model.num_timesteps} steps in {card['wall_minutes']:.1f} min -> {out}")
    return 0


def _json(x: Any) -> str:
    import json

    return json.dumps(x, sort_keys=True)


if __name__ == "__main__":
    raise SystemExit(main())
