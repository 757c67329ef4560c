"""Throughput figures for `mtg-env bench` (and `make bench`).

Every figure is random legal play, seeded, measured for a wall-clock budget:

- `engine`: `Game.legal_actions()` + `apply()` alone (decisions/s, games/s);
- `raw_env`: `mtg_env.raw_env` with the observation and the mask of the acting agent
  computed every step (the PettingZoo `agent_iter` loop);
- `env`: the same loop through the standard wrappers (`mtg_env.env`);
- `selfplay`: `SelfPlay-v0` steps with a random opponent moving inside `step`;
- `clone` / `resample_hidden`: per second, on states sampled along random games;
- `memory`: peak Python allocation (tracemalloc) while one `raw_env` is built and plays
  one game, after the shared card tables are loaded;
- `vector`: `mtg_env.vector.DuelBatch` stepping 64 games per call in self-play mode (an
  observation and a mask for the acting seat of every game, written into batch arrays),
  next to 64 separate `raw_env`s stepped one after another in a Python loop with the same
  random legal play, and their ratio (`vector_ratio`); `vector_v1` the same with the v1
  entity observation; with more than one CPU, `vector_parallel_*` is the batch shared
  among one worker process per CPU (at most 8) against the same 64 raw_envs;
- `ppo`: MaskablePPO on `SelfPlay-v0` with the default training config's vector env and
  network for a few rollouts: steps/s and the share of wall time spent inside the env;
- `chess` (optional): PettingZoo's chess `raw_env` in the same process with the same loop,
  and the ratio of `raw_env` to it;
- `engine_build` / `pure` / `compiled_vs_pure_ratio`: which engine ran the figures above
  (`compiled`, the mypyc build, or `pure` Python; docs/compiling.md), and, when it was the
  compiled one, the engine, clone and raw_env figures of the pure build (engine and
  observation encoders) measured in a child process (`MTG_ENV_PURE=1`) in the same run,
  with compiled / pure for each.

Absolute numbers drift on shared machines by tens of percent within minutes; ratios are
therefore measured in paired rounds (`rounds`, 3 by default): the two sides alternate, each
for a third of the budget, and a ratio is the median of the rounds' ratios (the rounds'
figures are in the JSON, `*_rounds`).

Decisions are what an agent is asked: with `auto_pass` (the default) priority windows in
which passing is the only legal action are not counted, as in the env.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Game, build, load_cards, load_decks
from ..engine.formats import FORMATS as _FORMATS
from ..env import SelfPlayEnv, env, raw_env
from ..vector import DuelBatch, ParallelDuelBatch

FORMATS = tuple(_FORMATS)


def _decks(fmt: str) -> list[Any]:
    decks = load_decks(fmt)
    return [decks[k] for k in sorted(decks)]


def _timed(seconds: float, body: Callable[[], int]) -> tuple[int, float]:
    """Run `body` (returns units done) until `seconds` pass; (units, elapsed)."""
    n = 0
    t0 = time.perf_counter()
    while True:
        n += body()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n, dt


def bench_engine(fmt: str, seconds: float) -> dict[str, float]:
    decks = _decks(fmt)
    state = {"i": 0, "games": 0, "turns": 0}

    def game() -> int:
        i = state["i"]
        state["i"] += 1
        g = Game.new((decks[i % len(decks)], decks[(i + 1) % len(decks)]), seed=i, format=fmt)
        r = random.Random(i)
        n = 0
        while not g.is_over:
            g.apply(r.choice(g.legal_actions()))
            n += 1
        state["games"] += 1
        state["turns"] += g.turn
        return n

    n, dt = _timed(seconds, game)
    return {
        "decisions_per_s": n / dt,
        "games_per_s": state["games"] / dt,
        "decisions_per_game": n / max(state["games"], 1),
        "turns_per_game": state["turns"] / max(state["games"], 1),
    }


def aec_game(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One game of uniformly random legal play in a PettingZoo AEC env (ours or chess),
    reset with `seed`; returns the moves made."""
    env.reset(seed=seed)
    n = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return n


