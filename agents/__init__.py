"""Baseline agents. An agent picks one legal action per decision.

Engine-level agents implement `choose(game) -> Action`; the env-level protocol
(`act(observation, mask, info) -> int`) arrives with the environment.
"""

from .base import Agent, make_agent
from .plugin import TextAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent", "TextAgent", "make_agent"]
