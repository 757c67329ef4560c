"""Deck lists outside the engine: a seeded random deck generator and writers (YAML, text).

`generate_deck` builds a deck that is always legal for its format: the exact deck size,
only cards of the chosen colours (colourless cards too), at most four copies of a card
that is not a basic land, basic lands in proportion to the spells' coloured mana symbols,
and spells that follow a mana curve and a creature share as closely as the pool allows.
The same arguments give the same deck: the only randomness is one `random.Random(seed)`,
and cards are always visited in name order, never in hash order.

Which cards exist is data (the format's card set); nothing here names a card.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping

import yaml

from .engine.carddb import DECK_SIZE, Deck, load_cards
from .engine.cards import CardDef, CardSet
from .engine.constants import (
    BASIC,
    COLOR_BITS,
    LAND,
    LAND_TYPE_MANA,
    colors_to_letters,
)
from .engine.formats import FORMATS

MAX_COPIES = 4  # of any card that is not a basic land
# Share of mana values among the spells; the largest key also counts every higher mana
# value and the smallest every lower one (so mana value 0 counts as 1 by default).
DEFAULT_CURVE: dict[int, float] = {1: 0.10, 2: 0.30, 3: 0.25, 4: 0.20, 5: 0.10, 6: 0.05}
CREATURE_SHARE = 0.65  # of the spells, where the pool allows
LANDS_PER_40 = 17  # the default land count, scaled to other deck sizes


def _basics(cs: CardSet) -> dict[int, str]:
    """Colour bit -> the basic land that taps for it (the first by name if several)."""
    out: dict[int, str] = {}
    for name in sorted(cs.cards):
        c = cs.cards[name]
        if c.types & LAND and c.supertypes & BASIC:
            for sub in sorted(c.subtypes):
                color = LAND_TYPE_MANA.get(sub)
                if color is not None:
                    out.setdefault(color, name)
    return out


def _parse_colors(colors: str, basics: Mapping[int, str], fmt: str) -> int:
    mask = 0
    for ch in colors.strip().upper():
        if ch not in COLOR_BITS:
            raise ValueError(
                f"unknown colour letter {ch!r} in colors {colors!r} (letters: W U B R G)"
            )
        if mask & COLOR_BITS[ch]:
            raise ValueError(f"colour {ch!r} appears twice in colors {colors!r}")
        if COLOR_BITS[ch] not in basics:
            raise ValueError(f"the {fmt} card set has no basic land for colour {ch!r}")
        mask |= COLOR_BITS[ch]
    if not mask:
        raise ValueError("colors names at least one colour, e.g. 'WU'")
    return mask


def _spell_pool(cs: CardSet, mask: int, only: Collection[str] | None = None) -> list[CardDef]:
    """The cards a generated deck may cast: not lands (its lands are basics), not halves
    of two-part cards, with a mana cost, and colours a subset of `mask` (and among `only`,
    when given); by name."""
    out = []
    for name in sorted(cs.cards):
        c = cs.cards[name]
        if c.types & LAND or not c.types or c.half_of or c.cost is None:
            continue
        if only is not None and name not in only:
            continue
        if c.colors & ~mask:
            continue
        out.append(c)
    return out


def _apportion(weights: Mapping[int, float], total: int) -> dict[int, int]:
    """`total` split in proportion to `weights` (largest remainders; ties to the smaller
    key), so the parts add up exactly."""
    s = sum(weights.values())
    if total <= 0 or s <= 0:
        return {k: 0 for k in weights}
    exact = {k: total * w / s for k, w in weights.items()}
    out = {k: math.floor(v) for k, v in exact.items()}
    left = total - sum(out.values())
    for k in sorted(exact, key=lambda k: (-(exact[k] - out[k]), k))[:left]:
        out[k] += 1
    return out


def _check_curve(curve: Mapping[int, float] | None) -> dict[int, float]:
    if curve is None:
        return dict(DEFAULT_CURVE)
    out: dict[int, float] = {}
    for k, w in curve.items():
        if not isinstance(k, int) or k < 0:
            raise ValueError(f"curve: a mana value is an integer 0 or more, not {k!r}")
        if not isinstance(w, int | float) or not math.isfinite(w) or w < 0:
            raise ValueError(f"curve: mana value {k}: a weight is a number 0 or more, not {w!r}")
        out[k] = float(w)
    if not out or sum(out.values()) <= 0:
        raise ValueError("curve: at least one mana value needs a weight above 0")
    return out


def _default_lands(size: int) -> int:
    # Round half up (not to even): 17 of 40 is the reference.
    return int(size * LANDS_PER_40 / 40 + 0.5)


def _pick_colors(
    rng: random.Random,
    cs: CardSet,
    basics: Mapping[int, str],
    spells: int,
    only: Collection[str] | None = None,
) -> int:
    """Two colours at random among those with enough cards of their own (a colour is
    eligible when its one-colour cards could fill half the spells at four copies each);
    one colour when only one is eligible."""
    need = math.ceil(spells / (2 * MAX_COPIES))
    eligible = []
    for bit in sorted(basics):
        own = sum(1 for c in _spell_pool(cs, bit, only) if c.colors == bit)
        if own >= need:
            eligible.append(bit)
    if not eligible:
        raise ValueError(
            f"no colour of set {cs.name!r} has enough cards for a generated deck "
            f"({need} one-colour cards needed)"
        )
    chosen = rng.sample(eligible, min(2, len(eligible)))
    return sum(chosen)


def generate_deck(
    fmt: str = "core",
    seed: int = 0,
    colors: str | None = None,
    lands: int | None = None,
    curve: Mapping[int, float] | None = None,
    name: str | None = None,
    only: Collection[str] | None = None,
) -> Deck:
    """A seeded random deck, legal for `fmt` (see the module docstring).

    `colors`: letters, e.g. "WU" (default: two colours drawn with the seed among those
    with enough cards). `lands`: the basic land count (default 17 for 40 cards, scaled).
    `curve`: mana value -> weight (default `DEFAULT_CURVE`). `only`: the names its spells
    come from (default: the whole set; its lands are basics either way). Raises ValueError
    for a request that can't be met."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(sorted(FORMATS))})")
    size = DECK_SIZE.get(fmt)
    cs = load_cards(FORMATS[fmt].card_set)
    basics = _basics(cs)
    if size is None or not basics:
        raise ValueError(
            f"format {fmt!r}: decks are generated only for formats with basic lands and a "
            "fixed deck size (classic, core)"
        )
    if lands is None:
        lands = _default_lands(size)
    if not 0 <= lands <= size:
        raise ValueError(f"lands: {lands} is not between 0 and the deck size, {size}")
    weights = _check_curve(curve)
    n_spells = size - lands
    rng = random.Random(seed)
    mask = (
        _parse_colors(colors, basics, fmt)
        if colors is not None
        else _pick_colors(rng, cs, basics, n_spells, only)
    )
    letters = "".join(colors_to_letters(mask))
    pool = _spell_pool(cs, mask, only)
    if len(pool) * MAX_COPIES < n_spells:
        raise ValueError(
            f"not enough cards in colours {letters} of set {cs.name!r}: {len(pool)} cards, "
            f"at most {MAX_COPIES} copies each, can't make {n_spells} spells "
            f"(a {fmt} deck of {size} cards with {lands} lands)"
        )
    spells = _choose_spells(rng, pool, weights, n_spells)
    land_counts = _split_lands(cs, spells, mask, lands)
    cards: list[str] = []
    for bit in sorted(land_counts):
        cards += [basics[bit]] * land_counts[bit]
    for card in sorted(spells, key=lambda n: (cs.cards[n].mv, n)):
        cards += [card] * spells[card]
    deck_name = name if name is not None else f"Generated {fmt} {letters} (seed {seed})"
    return Deck(deck_name, fmt, tuple(cards))


