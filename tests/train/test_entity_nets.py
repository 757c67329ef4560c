"""The network for the v1 entity observation: a set encoder over object rows and a pointer
head over candidate rows (mtg_env.entity_nets)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

import mtg_env
from mtg_env.entity_nets import CandidatePolicy, TableExtractor
from mtg_env.env.entity import CANDIDATE_INDEX, OBJECT_INDEX


def _obs(fmt: str = "classic", seed: int = 1, steps: int = 40) -> dict[str, np.ndarray]:
    e = mtg_env.raw_env(format=fmt, obs_type="entity")
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        o = e.observe(e.agent_selection)
        if e.terminations[e.agent_selection] or e.truncations[e.agent_selection]:
            break
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return e.observe(e.agent_selection)


def _batch(o: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.as_tensor(v).unsqueeze(0) for k, v in o.items()}


def _extractor(fmt: str = "classic", **kw: int) -> TableExtractor:
    space = mtg_env.raw_env(format=fmt, obs_type="entity").observation_space("player_0")
    torch.manual_seed(0)
    return TableExtractor(space, **kw)


def test_permuting_object_rows_leaves_the_context_unchanged() -> None:
    fe = _extractor()
    o = _obs(steps=60)
    n = int(o["object_mask"].sum())
    assert n > 5
    perm = np.random.default_rng(0).permutation(n)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(n)
    p = {k: v.copy() for k, v in o.items()}
    for key in ("objects", "object_card", "object_mask"):
        p[key][:n] = o[key][perm]
    # Row references (row + 1) follow the rows.
    for col in ("blocking", "attached_to"):
        c = p["objects"][:n, OBJECT_INDEX[col]].astype(int)
        p["objects"][:n, OBJECT_INDEX[col]] = np.where(c > 0, inv[np.maximum(c - 1, 0)] + 1, 0)
    for col in ("source_row", "target_row"):
        c = p["candidates"][:, CANDIDATE_INDEX[col]].astype(int)
        p["candidates"][:, CANDIDATE_INDEX[col]] = np.where(c > 0, inv[np.maximum(c - 1, 0)] + 1, 0)
    with torch.no_grad():
        a, b = fe(_batch(o)), fe(_batch(p))
    assert torch.allclose(a, b, atol=1e-5)


def test_the_pointer_head_follows_the_candidate_rows() -> None:
    env = gym.make("mtg_env/SelfPlayEntity-v1")
    torch.manual_seed(0)
    pol = CandidatePolicy(env.observation_space, env.action_space, lambda _: 1e-3)
    o = _obs(steps=10)
    n = int(o["action_mask"].sum())
    assert n >= 2
    p = {k: v.copy() for k, v in o.items()}
    p["candidates"][:n] = o["candidates"][:n][::-1]
    with torch.no_grad():
        la = pol.get_distribution(_batch(o)).distribution.logits[0, :n]
        lb = pol.get_distribution(_batch(p)).distribution.logits[0, :n]
    assert torch.allclose(la, lb.flip(0), atol=1e-5)


@pytest.mark.parametrize("fmt", ["adventure", "pocket"])
def test_without_card_ids_a_network_reads_another_card_set(fmt: str) -> None:
    fe = _extractor("classic", card_embedding=0)
    with torch.no_grad():
        out = fe(_batch(_obs(fmt)))
    assert out.shape == (1, fe.features_dim) and torch.isfinite(out).all()


def _many_obs(games: int = 4, fmt: str = "classic") -> list[dict[str, np.ndarray]]:
    """The acting seat's observation at every decision of a few random games."""
    e = mtg_env.raw_env(format=fmt, obs_type="entity")
    rng = np.random.default_rng(0)
    out = []
    for seed in range(games):
        e.reset(seed=seed)
        for _ in range(300):
            agent = e.agent_selection
            if e.terminations[agent] or e.truncations[agent]:
                break
            o = e.observe(agent)
            out.append({k: v.copy() for k, v in o.items()})
            e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def _stack(obs: list[dict[str, np.ndarray]]) -> dict[str, torch.Tensor]:
    return {k: torch.as_tensor(np.stack([o[k] for o in obs])).float() for k in obs[0]}


