"""The gold sets of the Oracle-text tests (tests/oracle/): the core and pauper sets' card
entries as written, and each one as the card database would give it (`OracleCard`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from mtg_env.oracle.compiler import OracleCard

CARDS = Path(__file__).resolve().parents[1] / "mtg_env" / "data" / "cards"
CORE = CARDS / "core"


def core_entries() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The core set's card entries and token entries, as its files hold them."""
    return set_entries("core")


def set_entries(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A card-set folder's card entries and token entries, as its files hold them."""
    raws = [yaml.safe_load(p.read_text()) for p in sorted((CARDS / name).glob("*.yaml"))]
    tokens = [t for r in raws for t in (r.get("tokens") or [])]
    cards = [c for r in raws for c in (r.get("cards") or [])]
    return cards, tokens


def type_line(entry: dict[str, Any]) -> str:
    """The Oracle type line of a card-data entry ("Legendary Creature — Frog Spirit")."""
    left = [s.capitalize() for s in entry.get("supertypes", [])]
    left += [t.capitalize() for t in entry["types"]]
    right = entry.get("subtypes", [])
    return " ".join(left) + (" — " + " ".join(right) if right else "")


def oracle(entry: dict[str, Any], text: str | None = None) -> OracleCard:
    """The entry as a database card: its name, cost, type line and P/T, and its Oracle
    text (or `text`)."""

    def num(v: Any) -> str | None:
        return None if v is None else str(v)

    return OracleCard(
        name=entry["name"],
        type_line=type_line(entry),
        text=entry.get("text") or "" if text is None else text,
        mana_cost=entry.get("cost"),
        power=num(entry.get("power")),
        toughness=num(entry.get("toughness")),
    )
