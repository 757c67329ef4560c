"""The envs as other people's code uses them: the entry points of Gymnasium, Stable-
Baselines3 and PettingZoo that need no download, seeds, copies and masks."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import mtg_env
from mtg_env.env import SelfPlayEnv

FORMATS = ["classic", "adventure", "pocket"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_gymnasium_check_env_through_gym_make(fmt: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make("mtg_env/SelfPlay-v0", format=fmt)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(env, skip_render_check=True)


def test_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(SelfPlayEnv(), warn=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_pettingzoo_parallel_api_through_turn_based_conversion(fmt: str) -> None:
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    par = turn_based_aec_to_parallel(mtg_env.raw_env(format=fmt))
    parallel_api_test(par, num_cycles=200)


def test_pettingzoo_parallel_seed_test_through_turn_based_conversion() -> None:
    from pettingzoo.test import parallel_seed_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    # The wrapped env: the test samples unmasked actions, which end the game there (-1).
    parallel_seed_test(lambda: turn_based_aec_to_parallel(mtg_env.env()))


def _trajectory(env: gym.Env, seed: int, n: int = 60) -> list[tuple]:
    """Observations, rewards and masks along `n` steps of first-legal play from a seed."""
    obs, info = env.reset(seed=seed)
    out = [(obs.tobytes(), info["action_mask"].tobytes())]
    for _ in range(n):
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, r, term, trunc, info = env.step(a)
        out.append((obs.tobytes(), float(r), term, trunc, info["action_mask"].tobytes()))
        if term or trunc:
            obs, info = env.reset()
    return out


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_same_seed_same_actions_same_trajectory_after_other_episodes(opponent: str) -> None:
    env = SelfPlayEnv(opponent=opponent)
    first = _trajectory(env, seed=11)
    for s in range(3):  # other episodes move every random stream the env owns
        _trajectory(env, seed=100 + s, n=40)
    assert _trajectory(env, seed=11) == first
    assert _trajectory(SelfPlayEnv(opponent=opponent), seed=11) == first


def test_selfplay_info_has_the_mask_and_a_terminal_mask_is_never_empty() -> None:
    env = SelfPlayEnv()
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    ends = 0
    for _ in range(3000):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
        assert mask.any()
        assert np.array_equal(mask.astype(bool), env.action_masks())
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            ends += 1
            assert info["action_mask"].sum() == 1 and info["action_mask"][0] == 1
            obs, info = env.reset()
    assert ends > 0


def _state(e: object) -> tuple:
    u = e.unwrapped  # type: ignore[attr-defined]
    g = u.game
    return (g.state_hash(), u.agent_selection)


@pytest.mark.parametrize("make", [mtg_env.raw_env, mtg_env.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_of_a_live_aec_game_are_the_same_game_and_independent(make, how) -> None:
    env = make()
    env.reset(seed=5)
    for _ in range(25):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert _state(twin) == _state(env)
    a, b = env.last()[0], twin.last()[0]
    assert np.array_equal(a["observation"], b["observation"])
    assert np.array_equal(a["action_mask"], b["action_mask"])
    before = _state(env)
    twin.step(int(np.flatnonzero(b["action_mask"])[-1]))
    assert _state(env) == before  # the copy is independent
    env.step(int(np.flatnonzero(a["action_mask"])[-1]))
    assert _state(env) == _state(twin)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_of_a_live_selfplay_game_are_the_same_game_and_independent(how: str) -> None:
    env = SelfPlayEnv(opponent="random")
    obs, info = env.reset(seed=7)
    for _ in range(20):
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not (term or trunc)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.game.state_hash() == env.game.state_hash()
    assert np.array_equal(twin.action_masks(), env.action_masks())
    # Both continue the same way from here (the opponent's random stream was copied too).
    for _ in range(10):
        outs = [e.step(int(np.flatnonzero(e.action_masks())[0])) for e in (env, twin)]
        assert outs[0][0].tobytes() == outs[1][0].tobytes()
        assert outs[0][1:4] == outs[1][1:4]
        if outs[0][2] or outs[0][3]:
            break
    # ...and the copy is independent: stepping one leaves the other where it was.
    if not env.game.is_over:
        before = env.game.state_hash()
        twin.step(int(np.flatnonzero(twin.action_masks())[-1]))
        assert env.game.state_hash() == before


def test_masked_training_through_sb3_subproc_vec_env(tmp_path) -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([lambda: SelfPlayEnv(opponent="random") for _ in range(2)])
    try:
        venv.seed(0)
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0)
        model.learn(256)
        assert model.num_timesteps >= 256
    finally:
        venv.close()


def test_the_docs_page_commands_run_as_written() -> None:
    """Every command in the env's docs page (its module docstring) runs as written: the
    table's Import, Registered id and Parallel API rows and the Arguments example."""
    import re

    import pettingzoo

    from mtg_env.env import duel

    doc = duel.__doc__ or ""
    rows = dict(re.findall(r"^\| (Import|Registered id|Parallel API) +\| (.*?) +\|$", doc, re.M))
    assert set(rows) == {"Import", "Registered id", "Parallel API"}
    snippets = [re.search(r"`([^`]+)`", row).group(1) for row in rows.values()]  # type: ignore[union-attr]
    snippets += re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(snippets) >= 4
    for code in snippets:
        if "pettingzoo.make" in code and not hasattr(pettingzoo, "aec_registry"):
            continue  # the row says PettingZoo 1.27+: older releases have no registry
        ns: dict = {}
        exec("import mtg_env, pettingzoo\nimport pettingzoo.utils.conversions\n" + code, ns)
        made = [
            v
            for k, v in ns.items()
            if k != "__builtins__" and hasattr(v, "reset") and not isinstance(v, type)
        ]
        for e in made:
            e.reset(seed=0)


