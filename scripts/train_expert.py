"""Expert iteration: the net-guided search (`agents.puct.PUCTAgent`) plays itself, and its
policy network is trained toward what the search found.

    python scripts/train_expert.py --config configs/train/expert_default.yaml --out runs/expert
    python scripts/train_expert.py --config ... --out runs/expert --resume   # from the checkpoint
    python scripts/train_expert.py --smoke --out DIR                          # a tiny run (tests)

One job per file (CleanRL style): a config dataclass, validated when read from YAML.
The search guided by a PPO policy (`ismcts:N+policy:PATH`) rated the same at 16 and 64
iterations (docs/agents.md): the network, a critic trained on PPO's returns, limits it more
than the budget does; expert iteration trains the network on the search's own output.
The recipe (AlphaZero's loop on the information-set search):

1. Self-play: `games` games in `workers` processes, both seats the search (`PUCTAgent`,
   `search_iterations` per decision) guided by the current generator network. At every
   decision with more than one legal move it records the acting seat's own observation,
   its mask, the root's visit counts spread over the observation's indices (a distribution
   over the legal indices) and, once the game ends, its outcome from that seat's side (+1
   a win, -1 a loss, 0 a draw at the decision cap). The first `temperature_moves` searched
   moves of each game are drawn in proportion to the visits, for varied games; the rest
   are the search's choice.
2. Training: the learner network (it starts as `init` and keeps its weights and optimizer
   from one generation to the next) fits the last `window` generations' samples: the
   policy toward the visit distributions (cross-entropy over the masked logits), the value
   toward the outcomes (squared error, weighted `value_coef`).
3. Gate: the trained network against the generator, `gate_games` seat-swapped games (as
   searches with the same budget, or as plain policies with `gate_search: false`); it
   becomes the generator only if it scores at least `gate_score`.
4. Evaluation: the generator against the heuristic, `eval_games` seat-swapped games, the
   same games every generation (a generator the gate kept is not played again).

Every random stream (decks, game seeds, searches, sampled moves, the training order) is
seeded from `seed`, the generation and the game, so a resumed run repeats what an
uninterrupted one would have done. Output folder (`--out`):

- `policy.safetensors`: the generator, a policy file (`policy:PATH`;
  `ismcts:64+policy:PATH` searches with it), and `generations/gen_NNN.safetensors`: the
  network each generation trained (`gen_000` is `init`);
- `model_card.json`: config, device, hardware, wall time, generations, samples, every gate
  and evaluation;
- `curve.jsonl` (one row per generation: wall hours, samples, losses, the gate's score and
  the score against the heuristic, each with its Wilson 95% interval) and `curve.png` (the
  score against the heuristic and a rating estimated from it, against training hours);
- `tb/`: the same as TensorBoard scalars, where `torch.utils.tensorboard` imports;
- `checkpoint/`: data only, no pickle. The learner's float32 weights and Adam's state and
  each windowed generation's samples as safetensors, and `state.json` (the loop's state,
  every row so far, the seeds), written last: it names the files it goes with (and the
  generator's file in `generations/`), so a run killed at any point resumes (`--resume`)
  from its last finished generation and ends at the same budget (trained on the CPU, with
  the very networks an uninterrupted run makes). A resume with another configuration (anything but
  `generations`, `workers`, `torch_threads`, `device`) is refused in one line.

A bad config value is one `error: FILE: field X: ...` line with exit status 2, before
anything is written. Ctrl-C stops the run with one line and exit status 130.
"""

from __future__ import annotations

import argparse
import collections
import copy
import dataclasses
import io
import json
import math
import multiprocessing as mp
import os
import platform
import random
import signal
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import ConfigDict, Field, ValidationError, field_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

from agents.base import make_agent
from agents.heldout import load_split
from agents.ismcts import MAX_ITERATIONS, action_key
from agents.match import deck_pairs, play_game, wilson
from agents.puct import BATCH, PUCTAgent
from agents.train_fields import (  # ranged field types (every value is ranged)
    Decisions,
    Device,
    Epochs,
    Format,
    Fraction,
    Games,
    Rate,
    Seed,
    Threads,
    Workers,
    config_error,
    device_name,
    run_script,
    torch_device,
    train_split_of_format,
)
from mtg_env.engine import Action, Game, load_decks
from mtg_env.engine.formats import rules_for
from mtg_env.io import (
    OutputPathError,
    check_not_input,
    check_writable,
    remove_stale_temps,
    write_bytes,
    write_json,
    write_text,
)

CHECKPOINT_FORMAT = "mtg_env.expert_checkpoint.v1"
SAMPLES_FORMAT = "mtg_env.expert_samples.v1"
LEARNER_FORMAT = "mtg_env.expert_learner.v1"
# Settings a resumed run may change: the budget, and how the work is spread, which decide
# neither the games nor the network (each game is seeded on its own, results kept in order).
RESUMABLE_CHANGES = frozenset({"generations", "workers", "torch_threads", "device"})
OUTPUTS = ("policy.safetensors", "model_card.json", "curve.jsonl", "curve.png")

Side = tuple[str, bool]  # a policy file (or "heuristic"), and whether it plays as a search


