"""Hypothesis property tests of the engine API: random action sequences, clone
independence, determinism."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mtg_env.engine import Game, IllegalActionError, load_decks

DECKS = load_decks("classic")
NAMES = sorted(DECKS)

choices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=120)


def _play(g: Game, picks: list[int]) -> None:
    for p in picks:
        if g.is_over:
            return
        legal = g.legal_actions()
        g.apply(legal[p % len(legal)])


@settings(max_examples=40, deadline=None)
@given(
    a=st.sampled_from(NAMES), b=st.sampled_from(NAMES), seed=st.integers(0, 2**32), picks=choices
)
def test_any_legal_sequence_applies_and_is_deterministic(
    a: str, b: str, seed: int, picks: list[int]
) -> None:
    g1 = Game.new((DECKS[a], DECKS[b]), seed=seed)
    g2 = Game.new((DECKS[a], DECKS[b]), seed=seed)
    _play(g1, picks)
    _play(g2, picks)
    assert g1.state_hash() == g2.state_hash()
    assert g1.is_over or g1.legal_actions()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), before=choices, after=choices)
def test_clone_is_independent(seed: int, before: list[int], after: list[int]) -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[3]]), seed=seed)
    _play(g, before)
    h = g.state_hash()
    c = g.clone()
    _play(c, after)
    assert g.state_hash() == h
    _play(g, after)
    assert g.state_hash() == c.state_hash()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    picks=choices,
    kind=st.integers(0, 10),
    obj=st.integers(-3, 200),
    arg=st.integers(-1, 50),
)
def test_unlisted_actions_raise_and_change_nothing(
    seed: int, picks: list[int], kind: int, obj: int, arg: int
) -> None:
    g = Game.new((DECKS[NAMES[2]], DECKS[NAMES[5]]), seed=seed)
    _play(g, picks)
    a = (kind, obj, arg)
    if g.is_over or a in g.legal_actions():
        return
    h = g.state_hash()
    try:
        g.apply(a)
        raise AssertionError("an unlisted action was accepted")
    except IllegalActionError as e:
        assert str(e)
    assert g.state_hash() == h
