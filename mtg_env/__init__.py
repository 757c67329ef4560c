"""mtg_env: a multi-agent RL environment for a Magic: The Gathering-style card game.

    import mtg_env
    env = mtg_env.env(format="classic")            # PettingZoo AEC, wrapped
    raw = mtg_env.raw_env()                         # the bare AEC env
    sp = gymnasium.make("mtg_env/SelfPlay-v0")      # single-agent self-play for SB3

The rules engine alone: `from mtg_env.engine import Game`.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from .env import SelfPlayEnv, env, raw_env

__all__ = ["SelfPlayEnv", "env", "raw_env"]
__version__ = "0.1.0"


def _register() -> None:
    # PettingZoo's registry (`pettingzoo.make("aec", "mtg/duel-v0")`) is new in 1.27; with
    # an older PettingZoo the env is imported directly (`mtg_env.env()`), as its docs say.
    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is not None and "mtg/duel-v0" not in registry:
        pettingzoo.register("aec", "mtg/duel-v0", entry_point="mtg_env.env.duel:env")
    if "mtg_env/SelfPlay-v0" not in gymnasium.registry:
        gymnasium.register("mtg_env/SelfPlay-v0", entry_point="mtg_env.env.selfplay:SelfPlayEnv")


_register()
