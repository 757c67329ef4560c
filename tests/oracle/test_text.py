"""Card data back to Oracle text (`mtg_env.oracle.text`): every core card renders to its
Oracle text (but for a fixed list of known differences) and every pauper card exactly,
from its structures alone, and the rendered text compiles back to a card that plays the
same."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from oracle_gold import oracle, set_entries

from mtg_env.engine.carddb import CardModel, load_cards
from mtg_env.engine.carddb import compile_card as load_entry
from mtg_env.engine.cards import (
    ActivatedAbility,
    CardDef,
    CardSet,
    StaticAbility,
    parse_mana_cost,
)
from mtg_env.oracle.compiler import (
    Vocabulary,
    compile_card,
    rules_of,
    strip_reminders,
)
from mtg_env.oracle.text import oracle_text

# The sets checked: the core set, and the pauper set of the templates added after it
# (entering tapped, devoid, cycling, regeneration, "doesn't untap", ...).
SETS = ("core", "pauper")

# Cards whose Oracle text the structures cannot say exactly, and why. Each renders to a
# text that compiles to the same card (the round trip below), only worded otherwise.
KNOWN_DIFFERENCES = {
    # Keywords are a set: whether Oracle keeps them on one line ("Flying, vigilance",
    # Archangel) or one a line ("Flying\nVigilance", Serra Angel) is the printing's layout.
    "Black Knight": "keyword lines",
    "Darksteel Gargoyle": "keyword lines",
    "Deadly Recluse": "keyword lines",
    "Griffin Sentinel": "keyword lines",
    "Knight of Meadowgrain": "keyword lines",
    "Sentinel Spider": "keyword lines",
    "Seraph of Dawn": "keyword lines",
    "Serra Angel": "keyword lines",
    "Sungrace Pegasus": "keyword lines",
    "Thornweald Archer": "keyword lines",
    # The same set of keywords granted in two orders (Behemoth Sledge: "lifelink and
    # trample").
    "Loxodon Warhammer": "keyword order",
    # "Untap it" (Traitorous Blood) and "Untap that creature": the same ops.
    "Act of Treason": "pronoun",
    # "Then that creature fights" beside "It fights" (Epic Confrontation): the same ops.
    "Hunt the Weak": "pronoun",
    # "Defending player controls" and "an opponent controls" are one filter (two players).
    "Star-Crowned Stag": "opponent's name",
    # The engine has no planeswalkers: "creature or planeswalker" is a creature target.
    "Devout Decree": "planeswalker",
    # "Scry 1.\nDraw a card." beside Preordain's "Scry 2, then draw a card.".
    "Opt": "line break",
    # A closing "Scry 2." on a line of its own (older templates) beside "... Scry 1." on
    # the same line (Spark Jolt).
    "Magma Jet": "line break",
    "Serum Visions": "line break",
}


@pytest.fixture(scope="module")
def core() -> CardSet:
    return load_cards("core")


@pytest.fixture(scope="module")
def pauper() -> CardSet:
    return load_cards("pauper")


@pytest.fixture(scope="module", params=SETS)
def cards(request: pytest.FixtureRequest) -> tuple[str, CardSet]:
    """Each checked set, with its name."""
    return request.param, load_cards(request.param)


def expected(card: CardDef) -> str:
    return strip_reminders(card.text).strip()


def test_every_core_card_renders_to_its_oracle_text(core: CardSet) -> None:
    assert len(core.cards) == 428
    differ = {
        name
        for name, card in core.cards.items()
        if oracle_text(card, core.tokens) != expected(card)
    }
    assert differ == set(KNOWN_DIFFERENCES)
    assert len(core.cards) - len(differ) == 410


# Pauper cards the text view renders with the same rules but other sentence breaks than
# Oracle's, each with its reason (their compiled entries are checked against Oracle's text
# by tests/oracle/test_compiler.py all the same).
PAUPER_DIFFERENCES = {
    # "Draw two cards and create a Map token.": the view writes a draw and a token as two
    # sentences.
    "Fanatical Offering": "sentence join",
    # "... until end of turn. Investigate.": the view puts investigate on a line of its
    # own, as it is on the other investigate cards.
    "Toxin Analysis": "paragraph break",
    # '... token. It has "Sacrifice this token: Add {C}."': the view writes the token's
    # ability after "with", as newer Oracle texts do (Writhing Chrysalis).
    "Nest Invader": "token ability after with",
    # "You may play it until the end of your next turn.": the view writes the duration
    # first, "Until the end of your next turn, you may play that card.", as most do.
    "Clockwork Percussionist": "impulse duration first",
}


def test_every_pauper_card_renders_to_its_oracle_text(pauper: CardSet) -> None:
    assert len(pauper.cards) == 267
    differ = {
        name
        for name, card in pauper.cards.items()
        if oracle_text(card, pauper.tokens) != expected(card)
    }
    assert differ == set(PAUPER_DIFFERENCES)


def blank(value: Any) -> Any:
    """`value` with every stored text emptied: cards', abilities', modes', targets' and
    costs' `text` fields, through ops' arguments and granted abilities."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            changes[f.name] = "" if f.name == "text" and isinstance(v, str) else blank(v)
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(blank(v) for v in value)
    if isinstance(value, frozenset):
        return frozenset(blank(v) for v in value)
    if isinstance(value, list):
        return [blank(v) for v in value]
    if isinstance(value, dict):
        return {k: blank(v) for k, v in value.items()}
    return value