@pydantic_dataclass(config=ConfigDict(extra="forbid"))
class Config:
    """Expert-iteration configuration (a YAML file with these keys; unknown keys are errors,
    and every value is ranged)."""

    # The rules format the games are played in; `init` must be a policy of this format.
    format: Format = "classic"
    # The network to start from: a policy file (`.safetensors`; the flat slot policy or the
    # v1 candidate policy: both give the search priors and values), or "default" for the
    # shipped `policy:default` (agents.policy.DEFAULT).
    init: Annotated[str, Field(min_length=1, max_length=4096)] = "default"
    # The decks games are drawn from: "all" the format's bundled decks, or "train" the
    # held-out benchmark's training decks only (mtg_env/data/benchmarks/heldout.yaml), so
    # that `mtg-env heldout policy:PATH` measures the result on decks it never saw.
    decks: Literal["all", "train"] = "all"
    # The budget: generations of self-play, training, gate and evaluation.
    generations: Annotated[int, Field(gt=0, le=100_000)] = 12
    # Self-play games per generation.
    games: Games = 40
    # Processes that play the games (self-play, gate, evaluation); 1 plays them in this one.
    workers: Workers = 2
    # Search iterations per decision, in self-play and in the gate and evaluation searches.
    search_iterations: Annotated[int, Field(le=MAX_ITERATIONS)] = 32
    # The first this many searched moves of each self-play game are drawn in proportion to
    # the root's visits (varied openings); later ones are the search's choice. 0: never.
    temperature_moves: Annotated[int, Field(ge=0, le=100_000)] = 8
    # A game reaching this many decisions is a draw.
    max_decisions: Decisions = 2000
    # Generations whose samples the learner trains on (the newest included).
    window: Annotated[int, Field(gt=0, le=1000)] = 4
    # Passes over the window's samples per generation (a sample is trained on in each of the
    # `window` generations it stays in the window).
    epochs: Epochs = 1
    # Samples per gradient step.
    batch_size: Annotated[int, Field(gt=1, le=1 << 16)] = 256
    # Adam's learning rate.
    lr: Rate = 1e-4
    # The value loss's weight beside the policy loss.
    value_coef: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] = 1.0
    # PyTorch threads of the training process (each worker plays with one).
    torch_threads: Threads = 2
    # Where the learner trains: "auto" (the GPU where PyTorch sees one, else the CPU),
    # "cpu" or "cuda". Games are played on the CPU in every case; the files are
    # device-independent.
    device: Device = "auto"
    # Games of the gate per generation (rounded up to even: seat-swapped pairs).
    gate_games: Games = 40
    # The gate's players search (`search_iterations`, as in self-play); false: plain policies.
    gate_search: bool = True
    # The score (draws half) the trained network needs against the generator to replace it.
    gate_score: Fraction = 0.55
    # Games against the heuristic per evaluation (rounded up to even: seat-swapped pairs).
    eval_games: Games = 40
    # The evaluated generator searches (`search_iterations`); false: the plain policy.
    eval_search: bool = True
    # Every random stream of the run is derived from it.
    seed: Seed = 0

    # Checks across fields, each on the later field (pydantic validates in field order), so
    # that the error names it.

    _split_of_format = field_validator("decks")(train_split_of_format)

    @field_validator("search_iterations")
    @classmethod
    def _root_gets_visits(cls, v: int) -> int:
        # The search's first batch expands the root: with no more, no move gets a visit and
        # there is nothing to learn from.
        if v <= BATCH:
            raise ValueError(
                f"at least {BATCH + 1}: the search's first {BATCH} iterations expand the "
                "root and give its moves no visits"
            )
        return v


SMOKE = {
    "generations": 2,
    "games": 2,
    "workers": 1,
    "search_iterations": BATCH + 2,
    "temperature_moves": 2,
    "max_decisions": 20,
    "window": 2,
    "epochs": 1,
    "batch_size": 32,
    "torch_threads": 1,  # a smoke run shares the machine (the test suite runs one per core)
    "gate_games": 2,
    "eval_games": 2,
}


def with_changes(cfg: Config, path: str | None, **changes: Any) -> Config:
    """The config with some values replaced (`--smoke`), checked again."""
    try:
        return dataclasses.replace(cfg, **changes)
    except ValidationError as e:
        raise config_error(path, e) from None


def init_path(cfg: Config) -> Path:
    from agents.policy import DEFAULT

    return DEFAULT if cfg.init == "default" else Path(cfg.init)


def stream_seed(*parts: object) -> int:
    """The seed of one random stream (a game, a generation's training order): a function of
    the run's seed and the stream's name, so a resumed run draws exactly what an
    uninterrupted one would have."""
    return random.Random(":".join(map(str, parts))).getrandbits(31)


def deck_names(cfg: Config, n: int, seed: int) -> list[tuple[str, str]]:
    """The decks of `n` games (or game pairs), by name, as `agents.match.deck_pairs` draws
    them: every ordered pair of the pool, shuffled by the seed, cycled."""
    if cfg.decks == "all":
        return [(a.name, b.name) for a, b in deck_pairs(cfg.format, None, n, seed)]
    names = list(load_split().train)
    if rules_for(cfg.format).piles == 1:  # both players draw from one shared pile
        pairs = [(x, x) for x in names]
    else:
        pairs = [(x, y) for x in names for y in names]
    random.Random(seed).shuffle(pairs)
    return [pairs[i % len(pairs)] for i in range(n)]


# ---------------------------------------------------------------------- games (in workers)