def _dense_features(fe: TableExtractor, obs: dict[str, torch.Tensor]) -> torch.Tensor:
    """The extractor's features computed the direct way: the row network on every object
    row and the candidate network on every candidate row, the empty ones zeroed, pooled
    over the whole table (what the packed computation must equal)."""
    from mtg_env.entity_nets import N_DECISIONS, N_KINDS, N_OPTIONS, N_STEPS, decode_objects
    from mtg_env.env.entity import GLOBAL_INDEX

    def one_hot(x: torch.Tensor, n: int) -> torch.Tensor:
        return torch.nn.functional.one_hot(x.long().clamp(0, n - 1), n).float()

    def gather(emb: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
        b, _, d = emb.shape
        padded = torch.cat([emb.new_zeros((b, 1, d)), emb], dim=1)
        idx = ref.long().clamp(0, emb.shape[1]).unsqueeze(-1).expand(-1, -1, d)
        return torch.gather(padded, 1, idx)

    objects, mask = obs["objects"], obs["object_mask"].float()
    x = decode_objects(objects)
    x = torch.cat([x, fe.cards(obs["object_card"].long().clamp(min=0))], dim=-1)
    rows = fe.row_net(x) * mask.unsqueeze(-1)
    mine = objects[..., OBJECT_INDEX["mine"]].float().clamp(0, 1) * mask

    def mean(w: torch.Tensor) -> torch.Tensor:
        return (rows * w.unsqueeze(-1)).sum(1) / w.sum(1, keepdim=True).clamp(min=1.0)

    biggest = (rows - 1e4 * (1.0 - mask).unsqueeze(-1)).max(1).values.clamp(min=0.0)
    pooled = torch.cat([mean(mask), biggest, mean(mine), mean((1.0 - mine) * mask)], dim=-1)
    g = obs["global"]
    glob = torch.cat(
        [
            torch.sign(g) * torch.log1p(g.abs()),
            one_hot(g[:, GLOBAL_INDEX["step"]], N_STEPS),
            one_hot(g[:, GLOBAL_INDEX["decision"]], N_DECISIONS),
        ],
        dim=-1,
    )
    context = fe.context(torch.cat([glob, pooled], dim=-1))
    c, ci = obs["candidates"], CANDIDATE_INDEX
    cand_in = torch.cat(
        [
            one_hot(c[..., ci["kind"]], N_KINDS),
            gather(rows, c[..., ci["source_row"]]),
            gather(rows, c[..., ci["target_row"]]),
            one_hot(c[..., ci["target_player"]], 3),
            one_hot(c[..., ci["option"]], N_OPTIONS),
        ],
        dim=-1,
    )
    cands = fe.cand_net(cand_in) * obs["action_mask"].float().unsqueeze(-1)
    return torch.cat([context, cands.flatten(1)], dim=1)


def test_the_packed_extractor_equals_the_networks_run_on_every_row() -> None:
    """The extractor runs its networks on the present rows and legal candidates only; its
    features, and the gradients of a loss on them, are those of running the networks on
    every row of the tables and zeroing the empty ones."""
    fe = _extractor()
    obs = _stack(_many_obs())
    assert len(obs["objects"]) > 300
    packed, dense = fe(obs), _dense_features(fe, obs)
    assert torch.allclose(packed, dense, atol=1e-5)
    weights = torch.randn_like(dense)
    grads = []
    for out in (packed, dense):
        fe.zero_grad()
        (out * weights).sum().backward(retain_graph=True)
        grads.append([p.grad.clone() for p in fe.parameters()])
    for a, b in zip(*grads):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-4)


