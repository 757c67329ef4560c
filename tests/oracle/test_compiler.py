"""The Oracle-text compiler (`mtg_env.oracle`): the gold set (the core set's 428 cards,
whose hand-written entries the compiled ones must play identically to), one test per
template family, and the precise "not supported" a card gets."""

from __future__ import annotations

from typing import Any

import pytest
from oracle_gold import core_entries, oracle, set_entries

from mtg_env.engine.carddb import CardModel
from mtg_env.engine.carddb import compile_card as load_entry
from mtg_env.oracle.compiler import (
    OracleCard,
    Vocabulary,
    compile_card,
    keyword_line,
    normalize,
    rules_of,
    strip_reminders,
)


def plays_as(entry: dict[str, Any]) -> Any:
    return rules_of(load_entry(CardModel.model_validate(entry), "gold", 0))


def test_every_card_of_the_core_set_compiles_from_its_oracle_text_to_the_same_card() -> None:
    """The gold set: each of the core set's 428 cards, compiled from its Oracle text alone
    (name, cost, type line, text, P/T), is a card the rules cannot tell from the
    hand-written one; the tokens it creates are the set's own."""
    cards, tokens = core_entries()
    assert len(cards) == 428
    vocab = Vocabulary.of([], tokens)
    known_tokens = {t["name"] for t in tokens}
    wrong = []
    for entry in cards:
        r = compile_card(oracle(entry), vocab)
        if not r.ok or r.entry is None:
            wrong.append((entry["name"], [str(p) for p in r.problems]))
            continue
        if plays_as(r.entry) != plays_as(entry):
            wrong.append((entry["name"], r.entry))
        assert {t["name"] for t in r.tokens} <= known_tokens, (entry["name"], r.tokens)
    assert wrong == []


