"""Card data and decks: validated when loaded, errors name the file, entry and field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mtg_env.engine import CardDataError, load_cards, load_decks, parse_deck
from mtg_env.engine.carddb import parse_card_set
from mtg_env.engine.cards import parse_cost
from mtg_env.engine.constants import TYPE_BITS

CLASSIC_MD = Path(__file__).resolve().parents[3] / "shared" / "cards" / "classic.md"


def _required_names() -> set[str]:
    text = CLASSIC_MD.read_text(encoding="utf-8")
    names = set()
    for line in text.splitlines():
        m = re.match(r"^\| ([^|]+?) \|", line)
        if m and m.group(1) not in ("name", "---") and not m.group(1).startswith("-"):
            cell = m.group(1)
            if cell.startswith("Plains,"):  # the five basic lands share a row
                names.update(n.strip() for n in cell.split(","))
            else:
                names.add(cell.strip())
    return names


@pytest.mark.skipif(not CLASSIC_MD.exists(), reason="shared/cards/classic.md not beside the repo")
def test_classic_set_has_every_required_card() -> None:
    cards = load_cards("classic").cards
    missing = sorted(n for n in _required_names() if n not in cards)
    assert missing == []


def test_bundled_decks_are_valid_40_card_decks() -> None:
    decks = load_decks("classic")
    assert len(decks) >= 5
    for d in decks.values():
        assert len(d.cards) == 40
        assert d.format == "classic"


def _set(card: dict) -> dict:
    return {"set": "t", "cards": [card]}


def test_unknown_key_names_file_card_and_field() -> None:
    with pytest.raises(CardDataError) as e:
        parse_card_set(
            _set(
                {
                    "name": "Bad Bear",
                    "types": ["creature"],
                    "power": 2,
                    "toughness": 2,
                    "colour": "green",
                }
            ),
            "x.yaml",
        )
    msg = str(e.value)
    assert "x.yaml" in msg and "Bad Bear" in msg and "colour" in msg


def test_unknown_keyword_is_an_error() -> None:
    with pytest.raises(CardDataError) as e:
        parse_card_set(
            _set(
                {
                    "name": "Flier",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "keywords": ["flyng"],
                }
            ),
            "x.yaml",
        )
    assert "Flier" in str(e.value) and "keywords" in str(e.value) and "flyng" in str(e.value)


@pytest.mark.parametrize("cost", ["{2}{X}", "2G", "{G}{T}", "{G}}"])
def test_malformed_cost_is_an_error(cost: str) -> None:
    with pytest.raises(CardDataError) as e:
        parse_card_set(
            _set(
                {"name": "Costly", "cost": cost, "types": ["creature"], "power": 1, "toughness": 1}
            ),
            "x.yaml",
        )
    assert "Costly" in str(e.value) and "cost" in str(e.value)


def test_unknown_effect_op_is_an_error() -> None:
    card = {
        "name": "Zap",
        "cost": "{R}",
        "types": ["instant"],
        "spell": {"targets": ["any"], "effects": [{"explode": {"amount": 3}}]},
    }
    with pytest.raises(CardDataError) as e:
        parse_card_set(_set(card), "x.yaml")
    assert "Zap" in str(e.value) and "explode" in str(e.value)


def test_unknown_token_reference_is_an_error() -> None:
    card = {
        "name": "Alarm",
        "cost": "{W}",
        "types": ["instant"],
        "spell": {"effects": [{"create_token": {"token": "Goblin"}}]},
    }
    with pytest.raises(CardDataError) as e:
        parse_card_set(_set(card), "x.yaml")
    assert "Alarm" in str(e.value) and "Goblin" in str(e.value)


def test_creature_without_power_is_an_error() -> None:
    with pytest.raises(CardDataError) as e:
        parse_card_set(_set({"name": "Blob", "types": ["creature"]}), "x.yaml")
    assert "Blob" in str(e.value) and "power" in str(e.value)


def test_cost_parsing() -> None:
    c = parse_cost("{2}{G}{G}")
    assert (c.mana.generic, len(c.mana.pips), c.tap, c.mana.mv) == (2, 2, False, 4)
    c = parse_cost("{1}, {T}")
    assert c.tap and c.mana.generic == 1


def test_deck_with_unknown_card_names_it() -> None:
    with pytest.raises(CardDataError) as e:
        parse_deck(
            {"name": "Typo", "format": "classic", "cards": ["17 Forest", "23 Grizly Bears"]},
            "typo.yaml",
        )
    msg = str(e.value)
    assert "typo.yaml" in msg and "Grizly Bears" in msg and "cards[1]" in msg


def test_deck_of_wrong_size_is_an_error() -> None:
    with pytest.raises(CardDataError) as e:
        parse_deck({"name": "Small", "cards": ["20 Forest"]}, "small.yaml")
    assert "20 cards" in str(e.value) and "40" in str(e.value)


def test_deck_unknown_key_is_an_error() -> None:
    with pytest.raises(CardDataError) as e:
        parse_deck({"name": "K", "cards": ["40 Forest"], "sideboard": []}, "k.yaml")
    assert "sideboard" in str(e.value)


def test_kiki_jiki_text_is_the_wording_the_engine_follows() -> None:
    """The engine grants the token haste (a copy of the token has none, the layer article's
    worked example); the card's text says so in its original wording, not today's Oracle
    "except it has haste", under which haste would be a copiable value (CR 707.9b)."""
    text = load_cards("classic").cards["Kiki-Jiki, Mirror Breaker"].text
    assert "That token has haste." in text and "except it has haste" not in text


def test_a_characteristic_defining_ability_is_data() -> None:
    """A CDA (CR 604.3) is declared in the card vocabulary, not named: what it counts, and
    a constant; an unknown count is an error naming the card and the field."""
    from mtg_env.engine.carddb import parse_card_set

    cda = {"power": {"count": "card_types_in_graveyards"}, "toughness": {"count": "x"}}
    card = {
        "name": "Counting Beast",
        "types": ["creature"],
        "power": "*",
        "toughness": "*",
        "abilities": [{"static": {"affects": "self", "cda": cda}}],
    }
    with pytest.raises(CardDataError, match=r"Counting Beast.*cda\.toughness\.count"):
        parse_card_set(_set(card), "t.yaml")
    cda["toughness"] = {"count": "card_types_in_graveyards", "plus": 2}
    ab = parse_card_set(_set(card), "t.yaml").cards["Counting Beast"].abilities[0]
    assert ab.defines_pt and ab.cda.toughness.plus == 2
    with pytest.raises(CardDataError, match="Counting Beast"):
        card["abilities"] = [{"static": {"affects": "self", "cda": "tarmogoyf"}}]
        parse_card_set(_set(card), "t.yaml")


def test_every_effect_op_is_declared_once_with_its_schema_behaviour_and_text() -> None:
    from mtg_env.engine.carddb import OP_MODELS
    from mtg_env.engine.cards import ActivatedAbility, TriggeredAbility
    from mtg_env.engine.effects import OPS, op_text

    assert {n: d.model for n, d in OPS.items() if d.model is not None} == OP_MODELS
    seen = set()
    for set_name in ("classic", "adventure", "pocket"):
        cs = load_cards(set_name)
        for cd in [*cs.cards.values(), *cs.tokens.values()]:
            parts = [cd, *cd.halves]
            ops = [o for c in parts if c.spell is not None for o in c.spell.effects]
            ops += [
                o
                for c in parts
                for ab in c.abilities
                if isinstance(ab, ActivatedAbility | TriggeredAbility)
                for o in ab.effects
            ]
            for o in ops:
                assert o.name in OPS, o.name
                assert op_text(o), o.name
                seen.add(o.name)
    assert len(seen) >= 20  # the sets use most of the vocabulary


@pytest.mark.parametrize("name", ["../cards/core", "core/../core", "/etc/passwd", "", "x.yaml"])
def test_a_card_set_name_is_never_a_path(name: str) -> None:
    # A set name read from a file (a policy's `game_format`) names a set of the package's
    # data; anything else is refused before a file is looked for.
    with pytest.raises(CardDataError, match="unknown card set"):
        load_cards(name)


def test_cr_702_73a_a_changeling_is_every_creature_type_in_every_zone() -> None:
    """Changeling is a characteristic-defining ability (CR 702.73a, 604.3): the card in
    hand is a Goblin and an Elf as much as on the battlefield, and no land type."""
    from mtg_env.scenario import build, parse_scenario

    raw = {
        "name": "changeling",
        "format": "pauper",
        "setup": {
            "turn": 3,
            "players": [
                {
                    "hand": [{"card": "Avian Changeling", "id": "hand"}],
                    "battlefield": [
                        {"card": "Avian Changeling", "id": "out"},
                        {"card": "Kor Sanctifiers", "id": "kor"},
                    ],
                },
                {},
            ],
        },
        "expect": [{"object": "out", "zone": "battlefield"}],
    }
    g, labels = build(parse_scenario(raw, "changeling.yaml"))
    for where in ("hand", "out"):
        ch = g.chars(labels[where])
        assert ch.has_subtype("Goblin") and ch.has_subtype("Elf") and ch.has_subtype("Soldier")
        assert not ch.has_subtype("Forest") and not ch.has_subtype("Aura")
    assert not g.chars(labels["kor"]).has_subtype("Goblin")


def test_only_a_card_with_kicker_asks_whether_it_was_kicked() -> None:
    """Kicker's linked abilities (CR 702.33d) need a kicker: the loader says so."""
    card = {
        "name": "Not Kicked",
        "cost": "{R}",
        "types": ["instant"],
        "spell": {"effects": [{"kicked": {"effects": [{"draw": {"count": 1}}]}}]},
    }
    with pytest.raises(CardDataError, match="only a card with kicker"):
        parse_card_set({"set": "t", "cards": [card]}, "t.yaml")
    with pytest.raises(CardDataError, match="'kicked' takes the fields effects, otherwise"):
        parse_card_set(
            {
                "set": "t",
                "cards": [
                    {**card, "kicker": "{1}", "spell": {"effects": [{"kicked": {"then": []}}]}}
                ],
            },
            "t.yaml",
        )