_NETWORKS: dict[str, Any] = {}  # this process's networks, by policy file
_GUIDES: dict[str, Any] = {}


def network(path: str) -> Any:
    """The network of one of the run's policy files (`generations/`). They all describe the
    network `init` loaded as: the first this process meets (in the training process, `init`
    itself) is read by `load_model`, which checks it and builds the network; the others copy
    that network and take their own weights, which skips a rebuild per file (orthogonal
    initialisation of every layer: about a second each for the default policy)."""
    if path not in _NETWORKS:
        from agents.policy import load_model

        if not _NETWORKS:
            _NETWORKS[path] = load_model(path)
        else:
            from safetensors.torch import load_file

            model = copy.deepcopy(next(iter(_NETWORKS.values())))
            weights = load_file(path)
            model.load_state_dict(
                {k: v.float() if v.is_floating_point() else v for k, v in weights.items()}
            )
            _NETWORKS[path] = model
    return _NETWORKS[path]


def guide(cfg: Config, path: str) -> Any:
    """The `PolicyAgent` of one of the run's policy files (its network and observer), built
    once per process."""
    from agents.policy import PolicyAgent

    if path not in _GUIDES:
        _GUIDES[path] = PolicyAgent(network(path), fmt=cfg.format, name=path)
    return _GUIDES[path]


def visit_targets(g: Game, legal: Any, visits: dict[tuple, int]) -> np.ndarray | None:
    """The root's visits as a distribution over the observation's indices (zero off the
    legal ones). A move several legal indices play (two copies of a card in hand are one
    move to the search, which keys cards in hand by name) has its visits split evenly among
    them, as the search's prior adds up their probabilities. None where no legal index got
    a visit."""
    idx = np.flatnonzero(legal.mask)
    keys = [action_key(g, legal.actions[int(i)]) for i in idx]
    share = collections.Counter(keys)
    target = np.zeros(len(legal.mask), np.float32)
    for i, k in zip(idx, keys):
        target[i] = visits.get(k, 0) / share[k]
    total = float(target.sum())
    return target / total if total > 0 else None


def sampled_move(
    g: Game, moves: list[Action], visits: dict[tuple, int], rng: random.Random
) -> Action | None:
    """A legal move drawn in proportion to its root visits (None if none has any)."""
    by_key = {action_key(g, a): a for a in moves}
    keys = [k for k in visits if k in by_key and visits[k] > 0]
    if not keys:
        return None
    return by_key[rng.choices(keys, [visits[k] for k in keys])[0]]


def _stored(obs: Any) -> Any:
    """An observation as a sample keeps it: a copy (the entity observer's mask is the legal
    mask itself), float vectors (the flat observation, in [0, 1]) in float16 to halve the
    replay window's memory; integer tables as they are."""
    if isinstance(obs, dict):
        return {k: _stored(v) for k, v in obs.items()}
    a = np.asarray(obs)
    return a.astype(np.float16) if a.dtype.kind == "f" else a.copy()


def selfplay_game(job: tuple[Config, str, int, int, tuple[str, str]]) -> dict[str, Any]:
    """One self-play game of the generator's search against itself: its samples (stacked)
    and what the game was."""
    cfg, generator, generation, k, (na, nb) = job
    policy = guide(cfg, generator)
    observer = policy.observer
    rng = random.Random(stream_seed(cfg.seed, "selfplay", generation, k))
    decks = load_decks(cfg.format)
    g = Game.new(
        (decks[na], decks[nb]),
        seed=rng.getrandbits(32),
        format=cfg.format,
        max_decisions=cfg.max_decisions,
    )
    search = [
        PUCTAgent(policy, iterations=cfg.search_iterations, seed=rng.getrandbits(31))
        for _ in range(2)
    ]
    obs: list[Any] = []
    masks: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    seats: list[int] = []
    searched = 0
    while not g.is_over:
        seat = g.current_player
        assert seat is not None
        moves = g.legal_actions()
        if len(moves) == 1:
            g.apply(moves[0])
            continue
        move, visits = search[seat].search(g)
        legal = observer.legal(g, seat)
        target = visit_targets(g, legal, visits) if int(legal.mask.sum()) > 1 else None
        if target is not None:
            view = observer.learner_view(observer.observe(g, seat, legal), legal.mask)
            obs.append(_stored(view))
            masks.append(legal.mask.astype(np.int8))
            targets.append(target)
            seats.append(seat)
        if searched < cfg.temperature_moves:
            drawn = sampled_move(g, moves, visits, rng)
            move = move if drawn is None else drawn
        searched += 1
        g.apply(move)
    outcome = [0.0, 0.0] if g.winner is None else [-1.0, -1.0]
    if g.winner is not None:
        outcome[g.winner] = 1.0
    return {
        "obs": _stack(obs) if obs else None,
        "mask": np.stack(masks) if masks else None,
        "target": np.stack(targets) if targets else None,
        "value": np.array([outcome[s] for s in seats], np.float32),
        "decisions": int(g.n_decisions),
        "draw": g.winner is None,
    }


def _stack(obs: list[Any]) -> Any:
    if isinstance(obs[0], dict):
        return {k: np.stack([o[k] for o in obs]) for k in obs[0]}
    return np.stack(obs)


def player(cfg: Config, side: Side, seed: int) -> Any:
    path, searches = side
    if path == "heuristic":
        return make_agent("heuristic", seed)
    policy = guide(cfg, path)
    if searches:
        return PUCTAgent(policy, iterations=cfg.search_iterations, seed=seed)
    return policy