def test_every_card_of_the_pauper_set_compiles_from_its_oracle_text_to_the_same_card() -> None:
    """The pauper set holds the cards of the templates added after the core set (entering
    tapped, hybrid mana, regeneration, ...): each compiles from its Oracle text to its
    entry, and the set uses every one of those templates."""
    cards, tokens = set_entries("pauper")
    assert len(cards) == 267
    vocab = Vocabulary.of([], tokens)
    wrong = []
    for entry in cards:
        r = compile_card(oracle(entry), vocab)
        if not r.ok or r.entry is None:
            wrong.append((entry["name"], [str(p) for p in r.problems]))
        elif plays_as(r.entry) != plays_as(entry):
            wrong.append((entry["name"], r.entry))
    assert wrong == []
    text = repr(cards)
    for used in (
        "'enters_tapped': True",
        "/",  # a hybrid symbol
        "'regenerate'",
        "'your_creatures'",
        "'doesnt_untap'",
        "'attacks_each_combat'",
        "'colors': []",
        "'Gate'",
        "'discard_self': True",
        "'regenerate': False",
        "'in_combat': True",
        "'kind': 'spell', 'types': ['creature']",
        "'keywords': ['flying']}",  # a target's filter
        "'opponent'",
        "'unblockable'",
        "'enters_with'",
        "'cast_noncreature'",
        "'kicker'",
        "'kicked_enters_with'",
        "'kicked': {'effects'",  # an added effect, and one "instead" ('otherwise')
        "'otherwise'",
        "'if': ['kicked']",
        "'changeling': True",
        "'event': 'landfall'",
        "'once_each_turn': True",
        "'echo'",
        "'tapped': True",
        "'untapped': True",
        "'min_power'",
        "'max_power'",
        "'shadow'",
        "'horsemanship'",
        "'exalted'",
        "'wither'",
        "'flanking'",
        "'bushido': 1",
        "'soulshift': 3",
        "'event': 'blocked'",
        "'token': 'Clue'",
        "'block_only_flying'",
        "'fear'",
        "'cant_attack_unless_island'",
        "'attach': {'what': 'self', 'to': 'target'}",
        "'cost': '{2}{R}', 'timing': 'sorcery'",  # an equip cost with colored mana
        "'one_or_both': True",
        "'additional_cost': {'sacrifice': ['creature']}",
        "'additional_cost': {'sacrifice': ['artifact', 'creature']}",
        "'additional_cost': {'discard': 1}",
        "'flashback': '{4}{R}'",
        "'rules': ['cant_block']",
        "'rules': ['cant_attack', 'cant_block']",
        "'rules': ['unblockable']",
        "'at_next_upkeep'",
        "'search_basic_land': {'to': 'hand'}",
        "'search_basic_land': {'to': 'battlefield_tapped'}",
        "'who': 'target_controller'",
        "'reveal_discard': {'who': 'target', 'not_types': ['creature', 'land']}",
        "'reveal_discard': {'who': 'target', 'types': ['artifact', 'creature']}",
        "'token': 'Treasure'",
        "'token': 'Food'",
        "'mana': {'sacrifice_self': True",
        "'land_type': 'Island'",
        "'land_type': 'Forest'",
        "'sacrifice_unless_pay'",
        "'event': 'targeted'",
        "'what': 'opponent_creatures'",
        "'return_to_battlefield'",
        "'shroud'",
        "'snow'",
        "'event': 'cast_instant_sorcery'",
        "'kind': 'spell', 'types': ['instant']",
        "'kind': 'spell', 'types': ['instant', 'sorcery']",
        "'affinity': 'artifact'",
        "'event': 'to_graveyard'",
        "'what': 'this_card'",
        "'metalcraft': {'effects'",
        "'hellbent': {'effects'",
        "'if': ['metalcraft']",
        "'if': ['attacking']",
        "'if': ['equipped']",
        "'to': 'each_opponent'}}, {'damage': {'amount': 1, 'to': 'opponent_creatures'",
        "'amount': {'subtype': 'Elf', 'whose': 'any'}",
        "'power': {'types': ['creature'], 'whose': 'you'}",
        "'zone': 'graveyard', 'types': ['creature'], 'times': 2",
        "'if': ['another_named']",
        "'costs_less': {'amount': 2",
        "'max_mana_value_count': 'Faerie'",
        "'untap_up_to': {'count': 2}",
        "'backup': {'count': 1, 'keywords': ['hexproof']}",
        "'ninjutsu': '{1}{U}'",
        "'event': 'combat_damage_to_player'",
        "'if_you_do'",
        "'unless_entered_this_turn'",
        "'convoke': True",
        "'buyback': '{4}'",
        "'add': ['W', 'U', 'B']",
        "'enters_tapped_unless_life': 13",
        "'look_take': {'count': 4, 'take': 1, 'rest': 'bottom'",
        "'rest': 'graveyard'",
        "'reveal': True, 'types': ['creature']",
        "'explore': {'what': 'self'}",
        "'token': 'Map'",
        "'sacrifice': ['artifact'], 'effects'",
        "'sacrifice': ['artifact', 'creature'], 'effects'",
        "'sacrifice_self': True, 'discard': 1",
        "'token': 'Blood'",
        "'additional_cost': {'sacrifice': ['land']}",
        "'to': 'opponent_creatures'",
        "'alternative_cost': {'count': 2, 'kind': 'Mountain'}",
        "'flashback_sacrifice': {'count': 1, 'kind': 'Mountain'}",
        "'madness': '{R}'",
        "'discarded_nonland'",
        "'event': 'third_draw'",
        "'return_self_from_graveyard': {'tapped': True}",
        "'discard_or_sacrifice_land'",
        "'plot': '{1}{R}'",
        "'to': 'creatures_without_flying'",
        "'gain_life_sacrificed'",
        "'opponent_discards_or_you_draw'",
        "'exile_graveyard': {'who': 'target'}",
        "'may_pay': {'cost': '{B}'",
        "'up_to': 2",
        "'up_to': 3",
        "'what': 'targets'",
        "'counter': 'stun'",
        "'event': 'leaves'",
        "'during': 'your_turn'",
        "'during': 'not_your_turn'",
        "'job_select': 'Hero'",
        "'add_subtypes': ['Wizard']",
        "'event': 'cast_noncreature', 'effects': [{'damage'",
        "'basic_types': ['Swamp', 'Mountain', 'Forest']",
        "'who': 'target_controller', 'may': True",
        "'shuffle_into_library': {'what': 'this_card'}",
        "'types': ['creature', 'land']",
        "'types': ['instant', 'sorcery'], 'owner': 'you'",
        "'event': 'cast_self'",
        "'event': 'you_sacrifice'",
        "'subtype': 'Eldrazi'",
        "'token': 'Eldrazi Spawn'",
        "'impulse': {'count': 1, 'until': 'turn'}",
        "'impulse': {'count': 2, 'until': 'next_turn'}",
        "'impulse': {'count': 1, 'until': 'next_turn'}",
        "'if': ['control_artifact']",
        "'if': ['threshold']",
        "'if': ['metalcraft']",
        "'add_mana': {'mana': '{R}{G}'}",  # from a trigger
        "'add_mana': {'mana': '{B}{B}{B}'}",  # from a spell
        "'what': 'your_creatures', 'subtype': 'Human', 'keywords': ['haste']",
        "'token': 'Human Soldier'",
        "'pay_to_copy': {'cost': '{R}{R}'}",
        "'power': {'subtype': 'Elf', 'whose': 'any', 'as_x': True}",  # +X/+X, where X is
        "'mana': {'add': ['G'], 'amount': {'subtype': 'Elf', 'whose': 'any'}}",
        "'whose': 'you', 'keyword': 'defender'",
        "'bestow': '{X}{G}{G}', 'enters_with_x': '+1/+1'",
        "'per_counter': '+1/+1'",
        "'bestow': '{4}{U}'",
        "'kind': 'creature', 'controller': 'you', 'other': True",  # another target
        "'types': ['artifact'], 'owner': 'you', 'other': True",  # ... card from your graveyard
        "'kind': 'creature', 'attacking': True",
        "'kind': 'creature', 'not_keywords': ['flying']",
        "'what': 'creatures_without_flying', 'rules': ['cant_block']",
        "'affects': {'subtypes': ['Sliver'], 'types': ['creature']}",  # All Sliver creatures
        "'pay_life': 2",
        "'prevent_damage': {'amount': 4, 'to': 'target'}",
        "'enters': {'types': ['creature'], 'other': True}",  # another creature enters
        "'enters': {'subtypes': ['Ally'], 'controller': 'you', 'other': True}, 'or_self': True",
        "'word': 'Rally'",  # an ability word
        "'event': 'second_draw'",
        "'exile_if_dies': {'what': 'target'}",
        "'skip_untap': {'what': 'target'}",
        "'return_to_hand': 'Forest'",  # a cost
        "'reveal': True, 'any_number': True",
        "'reveal_take': {'count': 4, 'types': ['creature', 'land'], 'choose': True",
        "'reveal_take': {'count': 4, 'types': ['land']",
        "'may_exile_card': {'types': ['creature']",
        "'take_initiative': {}",
        "'put_on_library': {'what': 'target'}",
        "'counter': {'what': 'target', 'exile': True}",
        "'search_basic_land': {'to': 'top'",
        "'blocked': {'types': ['creature'], 'keywords': ['flying']}",
        "'rules': ['max_one_blocker']",
        "'persist': True",
        "'undying': True",
        "'extort': True",
        "'fabricate': {'count': 1, 'token': 'Servo'}",
        "'bloodthirst': 1",
        "'exile_linked': {'what': 'target'}",
        "'return_linked': {}",
        "'cascade': True",
        "'infect': True",
        "'intimidate': True",
        "'toxic': 2",
        "'Thopter'",  # an artifact creature token
        "'all_enchantments'",
        "'attacking_creatures'",
    ):
        assert used in text, used