@pytest.mark.parametrize("field", ["kicker", "echo"])
@pytest.mark.parametrize("cost", ["{X}", "{0}", "{2}{X}"])
def test_cr_702_30a_702_33a_a_kicker_or_echo_cost_is_mana_without_x(field: str, cost: str) -> None:
    """Kicker and echo costs are mana the controller pays (702.33a, 702.30a): a cost that is
    no mana, or has X (nothing would say what X is), is refused naming the card and field."""
    card = {"name": "Costly", "cost": "{R}", "types": ["creature"], "power": 1, "toughness": 1}
    with pytest.raises(CardDataError, match=rf"Costly.*{field}.*the {field} cost is some mana"):
        parse_card_set({"set": "t", "cards": [{**card, field: cost}]}, "t.yaml")
    assert parse_card_set({"set": "t", "cards": [{**card, field: "{1}{R}"}]}, "t.yaml")


def test_trigger_flags_follow_the_cards_of_the_set() -> None:
    # Casting, a land entering, attacking alone and declaring blockers look for their
    # triggers only in a set that has some: each flag is set by the set's own cards.
    pauper = load_cards("pauper")
    assert pauper.block_triggers  # Benalish Cavalry's flanking, Devoted Retainer's bushido
    assert pauper.alone_triggers and pauper.cast_triggers
    classic = load_cards("classic")
    assert not classic.block_triggers
    flanker = {"name": "Rider", "types": ["creature"], "power": 2, "toughness": 2}
    plain = parse_card_set(_set(flanker), "t.yaml")
    assert not plain.block_triggers
    flanked = parse_card_set(_set({**flanker, "keywords": ["flanking"]}), "t.yaml")
    assert flanked.block_triggers
    # Targeting looks for "becomes the target" triggers (ward among them) only where some
    # card has one.
    assert pauper.target_triggers  # Phantasmal Bear
    assert not plain.target_triggers
    assert parse_card_set(_set({**flanker, "ward": "{2}"}), "t.yaml").target_triggers