def match_game(job: tuple[Config, Side, Side, tuple[str, str], int, bool]) -> float:
    """One game of a seat-swapped pair (`agents.match.run_match`'s seats and seeds: side A
    plays the pair's first deck from either seat); side A's score, draws half."""
    cfg, side_a, side_b, (na, nb), gseed, swap = job
    decks = load_decks(cfg.format)
    da, db = decks[na], decks[nb]
    a = player(cfg, side_a, gseed * 2 + 1)
    b = player(cfg, side_b, gseed * 2 + 2)
    seats = [b, a] if swap else [a, b]
    g = play_game(seats, (db, da) if swap else (da, db), gseed, cfg.format, cfg.max_decisions)
    return 0.5 if g.winner is None else float(g.winner == (1 if swap else 0))


def _worker_init(parent: int) -> None:
    import torch

    from mtg_env.workers import worker_setup

    worker_setup(parent)  # Ctrl-C is the trainer's; a worker never outlives it
    torch.set_num_threads(1)


# ---------------------------------------------------------------------- samples and training


def samples_bytes(parts: list[dict[str, Any]], generation: int) -> tuple[bytes, int]:
    """A generation's samples as one safetensors file (data only), and how many."""
    from safetensors.numpy import save

    parts = [p for p in parts if p["mask"] is not None]
    tensors: dict[str, np.ndarray] = {}
    if parts:
        first = parts[0]["obs"]
        if isinstance(first, dict):
            for k in first:
                tensors[f"obs.{k}"] = np.concatenate([p["obs"][k] for p in parts])
        else:
            tensors["obs"] = np.concatenate([p["obs"] for p in parts])
        for k in ("mask", "target", "value"):
            tensors[k] = np.concatenate([p[k] for p in parts])
    n = len(tensors["value"]) if tensors else 0
    meta = {"kind": SAMPLES_FORMAT, "generation": str(generation), "samples": str(n)}
    return save(tensors, metadata=meta), n


def load_window(paths: list[Path]) -> dict[str, np.ndarray]:
    """The window's samples, oldest first, concatenated."""
    from safetensors.numpy import load_file

    parts = [p for p in (load_file(str(path)) for path in paths) if p]
    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def train(
    learner: Any, opt: Any, data: dict[str, np.ndarray], cfg: Config, generation: int
) -> dict[str, float]:
    """Fit the learner to the window: the policy toward the visit distributions
    (cross-entropy over the masked logits), the value toward the outcomes (squared error).
    The losses are the last epoch's means."""
    import torch

    dev = learner.device
    n = len(data.get("value", ()))
    if n == 0:
        return {"policy_loss": math.nan, "value_loss": math.nan}
    # The window goes to the device once (flat observations stay float16 there); masks
    # stay numpy, as the masked distribution takes them.
    obs_keys = [k for k in data if k == "obs" or k.startswith("obs.")]
    obs = {k: torch.as_tensor(data[k], device=dev) for k in obs_keys}
    masks = data["mask"].astype(bool)
    target = torch.as_tensor(data["target"], device=dev)
    value = torch.as_tensor(data["value"], device=dev)
    torch.manual_seed(stream_seed(cfg.seed, "train", generation))
    order = torch.Generator().manual_seed(stream_seed(cfg.seed, "order", generation))
    learner.set_training_mode(True)
    losses = {"policy_loss": 0.0, "value_loss": 0.0}
    for _ in range(cfg.epochs):
        perm = torch.randperm(n, generator=order)
        losses = {"policy_loss": 0.0, "value_loss": 0.0}
        for s in range(0, n, cfg.batch_size):
            idx = perm[s : s + cfg.batch_size]
            on = idx.to(dev)
            batch: Any = {
                k.removeprefix("obs."): (t[on].float() if t.is_floating_point() else t[on])
                for k, t in obs.items()
            }
            if "obs" in batch:
                batch = batch["obs"]
            dist, values = learner.evaluate_states(batch, action_masks=masks[idx.numpy()])
            # The masked distribution's normalised logits: log-probabilities, illegal indices
            # at a large negative finite number, which their zero targets cancel.
            policy_loss = -(target[on] * dist.distribution.logits).sum(dim=1).mean()
            value_loss = ((values.flatten() - value[on]) ** 2).mean()
            loss = policy_loss + cfg.value_coef * value_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses["policy_loss"] += float(policy_loss.detach()) * len(idx)
            losses["value_loss"] += float(value_loss.detach()) * len(idx)
    learner.set_training_mode(False)
    return {k: v / n for k, v in losses.items()}


def learner_bytes(learner: Any, opt: Any) -> bytes:
    """The learner's float32 weights and Adam's state, as safetensors (data only): the
    tensors by name, the optimizer's settings as JSON in the metadata."""
    import torch
    from safetensors.torch import save

    def plain(t: Any) -> Any:
        # Shared modules give one tensor several names: safetensors wants each its own. The
        # file holds host copies, so it loads on either device: `load_state_dict` puts them
        # on the learner's (and Adam's state on its parameters').
        return (t if torch.is_tensor(t) else torch.tensor(t)).detach().cpu().clone().contiguous()

    tensors = {f"model.{k}": plain(v) for k, v in learner.state_dict().items()}
    state = opt.state_dict()
    for i, st in state["state"].items():
        for name, v in st.items():
            tensors[f"optim.{i}.{name}"] = plain(v)
    meta = {"kind": LEARNER_FORMAT, "param_groups": json.dumps(state["param_groups"])}
    return bytes(save(tensors, metadata=meta))