def test_the_comparison_tells_apart_cards_that_play_differently() -> None:
    """`rules_of` is what the gold test compares: one number, one target or one keyword
    changed is a different card; the text alone is not."""
    base = {
        "name": "Shock",
        "cost": "{R}",
        "types": ["instant"],
        "text": "Shock deals 2 damage to any target.",
        "spell": {"targets": ["any"], "effects": [{"damage": {"amount": 2, "to": "target"}}]},
    }
    same_text_changed = {**base, "text": "something else"}
    more_damage = {
        **base,
        "spell": {"targets": ["any"], "effects": [{"damage": {"amount": 3, "to": "target"}}]},
    }
    creature_only = {
        **base,
        "spell": {"targets": ["creature"], "effects": [{"damage": {"amount": 2, "to": "target"}}]},
    }
    assert plays_as(base) == plays_as(same_text_changed)
    assert plays_as(base) != plays_as(more_damage)
    assert plays_as(base) != plays_as(creature_only)


def compiled(text: str, type_line: str = "Instant", cost: str = "{1}{R}", **kw: Any) -> Any:
    r = compile_card(
        OracleCard(name="Test Card", type_line=type_line, text=text, mana_cost=cost, **kw),
        Vocabulary.of([]),
    )
    return r


@pytest.mark.parametrize(
    ("text", "spell"),
    [
        (
            "Test Card deals 3 damage to any target.",
            {"targets": ["any"], "effects": [{"damage": {"amount": 3, "to": "target"}}]},
        ),
        (
            "Destroy target nonblack creature.",
            {
                "targets": [{"kind": "creature", "not_colors": ["B"]}],
                "effects": [{"destroy": {"what": "target"}}],
            },
        ),
        (
            "Target player draws two cards and loses 2 life.",
            {
                "targets": ["player"],
                "effects": [
                    {"draw": {"count": 2, "who": "target"}},
                    {"lose_life": {"amount": 2, "who": "target"}},
                ],
            },
        ),
        (
            "Target creature you control fights target creature you don't control.",
            {
                "targets": [
                    {"kind": "creature", "controller": "you"},
                    {"kind": "creature", "controller": "opponent"},
                ],
                "effects": [{"fight": {"what": "target", "other": "target1"}}],
            },
        ),
        (
            "Counter target spell unless its controller pays {3}.",
            {
                "targets": ["spell"],
                "effects": [{"counter_unless_pay": {"cost": "{3}", "what": "target"}}],
            },
        ),
        (
            "Gain control of target creature until end of turn. Untap it. It gains haste "
            "until end of turn.",
            {
                "targets": ["creature"],
                "effects": [
                    {"gain_control": {"what": "target"}},
                    {"untap": {"what": "target"}},
                    {"grant": {"what": "target", "keywords": ["haste"]}},
                ],
            },
        ),
    ],
)
def test_spell_templates(text: str, spell: dict[str, Any]) -> None:
    r = compiled(text)
    assert r.ok, r.problems
    assert r.entry["spell"] == spell or plays_as(r.entry) == plays_as({**r.entry, "spell": spell})


