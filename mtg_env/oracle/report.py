"""Compiling a card database and reporting its coverage: how many cards compile, per set,
per rarity, per layout and per template, and the most common sentences no template reads
(numbers written N and mana costs {COST}, so that one template's sentences count together).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from .compiler import Compiled, Vocabulary, compile_card
from .database import ONE_FACE, DbCard

TOP_SENTENCES = 40
# The observation tables of a compiled card set (`layout` in a card-set file).
COMPILED_LAYOUT = {"permanents": 128, "stack": 48, "objects": 384}


def template_of(sentence: str) -> str:
    """A sentence with its numbers and mana costs generalized."""
    s = re.sub(r"(\{[^}]+\})+", "{COST}", sentence)
    return re.sub(r"(?<!\w)[+-]?\d+\b", "N", s)


@dataclass
class Coverage:
    """The counts of one compile."""

    database: str
    cards: int = 0
    compiled: int = 0
    commons: int = 0
    commons_compiled: int = 0
    by_set: dict[str, list[int]] = field(default_factory=dict)  # code -> [compiled, cards]
    by_rarity: dict[str, list[int]] = field(default_factory=dict)
    by_layout: dict[str, list[int]] = field(default_factory=dict)
    by_template: dict[str, list[int]] = field(default_factory=dict)  # lines, not cards
    unsupported: Counter[str] = field(default_factory=Counter)  # template -> cards
    unsupported_commons: Counter[str] = field(default_factory=Counter)  # the same, commons
    reasons: Counter[str] = field(default_factory=Counter)

    def add(self, db: DbCard, result: Compiled | None, why: str = "") -> None:
        ok = result is not None and result.ok
        self.cards += 1
        self.compiled += ok
        if db.common:
            self.commons += 1
            self.commons_compiled += ok
        for code in db.sets:
            _bump(self.by_set, code, ok)
        for r in sorted(db.rarities) or ["(no rarity in the database)"]:
            _bump(self.by_rarity, r, ok)
        _bump(self.by_layout, db.layout, ok)
        if result is None:
            self.reasons[why] += 1
            return
        for kind, line_ok in result.lines:
            _bump(self.by_template, kind, line_ok)
        seen = set()
        for p in result.problems:
            t = template_of(p.sentence)
            if t not in seen:  # a card counts once per sentence template
                seen.add(t)
                self.unsupported[t] += 1
                if db.common:
                    self.unsupported_commons[t] += 1
                self.reasons[p.reason] += 1

    def as_json(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "cards": self.cards,
            "compiled": self.compiled,
            "commons": self.commons,
            "commons_compiled": self.commons_compiled,
            "by_set": self.by_set,
            "by_rarity": self.by_rarity,
            "by_layout": self.by_layout,
            "by_template": self.by_template,
            "unsupported": self.unsupported.most_common(TOP_SENTENCES),
            "unsupported_commons": self.unsupported_commons.most_common(TOP_SENTENCES),
            "reasons": self.reasons.most_common(TOP_SENTENCES),
        }

    def markdown(self) -> str:
        def pct(a: int, b: int) -> str:
            return f"{a:,}/{b:,} ({100 * a / b:.1f}%)" if b else "0/0"

        out = [
            f"# Coverage of {self.database}",
            "",
            f"- cards: {pct(self.compiled, self.cards)} compile",
            f"- commons: {pct(self.commons_compiled, self.commons)} compile",
            "",
            "## Per rarity",
            "",
            *[f"- {k}: {pct(*v)}" for k, v in sorted(self.by_rarity.items())],
            "",
            "## Per layout",
            "",
            *[
                f"- {k}: {pct(*v)}"
                for k, v in sorted(self.by_layout.items(), key=lambda kv: -kv[1][1])
            ],
            "",
            "## Per template (ability lines)",
            "",
            *[f"- {k}: {pct(*v)}" for k, v in sorted(self.by_template.items())],
            "",
            f"## The {TOP_SENTENCES} most common unsupported sentences (cards)",
            "",
            *[f"1. {n:,}: `{t}`" for t, n in self.unsupported.most_common(TOP_SENTENCES)],
            "",
            f"## The {TOP_SENTENCES} most common unsupported sentences among commons (cards)",
            "",
            *[f"1. {n:,}: `{t}`" for t, n in self.unsupported_commons.most_common(TOP_SENTENCES)],
            "",
            "## The most common reasons (cards)",
            "",
            *[f"1. {n:,}: {t}" for t, n in self.reasons.most_common(TOP_SENTENCES)],
            "",
            "## Per set",
            "",
            "| set | compile |",
            "|---|---|",
            *[f"| {k} | {pct(*v)} |" for k, v in sorted(self.by_set.items())],
            "",
        ]
        return "\n".join(out)


def _bump(table: dict[str, list[int]], key: str, ok: bool) -> None:
    row = table.setdefault(key, [0, 0])
    row[0] += ok
    row[1] += 1


def compile_database(
    name: str, cards: Iterable[DbCard], sets: Iterable[str] = ()
) -> tuple[list[Compiled], Coverage]:
    """Compile every card (of `sets` when given; paper cards only, no joke cards): the
    results, and the coverage."""
    wanted = {s.upper() for s in sets}
    pool = [
        c
        for c in cards
        if c.paper and not c.funny and (not wanted or wanted & {s.upper() for s in c.sets})
    ]
    vocab = Vocabulary.of(c.card.type_line for c in pool)
    cov = Coverage(name)
    results: list[Compiled] = []
    for db in pool:
        base = db.layout.split(" (")[0]
        if base not in ONE_FACE or "faces)" in db.layout:
            cov.add(db, None, f"layout {db.layout}: the engine's cards have one face")
            continue
        r = compile_card(db.card, vocab)
        results.append(r)
        cov.add(db, r)
    return results, cov


@dataclass
class DeckCoverage:
    """How much of one deck list compiles: its main deck's cards counted with their copies,
    and each card that does not compile with why (`mtg-env cards compile --deck`)."""

    name: str
    cards: int = 0
    compiled: int = 0
    missing: list[tuple[int, str, str]] = field(default_factory=list)  # (count, name, why)

    @property
    def plays(self) -> bool:
        """Whether every card of the deck compiles, so the deck plays in the engine."""
        return self.cards > 0 and not self.missing

    def as_json(self) -> dict[str, Any]:
        return {
            "deck": self.name,
            "cards": self.cards,
            "compiled": self.compiled,
            "missing": [{"count": n, "card": c, "why": w} for n, c, w in self.missing],
        }

    def markdown(self) -> list[str]:
        out = [f"### {self.name}: {self.compiled} of {self.cards} cards compile", ""]
        out += [f"- {n} {c}: {w}" for n, c, w in self.missing]
        return [*out, ""]


def deck_coverage(
    name: str,
    entries: Iterable[tuple[str, int]],
    results: Iterable[Compiled],
    cards: Iterable[DbCard],
) -> DeckCoverage:
    """The coverage of a deck list (main-deck `entries`: name, count) in one compile:
    `results` are its compiled cards, `cards` the database's."""
    compiled = {r.card.name: r for r in results}
    known = {c.card.name: c for c in cards}
    d = DeckCoverage(name)
    for card, count in entries:
        d.cards += count
        r = compiled.get(card)
        if r is not None and r.ok:
            d.compiled += count
            continue
        if r is not None:
            why = "; ".join(str(p) for p in r.problems) or "it does not compile"
        elif card not in known:
            why = "no card of that name in the database"
        elif known[card].layout.split(" (")[0] not in ONE_FACE or "faces)" in known[card].layout:
            why = f"layout {known[card].layout}: the engine's cards have one face"
        else:
            why = "not compiled (not a paper card, or outside the sets asked for)"
        d.missing.append((count, card, why))
    return d


def card_set_yaml(set_name: str, results: Iterable[Compiled]) -> str:
    """The compiled cards as a card-set file (`engine.carddb`'s schema): the set, the
    tokens they create and the cards."""
    ok = [r for r in results if r.ok and r.entry is not None]
    tokens: list[dict[str, Any]] = []
    for r in ok:
        for t in r.tokens:
            if t not in tokens:
                tokens.append(t)
    # A pool of thousands of cards holds more than the core set's tables: room for the
    # stacks random play builds out of repeatable activations (a fuzz of the compiled
    # pool overflowed a 20-object stack), and for the permanents of a token maker used
    # every turn (one made 49 Treasures: 65 permanents, over 64).
    doc = {
        "set": set_name,
        "layout": dict(COMPILED_LAYOUT),
        "tokens": tokens,
        "cards": [r.entry for r in ok],
    }
    head = (
        f"# Compiled from Oracle text by `mtg-env cards compile`: {len(ok)} cards.\n"
        "# Data only (the engine's card-set schema, docs/oracle.md).\n"
    )
    return head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