def load_learner(path: Path, learner: Any, opt: Any) -> None:
    from safetensors import safe_open

    model: dict[str, Any] = {}
    optim: dict[int, dict[str, Any]] = collections.defaultdict(dict)
    with safe_open(str(path), "pt") as f:
        meta = f.metadata() or {}
        if meta.get("kind") != LEARNER_FORMAT:
            raise ValueError("not a learner checkpoint")
        for k in f.keys():  # noqa: SIM118 - a safetensors file, not a dict
            if k.startswith("model."):
                model[k.removeprefix("model.")] = f.get_tensor(k)
            else:
                _, i, name = k.split(".", 2)
                optim[int(i)][name] = f.get_tensor(k)
    learner.load_state_dict(model)
    opt.load_state_dict({"state": dict(optim), "param_groups": json.loads(meta["param_groups"])})


# ---------------------------------------------------------------------- rating estimate


def heuristic_anchor(fmt: str) -> float | None:
    """The heuristic's pinned rating on the format's evaluation deck set (`mtg-env
    evaluate`'s anchors), or None where the format has none."""
    from agents.results import load_anchors
    from agents.schedule import resolve_deck_set

    try:
        anchors = load_anchors(resolve_deck_set(fmt, None).name)
    except (ValueError, OSError):
        return None
    return next((a.rating for a in anchors if a.spec == "heuristic"), None)


def rating_estimate(score: float, games: int, anchor: float | None) -> float | None:
    """A rating from the score against one opponent of known rating (Elo's logistic curve).
    The score is clamped half a game inside (0, 1): a perfect score has no finite rating, and
    half a game is what `games` games can resolve."""
    if anchor is None or games <= 0:
        return None
    edge = 0.5 / games
    p = min(max(score, edge), 1 - edge)
    return round(anchor + 400 * math.log10(p / (1 - p)), 1)


