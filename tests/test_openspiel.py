"""The OpenSpiel game `python_mtg_duel`: OpenSpiel's random-simulation checks, cloning,
resampling from an information state, hidden information in the strings and tensors,
and OpenSpiel's own IS-MCTS bot playing whole games against random (tiny budgets)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
import mtg_env.openspiel  # noqa: E402,F401 - registers the game
from mtg_env.engine import resolve_deck  # noqa: E402

NAME = "python_mtg_duel"


@pytest.mark.parametrize(("fmt", "cap"), [("classic", 400), ("adventure", 200), ("pocket", 200)])
def test_openspiels_random_simulation_checks_pass(fmt: str, cap: int) -> None:
    game = pyspiel.load_game(NAME, {"format": fmt, "seed": 1, "max_decisions": cap})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


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
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
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
