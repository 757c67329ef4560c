"""Formats as modules: a new format is a `Format` subclass registered by name, and the
shared engine, env, agents and scenario runner never ask which format they run.

The test format here changes only numbers (life, hand sizes) in a few lines; the engine
plays it through the hooks' defaults (the classic format's rules), the scenario of the
docs page (docs/formats.md) included.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents import make_agent
from mtg_env.engine import Game, load_decks
from mtg_env.engine.constants import CLEANUP, D_DISCARD, D_MULLIGAN, MULLIGAN
from mtg_env.engine.formats import FORMATS, Classic, Format, register, rules_for
from mtg_env.engine.frames import FIRST_FORMAT_FRAME
from mtg_env.engine.objects import Action

ROOT = Path(__file__).resolve().parents[2]


class Marathon(Classic):
    """Classic with more life and bigger hands: numbers only."""

    __slots__ = ()
    name = "marathon"
    starting_life = 30
    opening_hand = 8
    max_hand = 8


@pytest.fixture
def marathon() -> Iterator[Format]:
    fmt = register(Marathon())
    try:
        yield fmt
    finally:
        del FORMATS["marathon"]


def _decks() -> tuple[tuple[str, ...], tuple[str, ...]]:
    d = load_decks("classic")
    names = sorted(d)
    return d[names[0]].cards, d[names[1]].cards


def test_a_format_that_changes_only_numbers_plays_by_them(marathon: Format) -> None:
    a, b = _decks()
    g = Game.new((a, b), seed=4, format="marathon")
    assert g.rules is marathon and g.life == [30, 30]
    assert [len(h) for h in g.hand] == [8, 8]
    assert g.decision.kind == D_MULLIGAN
    # A mulligan draws a new hand of the format's size (CR 103.5).
    g.apply(Action(MULLIGAN))
    while g.decision.kind == D_MULLIGAN:
        g.apply(g.legal_actions()[0])
    assert len(g.hand[0]) + len(g.hand[1]) >= 8 + 8 - 1
    # Random play to the end; at each cleanup a player discards down to 8, not 7.
    rng = random.Random(4)
    discards = 0
    while not g.is_over:
        d = g.decision
        if d.kind == D_DISCARD and g.step == CLEANUP:
            assert len(g.hand[d.player]) > 8
            discards += 1
        g.apply(rng.choice(g.legal_actions()))
    assert g.winner in (0, 1, None)


def test_a_new_format_clones_hashes_copies_and_resamples(marathon: Format) -> None:
    a, b = _decks()
    g = Game.new((a, b), seed=9, format="marathon")
    rng = random.Random(9)
    for _ in range(60):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    c = g.clone()
    assert c.state_hash() == g.state_hash() and c.rules is marathon
    # A copy goes through the same reduce protocol as pickling (the format by its name).
    p = copy.deepcopy(g)
    assert p.state_hash() == g.state_hash() and p.rules is marathon
    assert g.resample_hidden(0, 1).rules is marathon


def test_agents_play_a_new_format(marathon: Format) -> None:
    a, b = _decks()
    agents = [make_agent("heuristic", 1, fmt="marathon"), make_agent("random", 2)]
    g = Game.new((a, b), seed=2, format="marathon", max_decisions=4000)
    while not g.is_over:
        p = g.current_player
        g.apply(agents[p].choose(g))
    assert g.winner in (0, 1, None)


def test_frames_a_format_adds_start_after_the_shared_ones() -> None:
    from mtg_env.engine.formats.pocket import F_DRAW, F_REDRAW

    assert F_REDRAW == FIRST_FORMAT_FRAME and F_DRAW == FIRST_FORMAT_FRAME + 3


def test_a_format_with_a_gap_in_its_frame_ids_is_refused() -> None:
    class Gappy(Classic):
        __slots__ = ()
        name = "gappy"
        frames = {FIRST_FORMAT_FRAME + 1: lambda g: None}

    register(Gappy())
    try:
        with pytest.raises(ValueError, match="gappy: frame ids must run"):
            Game.new(_decks(), seed=1, format="gappy")
    finally:
        del FORMATS["gappy"]


def test_a_format_needs_a_name_and_a_card_set() -> None:
    class Nameless(Format):
        __slots__ = ()

    with pytest.raises(ValueError, match="Nameless: a format needs a name"):
        register(Nameless())


def test_a_format_copies_as_its_name() -> None:
    for name, fmt in FORMATS.items():
        assert fmt.__reduce__() == (rules_for, (name,))
        assert copy.deepcopy(fmt) is fmt is rules_for(name)


@pytest.mark.source
def test_format_implements_every_hook_the_state_declares() -> None:
    """The game's `rules` is typed as `FormatHooks` (engine.hooks), below the state; the
    hooks that take the game are declared there and implemented by `Format` with the same
    parameters (the game typed as `GameLike` there), so what the engine calls is what runs."""
    import inspect

    from mtg_env.engine.hooks import FormatHooks
    from mtg_env.engine.state import GameFields

    assert GameFields.__annotations__["rules"] == "FormatHooks"
    declared = [
        n
        for n, f in vars(FormatHooks).items()
        if callable(f) and "raise NotImplementedError" in inspect.getsource(f)
    ]
    assert len(declared) == 15
    for name in declared:
        ours, theirs = getattr(FormatHooks, name), getattr(Format, name)
        assert theirs is not ours, name
        assert list(inspect.signature(theirs).parameters) == list(
            inspect.signature(ours).parameters
        ), name
    for fmt in FORMATS.values():
        assert isinstance(fmt, FormatHooks)


# Shared code must not ask which format it runs: no format flags, no format names in
# comparisons. The formats package is where formats are told apart.
SHARED = [
    *sorted((ROOT / "mtg_env").rglob("*.py")),
    *sorted((ROOT / "agents").glob("*.py")),
]
FLAG = re.compile(
    r"rules\.(pocket|phases|pool|immediate|shared_pile)\b"
    r"|(==|!=|\bin)\s*\(?\s*[\"'](classic|adventure|pocket)[\"']"
    r"|[\"'](classic|adventure|pocket)[\"']\s*(==|!=)"
)


@pytest.mark.parametrize(
    "path",
    [p for p in SHARED if "formats" not in p.parts],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_shared_code_has_no_format_flag_or_format_name_test(path: Path) -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if FLAG.search(line)
    ]
    assert not hits, "\n".join(hits)


# Cards are data: no card name in engine, env, format or agent code. Basic land types are rules
# words (CR 305.6) that basic lands are also named after.
@functools.cache
def _card_name_pattern() -> re.Pattern[str]:
    """Every card and token name of every format, as one pattern (a name as a whole word)."""
    from mtg_env.engine import load_cards
    from mtg_env.engine.constants import BASIC_LAND_TYPES, FACE_DOWN
    from mtg_env.engine.vocab import RULES_SUBTYPES

    names: set[str] = set()
    for fmt in FORMATS.values():
        cs = load_cards(fmt.card_set)
        names |= set(cs.cards) | set(cs.tokens)
    names -= set(BASIC_LAND_TYPES) | {FACE_DOWN} | RULES_SUBTYPES
    # Longest first, so that a name that contains another is reported whole.
    alts = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<![\w-])(?:{alts})(?![\w-])")


ENGINE_AND_ENV = (
    sorted((ROOT / "mtg_env" / "engine").rglob("*.py"))
    + sorted((ROOT / "mtg_env" / "env").glob("*.py"))
    + sorted((ROOT / "agents").glob("*.py"))
)


@pytest.mark.parametrize("path", ENGINE_AND_ENV, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_env_and_agent_code_name_no_card(path: Path) -> None:
    names = sorted(set(_card_name_pattern().findall(path.read_text())))
    assert not names, f"{path.relative_to(ROOT)} names cards: {names}"


def test_the_card_name_check_finds_a_name() -> None:
    """The check above can fail: a card's name in code is found, a longer word is not."""
    pat = _card_name_pattern()
    assert pat.findall('if name == "Lightning Bolt":') == ["Lightning Bolt"]
    assert pat.findall("lightning_bolted = Shocks") == []
