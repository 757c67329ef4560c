"""A compiled card pool in play: the card-set file `mtg-env cards compile` writes, loaded as
a card set and a format of the same name with the core format's rules, in this process
(`load_pool`). Decks come from the deck generator (`mtg_env.decks.generate_deck`); the pool
has no bundled decks. `scripts/fuzz.py --cards FILE` fuzzes random decks of it."""

from __future__ import annotations

from pathlib import Path

from ..engine.carddb import DECK_SIZE, parse_card_set, register_card_set
from ..engine.formats import FORMATS, register
from ..engine.formats.core import Core
from ..io import load_yaml


def load_pool(path: str | Path) -> str:
    """Register the card-set file at `path` (validated as a bundled set is; data only) and
    a format named after its set; the format's name. Loading the same pool twice is a
    no-op; another file under a known name is refused."""
    raw = load_yaml(path, "card-set file")
    cs = parse_card_set(raw, str(path))
    if cs.name in _LOADED:
        return cs.name
    if cs.name in FORMATS:
        raise ValueError(f"{path}: set {cs.name!r}: a format has that name already")
    register_card_set(cs)

    class Pool(Core):
        """The core rules over the registered pool."""

        __slots__ = ()
        name = cs.name
        card_set = cs.name

    register(Pool())
    DECK_SIZE[cs.name] = Core.deck_size
    _LOADED.add(cs.name)
    return cs.name


_LOADED: set[str] = set()