def cpu_model() -> str | None:
    """The processor's name for the model card (`platform.processor()` is empty on Linux)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


# ---------------------------------------------------------------------- the run's files


def read_state(path: Path, cfg: Config) -> dict[str, Any]:
    """The checkpoint's state, checked against this run's config (JSON only: a mismatch is
    refused before PyTorch loads)."""
    try:
        state = json.loads(path.read_text())
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError("not an expert-iteration checkpoint")
        old = state["config"]
        if not isinstance(old, dict):
            raise ValueError("its config is not a mapping")
        int(state["generation"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SystemExit(f"error: {path}: can't resume from it ({type(e).__name__}: {e})") from None
    now = dataclasses.asdict(cfg)
    differ = [k for k in now if k not in RESUMABLE_CHANGES and old.get(k) != now[k]]
    if differ:
        diff = "; ".join(f"{k}: {old.get(k)!r} there, {now[k]!r} now" for k in differ)
        raise SystemExit(
            f"error: {path}: the run was made with another configuration ({diff}); resume "
            "with its config, or start a new run in a new --out folder (init from its "
            "policy.safetensors to go on with new settings)"
        )
    return state


def _remove_temps(out: Path, cfg: Config) -> None:
    """The temporary files `write_bytes` left for the run's files when a process was killed
    mid-write."""
    steps = range(cfg.generations + 1)
    remove_stale_temps(out, OUTPUTS)
    remove_stale_temps(out / "generations", tuple(f"gen_{n:03d}.safetensors" for n in steps))
    remove_stale_temps(
        out / "checkpoint",
        (
            "state.json",
            *(f"learner_g{n:03d}.safetensors" for n in steps),
            *(f"samples_g{n:03d}.safetensors" for n in steps),
        ),
    )


def _kill_point(name: str, generation: int) -> None:
    """For the resume test: SIGKILL this process at a named point (MTG_ENV_TRAIN_KILL_AT=
    NAME:GENERATION), as an outside kill at that moment would."""
    want = os.environ.get("MTG_ENV_TRAIN_KILL_AT")
    if want and want == f"{name}:{generation}":
        os.kill(os.getpid(), signal.SIGKILL)


def _finite(x: Any) -> Any:
    """JSON without NaN (a generation with no samples has no loss): null instead."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def plot_curve(rows: list[dict[str, Any]], anchor: float | None) -> bytes:
    """curve.png: the generator's score against the heuristic (95% intervals) and the rating
    estimated from it, against training hours."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hours = [r["wall_hours"] for r in rows]
    score = [r["eval"]["score"] for r in rows]
    lo = [r["eval"]["score"] - r["eval"]["ci95"][0] for r in rows]
    hi = [r["eval"]["ci95"][1] - r["eval"]["score"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.errorbar(hours, score, yerr=[lo, hi], marker="o", capsize=3)
    ax1.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax1.set_ylim(0, 1)
    ax1.set_xlabel("training hours")
    ax1.set_ylabel("score against the heuristic (draws half)")
    ax1.set_title("generator vs heuristic, 95% interval")
    ratings = [r["eval"]["rating_estimate"] for r in rows]
    if anchor is not None and all(x is not None for x in ratings):
        bounds = [r["eval"]["rating_ci95"] for r in rows]
        ax2.errorbar(
            hours,
            ratings,
            yerr=[
                [x - b[0] for x, b in zip(ratings, bounds)],
                [b[1] - x for x, b in zip(ratings, bounds)],
            ],
            marker="o",
            capsize=3,
        )
        ax2.axhline(anchor, color="grey", lw=0.8, ls="--", label=f"heuristic ({anchor:.0f})")
        ax2.legend(loc="best")
    else:
        ax2.text(0.5, 0.5, "no heuristic anchor for this format", ha="center", va="center")
    ax2.set_xlabel("training hours")
    ax2.set_ylabel("rating (estimate)")
    ax2.set_title(
        "estimated from one opponent:\nheuristic's anchor + 400 log10(p / (1 - p))", fontsize=10
    )
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


class TensorBoard:
    """TensorBoard scalars where `torch.utils.tensorboard` imports; nothing otherwise."""

    def __init__(self, folder: Path) -> None:
        self.writer: Any = None
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            return
        self.writer = SummaryWriter(str(folder))

    def row(self, r: dict[str, Any]) -> None:
        if self.writer is None:
            return
        step = r["generation"]
        scalars = {
            "samples/generation": r["samples"],
            "samples/total": r["total_samples"],
            "loss/policy": r["policy_loss"],
            "loss/value": r["value_loss"],
            "eval/score_vs_heuristic": r["eval"]["score"],
            "eval/rating_estimate": r["eval"]["rating_estimate"],
            "gate/score": (r["gate"] or {}).get("score"),
            "time/wall_hours": r["wall_hours"],
        }
        for name, v in scalars.items():
            if isinstance(v, int | float) and math.isfinite(v):
                self.writer.add_scalar(name, v, step)
        self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


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
    ap.add_argument("--out", default="runs/expert")
    ap.add_argument("--resume", action="store_true", help="go on from the checkpoint in --out")
    ap.add_argument("--smoke", action="store_true", help="a tiny run (tests)")
    ap.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args(argv)
    from mtg_env.io import load_config_yaml

    cfg: Config = load_config_yaml(args.config, Config)
    if args.smoke:
        cfg = with_changes(cfg, args.config, **SMOKE)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise SystemExit(f"error: {out}: exists and is not a folder (--out names a folder)")
    try:
        for name in OUTPUTS:
            check_writable(out / name)
        check_writable(out / "checkpoint" / "state.json")
        check_not_input(out / "policy.safetensors", [init_path(cfg)])
    except OutputPathError as e:
        raise SystemExit(f"error: {e}") from None
    state_path = out / "checkpoint" / "state.json"
    state: dict[str, Any] | None = None
    if args.resume and state_path.exists():
        state = read_state(state_path, cfg)
    elif args.resume:
        print(f"no checkpoint in {out}: a new run", flush=True)
    elif state_path.exists():
        # A new run here would replace the files this checkpoint names, one by one.
        raise SystemExit(
            f"error: {out}: holds a run's checkpoint; go on with it (--resume), or give "
            "another --out"
        )
    device = torch_device(cfg.device, args.config)  # a GPU asked for and absent: one line
    if state is None:
        _check_init(cfg, args.config)
    try:
        return _train(cfg, args, out, state, device)
    except KeyboardInterrupt:
        try:
            done = json.loads(state_path.read_text())["generation"]
            how = f"the last checkpoint (generation {done}) resumes with --resume"
        except (OSError, ValueError, KeyError):
            how = "no checkpoint was written yet"
        print(f"interrupted; {how}", file=sys.stderr, flush=True)
        return 130


def _check_init(cfg: Config, where: str | None) -> None:
    """`init` loads, plays this format and gives the search its heads: one line otherwise,
    before anything is written."""
    from agents.policy import CheckpointError, PolicyAgent, load_model

    path = init_path(cfg)
    try:
        model = load_model(path)
        PolicyAgent(model, fmt=cfg.format, name=str(path))
    except CheckpointError as e:
        raise SystemExit(f"error: {where or 'config'}: field init: {e}") from None
    if not hasattr(model, "evaluate_states"):
        raise SystemExit(
            f"error: {where or 'config'}: field init: {path}: this network gives no priors and "
            "values in one pass (evaluate_states): the slot (v0) and candidate (v1) policies do"
        )


def _train(
    cfg: Config,
    args: argparse.Namespace,
    out: Path,
    state: dict[str, Any] | None,
    device: Any,
) -> int:
    import torch

    from agents.policy import load_model, policy_bytes

    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f}s] {msg}", flush=True)

    ck = out / "checkpoint"
    gens = out / "generations"
    torch.set_num_threads(cfg.torch_threads)
    anchor = heuristic_anchor(cfg.format)
    eval_pairs = deck_names(cfg, (cfg.eval_games + 1) // 2, stream_seed(cfg.seed, "eval-decks"))

    def gen_file(n: int) -> Path:
        return gens / f"gen_{n:03d}.safetensors"

    pool = None
    if cfg.workers > 1:
        pool = mp.get_context("spawn").Pool(
            cfg.workers, initializer=_worker_init, initargs=(os.getpid(),)
        )

    def run_jobs(fn: Callable[[Any], Any], jobs: list[Any], what: str) -> list[Any]:
        """The jobs' results in job order, however many processes play them."""
        from rich.progress import Progress

        it: Iterable[Any] = pool.imap(fn, jobs) if pool is not None else map(fn, jobs)
        results = []
        with Progress(transient=True, disable=not args.progress) as bar:
            task = bar.add_task(what, total=len(jobs))
            for r in it:
                results.append(r)
                bar.update(task, advance=1)
        return results

    def match(
        side_a: Side, side_b: Side, pairs: list[tuple[str, str]], seeds: list[int], what: str
    ) -> dict[str, Any]:
        jobs = [
            (cfg, side_a, side_b, pair, gseed, swap)
            for pair, gseed in zip(pairs, seeds)
            for swap in (False, True)
        ]
        scores = run_jobs(match_game, jobs, what)
        won = sum(scores)
        lo, hi = wilson(won, len(scores))
        return {
            "games": len(scores),
            "wins": sum(1 for s in scores if s == 1.0),
            "draws": sum(1 for s in scores if s == 0.5),
            "score": round(won / len(scores), 4),
            "ci95": [round(lo, 4), round(hi, 4)],
        }

    def evaluate(generation: int) -> dict[str, Any]:
        seeds = [stream_seed(cfg.seed, "eval", k) for k in range(len(eval_pairs))]
        r = match(
            (str(gen_file(generation)), cfg.eval_search),
            ("heuristic", False),
            eval_pairs,
            seeds,
            "evaluation",
        )
        r["network"] = generation  # the generator it measured
        r["rating_estimate"] = rating_estimate(r["score"], r["games"], anchor)
        # The score's interval through the same curve (None without an anchor).
        r["rating_ci95"] = [rating_estimate(b, r["games"], anchor) for b in r["ci95"]]
        log(
            f"generator (generation {generation}) vs heuristic: {r['score']:.3f} "
            f"({r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}, {r['games']} games)"
        )
        return r

    tb = TensorBoard(out / "tb")
    try:
        if state is None:
            base = load_model(init_path(cfg))
            write_bytes(gen_file(0), policy_bytes(base))
            # This process's other networks copy it (`network`) instead of being built again.
            _NETWORKS.setdefault(str(init_path(cfg)), base)
            learner = copy.deepcopy(base).to(device)  # load_model caches: train a copy
            opt = torch.optim.Adam(learner.parameters(), lr=cfg.lr)
            state = {
                "format": CHECKPOINT_FORMAT,
                "config": dataclasses.asdict(cfg),
                "generation": 0,
                "generator": 0,
                "learner": None,
                "window": [],
                "samples": 0,
                "wall_s": 0.0,
                "rows": [],
            }
            prior_wall = 0.0
            log(f"start from {init_path(cfg)}; the learner trains on {device_name(device)}")
            row0 = {
                "generation": 0,
                "samples": 0,
                "total_samples": 0,
                "policy_loss": None,
                "value_loss": None,
                "gate": None,
                "generator": 0,
                "eval": evaluate(0),
            }
            _commit(state, row0, learner, opt, ck, prior_wall + time.time() - t0, cfg)
            tb.row(state["rows"][-1])
        else:
            _remove_temps(out, cfg)
            prior_wall = float(state["wall_s"])
            try:
                learner = copy.deepcopy(load_model(gen_file(int(state["generator"]))))
                learner = learner.to(device)
                opt = torch.optim.Adam(learner.parameters(), lr=cfg.lr)
                load_learner(ck / state["learner"], learner, opt)
            except Exception as e:  # noqa: BLE001 - any failure means an unusable checkpoint
                msg = str(e).splitlines()[0] if str(e) else ""
                raise SystemExit(
                    f"error: {ck / 'state.json'}: can't resume from it ({type(e).__name__}: {msg})"
                ) from None
            log(f"resumed from {ck / 'state.json'} at generation {state['generation']}")
        _publish(out, state, cfg, device, anchor)
        for generation in range(int(state["generation"]) + 1, cfg.generations + 1):
            generator = int(state["generator"])
            pairs = deck_names(cfg, cfg.games, stream_seed(cfg.seed, "decks", generation))
            jobs = [
                (cfg, str(gen_file(generator)), generation, k, pairs[k]) for k in range(cfg.games)
            ]
            games = run_jobs(selfplay_game, jobs, f"self-play {generation}")
            data, n = samples_bytes(games, generation)
            name = f"samples_g{generation:03d}.safetensors"
            write_bytes(ck / name, data)
            window = (state["window"] + [name])[-cfg.window :]
            draws = sum(1 for x in games if x["draw"])
            log(
                f"generation {generation}: {cfg.games} self-play games ({draws} draws), {n} samples"
            )
            losses = train(learner, opt, load_window([ck / w for w in window]), cfg, generation)
            log(
                f"trained on {len(window)} generation(s): policy loss "
                f"{losses['policy_loss']:.4f}, value loss {losses['value_loss']:.4f}"
            )
            write_bytes(gen_file(generation), policy_bytes(learner))
            n_pairs = (cfg.gate_games + 1) // 2
            gate = match(
                (str(gen_file(generation)), cfg.gate_search),
                (str(gen_file(generator)), cfg.gate_search),
                deck_names(cfg, n_pairs, stream_seed(cfg.seed, "gate-decks", generation)),
                [stream_seed(cfg.seed, "gate", generation, k) for k in range(n_pairs)],
                f"gate {generation}",
            )
            gate["passed"] = gate["score"] >= cfg.gate_score
            gate["against"] = generator
            log(
                f"gate: generation {generation} scored {gate['score']:.3f} "
                f"({gate['ci95'][0]:.3f}-{gate['ci95'][1]:.3f}) against generation "
                f"{generator}: {'promoted' if gate['passed'] else 'kept the generator'}"
            )
            if gate["passed"]:
                state["generator"] = generator = generation
                result = evaluate(generation)
            else:  # the same generator plays the same games: its result stands
                result = state["rows"][-1]["eval"]
            state["window"] = window
            row = {
                "generation": generation,
                "samples": n,
                "total_samples": int(state["samples"]) + n,
                "policy_loss": losses["policy_loss"],
                "value_loss": losses["value_loss"],
                "gate": gate,
                "generator": generator,
                "eval": result,
                "selfplay": {
                    "games": len(games),
                    "draws": draws,
                    "mean_decisions": round(float(np.mean([x["decisions"] for x in games])), 1),
                },
            }
            _commit(state, row, learner, opt, ck, prior_wall + time.time() - t0, cfg)
            _kill_point("after_checkpoint", generation)
            _publish(out, state, cfg, device, anchor)
            tb.row(state["rows"][-1])
    finally:
        tb.close()
        if pool is not None:
            pool.terminate()
            pool.join()
    log(
        f"done: {state['generation']} generations, {state['samples']} samples, generator "
        f"generation {state['generator']} -> {out / 'policy.safetensors'}"
    )
    print(
        json.dumps(
            {
                "generations": state["generation"],
                "generator": state["generator"],
                "samples": state["samples"],
                "policy": str(out / "policy.safetensors"),
            }
        )
    )
    return 0