def test_permanent_templates_keywords_triggers_activated_statics_and_mana() -> None:
    r = compiled(
        "Flying, haste\nWhen this creature enters, you gain 3 life.\n"
        "{2}, {T}: Target player mills two cards.\nOther Goblins you control get +1/+1.",
        type_line="Creature — Goblin",
        cost="{2}{R}",
        power="2",
        toughness="2",
    )
    assert r.ok, r.problems
    assert r.entry["keywords"] == ["flying", "haste"]
    assert r.entry["abilities"] == [
        {"triggered": {"event": "enters", "effects": [{"gain_life": {"amount": 3, "who": "you"}}]}},
        {
            "activated": {
                "cost": "{2}, {T}",
                "effects": [{"mill": {"count": 2, "who": "target"}}],
                "targets": ["player"],
            }
        },
        {
            "static": {
                "affects": {"subtypes": ["Goblin"], "controller": "you", "other": True},
                "modify_pt": [1, 1],
            }
        },
    ]
    land = compiled("{T}: Add {G} or {U}. This land deals 1 damage to you.", "Land", cost="")
    assert land.ok and land.entry["abilities"] == [
        {"mana": {"add": ["G", "U"], "damage_to_you": 1}}
    ]


def test_templates_of_the_rules_added_for_commons() -> None:
    """Entering tapped is a card field; regeneration an op; "creatures you control" a
    reference; "doesn't untap" and "attacks each combat" static rules; devoid colorless;
    a hybrid cost and a Gate land type are read as they are."""
    land = compiled("This land enters tapped.\n{T}: Add {W} or {U}.", "Land — Gate", cost="")
    assert land.ok and land.entry["enters_tapped"] is True
    assert land.entry["subtypes"] == ["Gate"]
    assert land.entry["abilities"] == [{"mana": {"add": ["W", "U"]}}]
    boa = compiled(
        "{G}: Regenerate this creature.", "Creature — Snake", "{1}{G/U}", power="2", toughness="1"
    )
    assert boa.ok and boa.entry["cost"] == "{1}{G/U}"
    assert boa.entry["abilities"] == [
        {"activated": {"cost": "{G}", "effects": [{"regenerate": {"what": "self"}}]}}
    ]
    charge = compiled("Creatures you control get +1/+1 and gain trample until end of turn.")
    assert charge.ok and charge.entry["spell"]["effects"] == [
        {"pump": {"what": "your_creatures", "power": 1, "toughness": 1}},
        {"grant": {"what": "your_creatures", "keywords": ["trample"]}},
    ]
    rules = {
        "Enchanted creature doesn't untap during its controller's untap step.": (
            "enchanted",
            "doesnt_untap",
        ),
        "This creature doesn't untap during your untap step.": ("self", "doesnt_untap"),
        "This creature attacks each combat if able.": ("self", "attacks_each_combat"),
    }
    for text, (affects, rule) in rules.items():
        r = compiled(text, "Creature — Ogre", "{2}{R}", power="3", toughness="3")
        assert r.ok, (text, r.problems)
        assert r.entry["abilities"] == [{"static": {"affects": affects, "rules": [rule]}}]
    devoid = compiled(
        "Devoid (This card has no color.)\nTrample",
        "Creature — Eldrazi",
        "{3}{R}",
        power="3",
        toughness="4",
    )
    assert devoid.ok and devoid.entry["colors"] == [] and devoid.entry["keywords"] == ["trample"]


