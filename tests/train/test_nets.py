"""The policy networks: the entity extractor and the slot-aware action head."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from policy_files import policy_like_default

from agents import make_agent
from mtg_env.engine import Game, load_cards
from mtg_env.engine.constants import CREATURE
from mtg_env.env import Layout, SelfPlayEnv
from mtg_env.nets import (
    RACE_FEATURES,
    EntityExtractor,
    SlotActionHead,
    SlotMlpExtractor,
    widen_state_dict,
)

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


def _race_truth(g: Game, seat: int) -> list[float]:
    """The race summary computed from the engine state, for `race_summary` to match."""
    P = LAYOUT.limits.permanents

    def side(s: int) -> tuple[float, float, float, float]:
        now = board = blockers = flying = 0.0
        cids = [c for c, slot in g.positions(s).items() if slot < P]
        for cid, ch in zip(cids, g.chars_of(cids), strict=True):
            if not ch.types & CREATURE:
                continue
            tapped = g.perm[cid].tapped
            blockers += not tapped
            if "defender" in ch.keywords:
                continue
            power = min(max(ch.power or 0, 0), 20)
            board += power
            sick = g.sick(cid) and "haste" not in ch.keywords  # CR 702.10: haste
            now += power if not tapped and not sick else 0
            flying += power if "flying" in ch.keywords else 0
        return now, board, blockers, flying

    me, op = side(seat), side(1 - seat)
    life_me, life_op = (min(max(g.life[s], 0), 40) for s in (seat, 1 - seat))
    clock_op = min(math.ceil(life_op / max(me[1], 1e-3)), 10)
    clock_me = min(math.ceil(life_me / max(op[1], 1e-3)), 10)
    return [
        me[0] / 20, me[1] / 20, me[2] / 10, me[3] / 20,
        op[0] / 20, op[1] / 20, op[2] / 10, op[3] / 20,
        clock_op / 10, clock_me / 10,
        float(me[0] >= life_op), float(op[1] >= life_me), (clock_me - clock_op) / 10,
    ]  # fmt: skip


def test_race_summary_matches_the_engine_state() -> None:
    """CR 302.6 (summoning sickness) and CR 702.3 (defender) decide which power can attack;
    the summary read from the observation equals the one computed from the engine."""
    fe = EntityExtractor(SelfPlayEnv().observation_space, race_features=True)
    agents = [make_agent("heuristic", 0), make_agent("heuristic", 1)]
    checked = with_creatures = 0
    pairings = [("White Weenie", "Green Stompy"), ("Rakdos Vampires", "Red Burn")]
    for seed, decks in enumerate(pairings):
        g = Game.new(list(decks), seed=seed)
        while not g.is_over and checked < 250 * (seed + 1):
            seat = g.current_player
            assert seat is not None
            obs = torch.tensor(LAYOUT.observe(g, seat))[None]
            got = fe.race(obs)[0]
            want = _race_truth(g, seat)
            assert got.tolist() == pytest.approx(want, abs=1e-5), (seed, g.turn)
            checked += 1
            with_creatures += want[1] > 0 and want[5] > 0
            g.apply(agents[seat].choose(g))
    assert checked >= 300 and with_creatures >= 50  # boards on both sides were compared


def test_widened_policy_plays_exactly_as_before() -> None:
    """A policy trained without the race summary, widened for it (`init_from` with
    `race_features: true`), starts with zero weights on the new inputs: same values, same
    action probabilities; the old columns are copied unchanged."""
    src = policy_like_default(race_features=False)
    dst = policy_like_default(race_features=True, seed=1)
    dst.load_state_dict(widen_state_dict(src.state_dict(), dst.state_dict()))
    dst.set_training_mode(False)
    key = "features_extractor.global_net.0.weight"
    old, new = src.state_dict()[key], dst.state_dict()[key]
    assert new.shape[1] == old.shape[1] + RACE_FEATURES
    assert torch.equal(new[:, : old.shape[1]], old) and not new[:, old.shape[1] :].any()
    env = SelfPlayEnv()
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(1)
    batch, masks = [], []
    for _ in range(60):
        mask = env.action_masks()
        batch.append(obs)
        masks.append(mask)
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset(seed=5)
    x = torch.tensor(np.array(batch))
    m = np.array(masks)
    with torch.no_grad():
        assert torch.allclose(src.predict_values(x), dst.predict_values(x), atol=1e-5)
        p1 = src.get_distribution(x, action_masks=m).distribution.probs
        p2 = dst.get_distribution(x, action_masks=m).distribution.probs
    assert torch.allclose(p1, p2, atol=1e-5)
    # The race summary is really read: with non-zero new weights the output moves.
    with torch.no_grad():
        dst.features_extractor.global_net[0].weight[:, old.shape[1] :] = 1.0
        assert not torch.allclose(src.predict_values(x), dst.predict_values(x), atol=1e-3)
