"""Card data back to Oracle text (`mtg_env.oracle.text`): every core card renders to its
Oracle text (but for a fixed list of known differences), from its structures alone, and
the rendered text compiles back to a card that plays the same."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from oracle_gold import core_entries, oracle

from mtg_env.engine.carddb import CardModel, load_cards
from mtg_env.engine.carddb import compile_card as load_entry
from mtg_env.engine.cards import CardDef, CardSet
from mtg_env.oracle.compiler import (
    Vocabulary,
    compile_card,
    rules_of,
    strip_reminders,
)
from mtg_env.oracle.text import oracle_text

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


def expected(card: CardDef) -> str:
    return strip_reminders(card.text)


def test_every_core_card_renders_to_its_oracle_text(core: CardSet) -> None:
    assert len(core.cards) == 428
    differ = {
        name
        for name, card in core.cards.items()
        if oracle_text(card, core.tokens) != expected(card)
    }
    assert differ == set(KNOWN_DIFFERENCES)
    assert len(core.cards) - len(differ) == 410


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


def test_rendering_reads_no_stored_text(core: CardSet) -> None:
    tokens = {n: blank(t) for n, t in core.tokens.items()}
    cards = {n: blank(c) for n, c in core.cards.items()}
    assert set(texts(list(cards.values()))) == {""}
    assert "Lightning Bolt deals 3 damage" in " ".join(texts(core.cards["Lightning Bolt"]))
    for name, card in core.cards.items():
        assert oracle_text(cards[name], tokens) == oracle_text(card, core.tokens), name


def test_the_rendered_text_compiles_back_to_the_same_card(core: CardSet) -> None:
    """The round trip: each core card's rendered text, compiled, plays as the card."""
    entries, tokens = core_entries()
    vocab = Vocabulary.of([], tokens)
    wrong = []
    for entry in entries:
        card = core.cards[entry["name"]]
        r = compile_card(oracle(entry, oracle_text(card, core.tokens)), vocab)
        if not r.ok or r.entry is None:
            wrong.append((card.name, [str(p) for p in r.problems]))
            continue
        back = load_entry(CardModel.model_validate(r.entry), "core", 0)
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
