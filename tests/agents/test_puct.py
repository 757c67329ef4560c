"""Net-guided search (`ismcts:BUDGET+policy:PATH`, agents.puct): built from its spec, it
plays legal moves, reruns the same game from the same seed, sees hidden information only
through `Game.resample_hidden`, and evaluates its leaves in batches."""

from __future__ import annotations

import pytest
import torch

from agents import make_agent
from agents.puct import PUCTAgent
from agents.registry import Budget
from mtg_env.engine import Game, load_decks


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)  # the suite runs one worker per core


def _game(seed: int = 3, fmt: str = "classic") -> Game:
    d = load_decks(fmt)
    names = sorted(d)
    return Game.new((d[names[0]], d[names[1]]), seed=seed, max_decisions=300, format=fmt)


def _play(agent: object, seed: int) -> list[object]:
    g = _game(seed)
    rival = make_agent("heuristic", 7)
    moves = []
    while not g.is_over:
        if g.current_player == 0:
            a = agent.choose(g)  # type: ignore[attr-defined]
            assert a in g.legal_actions()
            moves.append(a)
        else:
            a = rival.choose(g)
        g.apply(a)
    return moves


def test_the_spec_builds_the_search_with_its_budget() -> None:
    a = make_agent("ismcts:12+policy:default", 1, fmt="classic")
    assert isinstance(a, PUCTAgent) and a.budget == Budget(12, None)
    b = make_agent("ismcts:0.5s+policy:default", 1, fmt="classic")
    assert isinstance(b, PUCTAgent) and b.budget == Budget(None, 0.5)
    for bad in ("ismcts:12+heuristic", "ismcts:12+policy:rllib:x", "ismcts:0+policy:default"):
        with pytest.raises(ValueError, match="ismcts"):
            make_agent(bad, 1, fmt="classic")


def test_it_plays_legal_moves_and_reruns_from_its_seed() -> None:
    first = _play(make_agent("ismcts:8+policy:default", 5, fmt="classic"), seed=4)
    again = _play(make_agent("ismcts:8+policy:default", 5, fmt="classic"), seed=4)
    assert len(first) > 20 and first == again


def test_hidden_cards_reach_it_only_through_resample_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every state the search walks or evaluates is a determinization: the network is
    asked about states `resample_hidden` made, one per iteration, in batches."""
    agent = make_agent("ismcts:10+policy:default", 2, fmt="classic")
    assert isinstance(agent, PUCTAgent)
    agent.batch = 4
    g = _game(6)
    rival = make_agent("heuristic", 1)
    while len(g.legal_actions()) < 3:
        g.apply(rival.choose(g))
    made: list[int] = []
    real = Game.resample_hidden

    def resample(self: Game, seat: int, rng: object = None) -> Game:
        h = real(self, seat, rng)
        made.append(id(h))
        return h

    monkeypatch.setattr(Game, "resample_hidden", resample)
    seen: list[list[Game]] = []
    evaluate = agent._evaluate

    def spy(games: list[Game]) -> object:
        seen.append(games)
        return evaluate(games)

    monkeypatch.setattr(agent, "_evaluate", spy)
    agent.choose(g)
    assert len(made) == 10  # one determinization per iteration
    assert [len(b) for b in seen] == [4, 4, 2]  # batches of 4, the last one what was left
    assert all(gg is not g for b in seen for gg in b)


def test_a_v1_policy_guides_it_too(tmp_path) -> None:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.policy import export_policy
    from mtg_env.entity_nets import CandidatePolicy

    env = gym.make("mtg_env/SelfPlayEntity-v1", opponent="random")
    model = MaskablePPO(
        CandidatePolicy, env, n_steps=32, batch_size=32, seed=0, policy_kwargs={"hidden": 32}
    )
    path = tmp_path / "v1.safetensors"
    export_policy(model.policy, path)
    agent = make_agent(f"ismcts:6+policy:{path}", 3, fmt="classic")
    assert isinstance(agent, PUCTAgent)
    moves = _play(agent, seed=2)
    assert moves and agent.evaluations > 0
