"""The card list of a set with the scenario files that cover each card: the generated
"Cards" docs page (docs/hooks.py) and the test that every card of the core set has one.

A scenario covers a card when its setup puts that card somewhere (a hand, a library, the
battlefield, a graveyard or exile); the card's own tests are named after it
(`tests/scenarios/core/cards/<colour>/card_<name>.yaml`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from .engine import load_cards
from .engine.cards import CardDef
from .engine.constants import TYPE_BITS

_ZONES = ("hand", "library", "graveyard", "exile", "battlefield")


def _names_in_setup(raw: Any) -> Iterator[str]:
    setup = raw.get("setup") if isinstance(raw, dict) else None
    players = setup.get("players") if isinstance(setup, dict) else None
    for p in players if isinstance(players, list) else []:
        if not isinstance(p, dict):
            continue
        for zone in _ZONES:
            for e in p.get(zone) or []:
                name = e.get("card") if isinstance(e, dict) else e
                if isinstance(name, str):
                    yield name


def coverage(set_name: str, scenarios: Path) -> dict[str, list[Path]]:
    """Card name -> the scenario files under `scenarios` (sorted) whose setup has it, for
    every card of `set_name` in the set's order."""
    out: dict[str, list[Path]] = {name: [] for name in load_cards(set_name).cards}
    for path in sorted(scenarios.rglob("*.yaml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        for name in set(_names_in_setup(raw)):
            if name in out:
                out[name].append(path)
    return out


def _type_line(c: CardDef) -> str:
    types = " ".join(t.capitalize() for t, bit in TYPE_BITS.items() if c.types & bit)
    sub = " ".join(sorted(c.subtypes))
    return f"{types} - {sub}" if sub else types


def card_list_page(set_name: str, scenarios: Path, root: Path) -> str:
    """A Markdown page: every card of the set with its cost, type, P/T, text and the
    scenario that tests it (its own `card_*` file first)."""
    cards = load_cards(set_name).cards
    cov = coverage(set_name, scenarios)
    out = [
        f"# Cards: the `{set_name}` set",
        "",
        f"{len(cards)} cards, generated from `mtg_env/data/cards/{set_name}/` and the scenario "
        f"files under `{scenarios.relative_to(root).as_posix()}/` when this page was built. "
        "The test is the card's own scenario file (or the first that uses it).",
        "",
        "| card | cost | type | P/T | text | test |",
        "|---|---|---|---|---|---|",
    ]
    for name, c in cards.items():
        paths = sorted(cov[name], key=lambda p: (not p.name.startswith("card_"), p.name))
        test = f"`{paths[0].relative_to(root).as_posix()}`" if paths else "none"
        cost = c.cost.text if c.cost is not None else ""
        pt = f"{c.power}/{c.toughness}" if c.power is not None else ""
        text = c.text.replace("|", "/").replace("\n", " ")
        out.append(f"| {name} | {cost} | {_type_line(c)} | {pt} | {text} | {test} |")
    return "\n".join(out) + "\n"


def deck_list_page(fmt: str, parts: dict[str, str], root: Path) -> str:
    """A Markdown page: every bundled deck of the format with its colours, land count,
    creatures, mana curve (nonland cards by mana value, 6 for 6 or more), its benchmark
    part (`parts`: deck name -> part) and description."""
    from .engine import load_decks
    from .engine.constants import COLOR_BITS
    from .engine.constants import LAND as LAND_BIT

    cards = load_cards(fmt).cards
    decks = load_decks(fmt)
    out = [
        f"# Decks: the `{fmt}` format",
        "",
        f"{len(decks)} bundled decks, generated from `mtg_env/data/decks/{fmt}/` when this page "
        "was built. Curve: nonland cards by mana value 0-1, 2, 3, 4, 5, 6+. Part: the "
        "held-out-deck benchmark's split (`mtg_env/data/benchmarks/heldout.yaml`).",
        "",
        "| deck | colours | lands | creatures | curve | part | plan |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in sorted(decks):
        d = decks[name]
        defs = [cards[n] for n in d.cards]
        colours = 0
        curve = [0] * 6
        lands = creatures = 0
        for c in defs:
            if c.types & LAND_BIT:
                lands += 1
                continue
            colours |= c.colors
            creatures += c.is_creature
            curve[max(min(c.mv, 6), 1) - 1] += 1
        letters = "".join(k for k, bit in COLOR_BITS.items() if colours & bit)
        raw = yaml.safe_load(Path(d.path).read_text(encoding="utf-8")) if d.path else {}
        plan = str((raw or {}).get("description", "")).replace("|", "/")
        curve_text = "/".join(str(n) for n in curve)
        out.append(
            f"| {name} | {letters} | {lands} | {creatures} | {curve_text} | "
            f"{parts.get(name, '')} | {plan} |"
        )
    return "\n".join(out) + "\n"
