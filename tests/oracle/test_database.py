"""Card databases (`mtg_env.oracle.database`) and `mtg-env cards compile` as users run it:
the four schemas it reads, the coverage it reports, the card-set file it writes (which the
engine loads), and every bad input as one line with nothing written."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from mtg_env.engine.carddb import parse_card_set
from mtg_env.io import InputFileError
from mtg_env.oracle.database import read_database
from mtg_env.oracle.report import compile_database, template_of

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")

BOLT = {
    "name": "Lightning Bolt",
    "manaCost": "{R}",
    "type": "Instant",
    "text": "Lightning Bolt deals 3 damage to any target.",
    "layout": "normal",
}
BEAR = {
    "name": "Grizzly Bears",
    "manaCost": "{1}{G}",
    "type": "Creature — Bear",
    "power": "2",
    "toughness": "2",
    "layout": "normal",
}
TAPPER = {
    "name": "Tapper",
    "manaCost": "{1}{W}",
    "type": "Creature — Human",
    "power": "1",
    "toughness": "1",
    "text": "Morph {2}",
    "layout": "normal",
}


def atomic() -> dict[str, Any]:
    def face(c: dict[str, Any], common: bool, printings: list[str]) -> list[dict[str, Any]]:
        legal = {"pauper": "Legal"} if common else {}
        return [{**c, "legalities": legal, "printings": printings}]

    return {
        "meta": {"version": "5"},
        "data": {
            "Lightning Bolt": face(BOLT, True, ["LEA", "M10"]),
            "Grizzly Bears": face(BEAR, True, ["LEA"]),
            "Tapper": face(TAPPER, False, ["M10"]),
            "A Token": [{**BEAR, "name": "A Token", "layout": "token"}],
        },
    }


def allprintings() -> dict[str, Any]:
    def p(c: dict[str, Any], rarity: str) -> dict[str, Any]:
        return {**c, "rarity": rarity, "availability": ["paper"]}

    return {
        "meta": {"version": "5"},
        "data": {
            "LEA": {"cards": [p(BOLT, "common"), p(BEAR, "common")]},
            "M10": {"cards": [p(BOLT, "common"), p(TAPPER, "rare")]},
        },
    }


def scryfall() -> list[dict[str, Any]]:
    def s(c: dict[str, Any], rarity: str, code: str) -> dict[str, Any]:
        return {
            "object": "card",
            "name": c["name"],
            "mana_cost": c["manaCost"],
            "type_line": c["type"],
            "oracle_text": c.get("text", ""),
            "power": c.get("power"),
            "toughness": c.get("toughness"),
            "rarity": rarity,
            "set": code,
            "games": ["paper"],
            "layout": "normal",
        }

    return [
        s(BOLT, "common", "lea"),
        s(BEAR, "common", "lea"),
        s(BOLT, "common", "m10"),
        s(TAPPER, "rare", "m10"),
    ]


def v3() -> dict[str, Any]:
    return {
        "LEA": {
            "code": "LEA",
            "cards": [{**BOLT, "rarity": "Common"}, {**BEAR, "rarity": "Common"}],
        },
        "M10": {
            "code": "M10",
            "cards": [{**BOLT, "rarity": "Common"}, {**TAPPER, "rarity": "Rare"}],
        },
    }


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (atomic, "mtgjson-atomic"),
        (allprintings, "mtgjson-allprintings"),
        (scryfall, "scryfall"),
        (v3, "mtgjson-v3"),
    ],
)
def test_each_database_schema_gives_the_same_cards_and_coverage(
    tmp_path: Path, make: Any, kind: str
) -> None:
    path = tmp_path / "db.json"
    path.write_text(json.dumps(make()))
    got_kind, cards = read_database(path)
    assert got_kind == kind
    assert sorted(c.card.name for c in cards) == ["Grizzly Bears", "Lightning Bolt", "Tapper"]
    results, cov = compile_database("db", cards)
    assert (cov.cards, cov.compiled) == (3, 2)
    assert (cov.commons, cov.commons_compiled) == (2, 2)
    assert cov.unsupported.most_common(1) == [("Morph {COST}", 1)]
    assert cov.by_set["LEA"] == [2, 2]
    only_m10 = compile_database("db", cards, ["m10"])[1]
    assert (only_m10.cards, only_m10.compiled) == (2, 1)


def test_a_gzipped_database_reads_as_the_plain_one(tmp_path: Path) -> None:
    path = tmp_path / "db.json.gz"
    path.write_bytes(gzip.compress(json.dumps(atomic()).encode()))
    assert len(read_database(path)[1]) == 3


def test_template_of_counts_one_template_together() -> None:
    assert template_of("{2}{B} , {T} : ~ deals 3 damage to you .") == (
        "{COST} , {COST} : ~ deals N damage to you ."
    )
    assert template_of("~ gets +1/+1 until end of turn .") == "~ gets N/N until end of turn ."


def _bad(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("a.json", b"{not json", "not valid JSON"),
        ("b.json.gz", b"\x1f\x8b\x08garbage", "not a readable gzip file"),
        ("c.json", b'{"hello": 1}', "not a card database this command reads"),
        (
            "d.json",
            json.dumps(
                {"meta": {}, "data": {"Bolt": [{"name": "Bolt", "layout": "normal"}]}}
            ).encode(),
            "data['Bolt'][0]: field 'type' is missing",
        ),
        (
            "e.json",
            json.dumps([{"object": "card", "type_line": "Instant"}]).encode(),
            "[0]: field 'name' is missing",
        ),
        ("f.json", b"\xff\xfe", "not UTF-8"),
    ],
)
def test_a_bad_database_is_one_line_naming_the_file_entry_and_field(
    tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    path = _bad(tmp_path, name, data)
    with pytest.raises(InputFileError) as e:
        read_database(path)
    assert str(path) in str(e.value) and says in str(e.value)
    assert "\n" not in str(e.value)


def test_a_database_past_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mtg_env.oracle import database

    text = json.dumps(atomic()).encode()
    packed_bytes = gzip.compress(text)
    limit = len(packed_bytes) + 10
    assert len(text) > limit
    monkeypatch.setattr(database, "MAX_DATABASE_BYTES", limit)
    big = _bad(tmp_path, "big.json", text)
    with pytest.raises(InputFileError, match="too large"):
        read_database(big)
    packed = _bad(tmp_path, "big.json.gz", packed_bytes)
    with pytest.raises(InputFileError, match="once unpacked"):
        read_database(packed)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MTG_ENV, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_cards_compile_writes_a_card_set_the_engine_loads_and_the_report(tmp_path: Path) -> None:
    (tmp_path / "db.json").write_text(json.dumps(allprintings()))
    r = run("cards", "compile", "db.json", "--out", "out", "--name", "mine", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "2 of 3 cards compile" in r.stdout
    assert "Morph {COST}" in r.stdout
    raw = yaml.safe_load((tmp_path / "out" / "cards.yaml").read_text())
    card_set = parse_card_set(raw, "cards.yaml")
    assert card_set.name == "mine"
    assert sorted(card_set.cards) == ["Grizzly Bears", "Lightning Bolt"]
    report = json.loads((tmp_path / "out" / "coverage.json").read_text())
    assert report["compiled"] == 2 and report["by_rarity"]["rare"] == [0, 1]
    assert "# Coverage of db.json" in (tmp_path / "out" / "coverage.md").read_text()


def test_cards_compile_on_a_bad_file_is_one_line_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "db.json").write_text('{"data": ')
    r = run("cards", "compile", "db.json", "--out", "out", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "db.json" in r.stderr and "not valid JSON" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    assert not (tmp_path / "out").exists()
    (tmp_path / "db.json").write_text(json.dumps(atomic()))
    r2 = run("cards", "compile", "db.json", "--set", "XYZ", cwd=tmp_path)
    assert r2.returncode == 2 and "no paper card of XYZ" in r2.stderr


def test_cards_compile_reports_how_much_of_each_deck_list_compiles(tmp_path: Path) -> None:
    """`--deck`: each deck list's cards that compile, counted with their copies, and each
    one that does not with why; in the printout and in coverage.json / coverage.md."""
    (tmp_path / "db.json").write_text(json.dumps(allprintings()))
    (tmp_path / "burn.txt").write_text("4 Lightning Bolt\n2 Grizzly Bears\n")
    (tmp_path / "mixed.txt").write_text(
        "# a comment\n3 Lightning Bolt\n1 Tapper\n1 Nowhere Card\nSideboard\n2 Nope\n"
    )
    r = run(
        "cards", "compile", "db.json", "--deck", "burn.txt", "--deck", "mixed.txt",
        "--out", "out", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "deck burn: 6 of 6 cards compile" in r.stdout
    assert "deck mixed: 3 of 5 cards compile" in r.stdout
    assert "1 Nowhere Card: no card of that name in the database" in r.stdout
    report = json.loads((tmp_path / "out" / "coverage.json").read_text())
    mixed = report["decks"][1]
    assert (mixed["cards"], mixed["compiled"]) == (5, 3)
    assert [m["card"] for m in mixed["missing"]] == ["Tapper", "Nowhere Card"]
    assert "Morph" in mixed["missing"][0]["why"]
    assert "### burn: 6 of 6 cards compile" in (tmp_path / "out" / "coverage.md").read_text()


def test_cards_compile_with_a_bad_deck_list_is_one_line_and_compiles_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "db.json").write_text(json.dumps(allprintings()))
    (tmp_path / "bad.txt").write_text("4 Lightning Bolt\nfour Grizzly Bears\n")
    r = run("cards", "compile", "db.json", "--deck", "bad.txt", "--out", "out", cwd=tmp_path)
    assert r.returncode == 2
    assert (
        r.stderr.count("\n") == 1 and "bad.txt:2" in r.stderr and "not a deck-list line" in r.stderr
    )
    assert not (tmp_path / "out").exists() and r.stdout == ""
