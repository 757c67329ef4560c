"""The AEC env against PettingZoo's own tests, and the env's contract."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import mtg_env
from mtg_env.engine import IllegalActionError

FORMATS = ("classic", "adventure", "pocket")


@pytest.mark.parametrize("fmt", FORMATS)
def test_api_test_wrapped(fmt: str) -> None:
    api_test(mtg_env.env(format=fmt), num_cycles=300)


@pytest.mark.parametrize("fmt", FORMATS)
def test_api_test_raw(fmt: str) -> None:
    api_test(mtg_env.raw_env(format=fmt), num_cycles=300)


@pytest.mark.parametrize("fmt", FORMATS)
def test_seed_test(fmt: str) -> None:
    seed_test(lambda: mtg_env.env(format=fmt), num_cycles=200)


@pytest.mark.parametrize("fmt", FORMATS)
def test_render_test(fmt: str) -> None:
    render_test(lambda render_mode=None: mtg_env.raw_env(format=fmt, render_mode=render_mode))


def test_registered_in_pettingzoo_registry() -> None:
    if not hasattr(pettingzoo, "aec_registry"):
        # PettingZoo before 1.27 has no registry: `import mtg_env` must still work (it
        # did not: it used the registry at import) and the env is made directly.
        e = mtg_env.env()
    else:
        e = pettingzoo.make("aec", "mtg/duel-v0")
    e.reset(seed=0)
    assert e.agents == ["player_0", "player_1"]


def test_reset_seed_reproduces_decks_and_observations() -> None:
    runs = []
    for _ in range(2):
        e = mtg_env.raw_env()
        e.reset(seed=123)
        rng = np.random.default_rng(5)
        obs = []
        for agent in e.agent_iter(200):
            o, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            obs.append(o["observation"].copy())
            e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
            del agent
        runs.append(([d.name for d in e.decks], obs))
    assert runs[0][0] == runs[1][0]
    assert len(runs[0][1]) == len(runs[1][1])
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][1], runs[1][1]))
    other = mtg_env.raw_env()
    other.reset(seed=124)
    assert [d.name for d in other.decks] != runs[0][0] or not np.array_equal(
        other.observe(other.agent_selection)["observation"], runs[0][1][0]
    )


def test_masked_out_action_in_raw_env_raises_with_reason() -> None:
    e = mtg_env.raw_env()
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError) as err:
        e.step(bad)
    assert "not legal" in str(err.value) and "legal:" in str(err.value)


def test_wrapped_env_illegal_move_convention() -> None:
    e = mtg_env.env()
    e.reset(seed=3)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1


def test_non_acting_agent_mask_is_zero_and_describe_action() -> None:
    e = mtg_env.raw_env()
    e.reset(seed=8)
    acting = e.agent_selection
    other = [a for a in e.agents if a != acting][0]
    assert e.observe(other)["action_mask"].sum() == 0
    mask = e.observe(acting)["action_mask"]
    for i in np.flatnonzero(mask):
        text = e.describe_action(int(i))
        assert "not legal" not in text
    assert set(e.action_layout) >= {
        "pass",
        "play",
        "activate",
        "attack",
        "blocker",
        "block",
        "target_player",
        "choose",
        "keep",
        "mulligan",
    }
    assert "life" in e.observation_layout


def test_rewards_at_end_zero_sum_and_both_agents_terminate() -> None:
    e = mtg_env.raw_env()
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(10000):
        o, r, term, trunc, _ = e.last()
        total[agent] += r
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    assert not e.agents
    w = e.game.winner
    assert w is not None
    assert total[f"player_{w}"] == 1 and total[f"player_{1 - w}"] == -1
