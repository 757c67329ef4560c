"""Tables derived from one layer state, built once after each layer recomputation and
read at every decision (see `Game._derived`)."""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from .cards import ActivatedAbility, ManaAbility, StaticAbility, TriggeredAbility
from .chars import Chars
from .constants import AURA_SUBTYPE, CREATURE, LEGENDARY, TYPE_BITS, bit_mask
from .mana import Source, spent_as
from .objects import Perm

# The number of colors in each 5-bit color mask.
_BITS: Final = tuple(bin(m).count("1") for m in range(32))


# An initialiser with arguments: serializable tells the compiled build how pickle and
# deepcopy rebuild it (restore the fields, don't call __init__), as plain Python does.
@mypyc_attr(serializable=True)
class Derived:
    """Tables derived from one layer state (see `Game._derived`); never mutated."""

    __slots__ = (
        "sba",
        "mana",
        "activated",
        "controlled",
        "cda",
        "positions",
        "triggered",
        "creatures",
    )

    def __init__(
        self,
        chars: dict[int, Chars],
        battlefield: list[int],
        perm: dict[int, Perm],
        spend: list[tuple[int, bool] | None],
    ) -> None:
        sba: list[tuple[int, Chars]] = []
        mana: tuple[list[tuple], list[tuple]] = ([], [])
        activated: tuple[list[tuple], list[tuple]] = ([], [])
        controlled: tuple[list[int], list[int]] = ([], [])  # battlefield order
        self.cda = False  # a characteristic-defining ability on the battlefield
        self.triggered: list[int] = []  # permanents with a triggered ability
        self.creatures: list[int] = []  # battlefield order
        for cid in battlefield:
            ch = chars[cid]
            p = perm[cid]
            controlled[ch.controller].append(cid)
            if ch.types & CREATURE:
                self.creatures.append(cid)
            if (
                ch.types & CREATURE
                or (ch.types & 4 and ch.has_subtype(AURA_SUBTYPE))
                or "Equipment" in ch.subtypes
                or ch.supertypes & LEGENDARY
                or p.counters
            ):
                sba.append((cid, ch))
            seat = ch.controller
            colors = free = pain = 0
            other = triggered = sac = False
            tap = True
            idx = -1
            many = -1  # mana one ability makes, where it makes more than one (or none)
            kind = 0
            for ab in ch.abilities:
                # `type(ab) is` narrows the ability's type: the compiled build then reads
                # its fields directly rather than by name.
                if type(ab) is ManaAbility:
                    idx += 1
                    colors |= ab.produce & 31
                    if ab.cost.sacrifice_self:
                        # The loader gives such a card no other mana ability, so the
                        # whole source is sacrificed when used.
                        sac = True
                        tap = ab.cost.tap
                    if ab.pain:
                        pain = ab.pain
                    else:
                        free |= ab.produce
                    if ab.amount != 1 or ab.per:
                        # The loader gives such a card no other mana ability.
                        kind = ab.produce
                        many = ab.amount
                        if ab.per:
                            many = _count(ab.per, chars, battlefield, seat)
                elif type(ab) is ActivatedAbility:
                    idx += 1
                    other = True
                    if not ab.cost.from_hand:  # that one is activated from the hand
                        activated[seat].append((cid, ch, idx, ab))
                elif type(ab) is StaticAbility and ab.cda:
                    self.cda = True
                elif type(ab) is TriggeredAbility:
                    triggered = True
            if triggered:
                self.triggered.append(cid)
            if not colors and not free:
                continue
            rule = spend[seat]
            if rule is not None:
                colors, free = spent_as(colors, free, rule)  # CR 609.4b
            creature = bool(ch.types & CREATURE)
            score = (100 if creature else 0) + (200 if sac else 0) + (5 if other else 0)
            score += _BITS[colors]
            haste = "haste" in ch.keywords
            if many >= 0:
                # Each mana its own source (a payment matches pips to distinct sources).
                for _ in range(many):
                    src = Source(cid, colors, pain, score, free, sac, tap, kind)
                    mana[seat].append((cid, creature, haste, src))
                continue
            src = Source(cid, colors, pain, score, free, sac, tap)
            mana[seat].append((cid, creature, haste, src))
        self.sba = sba
        self.mana = mana
        self.activated = activated
        self.controlled = controlled
        # cid -> index in controlled[seat] (observation slots), built on first use
        self.positions: list[dict[int, int] | None] = [None, None]

    def __repr__(self) -> str:
        return f"<Derived {len(self.controlled[0])}+{len(self.controlled[1])} permanents>"


def _count(
    per: tuple[tuple[str, Any], ...], chars: dict[int, Chars], bf: list[int], you: int
) -> int:
    """The mana a mana ability's count makes ("for each Elf on the battlefield"), for its
    controller `you`."""
    c = dict(per)
    return count_permanents([chars[cid] for cid in bf], c, you) * c.get("times", 1)


def count_permanents(chs: list[Chars], c: dict[str, Any], you: int) -> int:
    """How many of the permanents `chs` a count of permanents (`opschema.CountOf`) names,
    for player `you`: of a card type or a creature type, with a keyword, theirs or
    anyone's. Shared by effects (`effects.count_of`) and mana abilities (`_count`)."""
    want = bit_mask(c.get("types") or (), TYPE_BITS)
    sub = c.get("subtype")
    mine = c.get("whose", "you") == "you"
    kw = c.get("keyword")
    n = 0
    for ch in chs:
        if mine and ch.controller != you:
            continue
        if (want and not ch.types & want) or (sub and not ch.has_subtype(sub)):
            continue
        if kw and kw not in ch.keywords:
            continue
        n += 1
    return n
