"""Ward (CR 702.21) in card data, and the trigger events table: what the loader accepts
and what it compiles to."""

from __future__ import annotations

import pytest

from mtg_env.engine import load_cards
from mtg_env.engine.carddb import CardDataError, parse_card_set
from mtg_env.engine.cards import TriggeredAbility
from mtg_env.engine.vocab import FIRST_KEYWORDS, KEYWORD_ORDER, TRIGGER_EVENTS

HEAD = {"set": "x", "tokens": []}


def _card(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": "Warded",
        "cost": "{3}{U}",
        "types": ["creature"],
        "power": 3,
        "toughness": 1,
    }
    base.update(kw)
    return base


def test_ward_field_gives_the_keyword_and_its_triggered_ability() -> None:
    cs = parse_card_set({**HEAD, "cards": [_card(ward="{2}", keywords=["flying"])]}, "x.yaml")
    cd = cs.cards["Warded"]
    assert cd.keywords == frozenset({"flying", "ward"})
    (ab,) = cd.abilities
    assert isinstance(ab, TriggeredAbility)
    assert ab.event == "targeted_by_opponent" and ab.text == "Ward {2}"
    assert [(op.name, op.args) for op in ab.effects] == [("counter_unless_pay", {"cost": "{2}"})]


def test_ward_needs_a_cost_and_is_not_a_plain_keyword() -> None:
    with pytest.raises(CardDataError, match="'ward' has a cost"):
        parse_card_set({**HEAD, "cards": [_card(keywords=["ward"])]}, "x.yaml")
    with pytest.raises(CardDataError, match="ward costs some mana"):
        parse_card_set({**HEAD, "cards": [_card(ward="{0}")]}, "x.yaml")
    with pytest.raises(CardDataError, match="ward"):
        parse_card_set({**HEAD, "cards": [_card(ward="2")]}, "x.yaml")


def test_ward_is_appended_to_the_keyword_order() -> None:
    # Append-only: the keywords added since the first ones, in the order they were added
    # (later ones after them).
    added = ("hexproof", "indestructible", "ward", "shadow", "horsemanship", "exalted")
    start = len(FIRST_KEYWORDS)
    assert KEYWORD_ORDER[:start] == tuple(sorted(FIRST_KEYWORDS))
    assert KEYWORD_ORDER[start : start + len(added)] == added
    assert KEYWORD_ORDER[start + len(added) :] == ("wither", "flanking", "fear", "shroud")


def test_trigger_events_are_declared_once_with_their_rule() -> None:
    assert {"attacks", "blocks", "targeted_by_opponent"} <= set(TRIGGER_EVENTS)
    assert TRIGGER_EVENTS["attacks"].rule == "508.1m"
    assert TRIGGER_EVENTS["blocks"].rule == "509.1i"
    bad = _card(abilities=[{"triggered": {"event": "attack", "effects": []}}])
    with pytest.raises(CardDataError, match="unknown trigger event 'attack'"):
        parse_card_set({**HEAD, "cards": [bad]}, "x.yaml")
    # Every event the core set uses is declared.
    for cd in load_cards("core").cards.values():
        for ab in cd.abilities:
            if isinstance(ab, TriggeredAbility):
                assert ab.event in TRIGGER_EVENTS
