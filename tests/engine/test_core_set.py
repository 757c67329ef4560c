"""The core set (`core` format): a folder of card files, every card with a scenario that
tests it, observation keyword features only for the keywords a set uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mtg_env.cardlist import card_list_page, coverage
from mtg_env.engine import load_cards
from mtg_env.engine.carddb import CardDataError, parse_card_set, set_keywords
from mtg_env.engine.vocab import FIRST_KEYWORDS, KEYWORD_ORDER
from mtg_env.env.spaces import Layout

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios" / "core"
BASIC = 1  # supertype bit


def _snake(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def test_every_core_card_has_its_own_scenario() -> None:
    """Each card's text is tested by a scenario file of its own, `card_<name>.yaml`, that
    puts the card into play (basic lands: any scenario that uses them)."""
    cov = coverage("core", SCENARIOS)
    cards = load_cards("core").cards
    missing = []
    for name, paths in cov.items():
        if cards[name].supertypes & BASIC:
            ok = bool(paths)
        else:
            ok = any(p.stem == f"card_{_snake(name)}" for p in paths)
        if not ok:
            missing.append(name)
    assert not missing, f"cards without their own scenario: {missing}"


def test_the_card_list_page_names_every_card_and_its_test() -> None:
    page = card_list_page("core", SCENARIOS, ROOT)
    cards = load_cards("core").cards
    rows = [line for line in page.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == len(cards) + 1  # the header row
    assert all(not r.endswith("| none |") for r in rows)


def test_a_set_folder_error_names_the_part_file() -> None:
    head = {"set": "x", "tokens": []}
    good = {"cards": [{"name": "Forest", "types": ["land"], "subtypes": ["Forest"]}]}
    bad = {"cards": [{"name": "Bear", "types": ["creature"], "power": 2}]}
    cs = parse_card_set(head, "x/set.yaml", [("x/00_lands.yaml", good)])
    assert list(cs.cards) == ["Forest"]
    with pytest.raises(CardDataError, match=r"x/10_bears.yaml: card 'Bear': .*power and toughness"):
        parse_card_set(head, "x/set.yaml", [("x/00_lands.yaml", good), ("x/10_bears.yaml", bad)])
    with pytest.raises(CardDataError, match=r"x/10_bears.yaml: card 'Forest': duplicate name"):
        parse_card_set(head, "x/set.yaml", [("x/00_lands.yaml", good), ("x/10_bears.yaml", good)])
    with pytest.raises(CardDataError, match=r"x/20.yaml: a part of a card set is a mapping"):
        parse_card_set(head, "x/set.yaml", [("x/20.yaml", {"set": "y", "cards": []})])


@pytest.mark.parametrize("set_name", ["classic", "adventure", "pocket"])
def test_older_sets_keep_their_observation_keywords(set_name: str) -> None:
    """Keywords added later (hexproof, indestructible) get features only in a set that uses
    them, so the older sets' observations are what they were (append-only order)."""
    lay = Layout(load_cards(set_name))
    assert lay.keywords == tuple(sorted(FIRST_KEYWORDS))
    assert KEYWORD_ORDER[: len(FIRST_KEYWORDS)] == tuple(sorted(FIRST_KEYWORDS))


def test_set_keywords_reads_printed_granted_and_static_keywords() -> None:
    classic = set_keywords(load_cards("classic"))
    assert "flying" in classic  # printed (Serra Angel)
    assert "haste" in classic  # granted by an effect (Threaten)
    assert "protection_from_black" in classic  # a static ability (Black Ward)
    assert not {"hexproof", "indestructible"} & classic
    core = Layout(load_cards("core"))
    used = set_keywords(load_cards("core"))
    assert set(core.keywords) == set(FIRST_KEYWORDS) | used


def test_a_set_sizes_its_own_observation_tables() -> None:
    """set.yaml `layout`: core's token boards get 64 permanent slots a side and 256 entity
    rows; every other set keeps the default tables, so its observations are unchanged."""
    from mtg_env.engine.carddb import LAYOUT_LIMIT_KEYS
    from mtg_env.env.entity import EntityLayout, EntityLimits
    from mtg_env.env.spaces import Limits

    assert set(LAYOUT_LIMIT_KEYS) == set(Limits.__dataclass_fields__) | set(
        EntityLimits.__dataclass_fields__
    )
    core = Layout(load_cards("core"))
    assert core.limits == Limits(permanents=64)
    assert EntityLayout(core).limits == EntityLimits(objects=256)
    for name in ("classic", "adventure", "pocket"):
        lay = Layout(load_cards(name))
        assert lay.limits == Limits() and EntityLayout(lay).limits == EntityLimits()


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({"slots": 3}, r"x/set.yaml: field layout.slots: unknown table"),
        ({"permanents": 0}, r"x/set.yaml: field layout.permanents: a whole number"),
        ({"permanents": True}, r"x/set.yaml: field layout.permanents: a whole number"),
        ([64], r"x/set.yaml: field 'layout' must be a mapping"),
    ],
)
def test_a_bad_layout_entry_names_the_file_and_field(layout: object, message: str) -> None:
    with pytest.raises(CardDataError, match=message):
        parse_card_set({"set": "x", "layout": layout, "cards": []}, "x/set.yaml")


def test_the_core_set_uses_every_engine_keyword() -> None:
    """The pools cover every keyword the engine has (printed or granted), so that each
    is played by the agents and fuzzed on real cards: the core set every keyword but those
    added for the commons the Oracle compiler reads, which the pauper set has."""
    core = set_keywords(load_cards("core"))
    pauper = set_keywords(load_cards("pauper"))
    assert [k for k in KEYWORD_ORDER if k not in core | pauper] == []
    assert {"shadow", "horsemanship", "exalted"} <= pauper
