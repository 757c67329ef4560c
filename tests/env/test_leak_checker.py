"""The information-leak checker (`mtg_env.testing`): every view a seat has (v0, v1, the
text view, OpenSpiel's tensors and strings, the Spellbench seat decision) is unchanged by
re-dealing what the seat cannot see, over random states of every format; and the checker
does find a leak when a view shows one (three leaky fixtures)."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from mtg_env.engine import Game
from mtg_env.engine.formats import FORMATS
from mtg_env.testing import (
    LeakReport,
    canonical_bytes,
    find_leaks,
    fuzzed_states,
    game_views,
    resample_game,
)


# Three games of each format in make test, twelve in make test-all.
@pytest.mark.parametrize(
    ("fmt", "games"),
    [(f, 3) for f in sorted(FORMATS)]
    + [pytest.param(f, 12, marks=pytest.mark.long) for f in sorted(FORMATS)],
)
def test_no_view_of_any_format_changes_with_what_the_seat_cannot_see(fmt: str, games: int) -> None:
    states = fuzzed_states(fmt, games=games, every=3, seed=11)
    report = find_leaks(states, game_views(fmt), resample_game)
    assert report.leaks == [], report.leaks[:5]
    assert report.states > 50
    names = {"v0", "v1", "text"}
    # OpenSpiel's views exist only with the openspiel extra (make test-lowest installs none).
    if importlib.util.find_spec("pyspiel") is not None:
        names |= {"openspiel_observation", "openspiel_information_state"}
    if fmt in ("core", "classic"):
        names |= {"spellbench", "spellbench_v1"}
    assert set(report.checked) == names
    assert all(n > 0 for n in report.checked.values())


def _opponent_hand(g: Game, seat: int) -> Any:
    return sorted(g.cdef[c].name for c in g.hand[1 - seat])


def _own_library_top(g: Game, seat: int) -> Any:
    lib = g.library[g.rules.pile(seat)]
    return g.cdef[lib[-1]].name if lib else None


def test_the_checker_finds_a_view_that_shows_hidden_cards() -> None:
    """Two leaky views (the opponent's hand, the seat's own next draw) next to a fair one:
    the leaky ones are reported in most states, the fair one never."""
    views = {
        "opponent_hand": _opponent_hand,
        "next_draw": _own_library_top,
        "fair": game_views("classic")["v0"],
    }
    report = find_leaks(fuzzed_states("classic", games=2, every=4), views, resample_game)
    by_view = {name: sum(line.startswith(name + ":") for line in report.leaks) for name in views}
    assert by_view["fair"] == 0
    assert by_view["opponent_hand"] > report.states // 2
    assert by_view["next_draw"] > report.states // 2


def test_the_checker_finds_a_leak_hidden_in_one_number_of_an_observation() -> None:
    """A v0 observation with one extra number, the opponent's library top card's id: one
    number in thousands, and the checker sees it."""
    fair = game_views("classic")["v0"]

    def leaky(g: Game, seat: int) -> Any:
        view = fair(g, seat)
        lib = g.library[g.rules.pile(1 - seat)]
        extra = np.float32(len(g.cdef[lib[-1]].name) if lib else 0)
        return {**view, "observation": np.append(view["observation"], extra)}

    report = find_leaks(fuzzed_states("classic", games=2, every=4), {"leaky": leaky}, resample_game)
    assert len(report.leaks) > report.states // 2


def test_a_view_that_does_not_apply_is_not_counted() -> None:
    def only_priority(g: Game, seat: int) -> Any:
        if g.decision is None or g.decision.kind != 0:
            raise NotImplementedError
        return 1

    states = list(fuzzed_states("core", games=1, every=2))
    report = find_leaks(states, {"p": only_priority}, resample_game)
    priority = sum(1 for g, _ in states if g.decision is not None and g.decision.kind == 0)
    assert report.checked == {"p": priority} and 0 < priority < len(states)
    assert isinstance(report, LeakReport) and report.leaks == []


def test_canonical_bytes_tell_apart_what_differs() -> None:
    a = np.zeros(3, np.float32)
    assert canonical_bytes(a) != canonical_bytes(a.astype(np.float64))
    assert canonical_bytes(a) != canonical_bytes(a.reshape(1, 3))
    assert canonical_bytes({"x": 1, "y": [1, 2]}) == canonical_bytes({"y": [1, 2], "x": 1})
    assert canonical_bytes("a") != canonical_bytes("b")


def _ninjutsu_states(n: int) -> list[tuple[Game, int]]:
    """States of random Faeries mirrors (the pauper set) with a ninjutsu ability on the
    stack: its card waits, revealed, in its owner's hand (CR 702.49a)."""
    import random

    from mtg_env.engine.carddb import load_decks

    faeries = load_decks("pauper")["Faeries"]
    out: list[tuple[Game, int]] = []
    for seed in range(50):
        g = Game.new((faeries, faeries), seed=seed, format="pauper", max_decisions=1500)
        rng = random.Random(seed)
        while not g.is_over and len(out) < n:
            if any(it.cid in g.hand[it.controller] for it in _ninjutsu(g)):
                seat = g.current_player
                assert seat is not None
                out.append((g.clone(), seat))
            g.apply(rng.choice(g.legal_actions()))
    return out


def _ninjutsu(g: Game) -> list[Any]:
    """The ninjutsu abilities on the stack."""
    return [it for it in g.stack if getattr(getattr(it.ability, "cost", None), "ninjutsu", False)]


def test_cr_702_49a_a_card_revealed_for_ninjutsu_stays_seen_when_the_hidden_part_is_redealt() -> (
    None
):
    states = _ninjutsu_states(12)
    assert len(states) == 12
    for g, _ in states:
        item = next(it for it in _ninjutsu(g) if it.cid in g.hand[it.controller])
        owner = item.controller
        for seed in range(5):
            assert item.cid in g.resample_hidden(1 - owner, seed).hand[owner]
    report = find_leaks(states, game_views("pauper"), resample_game)
    assert report.leaks == [], report.leaks[:5]