@pytest.mark.parametrize(
    ("mana", "why"),
    [
        ({"cost": "{1}, {T}", "add": ["R"]}, "field cost"),  # a filter: not a source of its own
        ({"cost": "", "add": ["R"]}, "field cost"),  # costs nothing at all
    ],
)
def test_a_mana_ability_costs_tapping_or_sacrificing_the_permanent(
    mana: dict[str, object], why: str
) -> None:
    with pytest.raises(CardDataError, match=rf"Odd Relic.*{why}"):
        parse_card_set(
            _set(
                {
                    "name": "Odd Relic",
                    "cost": "{1}",
                    "types": ["artifact"],
                    "abilities": [{"mana": mana}],
                }
            ),
            "x.yaml",
        )


def test_a_permanent_sacrificed_for_mana_has_no_other_mana_ability() -> None:
    """Payment treats a permanent as one source, sacrificed when spent or not (engine.mana):
    a card with both kinds of mana ability is refused, naming it."""
    abilities = [
        {"mana": {"add": ["G"]}},
        {"mana": {"add": ["R"], "sacrifice_self": True}},
    ]
    with pytest.raises(CardDataError, match="Two Ways"):
        parse_card_set(
            _set(
                {"name": "Two Ways", "cost": "{1}", "types": ["artifact"], "abilities": abilities}
            ),
            "x.yaml",
        )
    ok = parse_card_set(
        _set({"name": "Petal", "cost": "{0}", "types": ["artifact"], "abilities": abilities[1:]}),
        "x.yaml",
    )
    (ab,) = ok.cards["Petal"].abilities
    assert ab.cost.tap and ab.cost.sacrifice_self


