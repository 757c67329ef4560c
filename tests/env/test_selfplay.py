"""The single-agent self-play Gymnasium env (SB3-facing)."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

import mtg_env
from mtg_env.env import SelfPlayEnv


def test_check_env() -> None:
    check_env(SelfPlayEnv(), skip_render_check=True)


def test_registered_with_gymnasium() -> None:
    e = gym.make("mtg_env/SelfPlay-v0")
    obs, info = e.reset(seed=0)
    assert e.observation_space.contains(obs)
    assert mtg_env.SelfPlayEnv is SelfPlayEnv


def _play(env: SelfPlayEnv, seed: int) -> tuple[float, dict, int, np.ndarray]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert mask.any()
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += r
        steps += 1
        assert env.observation_space.contains(obs)
        if term or trunc:
            return total, info, steps, obs


def test_learner_seat_alternates_and_reward_arrives_on_opponent_moves() -> None:
    env = SelfPlayEnv(opponent="random")
    seats, ends_on_opponent = [], 0
    for ep in range(12):
        rng = np.random.default_rng(ep)
        obs, info = env.reset(seed=None if ep else 0)
        seats.append(info["learner_seat"])
        total = 0.0
        while True:
            before = env.game.n_decisions
            obs, r, term, trunc, info = env.step(
                int(rng.choice(np.flatnonzero(env.action_masks())))
            )
            total += r
            if term or trunc:
                # More than one decision in the last step: the opponent moved last.
                ends_on_opponent += env.game.n_decisions - before > 1
                break
        w = info["winner"]
        assert total == (0.0 if w is None else 1.0 if w == info["learner_seat"] else -1.0)
        assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
    assert seats == [0, 1] * 6
    assert ends_on_opponent > 0


def test_swap_opponent_with_callable_and_pickle() -> None:
    env = SelfPlayEnv()
    calls = []

    def first_legal(obs, mask, info):
        calls.append(info["seat"])
        return int(np.flatnonzero(mask)[0])

    env.set_opponent(first_legal)
    _play(env, 1)
    assert calls and set(calls) == {1}
    env2 = pickle.loads(pickle.dumps(SelfPlayEnv()))
    env2.reset(seed=2)


def test_maskable_ppo_smoke() -> None:
    from sb3_contrib import MaskablePPO

    env = SelfPlayEnv(max_decisions=400)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [32]},
        verbose=0,
        device="cpu",
    )
    model.learn(total_timesteps=128)
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


class _ViaAct:
    """The heuristic behind the plain `act` protocol (observation, mask, index): the path
    every opponent took before engine agents moved by engine action."""

    decides_from_engine = False
    needs_observation = True

    def __init__(self, seed: int) -> None:
        from agents import make_agent

        self.inner = make_agent("heuristic", seed)

    def reset(self) -> None:
        self.inner.reset()

    def act(self, obs, mask, info):
        assert obs is not None and mask.any()
        return self.inner.act(obs, mask, info)


def test_engine_opponent_moves_by_engine_action_with_the_same_game_and_replay() -> None:
    """An engine agent's moves skip the observation and mask, and change nothing else: the
    same seed gives the same observations, rewards and replay as the index path."""
    from mtg_env.env.replay import parse_replay, verify

    for fmt in ("classic", "adventure", "pocket"):
        runs = []
        for opp in ("heuristic", _ViaAct(0)):
            env = SelfPlayEnv(format=fmt, opponent=opp)
            trace = []
            for ep in range(3):
                rng = np.random.default_rng(ep)
                obs, info = env.reset(seed=ep)
                assert env.aec.engine_seat == (
                    1 - info["learner_seat"] if opp == "heuristic" else None
                )
                while True:
                    obs, r, term, trunc, info = env.step(
                        int(rng.choice(np.flatnonzero(env.action_masks())))
                    )
                    trace.append((obs.tobytes(), r, term, trunc))
                    if term or trunc:
                        break
                rep = env.aec.replay()
                verify(parse_replay(rep, f"{fmt} episode {ep}"))
                trace.append(tuple(rep["actions"]))
            runs.append(trace)
        assert runs[0] == runs[1], fmt


def test_step_engine_rejects_an_illegal_action() -> None:
    import pytest

    from mtg_env.engine import Action, IllegalActionError
    from mtg_env.engine.constants import ATTACK

    env = SelfPlayEnv(opponent="heuristic")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not a legal action"):
        env.aec.step_engine(Action(ATTACK, 10_000, 1))


def _seeded_episode(env: SelfPlayEnv, seed: int, steps: int = 30) -> tuple[int, list]:
    """The learner's seat and the trajectory of first-legal play from `reset(seed=seed)`."""
    obs, info = env.reset(seed=seed)
    trace = [obs.tobytes()]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        trace.append((obs.tobytes(), r, term, trunc))
        if term or trunc:
            break
    return info["learner_seat"], trace


def test_reset_seed_picks_the_learners_seat_so_seeded_evaluations_play_both_seats() -> None:
    """`reset(seed=s)` used to seat the learner in seat 0 whatever the seed; the seat now
    comes from the seed, and the same seed gives the same seat and trajectory."""
    from mtg_env.env.selfplay import learner_seat

    env = SelfPlayEnv(opponent="random")
    seats = {s: _seeded_episode(env, s, steps=0)[0] for s in range(20)}
    assert set(seats.values()) == {0, 1}
    assert seats == {s: learner_seat(s) for s in range(20)}
    one_of_each = [next(s for s in seats if seats[s] == seat) for seat in (0, 1)]
    for s in one_of_each:
        first = _seeded_episode(env, s)
        _seeded_episode(env, s + 100)  # another episode in between
        assert _seeded_episode(env, s) == first
        assert _seeded_episode(SelfPlayEnv(opponent="random"), s) == first


def test_after_a_seeded_reset_the_seat_alternates_from_the_seeds_seat() -> None:
    from mtg_env.env.selfplay import learner_seat

    env = SelfPlayEnv(opponent="random", max_decisions=40)
    seed = next(s for s in range(50) if learner_seat(s) == 1)
    seats = []
    for ep in range(4):
        _, info = env.reset(seed=seed if ep == 0 else None)
        seats.append(info["learner_seat"])
    assert seats == [1, 0, 1, 0]
    _, info = env.reset(options={"learner_seat": 0})
    assert info["learner_seat"] == 0
