"""Text deck lists (engine.carddb.parse_deck_text), the seeded deck generator
(mtg_env.decks) and the `mtg-env deck` commands."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mtg_env.decks import (
    DEFAULT_CURVE,
    MAX_COPIES,
    deck_to_text,
    deck_to_yaml,
    generate_deck,
)
from mtg_env.engine import Game
from mtg_env.engine.carddb import (
    DECK_SIZE,
    MAX_DECK_FILE_BYTES,
    MAX_DECK_LINE,
    MAX_DECK_LINES,
    Deck,
    load_cards,
    load_deck_text,
    load_decks,
    parse_deck,
    parse_deck_text,
    resolve_deck,
)
from mtg_env.engine.cards import CardDataError, CardSet
from mtg_env.engine.constants import BASIC, COLOR_BITS, LAND

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")

GOOD = """\
// Mono red, written by hand
# a comment line
Deck
4 Lightning Bolt
4x Shock

20 Mountain
4 x Mogg Fanatic
4 Raging Goblin
4 Hill Giant

Sideboard
2 Shock
1x Lightning Bolt
"""


def _deck_text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- importer


def test_text_deck_list_happy_path() -> None:
    deck = parse_deck_text(GOOD, "decks/red.txt")
    assert deck.name == "red" and deck.format == "classic" and deck.path == "decks/red.txt"
    assert len(deck.cards) == 40
    assert deck.counts() == {
        "Lightning Bolt": 4,
        "Shock": 4,
        "Mountain": 20,
        "Mogg Fanatic": 4,
        "Raging Goblin": 4,
        "Hill Giant": 4,
    }  # the sideboard's Shocks and Bolt are checked but not in the deck


def test_text_deck_list_name_case_and_sideboard_prefix() -> None:
    # A byte-order mark, Windows line ends, a name in other case, an exported set code.
    text = "\ufeff" + GOOD.replace("4 Hill Giant", "4 hill giant\nSB: 3 Shock").replace(
        "4 Raging Goblin", "4 Raging Goblin (M10) 146"
    ).replace("\n", "\r\n")
    deck = parse_deck_text(text, "red.txt", name="Red")
    assert deck.name == "Red" and deck.counts()["Hill Giant"] == 4
    assert deck.counts()["Shock"] == 4


def test_each_bad_line_is_reported_with_file_and_line_all_at_once() -> None:
    text = _deck_text(
        [
            "# header comment",
            "4 Lightning Bolt",
            "4 Lightning Blot",
            "20 Mountain",
            "0 Shock",
            "",
            "foo bar",
            "4 Nonexistent Card Xyzzy",
        ]
    )
    with pytest.raises(CardDataError) as e:
        parse_deck_text(text, "decks/mine.txt")
    lines = str(e.value).splitlines()
    assert lines == [
        "decks/mine.txt:3: unknown card 'Lightning Blot' in set 'classic' "
        "(did you mean 'Lightning Bolt'?)",
        "decks/mine.txt:5: a count is at least 1, not 0",
        "decks/mine.txt:7: not a deck-list line: 'foo bar'",
        "decks/mine.txt:8: unknown card 'Nonexistent Card Xyzzy' in set 'classic'",
        "decks/mine.txt: has 24 cards, a classic deck has exactly 40",
    ]


def test_deck_size_is_checked() -> None:
    text = GOOD.replace("20 Mountain", "19 Mountain")
    with pytest.raises(
        CardDataError, match=r"^red.txt: has 39 cards, a classic deck has exactly 40$"
    ):
        parse_deck_text(text, "red.txt")


@pytest.mark.parametrize("count", ["100000000", "41", "9" * 400])
def test_counts_are_bounded_before_any_list_is_built(count: str) -> None:
    with pytest.raises(CardDataError) as e:
        parse_deck_text(f"{count} Mountain\n", "big.txt")
    first = str(e.value).splitlines()[0]
    assert first.startswith("big.txt:1: a count is at most 40, not ")
    assert len(first) < 80  # a 400-digit count is not echoed back


def test_too_many_problems_are_capped() -> None:
    with pytest.raises(CardDataError) as e:
        parse_deck_text("nonsense\n" * 10_000, "junk.txt")
    lines = str(e.value).splitlines()
    assert len(lines) == 51 and lines[-1] == "junk.txt: ... and 9951 more problems"


def test_a_half_of_a_two_part_card_is_refused_like_parse_deck() -> None:
    cs = load_cards("pocket")
    half = next(n for n, c in sorted(cs.cards.items()) if c.half_of)
    whole = cs.cards[half].half_of
    with pytest.raises(CardDataError) as e:
        parse_deck_text(f"2 {half}\n", "p.txt", fmt="pocket")
    assert f"p.txt:1: {half!r} is half of a card; list the whole card {whole!r}" in str(e.value)


def test_unknown_format_and_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="unknown format 'nope'"):
        parse_deck_text(GOOD, "x.txt", fmt="nope")
    with pytest.raises(CardDataError, match="missing.txt"):
        load_deck_text(tmp_path / "missing.txt")
    (tmp_path / "latin1.txt").write_bytes(b"4 caf\xe9\n")
    with pytest.raises(CardDataError, match="not UTF-8"):
        load_deck_text(tmp_path / "latin1.txt")


def test_load_deck_text_and_resolve_deck_take_a_txt_path(tmp_path: Path) -> None:
    f = tmp_path / "my_red.txt"
    f.write_text(GOOD)
    deck = load_deck_text(f)
    assert deck.name == "my_red" and deck.path == str(f)
    assert resolve_deck(str(f), "classic") == deck
    # YAML decks and bundled names resolve as before.
    bundled = load_decks("classic")
    assert resolve_deck("Red Burn", "classic") is bundled["Red Burn"]


def test_bundled_decks_round_trip_through_yaml_and_text(tmp_path: Path) -> None:
    for name, deck in load_decks("classic").items():
        back = parse_deck(yaml.safe_load(deck_to_yaml(deck)), "x.yaml")
        assert back.name == name and back.format == "classic"
        assert back.cards == deck.cards
        f = tmp_path / "d.txt"
        f.write_text(deck_to_text(deck))
        assert sorted(load_deck_text(f).cards) == sorted(deck.cards)


# --------------------------------------------------------------------------- generator


def _check_legal(deck: Deck, fmt: str, colors: str | None = None) -> None:
    cs = load_cards(fmt)
    assert deck.format == fmt and len(deck.cards) == DECK_SIZE[fmt]
    counts = deck.counts()
    for name, n in counts.items():
        c = cs.cards[name]
        if not c.supertypes & BASIC:
            assert n <= MAX_COPIES, (name, n)
    if colors is not None:
        mask = sum(COLOR_BITS[ch] for ch in colors)
        for name in counts:
            assert not cs.cards[name].colors & ~mask, name
    # The deck loads as a bundled deck would.
    assert parse_deck(yaml.safe_load(deck_to_yaml(deck)), "g.yaml").cards == deck.cards


def _play_a_little(decks: tuple[Deck, Deck], fmt: str, seed: int, steps: int = 60) -> None:
    game = Game.new(decks, seed=seed, format=fmt)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))


def test_same_seed_same_deck_different_seeds_differ() -> None:
    a = generate_deck("classic", seed=5)
    assert generate_deck("classic", seed=5) == a
    assert generate_deck("classic", seed=5, colors="WU") == generate_deck(
        "classic", seed=5, colors="WU"
    )
    others = {generate_deck("classic", seed=s).cards for s in range(6)}
    assert len(others) == 6
    assert generate_deck("classic", seed=1, colors="WU") != generate_deck(
        "classic", seed=2, colors="WU"
    )


def test_fifty_seeds_on_classic_are_legal_and_play() -> None:
    cs = load_cards("classic")
    for seed in range(50):
        deck = generate_deck("classic", seed=seed)
        _check_legal(deck, "classic")
        lands = [n for n in deck.cards if cs.cards[n].types & LAND]
        assert len(lands) == 17 and all(cs.cards[n].supertypes & BASIC for n in lands)
        colors = {ch for n in deck.cards for ch in "WUBRG" if cs.cards[n].colors & COLOR_BITS[ch]}
        # Two colours drawn with the seed; every classic colour has enough cards for both.
        assert len(colors) == 2, (seed, colors)
        if seed % 5 == 0:
            other = generate_deck("classic", seed=seed + 1000)
            _play_a_little((deck, other), "classic", seed)


def test_curve_and_creature_share_are_met_where_the_pool_allows() -> None:
    cs = load_cards("classic")
    deck = generate_deck("classic", seed=3, colors="WU")
    spells = [cs.cards[n] for n in deck.cards if not cs.cards[n].types & LAND]
    assert len(spells) == 23
    by_mv: dict[int, int] = {}
    for c in spells:
        b = min(max(c.mv, 1), 6)
        by_mv[b] = by_mv.get(b, 0) + 1
    # 23 spells split 10/30/25/20/10/5 per cent (largest remainders).
    assert by_mv == {1: 2, 2: 7, 3: 6, 4: 5, 5: 2, 6: 1}
    assert set(DEFAULT_CURVE) == {1, 2, 3, 4, 5, 6}
    creatures = sum(c.is_creature for c in spells)
    assert 0.55 <= creatures / len(spells) <= 0.75


def test_colour_restriction_lands_and_land_split() -> None:
    cs = load_cards("classic")
    for colors in ("W", "U", "R", "G", "WU", "BR", "RG"):
        deck = generate_deck("classic", seed=7, colors=colors, lands=16)
        _check_legal(deck, "classic", colors)
        counts = deck.counts()
        basics = {n: k for n, k in counts.items() if cs.cards[n].types & LAND}
        assert sum(basics.values()) == 16
        # Lands follow the spells' coloured symbols: a colour with symbols has a land.
        for ch in colors:
            pips = sum(
                k * cs.cards[n].cost.pips.count(COLOR_BITS[ch])
                for n, k in counts.items()
                if cs.cards[n].cost is not None
            )
            land = {"W": "Plains", "U": "Island", "B": "Swamp", "R": "Mountain", "G": "Forest"}
            assert (basics.get(land[ch], 0) > 0) == (pips > 0), (colors, ch)


def test_all_lands_and_no_lands() -> None:
    assert set(generate_deck("classic", seed=0, colors="R", lands=40).cards) == {"Mountain"}
    deck = generate_deck("classic", seed=0, colors="WU", lands=0)
    _check_legal(deck, "classic", "WU")


def test_a_custom_curve() -> None:
    cs = load_cards("classic")
    deck = generate_deck("classic", seed=0, colors="RG", curve={1: 1, 2: 1})
    spells = [cs.cards[n] for n in deck.cards if not cs.cards[n].types & LAND]
    assert sum(c.mv <= 1 for c in spells) == 12 and sum(c.mv >= 2 for c in spells) == 11


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"colors": "WX"}, "unknown colour letter 'X' in colors 'WX'"),
        ({"colors": "WW"}, "colour 'W' appears twice"),
        ({"colors": ""}, "at least one colour"),
        ({"lands": 41}, "lands: 41 is not between 0 and the deck size, 40"),
        ({"lands": -1}, "lands: -1 is not between 0"),
        ({"curve": {1: -1.0}}, "curve: mana value 1: a weight is a number 0 or more"),
        ({"curve": {1: 0}}, "at least one mana value needs a weight above 0"),
    ],
)
def test_impossible_requests_are_clear_value_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        generate_deck("classic", seed=0, **kwargs)


def test_not_enough_cards_is_a_clear_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool too small for the spells (four copies of each card at most) is refused."""
    import mtg_env.decks

    full = load_cards("classic")
    keep = {n: c for n, c in full.cards.items() if c.types & LAND or n in ("Shock", "Hill Giant")}
    small = CardSet(full.name, keep, full.tokens, full.path)
    monkeypatch.setattr(mtg_env.decks, "load_cards", lambda _name: small)
    with pytest.raises(ValueError, match="not enough cards in colours R of set 'classic': 2 cards"):
        generate_deck("classic", seed=0, colors="R")
    assert len(generate_deck("classic", seed=0, colors="R", lands=32).cards) == 40
    with pytest.raises(ValueError, match="no colour of set 'classic' has enough cards"):
        generate_deck("classic", seed=0)