def _commit(
    state: dict[str, Any],
    row: dict[str, Any],
    learner: Any,
    opt: Any,
    ck: Path,
    wall_s: float,
    cfg: Config,
) -> None:
    """Close a generation: the learner's file (named by its generation, so the previous
    checkpoint stays whole until this one is), then state.json, which names it and the
    window's sample files (the commit point: written atomically, last), then the files
    no checkpoint names any more."""
    generation = int(row["generation"])
    learner_name = f"learner_g{generation:03d}.safetensors"
    write_bytes(ck / learner_name, learner_bytes(learner, opt))
    row["wall_hours"] = round(wall_s / 3600, 5)
    state["rows"] = [*state["rows"], _finite(row)]
    state["generation"] = generation
    state["learner"] = learner_name
    state["samples"] = int(row["total_samples"])
    state["wall_s"] = round(wall_s, 1)
    # Every stream is derived from the run's seed, the generation and the game (stream_seed):
    # these are the next generation's, for a reader; a resume derives them again.
    nxt = generation + 1
    state["seeds"] = {
        "seed": cfg.seed,
        "next_generation": nxt,
        "decks": stream_seed(cfg.seed, "decks", nxt),
        "train": stream_seed(cfg.seed, "train", nxt),
        "order": stream_seed(cfg.seed, "order", nxt),
    }
    write_json(ck / "state.json", state)
    keep = {"state.json", learner_name, *state["window"]}
    for f in ck.glob("*_g[0-9]*.safetensors"):
        if f.name not in keep:
            f.unlink(missing_ok=True)


