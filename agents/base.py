"""The agent protocol and agent specs ("random", ...).

An agent is any object with `choose(game) -> Action`: given the engine `Game` whose
`current_player` is to act, it returns one of `game.legal_actions()`. That is all the
engine-level commands (match, tournament, evaluate, heldout) call, plus `reset()` before
each game when the agent has one. Agents used through the env (the PettingZoo API) also
implement `act(observation, mask, info) -> int`. Built-in agents are named by specs;
a user's own agent is a plug-in spec (`module:attr`, `file.py:attr`, `text:module:attr`;
see `agents.plugin`), which runs the named Python code.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from mtg_env.engine import Action, Game

from .heuristic import HeuristicAgent
from .ismcts import parse_spec
from .plugin import guard, is_plugin_spec, load_plugin
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
    "MODULE:ATTR",
    "FILE.py:ATTR",
    "text:MODULE:ATTR",
)


def make_agent(spec: str, seed: int = 0, fmt: str | None = None) -> Agent:
    """Build an agent from a spec string (the specs every command accepts). `fmt` is the
    rules format it will play: a policy trained for another format is refused in one line
    (engine agents play every format). Any other spec with a colon is a plug-in
    (`agents.plugin`: it imports and runs the named module or file)."""
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
    if is_plugin_spec(spec):
        return guard(load_plugin(spec, seed, fmt), spec)
    raise ValueError(f"unknown agent spec {spec!r} (known: {', '.join(AGENT_SPECS)})")