@pytest.mark.parametrize("fmt", ["adventure", "pocket"])
def test_formats_without_lands_are_refused(fmt: str) -> None:
    with pytest.raises(ValueError, match=f"format '{fmt}'"):
        generate_deck(fmt)
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        generate_deck("nope")


def _core_pair_or_skip() -> tuple[Deck, Deck]:
    # The core set has enough cards of several colours: a ValueError here is a failure.
    return generate_deck("core", seed=0), generate_deck("core", seed=1)


def test_core_generated_decks_are_legal_and_play() -> None:
    pair = _core_pair_or_skip()
    for deck in pair:
        _check_legal(deck, "core")
        assert generate_deck("core", seed=0) == pair[0]
    _play_a_little(pair, "core", 0)


def test_generated_yaml_and_text_round_trip(tmp_path: Path) -> None:
    deck = generate_deck("classic", seed=11, name="Mine")
    back = parse_deck(yaml.safe_load(deck_to_yaml(deck)), "g.yaml")
    assert (back.name, back.format, back.cards) == ("Mine", "classic", deck.cards)
    text = deck_to_text(deck)
    assert text.startswith("# Mine, a classic deck\n")
    assert parse_deck_text(text, "Mine.txt").cards == deck.cards
    odd = Deck("two\nlines", "classic", deck.cards)
    assert deck_to_text(odd).splitlines()[0] == "# two lines, a classic deck"


