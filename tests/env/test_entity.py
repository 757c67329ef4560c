"""`mtg/duel_entity-v1`: the entity observation, candidate actions and the text view, against
PettingZoo's and Gymnasium's checkers and the engine (masks, hidden information, sizes)."""

from __future__ import annotations

import importlib
import random

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from hidden import swap_hidden
from pettingzoo.test import api_test, render_test, seed_test

import mtg_env
from mtg_env.engine import Game, load_cards, load_decks
from mtg_env.env.entity import CANDIDATE_INDEX, OBJECT_INDEX, EntityLayout
from mtg_env.env.spaces import Layout

FORMATS = ("classic", "adventure", "pocket")


def _v1(fmt: str = "classic", **kw: object) -> mtg_env.raw_env:
    return mtg_env.raw_env(format=fmt, obs_type="entity", **kw)


# PettingZoo's api_test before 1.27 assumes a Dict observation has an "observation" key
# holding one array (its classic envs' shape); v1's observation is a Dict of tables.
OLD_API_TEST = tuple(int(x) for x in pettingzoo.__version__.split(".")[:2]) < (1, 27)


@pytest.mark.skipif(OLD_API_TEST, reason="PettingZoo < 1.27's api_test needs an 'observation' key")
@pytest.mark.parametrize("fmt", FORMATS)
def test_api_test_v1(fmt: str) -> None:
    api_test(mtg_env.env(format=fmt, obs_type="entity"), num_cycles=300)
    api_test(_v1(fmt), num_cycles=200)


@pytest.mark.parametrize("fmt", FORMATS)
def test_seed_and_render_tests_v1(fmt: str) -> None:
    seed_test(lambda: mtg_env.env(format=fmt, obs_type="entity"), num_cycles=200)
    render_test(lambda render_mode=None: _v1(fmt, render_mode=render_mode))