def _aec_loop(env: Any, seconds: float) -> dict[str, float]:
    rng = np.random.default_rng(0)
    state = {"seed": 0, "games": 0}

    def game() -> int:
        n = aec_game(env, rng, state["seed"])
        state["seed"] += 1
        state["games"] += 1
        return n

    n, dt = _timed(seconds, game)
    return {"steps_per_s": n / dt, "games_per_s": state["games"] / dt}


def bench_raw_env(fmt: str, seconds: float, obs_type: str = "flat") -> dict[str, float]:
    return _aec_loop(raw_env(format=fmt, obs_type=obs_type), seconds)


def bench_vector(
    fmt: str, seconds: float, n: int = 64, obs_type: str = "flat", workers: int = 1
) -> dict[str, float]:
    """`n` games in one `DuelBatch` against `n` separate `raw_env`s, in the same process;
    with `workers` > 1 also the batch shared among that many worker processes."""
    rng = np.random.default_rng(0)

    def batch_rate(batch: Any) -> float:
        batch.reset(seed=0)

        def batch_round() -> int:
            # One uniformly random legal index per game: the largest noise on a legal entry.
            batch.step(np.argmax(rng.random(batch.masks.shape) * batch.masks, axis=1))
            return n

        done, dt = _timed(seconds, batch_round)
        return done / dt

    vector = batch_rate(DuelBatch(n, fmt, obs_type=obs_type))
    envs = [raw_env(format=fmt, obs_type=obs_type) for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=i)

    def separate_round() -> int:
        steps = 0
        for e in envs:
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.reset()
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        return steps

    sn, sdt = _timed(seconds, separate_round)
    separate = sn / sdt
    out = {
        "n": n,
        "vector_steps_per_s": vector,
        "separate_raw_env_steps_per_s": separate,
        "vector_ratio": vector / separate,
    }
    if workers > 1:
        par = ParallelDuelBatch(n, fmt, obs_type=obs_type, workers=workers)
        try:
            parallel = batch_rate(par)
        finally:
            par.close()
        out.update(
            workers=workers,
            vector_parallel_steps_per_s=parallel,
            vector_parallel_ratio=parallel / separate,
        )
    return out


def bench_obs_bytes(fmt: str) -> dict[str, int]:
    """Bytes of one observation (every array, the action mask included) for v0 and v1."""
    out = {}
    for version, obs_type in (("v0", "flat"), ("v1", "entity")):
        e = raw_env(format=fmt, obs_type=obs_type)
        e.reset(seed=0)
        out[version] = sum(int(v.nbytes) for v in e.observe(e.agent_selection).values())
    return out


def bench_observe(fmt: str, seconds: float) -> dict[str, float]:
    """Microseconds of one observation with its legal moves, as the PettingZoo env builds
    them for the acting seat (v0: the mask and the vector; v1: the candidates and the
    tables), over the states of seeded random games. Both are timed on the same state one
    after the other in a shuffled order, so that they share the machine's weather. The
    engine's own work for the state (its characteristics and legal actions) is done untimed
    first, so that neither pays it for the other; what each encoder derives and keeps from
    the characteristics, it computes in its own timed call, as it does in an env."""
    from ..env.observers import EntityObserver, FlatObserver
    from ..env.replay import layout_for

    layout = layout_for(fmt)
    flat, entity = FlatObserver(layout), EntityObserver(layout)
    decks = _decks(fmt)
    clock = time.perf_counter
    spent = {"v0": 0.0, "v1": 0.0}
    ways: list[tuple[str, Any]] = [("v0", flat), ("v1", entity)]
    n = i = 0
    start = clock()
    while clock() - start < seconds:
        g = Game.new((decks[i % len(decks)], decks[(i + 1) % len(decks)]), seed=i, format=fmt)
        r = random.Random(i)
        while not g.is_over:
            seat = g.current_player
            assert seat is not None
            g.chars_of(g.battlefield)  # the engine's work, untimed (not the encoders')
            g.legal_actions()
            r.shuffle(ways)
            for key, observer in ways:
                t = clock()
                observer.aec_observation(g, seat, observer.legal(g, seat))
                spent[key] += clock() - t
            n += 1
            g.apply(r.choice(g.legal_actions()))
        i += 1
    return {
        "v0_us": spent["v0"] / n * 1e6,
        "v1_us": spent["v1"] / n * 1e6,
        "v1_vs_v0_ratio": spent["v1"] / spent["v0"],
        "states": float(n),
    }


