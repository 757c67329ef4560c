"""Rules formats: variants of the one engine, in the manner of python-chess's board
variants. A format is a `Format` subclass in a module of its own: its numbers, the hooks
it overrides (setup, turn structure, mana model, priority policy, combat damage, hashing
extras, hidden-information resampling) and its card set; priority, the stack, combat,
triggers, state-based actions and the layer system are shared. `base.py` documents the
protocol; docs/formats.md shows how to add a format.

- `classic`: Magic: The Gathering (the Comprehensive Rules where they matter for play).
- `core`: the classic rules with the core pool of real cards (`classic`'s set is the
  first benchmark, kept as it was).
- `pauper`: the classic rules with a pool of real commons that use the rules the Oracle
  compiler added (enters tapped, hybrid mana, regeneration, ...).
- `adventure`: "Adventure Cards" (source document 004): six phases, no lands, an automatic
  mana pool, priority to the other player after every action.
- `pocket`: "Pocket Game: The Gathering" (source document 003): one shared pile, two-part
  cards with suits, face-down mana sources, reaction windows, several attacks per turn.
"""

from __future__ import annotations

from .adventure import ADVENTURE, Adventure
from .base import FORMATS, Format, register, rules_for
from .classic import CLASSIC, Classic
from .core import CORE, Core
from .pauper import PAUPER, Pauper
from .pocket import POCKET, Pocket

Rules = Format  # the name this class had before formats were modules

for _f in (CLASSIC, ADVENTURE, POCKET, CORE, PAUPER):
    register(_f)

__all__ = [
    "ADVENTURE",
    "CLASSIC",
    "CORE",
    "FORMATS",
    "PAUPER",
    "POCKET",
    "Adventure",
    "Classic",
    "Core",
    "Format",
    "Pauper",
    "Pocket",
    "Rules",
    "register",
    "rules_for",
]
