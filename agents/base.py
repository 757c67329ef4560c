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
from .policy import DEFAULT, PolicyAgent, RLlibPolicyAgent, file_format, load_model, wrong_format
from .puct import PUCTAgent
from .random_agent import RandomAgent
from .registry import AgentKind, Budget, find, kinds, register


@runtime_checkable
class Agent(Protocol):
    """An agent picks a legal action: `act` from the env's observation and mask (an
    index), `choose` from the engine state (an engine Action). `info` from the env holds
    the engine `game` (search agents use `game.resample_hidden`) and the acting `seat`.

    What it can do is declared, never probed: `needs_observation` (its `act` reads the
    observation; without it an env passes None), `decides_from_engine` (its `act` is
    `choose(game)` mapped to an index, so an env may call `choose` and build no
    observation or mask), `budget` (a search agent's `Budget`, else None) and `fallbacks`
    (how many of its replies were not legal and were replaced by a random legal action).
    `reset()` runs before each game."""

    @property
    def needs_observation(self) -> bool: ...

    @property
    def decides_from_engine(self) -> bool: ...

    @property
    def budget(self) -> Budget | None: ...

    @property
    def fallbacks(self) -> int: ...

    def reset(self) -> None: ...

    def act(self, observation: Any, mask: np.ndarray, info: dict[str, Any]) -> int: ...

    def choose(self, game: Game) -> Action: ...


def _random(spec: str, seed: int, fmt: str | None) -> Agent:
    return RandomAgent(seed)


def _heuristic(spec: str, seed: int, fmt: str | None) -> Agent:
    return HeuristicAgent(seed)


def _ismcts(spec: str, seed: int, fmt: str | None) -> Agent:
    search, plus, guide = spec.partition("+")
    if not plus:
        return parse_spec(spec, seed)
    # ismcts:BUDGET+policy:PATH: the search guided by the policy's priors and values.
    if not guide.startswith("policy:") or guide.startswith("policy:rllib:"):
        raise ValueError(
            f"agent spec {spec!r}: a search is guided by a policy file (e.g. ismcts:64+policy:PATH)"
        )
    plain = parse_spec(search, seed)
    return PUCTAgent(
        _policy(guide, seed, fmt), iterations=plain.iterations, seconds=plain.seconds, seed=seed
    )


def _policy(spec: str, seed: int, fmt: str | None) -> Agent:
    path = spec.split(":", 1)[1] if ":" in spec else "default"
    kw = {"fmt": fmt} if fmt is not None else {}
    if path.startswith("rllib:"):
        return RLlibPolicyAgent(path[len("rllib:") :], **kw)
    # The file's header says which format it plays: a wrong one is refused before PyTorch
    # and the network load (PolicyAgent checks again, for a model given directly).
    name = "policy:default" if path == "default" else path
    refusal = wrong_format(
        name, file_format(DEFAULT if path == "default" else path), fmt or "classic"
    )
    if refusal is not None:
        raise refusal
    if path == "default":
        return PolicyAgent(load_model(DEFAULT), name="policy:default", **kw)
    return PolicyAgent.from_path(path, **kw)


for _kind in (
    AgentKind("random", ("random",), _random, "uniformly random legal play"),
    AgentKind("heuristic", ("heuristic",), _heuristic, "hand-written rules by card role"),
    AgentKind(
        "ismcts",
        ("ismcts", "ismcts:ITERATIONS", "ismcts:SECONDSs", "ismcts:ITERATIONS+policy:PATH"),
        _ismcts,
        "search (with +policy: guided by a policy's priors and values)",
    ),
    AgentKind(
        "policy",
        ("policy:PATH", "policy:default", "policy:rllib:PATH"),
        _policy,
        "a trained policy file",
    ),
):
    register(_kind)

PLUGIN_FORMS = ("MODULE:ATTR", "FILE.py:ATTR", "text:MODULE:ATTR")


def agent_specs() -> tuple[str, ...]:
    """Every spec form: the registered kinds' (built in and installed), then plug-ins'."""
    return tuple(f for k in kinds().values() for f in k.forms) + PLUGIN_FORMS


def make_agent(spec: str, seed: int = 0, fmt: str | None = None) -> Agent:
    """Build an agent from a spec string (the specs every command accepts): the kind its
    first word names (agents.registry), or a plug-in for another spec with a colon
    (`agents.plugin`: it imports and runs the named module or file). `fmt` is the rules
    format it will play: a policy trained for another format is refused in one line
    (engine agents play every format)."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string, not {type(spec).__name__}")
    kind = find(spec.split(":", 1)[0])
    if kind is not None:
        agent: Agent = kind.build(spec, seed, fmt)
        return agent
    if is_plugin_spec(spec):
        return guard(load_plugin(spec, seed, fmt), spec)
    raise ValueError(f"unknown agent spec {spec!r} (known: {', '.join(agent_specs())})")
