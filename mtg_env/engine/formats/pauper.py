"""`pauper`: the classic rules with a pool of real commons that use the rules the Oracle
compiler added (`mtg_env.oracle`, docs/oracle.md): lands that enter tapped, hybrid mana,
regeneration, "creatures you control get ... until end of turn", "doesn't untap",
"attacks each combat if able", devoid.

The rules are `core`'s, unchanged, but for sixty-card decks (Pauper is a constructed
format); the card set differs, so that the core pool (and every observation and policy of
it) stays as it was while this pool grows toward the Pauper decks the compiler is measured
on: the Faeries deck of the Spellbench pauper benchmark is one of the bundled decks.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from .core import Core


@mypyc_attr(allow_interpreted_subclasses=True)
class Pauper(Core):
    __slots__ = ()

    name = "pauper"
    card_set = "pauper"
    # Pauper is a constructed format (CR 100.2a: sixty cards): its decks, the Spellbench
    # pauper benchmark's among them, are sixty cards.
    deck_size = 60


PAUPER: Final = Pauper()