# --------------------------------------------------------------------------- bounded reading


def test_a_deck_list_reads_any_line_ending(tmp_path: Path) -> None:
    f = tmp_path / "red.txt"
    f.write_bytes(GOOD.replace("\n", "\r\n").encode())  # Windows line endings
    g = tmp_path / "old_mac.txt"
    g.write_bytes(GOOD.replace("\n", "\r").encode())  # "\r" alone ends a line too
    assert load_deck_text(g).cards == load_deck_text(f).cards == parse_deck_text(GOOD, "x").cards
    assert resolve_deck(str(f), "classic") == load_deck_text(f)
    assert resolve_deck("Red Burn", "classic") is load_decks("classic")["Red Burn"]


def test_a_long_line_is_refused_where_it_is_without_reading_on(tmp_path: Path) -> None:
    f = tmp_path / "long.txt"
    long_name = "".join(chr(33 + i % 90) for i in range(MAX_DECK_LINE))
    f.write_text(f"4 Mountain\n4 {long_name}\n" + "\xff" * 10)  # not UTF-8 after it
    with pytest.raises(
        CardDataError, match=rf"^{re.escape(str(f))}:2: line longer than 500 characters"
    ):
        load_deck_text(f)
    # A line of exactly the bound is read (and reported as the unknown card it is).
    f.write_text(f"4 Mountain\n4 {long_name[2:]}\n")
    with pytest.raises(CardDataError, match=rf"{re.escape(str(f))}:2: unknown card"):
        load_deck_text(f)


