"""`mtg-env bench`: the throughput figures of `mtg_env.tools.bench` as a table or JSON."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import clean, echo, fail, finite


@clean
def bench(
    seconds: Annotated[
        float,
        typer.Option(
            callback=lambda v: finite(v, "--seconds", 0.0, 3600.0),
            help="Budget of each timed loop (seconds, more than 0, at most 3600).",
        ),
    ] = 5.0,
    fmt: Annotated[
        str | None, typer.Option("--format", help="One format (default: every format).")
    ] = None,
    chess: Annotated[
        bool, typer.Option(help="Also run PettingZoo's chess raw_env and print the ratio.")
    ] = False,
    ppo: Annotated[bool, typer.Option(help="Include the MaskablePPO training figure.")] = True,
    ppo_rollouts: Annotated[
        int, typer.Option(min=1, help="Rollouts (16 x 128 steps each) of the PPO figure.")
    ] = 10,
    vector: Annotated[
        bool, typer.Option(help="Include the vector env against 64 separate raw_envs.")
    ] = True,
    pure: Annotated[
        bool,
        typer.Option(
            help="With the compiled engine: also measure the pure-Python engine (engine, "
            "clone, raw_env) in a child process and print compiled / pure."
        ),
    ] = True,
    rounds: Annotated[
        int,
        typer.Option(
            min=1,
            help="Paired rounds behind each ratio (compiled / pure, ours / chess): the two "
            "sides alternate and the ratio is the median of the rounds'.",
        ),
    ] = 3,
    train: Annotated[
        bool,
        typer.Option(
            help="Also time the v1 training loop (scripts/train_entity.py's PPO stage): "
            "end-to-end env steps/s, the update's samples/s, collecting against learning."
        ),
    ] = False,
    train_rollouts: Annotated[
        int, typer.Option(min=1, max=1000, help="Rollouts of the training figure.")
    ] = 5,
    train_envs: Annotated[
        int | None,
        typer.Option(min=1, max=256, help="Games per rollout step (default: the recipe's)."),
    ] = None,
    train_vec_env: Annotated[
        str | None,
        typer.Option(
            help="batch (a DuelVecEnv) or dummy (SB3's DummyVecEnv); default: the recipe's."
        ),
    ] = None,
    train_workers: Annotated[
        int | None,
        typer.Option(
            min=1, max=256, help="Processes stepping the batch's games (default: the recipe's)."
        ),
    ] = None,
    train_batch_size: Annotated[
        int | None,
        typer.Option(min=2, max=65536, help="PPO minibatch (default: the recipe's)."),
    ] = None,
    train_epochs: Annotated[
        int | None, typer.Option(min=1, max=100, help="PPO epochs (default: the recipe's).")
    ] = None,
    device: Annotated[
        str,
        typer.Option(help="Where the training figure's network runs: auto, cpu or cuda."),
    ] = "auto",
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Throughput: engine, raw_env, vector env, wrapped env, SelfPlay-v0, clone, memory, PPO;
    compiled and pure-Python engine side by side; with --train, the v1 training loop."""
    from rich.console import Console
    from rich.table import Table

    from ..tools.bench import FORMATS, run_all, train_settings

    if fmt is not None and fmt not in FORMATS:
        fail(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    train_opts = None
    if train:
        from agents.train_fields import torch_device

        if train_vec_env not in (None, "batch", "dummy"):
            fail(f"--train-vec-env: {train_vec_env!r} is not one of batch, dummy")
        over = {
            "n_envs": train_envs,
            "vec_env": train_vec_env,
            "workers": train_workers,
            "batch_size": train_batch_size,
            "n_epochs": train_epochs,
        }
        cfg = train_settings(**over)
        if cfg["vec_env"] == "dummy" and cfg["workers"] > 1:
            fail("--train-workers: workers step a batch; use --train-vec-env batch")
        if cfg["workers"] > cfg["n_envs"]:
            fail(f"--train-workers: more workers than games ({cfg['n_envs']})")
        if cfg["batch_size"] > cfg["n_steps"] * cfg["n_envs"]:
            fail(
                f"--train-batch-size: {cfg['batch_size']} is more than a rollout "
                f"({cfg['n_steps']} steps x {cfg['n_envs']} games)"
            )
        try:  # before any figure runs: "cuda" where PyTorch sees no GPU is one line
            torch_device(device, "--device")
        except SystemExit as e:
            fail(str(e).removeprefix("error: "))
        train_opts = {"rollouts": train_rollouts, "device": device, **over}
    err = Console(stderr=True)
    res = run_all(
        seconds=seconds,
        formats=(fmt,) if fmt else FORMATS,
        chess=chess,
        ppo=ppo,
        ppo_rollouts=ppo_rollouts,
        vector=vector,
        pure=pure,
        rounds=rounds,
        train=train_opts,
        progress=lambda m: err.print(f"[dim]bench: {m}...[/dim]"),
    )
    if json_out:
        echo(json.dumps(res))
        return
    note = res["engine_build_note"]
    build = res["engine_build"] + (f": {note}" if note else "")
    t = Table(title=f"mtg-env bench ({seconds:g} s per figure; engine: {build})")
    t.add_column("figure")
    for f in res["formats"]:
        t.add_column(f, justify="right")
    rows = [
        ("engine decisions/s", "engine", "decisions_per_s"),
        ("engine games/s", "engine", "games_per_s"),
        ("decisions per game (random play)", "engine", "decisions_per_game"),
        ("turns per game (random play)", "engine", "turns_per_game"),
        ("raw_env steps/s (obs + mask)", "raw_env", "steps_per_s"),
        ("raw_env v1 steps/s (entity obs)", "raw_env_v1", "steps_per_s"),
        ("observation bytes, v0", "obs_bytes", "v0"),
        ("observation bytes, v1", "obs_bytes", "v1"),
        ("v0 observation + mask, us", "observe", "v0_us"),
        ("v1 observation + candidates, us", "observe", "v1_us"),
        ("v1 / v0 observation cost", "observe", "v1_vs_v0_ratio"),
        ("env (wrapped) steps/s", "env", "steps_per_s"),
        ("SelfPlay-v0 steps/s", "selfplay", "steps_per_s"),
        ("clone()/s", "state", "clone_per_s"),
        ("resample_hidden()/s", "state", "resample_hidden_per_s"),
        ("peak MiB per env", "memory", "peak_mib_per_env"),
    ]
    if vector:
        rows[6:6] = [
            ("vector env steps/s (64 games per call)", "vector", "vector_steps_per_s"),
            ("64 separate raw_envs steps/s", "vector", "separate_raw_env_steps_per_s"),
            ("vector / separate raw_envs", "vector", "vector_ratio"),
            ("vector env steps/s, one worker per CPU", "vector", "vector_parallel_steps_per_s"),
            ("vector (workers) / separate raw_envs", "vector", "vector_parallel_ratio"),
            ("vector env v1 steps/s", "vector_v1", "vector_steps_per_s"),
            ("64 separate raw_envs v1 steps/s", "vector_v1", "separate_raw_env_steps_per_s"),
            ("vector v1 / separate raw_envs v1", "vector_v1", "vector_ratio"),
        ]
    for label, group, key in rows:
        if any(key not in r[group] for r in res["formats"].values()):
            continue  # the workers' figure on a one-CPU machine
        t.add_row(
            label,
            *(
                f"{r[group][key]:,.2f}" if key.endswith("ratio") else f"{r[group][key]:,.1f}"
                for r in res["formats"].values()
            ),
        )
    if "chess" in res:
        t.add_row("chess raw_env steps/s (median round)", f"{res['chess']['steps_per_s']:,.0f}")
        t.add_row("raw_env / chess", *(f"{x:.2f}x" for x in res["raw_env_vs_chess"].values()))
        t.add_row("raw_env v1 / chess", *(f"{x:.2f}x" for x in res["raw_env_v1_vs_chess"].values()))
    if "compiled_vs_pure_ratio" in res:
        for label, key in (
            ("engine decisions/s", "decisions_per_s"),
            ("clone()/s", "clone_per_s"),
            ("raw_env steps/s", "raw_env_steps_per_s"),
        ):
            t.add_row(
                f"compiled {label}, paired rounds",
                *(f"{p[key]:,.1f}" for p in res["compiled_paired"].values()),
            )
            t.add_row(f"pure-Python {label}", *(f"{p[key]:,.1f}" for p in res["pure"].values()))
            t.add_row(
                f"compiled / pure, {label}",
                *(f"{r[key]:.2f}x" for r in res["compiled_vs_pure_ratio"].values()),
            )
    Console().print(t)
    if "ppo" in res:
        p = res["ppo"]
        echo(
            f"MaskablePPO ({p['n_envs']} envs): {p['steps_per_s']:,.0f} steps/s, "
            f"env {100 * p['env_share']:.0f}% of wall time "
            f"(engine, observation and mask {100 * p['env_share_without_opponent']:.0f}%, "
            f"the heuristic opponent's decisions {100 * p['opponent_share']:.0f}%)"
        )
    if "train" in res:
        r = res["train"]
        workers = f", {r['workers']} workers" if r["workers"] > 1 else ""
        echo(
            f"v1 training loop ({r['n_envs']} games, {r['vec_env']}{workers}, {r['device']}): "
            f"{r['steps_per_s']:,.0f} env steps/s end to end; collecting "
            f"{r['collect_steps_per_s']:,.0f} steps/s ({100 * r['collect_share']:.0f}% of wall "
            f"time), the PPO update {r['update_samples_per_s']:,.0f} samples/s "
            f"({100 * r['learn_share']:.0f}%; minibatch {r['batch_size']}, "
            f"{r['n_epochs']} epochs)"
        )
