"""`core`: the classic rules with the core pool, a card set of real Magic cards with their
current Oracle text, chosen to cover what a core set plays with (docs/cards.md).

The rules are `classic`'s, unchanged; only the card set differs. The `classic` set (78 cards,
six decks) stays as it is, the first benchmark; `core` is the pool for questions of
generalisation: many decks, generated decks, decks held out from training.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from .classic import Classic


@mypyc_attr(allow_interpreted_subclasses=True)
class Core(Classic):
    __slots__ = ()

    name = "core"
    card_set = "core"


CORE: Final = Core()
