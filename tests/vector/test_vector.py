"""mtg_env.vector: the batch plays the games of the single envs it stands for (gymnasium's
SyncVectorEnv over SelfPlayEnv in each autoreset mode, partial resets included; PettingZoo
raw_envs for self-play), gymnasium's vector wrappers run on it, its arrays stay inside
their spaces and hide what their seat cannot see, seeds reproduce a run, bad input is
refused with the game named before any game moves, a closed worker batch refuses use, and
MaskablePPO trains on the SB3 adapter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import (
    FlattenObservation,
    NormalizeObservation,
    RecordEpisodeStatistics,
)

# The information-leak check of the observation tests (tests/env/hidden.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "env"))
from hidden import swap_hidden  # noqa: E402

import mtg_env.vector
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


GAMES = [
    ("classic", "random"),
    ("classic", "heuristic"),
    ("pocket", "random"),
    ("adventure", "heuristic"),
]
NEXT, SAME, DISABLED = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED
# Every game and view in the two modes that restart by themselves; disabled autoreset (the
# caller restarts with reset_mask) on two of them.
EQUIVALENCE = [
    pytest.param(fmt, opp, obs, mode, id=f"{fmt}-{opp}-{obs}-{mode.value}")
    for mode in (NEXT, SAME)
    for fmt, opp in GAMES
    for obs in ("flat", "entity")
] + [
    pytest.param(fmt, opp, obs, DISABLED, id=f"{fmt}-{opp}-{obs}-Disabled")
    for fmt, opp, obs in [("classic", "random", "entity"), ("adventure", "heuristic", "flat")]
]


@pytest.mark.parametrize(("fmt", "opponent", "obs_type", "mode"), EQUIVALENCE)
def test_the_vector_env_plays_the_games_of_gymnasiums_sync_vector_env(
    fmt: str, opponent: str, obs_type: str, mode: AutoresetMode
) -> None:
    n = 3
    ours = VectorDuelEnv(n, fmt, opponent=opponent, obs_type=obs_type, autoreset_mode=mode)
    ref = SyncVectorEnv(
        [lambda: SelfPlayEnv(format=fmt, opponent=opponent, obs_type=obs_type)] * n,
        autoreset_mode=mode,
    )
    assert ours.metadata["autoreset_mode"] == mode
    # Seeds 9, 10, 11 put the learner in seats 1, 1, 0 (SelfPlayEnv's seat from the seed).
    o1, i1 = ours.reset(seed=9)
    o2, i2 = ref.reset(seed=9)
    assert list(i1["learner_seat"]) == [1, 1, 0]
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(250):
        assert _same(o1, o2)
        assert np.array_equal(i1["_action_mask"], i2["_action_mask"])
        shown = i1["_action_mask"]  # after a partial reset: the games reset
        assert np.array_equal(i1["action_mask"][shown], i2["action_mask"][shown])
        assert np.array_equal(i1["learner_seat"][shown], i2["learner_seat"][shown])
        assert ours.observation_space.contains(o1)
        if t == 40:
            # gymnasium's partial reset, with SelfPlayEnv's seat option: games 0 and 2 only.
            some = np.array([True, False, True])
            o1, i1 = ours.reset(seed=5, options={"reset_mask": some, "learner_seat": 1})
            o2, i2 = ref.reset(seed=5, options={"reset_mask": some.copy(), "learner_seat": 1})
            assert (i1["learner_seat"][some] == 1).all()
            continue
        acts = _pick(rng, ours.action_masks())
        o1, r1, t1, u1, i1 = ours.step(acts)
        o2, r2, t2, u2, i2 = ref.step(acts)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2) and np.array_equal(u1, u2)
        over = np.flatnonzero(t1 | u1)
        ended += len(over)
        for j in over:
            if mode == SAME:
                assert _same(i1["final_obs"][j], i2["final_obs"][j])
                assert i1["final_info"]["winner"][j] == i2["final_info"]["winner"][j]
                assert i1["final_info"]["_winner"][j] and i2["final_info"]["_winner"][j]
            else:
                # The step shows the game's end; the next one (or a reset) starts it again.
                assert i1["winner"][j] == i2["winner"][j] and i1["_winner"][j]
                assert list(np.flatnonzero(i1["action_mask"][j])) == [0]
        if mode == DISABLED and len(over):
            done = t1 | u1
            with pytest.raises(RuntimeError, match=f"game {over[0]} has ended"):
                ours.step(_pick(rng, ours.action_masks()))
            o1, i1 = ours.reset(options={"reset_mask": done})
            o2, i2 = ref.reset(options={"reset_mask": done.copy()})
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


@pytest.mark.parametrize("mode", [NEXT, SAME], ids=lambda m: m.value)
def test_an_illegal_index_ends_a_learner_episode_with_minus_one(mode: AutoresetMode) -> None:
    v = VectorDuelEnv(2, opponent="random", autoreset_mode=mode)
    _, info = v.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"][0] == 0)[0])
    legal = int(np.flatnonzero(info["action_mask"][1])[0])
    _, r, term, _, info = v.step(np.array([illegal, legal]))
    assert r[0] == -1.0 and term[0] and not term[1]
    end = info["final_info"] if mode == SAME else info
    assert end["illegal_action"][0] == illegal and end["_illegal_action"].tolist() == [True, False]


def test_gymnasiums_vector_wrappers_run_on_the_vector_env() -> None:
    # NormalizeObservation (and every vector observation wrapper) refuses same-step
    # autoreset: the default is gymnasium's next-step mode.
    env = RecordEpisodeStatistics(NormalizeObservation(VectorDuelEnv(3, opponent="random")))
    assert env.metadata["autoreset_mode"] == NEXT
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    returns = []
    for _ in range(150):
        obs, _, term, trunc, info = env.step(_pick(rng, info["action_mask"]))
        assert obs.shape == (3, env.single_observation_space.shape[0])
        assert np.isfinite(obs).all()
        if "episode" in info:
            returns += info["episode"]["r"][info["_episode"]].tolist()
    assert returns and set(returns) <= {-1.0, 1.0}  # one +-1 reward per episode, at its end

    flat = FlattenObservation(VectorDuelEnv(2, opponent="heuristic", obs_type="entity"))
    obs, info = flat.reset(seed=1)
    for _ in range(20):
        assert flat.observation_space.contains(obs)
        obs, *_, info = flat.step(_pick(rng, info["action_mask"]))


def test_reset_options_other_than_gymnasiums_are_refused_by_name() -> None:
    v = VectorDuelEnv(2, opponent="random")
    with pytest.raises(ValueError, match="'bogus'"):
        v.reset(seed=0, options={"bogus": 1})
    with pytest.raises(ValueError, match="reset_mask"):
        v.reset(seed=0, options={"reset_mask": np.array([1, 0])})
    with pytest.raises(ValueError, match="learner_seat"):
        v.reset(seed=0, options={"learner_seat": 2})
    with pytest.raises(ValueError, match="autoreset_mode"):
        VectorDuelEnv(2, autoreset_mode="Sometimes")


def _snapshot(b: DuelBatch) -> tuple[dict[str, np.ndarray], list[str]]:
    arrays = {k: a.copy() for k, a in b.arrays().items()}
    return arrays, [g.state_hash() for g in b.games]  # type: ignore[union-attr]


def test_a_refused_self_play_step_leaves_every_game_as_it_was() -> None:
    b = DuelBatch(3, "classic")
    b.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        b.step(_pick(rng, b.masks))
    before = _snapshot(b)
    acts = _pick(rng, b.masks)
    acts[1] = int(np.flatnonzero(b.masks[1] == 0)[0])  # game 0 comes first and is legal
    with pytest.raises(IllegalActionError, match="game 1"):
        b.step(acts)
    after = _snapshot(b)
    assert after[1] == before[1]
    assert all(np.array_equal(a, after[0][k]) for k, a in before[0].items())


def test_a_refused_step_with_workers_leaves_every_game_as_it_was() -> None:
    ref = DuelBatch(4, "classic")
    b = ParallelDuelBatch(4, "classic", workers=2)
    try:
        ref.reset(seed=0)
        b.reset(seed=0)
        rng = np.random.default_rng(0)
        acts = _pick(rng, b.masks)
        bad = acts.copy()
        bad[3] = int(np.flatnonzero(b.masks[3] == 0)[0])  # the second worker's game
        before = {k: a.copy() for k, a in ref.arrays().items()}
        with pytest.raises(IllegalActionError, match="game 3"):
            b.step(bad)
        for k, a in before.items():
            theirs = b.obs[k[4:]] if k.startswith("obs.") else getattr(b, k)
            assert np.array_equal(a, theirs), k
        # The first worker's games did not move: the next step gives the games of one process.
        ref.step(acts)
        b.step(acts)
        assert np.array_equal(ref.obs, b.obs) and np.array_equal(ref.masks, b.masks)
    finally:
        b.close()


CLOSED = """
import numpy as np
from mtg_env.vector import ParallelDuelBatch, VectorDuelEnv