# ---------------------------------------------------------------- env factories in subprocesses


def test_an_env_factory_that_names_the_package_pickles_with_cloudpickle() -> None:
    """The factories Ray, SB3's SubprocVecEnv and gymnasium's AsyncVectorEnv pickle: the
    package pickles as its import (it used to fail: "cannot pickle '_Package' object")."""
    import cloudpickle

    assert pickle.loads(pickle.dumps(mtg_env)) is mtg_env
    for factory in (lambda: mtg_env.env(), lambda: mtg_env.SelfPlayEnv(max_decisions=50)):
        made = cloudpickle.loads(cloudpickle.dumps(factory))()
        made.reset(seed=0)


def test_a_ray_env_creator_that_names_the_package_registers_and_makes_the_env() -> None:
    """Ray's env-creator path: `register_env` pickles the creator with ray.cloudpickle and
    RLlib's env runners unpickle it from the registry (no cluster needed for that)."""
    pytest.importorskip("ray")
    import ray.cloudpickle
    from ray.tune.registry import ENV_CREATOR, _global_registry, register_env

    creator = lambda config: mtg_env.env(**config)  # noqa: E731 - as RLlib users write it
    assert ray.cloudpickle.loads(ray.cloudpickle.dumps(creator))({}).metadata
    register_env("mtg_env_test_duel", creator)
    made = _global_registry.get(ENV_CREATOR, "mtg_env_test_duel")({"obs_type": "entity"})
    made.reset(seed=0)
    assert made.unwrapped.obs_type == "entity"


def _first_legal(masks: np.ndarray) -> np.ndarray:
    return np.array([int(np.flatnonzero(m)[0]) for m in masks])


def test_sb3_subproc_vec_env_with_spawn_runs_a_factory_that_names_the_package() -> None:
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([lambda: mtg_env.SelfPlayEnv(max_decisions=50)], start_method="spawn")
    try:
        venv.seed(0)
        venv.reset()
        for _ in range(5):
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(_first_legal(masks))
    finally:
        venv.close()


def test_gymnasium_async_vector_env_with_spawn_runs_a_factory_that_names_the_package() -> None:
    from gymnasium.vector import AsyncVectorEnv

    venv = AsyncVectorEnv([lambda: mtg_env.SelfPlayEnv(max_decisions=50)], context="spawn")
    try:
        obs, info = venv.reset(seed=0)
        for _ in range(5):
            obs, _, _, _, info = venv.step(_first_legal(info["action_mask"]))
        assert obs.shape == (1, *venv.single_observation_space.shape)
    finally:
        venv.close()


# ---------------------------------------------------------------- registered ids


