"""`mtg_env.env.wrappers`: observations `{"observation": X, "action_mask": M}` for the RL
libraries that read the mask from the observation, tested with each library the way its
users call it (Tianshou, PettingZoo's SB3 action-masking tutorial, RLlib's action-masking
module), and AgileRL's contract (mask in `info`) where the library can't be installed."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pettingzoo.utils
import pytest
from hidden import swap_hidden

import mtg_env
from mtg_env.env.selfplay import SelfPlayEnv
from mtg_env.env.wrappers import MaskedObservation, MaskedObservationAEC

CASES = [
    (obs_type, view, key)
    for obs_type in ("flat", "entity")
    for view in ("flat", "tables")
    for key in ("observation", "observations")
]


@pytest.mark.parametrize(("obs_type", "view", "key"), CASES)
def test_aec_observations_lie_in_their_space_with_the_envs_own_mask(
    obs_type: str, view: str, key: str
) -> None:
    raw = mtg_env.raw_env(obs_type=obs_type, max_decisions=60)
    env = MaskedObservationAEC(mtg_env.env(obs_type=obs_type, max_decisions=60), view, key)
    space = env.observation_space("player_0")
    assert list(space.spaces) == [key, "action_mask"]
    assert (view == "flat" or obs_type == "flat") == isinstance(space[key], gym.spaces.Box)
    rng = np.random.default_rng(0)
    for e in (raw, env):
        e.reset(seed=4)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert list(obs) == [key, "action_mask"] and space.contains(obs)
        mine = raw.observe(raw.agent_selection)["action_mask"]
        assert np.array_equal(obs["action_mask"], mine)
        action = None if term or trunc else int(rng.choice(np.flatnonzero(mine)))
        env.step(action)
        raw.step(action)


@pytest.mark.parametrize(("obs_type", "view", "key"), CASES)
def test_self_play_observations_lie_in_their_space_with_the_info_mask(
    obs_type: str, view: str, key: str
) -> None:
    env = MaskedObservation(SelfPlayEnv(obs_type=obs_type, max_decisions=60), view, key)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(80):
        assert env.observation_space.contains(obs)
        assert obs["action_mask"] is info["action_mask"]
        assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            assert obs["action_mask"].tolist() == [1] + [0] * (env.action_space.n - 1)
            obs, info = env.reset()


def test_the_flat_view_of_the_entity_tables_is_every_table_but_the_mask_in_order() -> None:
    entity = SelfPlayEnv(obs_type="entity")
    tables, _ = entity.reset(seed=6)
    flat, _ = MaskedObservation(SelfPlayEnv(obs_type="entity")).reset(seed=6)
    order = ("global", "objects", "object_card", "object_mask", "candidates")
    expected = np.concatenate([tables[k].ravel() for k in order]).astype(np.float32)
    assert flat["observation"].dtype == np.float32
    assert np.array_equal(flat["observation"], expected)


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
def test_wrapped_observations_hold_no_hidden_information(obs_type: str) -> None:
    """Changing what the acting player can't see (the opponent's hand, library orders:
    tests/env/hidden.py) changes nothing in its wrapped observation."""
    env = MaskedObservationAEC(mtg_env.raw_env(obs_type=obs_type))
    env.reset(seed=8)
    raw = env.unwrapped
    rng = np.random.default_rng(8)
    for _ in range(40):
        g, agent = raw.game, raw.agent_selection
        before = env.observe(agent)
        raw.set_game(swap_hidden(g, g.current_player))
        after = env.observe(agent)
        assert all(np.array_equal(before[k], after[k]) for k in before)
        raw.set_game(g)
        env.step(int(rng.choice(np.flatnonzero(before["action_mask"]))))
        if raw.game.is_over:
            break


def test_bad_view_or_key_is_one_error_naming_the_argument() -> None:
    with pytest.raises(ValueError, match="view must be one of"):
        MaskedObservationAEC(mtg_env.raw_env(), view="pixels")
    with pytest.raises(ValueError, match="key must be one of"):
        MaskedObservation(SelfPlayEnv(), key="obs")


# ---------------------------------------------------------------- the libraries


def test_tianshou_collects_and_trains_dqn_through_its_pettingzoo_adapter(monkeypatch) -> None:
    """Tianshou's multi-agent setup (its tic-tac-toe example, `test/pettingzoo/tic_tac_toe.py`):
    `PettingZooEnv` reads `observation` and `action_mask`; the DQN learner masks with
    `obs.mask`, the random opponent samples only masked-in actions."""
    # Tianshou compiles its numba kernels when it loads and builds an algorithm: most of
    # this test's time for 64 steps. As plain Python (set before it loads) they compute the
    # same.
    monkeypatch.setattr(pytest.importorskip("numba.core.config"), "DISABLE_JIT", 1)
    pytest.importorskip("tianshou")
    from tianshou.algorithm import (
        DQN,
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, ReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.utils.net.common import Net
    from tianshou.utils.torch_utils import policy_within_training_step

    def make() -> PettingZooEnv:
        return PettingZooEnv(MaskedObservationAEC(mtg_env.env(obs_type="entity", max_decisions=30)))

    env = make()
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=[16],
    )
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.3)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=10)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    envs = DummyVectorEnv([make])
    envs.seed(0)
    buffer = ReplayBuffer(200)
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    stats = collector.collect(n_step=64)
    assert stats.n_collected_steps == 64 and stats.n_collected_episodes >= 1
    batch = buffer.sample(0)[0]
    assert batch.obs.mask[np.arange(len(batch.act)), batch.act].all()  # every move legal
    with policy_within_training_step(algorithm.policy):
        algorithm.update(buffer=buffer, sample_size=16)


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """PettingZoo's tutorial wrapper, as written (tutorials/SB3/connect_four/
    sb3_connect_four_action_mask.py; `gym.Env` as a base, as the tutorial adds for
    Gymnasium 1.x, whose wrappers take only a `gym.Env`)."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (
            self.observe(next_agent),
            self._cumulative_rewards[current_agent],
            self.terminations[current_agent],
            self.truncations[current_agent],
            self.infos[current_agent],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def test_pettingzoo_sb3_action_masking_tutorial_trains_and_evaluates() -> None:
    """The tutorial's training (`SB3ActionMaskWrapper`, sb3-contrib's `ActionMasker`,
    MaskablePPO) and its evaluation loop (`observation, action_mask = obs.values()`)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    def env_fn(**kwargs):
        return MaskedObservationAEC(mtg_env.env(obs_type="entity", max_decisions=40, **kwargs))

    env = SB3ActionMaskWrapper(env_fn())
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(
        MaskableActorCriticPolicy,
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        policy_kwargs={"net_arch": [16]},
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=64)

    ev = env_fn()
    ev.reset(seed=1)
    for agent in ev.agent_iter():
        obs, _, termination, truncation, _ = ev.last()
        observation, action_mask = obs.values()
        if termination or truncation:
            break
        if agent == ev.possible_agents[0]:
            act = ev.action_space(agent).sample(action_mask)
        else:
            act = int(model.predict(observation, action_masks=action_mask, deterministic=True)[0])
        assert action_mask[act]
        ev.step(act)


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
def test_rllib_action_masking_module_reads_the_wrapped_observation(obs_type: str) -> None:
    """RLlib's action-masking RL module (ray/rllib/examples/rl_modules/classes/
    action_masking_rlm.py) takes a Dict space `{"observations", "action_mask"}` and masks the
    logits: every masked-out action gets RLlib's FLOAT_MIN."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("ray.rllib")
    from ray.rllib.core.columns import Columns
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    env = MaskedObservation(SelfPlayEnv(obs_type=obs_type), key="observations")
    module = ActionMaskingTorchRLModule(
        observation_space=env.observation_space,
        action_space=env.action_space,
        model_config={"fcnet_hiddens": [16]},
    )
    obs, _ = env.reset(seed=2)
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = obs["action_mask"].astype(bool)
    assert (logits[torch.as_tensor(~legal)] <= FLOAT_MIN).all()
    assert (logits[torch.as_tensor(legal)] > FLOAT_MIN).all()