def _bucket(mv: int, keys: list[int]) -> int:
    return min(max(mv, keys[0]), keys[-1])


def _choose_spells(
    rng: random.Random, pool: list[CardDef], weights: Mapping[int, float], n: int
) -> dict[str, int]:
    """`n` spells from `pool`: greedily the card whose mana-value bucket and kind
    (creature or not) are furthest below target, ties broken by a seeded shuffle; a
    card is taken two to four copies at a time, as decks are built, but never past a
    target the pool could still meet."""
    keys = sorted(weights)
    target = _apportion(weights, n)
    creatures_target = round(n * CREATURE_SHARE)
    have = {k: 0 for k in keys}
    creatures = 0
    copies: dict[str, int] = {}  # by name: card definitions are not hashable
    order = list(pool)
    rng.shuffle(order)
    rank = {c.name: i for i, c in enumerate(order)}
    chosen = 0
    while chosen < n:
        creature_need = creatures_target - creatures
        other_need = (n - creatures_target) - (chosen - creatures)

        open_cards = [c for c in order if copies.get(c.name, 0) < MAX_COPIES]
        scores = [
            _score(c, keys, target, have, creature_need, other_need, rank) for c in open_cards
        ]
        best = open_cards[scores.index(max(scores))]
        b = _bucket(best.mv, keys)
        kind_need = creature_need if best.is_creature else other_need
        k = min(
            rng.randint(2, MAX_COPIES),
            MAX_COPIES - copies.get(best.name, 0),
            n - chosen,
            max(1, target[b] - have[b]),
            max(1, kind_need),
        )
        copies[best.name] = copies.get(best.name, 0) + k
        have[b] += k
        creatures += k if best.is_creature else 0
        chosen += k
    return copies


