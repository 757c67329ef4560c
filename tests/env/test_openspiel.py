"""The OpenSpiel game `python_mtg_duel`: OpenSpiel's random-simulation checks (with
serialization), cloning, serializing and restoring a state, resampling from an information
state, hidden information in the strings and tensors, OpenSpiel's own IS-MCTS bot playing
whole games against random and its PyTorch NFSP learning on it (tiny budgets)."""

from __future__ import annotations

import ast
import importlib.util
import pickle
import random
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
import mtg_env.openspiel  # noqa: E402,F401 - registers the game
from mtg_env.engine import resolve_deck  # noqa: E402

NAME = "python_mtg_duel"


@pytest.mark.parametrize(("fmt", "cap"), [("classic", 400), ("adventure", 200), ("pocket", 200)])
def test_openspiels_random_simulation_checks_pass(fmt: str, cap: int) -> None:
    """OpenSpiel's own checks, serializing and restoring the game and the state along the
    way (a SAMPLED_STOCHASTIC Python game fails them: "GetRNGState unimplemented")."""
    game = pyspiel.load_game(NAME, {"format": fmt, "seed": 1, "max_decisions": cap})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _play(state: object, n: int, seed: int = 0) -> None:
    r = random.Random(seed)
    for _ in range(n):
        if state.is_terminal():  # type: ignore[attr-defined]
            return
        state.apply_action(r.choice(state.legal_actions()))  # type: ignore[attr-defined]


def test_game_type_parameters_and_sizes() -> None:
    game = pyspiel.load_game(NAME, {"decks": "Red Burn|Green Stompy", "seed": 4})
    t = game.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert game.num_players() == 2 and game.num_distinct_actions() == 825
    state = game.new_initial_state()
    want = [resolve_deck(n, "classic").cards for n in ("Red Burn", "Green Stompy")]
    assert list(state.g.deck_names) == want
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()
    assert len(state.information_state_tensor(1)) == game.information_state_tensor_size()
    # Successive deals differ; the same seed gives the same deals.
    a = [pyspiel.load_game(NAME, {"seed": 9}).new_initial_state().g.state_hash() for _ in "ab"]
    b = pyspiel.load_game(NAME, {"seed": 9})
    assert a[0] == a[1] == b.new_initial_state().g.state_hash()
    assert b.new_initial_state().g.state_hash() != a[0]


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"format": "chess"}, "format"),
        ({"decks": "Red Burn"}, "two decks"),
        ({"max_decisions": 0}, "max_decisions"),
    ],
)
def test_bad_parameters_are_refused(params: dict, words: str) -> None:
    with pytest.raises(Exception, match=words):
        pyspiel.load_game(NAME, params)


def test_clone_is_independent_and_equal() -> None:
    state = pyspiel.load_game(NAME, {"seed": 2}).new_initial_state()
    _play(state, 40)
    c = state.clone()
    assert c.g.state_hash() == state.g.state_hash() and c.history() == state.history()
    _play(c, 20, seed=1)
    assert c.g.state_hash() != state.g.state_hash()
    assert len(state.history()) == 40


def _same(a: Any, b: Any) -> None:
    """Two states that must be the same position (for both players)."""
    assert a.g.state_hash() == b.g.state_hash()
    assert a.history() == b.history() and a.legal_actions() == b.legal_actions()
    assert a.is_terminal() == b.is_terminal() and a.returns() == b.returns()
    for p in (0, 1):
        assert a.information_state_string(p) == b.information_state_string(p)


@pytest.mark.parametrize("fmt", ["classic", "adventure", "pocket"])
@pytest.mark.parametrize("how", ["serialize_game_and_state", "pickle", "deserialize_state"])
def test_a_restored_state_plays_on_exactly_as_the_original(fmt: str, how: str) -> None:
    """Serialized mid-game and restored: same history, legal actions and state hash, and
    the same moves from there give the same positions and the same returns (the engine's
    random stream, which deals the later draws and shuffles, goes with the state)."""
    game = pyspiel.load_game(NAME, {"format": fmt, "seed": 11, "max_decisions": 300})
    state = game.new_initial_state()
    _play(state, 40)
    if how == "serialize_game_and_state":
        game2, restored = pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, state)
        )
        assert str(game2) == str(game)
    elif how == "pickle":
        restored = pickle.loads(pickle.dumps(state))
    else:
        restored = game.deserialize_state(state.serialize())
    assert type(restored) is type(state)
    _same(restored, state)
    r = random.Random(3)
    while not state.is_terminal():
        a = r.choice(state.legal_actions())
        state.apply_action(a)
        restored.apply_action(a)
        _same(restored, state)
    assert restored.returns() == state.returns()