def test_cr_601_2f_a_cost_reduction_reduces_only_the_generic_part() -> None:
    """Affinity's reduction (702.41a): {4}{U} less 3 is {1}{U}; less 9 is {U}, never below."""
    from mtg_env.engine.cards import parse_mana_cost

    cost = parse_mana_cost("{4}{U}")
    assert cost.less(3) == parse_mana_cost("{1}{U}")
    assert cost.less(9) == parse_mana_cost("{U}")
    assert cost.less(9).text == "{U}" and cost.less(0) == cost


def test_each_set_flag_says_what_its_cards_have() -> None:
    """A set's flags (which triggers and keywords its cards have, which a game looks for
    only then) are each set by their own cards: a set with plot and no "during your turn"
    static has `plot` and not `turn_statics`, and the reverse."""
    import yaml

    folder = Path("mtg_env/data/cards/pauper")
    tokens = yaml.safe_load((folder / "set.yaml").read_text())["tokens"]
    cards = {}
    for f in sorted(folder.glob("[0-9]*.yaml")):
        for e in yaml.safe_load(f.read_text())["cards"]:
            cards[e["name"]] = e
    flags = (
        "cast_triggers",
        "cast_self_triggers",
        "flashback",
        "turn_statics",
        "plot",
        "sacrifice_triggers",
        "leave_triggers",
        "draw_triggers",
        "impulse",
        "add_mana",
        "enters_triggers",
        "prevent_next",
        "exile_if_dies",
        "skip_untap",
        "undercity",
        "bloodthirst",
        "linked_exile",
        "cast_spell_triggers",
        "poison",
    )
    expected = {
        "Highway Robbery": {"plot"},
        "Hunter's Blowgun": {"turn_statics"},
        "Writhing Chrysalis": {"cast_self_triggers", "sacrifice_triggers"},
        "Lava Dart": {"flashback"},
        "Cryogen Relic": {"leave_triggers"},
        "Sneaky Snacker": {"draw_triggers"},
        "Reckless Impulse": {"impulse"},
        "Burning-Tree Emissary": {"add_mana"},
        "Dark Ritual": {"add_mana"},
        "Soul Warden": {"enters_triggers"},
        "Kalastria Healer": {"enters_triggers"},
        "Mending Hands": {"prevent_next"},
        "Erudite Wizard": {"draw_triggers"},
        "Lava Coil": {"exile_if_dies"},
        "Take into Custody": {"skip_untap"},
        "Avenging Hunter": {"undercity"},
        "Bloodrage Vampire": {"bloodthirst"},
        "Syndic of Tithes": {"cast_triggers", "cast_spell_triggers"},
        "Journey to Nowhere": {"linked_exile", "leave_triggers"},
        "Glistener Elf": {"poison"},
        "Pestilent Syphoner": {"poison"},
    }
    for name, want in expected.items():
        cs = parse_card_set({"set": "x", "tokens": tokens, "cards": [cards[name]]}, "<x>")
        assert {f for f in flags if getattr(cs, f)} == want, name


