"""The public engine API: construction, legal actions, apply, clone, hashing, replay."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from mtg_env.engine import (
    ATTACK,
    KEEP,
    MULLIGAN,
    PASS,
    PLAY,
    Action,
    Game,
    IllegalActionError,
    load_decks,
)
from mtg_env.engine.constants import D_BOTTOM, D_MULLIGAN, D_PRIORITY

DECKS = load_decks("classic")
NAMES = sorted(DECKS)


def play_random(g: Game, seed: int, limit: int = 5000) -> list[Action]:
    r = random.Random(seed)
    actions = []
    while not g.is_over and len(actions) < limit:
        a = r.choice(g.legal_actions())
        actions.append(a)
        g.apply(a)
    return actions


@pytest.mark.parametrize("deck_a", NAMES)
def test_every_deck_pair_plays_to_the_end_and_replays(deck_a: str) -> None:
    """Done-when: every ordered pair of bundled decks plays 5 seeded games of random legal
    actions to the end, and replaying each action list reproduces every state_hash."""
    for deck_b in NAMES:
        for seed in range(5):
            g = Game.new((DECKS[deck_a], DECKS[deck_b]), seed=seed)
            start = g.clone()
            r = random.Random(seed)
            actions, hashes = [], []
            while not g.is_over:
                a = r.choice(g.legal_actions())
                actions.append(a)
                g.apply(a)
                hashes.append(g.state_hash())
            assert g.is_over and len(actions) < 5000
            assert g.winner in (0, 1, None)
            replay = Game.new((DECKS[deck_a], DECKS[deck_b]), seed=seed)
            assert replay.state_hash() == start.state_hash()
            for a, h in zip(actions, hashes, strict=True):
                replay.apply(a)
                assert replay.state_hash() == h


def test_same_seed_same_game_different_seed_differs() -> None:
    a = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=11)
    b = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=11)
    c = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=12)
    assert a.state_hash() == b.state_hash()
    assert a.state_hash() != c.state_hash()


def test_first_player_from_seed_and_option() -> None:
    firsts = {Game.new((NAMES[0], NAMES[1]), seed=s).first_player for s in range(20)}
    assert firsts == {0, 1}
    for fp in (0, 1):
        assert Game.new((NAMES[0], NAMES[1]), seed=3, first_player=fp).first_player == fp


def test_clone_is_independent() -> None:
    g = Game.new((DECKS[NAMES[2]], DECKS[NAMES[3]]), seed=5)
    play_random(g, 1, limit=40)
    h = g.state_hash()
    c = g.clone()
    assert c.state_hash() == h
    play_random(c, 2, limit=60)
    assert g.state_hash() == h
    # and the other way round
    c2 = g.clone()
    h2 = c2.state_hash()
    play_random(g, 3, limit=60)
    assert c2.state_hash() == h2


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_game_copies_and_pickles_mid_game_in_either_build(how: str) -> None:
    """pickle, copy.deepcopy and copy.copy of a game stopped mid-game (mid-stack, say):
    the same state, the same legal actions and the same continuation, on the compiled
    engine as on the pure one (docs/compiling.md)."""
    for seed in range(6):
        g = Game.new((DECKS[NAMES[seed % 6]], DECKS[NAMES[(seed + 2) % 6]]), seed=seed)
        play_random(g, seed, limit=40 + 13 * seed)
        twin = {
            "pickle": lambda x: pickle.loads(pickle.dumps(x)),
            "deepcopy": copy.deepcopy,
            "copy": copy.copy,
        }[how](g)
        assert twin.state_hash() == g.state_hash()
        assert twin.legal_actions() == g.legal_actions()
        if how == "copy":
            continue  # shallow: shares the lists with the original
        rest = play_random(twin, 100 + seed, limit=80)
        for a in rest:
            g.apply(a)
        assert twin.state_hash() == g.state_hash()


def test_numpy_integers_are_taken_wherever_the_api_takes_an_int() -> None:
    """What an agent holding numpy arrays passes (seeds, seats, card ids, actions built
    from array entries) gives exactly what plain ints give, in either build."""
    n = np.int64
    pair = (DECKS[NAMES[0]], DECKS[NAMES[1]])
    g = Game.new(pair, seed=3, first_player=1, max_decisions=500)
    h = Game.new(pair, seed=n(3), first_player=n(1), max_decisions=n(500))
    assert g.state_hash() == h.state_hash()
    r = random.Random(0)
    while not g.is_over and g.n_decisions < 60:
        a = r.choice(g.legal_actions())
        g.apply(a)
        h.apply(type(a)(*(n(x) if isinstance(x, int) else x for x in a)))
        assert g.state_hash() == h.state_hash()
    cid = g.battlefield[0] if g.battlefield else 0
    fields = ("name", "types", "colors", "power", "toughness", "keywords", "controller")
    ours, theirs = h.chars(n(cid)), g.chars(cid)
    assert [getattr(ours, f) for f in fields] == [getattr(theirs, f) for f in fields]
    assert h.explain(n(cid)) == g.explain(cid)
    seat = g.current_player or 0
    assert h.resample_hidden(n(seat), n(7)).state_hash() == g.resample_hidden(seat, 7).state_hash()
    s1, _ = Game.setup([{"life": 20}, {"life": 20}], seed=2, turn=3, active=1)
    s2, _ = Game.setup([{"life": 20}, {"life": 20}], seed=n(2), turn=n(3), active=n(1))
    assert s1.state_hash() == s2.state_hash()


def test_legal_actions_are_exact() -> None:
    """Every listed action applies; actions near the listed ones that are not listed raise
    IllegalActionError with a reason."""
    r = random.Random(0)
    for seed in range(6):
        g = Game.new((DECKS[NAMES[seed % 6]], DECKS[NAMES[(seed + 2) % 6]]), seed=seed)
        steps = 0
        while not g.is_over and steps < 400:
            legal = g.legal_actions()
            assert len(set(legal)) == len(legal)
            for a in legal:
                g.clone().apply(a)  # must not raise
            n = len(g.cdef)
            probes = [
                Action(k, r.randrange(-2, n), r.randrange(0, 3))
                for k in range(11)
                for _ in range(3)
            ]
            for a in probes:
                if a in legal:
                    continue
                with pytest.raises(IllegalActionError) as e:
                    g.clone().apply(a)
                assert str(e.value)
            g.apply(r.choice(legal))
            steps += 1


def test_illegal_attack_with_summoning_sick_creature_names_the_rule() -> None:
    g, lab = Game.setup(
        [
            {"battlefield": [{"card": "Grizzly Bears", "id": "bears", "sick": True}, "Hill Giant"]},
            {},
        ],
        turn=3,
        step=4,
    )
    # step 4 = beginning of combat: pass to the declaration
    while g.decision.kind == D_PRIORITY:
        g.apply(Action(PASS))
    with pytest.raises(IllegalActionError) as e:
        g.apply(Action(ATTACK, lab["bears"], 1))
    assert "302.6" in str(e.value) and "summoning sickness" in str(e.value)


def test_london_mulligan() -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=4, first_player=0)
    assert g.decision.kind == D_MULLIGAN and g.current_player == 0
    g.apply(Action(MULLIGAN))
    assert g.decision.kind == D_MULLIGAN and g.current_player == 1
    g.apply(Action(KEEP))
    # player 0 gets a new 7 and decides again
    assert g.decision.kind == D_MULLIGAN and g.current_player == 0
    assert len(g.hand[0]) == 7
    g.apply(Action(KEEP))
    assert g.decision.kind == D_BOTTOM and g.current_player == 0
    g.apply(g.legal_actions()[0])
    assert len(g.hand[0]) == 6 and len(g.library[0]) == 34
    assert len(g.hand[1]) == 7


def test_no_mulligans_option_and_first_turn_skips_draw() -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=4, first_player=1, mulligans=False)
    assert g.turn == 1 and g.active == 1
    assert len(g.hand[1]) == 7 and len(g.library[1]) == 33  # 103.8a: no draw on turn 1


def test_decision_cap_truncates() -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=1, max_decisions=10)
    play_random(g, 0)
    assert g.is_over and g.truncated and g.winner is None and g.n_decisions == 10


def test_auto_pass_off_shows_pass_only_windows() -> None:
    on = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=2, mulligans=False)
    off = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=2, mulligans=False, auto_pass=False)
    only_pass = 0
    while not off.is_over and off.turn < 4:
        legal = off.legal_actions()
        only_pass += legal == [Action(PASS)]
        off.apply(legal[0])
    assert only_pass > 0
    while not on.is_over and on.turn < 4:
        assert on.legal_actions() != [Action(PASS)]
        on.apply(on.legal_actions()[0])


def test_game_over_rejects_actions() -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=1)
    play_random(g, 5)
    assert g.is_over and g.current_player is None and g.legal_actions() == []
    with pytest.raises(IllegalActionError):
        g.apply(Action(PASS))


def test_log_text_and_events() -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=8)
    play_random(g, 8)
    text = g.log_text()
    assert "Turn 1" in text and "Game over" in text
    assert g.events[-1][0] in ("game_over", "truncated")


def test_play_action_for_card_not_in_hand() -> None:
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=8, mulligans=False)
    p = g.current_player
    other = g.library[p][0]
    with pytest.raises(IllegalActionError) as e:
        g.apply(Action(PLAY, other))
    assert "not in your hand" in str(e.value)


def test_resample_hidden_keeps_own_view() -> None:
    g = Game.new((DECKS[NAMES[1]], DECKS[NAMES[4]]), seed=9, mulligans=False)
    play_random(g, 4, limit=30)
    seat = g.current_player
    r = g.resample_hidden(seat, random.Random(1))
    assert r.hand[seat] == g.hand[seat]
    assert sorted(r.hand[1 - seat] + r.library[1 - seat]) == sorted(
        g.hand[1 - seat] + g.library[1 - seat]
    )
    assert len(r.hand[1 - seat]) == len(g.hand[1 - seat])
    assert r.legal_actions() == g.legal_actions()


def test_legal_actions_are_shared_values() -> None:
    """`objects.action` returns one shared Action per (kind, obj, arg), equal to the tuple it
    stands for, and a fresh one outside the cached range."""
    from mtg_env.engine.constants import CHOOSE, PLAY, TARGET
    from mtg_env.engine.objects import Action, action

    a = action(PLAY, 7)
    assert a == Action(PLAY, 7, 0) == (PLAY, 7, 0) and type(a) is Action
    assert action(PLAY, 7) is a and action(PLAY, 7, 1) is not a
    assert action(TARGET, -2) == (TARGET, -2, 0) and action(TARGET, -1) != action(TARGET, -2)
    assert action(CHOOSE, 0, 3) == (CHOOSE, 0, 3) and action(CHOOSE, 3, 0) != action(CHOOSE, 0, 3)
    big = action(PLAY, 1 << 40, -(1 << 41))
    assert big == (PLAY, 1 << 40, -(1 << 41))
    # Every legal action of a game, in every format, is one of these shared values.
    from mtg_env.engine.formats import FORMATS

    for fmt in FORMATS:
        decks = load_decks(fmt)
        names = sorted(decks)
        g = Game.new((decks[names[0]], decks[names[-1]]), seed=3, format=fmt)
        r = random.Random(3)
        for _ in range(150):
            if g.is_over:
                break
            legal = g.legal_actions()
            for x in legal:
                assert x is action(*x), (fmt, x)
            g.apply(r.choice(legal))