def texts(value: Any) -> list[str]:
    """Every `text` field's value within `value`."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = []
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            out += [v] if f.name == "text" and isinstance(v, str) else texts(v)
        return out
    if isinstance(value, (tuple, frozenset, list)):
        return [t for v in value for t in texts(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in texts(v)]
    return []


def test_rendering_reads_no_stored_text(cards: tuple[str, CardSet]) -> None:
    _, cs = cards
    tokens = {n: blank(t) for n, t in cs.tokens.items()}
    blanked = {n: blank(c) for n, c in cs.cards.items()}
    assert set(texts(list(blanked.values()))) == {""}
    for name, card in cs.cards.items():
        assert oracle_text(blanked[name], tokens) == oracle_text(card, cs.tokens), name


def test_stored_texts_are_there_to_blank(core: CardSet, pauper: CardSet) -> None:
    """The blanking above empties texts that say the card (a renderer reading them would
    change its output)."""
    assert "Lightning Bolt deals 3 damage" in " ".join(texts(core.cards["Lightning Bolt"]))
    assert "Cycling {2}" in " ".join(texts(pauper.cards["Coordinated Charge"]))


def test_the_rendered_text_compiles_back_to_the_same_card(cards: tuple[str, CardSet]) -> None:
    """The round trip: each card's rendered text, compiled, plays as the card."""
    name, cs = cards
    entries, tokens = set_entries(name)
    vocab = Vocabulary.of([], tokens)
    wrong: list[tuple[str, Any]] = []
    for entry in entries:
        card = cs.cards[entry["name"]]
        r = compile_card(oracle(entry, oracle_text(card, cs.tokens)), vocab)
        if not r.ok or r.entry is None:
            wrong.append((card.name, [str(p) for p in r.problems]))
            continue
        back = load_entry(CardModel.model_validate(r.entry), name, 0)
        if rules_of(back) != rules_of(card):
            wrong.append((card.name, r.entry))
    assert wrong == []


def test_self_references_and_joined_clauses(core: CardSet) -> None:
    """A spell names itself, a permanent says what it is; two clauses of yours with a
    life loss say "you" in both."""
    cards = core.cards
    assert oracle_text(cards["Lightning Strike"], core.tokens) == (
        "Lightning Strike deals 3 damage to any target."
    )
    assert oracle_text(cards["Night's Whisper"], core.tokens) == (
        "You draw two cards and you lose 2 life."
    )
    assert oracle_text(cards["Concentrate"], core.tokens) == "Draw three cards."


def test_the_pauper_templates(pauper: CardSet) -> None:
    """Devoid first, "enters tapped" after the keywords (a land's first line), Cycling
    last, regeneration, "creatures you control" and the untap and attack rules."""
    cards = pauper.cards

    def text(name: str) -> str:
        return oracle_text(cards[name], pauper.tokens)

    assert text("Vestige of Emrakul") == "Devoid\nTrample"
    assert text("Piranha Fly") == "Flying\nThis creature enters tapped."
    assert text("Drifting Meadow") == "This land enters tapped.\n{T}: Add {W}.\nCycling {2}"
    assert text("Coordinated Charge") == (
        "Creatures you control get +2/+1 until end of turn.\nCycling {2}"
    )
    assert text("Unnatural Endurance") == (
        "Devoid\nTarget creature gets +2/+0 until end of turn. Regenerate it."
    )
    assert text("River Boa") == "Islandwalk\n{G}: Regenerate this creature."
    assert text("Mending Touch") == "Regenerate target creature."
    assert text("Paralyzing Grasp") == (
        "Enchant creature\nEnchanted creature doesn't untap during its controller's untap step."
    )
    assert text("Crazed Goblin") == "This creature attacks each combat if able."
    # Kicker first (how the card is cast); "it deals N damage instead" keeps the recipient.
    assert text("Academy Drake") == (
        "Kicker {4}\nFlying\nIf this creature was kicked, it enters with two +1/+1 counters on it."
    )
    assert text("Burst Lightning") == (
        "Kicker {4}\nBurst Lightning deals 2 damage to any target. If this spell was kicked, it "
        "deals 4 damage instead."
    )
    assert text("Avian Changeling") == "Changeling\nFlying"  # a line of its own, first
    assert text("Drake Hatchling") == (
        "Flying\n{U}: This creature gets +1/+0 until end of turn. Activate only once each turn."
    )
    assert text("Plated Geopede") == (
        "First strike\nLandfall — Whenever a land you control enters, this creature gets +2/+2 "
        "until end of turn."
    )
    assert text("Kor Sanctifiers") == (
        "Kicker {W}\nWhen this creature enters, if it was kicked, destroy target artifact or "
        "enchantment."
    )


def test_hybrid_costs_and_the_cards_own_untap_step(pauper: CardSet) -> None:
    """Templates no pauper card prints yet: a hybrid symbol in an ability's cost, and a
    permanent that doesn't untap during its own (your) untap step."""
    boa = pauper.cards["River Boa"]
    ability = boa.abilities[0]
    assert isinstance(ability, ActivatedAbility)
    cost = dataclasses.replace(ability.cost, mana=parse_mana_cost("{1}{G}{G/W}"))
    hybrid = dataclasses.replace(boa, abilities=(dataclasses.replace(ability, cost=cost),))
    assert (
        oracle_text(hybrid, pauper.tokens) == "Islandwalk\n{1}{G}{G/W}: Regenerate this creature."
    )
    cyclops = pauper.cards["Bloodrock Cyclops"]
    static = cyclops.abilities[0]
    assert isinstance(static, StaticAbility)
    frozen = dataclasses.replace(static, rules=frozenset({"doesnt_untap"}))
    assert oracle_text(dataclasses.replace(cyclops, abilities=(frozen,)), pauper.tokens) == (
        "This creature doesn't untap during your untap step."
    )