def test_the_policy_gives_what_sb3s_path_through_the_flat_features_gives() -> None:
    """CandidatePolicy's own forward, evaluate_actions, get_distribution and
    predict_values (on the packed tables) equal SB3's through the flattened features."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy as Sb3

    env = gym.make("mtg_env/SelfPlayEntity-v1")
    torch.manual_seed(0)
    pol = CandidatePolicy(env.observation_space, env.action_space, lambda _: 1e-3)
    obs = _stack(_many_obs(games=3))
    masks = obs["action_mask"].numpy().astype(bool)
    rng = np.random.default_rng(1)
    acts = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks])
    ours, sb3 = pol.evaluate_actions(obs, acts, masks), Sb3.evaluate_actions(pol, obs, acts, masks)
    for a, b in zip(ours, sb3):
        assert a is not None and b is not None and torch.allclose(a, b, atol=1e-5)
    for m in (None, masks):  # without masks too: an empty candidate row scores the bias
        la = pol.get_distribution(obs, m).distribution.logits
        lb = Sb3.get_distribution(pol, obs, m).distribution.logits
        assert torch.allclose(la, lb, atol=1e-5)
    assert torch.allclose(pol.predict_values(obs), Sb3.predict_values(pol, obs), atol=1e-5)
    torch.manual_seed(3)
    a1, v1, l1 = pol(obs, deterministic=True, action_masks=masks)
    a2, v2, l2 = Sb3.forward(pol, obs, deterministic=True, action_masks=masks)
    assert torch.equal(a1, a2) and torch.allclose(v1, v2, atol=1e-5)
    assert torch.allclose(l1, l2, atol=1e-5)


def test_maskable_ppo_trains_on_selfplay_v1_and_plays_legal_moves() -> None:
    from sb3_contrib import MaskablePPO

    env = gym.make("mtg_env/SelfPlayEntity-v1", opponent="random")
    model = MaskablePPO(CandidatePolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(128)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    obs, info = env.reset(seed=5)
    for _ in range(30):
        mask = info["action_mask"].astype(bool)
        a, _ = model.predict(obs, action_masks=mask)
        assert mask[int(a)]
        obs, _, term, trunc, info = env.step(int(a))
        if term or trunc:
            break


def test_a_v1_policy_file_is_data_and_plays_as_an_agent(tmp_path) -> None:
    from sb3_contrib import MaskablePPO

    from agents import make_agent
    from agents.policy import export_policy, load_model
    from mtg_env.engine import Game, load_decks

    env = gym.make("mtg_env/SelfPlayEntity-v1", opponent="random")
    model = MaskablePPO(
        CandidatePolicy, env, n_steps=32, batch_size=32, seed=0, policy_kwargs={"hidden": 32}
    )
    path = tmp_path / "v1.safetensors"
    export_policy(model.policy, path)
    loaded = load_model(path)
    assert loaded.mtg_spec.policy == "candidate" and loaded.mtg_spec.observation == "entity"
    o = _batch(_obs(steps=20))
    with torch.no_grad():
        a = model.policy.get_distribution(o).distribution.logits
        b = loaded.get_distribution(o).distribution.logits
    assert torch.allclose(a, b, atol=1e-2)  # float16 weights in the file
    agent = make_agent(f"policy:{path}", fmt="classic")
    d = load_decks("classic")
    names = sorted(d)
    g = Game.new((d[names[0]], d[names[1]]), seed=3, max_decisions=400)
    rival = make_agent("random", 1)
    while not g.is_over:
        g.apply(agent.choose(g) if g.current_player == 0 else rival.choose(g))


def test_a_policy_from_a_smaller_card_set_loads_with_mean_rows_for_new_cards(tmp_path) -> None:
    """Card sets only grow (new cards are appended): a policy trained before the set grew
    loads, its learned rows where they were and the mean of them for each new card. A
    table larger than the set (not an older version of it) is still refused."""
    from sb3_contrib import MaskablePPO

    from agents.policy import export_policy, load_model

    env = gym.make("mtg_env/SelfPlayEntity-v1", opponent="random")
    model = MaskablePPO(
        CandidatePolicy, env, n_steps=32, batch_size=32, seed=0, policy_kwargs={"hidden": 32}
    )
    fe = model.policy.features_extractor
    full = fe.cards.weight.detach().clone()
    n_old = full.shape[0] - 5
    fe.cards = torch.nn.Embedding(n_old, full.shape[1])
    with torch.no_grad():
        fe.cards.weight.copy_(full[:n_old])
    path = tmp_path / "older.safetensors"
    export_policy(model.policy, path)
    rows = load_model(path).features_extractor.cards.weight.detach()
    assert rows.shape == full.shape
    saved = full[:n_old].half().float()  # the file holds float16 weights
    assert torch.allclose(rows[:n_old], saved)
    assert torch.allclose(rows[n_old:], saved.mean(dim=0).expand(5, -1), atol=1e-6)
    fe.cards = torch.nn.Embedding(full.shape[0] + 1, full.shape[1])
    export_policy(model.policy, tmp_path / "larger.safetensors")
    with pytest.raises(Exception, match="cards.weight"):
        load_model(tmp_path / "larger.safetensors")


def test_a_policy_that_names_its_card_rows_maps_them_by_name(tmp_path) -> None:
    """A policy file records the card names of its embedding rows; loading it with a
    larger set gives each card the row it learned even where new cards were inserted
    before others (a set's tokens follow its cards, so adding a card moves them), and the
    mean learned row to each new card."""
    import json

    from safetensors.torch import load, save
    from sb3_contrib import MaskablePPO

    from agents.policy import _read_header, load_model, policy_bytes
    from mtg_env.env.spaces import Layout
    from mtg_env.io import write_bytes

    env = gym.make("mtg_env/SelfPlayEntity-v1", opponent="random")
    model = MaskablePPO(
        CandidatePolicy, env, n_steps=32, batch_size=32, seed=0, policy_kwargs={"hidden": 32}
    )
    data = policy_bytes(model.policy)
    meta = json.loads(_read_header(data)["__metadata__"]["mtg_env"])
    from mtg_env.engine import load_cards

    names = list(Layout(load_cards("classic")).card_names)
    assert meta["extractor"]["card_names"] == names  # recorded when written
    n = len(names)
    # An older set: the same cards but the five before the last one, which came last.
    old_names = names[: n - 6] + [names[-1]]
    tensors = load(data)
    keys = [k for k in tensors if k.endswith("cards.weight")]  # shared by pi and vf
    saved = torch.randn(len(old_names) + 1, tensors[keys[0]].shape[1]).half()
    for k in keys:
        tensors[k] = saved.clone()
    meta["extractor"]["card_names"] = old_names
    path = tmp_path / "named.safetensors"
    write_bytes(path, save(tensors, metadata={"mtg_env": json.dumps(meta)}))
    rows = load_model(path).features_extractor.cards.weight.detach()
    s = saved.float()
    assert rows.shape == (n + 1, s.shape[1])
    assert torch.equal(rows[: n - 6], s[: n - 6])
    assert torch.equal(rows[n - 1], s[n - 6])  # found by name, not by position
    assert torch.allclose(rows[n - 6 : n - 1], s.mean(dim=0).expand(5, -1), atol=1e-6)
    assert torch.equal(rows[n], s[-1])