def test_strings_and_tensors_hide_the_opponents_hand() -> None:
    state = pyspiel.load_game(NAME, {"seed": 5}).new_initial_state()
    _play(state, 30)
    g = state.g
    for p in (0, 1):
        theirs = {g.cdef[c].name for c in g.hand[1 - p]} - {g.cdef[c].name for c in g.hand[p]}
        seen = {g.cdef[c].name for z in (g.battlefield, *g.graveyard, *g.exile) for c in z}
        text = state.information_state_string(p)
        for name in theirs - seen:
            assert name not in text


def test_resampling_keeps_the_players_information_and_redeals_the_rest() -> None:
    state = pyspiel.load_game(NAME, {"seed": 6}).new_initial_state()
    _play(state, 25)
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands = set()
    for _ in range(8):
        s = state.resample_from_infostate(p, sampler)
        assert s.information_state_string(p) == state.information_state_string(p)
        assert np.array_equal(s.observation_tensor(p), state.observation_tensor(p))
        assert s.legal_actions() == state.legal_actions()
        hands.add(tuple(sorted(s.g.cdef[c].name for c in s.g.hand[1 - p])))
        _play(s, 30)  # a resampled state plays on
    assert len(hands) > 1


def test_openspiels_ismcts_bot_plays_whole_games_against_random() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(NAME, {"seed": 8, "max_decisions": 150})
    for seat in (0, 1):
        ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
        bot = ismcts.ISMCTSBot(
            game, ev, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(seat)
        )
        state = game.new_initial_state()
        r = random.Random(seat)
        while not state.is_terminal():
            if state.current_player() == seat:
                a = bot.step(state)
                assert a in state.legal_actions()
            else:
                a = r.choice(state.legal_actions())
            state.apply_action(a)
        assert sum(state.returns()) == 0.0


def _norm(dist: str) -> str:
    return dist.lower().replace("_", "-")


def test_openspiel_extra_declares_what_openspiels_pytorch_learners_import() -> None:
    """open_spiel does not declare dm-tree (`import tree`), which its PyTorch NFSP and DQN
    import: the `openspiel` extra does (torch comes from the `train` extra)."""
    from importlib.metadata import packages_distributions

    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    reqs = (*project["project"]["dependencies"], *extras["openspiel"], *extras["train"])
    declared = {_norm(Requirement(r).name) for r in reqs}
    dists = packages_distributions()
    for module in ("open_spiel.python.pytorch.nfsp", "open_spiel.python.pytorch.dqn"):
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        imported: set[str] = set()
        for node in ast.walk(ast.parse(Path(spec.origin).read_text())):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
        assert "tree" in imported, "the check reads the learners' imports"
        for top in sorted(imported):
            for dist in dists.get(top, []):
                if _norm(dist) != "open-spiel":
                    assert _norm(dist) in declared, f"{module} imports {top} ({dist})"


def test_openspiels_pytorch_nfsp_learns_on_the_game() -> None:
    """OpenSpiel's PyTorch NFSP (both seats) through its `rl_environment`, a few hundred
    steps: legal actions only, and both of its networks (average policy and DQN) learn."""
    torch = pytest.importorskip("torch")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    # One torch thread: the networks are tiny, more threads only contend for the cores.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _train_nfsp(rl_environment, nfsp)
    finally:
        torch.set_num_threads(threads)


def _train_nfsp(rl_environment: Any, nfsp: Any) -> None:
    env = rl_environment.Environment(NAME, seed=3, max_decisions=80)
    env.seed(0)
    size = env.observation_spec()["info_state"][0]
    n = env.action_spec()["num_actions"]
    agents = [
        nfsp.NFSP(
            p,
            state_representation_size=size,
            num_actions=n,
            hidden_layers_sizes=[16],
            reservoir_buffer_capacity=500,
            replay_buffer_capacity=500,
            anticipatory_param=0.5,
            batch_size=16,
            min_buffer_size_to_learn=32,
            learn_every=16,
            seed=p,
        )
        for p in (0, 1)
    ]
    steps = 0
    while steps < 300:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            out = agents[p].step(ts)
            assert out.action in ts.observations["legal_actions"][p]
            ts = env.step([out.action])
            steps += 1
        assert sum(ts.rewards) == 0.0
        for agent in agents:
            agent.step(ts)
    for agent in agents:
        sl_loss, rl_loss = agent.loss
        assert sl_loss is not None and rl_loss is not None
        assert np.isfinite(float(sl_loss)) and np.isfinite(float(rl_loss))
