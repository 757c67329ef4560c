"""mtg_env: a multi-agent RL environment for a Magic: The Gathering-style card game.

    import gymnasium, mtg_env
    env = mtg_env.env(format="classic")            # PettingZoo AEC, wrapped
    raw = mtg_env.raw_env()                         # the bare AEC env
    sp = gymnasium.make("mtg_env/SelfPlay-v0")      # single-agent self-play for SB3
    ent = mtg_env.env(obs_type="entity")            # mtg/duel_entity-v1: entity tables

The rules engine alone: `from mtg_env.engine import Game`. It needs neither numpy nor
Gymnasium nor PettingZoo: the envs load on first use of `mtg_env.env`, `mtg_env.raw_env`
or `mtg_env.SelfPlayEnv`, and are registered with Gymnasium and PettingZoo (by entry-point
strings, which import nothing) only where those are installed.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__all__ = ["SelfPlayEnv", "env", "raw_env"]
__version__ = "0.1.0"


def _envs() -> types.ModuleType:
    return sys.modules.get("mtg_env.env") or importlib.import_module("mtg_env.env")


class _Package(types.ModuleType):
    """`mtg_env.env` names both the env factory and the subpackage that holds the envs. The
    import system sets the package attribute to the subpackage when it first loads it (after
    this module, now that the envs load lazily), so the factory is a property whose setter
    keeps it: `mtg_env.env(...)` makes an env, `import mtg_env.env.duel` still works."""

    @property
    def env(self) -> Any:
        return _envs().env

    @env.setter
    def env(self, value: Any) -> None:
        pass  # the subpackage, set by the import system: stays reachable in sys.modules

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # A module pickles as its import (cloudpickle does that for plain modules, keyed by
        # exact type, so not for this subclass): an env factory that names the package
        # (`lambda: mtg_env.env()`) travels to subprocesses and Ray workers.
        return importlib.import_module, (self.__name__,)


def __getattr__(name: str) -> Any:
    if name in ("raw_env", "SelfPlayEnv"):
        return getattr(_envs(), name)
    raise AttributeError(f"module 'mtg_env' has no attribute {name!r}")


sys.modules[__name__].__class__ = _Package


def _register() -> None:
    """PettingZoo's registry (`pettingzoo.make("aec", "mtg/duel-v0")`) is new in 1.27; with
    an older PettingZoo the env is made directly (`mtg_env.env()`).

    The flat and the entity observation are two envs, not two versions of one: each has its
    own name at version 0 (`SelfPlay-v0`, `SelfPlayEntity-v1`). Registered as versions 0 and
    1 of one name, Gymnasium told every `SelfPlay-v0` user to upgrade to v1, and an
    unversioned `mtg/duel` made the entity env. The old ids are not registered (see the env
    card's version history)."""
    try:
        import gymnasium
        import pettingzoo
    except ImportError:  # the engine alone, without the env dependencies
        return
    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is not None and "mtg/duel-v0" not in registry:
        pettingzoo.register("aec", "mtg/duel-v0", entry_point="mtg_env.env.duel:env")
    if registry is not None and "mtg/duel_entity-v1" not in registry:
        pettingzoo.register("aec", "mtg/duel_entity-v1", entry_point="mtg_env.env.duel:env_entity")
    if "mtg_env/SelfPlay-v0" not in gymnasium.registry:
        gymnasium.register("mtg_env/SelfPlay-v0", entry_point="mtg_env.env.selfplay:SelfPlayEnv")
    if "mtg_env/SelfPlayEntity-v1" not in gymnasium.registry:
        gymnasium.register(
            "mtg_env/SelfPlayEntity-v1",
            entry_point="mtg_env.env.selfplay:SelfPlayEnv",
            kwargs={"obs_type": "entity"},
        )


_register()