def test_put_it_and_put_that_card_onto_the_battlefield_are_one_instruction() -> None:
    """Oracle's older "put it onto the battlefield tapped" and newer "put that card onto
    the battlefield tapped" compile to the same search (the text view writes the first)."""
    old, new = (
        compiled(
            f"Search your library for a basic land card, put {it} onto the battlefield tapped, "
            "then shuffle."
        )
        for it in ("it", "that card")
    )
    assert old.ok and new.ok, (old.problems, new.problems)
    assert new.entry["spell"] == old.entry["spell"]
    assert "search_basic_land" in repr(new.entry["spell"])


def test_kicker_templates() -> None:
    """Kicker (CR 702.33): a card field for its cost; "if this spell was kicked" an effect
    that adds to the sentences before or replaces the one before ("instead", the damage
    keeping its recipient); "if it was kicked" a trigger's intervening if; the kicked
    counters a card field."""
    more = compiled("Kicker {1}{U}\nDraw a card. If this spell was kicked, scry 2.")
    assert more.ok and more.entry["kicker"] == "{1}{U}"
    assert more.entry["spell"]["effects"] == [
        {"draw": {"count": 1, "who": "you"}},
        {"kicked": {"effects": [{"scry": {"count": 2}}]}},
    ]
    instead = compiled(
        "Kicker {4}\nTest Card deals 2 damage to target creature. If this spell was kicked, "
        "it deals 5 damage instead."
    )
    hit = {"damage": {"amount": 2, "to": "target"}}
    assert instead.ok and instead.entry["spell"]["effects"] == [
        {"kicked": {"effects": [{"damage": {"amount": 5, "to": "target"}}], "otherwise": [hit]}}
    ]
    drawn = compiled(
        "Kicker {2}\nDraw two cards. If this spell was kicked, draw three cards instead."
    )
    assert drawn.ok and drawn.entry["spell"]["effects"] == [
        {
            "kicked": {
                "effects": [{"draw": {"count": 3, "who": "you"}}],
                "otherwise": [{"draw": {"count": 2, "who": "you"}}],
            }
        }
    ]
    drake = compiled(
        "Kicker {4}\nIf this creature was kicked, it enters with two +1/+1 counters on it.",
        "Creature — Drake",
        "{2}{U}",
        power="2",
        toughness="2",
    )
    assert drake.ok and drake.entry["kicked_enters_with"] == {"+1/+1": 2}
    owl = compiled(
        "Kicker {2}\nWhen this creature enters, if it was kicked, draw two cards.",
        "Creature — Bird",
        "{1}{U}",
        power="1",
        toughness="2",
    )
    assert owl.ok and owl.entry["abilities"] == [
        {
            "triggered": {
                "event": "enters",
                "if": ["kicked"],
                "effects": [{"draw": {"count": 2, "who": "you"}}],
            }
        }
    ]
    # Without kicker nothing asks whether it was kicked (the loader's rule).
    plain = compiled("Draw a card. If this spell was kicked, scry 2.")
    assert not plain.ok and "only a card with kicker" in str(plain.problems[0])