def test_too_many_lines_are_refused_at_the_first_line_past_the_bound(tmp_path: Path) -> None:
    f = tmp_path / "many.txt"
    f.write_text("\n" * MAX_DECK_LINES + "4 Mountain\n" * 3)
    with pytest.raises(CardDataError, match=rf"^{re.escape(str(f))}:2001: more than 2,000 lines"):
        load_deck_text(f)


def test_a_byte_that_is_not_utf8_is_found_on_its_line(tmp_path: Path) -> None:
    f = tmp_path / "latin1.txt"
    f.write_bytes(b"20 Mountain\n4 Caf\xe9\n")
    with pytest.raises(
        CardDataError, match=rf"^{re.escape(str(f))}:2: not UTF-8 text \(column 6\)$"
    ):
        load_deck_text(f)


def test_a_deck_file_too_large_is_refused_before_it_is_read(tmp_path: Path) -> None:
    f = tmp_path / "big.yaml"
    f.write_text("name: Big\nformat: classic\ncards: [" + " " * MAX_DECK_FILE_BYTES + "]\n")
    with pytest.raises(CardDataError, match=rf"^{re.escape(str(f))}: .* too large for a deck file"):
        resolve_deck(str(f), "classic")


# --------------------------------------------------------------------------- CLI


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MTG_ENV, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def _clean(r: subprocess.CompletedProcess[str], status: int) -> None:
    out = r.stdout + r.stderr
    assert r.returncode == status, (r.returncode, out[-2000:])
    assert "Traceback" not in out, out[-2000:]


def test_cli_deck_import_prints_yaml_and_writes_out(tmp_path: Path) -> None:
    f = tmp_path / "red.txt"
    f.write_text(GOOD)
    r = _run("deck", "import", str(f), "--format", "classic", cwd=tmp_path)
    _clean(r, 0)
    deck = parse_deck(yaml.safe_load(r.stdout), "stdout")
    assert deck.name == "red" and len(deck.cards) == 40
    out = tmp_path / "out" / "red.yaml"
    r = _run("deck", "import", str(f), "--out", str(out), cwd=tmp_path)
    _clean(r, 0)
    assert str(out) in r.stdout
    assert parse_deck(yaml.safe_load(out.read_text()), str(out)).cards == deck.cards