def test_an_unknown_static_condition_is_one_error() -> None:
    card = {
        "name": "Odd",
        "types": ["creature"],
        "power": 1,
        "toughness": 1,
        "abilities": [{"static": {"affects": "self", "modify_pt": [1, 1], "if": ["sunny"]}}],
    }
    with pytest.raises(CardDataError, match=r"<x>: .*unknown condition 'sunny'"):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")


def test_cr_605_1a_an_activated_ability_that_adds_mana_is_one_error() -> None:
    """It would be a mana ability (no stack), which card data writes `mana:`; "Add ..." as
    an effect belongs to spells and triggered abilities (CR 106.4)."""
    card = {
        "name": "Odd",
        "types": ["artifact"],
        "abilities": [
            {"activated": {"cost": "{T}", "effects": [{"add_mana": {"mana": "{C}{C}"}}]}}
        ],
    }
    with pytest.raises(CardDataError, match=r"<x>: .*adds mana is a mana ability"):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")


@pytest.mark.parametrize("mana", ["{2}", "R", "{R}{X}", "", "{R}" * 11])
def test_cr_106_4_added_mana_is_mana_symbols(mana: str) -> None:
    card = {
        "name": "Odd",
        "types": ["instant"],
        "spell": {"effects": [{"add_mana": {"mana": mana}}]},
    }
    with pytest.raises(CardDataError, match=r"<x>: .*mana"):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")


def test_a_creature_type_narrows_only_a_group_of_creatures() -> None:
    grant = {"what": "target", "subtype": "Human", "keywords": ["haste"]}
    card = {
        "name": "Odd",
        "types": ["instant"],
        "spell": {"targets": [{"kind": "creature"}], "effects": [{"grant": grant}]},
    }
    with pytest.raises(CardDataError, match=r"<x>: .*'subtype' narrows a group of creatures"):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")


def _artifact(*abilities: dict[str, Any]) -> dict[str, Any]:
    return {"name": "Stone", "cost": "{2}", "types": ["artifact"], "abilities": list(abilities)}


def test_cr_106_4_a_mana_ability_that_makes_several_mana() -> None:
    """ "{T}: Add {C}{C}." is one mana ability making two mana (`amount`); a set with one
    keeps mana pools (`add_mana`), where a payment's unspent mana goes."""
    cs = parse_card_set(
        {"set": "x", "cards": [_artifact({"mana": {"add": ["C"], "amount": 2}})]}, "<x>"
    )
    (ab,) = cs.cards["Stone"].abilities
    assert ab.amount == 2 and not ab.per and cs.add_mana


@pytest.mark.parametrize(
    ("abilities", "error"),
    [
        ([{"mana": {"add": ["R", "G"], "amount": 2}}], "more than one mana is of one kind"),
        ([{"mana": {"add": ["G"], "amount": {"zone": "hand"}}}], "counts permanents on the"),
        (
            [{"mana": {"add": ["C"], "amount": 2}}, {"mana": {"add": ["R"]}}],
            "makes several mana has no other one",
        ),
    ],
)
def test_cr_106_4_several_mana_is_one_kind_counted_on_the_battlefield(
    abilities: list[dict[str, Any]], error: str
) -> None:
    with pytest.raises(CardDataError, match=error):
        parse_card_set({"set": "x", "cards": [_artifact(*abilities)]}, "<x>")


def _bestow_card(**fields: Any) -> dict[str, Any]:
    card: dict[str, Any] = {
        "name": "Nymph",
        "cost": "{1}{G}",
        "types": ["enchantment", "creature"],
        "subtypes": ["Nymph"],
        "power": 1,
        "toughness": 1,
        "bestow": "{3}{G}",
        "abilities": [{"static": {"affects": "enchanted", "modify_pt": [1, 1]}}],
    }
    card.update(fields)
    return card