def bench_wrapped_env(fmt: str, seconds: float) -> dict[str, float]:
    return _aec_loop(env(format=fmt), seconds)


def bench_selfplay(fmt: str, seconds: float) -> dict[str, float]:
    e = SelfPlayEnv(format=fmt, opponent="random")
    rng = np.random.default_rng(0)
    state = {"seed": 0, "games": 0}

    def episode() -> int:
        e.reset(seed=state["seed"])
        state["seed"] += 1
        n = 0
        while True:
            a = int(rng.choice(np.flatnonzero(e.action_masks())))
            _, _, term, trunc, _ = e.step(a)
            n += 1
            if term or trunc:
                break
        state["games"] += 1
        return n

    n, dt = _timed(seconds, episode)
    return {"steps_per_s": n / dt, "games_per_s": state["games"] / dt}


def _sample_states(fmt: str, n: int) -> list[Game]:
    """States spread along seeded random games (every 7th decision)."""
    decks = _decks(fmt)
    out: list[Game] = []
    i = 0
    while len(out) < n:
        g = Game.new((decks[i % len(decks)], decks[(i + 1) % len(decks)]), seed=i, format=fmt)
        r = random.Random(i)
        k = 0
        while not g.is_over and len(out) < n:
            if k % 7 == 3:
                out.append(g.clone())
            g.apply(r.choice(g.legal_actions()))
            k += 1
        i += 1
    return out


def bench_clone(fmt: str, seconds: float) -> dict[str, float]:
    states = _sample_states(fmt, 200)

    def clones() -> int:
        for g in states:
            g.clone()
        return len(states)

    def resamples() -> int:
        for j, g in enumerate(states):
            seat = g.current_player
            g.resample_hidden(0 if seat is None else seat, j)
        return len(states)

    n1, dt1 = _timed(seconds / 2, clones)
    n2, dt2 = _timed(seconds / 2, resamples)
    return {"clone_per_s": n1 / dt1, "resample_hidden_per_s": n2 / dt2}


def bench_memory(fmt: str) -> dict[str, float]:
    load_cards(fmt)
    _decks(fmt)
    raw_env(format=fmt).reset(seed=0)  # shared tables (layout, card data) loaded once
    tracemalloc.start()
    try:
        env = raw_env(format=fmt)
        _aec_loop(env, 0.0)  # one game
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"peak_mib_per_env": peak / 2**20}


# The default training config's settings that decide throughput (used when the repository's
# configs/train/ppo_default.yaml is not at hand, e.g. in an installed package).
_PPO_DEFAULTS = {
    "n_envs": 16,
    "vec_env": "dummy",
    "torch_threads": 2,
    "n_steps": 128,
    "batch_size": 512,
    "n_epochs": 4,
    "entity_dim": 24,
    "net_arch": [256],
    "max_decisions": 2000,
}


