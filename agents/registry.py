"""The agent registry: every kind of agent an agent spec can name, registered one way.

A kind is a name (the spec's first word: `random`, `ismcts`, `policy`), the spec forms it
takes and a builder `(spec, seed, fmt) -> agent`. The built-in kinds register themselves
(agents.base); an installed package adds its own kinds the same way, as `AgentKind`
objects under the entry point group `mtg_env.agent_kinds`:

```toml
[project.entry-points."mtg_env.agent_kinds"]
mybot = "mypackage.agents:MYBOT"   # MYBOT = AgentKind("mybot", ("mybot",), build, "...")
```

after which `mtg-env match mybot heuristic` works like a built-in spec. Installed kinds are
loaded the first time a spec names a kind that is not built in. A spec naming no kind, with
a colon, is a plug-in spec (`module:attr`, `file.py:attr`: agents.plugin), which runs the
named code and is taken from the command line only.

What an agent can do is declared on the agent, not probed: see `agents.base.Agent`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

ENTRY_POINT_GROUP = "mtg_env.agent_kinds"


@dataclass(frozen=True)
class AgentKind:
    """A kind of agent that specs name."""

    name: str  # the spec's first word, lower case
    forms: tuple[str, ...]  # the spec forms it takes, as help and errors list them
    build: Callable[[str, int, str | None], Any]  # (spec, seed, format or None) -> agent
    summary: str = ""


@dataclass(frozen=True)
class Budget:
    """A search agent's thinking budget per decision: iterations, or seconds (then the
    iterations are however many fit)."""

    iterations: int | None
    seconds: float | None


_KINDS: dict[str, AgentKind] = {}
_installed_loaded = False


def register(kind: AgentKind) -> AgentKind:
    """Add a kind; a second kind of the same name is an error (one line naming it)."""
    name = kind.name.strip().lower()
    if not name or ":" in name or name != kind.name:
        raise ValueError(f"agent kind name {kind.name!r}: one lower-case word without a colon")
    if name in _KINDS:
        raise ValueError(f"agent kind {name!r} is registered twice")
    _KINDS[name] = kind
    return kind


def _load_installed() -> None:
    """The kinds installed packages declare (entry point group `mtg_env.agent_kinds`)."""
    global _installed_loaded
    if _installed_loaded:
        return
    _installed_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        kind = ep.load()
        if not isinstance(kind, AgentKind):
            raise TypeError(f"entry point {ep.name} = {ep.value}: not an AgentKind")
        if kind.name not in _KINDS:
            register(kind)


def find(name: str) -> AgentKind | None:
    """The kind a spec's first word names, built in or installed, or None."""
    name = name.strip().lower()
    if name not in _KINDS:
        _load_installed()
    return _KINDS.get(name)


def kinds() -> dict[str, AgentKind]:
    """Every registered kind by name (installed ones included)."""
    _load_installed()
    return dict(_KINDS)
