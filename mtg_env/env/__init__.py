"""The environments: the PettingZoo AEC duel (`raw_env`, `env`) and the single-agent
self-play Gymnasium env (`SelfPlayEnv`). Documentation: `mtg_env/env/duel.py`."""

from .duel import AGENTS, env, raw_env
from .selfplay import SelfPlayEnv
from .spaces import Layout, Limits

__all__ = ["AGENTS", "Layout", "Limits", "SelfPlayEnv", "env", "raw_env"]
