"""The global state (`state()`, `state_space`): everything, for centralized critics, in a
fixed space; privileged (it changes with hidden information, observations do not), and
never read by an observation, a mask or a text view."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hidden import swap_hidden
from pettingzoo.test import state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import mtg_env
from mtg_env.engine.constants import FACE_DOWN
from mtg_env.env.entity import OBJECT_INDEX
from mtg_env.env.state import Z_LIBRARY, Z_OTHER_HAND, EntityState, FlatState, hidden_row

FORMATS = ("classic", "adventure", "pocket", "core")
OBS_TYPES = ("flat", "entity")


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)  # type: ignore[arg-type]


def _play(e: mtg_env.raw_env, seed: int, steps: int):
    """Random legal moves: yields before each one (the env mid-game, not over)."""
    rng = np.random.default_rng(seed)
    for _ in e.agent_iter(steps):
        o, _, term, trunc, _ = e.last()
        if term or trunc:
            return
        yield
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_state_lies_in_the_state_space(fmt: str, obs_type: str) -> None:
    e = mtg_env.raw_env(format=fmt, obs_type=obs_type, max_decisions=120)
    space = e.state_space
    for seed in (0, 1):
        e.reset(seed=seed)
        n = 0
        for _ in _play(e, seed, 400):
            assert space.contains(e.state())
            n += 1
        assert space.contains(e.state())  # the finished game too
        assert n > 20


# The entity state is a Dict of tables, on which PettingZoo's test warns (it expects one
# array) and checks what it can: that every state lies in the state space.
@pytest.mark.filterwarnings("ignore:State space for each environment probably should be")
@pytest.mark.filterwarnings("ignore:State is not NumPy array")
@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_pettingzoo_state_test(fmt: str, obs_type: str) -> None:
    # PettingZoo 1.27 checks the AEC env's state over its own random play (illegal moves
    # end a game: the wrapped env) and the parallel env's first state.
    state_test(
        mtg_env.env(format=fmt, obs_type=obs_type),
        turn_based_aec_to_parallel(mtg_env.raw_env(format=fmt, obs_type=obs_type)),
    )


def test_flat_state_holds_both_views_the_libraries_in_order_and_face_down_cards() -> None:
    e = mtg_env.raw_env(format="pocket")
    e.reset(seed=3)
    lay = e.state_layout
    assert isinstance(lay, FlatState)
    seen_face_down = 0
    for _ in _play(e, 3, 40):
        g, s = e.game, e.state()
        sl = lay.slices
        for seat in (0, 1):
            assert np.array_equal(s[sl[f"player_{seat}"]], e.layout.observe(g, seat))
        names = e.layout.card_names
        n = e.layout.n_ident
        order = s[sl["library_order_0"]]
        decoded = [names[int(round(v * n)) - 1] for v in order if v > 0]
        assert decoded == [g.cdef[c].name for c in g.lib_top(0)]
        assert not s[sl["library_order_1"]].any()  # pocket: one shared pile
        for seat in (0, 1):
            fd = s[sl[f"face_down_{seat}"]]
            for cid, slot in g.positions(seat).items():
                if g.cdef[cid].name == FACE_DOWN:
                    assert names[int(round(fd[slot] * n)) - 1] == g.cdef[cid].half_of
                else:
                    assert fd[slot] == 0
        seen_face_down += any(s[sl[f"face_down_{seat}"]].any() for seat in (0, 1))
    assert seen_face_down > 5


@pytest.mark.parametrize("fmt", ["classic", "pocket"])
def test_entity_state_is_player_0s_tables_then_the_hidden_zones(fmt: str) -> None:
    e = mtg_env.raw_env(format=fmt, obs_type="entity")
    e.reset(seed=5)
    lay = e.state_layout
    assert isinstance(lay, EntityState)
    zone, mine = OBJECT_INDEX["zone"], OBJECT_INDEX["mine"]
    owned = OBJECT_INDEX["owned"]
    for _ in _play(e, 5, 60):
        g, s = e.game, e.state()
        views = [e.observe(a) for a in e.possible_agents]
        assert np.array_equal(s["global"], np.stack([v["global"] for v in views]))
        n = int(views[0]["object_mask"].sum())
        assert np.array_equal(s["objects"][:n], views[0]["objects"][:n])
        hidden = [(Z_OTHER_HAND, c) for c in g.hand[1]] + [
            (Z_LIBRARY, c) for p in range(g.rules.piles) for c in g.lib_top(p)
        ]
        assert int(s["object_mask"].sum()) == n + len(hidden)
        ident = e.layout.ident
        rows = s["objects"][n : n + len(hidden)]
        assert [tuple(r[[zone]]) for r in rows] == [(z,) for z, _ in hidden]
        cards = s["object_card"][n : n + len(hidden)].tolist()
        assert cards == [ident[g.cdef[c].name] for _, c in hidden]
        # A hidden card is encoded as player_1's own observation encodes its hand.
        h1 = len(g.hand[1])
        cols = [i for i in range(rows.shape[1]) if i not in (zone, mine, owned)]
        assert np.array_equal(rows[:h1][:, cols], views[1]["objects"][:h1][:, cols])
        # `mine` and `owned` from player_0's side, as in the rows before.
        assert [(r[mine], r[owned]) for r in rows.tolist()] == [
            (int(g.owner[c] == 0),) * 2 for _, c in hidden
        ]
        assert [hidden_row(g, c, z) for z, c in hidden] == rows.tolist()
    if fmt == "pocket":
        # The card a face-down source is: shown to the critic, never to a player.
        fd = s["face_down_card"]
        assert fd.any()
        assert set(s["object_card"][fd > 0].tolist()) == {ident[FACE_DOWN]}


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_state_changes_with_hidden_information_observations_do_not(fmt: str, obs_type: str) -> None:
    # The state is privileged: swapping what a seat cannot see (the opponent's hand, the
    # library order) changes it, while that seat's observation and text stay the same.
    e = mtg_env.raw_env(format=fmt, obs_type=obs_type)
    other = mtg_env.raw_env(format=fmt, obs_type=obs_type)
    e.reset(seed=7)
    checked = 0
    for _ in _play(e, 7, 60):
        g = e.game
        seat = g.current_player
        agent = e.possible_agents[seat]
        h = swap_hidden(g, seat)
        other.set_game(h)
        assert _same(e.observe(agent), other.observe(agent))
        assert e.text(agent) == other.text(agent)
        # What changed (swap_hidden changes nothing in some positions: a shared pile
        # reversed twice, a hand and library of the same cards).
        changed = sorted(g.cdef[c].name for c in g.hand[1 - seat]) != sorted(
            h.cdef[c].name for c in h.hand[1 - seat]
        ) or any(
            [g.cdef[c].name for c in g.lib_top(p)] != [h.cdef[c].name for c in h.lib_top(p)]
            for p in (0, 1)
        )
        assert _same(e.state(), other.state()) is not changed
        checked += changed
    assert checked > 10


class Called(AssertionError):
    pass


def _refuse(*args: object, **kwargs: object) -> None:
    raise Called("an observation path built the global state")


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_no_observation_path_builds_the_state(
    obs_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mtg_env.env.duel import raw_env
    from mtg_env.env.selfplay import SelfPlayEnv

    for target in (FlatState, EntityState):
        monkeypatch.setattr(target, "state", _refuse)
    monkeypatch.setattr(raw_env, "state", _refuse)
    # The check itself: a call is caught.
    with pytest.raises(Called):
        mtg_env.raw_env(obs_type=obs_type).state()
    e = mtg_env.env(obs_type=obs_type, max_decisions=80)
    e.reset(seed=1)
    rng = random.Random(1)
    for agent in e.agent_iter(200):
        o, _, term, trunc, _ = e.last()
        for a in e.agents:
            e.observe(a)
        e.unwrapped.text(agent)
        if term or trunc:
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(o["action_mask"]).tolist()))
    sp = SelfPlayEnv(obs_type=obs_type, max_decisions=80)
    _, info = sp.reset(seed=2)
    for _ in range(30):
        _, _, term, trunc, info = sp.step(int(np.flatnonzero(info["action_mask"])[0]))
        sp.action_masks()
        sp.text()
        if term or trunc:
            break


def test_the_env_card_gives_the_state_sizes() -> None:
    from mtg_env.env import duel

    doc = " ".join((duel.__doc__ or "").split())
    flat = mtg_env.raw_env().state_space
    (s,) = flat.shape
    assert f"S = {s} for classic" in doc and f"(S = {s} for classic)" in doc
    ent = mtg_env.raw_env(obs_type="entity").state_space
    assert f"{ent['objects'].shape[0]} rows in classic" in doc
    assert f"| `global` | {ent['global'].shape} int16 |" in doc
