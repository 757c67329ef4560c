"""Observation bounds, masks against the engine, hidden information, extreme boards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hidden import swap_hidden

import mtg_env
from mtg_env.engine import Game, load_cards, load_decks
from mtg_env.engine.constants import BATTLEFIELD, CREATURE
from mtg_env.engine.formats import FORMATS
from mtg_env.env import Layout
from mtg_env.env.observers import FLAT_SLOTS, FlatObserver

DECKS = load_decks("classic")
NAMES = sorted(DECKS)
LAYOUT = Layout(load_cards("classic"))


def test_random_play_obs_in_bounds_and_mask_equals_engine_legal_set() -> None:
    space = mtg_env.raw_env().observation_space("player_0")["observation"]
    steps = 0
    for i, a in enumerate(NAMES):
        for j, b in enumerate(NAMES):
            g = Game.new((DECKS[a], DECKS[b]), seed=100 + 6 * i + j)
            r = random.Random(i * 7 + j)
            while not g.is_over:
                seat = g.current_player
                for s in (0, 1):
                    obs = LAYOUT.observe(g, s)
                    assert space.contains(obs), (a, b, steps)
                mask, amap, missing = LAYOUT.mask_and_map(g, seat)
                assert missing == 0
                legal = g.legal_actions()
                own, opp, stack = LAYOUT.slots(g, seat)
                idx = {LAYOUT.action_index(g, x, seat, own, opp, stack) for x in legal}
                assert set(np.flatnonzero(mask)) == idx
                assert all(amap[k] in legal for k in amap)
                if steps % 7 == 0:
                    for k in amap:
                        g.clone().apply(amap[k])  # every masked-in action applies
                g.apply(r.choice(legal))
                steps += 1
    assert steps > 3000


def test_hidden_information_does_not_change_the_observation() -> None:
    checked = 0
    for seed in range(30):
        g = Game.new((DECKS[NAMES[seed % 6]], DECKS[NAMES[(seed + 3) % 6]]), seed=seed)
        r = random.Random(seed)
        while not g.is_over and g.n_decisions < 120:
            seat = g.current_player
            h = swap_hidden(g, seat)
            if sorted(h.cdef[c].name for c in h.hand[1 - seat]) != sorted(
                g.cdef[c].name for c in g.hand[1 - seat]
            ):
                checked += 1
            assert np.array_equal(LAYOUT.observe(g, seat), LAYOUT.observe(h, seat))
            g.apply(r.choice(g.legal_actions()))
    assert checked > 100


def test_resample_hidden_keeps_the_seat_view_and_mask() -> None:
    for seed in range(20):
        g = Game.new((DECKS[NAMES[seed % 6]], DECKS[NAMES[(seed + 1) % 6]]), seed=seed)
        r = random.Random(seed)
        while not g.is_over and g.n_decisions < 80:
            seat = g.current_player
            rs = g.resample_hidden(seat, random.Random(seed))
            assert np.array_equal(LAYOUT.observe(g, seat), LAYOUT.observe(rs, seat))
            m1, _, _ = LAYOUT.mask_and_map(g, seat)
            m2, _, _ = LAYOUT.mask_and_map(rs, seat)
            assert np.array_equal(m1, m2)
            g.apply(r.choice(g.legal_actions()))


def _extreme_players(n_perm: int) -> list[dict]:
    mine = (
        [{"card": "Prodigal Sorcerer"}] * 6
        + [{"card": "Windreaver"}] * 4
        + [{"card": "Island"}] * 20
        + [{"card": "Plains"}] * 10
    )
    theirs = [{"card": "Grizzly Bears"}] * 20 + [{"card": "Forest"}] * 20
    hand = [
        "Lightning Bolt",
        "Counterspell",
        "Giant Growth",
        "Unsummon",
        "Mind Bend",
        "Aura Finesse",
        "Holy Strength",
        "Air Elemental",
        "Gravedigger",
        "Shock",
        "Humble",
        "Doom Blade",
        "Mind Control",
        "Threaten",
        "Insurrection",
    ] * 2
    return [
        {
            "battlefield": mine[:n_perm],
            "hand": hand,
            "library": ["Island"] * 5,
            "graveyard": ["Grizzly Bears", "Air Elemental"],
        },
        {"battlefield": theirs[:n_perm], "hand": hand, "library": ["Forest"] * 5},
    ]


def test_extreme_board_every_legal_action_has_an_index() -> None:
    g, _ = Game.setup(_extreme_players(40), turn=3)
    assert LAYOUT.overflow(g) is None
    assert sum(1 for c in g.battlefield if g.zone[c] == BATTLEFIELD) == 80
    r = random.Random(0)
    seen = 0
    for _ in range(300):
        if g.is_over:
            break
        seat = g.current_player
        mask, amap, missing = LAYOUT.mask_and_map(g, seat)
        assert missing == 0
        assert len(g.legal_actions()) >= len(amap) > 0
        seen = max(seen, len(g.legal_actions()))
        g.apply(r.choice(g.legal_actions()))
    assert seen > 40


def test_env_truncates_a_board_beyond_the_layout() -> None:
    e = mtg_env.raw_env()
    e.reset(seed=0)
    players = _extreme_players(40)
    players[0]["battlefield"] = players[0]["battlefield"] + [{"card": "Island"}]
    g, _ = Game.setup(players, turn=3)
    e.set_game(g)
    assert e.layout.overflow(g) is not None
    mask = e.observe(e.agent_selection)["action_mask"]
    e.step(int(np.flatnonzero(mask)[0]))
    assert all(e.truncations.values())
    assert "permanents" in e.infos["player_0"]["truncated_reason"]


# sha256 of every observation (both seats) and mask along 8 seeded random games. The
# encoder is optimised (cached static features, batched copies); this pins its output to
# the straightforward encoder it replaced, so a speed-up can never change what agents see.
# Regenerate only for an intended change of the observation layout.
OBS_DIGEST = "489da736289eeb3de8669520da2096083d906bebb2a99812328f8de10e8f2228"


def _obs_digest(games: int = 8) -> str:
    import hashlib

    import mtg_env

    h = hashlib.sha256()
    env = mtg_env.raw_env()
    rng = np.random.default_rng(0)
    for seed in range(games):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            h.update(obs["observation"].tobytes())
            h.update(obs["action_mask"].tobytes())
            for other in env.agents:
                if other != agent:
                    h.update(env.observe(other)["observation"].tobytes())
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return h.hexdigest()


def test_observation_encoding_is_pinned() -> None:
    assert _obs_digest() == OBS_DIGEST


def test_a_copied_layout_encodes_like_the_original() -> None:
    """A copy of a layout (pickle, deepcopy: what copying an env does) is the layout of the
    same card set and limits, on both builds (the compiled class restores itself by
    `__reduce__`), and encodes every state as the original does."""
    import copy
    import pickle

    from mtg_env.env.spaces import Limits

    small = Layout(load_cards("classic"), Limits(permanents=12, stack=5))
    for lay in (LAYOUT, small):
        assert pickle.dumps(lay)  # copies by __reduce__, as deepcopy and copy do
        copies = [copy.deepcopy(lay), copy.copy(lay)]
        for c in copies:
            assert type(c) is Layout and c is not lay
            assert (c.limits, c.n_obs, c.n_actions, c.card_names) == (
                lay.limits,
                lay.n_obs,
                lay.n_actions,
                lay.card_names,
            )
        g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[1]]), seed=5)
        r = random.Random(5)
        while not g.is_over and g.n_decisions < 150:
            seat = g.current_player
            want = lay.observe(g, seat)
            want_mask = lay.mask_and_map(g, seat)[0]
            for c in copies:
                assert np.array_equal(c.observe(g, seat), want)
                assert np.array_equal(c.mask_and_map(g, seat)[0], want_mask)
            g.apply(r.choice(g.legal_actions()))


def test_numpy_integers_are_taken_wherever_the_encoders_take_an_int() -> None:
    """What an agent holding numpy arrays passes (a seat, an index from `flatnonzero`):
    the same answers as plain ints, on both builds (a compiled function typed `int` would
    refuse a numpy integer)."""
    from mtg_env.env.entity import EntityLayout

    ent = EntityLayout(LAYOUT)
    g = Game.new((DECKS[NAMES[1]], DECKS[NAMES[4]]), seed=3)
    r = random.Random(3)
    while not g.is_over and g.n_decisions < 60:
        seat = g.current_player
        for np_int in (np.int64, np.int32, np.intp):
            s = np_int(seat)
            assert np.array_equal(LAYOUT.observe(g, s), LAYOUT.observe(g, seat))
            mask, amap, missing = LAYOUT.mask_and_map(g, s)
            assert np.array_equal(mask, LAYOUT.mask_and_map(g, seat)[0]) and missing == 0
            for i in np.flatnonzero(mask):
                assert LAYOUT.describe_index(i) == LAYOUT.describe_index(int(i))
            rows, ramap, _ = ent.candidates(g, s)
            assert (rows, ramap) == ent.candidates(g, seat)[:2]
            assert ent.rows(g, s) == ent.rows(g, seat)
            want = ent.observe(g, seat, (rows, ramap))
            got = ent.observe(g, s, (rows, ramap))
            assert all(np.array_equal(got[k], want[k]) for k in want)
            assert ent.describe_index(np.int64(0)) == ent.describe_index(0)
        g.apply(r.choice(g.legal_actions()))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_flat_pieces_tile_the_vector_and_name_each_slot_column(fmt: str) -> None:
    """The flat observer's pieces are the vector, in order, with no gap: networks read their
    offsets and slot columns from them (`mtg_env.nets`), so a piece must say where the
    layout writes it."""
    lay = Layout(load_cards(fmt))
    pieces = FlatObserver(lay).pieces
    assert [p.name for p in pieces] == list(lay.obs_slices)
    assert pieces[0].start == 0 and pieces[-1].stop == lay.n_obs
    for a, b in zip(pieces, pieces[1:], strict=False):
        assert a.stop == b.start, (a.name, b.name)
    by = {p.name: p for p in pieces}
    for name in FLAT_SLOTS:
        width = by[name].shape[1]
        assert len(by[name].columns) == width == (lay.sf if name == "stack" else lay.pf)
    own = by["permanents_own"]
    assert own.column("keywords.flying") == lay.perm_offsets["keywords"] + lay.kw_index["flying"]
    with pytest.raises(KeyError, match="no column 'nothing'"):
        own.column("nothing")


def test_a_slot_column_holds_the_value_its_name_says() -> None:
    """A flying creature on the battlefield shows 1 in its slot's `present`,
    `types.creature` and `keywords.flying` columns, and 0 in `keywords.defender`."""
    lay = Layout(load_cards("classic"))
    own = {p.name: p for p in FlatObserver(lay).pieces}["permanents_own"]
    g = Game.new(decks=(DECKS["White Weenie"], DECKS["Red Burn"]), seed=3, format="classic")
    flyer = next(
        c for c in g.library[0] if "flying" in g.cdef[c].keywords and g.cdef[c].types & CREATURE
    )
    g._move(flyer, BATTLEFIELD, controller=0)
    obs = lay.observe(g, 0)
    k = g.controlled(0).index(flyer)
    width = own.shape[1]
    row = obs[own.start + k * width : own.start + (k + 1) * width]
    for col, want in [
        ("present", 1.0),
        ("types.creature", 1.0),
        ("keywords.flying", 1.0),
        ("keywords.defender", 0.0),
        ("types.land", 0.0),
    ]:
        assert row[own.column(col)] == want, col