def creature(text: str) -> Any:
    """`text` on a 2/2 creature."""
    return compiled(text, "Creature — Shapeshifter", "{2}{G}", power="2", toughness="2")


def test_landfall_changeling_and_once_each_turn_templates() -> None:
    """Landfall (an ability word before a trigger) is the event `landfall`; Changeling a
    card field (CR 702.73a); "Activate only once each turn" a flag of the ability (602.5b)."""
    lynx = creature(
        "Landfall — Whenever a land you control enters, this creature gets +2/+2 until end of turn."
    )
    assert lynx.ok and lynx.entry["abilities"] == [
        {
            "triggered": {
                "event": "landfall",
                "effects": [{"pump": {"what": "self", "power": 2, "toughness": 2}}],
            }
        }
    ]
    changeling = creature("Changeling (This card is every creature type.)\nFlying")
    assert changeling.ok and changeling.entry["changeling"] is True
    assert changeling.entry["keywords"] == ["flying"]
    wolf = creature(
        "{1}{G}: This creature gets +2/+2 until end of turn. Activate only once each turn."
    )
    assert wolf.ok and wolf.entry["abilities"] == [
        {
            "activated": {
                "cost": "{1}{G}",
                "effects": [{"pump": {"what": "self", "power": 2, "toughness": 2}}],
                "once_each_turn": True,
            }
        }
    ]


def test_a_new_token_gets_an_entry_and_a_known_token_its_name() -> None:
    vocab = Vocabulary.of(
        [],
        [
            {
                "name": "Goblin",
                "types": ["creature"],
                "subtypes": ["Goblin"],
                "colors": ["R"],
                "power": 1,
                "toughness": 1,
            }
        ],  # fmt: skip
    )
    card = OracleCard("Maker", "Sorcery", "Create two 1/1 red Goblin creature tokens.", "{2}{R}")
    r = compile_card(card, vocab)
    assert r.ok and r.entry["spell"]["effects"] == [
        {"create_token": {"token": "Goblin", "count": 2}}
    ]
    other = OracleCard("Flyers", "Sorcery", "Create a 1/1 white Spirit creature token with flying.")
    r2 = compile_card(other, vocab)
    assert r2.ok and r2.tokens == [
        {
            "name": "Spirit",
            "types": ["creature"],
            "subtypes": ["Spirit"],
            "colors": ["W"],
            "power": 1,
            "toughness": 1,
            "keywords": ["flying"],
        }  # fmt: skip
    ]