@pytest.mark.parametrize("fmt", FORMATS)
def test_gymnasium_check_env_selfplay_v1(fmt: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make("mtg_env/SelfPlayEntity-v1", format=fmt)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(env, skip_render_check=True)


def test_v1_is_registered_and_v0_is_unchanged() -> None:
    if hasattr(pettingzoo, "aec_registry"):
        e = pettingzoo.make("aec", "mtg/duel_entity-v1")
        e.reset(seed=0)
        assert e.unwrapped.obs_type == "entity"
        assert e.unwrapped.metadata["name"] == "mtg_duel_entity_v1"
    v0 = mtg_env.raw_env()
    assert v0.metadata["name"] == "mtg_duel_v0"
    assert v0.observation_space("player_0")["observation"].shape == (v0.layout.n_obs,)


def _random_v1_game(fmt: str, seed: int) -> tuple[int, int]:
    """Random play through the v1 env: every observation in its space, the candidates
    exactly the engine's distinct legal moves, each applying."""
    e = _v1(fmt)
    e.reset(seed=seed)
    flat = e.layout
    space = e.observation_space("player_0")
    r = random.Random(seed)
    steps = biggest = 0
    while not (all(e.terminations.values()) or all(e.truncations.values())):
        agent = e.agent_selection
        g = e.game
        seat = g.current_player
        for a in e.possible_agents:
            o = e.observe(a)
            assert space.contains(o), (fmt, seed, steps)
            biggest = max(biggest, int(o["object_mask"].sum()))
        o = e.observe(agent)
        n = int(o["action_mask"].sum())
        assert o["action_mask"][:n].all() and not o["action_mask"][n:].any()
        mask, amap, missing = flat.mask_and_map(g, seat)
        assert missing == 0 and n == int(mask.sum())  # one row per distinct legal move
        rows = [e.action_for(i) for i in range(n)]
        assert rows == [amap[k] for k in sorted(amap)]
        assert set(rows) <= set(g.legal_actions())
        assert (o["candidates"][:n, CANDIDATE_INDEX["kind"]] > 0).all()
        if steps % 11 == 0:
            for a in rows:
                g.clone().apply(a)
        e.step(r.randrange(n))
        steps += 1
    assert "truncated_reason" not in e.infos["player_0"] or e.game.truncated
    return steps, biggest


@pytest.mark.parametrize("fmt", FORMATS)
def test_v1_random_play_observations_in_bounds_and_candidates_equal_the_legal_moves(
    fmt: str,
) -> None:
    total = 0
    for seed in range(6):
        steps, _ = _random_v1_game(fmt, seed)
        total += steps
    assert total > 400


def test_v1_observation_is_at_most_8_kb_and_independent_of_the_card_set() -> None:
    sizes = {}
    for fmt in FORMATS:
        e = _v1(fmt)
        e.reset(seed=1)
        o = e.observe(e.agent_selection)
        sizes[fmt] = {k: v.shape for k, v in o.items()}
        assert sum(v.nbytes for v in o.values()) <= 8192
    assert sizes["classic"] == sizes["adventure"] == sizes["pocket"]


DECKS = load_decks("classic")
NAMES = sorted(DECKS)


def _view(lay: EntityLayout, g: Game, seat: int) -> dict[str, np.ndarray]:
    rows, amap, _ = lay.candidates(g, seat) if g.current_player == seat else ([], {}, 0)
    return lay.observe(g, seat, (rows, amap) if g.current_player == seat else None)


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


def test_v1_hidden_information_does_not_change_the_observation_or_the_text() -> None:
    from mtg_env.env.text import text_view

    lay = EntityLayout(Layout(load_cards("classic")))
    checked = 0
    for seed in range(20):
        g = Game.new((DECKS[NAMES[seed % 6]], DECKS[NAMES[(seed + 3) % 6]]), seed=seed)
        r = random.Random(seed)
        while not g.is_over and g.n_decisions < 100:
            seat = g.current_player
            h = swap_hidden(g, seat)
            if sorted(h.cdef[c].name for c in h.hand[1 - seat]) != sorted(
                g.cdef[c].name for c in g.hand[1 - seat]
            ):
                checked += 1
            assert _same(_view(lay, g, seat), _view(lay, h, seat))
            rs = g.resample_hidden(seat, random.Random(seed))
            assert _same(_view(lay, g, seat), _view(lay, rs, seat))
            assert text_view(g, seat, []) == text_view(h, seat, [])
            g.apply(r.choice(g.legal_actions()))
    assert checked > 50


def test_v1_pocket_face_down_cards_do_not_show_what_they_are() -> None:
    e = _v1("pocket")
    e.reset(seed=3)
    g = e.game
    seat = g.current_player
    o = e.observe(e.agent_selection)
    face_down = o["objects"][:, OBJECT_INDEX["flags"]] & 4
    assert face_down.any()
    ident = e.layout.ident
    shown = set(o["object_card"][face_down > 0].tolist())
    assert shown == {ident["Face-down mana source"]}
    assert g.current_player == seat


def test_text_view_numbers_the_actions_step_takes_and_hides_the_opponent_hand() -> None:
    for obs_type in ("flat", "entity"):
        e = mtg_env.raw_env(obs_type=obs_type)
        e.reset(seed=4)
        for _ in range(30):
            agent = e.agent_selection
            text = e.text()
            g = e.game
            seat = g.current_player
            opp_hand = {g.cdef[c].name for c in g.hand[1 - seat]} - {
                g.cdef[c].name
                for c in g.hand[seat] + g.battlefield + g.graveyard[0] + g.graveyard[1]
            }
            assert not any(f"{n}#" in text for n in opp_hand)
            amap = e.legal_moves().actions
            for i, a in amap.items():
                assert f"  {i}: {g.describe(a)}" in text
            e.step(min(amap))
            if e.terminations[agent] or e.truncations[agent]:
                break
        assert e.text("player_1").startswith("You are player 1.")


def test_the_env_docs_state_the_v1_shapes_and_dtypes() -> None:
    from mtg_env.env import duel

    e = _v1()
    e.reset(seed=0)
    o = e.observe(e.agent_selection)
    for k, v in o.items():
        assert f"| `{k}` | {tuple(v.shape)} {v.dtype} |" in (duel.__doc__ or ""), k


def test_an_unknown_obs_type_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="obs_type must be one of \\['flat', 'entity'\\]"):
        mtg_env.raw_env(obs_type="pixels")


