"""API arguments are checked where they enter: an action is an integer (Python or numpy),
a seed an int or None, the constructor's numbers and flags their types; each mistake is one
error naming the argument, never a silently different move."""

from __future__ import annotations

import numpy as np
import pytest

import mtg_env
from mtg_env.env import SelfPlayEnv


def _first_legal(env: mtg_env.raw_env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


@pytest.mark.parametrize("bad", [1.7, 1.0, "1", True, np.bool_(True), None, [1], np.float32(1)])
def test_raw_env_step_takes_only_integers(bad: object) -> None:
    env = mtg_env.raw_env()
    env.reset(seed=0)
    before = env.game.state_hash()
    with pytest.raises(TypeError, match=r"step: an action is an integer index, not"):
        env.step(bad)
    assert env.game.state_hash() == before  # nothing was played


@pytest.mark.parametrize("kind", [int, np.int64, np.int32, np.uint8, lambda i: np.array(i)])
def test_raw_env_step_takes_python_and_numpy_integers(kind) -> None:
    a, b = mtg_env.raw_env(), mtg_env.raw_env()
    a.reset(seed=1)
    b.reset(seed=1)
    for _ in range(20):
        i = _first_legal(a)
        a.step(i)
        b.step(kind(i))
    assert a.game.state_hash() == b.game.state_hash()


@pytest.mark.parametrize("bad", ["abc", 1.5, True, [1]])
def test_reset_seed_is_an_int_or_none(bad: object) -> None:
    for env in (mtg_env.raw_env(), SelfPlayEnv()):
        with pytest.raises(TypeError, match=r"reset: seed must be an int or None"):
            env.reset(seed=bad)
    with pytest.raises(ValueError, match="seed must be non-negative"):
        mtg_env.raw_env().reset(seed=-1)
    mtg_env.raw_env().reset(seed=np.int64(3))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_decisions": -5}, "max_decisions must be a positive int or None"),
        ({"max_decisions": 0}, "max_decisions must be a positive int or None"),
        ({"max_decisions": 2.5}, "max_decisions must be a positive int or None"),
        ({"format": "modern"}, "format must be one of"),
        ({"auto_pass": "yes"}, "auto_pass must be True or False"),
        ({"render_mode": "rgb"}, "render_mode must be one of"),
    ],
)
def test_constructor_arguments_are_checked(kwargs: dict, message: str) -> None:
    for make in (mtg_env.raw_env, SelfPlayEnv):
        with pytest.raises((ValueError, TypeError), match=message):
            make(**kwargs)


@pytest.mark.parametrize("bad", [1.7, "1", True])
def test_selfplay_step_takes_only_integers(bad: object) -> None:
    env = SelfPlayEnv()
    env.reset(seed=0)
    with pytest.raises(TypeError, match="an action is an integer index"):
        env.step(bad)
    obs, r, term, trunc, info = env.step(np.int64(np.flatnonzero(env.action_masks())[0]))
    assert not term


@pytest.mark.parametrize("bad", [2, -1, "0", True, 0.5])
def test_selfplay_learner_seat_option_is_0_or_1(bad: object) -> None:
    env = SelfPlayEnv()
    with pytest.raises(ValueError, match=r"options\['learner_seat'\] must be 0 or 1"):
        env.reset(seed=0, options={"learner_seat": bad})
    _, info = env.reset(seed=0, options={"learner_seat": np.int64(1)})
    assert info["learner_seat"] == 1
