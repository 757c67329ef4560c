"""The policy networks: the entity extractor and the slot-aware action head."""

from __future__ import annotations

import numpy as np
import torch

from mtg_env.engine import load_cards
from mtg_env.env import Layout, SelfPlayEnv
from mtg_env.nets import EntityExtractor, SlotActionHead, SlotMlpExtractor

LAYOUT = Layout(load_cards("classic"))


def _features(env: SelfPlayEnv, seed: int) -> tuple[EntityExtractor, torch.Tensor]:
    torch.manual_seed(0)
    fe = EntityExtractor(env.observation_space)
    obs, _ = env.reset(seed=seed)
    return fe, torch.tensor(obs)[None]


def test_empty_permanent_slots_contribute_nothing() -> None:
    env = SelfPlayEnv()
    fe, obs = _features(env, 0)
    out1 = fe(obs)
    noisy = obs.clone()
    s = LAYOUT.obs_slices["permanents_own"]
    pf = LAYOUT.pf
    last = s.start + (LAYOUT.limits.permanents - 1) * pf
    assert float(noisy[0, last]) == 0.0  # the last slot is empty at the start of a game
    noisy[0, last + 1 : last + pf] = 0.7  # garbage in an empty slot's features
    assert torch.allclose(fe(noisy), out1)


def test_slot_head_scores_each_slot_from_its_own_embedding() -> None:
    torch.manual_seed(0)
    P, E, H = LAYOUT.limits.permanents, 8, 16
    head = SlotActionHead(LAYOUT, H, E)
    b = 1
    h = torch.randn(b, H)
    slots = torch.randn(b, 2, P, E)
    latent = torch.cat([h, slots.reshape(b, -1)], dim=1)
    logits = head(latent)
    assert logits.shape == (1, LAYOUT.n_actions)
    k = 5
    changed = slots.clone()
    changed[0, 0, k] += 1.0  # only own slot k changes
    logits2 = head(torch.cat([h, changed.reshape(b, -1)], dim=1))
    diff = (logits2 - logits).abs()[0].detach().numpy()
    moved = set(np.flatnonzero(diff > 1e-6).tolist())
    a = LAYOUT.action_slices
    A = LAYOUT.limits.abilities
    expected = {a["attack"].start + k, a["blocker"].start + k, a["object_own"].start + k}
    expected |= {a["activate"].start + k * A + j for j in range(A)}
    assert moved == expected


def test_slot_mlp_extractor_passes_slots_through() -> None:
    ex = SlotMlpExtractor(100, 32, (slice(0, 10), slice(20, 30)))
    x = torch.randn(3, 100)
    pi = ex.forward_actor(x)
    assert pi.shape == (3, 32 + 20)
    assert torch.equal(pi[:, 32:42], x[:, 0:10]) and torch.equal(pi[:, 42:], x[:, 20:30])
