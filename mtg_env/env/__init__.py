"""The environments: the PettingZoo AEC duel (`raw_env`, `env`) and the single-agent
self-play Gymnasium env (`SelfPlayEnv`). Documentation: `mtg_env/env/duel.py`.

The names load on first use, so that a module that needs only the observation layout
(`mtg_env.env.spaces`, which replays use) does not load the envs, which use replays.
"""

from __future__ import annotations

from typing import Any

# The engine decides first whether the compiled modules run (mtg_env/engine/build.py): that
# choice covers `spaces` and `entity`, compiled in the engine's group, which must not be
# imported before it.
from .. import engine as _engine  # noqa: F401

__all__ = ["AGENTS", "Layout", "Limits", "SelfPlayEnv", "env", "raw_env"]

_HOME = {
    "AGENTS": "duel",
    "env": "duel",
    "raw_env": "duel",
    "SelfPlayEnv": "selfplay",
    "Layout": "spaces",
    "Limits": "spaces",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'mtg_env.env' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value
