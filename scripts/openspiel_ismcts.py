"""OpenSpiel's own IS-MCTS bot (open_spiel.python.algorithms.ismcts, random rollouts)
against uniform random play on `python_mtg_duel`, seats alternating, one result file.

    python scripts/openspiel_ismcts.py --games 20 --simulations 16 --out runs/os_ismcts.json

Needs the `openspiel` extra. The result (wins, draws, a Wilson interval, seconds per game
and per decision of the bot) is what docs/openspiel.md reports.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import asdict, dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import mtg_env.openspiel  # noqa: F401 - registers python_mtg_duel
from agents.match import wilson
from mtg_env.io import check_writable, write_json


@dataclass(frozen=True)
class Config:
    games: int = 20
    simulations: int = 16  # IS-MCTS simulations per decision
    uct_c: float = 2.0
    format: str = "classic"
    max_decisions: int = 3000  # a game that reaches it is a draw
    seed: int = 0


def play(cfg: Config) -> dict:
    game = pyspiel.load_game(
        "python_mtg_duel",
        {"format": cfg.format, "seed": cfg.seed, "max_decisions": cfg.max_decisions},
    )
    wins = draws = bot_decisions = 0
    bot_seconds = 0.0
    t0 = time.perf_counter()
    for i in range(cfg.games):
        seat = i % 2
        ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(i))
        bot = ismcts.ISMCTSBot(
            game,
            ev,
            uct_c=cfg.uct_c,
            max_simulations=cfg.simulations,
            random_state=np.random.RandomState(cfg.seed * 1000 + i),
        )
        rng = random.Random(cfg.seed * 1000 + i)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == seat:
                t = time.perf_counter()
                a = bot.step(state)
                bot_seconds += time.perf_counter() - t
                bot_decisions += 1
            else:
                a = rng.choice(state.legal_actions())
            state.apply_action(a)
        r = state.returns()[seat]
        wins += r > 0
        draws += r == 0
        print(f"game {i + 1}/{cfg.games}: bot in seat {seat}, return {r:+.0f}", flush=True)
    lo, hi = wilson(wins + 0.5 * draws, cfg.games)
    return {
        "config": asdict(cfg),
        "opponent": "uniform random",
        "wins": wins,
        "draws": draws,
        "games": cfg.games,
        "score": (wins + 0.5 * draws) / cfg.games,
        "score_interval_95": [lo, hi],
        "seconds_per_game": (time.perf_counter() - t0) / cfg.games,
        "bot_seconds_per_decision": bot_seconds / max(bot_decisions, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    d = Config()
    ap.add_argument("--games", type=int, default=d.games)
    ap.add_argument("--simulations", type=int, default=d.simulations)
    ap.add_argument("--format", default=d.format)
    ap.add_argument("--max-decisions", type=int, default=d.max_decisions)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--out", required=True, help="the result file (JSON)")
    args = ap.parse_args(argv)
    for name in ("games", "simulations", "max_decisions"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    out = check_writable(args.out)
    cfg = Config(
        games=args.games,
        simulations=args.simulations,
        format=args.format,
        max_decisions=args.max_decisions,
        seed=args.seed,
    )
    res = play(cfg)
    write_json(out, res)
    print(
        f"IS-MCTS ({cfg.simulations} simulations) vs random: score {res['score']:.2f} "
        f"[{res['score_interval_95'][0]:.2f}, {res['score_interval_95'][1]:.2f}] over "
        f"{cfg.games} games, {res['bot_seconds_per_decision'] * 1000:.0f} ms per bot decision"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