def _publish(
    out: Path,
    state: dict[str, Any],
    cfg: Config,
    device: Any,
    anchor: float | None,
) -> None:
    """The outputs, all derived from the committed state (so a resume rewrites them as an
    uninterrupted run left them): the generator's policy file, the curve, the model card."""
    import torch

    rows = state["rows"]
    generator = int(state["generator"])
    gen_path = out / "generations" / f"gen_{generator:03d}.safetensors"
    write_bytes(out / "policy.safetensors", gen_path.read_bytes())
    write_text(out / "curve.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    write_bytes(out / "curve.png", plot_curve(rows, anchor))
    card = {
        "recipe": "scripts/train_expert.py",
        "algorithm": (
            "expert iteration: self-play of the net-guided search (agents.puct, "
            f"{cfg.search_iterations} iterations per decision), the network trained toward "
            "the root's visit distributions and the games' outcomes, a gate against the "
            "generator"
        ),
        "policy": str(out / "policy.safetensors"),
        "init": cfg.init,
        "config": dataclasses.asdict(cfg),
        "device": device_name(device),  # what `device` resolved to, in this session
        "hardware": {
            "machine": platform.machine(),
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
            "torch_threads": cfg.torch_threads,
            "workers": cfg.workers,
            "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        },
        "wall_time_s": state["wall_s"],
        "generations": state["generation"],
        "finished": state["generation"] >= cfg.generations,
        "generator_generation": generator,
        "samples": state["samples"],
        "gates": [dict(r["gate"], generation=r["generation"]) for r in rows if r["gate"]],
        "evaluations": [dict(r["eval"], generation=r["generation"]) for r in rows],
        "rating_estimate": (
            "an estimate from one opponent: the heuristic's pinned anchor rating "
            f"({anchor}) + 400 * log10(p / (1 - p)), p the score against it clamped half a "
            "game inside (0, 1); `mtg-env evaluate` rates against every anchor"
        ),
    }
    write_json(out / "model_card.json", _finite(card))


if __name__ == "__main__":
    raise SystemExit(main())