def test_gym_make_of_either_self_play_id_warns_nothing() -> None:
    """Registered as v0 and v1 of one name, `gym.make("mtg_env/SelfPlay-v0")` warned that it
    was out of date; the entity observation is now an env of its own name."""
    import warnings

    from gymnasium import logger

    level = logger.min_level
    logger.min_level = 0  # every message gymnasium's logger has
    try:
        for env_id, obs_type in (
            ("mtg_env/SelfPlay-v0", "flat"),
            ("mtg_env/SelfPlayEntity-v1", "entity"),
        ):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                env = gym.make(env_id, max_decisions=50)
                _, info = env.reset(seed=0)
                env.step(int(np.flatnonzero(info["action_mask"])[0]))
            assert [str(w.message) for w in caught] == [], env_id
            assert env.unwrapped.aec.obs_type == obs_type
    finally:
        logger.min_level = level


def test_the_old_entity_ids_are_refused_and_an_unversioned_duel_is_the_flat_env() -> None:
    """The migration path of the env card's version history: the old ids are not registered
    (registering `SelfPlay-v1` would bring back the warning above), the registries name the
    version they have, and the entity env is `mtg/duel_entity-v1`."""
    import pettingzoo

    with pytest.raises(gym.error.VersionNotFound, match="v0"):
        gym.make("mtg_env/SelfPlay-v1")
    if not hasattr(pettingzoo, "aec_registry"):
        return  # PettingZoo < 1.27: no registry
    from pettingzoo.env_registry.exceptions import VersionNotFound

    with pytest.raises(VersionNotFound, match="v0"):
        pettingzoo.make("aec", "mtg/duel-v1")
    assert pettingzoo.make("aec", "mtg/duel").unwrapped.obs_type == "flat"
    entity = pettingzoo.make("aec", "mtg/duel_entity-v1").unwrapped
    assert entity.obs_type == "entity" and entity.metadata["name"] == "mtg_duel_entity_v1"


# ---------------------------------------------------------------- masks at an episode's end


def _softmax_of_masked_logits(mask: np.ndarray) -> np.ndarray:
    """What masking code does with an observation's mask: -inf logits where it is 0."""
    logits = np.where(mask.astype(bool), 0.0, -np.inf)
    e = np.exp(logits - logits.max())
    return e / e.sum()


def test_entity_observation_mask_under_gymnasium_autoreset_never_gives_nan() -> None:
    """Masking with -inf on the entity observation's `action_mask` under gymnasium's default
    autoreset: the final observation's mask is index 0 alone, as in `info` and
    `action_masks()`, never all zeros (which gave NaN). Gymnasium 1.x returns the final
    observation from `step` (next-step autoreset); 0.29 resets in the same step and puts it
    in `info["final_observation"]`: both are checked, whichever is installed."""
    from gymnasium.vector import SyncVectorEnv

    venv = SyncVectorEnv([lambda: SelfPlayEnv(obs_type="entity", max_decisions=40)] * 2)
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        for i in range(2):
            assert np.isfinite(_softmax_of_masked_logits(obs["action_mask"][i])).all()
            assert np.array_equal(obs["action_mask"][i], info["action_mask"][i])
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, _, term, trunc, info = venv.step(acts)
        for i in np.flatnonzero(term | trunc):
            ends += 1
            if "final_observation" in info:  # gymnasium 0.29: same-step autoreset
                final_mask = info["final_observation"][i]["action_mask"]
                assert np.isfinite(_softmax_of_masked_logits(final_mask)).all()
                assert info["final_info"][i]["action_mask"].tolist() == final_mask.tolist()
            else:
                final_mask = obs["action_mask"][i]
            assert final_mask.tolist() == [1] + [0] * 127
    assert ends > 0


def test_entity_observation_mask_after_an_illegal_action_is_index_0_alone() -> None:
    env = SelfPlayEnv(obs_type="entity")
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, r, term, _, info = env.step(illegal)
    assert term and r == -1.0
    assert obs["action_mask"].tolist() == info["action_mask"].tolist() == [1] + [0] * 127


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
def test_aec_finished_agents_masks_are_all_zeros_for_both_observations(obs_type: str) -> None:
    """The AEC env keeps PettingZoo's convention (a finished agent's action is None): its
    mask is all zeros, flat or entity alike (the env card's "Legal action mask")."""
    env = mtg_env.raw_env(obs_type=obs_type, max_decisions=30)
    env.reset(seed=2)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()
