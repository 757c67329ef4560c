"""A compiled pool in play (`mtg_env.oracle.pool`, `scripts/fuzz.py --cards`): the card-set
file `mtg-env cards compile` writes is loaded as a card set and a format, random decks of it
play under every fuzz invariant, and a file that would replace a bundled set is refused.
Run in subprocesses, as users run them: a pool is registered for the whole process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


def card(name: str, cost: str | None, type_line: str, text: str = "", pt: str = "") -> Any:
    c: dict[str, Any] = {"name": name, "type": type_line, "text": text, "layout": "normal"}
    if cost:
        c["manaCost"] = cost
    if pt:
        c["power"], c["toughness"] = pt.split("/")
    return [{**c, "legalities": {"pauper": "Legal"}, "printings": ["TST"]}]


CARDS = {
    "Mountain": card("Mountain", None, "Basic Land — Mountain", "({T}: Add {R}.)"),
    "Forest": card("Forest", None, "Basic Land — Forest", "({T}: Add {G}.)"),
    "Shock": card("Shock", "{R}", "Instant", "Shock deals 2 damage to any target."),
    "Goblin": card("Goblin", "{R}", "Creature — Goblin", "Haste", "1/1"),
    "Bear": card("Bear", "{1}{G}", "Creature — Bear", "", "2/2"),
    "Giant": card("Giant", "{3}{G}", "Creature — Giant", "Trample", "4/4"),
    "Growth": card("Growth", "{G}", "Instant", "Target creature gets +3/+3 until end of turn."),
    "Raiders": card(
        "Raiders",
        "{2}{R}",
        "Creature — Goblin",
        "When this creature enters, create a 1/1 red Goblin creature token.",
        "1/1",
    ),  # fmt: skip
}


def _pool(tmp_path: Path, name: str) -> Path:
    (tmp_path / "db.json").write_text(json.dumps({"meta": {}, "data": CARDS}))
    r = subprocess.run(
        [MTG_ENV, "cards", "compile", "db.json", "--out", "out", "--name", name],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return tmp_path / "out" / "cards.yaml"


def _fuzz(tmp_path: Path, cards: Path, decisions: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fuzz.py"), "--cards", str(cards),
         "--decisions", str(decisions), "--out", str(tmp_path / "fails")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_random_decks_of_a_compiled_pool_play_under_every_invariant(tmp_path: Path) -> None:
    r = _fuzz(tmp_path, _pool(tmp_path, "mine"), 600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 failure(s)" in r.stdout


def test_a_pool_under_a_bundled_set_name_is_refused_in_one_line(tmp_path: Path) -> None:
    r = _fuzz(tmp_path, _pool(tmp_path, "core"), 10)
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert "'core'" in r.stderr
