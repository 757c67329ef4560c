"""Our text agents as Spellbench bots: `mtg-env spellbench agent text:MODULE:ATTR`.

A `text:` plug-in is a function that reads a text view and answers the number of its
choice (`agents.plugin.TextAgent`). As a bot in the agent role (`mtg_env.spellbench.agent`)
it reads the text view of the neutral seat decision (`mtg_env.spellbench.textview`), built
from the protocol's observation and candidates alone, so it plays on any Spellbench engine
for any cards, and sees exactly what the protocol lets its seat see. Its answer is a
`candidate_id`, read as `TextAgent` reads one (`parse_reply`), with the same fallback: a
reply that is not one of the listed numbers is answered by a random candidate from a
generator seeded with the game's `agent_seed` (a rerun is the same game), counted in
`fallbacks` and reported on stderr. A decision with one candidate is answered without
asking.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from mtg_env.spellbench.agent import VERSION
from mtg_env.spellbench.textview import seat_text

from .plugin import TextAgent, load_plugin, parse_reply, shown


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class TextBot:
    """A function answering a text prompt, as a bot of the agent role."""

    version = VERSION

    def __init__(
        self,
        fn: Callable[[str], Any],
        name: str = "mtg_env-text",
        warn: Callable[[str], None] | None = _stderr_line,
    ) -> None:
        self.fn = fn
        self.name = name
        self.warn = warn
        self.rng = random.Random(0)
        self.fallbacks = 0
        self.asked = 0

    def start(self, game_start: dict[str, Any]) -> None:
        self.rng = random.Random(int(game_start.get("agent_seed", 0)))

    def choose(self, decision: dict[str, Any]) -> int:
        ids = [int(c["candidate_id"]) for c in decision["candidates"]]
        if len(ids) == 1:
            return ids[0]
        self.asked += 1
        reply = self.fn(seat_text(decision))
        n = parse_reply(reply)
        if n is not None and n in ids:
            return n
        self.fallbacks += 1
        if self.warn is not None:
            self.warn(
                f"warning: {self.name}: reply {shown(reply)} is not a listed candidate number; "
                "playing a random candidate instead"
            )
        return self.rng.choice(ids)


def text_bot(spec: str) -> TextBot:
    """The bot of a `text:MODULE:ATTR` or `text:FILE.py:ATTR` spec (its function loaded as
    `mtg-env evaluate` loads one); a bad spec is one `PluginError` line."""
    agent = load_plugin(spec)
    assert isinstance(agent, TextAgent)  # a text: spec loads as a TextAgent or fails
    # The bot's name in `hello`: the attribute the spec names, after our prefix.
    return TextBot(agent.fn, name=f"mtg_env-text-{spec.rsplit(':', 1)[-1]}")