def test_cr_702_103a_a_bestow_card_has_an_aura_form() -> None:
    """The set keeps each bestow card's Aura form: an Aura enchantment with enchant
    creature, no creature type, no P/T, naming its card to become it again."""
    cs = parse_card_set({"set": "x", "cards": [_bestow_card()]}, "<x>")
    card = cs.cards["Nymph"]
    aura = cs.bestowed["Nymph"]
    assert card.bestow is not None and card.bestow.text == "{3}{G}" and not card.bestowed
    assert aura.bestowed and aura.half_of == "Nymph" and aura.name == "Nymph"
    assert aura.types == TYPE_BITS["enchantment"] and aura.subtypes == {"Aura"}
    assert aura.power is None and aura.enchant is not None and aura.enchant.kind == "creature"
    assert aura.abilities == card.abilities
    plain = parse_card_set({"set": "x", "cards": [_bestow_card(bestow=None)]}, "<x>")
    assert plain.bestowed == {}


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"types": ["creature"]}, "only an enchantment creature has bestow"),
        ({"bestow": "{X}{G}"}, "the bestow cost has X only if the mana cost has X"),
        ({"bestow": "{T}"}, "bestow"),
        (
            {"abilities": [{"static": {"affects": "enchanted", "per_counter": "+1/+1"}}]},
            "'per_counter' counts how many times 'modify_pt' applies",
        ),
        ({"cost": "{X}{G}"}, "uses X in its spell's effects"),
        ({"enters_with_x": "+1/+1"}, "only a spell with {X} in its mana cost uses X"),
    ],
)
def test_cr_702_103a_bestow_and_x_counters_errors(fields: dict[str, Any], error: str) -> None:
    with pytest.raises(CardDataError, match=r"<x>: card 'Nymph': .*" + re.escape(error)):
        parse_card_set({"set": "x", "cards": [_bestow_card(**fields)]}, "<x>")


def test_cr_107_3m_x_counters_only_on_a_permanent() -> None:
    card = {
        "name": "Nymph",
        "cost": "{X}{G}",
        "types": ["sorcery"],
        "enters_with_x": "+1/+1",
        "spell": {"effects": [{"draw": {"count": "X", "who": "you"}}]},
    }
    with pytest.raises(CardDataError, match=r"<x>: card 'Nymph': .*only a permanent enters"):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")


def test_cr_602_2b_a_returned_land_is_a_cost() -> None:
    """ "Return a Forest you control to its owner's hand:" is a cost of a land type (or of a
    card type: "a land"), kept with the ability's cost as what is chosen to pay it."""
    ranger = {
        "name": "Ranger",
        "cost": "{G}",
        "types": ["creature"],
        "power": 1,
        "toughness": 1,
        "abilities": [
            {
                "activated": {
                    "cost": "",
                    "return_to_hand": "Forest",
                    "targets": ["creature"],
                    "effects": [{"untap": {"what": "target"}}],
                }
            }
        ],
    }
    cs = parse_card_set({"set": "x", "cards": [ranger]}, "<x>")
    (ab,) = cs.cards["Ranger"].abilities
    assert ab.cost.returned is not None and ab.cost.returned.subtype == "Forest"
    ranger["abilities"][0]["activated"]["return_to_hand"] = "land"
    cs = parse_card_set({"set": "x", "cards": [ranger]}, "<x>")
    (ab,) = cs.cards["Ranger"].abilities
    assert ab.cost.returned is not None and ab.cost.returned.types == TYPE_BITS["land"]
    ranger["abilities"][0]["activated"]["sacrifice"] = ["creature"]
    with pytest.raises(CardDataError, match=r"<x>: card 'Ranger': .*discard, sacrifice or return"):
        parse_card_set({"set": "x", "cards": [ranger]}, "<x>")
    ranger["abilities"][0]["activated"].pop("sacrifice")
    ranger["abilities"][0]["activated"]["return_to_hand"] = "Elf"
    with pytest.raises(CardDataError, match=r"<x>: card 'Ranger': .*return_to_hand"):
        parse_card_set({"set": "x", "cards": [ranger]}, "<x>")