@pytest.mark.parametrize(
    ("card", "sentence", "reason"),
    [
        (
            OracleCard("Opt", "Instant", "Scry 1.\nDraw a card, then sacrifice a creature."),
            "Draw a card , then sacrifice a creature .",
            "no template reads this sentence",
        ),
        (OracleCard("Walker", "Legendary Planeswalker — Jace", ""), "", "the type 'planeswalker'"),
        (
            OracleCard("Goyf", "Creature — Lhurgoyf", "", "{1}{G}", "*", "1"),
            "power *",
            "a power or toughness not a number",
        ),
        (
            OracleCard(
                "Both",
                "Instant",
                "Choose two —\n• Draw a card.\n• Scry 1.\n• Surveil 1.",
                "{U}",
            ),
            "Choose two —",
            "a modal ability",
        ),
        (
            OracleCard(
                "Lemure",
                "Creature — Lemure",
                "{0}: This creature gets -1/-0 and gains flying until end of turn.",
                "{3}{B}",
                "4",
                "3",
            ),
            "{0} : ~ gets -1/-0 and gains flying until end of turn .",
            "an ability that costs nothing, activated without end",
        ),
        (
            OracleCard(
                "Bear",
                "Creature — Bear",
                "~ enters tapped unless you control a Forest.",
                "{1}{G}",
                "2",
                "2",
            ),
            "~ enters tapped unless you control a Forest .",
            "no template reads this static ability",
        ),
        (
            # A target chosen only when kicked would be chosen always (CR 601.2c).
            OracleCard(
                "Probe",
                "Sorcery",
                "Kicker {1}{B}\nDraw three cards, then discard two cards. If this spell was "
                "kicked, target player discards two cards.",
                "{2}{U}",
            ),
            "",
            "a target chosen only when the spell is kicked",
        ),
        (
            OracleCard("Guard", "Creature — Bear", "Cycling {2}", "{2/W}{2/W}", "2", "2"),
            "{2/W}{2/W}",
            "the mana cost: unknown mana symbol {2/W} in cost '{2/W}{2/W}'",
        ),
    ],
)
def test_a_card_that_does_not_compile_names_the_sentence_and_why(
    card: OracleCard, sentence: str, reason: str
) -> None:
    r = compile_card(card, Vocabulary.of([]))
    assert not r.ok and r.entry is None
    assert any(
        (not sentence or p.sentence == sentence) and p.reason == reason for p in r.problems
    ), r.problems


def test_reminder_text_names_and_keyword_lines() -> None:
    assert strip_reminders("Menace (This creature can't be blocked except by two.)") == "Menace"
    assert normalize("When Yargle enters, this creature deals 1 damage.", "Yargle, Glutton") == (
        "When ~ enters , ~ deals 1 damage ."
    )
    assert keyword_line("First strike; protection from black and from red") == (
        ["first_strike", "protection_from_black", "protection_from_red"],
        {},
    )
    assert keyword_line("Ward {2}") == ([], {"ward": "{2}"})
    assert keyword_line("Flying, banding") is None  # banding is not a keyword the engine has


def test_x_is_only_read_where_the_cost_has_x() -> None:
    ok = compiled("Draw X cards.", "Sorcery", cost="{X}{U}")
    assert ok.ok and ok.entry["spell"]["effects"] == [{"draw": {"count": "X", "who": "you"}}]
    no_x = compiled("Draw X cards.", "Sorcery", cost="{U}")
    assert not no_x.ok and no_x.problems[0].reason.startswith("the vocabulary:")


def test_that_player_is_the_damaged_player_or_the_target_player_and_nothing_else() -> None:
    """The engine knows "that player" as the player a damage-to-an-opponent trigger names,
    and a target player named before; the owner of a returned permanent has no reference,
    so a card that says it is reported (a fuzz of the compiled pool found the engine
    failing on such cards when they were let through)."""
    vocab = Vocabulary.of([])
    specter = OracleCard(
        "Specter",
        "Creature — Specter",
        "Whenever this creature deals damage to an opponent, that player discards a card.",
        "{2}{B}",
        "2",
        "2",
    )
    ability = compile_card(specter, vocab).entry["abilities"][0]["triggered"]
    assert ability["effects"] == [{"discard": {"count": 1, "who": "that_player"}}]
    spell = OracleCard(
        "Blast", "Sorcery", "Blast deals 2 damage to target player. That player discards a card."
    )
    assert compile_card(spell, vocab).entry["spell"]["effects"][1] == {
        "discard": {"count": 1, "who": "target"}
    }
    recoil = OracleCard(
        "Recoil",
        "Instant",
        "Return target permanent to its owner's hand. Then that player discards a card.",
    )
    r = compile_card(recoil, vocab)
    assert not r.ok and "that player" in r.problems[0].reason
