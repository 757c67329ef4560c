"""Mana pools (CR 106.4): mana a spell or a triggered ability adds is kept, hashed, copied
and shown with the rest of the player's usable mana, and emptied as the step ends (500.4).
tests/scenarios/pauper/cr_106_4_*.yaml and cr_500_4_*.yaml play the rules through."""

from __future__ import annotations

from mtg_env.engine import Game
from mtg_env.engine.constants import MAIN1, PASS, PLAY
from mtg_env.env.spaces import mana_counts
from mtg_env.env.text import text_view
from mtg_env.render import player_line

B_INDEX = 2  # W U B R G C


def _ritual() -> Game:
    """Seat 0 has cast Dark Ritual with its only Swamp, and it has resolved."""
    g, labels = Game.setup(
        [
            {"hand": [{"card": "Dark Ritual", "id": "r"}], "battlefield": ["Swamp", "Island"]},
            {"library": ["Island", "Island"]},
        ],
        format="pauper",
        turn=3,
    )
    g.apply(next(a for a in g.legal_actions() if a.kind == PLAY and a.obj == labels["r"]))
    while g.stack:
        g.apply(next(a for a in g.legal_actions() if a.kind == PASS))
    return g


def test_cr_106_4_the_pool_counts_as_usable_mana_in_every_view() -> None:
    g = _ritual()
    assert g.mana_pool == [[4, 4, 4], []]
    # The Swamp is tapped: the three {B} are the pool's; the Island still makes {U}.
    assert mana_counts(g, 0)[B_INDEX] == 3 and mana_counts(g, 0)[1] == 1
    assert player_line(g, 0).endswith("mana {B}{B}{B}")
    assert "mana {B}{B}{B}" in text_view(g, 1, [])
    assert "mana" not in player_line(g, 1)


def test_cr_106_4_the_pool_is_state_copied_and_hashed() -> None:
    g = _ritual()
    c = g.clone()
    assert c.mana_pool == g.mana_pool and c.state_hash() == g.state_hash()
    assert c.mana_pool is not None
    c.mana_pool[0].pop()
    assert g.mana_pool == [[4, 4, 4], []] and c.state_hash() != g.state_hash()


def test_cr_500_4_the_pool_empties_as_the_step_ends_and_says_so() -> None:
    g = _ritual()
    assert g.step == MAIN1
    g.apply(next(a for a in g.legal_actions() if a.kind == PASS))
    g.apply(next(a for a in g.legal_actions() if a.kind == PASS))
    assert g.step != MAIN1 and g.mana_pool == [[], []]
    assert ("mana_empties", 0, "{B}{B}{B}") in g.events
    assert "unspent mana ({B}{B}{B}) empties" in g.log_text()


def test_a_set_without_such_an_effect_keeps_no_pool() -> None:
    g, _ = Game.setup([{"battlefield": ["Swamp"]}, {}], format="classic")
    assert g.mana_pool is None