def test_the_environment_page_v1_example_runs() -> None:
    """As a user runs it: the page's example in a fresh interpreter."""
    pytest.importorskip("sb3_contrib")  # the train extra (not in the lowest-versions run)
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "environment.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    blocks = [b for b in blocks if "SelfPlayEntity" in b]
    assert len(blocks) == 1
    r = subprocess.run(
        [sys.executable, "-c", blocks[0]], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "You are player" in r.stdout and "Your legal actions" in r.stdout


def _v1_digest() -> str:
    """One digest over every v1 table (observation, candidates, masks) of the acting seat
    along seeded random games of every format, the core set included."""
    import hashlib

    from mtg_env.engine.formats import FORMATS as ALL

    h = hashlib.sha256()
    for fmt in sorted(ALL):
        for seed in range(3):
            e = _v1(fmt, replay_hashes=False)
            e.reset(seed=seed)
            rng = random.Random(seed)
            for _agent in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                for k in sorted(obs):
                    h.update(k.encode())
                    h.update(obs[k].tobytes())
                e.step(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
            h.update(_agent.encode())  # the last agent the loop saw
    return h.hexdigest()


# Recorded with the pure-Python encoder before the encoders were compiled with the engine;
# recorded again when the pauper format joined (without it the digest is the one before),
# and when the candidate rows of pass, keep, mulligan and a choice lost the source row they
# took by mistake from card 0 (the engine action's object field, 0 there, names no card),
# when the object table gained `keywords3` (ward had no bit: entity env v1), and when the
# pauper set gained its kicker, landfall, changeling and once-a-turn cards (the other
# formats' tables unchanged: tests/data/identity/envs.json changed for pauper only), and
# each time the pauper set gained cards since (Treasures, Food, landcycling of a type,
# infect, intimidate, toxic, an artifact creature token, ...).
V1_DIGEST = "f4687ee59062d76a199c2ac542a72aabba10b790c9c9d73df5d16893c392491f"


def test_v1_observation_encoding_is_pinned() -> None:
    """The same v1 tables on the compiled and the pure build (make test runs this file on
    both) as when it was recorded."""
    assert _v1_digest() == V1_DIGEST


def test_a_copied_entity_layout_encodes_like_the_original() -> None:
    """A copy (pickle, deepcopy: what copying a v1 env does) is built again from the same
    flat layout and limits, and gives the same tables, on both builds."""
    import copy
    import pickle

    from mtg_env.env.entity import EntityLimits

    flat = Layout(load_cards("classic"))
    for lay in (EntityLayout(flat), EntityLayout(flat, EntityLimits(objects=100, candidates=64))):
        assert pickle.dumps(lay)  # copies by __reduce__, as deepcopy does
        copies = [copy.deepcopy(lay), copy.copy(lay)]
        g = Game.new((DECKS[NAMES[2]], DECKS[NAMES[3]]), seed=9)
        r = random.Random(9)
        while not g.is_over and g.n_decisions < 150:
            seat = g.current_player
            want = _view(lay, g, seat)
            for c in copies:
                assert type(c) is EntityLayout and c.limits == lay.limits
                assert _same(_view(c, g, seat), want)
            g.apply(r.choice(g.legal_actions()))


def test_column_constants_name_their_fields() -> None:
    """The encoder writes columns through Final constants (compiled as literals); each
    must be the column its field has in OBJECT_FIELDS / CANDIDATE_FIELDS."""
    ent = importlib.import_module("mtg_env.env.entity")

    objects = {
        "_ZONE": "zone", "_MINE": "mine", "_OWNED": "owned", "_TYPES": "types",
        "_COLORS": "colors", "_SUPERTYPES": "supertypes", "_MV": "mana_value",
        "_HAS_PT": "has_pt", "_POWER": "power", "_TOUGHNESS": "toughness",
        "_KW0": "keywords0", "_KW1": "keywords1", "_KW2": "keywords2",
        "_ABILITIES": "abilities", "_TAPPED": "tapped", "_SICK": "sick",
        "_ATTACKING": "attacking", "_BLOCKING": "blocking", "_DAMAGE": "damage",
        "_PLUS": "plus_counters", "_MINUS": "minus_counters", "_ATTACHED": "attached_to",
        "_FLAGS": "flags", "_STACK_KIND": "stack_kind", "_KW3": "keywords3",
    }  # fmt: skip
    assert sorted(objects.values()) == sorted(OBJECT_INDEX)
    for const, field in objects.items():
        assert getattr(ent, const) == OBJECT_INDEX[field], const
    candidates = {
        "_C_SOURCE": "source_row", "_C_TARGET": "target_row",
        "_C_PLAYER": "target_player", "_C_OPTION": "option",
    }  # fmt: skip
    for const, field in candidates.items():
        assert getattr(ent, const) == CANDIDATE_INDEX[field], const
    assert CANDIDATE_INDEX["kind"] == 0  # a row starts [kind + 1, 0, 0, 0, 0]


def test_every_keyword_has_a_bit_ward_included() -> None:
    """CR 702.21: ward, the 25th keyword, is seen (`keywords3` bit 0); before v1 of the
    entity env the table had bits for 24 keywords and ward was invisible."""
    from mtg_env.env.spaces import KEYWORD_LIST

    assert len(KEYWORD_LIST) <= 32  # four keyword columns of eight bits
    cards = load_cards("core")
    name = next(n for n, cd in cards.cards.items() if "ward" in cd.keywords)
    g, _ = Game.setup(
        [{"battlefield": [name], "library": ["Forest"] * 5}, {"library": ["Forest"] * 5}],
        format="core",
    )
    lay = EntityLayout(Layout(cards))
    obs = lay.observe(g, 0, None)
    bit = KEYWORD_LIST.index("ward")
    column = OBJECT_INDEX[f"keywords{bit // 8}"]
    assert obs["objects"][0][column] == 1 << (bit % 8)


def test_encoders_observing_one_game_keep_their_own_templates() -> None:
    """The encoders keep row templates on the characteristics they read (`Chars.memo`),
    which the games' copies share. A layout of another card set (other `card` numbers)
    observing the same game must not read the templates another layout left there: each
    layout's tables equal those of the same game played again apart (its own
    characteristics) and observed by that layout alone."""
    classic = EntityLayout(Layout(load_cards("classic")))
    other = EntityLayout(Layout(load_cards("pauper")))
    refs = [EntityLayout(Layout(load_cards("classic"))), EntityLayout(Layout(load_cards("pauper")))]
    decks = (DECKS[NAMES[1]], DECKS[NAMES[4]])
    g = Game.new(decks, seed=5)
    apart = [Game.new(decks, seed=5), Game.new(decks, seed=5)]
    r = random.Random(5)
    differ = 0
    while not g.is_over and g.n_decisions < 200:
        seat = g.current_player
        order = (classic, other) if g.n_decisions % 2 else (other, classic)
        views = {id(lay): lay.observe(g, seat, None) for lay in order}
        for lay, ref, h in zip((classic, other), refs, apart, strict=True):
            assert _same(views[id(lay)], ref.observe(h, seat, None))
        cards = [views[id(lay)]["object_card"] for lay in (classic, other)]
        differ += not np.array_equal(*cards)
        a = r.choice(g.legal_actions())
        for game in (g, *apart):
            game.apply(a)
    assert differ > 100  # the two layouts do number the cards differently


def test_the_action_map_is_the_mask_and_map_without_the_mask() -> None:
    flat = Layout(load_cards("classic"))
    g = Game.new((DECKS[NAMES[0]], DECKS[NAMES[5]]), seed=3)
    r = random.Random(3)
    while not g.is_over and g.n_decisions < 200:
        for seat in (0, 1):
            mask, amap, missing = flat.mask_and_map(g, seat)
            assert flat.action_map(g, seat) == (amap, missing)
            assert sorted(amap) == list(np.flatnonzero(mask))
        g.apply(r.choice(g.legal_actions()))