b = ParallelDuelBatch(4, "classic", workers=2)
b.reset(seed=0)
kept = b.masks
b.close()
b.close()
def read(name):  # the attribute, and its memory read
    a = getattr(b, name)
    return [v.sum() for v in a.values()] if isinstance(a, dict) else a.sum()
uses = {name: (lambda name=name: read(name)) for name in
        ["obs", "masks", "seats", "rewards", "learner_rewards", "terminated", "truncated",
         "needs_reset"]}
uses["step"] = lambda: b.step(np.zeros(4, np.int64))
uses["reset"] = lambda: b.reset(seed=0)
uses["action_masks"] = b.action_masks
env = VectorDuelEnv(2, opponent="random", workers=2)
env.reset(seed=0)
env.close()
uses["env.step"] = lambda: env.step(np.zeros(2, np.int64))
for name, use in uses.items():
    try:
        use()
    except RuntimeError as e:
        assert "ParallelDuelBatch is closed" in str(e), (name, e)
        print(name, "refused")
print("kept", int(kept.sum()))
"""


def test_a_closed_parallel_batch_refuses_every_use_instead_of_crashing() -> None:
    # Its own process: reading unmapped shared memory kills the interpreter (exit 139).
    r = subprocess.run([sys.executable, "-c", CLOSED], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    refused = [line.split()[0] for line in r.stdout.splitlines() if line.endswith("refused")]
    assert len(refused) == 12, r.stdout
    assert "kept 8" in r.stdout  # an array taken before close() stays readable


def test_next_step_autoreset_shows_the_end_then_restarts_in_the_next_step() -> None:
    same = DuelBatch(1, "adventure")
    nxt = DuelBatch(1, "adventure", autoreset_mode="NextStep")
    same.reset(seed=2)
    nxt.reset(seed=2)
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(300):
        acts = _pick(rng, same.masks)
        same.step(acts)
        nxt.step(acts)
        assert np.array_equal(same.rewards, nxt.rewards)
        if same.finals:
            ends += 1
            assert nxt.needs_reset[0] and nxt.terminated[0] == same.terminated[0]
            assert [(i, f["winner"]) for i, f in nxt.finals] == [
                (i, f["winner"]) for i, f in same.finals
            ]
            assert np.flatnonzero(nxt.masks[0]).tolist() == [0]  # the end's mask
            assert not np.array_equal(nxt.obs, same.obs)  # the old game's last view
            nxt.step(np.array([-7]))  # ignored: the game starts again
            assert not nxt.needs_reset[0] and not nxt.terminated[0] and not nxt.finals
            assert (nxt.rewards == 0).all()
        assert np.array_equal(same.obs, nxt.obs) and np.array_equal(same.masks, nxt.masks)
    assert ends > 0


@pytest.mark.parametrize("obs_type", ["flat", "entity"])
def test_the_last_view_shown_by_next_step_autoreset_hides_what_its_seat_cannot_see(
    obs_type: str,
) -> None:
    b = DuelBatch(4, "classic", obs_type=obs_type, opponent="random", autoreset_mode="NextStep")
    b.reset(seed=1)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(300):
        b.step(_pick(rng, b.masks))
        for i, _ in b.finals:
            g, seat = b.games[i], int(b.seats[i])
            assert g is not None and g.is_over  # the ended game, until the next step
            h = swap_hidden(g, seat)
            checked += sorted(h.cdef[c].name for c in h.hand[1 - seat]) != sorted(
                g.cdef[c].name for c in g.hand[1 - seat]
            )
            view = b.observer.tables(b.observer.observe(h, seat, None))
            if obs_type == "flat":
                assert np.array_equal(b.obs[i], view)
            else:
                assert all(np.array_equal(b.obs[k][i], view[k]) for k in view)
            assert np.flatnonzero(b.masks[i]).tolist() == [0]
    assert checked > 0  # some end had hidden cards that the swap changed


def test_the_module_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", mtg_env.vector.__doc__ or "", re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "mtg_env.vector example", "exec"), {})


def test_maskable_ppo_trains_on_the_sb3_adapter() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from mtg_env.vector import DuelVecEnv

    with pytest.raises(ValueError, match="same step"):
        DuelVecEnv(2, autoreset_mode="NextStep")  # SB3's contract is the same-step restart
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
