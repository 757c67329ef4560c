"""The agent protocol and agent specs ("random", ...)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from mtg_env.engine import Action, Game

from .heuristic import HeuristicAgent
from .ismcts import parse_spec
from .policy import DEFAULT, PolicyAgent, RLlibPolicyAgent, load_model
from .random_agent import RandomAgent


@runtime_checkable
class Agent(Protocol):
    """An agent picks a legal action: `act` from the env's observation and mask (an
    index), `choose` from the engine state (an engine Action). `info` from the env holds
    the engine `game` (search agents use `game.resample_hidden`) and the acting `seat`."""

    def act(self, observation: Any, mask: np.ndarray, info: dict[str, Any]) -> int: ...

    def choose(self, game: Game) -> Action: ...


AGENT_SPECS = (
    "random",
    "heuristic",
    "ismcts",
    "ismcts:ITERATIONS",
    "policy:PATH",
    "policy:default",
    "policy:rllib:PATH",
)


def make_agent(spec: str, seed: int = 0, fmt: str | None = None) -> Agent:
    """Build an agent from a spec string (the specs every command accepts). `fmt` is the
    rules format it will play: a policy trained for another format is refused in one line
    (engine agents play every format)."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string, not {type(spec).__name__}")
    name = spec.split(":", 1)[0].strip().lower()
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent(seed)
    if name == "ismcts":
        return parse_spec(spec, seed)
    if name == "policy":
        path = spec.split(":", 1)[1] if ":" in spec else "default"
        kw = {"fmt": fmt} if fmt is not None else {}
        if path.startswith("rllib:"):
            return RLlibPolicyAgent(path[len("rllib:") :], **kw)
        if path == "default":
            return PolicyAgent(load_model(DEFAULT), name="policy:default", **kw)
        return PolicyAgent.from_path(path, **kw)
    raise ValueError(f"unknown agent spec {spec!r} (known: {', '.join(AGENT_SPECS)})")
