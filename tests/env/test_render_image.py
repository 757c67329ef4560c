"""`render_mode="rgb_array"`: the board as a picture, for both envs, every format and both
observation types; what video recorders and vectorized-env libraries expect of it; and
the text board's visibility rules (no card of a hand the text hides)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RenderCollection
from hidden import swap_hidden
from pettingzoo.test import render_test

import mtg_env
from mtg_env.env.image import SHAPE, draw_board
from mtg_env.env.selfplay import SelfPlayEnv
from mtg_env.render import render

FORMATS = ("classic", "adventure", "pocket", "core")
OBS_TYPES = ("flat", "entity")


def _is_picture(a: object) -> bool:
    return isinstance(a, np.ndarray) and a.shape == SHAPE and a.dtype == np.uint8


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_render_is_a_picture_of_the_declared_shape(fmt: str, obs_type: str) -> None:
    e = mtg_env.env(format=fmt, obs_type=obs_type, render_mode="rgb_array")
    e.reset(seed=0)
    first = e.render()
    assert _is_picture(first)
    rng = np.random.default_rng(0)
    for _ in range(20):
        o, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    assert _is_picture(e.render())
    sp = SelfPlayEnv(format=fmt, obs_type=obs_type, render_mode="rgb_array")
    sp.reset(seed=0)
    assert _is_picture(sp.render())


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_picture_changes_whenever_the_text_board_does(fmt: str) -> None:
    # The picture shows what the text shows: over a random game, each change of the text
    # board (a tapped land, a new permanent, life, the stack, the decision) is a change of
    # the picture.
    e = mtg_env.raw_env(format=fmt, max_decisions=150)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    text, picture = render(e.game), draw_board(e.game)
    changes = 0
    for agent in e.agent_iter(150):
        o, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        t, p = render(e.game), draw_board(e.game)
        if t != text:
            assert not np.array_equal(p, picture), (text, t)
            changes += 1
        text, picture = t, p
        del agent
    assert changes > 20


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_picture_of_a_seat_hides_what_its_text_hides(fmt: str) -> None:
    # SelfPlay draws the learner's view: swapping the opponent's hand and the library
    # order (tests/env/hidden.py) leaves it as it was, as it leaves the text. The view of
    # both hands (raw_env, as its text) shows the opponent's hand.
    e = mtg_env.raw_env(format=fmt, max_decisions=150)
    e.reset(seed=6)
    rng = np.random.default_rng(6)
    shown = 0
    for agent in e.agent_iter(60):
        o, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        g = e.game
        seat = g.current_player
        h = swap_hidden(g, seat)
        assert render(g, seat) == render(h, seat)
        assert np.array_equal(draw_board(g, seat, seat), draw_board(h, seat, seat))
        if render(g) != render(h):
            assert not np.array_equal(draw_board(g), draw_board(h))
            shown += 1
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        del agent
    assert shown > 5


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_pettingzoo_render_test(obs_type: str) -> None:
    for make in (mtg_env.env, mtg_env.raw_env):
        e = make(obs_type=obs_type)
        assert "rgb_array" in e.metadata["render_modes"]
        render_test(lambda render_mode=None, m=make: m(obs_type=obs_type, render_mode=render_mode))


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_gymnasium_render_collection_and_env_checker(obs_type: str) -> None:
    kw = {"render_mode": "rgb_array", "max_decisions": 100, "obs_type": obs_type}
    e = RenderCollection(gym.make("mtg_env/SelfPlay-v0", **kw))
    _, info = e.reset(seed=0)
    for _ in range(5):
        _, _, term, trunc, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            break
    frames = e.render()
    assert len(frames) >= 2 and all(_is_picture(f) for f in frames)
    # Gymnasium's checker renders in every declared mode (rgb_array: an HxWx3 uint8 array).
    check_env(gym.make("mtg_env/SelfPlay-v0", **kw).unwrapped)


def test_gymnasium_record_video_writes_a_video(tmp_path: Path) -> None:
    # RecordVideo (moviepy, the dev extra) renders every step of the recorded episodes and
    # writes them as an mp4: one short episode, recorded from start to end.
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    kw = {"render_mode": "rgb_array", "max_decisions": 40}
    e = RecordVideo(
        gym.make("mtg_env/SelfPlay-v0", **kw),
        video_folder=str(tmp_path / "videos"),
        episode_trigger=lambda episode: episode == 0,
        disable_logger=True,
    )
    _, info = e.reset(seed=3)
    done = False
    while not done:
        _, _, term, trunc, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = term or trunc
    e.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000, videos


def test_stable_baselines3_make_vec_env() -> None:
    # make_vec_env makes each env with render_mode="rgb_array" (it records videos from them).
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    v = make_vec_env("mtg_env/SelfPlay-v0", n_envs=2, env_kwargs={"max_decisions": 60})
    try:
        obs = v.reset()
        assert obs.shape == (2, *v.observation_space.shape)
        assert v.get_attr("render_mode") == ["rgb_array"] * 2
        for _ in range(5):
            masks = v.env_method("action_masks")
            obs, _, _, _ = v.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        tiled = v.render()
        assert tiled is not None and tiled.dtype == np.uint8 and tiled.shape[2] == 3
    finally:
        v.close()


def test_the_env_card_gives_the_picture_shape() -> None:
    from mtg_env.env import duel

    assert f"a {SHAPE} uint8 array" in " ".join((duel.__doc__ or "").split())
