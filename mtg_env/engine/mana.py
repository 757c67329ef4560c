"""Automatic, deterministic mana payment (docs/design.md).

A source is an untapped permanent with a {T} mana ability, or a permanent with a mana
ability whose cost is to sacrifice it (CR 111.10a's token). Each source makes one mana.
Payment is a bipartite matching of colored pips to sources, plus enough other sources
for the generic part. Among the payments that exist, the engine picks one greedily by a
fixed preference so that the most options stay open: lands before creatures (a creature
tapped for mana can't attack or block), both before sources that are sacrificed, painless
before painful, single-color sources
before flexible ones, and pips of the scarcest color first.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from .cards import ManaCost
from .constants import MANA_BITS

_SYMBOL_OF: dict[int, str] = {bit: f"{{{c}}}" for c, bit in MANA_BITS.items()}


# An initialiser with arguments: serializable tells the compiled build how pickle and
# deepcopy rebuild it (restore the fields, don't call __init__), as plain Python does.
@mypyc_attr(serializable=True)
class Source:
    """One mana source: `colors` it can pay colored pips with (bit mask), whether that
    colored mana hurts (`pain`), and a preference `score` (lower is tapped first)."""

    __slots__ = ("cid", "colors", "pain", "score", "free", "sac", "tap", "multi")

    def __init__(
        self,
        cid: int,
        colors: int,
        pain: int,
        score: int,
        free: int,
        sac: bool = False,
        tap: bool = True,
        multi: int = 0,
    ) -> None:
        self.cid = cid
        self.colors = colors  # mask of colors it can pay a colored pip with
        self.pain = pain  # damage dealt to controller if used for colored mana
        self.score = score
        self.free = free  # mask of colors it makes without pain (C counts as 32)
        # "{T}, Sacrifice this artifact: Add ..." (CR 111.10a's token): using it
        # sacrifices it; "Sacrifice this creature: Add {C}" does not tap it (`tap`).
        self.sac = sac
        self.tap = tap
        # One mana of several one ability makes ("{T}: Add {C}{C}."): the MANA_BITS kind it
        # makes, 0 for a source of one mana. A payment that spends some of them puts the
        # rest in the pool (formats.base.pay_mana).
        self.multi = multi


def mana_symbols(pool: list[int]) -> str:
    """A mana pool's mana as symbols, in the order it was added: "{R}{G}"."""
    return "".join(_SYMBOL_OF[m] for m in pool)


def pool_sources(pool: list[int], spend: tuple[int, bool] | None) -> list[Source]:
    """The mana in a player's pool (CR 106.4) as sources: each pays like the source that
    made it would, never taps, and is spent before anything is tapped (its score is below
    every permanent's; unspent mana empties as the step ends). Their ids are -2, -3, ...
    (a pool index i is -2 - i): never a card, nor `exclude`'s -1. `spend` is the player's
    mana-spending rule (CR 609.4b), as for permanents' mana."""
    out = []
    for i, m in enumerate(pool):
        colors, free = m & 31, m
        if spend is not None:
            colors, free = spent_as(colors, free, spend)
        out.append(Source(-2 - i, colors, 0, -1, free, False, False))
    return out


def spent_as(colors: int, free: int, spend: tuple[int, bool]) -> tuple[int, int]:
    """A source's `colors` and `free` masks under its player's spending rule (CR 609.4b):
    mana of the rule's colors pays any color; other mana pays what it pays, or with
    `only_generic` only generic costs."""
    as_any, only_generic = spend
    colors = 31 if colors & as_any else (0 if only_generic else colors)
    if free & as_any:
        free = 31
    elif only_generic:
        free &= 32
    return colors, free


def _match(pips: tuple[int, ...] | list[int], srcs: list[Source]) -> bool:
    """Can every pip get a distinct source that pays it? (Kuhn's augmenting paths.)"""
    owner: dict[int, int] = {}  # source index -> pip index

    def augment(pi: int, seen: set[int]) -> bool:
        p = pips[pi]
        for si, s in enumerate(srcs):
            if s.colors & p and si not in seen:
                seen.add(si)
                if si not in owner or augment(owner[si], seen):
                    owner[si] = pi
                    return True
        return False

    return all(augment(i, set()) for i in range(len(pips)))


def can_pay(srcs: list[Source], cost: ManaCost) -> bool:
    pips = cost.pips
    if len(srcs) < cost.generic + len(pips):
        return False
    if not pips:
        return True
    p = pips[0]
    if all(q == p for q in pips):
        # Pips of one colour (most costs): enough sources of that colour is a matching.
        n = len(pips)
        for s in srcs:
            if s.colors & p:
                n -= 1
                if n == 0:
                    return True
        return False
    return _match(pips, srcs)


def choose_payment(srcs: list[Source], cost: ManaCost) -> list[tuple[Source, int]] | None:
    """Sources to tap and the color each pays (0 = generic), or None if unpayable."""
    if not can_pay(srcs, cost):
        return None
    remaining = sorted(srcs, key=lambda s: (s.score, s.cid))
    pips = list(cost.pips)
    # Scarcest color first: fewer sources can pay it.
    pips.sort(key=lambda p: (sum(1 for s in remaining if s.colors & p), p))
    out: list[tuple[Source, int]] = []
    while pips:
        p = pips[0]
        rest_pips = pips[1:]
        cands = [s for s in remaining if s.colors & p]
        # Prefer a source that makes this color without pain.
        cands.sort(key=lambda s: (0 if s.free & p else 1, s.score, s.cid))
        for s in cands:
            others = [x for x in remaining if x is not s]
            if len(others) >= cost.generic + len(rest_pips) and _match(rest_pips, others):
                out.append((s, p))
                remaining = others
                pips = rest_pips
                break
        else:  # pragma: no cover - can_pay guaranteed a matching
            return None
    for s in remaining[: cost.generic]:
        out.append((s, 0))
    return out
