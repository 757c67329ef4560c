"""Scry (CR 701.22) and surveil (CR 701.25): the order the looked-at cards end up in, one
card at a time, checked on the library itself (scenario files see zones, not order)."""

from __future__ import annotations

from typing import Any

from mtg_env.engine.constants import D_CHOICE, GRAVEYARD, LIBRARY
from mtg_env.engine.log import private_event
from mtg_env.scenario import Runner, build, parse_scenario, run_steps


def _game(library: list[Any], hand: str, lands: list[str]) -> Runner:
    raw = {
        "name": "look",
        "format": "core",
        "setup": {
            "turn": 3,
            "step": "main1",
            "players": [
                {"hand": [{"card": hand, "id": "spell"}], "library": library, "battlefield": lands},
                {"library": ["Forest"]},
            ],
        },
        "expect": [{"game_over": False}],
    }
    g, labels = build(parse_scenario(raw, "test"))
    return Runner(g, labels)


def _top_first(r: Runner) -> list[str]:
    return [r.g.cdef[c].name for c in r.g.lib_top(0)]


def test_scry_top_order_is_chosen_and_later_bottoms_go_below() -> None:
    lib = ["Shock", "Lightning Bolt", "Craw Wurm", "Forest", "Mountain"]
    r = _game(lib, "Augury Owl", ["Island", "Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "resolve"])
    d = r.g.decision
    assert d is not None and d.kind == D_CHOICE and d.player == 0
    assert d.options == (
        "Shock on top",
        "Shock on the bottom",
        "Lightning Bolt on top",
        "Lightning Bolt on the bottom",
        "Craw Wurm on top",
        "Craw Wurm on the bottom",
    )
    run_steps(
        r,
        [
            {"player": 0, "choose": "Craw Wurm on the bottom"},
            {"player": 0, "choose": "Shock on top"},
            {"player": 0, "choose": "Lightning Bolt on top"},
        ],
    )
    # The Bolt was put on top last: it is the top card; the Wurm is the bottom card.
    assert _top_first(r) == ["Lightning Bolt", "Shock", "Forest", "Mountain", "Craw Wurm"]
    assert r.g.decision is not None and r.g.decision.kind != D_CHOICE


def test_scry_two_bottoms_in_chosen_order() -> None:
    r = _game(["Shock", "Lightning Bolt", "Forest"], "Preordain", ["Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "pass", "pass"])
    run_steps(
        r,
        [
            {"player": 0, "choose": "Lightning Bolt on the bottom"},
            {"player": 0, "choose": "Shock on the bottom"},
        ],
    )
    # Then it draws the Forest; the Shock went to the bottom last: it is the bottom card.
    assert _top_first(r) == ["Lightning Bolt", "Shock"]
    assert [r.g.cdef[c].name for c in r.g.hand[0]] == ["Forest"]


def test_scry_with_fewer_cards_looks_at_all_and_empty_library_asks_nothing() -> None:
    r = _game(["Shock"], "Augury Owl", ["Island", "Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "resolve"])
    d = r.g.decision
    assert d is not None and d.options == ("Shock on top", "Shock on the bottom")
    run_steps(r, [{"player": 0, "choose": "Shock on the bottom"}])
    assert _top_first(r) == ["Shock"]
    r = _game([], "Augury Owl", ["Island", "Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "resolve"])
    assert r.g.decision is not None and r.g.decision.kind != D_CHOICE
    assert not any(e[0] == "scry" for e in r.g.events)


def test_surveil_puts_cards_into_the_graveyard_or_back_on_top() -> None:
    lib = [{"card": "Shock", "id": "a"}, {"card": "Lightning Bolt", "id": "b"}, "Forest"]
    r = _game(lib, "Dimir Informant", ["Island", "Island", "Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "resolve"])
    d = r.g.decision
    assert d is not None and d.options[:2] == ("Shock on top", "Shock into the graveyard")
    run_steps(
        r,
        [
            {"player": 0, "choose": "Shock into the graveyard"},
            {"player": 0, "choose": "Lightning Bolt on top"},
        ],
    )
    g = r.g
    assert g.zone[r.labels["a"]] == GRAVEYARD and g.zone[r.labels["b"]] == LIBRARY
    assert _top_first(r) == ["Lightning Bolt", "Forest"]
    # The log says what was done; which card went back on top only its player sees.
    kinds = [e[0] for e in g.events]
    assert "surveil" in kinds and "surveil_graveyard" in kinds
    top = next(e for e in g.events if e[0] == "look_top")
    assert private_event(top) == (0, "  player 0 puts a card on top of their library")
    assert "surveils 2" in g.log_text()
    assert "puts Shock#2 into their graveyard (surveil)" in g.log_text()


def test_a_pending_look_clones_and_replays_to_the_same_hash() -> None:
    lib = ["Shock", "Lightning Bolt", "Craw Wurm"]
    r = _game(lib, "Augury Owl", ["Island", "Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "resolve"])
    g = r.g
    c = g.clone()
    assert c.state_hash() == g.state_hash()
    for a in g.legal_actions():
        x = g.clone()
        x.apply(a)
        y = g.clone()
        y.apply(a)
        assert x.state_hash() == y.state_hash()
    a = g.legal_actions()[3]  # Lightning Bolt on the bottom
    g.apply(a)
    assert c.state_hash() != g.state_hash()
    assert g.decision is not None and len(g.decision.options) == 4


def test_a_pending_look_survives_resampling_hidden_cards() -> None:
    """A determinizing agent re-deals hidden cards at a pending scry (the libraries are
    reshuffled): every answer still applies."""
    lib = ["Shock", "Lightning Bolt", "Craw Wurm", "Forest", "Mountain"]
    r = _game(lib, "Augury Owl", ["Island", "Island"])
    run_steps(r, [{"player": 0, "play": "spell"}, "resolve"])
    g = r.g
    for seat in (0, 1):
        for seed in range(5):
            x = g.resample_hidden(seat, seed)
            while x.decision is not None and x.decision.kind == D_CHOICE:
                x.apply(x.legal_actions()[-1])
            assert sorted(x.library[0]) == sorted(g.library[0])


def _search(library: list[Any]) -> Runner:
    raw = {
        "name": "search",
        "format": "pauper",
        "setup": {
            "turn": 3,
            "step": "main1",
            "players": [
                {"battlefield": [{"card": "Evolving Wilds", "id": "wilds"}], "library": library},
                {"library": ["Plains"]},
            ],
        },
        "expect": [{"game_over": False}],
    }
    g, labels = build(parse_scenario(raw, "test"))
    r = Runner(g, labels)
    run_steps(r, [{"player": 0, "activate": "wilds", "ability": 0}, "resolve"])
    return r


def test_a_search_offers_the_same_choice_whatever_the_library_holds() -> None:
    # CR 701.19: the library is hidden, so what the search offers must not depend on it
    # (the options, the legal moves and the prompt are all the acting seat sees of it).
    a = _search(["Island", "Island", "Swamp"])
    b = _search(["Forest", "Mountain", "Plains", "Plains", "Swamp"])
    da, db = a.g.decision, b.g.decision
    assert da is not None and db is not None and da.kind == db.kind == D_CHOICE
    assert (
        da.options
        == db.options
        == (
            *("Forest", "Island", "Mountain", "Plains", "Snow-Covered Forest", "Swamp"),
            "find nothing",
        )
    )
    assert da.prompt == db.prompt
    assert a.g.legal_actions() == b.g.legal_actions()
    # One Island found: the library keeps the rest.
    run_steps(a, [{"player": 0, "choose": "Island"}])
    assert sorted(a.g.cdef[c].name for c in a.g.library[0]) == ["Island", "Swamp"]
    assert [a.g.cdef[c].name for c in a.g.hand[0]] == []
