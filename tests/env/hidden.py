"""A helper of the hidden-information tests (v0 and v1 observations)."""

from __future__ import annotations

from mtg_env.engine import Game


def swap_hidden(g: Game, seat: int) -> Game:
    """Change what `seat` can't see: the opponent's hand cards and both library orders."""
    h = g.clone()
    opp = 1 - seat
    lib, hand = h.library[opp], h.hand[opp]
    for k in range(min(len(hand), len(lib))):
        if h.cdef[hand[k]].name != h.cdef[lib[k]].name:
            hand[k], lib[k] = lib[k], hand[k]
            h.zone[hand[k]], h.zone[lib[k]] = 1, 0
    h.library[seat].reverse()
    h.library[opp].reverse()
    h._legal = None
    return h
