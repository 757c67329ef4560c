"""The v1 tables of the neutral seat decision (`mtg_env.spellbench.entity_view`) and the
policy bot that reads them (`agents.spellbench_bot.PolicyBot`): on every decision of random
games through the engine role, the tables built from the protocol's JSON alone equal the
tables our env builds from the engine state, and the bot makes the moves the same policy
makes in-process."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sample_games import play

from mtg_env.engine import load_cards
from mtg_env.engine.constants import ATTACK, BLOCK, BLOCKER, PASS
from mtg_env.env.entity import GLOBAL_FIELDS, OBJECT_FIELDS, OBJECT_INDEX
from mtg_env.env.observers import EntityObserver
from mtg_env.env.spaces import Layout
from mtg_env.spellbench.entity_view import NeutralEntityObserver

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")
TABLES = ("objects", "object_card", "object_mask", "global", "candidates", "action_mask")
# Globals the neutral view counts from printed cards (an effect may change what a permanent
# makes), and the block decisions, whose blockers and attackers it reads from keywords.
MANA = {i for i, (name, _) in enumerate(GLOBAL_FIELDS) if name.startswith("mana_")}


def _views(fmt: str) -> tuple[EntityObserver, NeutralEntityObserver]:
    engine = EntityObserver(Layout(load_cards(fmt)))
    return engine, NeutralEntityObserver(engine.entity)


@pytest.mark.parametrize("fmt", ["core", "classic"])
def test_the_neutral_tables_equal_the_engine_tables(fmt: str) -> None:
    """Every table of every decision of six random games, compared with the env's own for
    the engine state the decision was posed from; each row the neutral view gives a
    candidate stands for the engine action the env's row stands for."""
    engine, neutral = _views(fmt)
    differ: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    offered: set[str] = set()
    for index in range(6):
        for host, resp in play(fmt, index):
            if resp["response_type"] != "decision":
                break
            g, sd = host.session.game, resp["seat_decision"]
            kind = sd["candidates"][0]["semantic"]["kind"]
            kinds[kind] += 1
            offered.update(c["semantic"]["kind"] for c in sd["candidates"])
            legal = engine.legal(g, g.decision.player)
            want = engine.observe(g, g.decision.player, legal)
            got, ids = neutral.observe(sd)
            for name in TABLES:
                assert got[name].shape == want[name].shape and got[name].dtype == want[name].dtype
            for name in ("objects", "object_card", "object_mask"):
                assert np.array_equal(got[name], want[name]), (index, kind, name)
            wrong = np.nonzero(got["global"] != want["global"])[0]
            assert set(wrong) <= MANA, (index, kind, [GLOBAL_FIELDS[i][0] for i in wrong])
            differ["mana"] += bool(len(wrong))
            same = np.array_equal(got["candidates"], want["candidates"])
            if kind == "declare_block":
                differ["block"] += not same
                continue
            assert same and np.array_equal(got["action_mask"], want["action_mask"]), (index, kind)
            posed = {
                c["candidate_id"]: a
                for c, (_, _, a) in zip(sd["candidates"], host.session.pending, strict=True)
            }
            for row, cid in enumerate(ids):
                if cid >= 0 and kind != "order_pick":  # a trigger is an engine object
                    # A creature that stays home is the engine's "done" (no action posed).
                    a = posed[cid] or legal.actions[row]
                    assert legal.actions[row] == a and (posed[cid] or a.kind == PASS), (index, kind)
                elif cid < 0:  # an attack by a creature whose own decision comes later
                    assert kind == "declare_attack" and legal.actions[row].kind == ATTACK
    n = sum(kinds.values())
    assert {"pass", "cast_spell", "choose_target", "declare_attack", "mulligan"} <= offered
    # Measured: 2 of 1,899 classic decisions with another mana count, 1 of 83 core blocks.
    assert differ["mana"] <= n // 100 and differ["block"] <= max(2, kinds["declare_block"] // 20)


def test_a_card_outside_the_pool_reads_as_its_characteristics() -> None:
    engine, neutral = _views("core")
    for _, resp in play("core", 1):
        sd = resp["seat_decision"]
        if sd["observation"]["players"][0]["battlefield"] and sd["acting_seat"] == "p0":
            break
    known, _ = neutral.observe(sd)
    record = sd["observation"]["players"][0]["battlefield"][0]
    record["card_name"] = "A Card No Pool Has"
    record["characteristics"]["mana_value"] = 7
    unknown, _ = neutral.observe(sd)
    row = int(np.nonzero(known["object_card"] != unknown["object_card"])[0][0])
    assert unknown["object_card"][row] == len(engine.layout.card_names)  # the unknown row
    space = engine.entity.observation_space  # the unknown row is inside the space's bounds
    assert unknown["object_card"][row] <= space["object_card"].high.max()
    cols = np.nonzero(known["objects"][row] != unknown["objects"][row])[0]
    assert {OBJECT_FIELDS[c][0] for c in cols} <= {"mana_value", "abilities"}
    assert unknown["objects"][row][OBJECT_INDEX["mana_value"]] == 7


def _v1_policy(tmp_path: Path, fmt: str) -> Path:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.policy import export_policy
    from mtg_env.entity_nets import CandidatePolicy

    env = gym.make("mtg_env/SelfPlayEntity-v1", opponent="random", format=fmt)
    model = MaskablePPO(
        CandidatePolicy,
        env,
        n_steps=32,
        batch_size=32,
        seed=0,
        policy_kwargs={"hidden": 32, "format": fmt},
    )
    path = tmp_path / "v1.safetensors"
    export_policy(model.policy, path)
    return path


