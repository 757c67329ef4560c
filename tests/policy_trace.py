"""A policy's actions along fixed seeded games: the record that proves a policy file plays
exactly as another (tests/data/default_policy_trace.json was made with the shipped default
before its file format changed)."""

from __future__ import annotations

from typing import Any

GAMES = 12  # games against the heuristic, seats alternating, every deck pair cycled


def policy_trace(model: Any, games: int = GAMES) -> dict[str, Any]:
    """Per game: the policy's chosen action index at each of its decisions (a different
    action changes the rest of the game, so equal lists mean equal play on every state
    reached) and the final state hash."""
    from agents.heuristic import HeuristicAgent
    from agents.match import deck_pairs
    from agents.policy import PolicyAgent
    from mtg_env.engine import Game

    agent = PolicyAgent(model, fmt="classic")
    out = []
    for i, (da, db) in enumerate(deck_pairs("classic", None, games, seed=11)):
        seat = i % 2
        g = Game.new((da, db), seed=1000 + i, format="classic", max_decisions=3000)
        other = HeuristicAgent(i)
        chosen: list[int] = []
        while not g.is_over:
            p = g.current_player
            if p == seat:
                obs = agent.layout.observe(g, p)
                mask, amap, _ = agent.layout.mask_and_map(g, p)
                k = agent.act(obs, mask)
                chosen.append(int(k))
                g.apply(amap[k])
            else:
                g.apply(other.choose(g))
        out.append({"seed": 1000 + i, "seat": seat, "actions": chosen, "hash": g.state_hash()})
    return {"games": out}
