"""Building a game: a new game from two decks (CR 103), or a scripted position
(docs/scenarios.md).

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from typing import Self

from .carddb import load_cards
from .formats import rules_for
from .state import init_state
from .turn import Turn


class Setup(Turn):
    __slots__ = ()

    def _choose_first(self, first_player: int | None) -> int:
        """The first player: by the seed unless `first_player` fixes it."""
        fp = self.rng.below(2) if first_player is None else first_player
        if fp not in (0, 1):
            raise ValueError("first_player must be 0 or 1")
        self.first_player = fp
        self.active = fp
        return fp

    @classmethod
    def _empty(cls, fmt: str, seed: int, auto_pass: bool, max_decisions: int | None) -> Self:
        g = cls()
        rules = rules_for(fmt)
        init_state(g, fmt, rules, load_cards(rules.card_set), seed, auto_pass, max_decisions)
        return g