def _in_process(agent: Any, g: Any) -> Any:
    """The engine moves the policy makes in-process from `g`: one action, or a whole
    declaration of attackers or blockers (on a copy), as (creature, what) pairs."""
    d = g.decision
    if d.kind not in (2, 3):  # D_ATTACKERS, D_BLOCKERS
        return agent.choose(g)
    g = g.clone()
    picks: dict[int, int] = {}
    while g.decision is not None and g.decision.kind in (2, 3, 4):
        a = agent.choose(g)
        if a.kind == PASS:
            break
        if a.kind in (ATTACK, BLOCK):
            picks[a.obj if a.kind == ATTACK else g.ctx.blocker] = (
                a.arg if a.kind == ATTACK else a.obj
            )
        assert a.kind in (ATTACK, BLOCKER, BLOCK)
        g.apply(a)
    return picks


def test_the_policy_bot_makes_the_moves_the_policy_makes_in_process(tmp_path: Path) -> None:
    """Seat p0 is a v1 policy served as a bot, reading the neutral decision; at each of its
    decisions the same policy, in-process, reads the engine state. Both sample their moves
    (an untrained network, greedy, would only pass) from the same random state: the same
    distribution over the same rows gives the same engine action, or the same declaration
    of attackers or blockers."""
    from agents.base import make_agent
    from agents.spellbench_bot import PolicyBot

    path = _v1_policy(tmp_path, "classic")
    agent = make_agent(f"policy:{path}", 0, "classic")
    bot = PolicyBot(make_agent(f"policy:{path}", 0, "classic"))
    agent.deterministic = bot.agent.deterministic = False
    agreed: Counter[str] = Counter()
    for index in range(3):
        bot.start({"agent_seed": index})
        for _ in play("classic", index, pick=_both(agent, bot, index, agreed)):
            pass
    assert agreed["move asked"] > 50 and agreed["move"] == agreed["move asked"], agreed
    assert agreed["declare_attack asked"] >= 5 and agreed["declare_attack declared"] >= 1, agreed
    assert agreed["declare_attack"] == agreed["declare_attack asked"], agreed
    assert agreed["declare_block"] >= agreed["declare_block asked"] - 1, agreed


def _both(agent: Any, bot: Any, index: int, agreed: Counter[str]) -> Any:
    """The picks of game `index`: p0 the bot (each of its moves checked against `agent`'s,
    in-process, counted in `agreed`), p1 random."""
    import torch

    other = random.Random(index)

    def pick(host: Any, resp: dict[str, Any]) -> int:
        sd = resp["seat_decision"]
        cands = sd["candidates"]
        if sd["acting_seat"] != "p0":
            return other.randrange(len(cands))
        session, g = host.session, host.session.game
        kind = cands[0]["semantic"]["kind"]
        group = kind in ("declare_attack", "declare_block")
        seed = index * 100_000 + sd["seat_step"]
        torch.manual_seed(seed)
        cid = bot.choose(sd)
        pos = next(i for i, c in enumerate(cands) if c["candidate_id"] == cid)
        torch.manual_seed(seed)
        if group and sd["group"]["substep_index"] == 0:
            assert bot.plan is not None
            want = _in_process(agent, g)
            agreed[kind] += want == _engine_plan(session, g, bot.plan[1], kind)
            agreed[kind + " asked"] += 1
            agreed[kind + " declared"] += len(want)
        elif not group and session.group is None and len(cands) > 1:
            agreed["move"] += session.pending[pos][2] == agent.choose(g)
            agreed["move asked"] += 1
        return pos

    return pick


def _engine_plan(session: Any, g: Any, plan: dict[str, str], kind: str) -> dict[int, int]:
    """The bot's plan (object ids) as engine picks: creature -> defending player, or
    blocker -> attacker."""
    obs = session.observer
    seat = g.decision.player
    by_id = {obs.ref(g, seat, c)["object_id"]: c for c in g.battlefield}
    if kind == "declare_attack":
        return {by_id[c]: 1 - seat for c in plan}
    return {by_id[b]: by_id[a] for b, a in plan.items()}


def test_a_flat_policy_is_refused_in_one_line() -> None:
    flat = subprocess.run(
        [MTG_ENV, "spellbench", "agent", "policy:default"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert flat.returncode == 2 and flat.stderr.count("\n") == 1
    assert "flat (v0) observation" in flat.stderr


def test_a_v1_policy_plays_whole_games_under_the_host(tmp_path: Path) -> None:
    """`mtg-env spellbench agent policy:PATH` as a process under our host, against the
    random bot: every decision passes the live validator and the game ends naturally. (That
    a greedy policy bot makes the moves the policy makes in process is the test above; that
    a rerun from the run secret is the same game, test_host's.)"""
    from mtg_env.spellbench.host import Host

    path = _v1_policy(tmp_path, "classic")
    engine = [MTG_ENV, "spellbench", "engine", "--format", "classic"]
    bots = (
        [MTG_ENV, "spellbench", "agent", f"policy:{path}"],
        [MTG_ENV, "spellbench", "agent", "random"],
    )
    host = Host(engine, bots, b"p" * 32, "classic")
    host._start_engine()
    decks = sorted(host.decks())
    first = host.game(0, 0, decks[0], decks[2])
    assert host.violations == [] and host.decisions_checked > 50
    assert host.engine is not None
    host.engine.close()
    assert first.classification == "natural" and first.agent.startswith("mtg_env-policy-")
