"""The agent protocol and agent specs ("random", ...)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mtg_env.engine import Action, Game


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action for the game's current decision."""

    def choose(self, game: Game) -> Action: ...


AGENT_SPECS = ("random",)


def make_agent(spec: str, seed: int = 0) -> Agent:
    """Build an agent from a spec string (the specs every command accepts)."""
    from .random_agent import RandomAgent

    name = spec.split(":", 1)[0].strip().lower()
    if name == "random":
        return RandomAgent(seed)
    raise ValueError(f"unknown agent spec {spec!r} (known: {', '.join(AGENT_SPECS)})")