def test_cli_deck_import_reports_every_bad_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.txt"
    f.write_text("4 Lightning Blot\n0 Mountain\nfoo bar\n100000000 Mountain\n")
    out = tmp_path / "never.yaml"
    r = _run("deck", "import", str(f), "--out", str(out), cwd=tmp_path)
    _clean(r, 2)
    lines = r.stderr.strip().splitlines()
    assert [line.split(": ", 2)[1] for line in lines] == [
        f"{f}:1",
        f"{f}:2",
        f"{f}:3",
        f"{f}:4",
        str(f),
    ]
    assert all(line.startswith("error: ") for line in lines)
    assert "did you mean 'Lightning Bolt'?" in lines[0]
    assert not out.exists()


def test_cli_deck_import_missing_file_and_bad_format(tmp_path: Path) -> None:
    r = _run("deck", "import", "missing.txt", cwd=tmp_path)
    _clean(r, 2)
    assert "missing.txt" in r.stderr
    (tmp_path / "a.txt").write_text(GOOD)
    r = _run("deck", "import", "a.txt", "--format", "nope", cwd=tmp_path)
    _clean(r, 2)
    assert "unknown format 'nope'" in r.stderr


def test_cli_deck_generate(tmp_path: Path) -> None:
    r = _run("deck", "generate", "--format", "classic", "--seed", "4", cwd=tmp_path)
    _clean(r, 0)
    deck = parse_deck(yaml.safe_load(r.stdout), "stdout")
    assert deck.cards == generate_deck("classic", seed=4).cards
    out = tmp_path / "g.txt"
    args = ["--format", "classic", "--seed", "4", "--colors", "WU", "--lands", "16", "--text"]
    r = _run("deck", "generate", *args, "--out", str(out), cwd=tmp_path)
    _clean(r, 0)
    want = generate_deck("classic", seed=4, colors="WU", lands=16)
    assert out.read_text() == deck_to_text(want)
    assert list(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "classic", "--colors", "WX"], "unknown colour letter 'X'"),
        (["--format", "classic", "--lands", "41"], "lands: 41"),
        (["--format", "pocket"], "format 'pocket'"),
        (["--format", "classic", "--out", "."], "results are written only to a regular file"),
    ],
)
def test_cli_deck_generate_bad_input_is_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    r = _run("deck", "generate", *args, cwd=tmp_path)
    _clean(r, 2)
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_deck_without_command_is_a_usage_error(tmp_path: Path) -> None:
    r = _run("deck", cwd=tmp_path)
    _clean(r, 2)
    assert "Usage" in r.stderr


# --------------------------------------------------------------------------- bundled core decks


def test_core_bundles_twenty_two_colour_decks_with_sensible_curves() -> None:
    """At least 20 core decks (24), each a two-colour archetype: its spells are of exactly two
    colours (and colourless), its lands make only those colours, 16-18 lands, no more than
    four of a nonbasic card, a curve that starts low and tops out with a few big cards."""
    from mtg_env.engine.cards import ManaAbility

    cards = load_cards("core").cards
    decks = load_decks("core")
    assert len(decks) >= 20
    pairs = set()
    for name, d in decks.items():
        colours = lands = cheap = big = 0
        for c in (cards[n] for n in d.cards):
            if c.types & LAND:
                lands += 1
                for ab in c.abilities:
                    if isinstance(ab, ManaAbility):
                        colours_made = ab.produce & sum(COLOR_BITS.values())  # not {C}
                        assert not colours_made & ~_deck_colours(d, cards), (name, c.name)
                continue
            colours |= c.colors
            cheap += c.mv <= 2
            big += c.mv >= 6
        n_colours = bin(colours).count("1")
        assert n_colours == 2, (name, n_colours)
        pairs.add(colours)
        assert 16 <= lands <= 18, (name, lands)
        assert cheap >= 6 and big <= 4, (name, cheap, big)
        for card, n in d.counts().items():
            assert n <= MAX_COPIES or cards[card].supertypes & BASIC, (name, card, n)
    assert len(pairs) == 10  # every pair of the five colours


def _deck_colours(d: Deck, cards: dict) -> int:
    out = 0
    for n in d.cards:
        if not cards[n].types & LAND:
            out |= cards[n].colors
    return out
