"""`classic`: Magic: The Gathering, the Comprehensive Rules where they matter for play.

Every hook keeps the Comprehensive Rules' answer (`Format`'s defaults): CR 500's turn of
steps, lands that tap for mana (CR 106), London mulligans (CR 103.5), 20 life, seven-card
hands, a 40-card deck each.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from .base import Format


@mypyc_attr(allow_interpreted_subclasses=True)  # a new format may extend it
class Classic(Format):
    __slots__ = ()

    name = "classic"
    card_set = "classic"
    deck_size = 40


CLASSIC: Final = Classic()