def _config_settings(name: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """`defaults`, with the values of the repository's configs/train/NAME where it is at
    hand (an installed package has no configs/)."""
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[2] / "configs" / "train" / name
    cfg = dict(defaults)
    if path.exists():
        raw = yaml.safe_load(path.read_text()) or {}
        cfg.update({k: raw[k] for k in defaults if k in raw})
    return cfg


def _ppo_settings() -> dict[str, Any]:
    return _config_settings("ppo_default.yaml", _PPO_DEFAULTS)


def bench_ppo(
    fmt: str, rollouts: int = 10, *, n_envs: int | None = None, n_steps: int | None = None
) -> dict[str, float]:
    """MaskablePPO with the default config's vector env and network; the env's share is
    the time spent inside `SelfPlayEnv.step`/`reset` (opponent moves included), with the
    opponent agent's own decision time also reported apart. `n_envs` and `n_steps` replace
    the config's (a smaller rollout, for a quick check of the figures' shape)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    # The training stack (torch, sb3) is an extra: imported only for this figure.
    from agents.policy import quiet_logger

    from ..nets import EntityExtractor, SlotPolicy

    cfg = _ppo_settings()
    cfg["n_envs"] = n_envs or cfg["n_envs"]
    cfg["n_steps"] = n_steps or cfg["n_steps"]
    spent = [0.0]

    class Timed(SelfPlayEnv):
        def step(self, action: Any) -> Any:
            t = time.perf_counter()
            try:
                return super().step(action)
            finally:
                spent[0] += time.perf_counter() - t

        def reset(self, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return super().reset(**kw)
            finally:
                spent[0] += time.perf_counter() - t

    def make(rank: int) -> Callable[[], SelfPlayEnv]:
        def _init() -> SelfPlayEnv:
            e = Timed(
                format=fmt,
                opponent="heuristic",
                max_decisions=cfg["max_decisions"],
                replay_hashes=False,  # as scripts/train_ppo.py
            )
            e.reset(seed=rank)
            return e

        return _init

    torch.set_num_threads(max(1, cfg["torch_threads"]))
    # In-process envs, so that the time inside them can be measured; the default config
    # trains this way too (vec_env: dummy).
    venv = DummyVecEnv([make(i) for i in range(cfg["n_envs"])])
    model = MaskablePPO(
        SlotPolicy,
        venv,
        n_steps=cfg["n_steps"],
        batch_size=min(cfg["batch_size"], cfg["n_steps"] * cfg["n_envs"]),
        n_epochs=cfg["n_epochs"],
        device="cpu",
        seed=0,
        policy_kwargs={
            "features_extractor_class": EntityExtractor,
            "features_extractor_kwargs": {"format": fmt, "entity_dim": cfg["entity_dim"]},
            "format": fmt,
            "hidden": cfg["net_arch"][0],
        },
    )
    steps = rollouts * cfg["n_steps"] * cfg["n_envs"]
    spent[0] = 0.0
    for e in venv.envs:
        e.opponent_seconds = 0.0
    model.set_logger(quiet_logger())
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps)
    dt = time.perf_counter() - t0
    # The heuristic opponent decides inside `step`; its thinking is agent time, reported
    # apart so the env's own share (engine, observation, mask) can be read on its own.
    opp = sum(e.opponent_seconds for e in venv.envs)
    venv.close()
    return {
        "steps_per_s": model.num_timesteps / dt,
        "env_share": spent[0] / dt,
        "opponent_share": opp / dt,
        "env_share_without_opponent": (spent[0] - opp) / dt,
        "n_envs": cfg["n_envs"],
    }


# The v1 recipe's settings that decide throughput (scripts/train_entity.py's defaults; the
# repository's configs/train/entity_default.yaml overrides them where it is at hand).
_TRAIN_DEFAULTS: dict[str, Any] = {
    "n_envs": 16,
    "vec_env": "batch",
    "workers": 1,
    "torch_threads": 2,
    "n_steps": 128,
    "batch_size": 512,
    "n_epochs": 4,
    "hidden": 256,
    "entity_dim": 64,
    "card_embedding": 16,
    "p_heuristic": 0.8,
    "max_decisions": 2000,
}


def train_settings(**overrides: Any) -> dict[str, Any]:
    """The settings `bench_train` runs: the v1 recipe's, then `overrides` (None: keep)."""
    cfg = _config_settings("entity_default.yaml", _TRAIN_DEFAULTS)
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    return cfg


def bench_train(
    fmt: str, rollouts: int = 5, device: str = "auto", **overrides: Any
) -> dict[str, Any]:
    """The v1 training loop (scripts/train_entity.py's PPO stage: `CandidatePolicy` under
    MaskablePPO, the opponent pool, its vector env) for `rollouts` rollouts, timed end to
    end and split between collecting (stepping the games and the policy's inference) and
    learning (the PPO update). `overrides`: any of `train_settings`' keys."""
    import torch
    from sb3_contrib import MaskablePPO

    # The training stack is an extra: imported only for this figure.
    from agents.opponent_pool import pool_vec_env
    from agents.policy import quiet_logger
    from agents.train_fields import device_name, torch_device

    from ..entity_nets import CandidatePolicy

    cfg = train_settings(**overrides)
    dev = torch_device(device, "--device")
    n = cfg["n_envs"]
    venv = pool_vec_env(
        fmt,
        n,
        decks=None,
        p_heuristic=cfg["p_heuristic"],
        max_decisions=cfg["max_decisions"],
        seed=0,
        vec_env=cfg["vec_env"],
        workers=cfg["workers"],
    )

    class Timed(MaskablePPO):
        collect_s = train_s = 0.0
        updates = 0

        def collect_rollouts(self, *args: Any, **kwargs: Any) -> bool:
            t = time.perf_counter()
            try:
                return bool(super().collect_rollouts(*args, **kwargs))
            finally:
                self.collect_s += time.perf_counter() - t

        def train(self) -> None:
            t = time.perf_counter()
            try:
                super().train()
            finally:
                self.train_s += time.perf_counter() - t
                self.updates += 1

    threads = torch.get_num_threads()
    torch.set_num_threads(cfg["torch_threads"])
    try:
        model = Timed(
            CandidatePolicy,
            venv,
            n_steps=cfg["n_steps"],
            batch_size=cfg["batch_size"],
            n_epochs=cfg["n_epochs"],
            device=dev,
            seed=0,
            policy_kwargs={
                "format": fmt,
                "hidden": cfg["hidden"],
                "entity_dim": cfg["entity_dim"],
                "card_embedding": cfg["card_embedding"],
            },
        )
        model.set_logger(quiet_logger())
        t0 = time.perf_counter()
        model.learn(total_timesteps=rollouts * cfg["n_steps"] * n)
        dt = time.perf_counter() - t0
    finally:
        venv.close()
        torch.set_num_threads(threads)
    samples = model.updates * cfg["n_epochs"] * cfg["n_steps"] * n
    return {
        "steps_per_s": model.num_timesteps / dt,
        "collect_steps_per_s": model.num_timesteps / model.collect_s,
        "update_samples_per_s": samples / model.train_s if model.train_s else 0.0,
        "collect_share": model.collect_s / dt,
        "learn_share": model.train_s / dt,
        "steps": model.num_timesteps,
        "device": device_name(dev),
        **{k: cfg[k] for k in ("n_envs", "vec_env", "workers", "batch_size", "n_epochs")},
    }


def bench_chess(seconds: float) -> dict[str, float]:
    try:
        from pettingzoo.classic import chess_v6
    except Exception as e:  # noqa: BLE001 - chess and pygame are in the `bench` extra
        raise SystemExit(
            f"bench --chess needs PettingZoo's chess env (pip install -e '.[bench]'): {e}"
        ) from None
    return _aec_loop(chess_v6.raw_env(), seconds)


def build_figure(fmt: str, key: str, seconds: float) -> float:
    """One of the figures the builds are compared on, on whichever build this process runs."""
    if key == "decisions_per_s":
        return bench_engine(fmt, seconds)["decisions_per_s"]
    if key == "clone_per_s":
        return bench_clone(fmt, seconds)["clone_per_s"]
    if key == "raw_env_steps_per_s":
        return bench_raw_env(fmt, seconds)["steps_per_s"]
    raise ValueError(f"unknown figure {key!r}")


# The figures the compiled and the pure build are compared on (keys of `build_figures`).
BUILD_KEYS = ("decisions_per_s", "clone_per_s", "raw_env_steps_per_s")


def build_figures(fmt: str, seconds: float) -> dict[str, float]:
    """Decisions/s, clone/s and raw_env steps/s of whichever engine this process runs."""
    return {k: build_figure(fmt, k, seconds) for k in BUILD_KEYS}


class PureEngine:
    """A child process running the pure-Python engine (an engine is chosen once per
    process, when it is first imported) that measures one figure on request, so that each
    can be timed right after the compiled engine's in this process."""

    def __init__(self, seconds: float) -> None:
        cmd = [sys.executable, "-m", "mtg_env.tools.bench", "--serve", "--seconds", str(seconds)]
        self.proc = subprocess.Popen(
            cmd,
            env={**os.environ, "MTG_ENV_PURE": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def figure(self, fmt: str, key: str) -> float:
        value: float = self._ask(f"{fmt} {key}")
        return value

    def _ask(self, request: str) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read() if self.proc.stderr is not None else ""
            last = (err.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"the pure engine's figures failed: {last}")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def _median(xs: list[float]) -> float:
    return float(np.median(xs))


def paired_pure(formats: tuple[str, ...], seconds: float, rounds: int) -> dict[str, Any]:
    """The compiled engine (this process) and the pure one (a child) measured in
    alternating rounds of the `BUILD_KEYS` figures, `seconds / rounds` per figure per round:
    each ratio is the median of the rounds' ratios, so that a slow spell of a shared
    machine falls on both sides of a pair rather than on one build."""
    pure = PureEngine(seconds / rounds)
    per_round: dict[str, list[dict[str, dict[str, float]]]] = {f: [] for f in formats}
    try:
        for _ in range(rounds):
            for fmt in formats:
                # Each figure on both builds back to back, so that a pair is timed as
                # close together as it can be.
                ours: dict[str, float] = {}
                theirs: dict[str, float] = {}
                for k in BUILD_KEYS:
                    ours[k] = build_figure(fmt, k, seconds / rounds)
                    theirs[k] = pure.figure(fmt, k)
                per_round[fmt].append({"compiled": ours, "pure": theirs})
    finally:
        pure.close()
    keys = list(BUILD_KEYS)
    return {
        "compiled_vs_pure_rounds": per_round,
        "pure": {
            f: {k: _median([r["pure"][k] for r in rs]) for k in keys} for f, rs in per_round.items()
        },
        "compiled_paired": {
            f: {k: _median([r["compiled"][k] for r in rs]) for k in keys}
            for f, rs in per_round.items()
        },
        "compiled_vs_pure_ratio": {
            f: {k: _median([r["compiled"][k] / r["pure"][k] for r in rs]) for k in keys}
            for f, rs in per_round.items()
        },
    }


def paired_chess(formats: tuple[str, ...], seconds: float, rounds: int) -> dict[str, Any]:
    """PettingZoo chess and our raw_env (v0 and v1) in alternating rounds in this process;
    each ratio is the median of the rounds' ratios."""
    chess: list[float] = []
    ours: dict[str, dict[str, list[float]]] = {f: {"flat": [], "entity": []} for f in formats}
    s = seconds / rounds
    for _ in range(rounds):
        chess.append(bench_chess(s)["steps_per_s"])
        for fmt in formats:
            for obs in ("flat", "entity"):
                ours[fmt][obs].append(bench_raw_env(fmt, s, obs)["steps_per_s"])

    def ratio(xs: list[float]) -> float:
        return _median([x / c for x, c in zip(xs, chess)])

    return {
        "chess": {"steps_per_s": _median(chess), "rounds": chess},
        "raw_env_vs_chess": {f: ratio(o["flat"]) for f, o in ours.items()},
        "raw_env_v1_vs_chess": {f: ratio(o["entity"]) for f, o in ours.items()},
        "raw_env_vs_chess_rounds": ours,
    }


def run_all(
    seconds: float = 5.0,
    formats: tuple[str, ...] = FORMATS,
    chess: bool = False,
    ppo: bool = True,
    progress: Callable[[str], None] | None = None,
    ppo_rollouts: int = 10,
    vector: bool = True,
    pure: bool = True,
    rounds: int = 3,
    train: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every figure; `seconds` is the budget of each timed loop. With `pure` (and the
    compiled engine running here), the pure engine's figures too, and the ratios; ratios
    (compiled / pure, ours / chess) come from `rounds` alternating paired measurements."""
    say = progress or (lambda _m: None)
    out: dict[str, Any] = {
        "seconds_per_figure": seconds,
        "engine_build": build.engine_build(),
        "engine_build_note": build.WHY_PURE,
        "formats": {},
    }
    for fmt in formats:
        r: dict[str, Any] = {}
        say(f"{fmt}: engine")
        r["engine"] = bench_engine(fmt, seconds)
        say(f"{fmt}: raw_env")
        r["raw_env"] = bench_raw_env(fmt, seconds)
        say(f"{fmt}: raw_env v1 (entity observation)")
        r["raw_env_v1"] = bench_raw_env(fmt, seconds, "entity")
        r["obs_bytes"] = bench_obs_bytes(fmt)
        say(f"{fmt}: observation and legal moves, v0 and v1")
        r["observe"] = bench_observe(fmt, seconds)
        if vector:
            say(f"{fmt}: vector env (64 games per call) and 64 separate raw_envs")
            r["vector"] = bench_vector(fmt, seconds, workers=min(os.cpu_count() or 1, 8))
            say(f"{fmt}: vector env v1 and 64 separate raw_envs v1")
            r["vector_v1"] = bench_vector(fmt, seconds, obs_type="entity")
        say(f"{fmt}: env (wrapped)")
        r["env"] = bench_wrapped_env(fmt, seconds)
        say(f"{fmt}: SelfPlay-v0")
        r["selfplay"] = bench_selfplay(fmt, seconds)
        say(f"{fmt}: clone and resample_hidden")
        r["state"] = bench_clone(fmt, seconds)
        say(f"{fmt}: memory")
        r["memory"] = bench_memory(fmt)
        out["formats"][fmt] = r
    if pure and build.COMPILED:
        say("the pure-Python engine (a child process) and the compiled one, in paired rounds")
        out.update(paired_pure(formats, seconds, rounds))
    if ppo:
        say("MaskablePPO training")
        # Ten rollouts (about 20 s): three gave env shares 3 points apart run to run.
        out["ppo"] = bench_ppo(formats[0], rollouts=ppo_rollouts)
    if train is not None:
        say("the v1 training loop (collection and PPO updates)")
        out["train"] = bench_train(formats[0], **train)
    if chess:
        say("PettingZoo chess raw_env and ours, in paired rounds")
        out.update(paired_chess(formats, seconds, rounds))
    return out


def main(argv: list[str] | None = None) -> None:
    """`python -m mtg_env.tools.bench FORMAT...`: `build_figures` of each format as one JSON
    object on stdout; with `--serve`, one JSON line per request read from stdin, a format
    name and a figure's key (what `PureEngine` runs)."""
    ap = argparse.ArgumentParser(prog="python -m mtg_env.tools.bench")
    ap.add_argument("formats", nargs="*", help=f"any of {', '.join(FORMATS)}")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--serve", action="store_true")
    args = ap.parse_args(argv)
    if bad := sorted(set(args.formats) - set(FORMATS)):
        ap.error(f"unknown format {bad[0]!r} (known: {', '.join(FORMATS)})")
    if args.serve:
        # "FORMAT FIGURE" -> that figure.
        for line in sys.stdin:
            fmt, _, key = line.strip().partition(" ")
            print(json.dumps(build_figure(fmt, key, args.seconds)), flush=True)
        return
    print(json.dumps({fmt: build_figures(fmt, args.seconds) for fmt in args.formats}))


if __name__ == "__main__":
    main()