@pytest.mark.parametrize(
    ("op", "error"),
    [
        (
            {"look_take": {"count": 5, "any_number": True, "rest": "bottom"}},
            "'any_number' reveals cards of 'types'",
        ),
        (
            {"reveal_take": {"count": 4, "types": ["land"], "choose": True, "rest": "graveyard"}},
            "'choose' is a choice among two or more 'types'",
        ),
        ({"reveal_take": {"count": 4, "types": [], "rest": "graveyard"}}, "types"),
        (
            {"may_exile_card": {"types": ["creature"], "effects": [], "count": 2}},
            "'may_exile_card' takes the fields effects, types",
        ),
        ({"may_exile_card": {"types": ["planet"], "effects": []}}, "types"),
    ],
)
def test_cr_701_20a_reveal_and_exile_ops_errors(op: dict[str, Any], error: str) -> None:
    card = {"name": "Odd", "types": ["sorcery"], "spell": {"effects": [op]}}
    with pytest.raises(CardDataError, match=r"<x>: card 'Odd': .*" + re.escape(error)):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")


def test_cr_725_a_set_that_takes_the_initiative_has_undercitys_tokens() -> None:
    """A card that takes the initiative brings Undercity (its nine rooms, CR 309.4) into
    its set; the tokens the rooms create are the set's own tokens with the same
    characteristics, whatever their names. A set without one is one error naming it."""
    import yaml

    folder = Path("mtg_env/data/cards/pauper")
    tokens = yaml.safe_load((folder / "set.yaml").read_text())["tokens"]
    hunter = {
        "name": "Hunter",
        "cost": "{4}{G}",
        "types": ["creature"],
        "power": 5,
        "toughness": 4,
        "abilities": [{"triggered": {"event": "enters", "effects": [{"take_initiative": {}}]}}],
    }
    renamed = [
        dict(t, name="Skeleton 4/1 B menace") if t["name"] == "Skeleton" else t for t in tokens
    ]
    cs = parse_card_set({"set": "x", "tokens": renamed, "cards": [hunter]}, "<x>")
    rooms = {r.name: r for r in cs.undercity}
    assert len(rooms) == 9 and cs.undercity[0].name == "Secret Entrance"
    assert [cs.undercity[i].name for i in rooms["Secret Entrance"].leads_to] == [
        "Forge",
        "Lost Well",
    ]
    assert rooms["Throne of the Dead Three"].leads_to == ()
    (make,) = rooms["Catacombs"].ability.effects
    assert make.args["token"] == "Skeleton 4/1 B menace"
    plain = parse_card_set({"set": "x", "tokens": tokens, "cards": []}, "<x>")
    assert plain.undercity == ()
    lacking = [t for t in tokens if t["name"] != "Skeleton"]
    with pytest.raises(
        CardDataError, match=r"<x>: card 'Hunter': field take_initiative: .*Skeleton"
    ):
        parse_card_set({"set": "x", "tokens": lacking, "cards": [hunter]}, "<x>")


def test_cr_702_123a_fabricate_names_a_token_of_its_set() -> None:
    """Fabricate's Servo is a token of the card's set: an unknown one is one error naming
    the card and the field."""
    card = {
        "name": "Maker",
        "cost": "{2}",
        "types": ["artifact", "creature"],
        "power": 1,
        "toughness": 1,
        "fabricate": {"count": 2, "token": "Servo"},
    }
    with pytest.raises(CardDataError, match=r"<x>: card 'Maker': field fabricate.token: .*Servo"):
        parse_card_set({"set": "x", "cards": [card]}, "<x>")
    servo = {"name": "Servo", "types": ["artifact", "creature"], "power": 1, "toughness": 1}
    cs = parse_card_set({"set": "x", "tokens": [servo], "cards": [card]}, "<x>")
    (ab,) = cs.cards["Maker"].abilities
    assert ab.event == "enters" and ab.effects[0].args == {"count": 2, "token": "Servo"}