def test_agilerl_contract_mask_in_info_and_none_in_the_observation() -> None:
    """AgileRL (not installable beside this project: it needs PettingZoo 1.26) reads the
    mask from `info["action_mask"]` (agilerl/training/train_off_policy.py: `action_mask =
    info.get("action_mask", None)`, then `DQN.get_action(obs, epsilon, action_mask)`) and
    asserts that no observation holds an `action_mask` entry (agilerl/algorithms/ippo.py,
    `get_action`: "AgileRL requires action masks to be defined in the information
    dictionary"). Its DQN masks with `q.masked_fill((1 - mask).bool(), -inf)` and argmax
    (agilerl/algorithms/dqn.py, `_get_action`): through a Gymnasium vector env with its
    default autoreset, every row of that is a legal move."""
    from gymnasium.vector import SyncVectorEnv

    def make() -> gym.Env:
        env = SelfPlayEnv(obs_type="entity", max_decisions=40)
        return MaskedObservation(env, mask_in_observation=False)

    venv = SyncVectorEnv([make, make])
    obs, info = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(120):
        assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
        assert venv.observation_space.contains(obs)
        # np.stack: gymnasium 0.29 keeps an array-valued info as an object array of rows.
        mask = np.stack(list(info["action_mask"]))
        q = rng.normal(size=mask.shape)
        act = np.where(mask.astype(bool), q, -np.inf).argmax(axis=1)
        assert mask[np.arange(len(act)), act].all()
        obs, _, _, _, info = venv.step(act)
