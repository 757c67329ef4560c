"""Searching a library for a basic land (CR 701.23): the options are the card set's basic
lands that qualify, whatever the library holds, and a "may" search can be declined.
tests/scenarios/pauper/cr_701_23a_*.yaml play the same cards through."""

from __future__ import annotations

from mtg_env.engine import Game
from mtg_env.engine.constants import ACTIVATE, CHOOSE, D_CHOICE, PASS, PLAY, TARGET


def _resolve_top(g: Game) -> None:
    while g.decision is not None and g.decision.kind != D_CHOICE and g.stack:
        g.apply(next(a for a in g.legal_actions() if a.kind == PASS))


def test_cr_701_23a_a_basic_land_of_the_listed_types() -> None:
    """Twisted Landscape's search offers the basic Swamps, Mountains and Forests of the
    set (snow ones too), never an Island or a Plains, and no "don't search"."""
    g, labels = Game.setup(
        [{"battlefield": [{"card": "Twisted Landscape", "id": "s"}], "library": ["Island"]}, {}],
        format="pauper",
    )
    g.apply(next(a for a in g.legal_actions() if a.kind == ACTIVATE and a.arg == 1))
    _resolve_top(g)
    assert g.decision.kind == D_CHOICE and g.decision.player == 0
    assert g.decision.options == (
        "Forest",
        "Mountain",
        "Snow-Covered Forest",
        "Swamp",
        "find nothing",
    )


def test_cr_701_23a_its_controller_may_search_or_decline() -> None:
    """Cleansing Wildfire: the destroyed land's controller is asked, with every basic land
    of the set, "find nothing" and "don't search"; declining leaves the library as it was
    (no shuffle), finding nothing shuffles it."""
    library = ["Plains", "Island", "Swamp", "Mountain", "Forest"] * 4

    def cast(answer: str) -> tuple[Game, list[str], list[str]]:
        g, labels = Game.setup(
            [
                {
                    "hand": [{"card": "Cleansing Wildfire", "id": "f"}],
                    "battlefield": ["Mountain"] * 2,
                },
                {"battlefield": [{"card": "Forest", "id": "land"}], "library": library},
            ],
            format="pauper",
            seed=3,
        )
        g.apply(next(a for a in g.legal_actions() if a.kind == PLAY))
        g.apply(next(a for a in g.legal_actions() if a.kind == TARGET and a.obj == labels["land"]))
        _resolve_top(g)
        d = g.decision
        assert d.kind == D_CHOICE and d.player == 1
        assert d.options[-2:] == ("find nothing", "don't search")
        assert "Plains" in d.options and "Island" in d.options
        before = [g.cdef[c].name for c in g.library[1]]
        g.apply(
            next(a for a in g.legal_actions() if a.kind == CHOOSE and d.options[a.arg] == answer)
        )
        after = [g.cdef[c].name for c in g.library[1]]
        assert sorted(after) == sorted(before)
        return g, before, after

    g, before, after = cast("don't search")
    assert after == before  # not searched: not shuffled
    assert "doesn't search" in g.log_text()
    g, before, after = cast("find nothing")
    assert after != before  # searched, nothing found: shuffled (20 cards)
