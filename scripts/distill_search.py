"""Search distillation: fine-tune a trained policy toward ISMCTS's choices (expert iteration).

    python scripts/distill_search.py --config configs/train/distill_default.yaml \\
        --init runs/ppo/policy.safetensors --out runs/distill
    python scripts/distill_search.py --smoke --init PATH --out DIR     # a tiny run (tests)

One job per file (CleanRL style): a config dataclass, validated when read from YAML.
PPO against the heuristic plateaus near parity with it, while ISMCTS, which searches over
determinizations with heuristic rollouts, beats it clearly; so the search is used as a
teacher. The student (the initial policy) plays games against the opponent pool (heuristic
and random, seats alternating); at every student decision with more than one legal action
the teacher searches the same position and its choice is recorded as the label (DAgger: the
states come from the student's own play, so the labels cover the states the student will
actually reach; with probability `teacher_moves` the teacher's move is played instead). Game
generation runs in `jobs` processes. The student is then fitted to the labels (masked
cross-entropy) for `epochs` epochs and written as a policy file with a model card.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import multiprocessing as mp
import random
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import ConfigDict, Field, ValidationError, field_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

from agents.base import make_agent
from agents.match import deck_pairs
from agents.plugin import is_plugin_spec
from agents.train_fields import Device, device_name, torch_device
from mtg_env.engine import Game, load_cards
from mtg_env.engine.formats import FORMATS
from mtg_env.env.spaces import Layout
from mtg_env.io import load_config_yaml, write_json

Pos = Annotated[int, Field(gt=0)]


@pydantic_dataclass(config=ConfigDict(extra="forbid"))
class Config:
    """Distillation configuration (a YAML file with these keys; unknown keys are errors,
    every value is ranged, and `teacher` and `opponents` name built-in agents only: a
    plug-in spec would run the code it names, so a config naming one is refused)."""

    format: str = "classic"
    teacher: str = "ismcts:100"
    games: Pos = 400
    jobs: Annotated[int, Field(gt=0, le=256)] = 2
    seed: Annotated[int, Field(ge=0)] = 0
    # Opponent pool for the generated games: weights per agent spec.
    opponents: dict[str, Annotated[float, Field(ge=0, allow_inf_nan=False)]] = dataclasses.field(
        default_factory=lambda: {"heuristic": 0.8, "random": 0.2}
    )
    # The probability that the teacher's move is played (DAgger beta).
    teacher_moves: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] = 0.5
    epochs: Pos = 4
    learning_rate: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 1e-4
    batch_size: Pos = 256
    max_decisions: Pos = 2000
    # Where the student network is fitted: "auto" (the GPU where PyTorch sees one, else
    # the CPU), "cpu" or "cuda". The policy file it writes plays on either.
    device: Device = "auto"

    @field_validator("teacher")
    @classmethod
    def _builtin_teacher(cls, v: str) -> str:
        _refuse_plugin(v)
        return v

    @field_validator("opponents")
    @classmethod
    def _builtin_opponents(cls, v: dict[str, float]) -> dict[str, float]:
        for spec in v:
            _refuse_plugin(spec)
        return v

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"format: unknown format {self.format!r} (one of {sorted(FORMATS)})")
        if not sum(self.opponents.values()) > 0:
            raise ValueError("opponents: the weights must sum to more than 0")
        for spec in [self.teacher, *self.opponents]:
            make_agent(spec, fmt=self.format)  # a bad spec is an error now, not mid-run


def _refuse_plugin(spec: str) -> None:
    # A config is data: a plug-in spec would run the Python code it names. The field
    # validators run before __post_init__ builds the agents, so nothing is imported.
    if is_plugin_spec(spec):
        raise ValueError(
            f"{spec!r} is a plug-in spec, which runs Python code: a config may name built-in "
            "agents only (random, heuristic, ismcts[:N], policy:PATH)"
        )


def load_config(path: str | None) -> Config:
    return load_config_yaml(path, Config)


# ---------------------------------------------------------------------- label generation


def _generate(args: tuple[Config, str, list[int]]) -> dict[str, Any]:
    """Play the games of `game_ids` and return the labelled student states."""
    import torch

    from agents.policy import PolicyAgent

    cfg, init, game_ids = args
    torch.set_num_threads(1)
    lay = Layout(load_cards(cfg.format))
    student = PolicyAgent.from_path(init, fmt=cfg.format, deterministic=False)
    pairs = deck_pairs(cfg.format, None, cfg.games, cfg.seed + 5)
    specs = list(cfg.opponents)
    weights = [cfg.opponents[s] for s in specs]
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    agree = 0
    for gid in game_ids:
        rng = random.Random(cfg.seed * 1_000_003 + gid)
        torch.manual_seed(cfg.seed * 1_000_003 + gid)
        me = gid % 2
        da, db = pairs[gid]
        g = Game.new(
            (da, db) if me == 0 else (db, da),
            seed=rng.getrandbits(32),
            format=cfg.format,
            max_decisions=cfg.max_decisions,
        )
        opp = make_agent(rng.choices(specs, weights)[0], rng.getrandbits(31), fmt=cfg.format)
        teacher = make_agent(cfg.teacher, rng.getrandbits(31), fmt=cfg.format)
        for ag in (opp, teacher):
            if hasattr(ag, "reset"):
                ag.reset()
        while not g.is_over:
            p = g.current_player
            assert p is not None
            if p != me:
                g.apply(opp.choose(g))
                continue
            if len(g.legal_actions()) == 1:
                g.apply(g.legal_actions()[0])
                continue
            obs = lay.observe(g, me)
            mask, amap, _ = lay.mask_and_map(g, me)
            own, opp_slots, st = lay.slots(g, me)
            label = lay.action_index(g, teacher.choose(g), me, own, opp_slots, st)
            mine = student.act(obs, mask)
            if label >= 0 and mask[label]:
                obs_l.append(obs.astype(np.float16))
                mask_l.append(mask.astype(bool))
                act_l.append(label)
                agree += int(mine == label)
                play = label if rng.random() < cfg.teacher_moves else mine
            else:  # pragma: no cover - every legal action has an index within the limits
                play = mine
            g.apply(amap[play])
    return {
        "obs": np.stack(obs_l) if obs_l else np.zeros((0, lay.n_obs), np.float16),
        "mask": np.stack(mask_l) if mask_l else np.zeros((0, lay.n_actions), bool),
        "act": np.array(act_l, dtype=np.int64),
        "agree": agree,
    }


# ---------------------------------------------------------------------- fitting


def fit(policy: Any, data: dict[str, np.ndarray], cfg: Config, log: Any) -> list[float]:
    import torch

    opt = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    dev = policy.device  # the samples go there once; the masks stay numpy
    obs = torch.tensor(data["obs"].astype(np.float32), device=dev)
    acts = torch.tensor(data["act"], device=dev)
    masks = data["mask"]
    n = len(acts)
    losses = []
    policy.set_training_mode(True)
    for ep in range(cfg.epochs):
        perm = torch.randperm(n)
        total = 0.0
        for s in range(0, n, cfg.batch_size):
            idx = perm[s : s + cfg.batch_size]
            on = idx.to(dev)
            _, logp, _ = policy.evaluate_actions(obs[on], acts[on], action_masks=masks[idx.numpy()])
            loss = -logp.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / max(n, 1))
        log(f"epoch {ep + 1}/{cfg.epochs}: loss {losses[-1]:.3f}")
    policy.set_training_mode(False)
    return losses


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--config", default=None)
    ap.add_argument("--init", required=True, help="the student: a policy file (.safetensors)")
    ap.add_argument("--out", default="runs/distill")
    ap.add_argument("--smoke", action="store_true", help="tiny budget, for tests")
    ap.add_argument("--games", type=int, default=None)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    try:
        if args.smoke:
            cfg = dataclasses.replace(
                cfg, teacher="ismcts:3", games=2, jobs=1, epochs=1, max_decisions=300
            )
        if args.games is not None:
            cfg = dataclasses.replace(cfg, games=args.games)
    except ValidationError as e:
        errs = "; ".join(f"field {'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
        raise SystemExit(f"error: {errs}") from None

    import torch

    from agents.policy import CheckpointError, export_policy, load_model

    try:
        load_model(args.init)  # fail early on a bad checkpoint, before writing anything
    except CheckpointError as e:
        raise SystemExit(f"error: {e}") from None
    device = torch_device(cfg.device, args.config)  # a GPU asked for and absent: one line
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f}s] {msg}", flush=True)

    chunks = [list(range(j, cfg.games, cfg.jobs)) for j in range(cfg.jobs)]
    work = [(cfg, args.init, c) for c in chunks if c]
    log(f"playing {cfg.games} games with teacher {cfg.teacher} in {len(work)} process(es)")
    if len(work) > 1:
        with mp.get_context("spawn").Pool(len(work)) as pool:
            parts = pool.map(_generate, work)
    else:
        parts = [_generate(w) for w in work]
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "act")}
    n = len(data["act"])
    agree = sum(p["agree"] for p in parts) / max(n, 1)
    log(f"{n} labelled states; the student already agreed with the teacher on {agree:.1%}")
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(2)
    # load_model caches the network per path: train a private copy.
    policy = copy.deepcopy(load_model(args.init)).to(device)
    losses = fit(policy, data, cfg, log) if n else []
    export_policy(policy, out / "policy.safetensors")
    card = {
        "policy": str(out / "policy.safetensors"),
        "algorithm": "search distillation (DAgger with an ISMCTS teacher) of a trained policy",
        "init": str(args.init),
        "config": dataclasses.asdict(cfg),
        "labelled_states": n,
        "initial_agreement": round(agree, 4),
        "losses": [round(x, 4) for x in losses],
        "wall_time_s": round(time.time() - t0, 1),
        "device": device_name(device),  # what `device` resolved to
    }
    write_json(out / "model_card.json", card)
    print(json.dumps({"labelled_states": n, "policy": str(out / "policy.safetensors")}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as e:
        if isinstance(e.code, str):  # one `error:` line: exit status 2, as for usage errors
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
