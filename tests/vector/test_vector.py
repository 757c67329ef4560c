"""mtg_env.vector: the batch plays the games of the single envs it stands for (gymnasium's
SyncVectorEnv over SelfPlayEnv; PettingZoo raw_envs for self-play), its arrays stay inside
their spaces, seeds reproduce a run, bad input is refused with the game named, and
MaskablePPO trains on the SB3 adapter."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from mtg_env.engine import IllegalActionError
from mtg_env.env.duel import raw_env
from mtg_env.env.selfplay import SelfPlayEnv
from mtg_env.vector import DuelBatch, ParallelDuelBatch, VectorDuelEnv


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)  # type: ignore[arg-type]


def _pick(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
@pytest.mark.parametrize(
    ("fmt", "opponent"),
    [
        ("classic", "random"),
        ("classic", "heuristic"),
        ("pocket", "random"),
        ("adventure", "heuristic"),
    ],
)
def test_the_vector_env_plays_the_games_of_gymnasiums_sync_vector_env(
    fmt: str, opponent: str, obs_type: str
) -> None:
    n = 3
    ours = VectorDuelEnv(n, fmt, opponent=opponent, obs_type=obs_type)
    ref = SyncVectorEnv(
        [lambda: SelfPlayEnv(format=fmt, opponent=opponent, obs_type=obs_type)] * n,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    o1, i1 = ours.reset(seed=11)
    o2, i2 = ref.reset(seed=11)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(250):
        assert _same(o1, o2)
        assert np.array_equal(i1["action_mask"], i2["action_mask"])
        assert np.array_equal(i1["learner_seat"], i2["learner_seat"])
        assert ours.observation_space.contains(o1)
        acts = _pick(rng, i1["action_mask"])
        o1, r1, t1, u1, i1 = ours.step(acts)
        o2, r2, t2, u2, i2 = ref.step(acts)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2) and np.array_equal(u1, u2)
        for j in np.flatnonzero(t1 | u1):
            ended += 1
            assert _same(i1["final_obs"][j], i2["final_obs"][j])
            assert i1["final_info"]["winner"][j] == i2["final_info"]["winner"][j]
    assert _same(o1, o2)
    assert ended > 0  # autoreset was exercised


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
def test_self_play_batch_plays_the_games_of_raw_envs(obs_type: str) -> None:
    n = 3
    batch = DuelBatch(n, "classic", obs_type=obs_type)
    envs = [raw_env(format="classic", obs_type=obs_type) for _ in range(n)]
    batch.reset(seed=40)
    for i, e in enumerate(envs):
        e.reset(seed=40 + i)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        for i, e in enumerate(envs):
            seat = int(batch.seats[i])
            assert e.agent_selection == f"player_{seat}"
            ob = e.observe(e.agent_selection)
            if obs_type == "flat":
                assert np.array_equal(batch.obs[i], ob["observation"])
                assert np.array_equal(batch.masks[i], ob["action_mask"])
            else:
                assert all(np.array_equal(batch.obs[k][i], ob[k]) for k in ob)
        acts = _pick(rng, batch.masks)
        seats = batch.seats.copy()
        batch.step(acts)
        for i, e in enumerate(envs):
            e.step(int(acts[i]))
            agent = f"player_{seats[i]}"
            other = f"player_{1 - seats[i]}"
            assert batch.rewards[i, seats[i]] == e.rewards[agent]
            assert batch.rewards[i, 1 - seats[i]] == e.rewards[other]
            if e.terminations[agent] or e.truncations[agent]:
                ended += 1
                assert batch.terminated[i] == e.terminations[agent]
                assert dict(batch.finals)[i]["winner"] == e.game.winner
                e.reset()  # the batch restarted it from the game's own stream
            else:
                assert not batch.terminated[i] and not batch.truncated[i]
    assert ended > 0


def test_a_seed_reproduces_a_run_and_another_seed_differs() -> None:
    def run(seed: int) -> list[float]:
        b = DuelBatch(4, "classic", opponent="random")
        b.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(120):
            b.step(_pick(rng, b.masks))
            out.append(float(b.obs.sum()))
        return out

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_batch_arrays_have_the_declared_shapes_and_every_row_has_a_legal_action() -> None:
    b = DuelBatch(5, "adventure", obs_type="entity", opponent="heuristic")
    b.reset(seed=0)
    space = b.single_observation_space
    rng = np.random.default_rng(2)
    for _ in range(50):
        for i in range(5):
            assert space.contains({k: v[i] for k, v in b.obs.items()})
        assert (b.masks.sum(axis=1) > 0).all()
        b.step(_pick(rng, b.masks))


def test_bad_input_is_refused_with_the_game_named() -> None:
    with pytest.raises(ValueError, match="num_games"):
        DuelBatch(0)
    with pytest.raises(ValueError, match="obs_type"):
        DuelBatch(2, obs_type="pixels")
    with pytest.raises(ValueError, match="needs an opponent"):
        VectorDuelEnv(2, opponent=None)
    b = DuelBatch(2, "classic")
    b.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        b.step(np.zeros(3, np.int64))
    bad = np.array([int(np.flatnonzero(b.masks[0])[0]), int(np.flatnonzero(b.masks[1] == 0)[0])])
    with pytest.raises(IllegalActionError, match="game 1"):
        b.step(bad)


def test_an_illegal_index_ends_a_learner_episode_with_minus_one() -> None:
    v = VectorDuelEnv(2, opponent="random")
    _, info = v.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"][0] == 0)[0])
    legal = int(np.flatnonzero(info["action_mask"][1])[0])
    _, r, term, _, info = v.step(np.array([illegal, legal]))
    assert r[0] == -1.0 and term[0] and not term[1]
    assert info["final_info"]["illegal_action"][0] == illegal


def test_maskable_ppo_trains_on_the_sb3_adapter() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from mtg_env.vector import DuelVecEnv

    venv = VecMonitor(DuelVecEnv(4, "classic", opponent="random", max_decisions=400))
    venv.seed(5)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=5, verbose=0)
    model.learn(256)
    assert model.num_timesteps >= 256
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (4, venv.action_space.n) and masks.any(axis=1).all()
    obs = venv.reset()
    done_seen = False
    for _ in range(400):
        acts = np.array([np.flatnonzero(m)[0] for m in venv.env_method("action_masks")])
        obs, _, dones, infos = venv.step(acts)
        for j in np.flatnonzero(dones):
            done_seen = True
            assert infos[j]["terminal_observation"].shape == obs[j].shape
        if done_seen:
            break
    assert done_seen


@pytest.mark.parametrize(("obs_type", "opponent"), [("flat", None), ("entity", "heuristic")])
def test_workers_play_the_same_games_as_one_process(obs_type: str, opponent: str | None) -> None:
    one = DuelBatch(5, "classic", obs_type=obs_type, opponent=opponent)
    two = ParallelDuelBatch(5, "classic", obs_type=obs_type, opponent=opponent, workers=2)
    try:
        one.reset(seed=21)
        two.reset(seed=21)
        rng = np.random.default_rng(3)
        ended = 0
        for _ in range(150):
            mine = one.arrays()
            for k, a in mine.items():
                theirs = two.obs[k[4:]] if k.startswith("obs.") else getattr(two, k)
                assert np.array_equal(a, theirs), k
            acts = _pick(rng, one.masks)
            one.step(acts)
            two.step(acts)
            assert [(i, f["winner"]) for i, f in one.finals] == [
                (i, f["winner"]) for i, f in two.finals
            ]
            ended += len(one.finals)
        assert ended > 0
    finally:
        two.close()


def test_a_worker_reports_an_illegal_action_with_the_game_number() -> None:
    b = ParallelDuelBatch(4, "classic", workers=2)
    try:
        b.reset(seed=0)
        acts = _pick(np.random.default_rng(0), b.masks)
        acts[3] = int(np.flatnonzero(b.masks[3] == 0)[0])
        with pytest.raises(IllegalActionError, match="game 3"):
            b.step(acts)
    finally:
        b.close()
    assert not any(p.is_alive() for p in b._procs)


def test_the_vector_env_with_workers_gives_the_same_run() -> None:
    a = VectorDuelEnv(4, opponent="random")
    b = VectorDuelEnv(4, opponent="random", workers=2)
    try:
        oa, ia = a.reset(seed=2)
        ob, ib = b.reset(seed=2)
        rng = np.random.default_rng(0)
        for _ in range(60):
            assert np.array_equal(oa, ob)
            acts = _pick(rng, ia["action_mask"])
            oa, ra, ta, _, ia = a.step(acts)
            ob, rb, tb, _, ib = b.step(acts)
            assert np.array_equal(ra, rb) and np.array_equal(ta, tb)
    finally:
        b.close()


def test_a_worker_that_dies_is_reported_not_waited_for() -> None:
    b = ParallelDuelBatch(4, "classic", workers=2)
    try:
        b.reset(seed=0)
        b._procs[1].kill()
        b._procs[1].join()
        with pytest.raises(RuntimeError, match="ended unexpectedly"):
            b.step(_pick(np.random.default_rng(0), b.masks))
    finally:
        b.close()


@pytest.mark.parametrize("opponent", ["ismcts:8", "policy:default"])
def test_search_and_policy_opponents_play_inside_the_batch(opponent: str) -> None:
    pytest.importorskip("torch")
    b = DuelBatch(2, "classic", opponent=opponent, max_decisions=300)
    b.reset(seed=4)
    rng = np.random.default_rng(4)
    start = [g.n_decisions for g in b.games]  # type: ignore[union-attr]
    for _ in range(25):
        assert (b.masks.sum(axis=1) > 0).all()
        b.step(_pick(rng, b.masks))
    made = [g.n_decisions - n for g, n in zip(b.games, start, strict=True)]  # type: ignore[union-attr]
    # Each game had 25 learner moves: more decisions than that means the opponent moved.
    assert b.episodes_done > 0 or max(made) > 25