def _score(
    c: CardDef,
    keys: list[int],
    target: Mapping[int, int],
    have: Mapping[int, int],
    creature_need: int,
    other_need: int,
    rank: Mapping[str, int],
) -> tuple[bool, bool, int, int]:
    """How much the deck wants `c` now: meeting the curve first, then the creature
    share, then the larger gap; the shuffled rank makes the seed pick among equals."""
    b = _bucket(c.mv, keys)
    b_need = target[b] - have[b]
    kind_need = creature_need if c.is_creature else other_need
    return (b_need > 0, kind_need > 0, b_need, -rank[c.name])


def _split_lands(cs: CardSet, spells: Mapping[str, int], mask: int, lands: int) -> dict[int, int]:
    """Basic lands per colour bit, in proportion to the coloured mana symbols of the
    spells (every copy counts); evenly when the spells have none. A colour with symbols
    gets at least one land when there are lands enough."""
    pips = {bit: 0 for bit in COLOR_BITS.values() if mask & bit}
    for card, n in spells.items():
        c = cs.cards[card]
        assert c.cost is not None  # the pool holds only cards with a cost
        for p in c.cost.pips:
            if p in pips:
                pips[p] += n
    weights = {bit: float(v) for bit, v in pips.items()} if any(pips.values()) else None
    out = _apportion(weights or {bit: 1.0 for bit in pips}, lands)
    needy = [bit for bit in sorted(pips) if pips[bit] and not out[bit]]
    for bit in needy:
        richest = max(sorted(out), key=lambda k: out[k])
        if out[richest] > 1:
            out[richest] -= 1
            out[bit] += 1
    return {bit: v for bit, v in out.items() if v}


# --------------------------------------------------------------------------- writers


def _groups(deck: Deck) -> list[tuple[str, int]]:
    """(name, count) in order of first appearance (a deck keeps its own order)."""
    return list(deck.counts().items())


def deck_to_yaml(deck: Deck) -> str:
    """The bundled-deck YAML (`parse_deck` loads it back to the same cards)."""
    data = {
        "name": deck.name,
        "format": deck.format,
        "cards": [f"{n} {name}" for name, n in _groups(deck)],
    }
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def deck_to_text(deck: Deck) -> str:
    """The text deck list, `4 Name` a line (`parse_deck_text` loads it back); the first
    line is a comment with the deck's name and format."""
    title = " ".join(f"{deck.name}, a {deck.format} deck".split())  # one line, always
    return "".join([f"# {title}\n", *(f"{n} {name}\n" for name, n in _groups(deck))])


__all__ = [
    "DEFAULT_CURVE",
    "MAX_COPIES",
    "deck_to_text",
    "deck_to_yaml",
    "generate_deck",
]
