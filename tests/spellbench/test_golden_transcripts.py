"""Golden transcripts: whole games through the engine role, recorded. Each game is played
by two seeded random bots from the run secret's game secret, and recorded as the digest
chain of Section 11.8 over every engine request and response, with its terminal. A change
to anything the protocol carries (observations, ids, candidates, their order, counters)
changes a digest; `pytest tests/spellbench/test_golden_transcripts.py --regen-golden`
(and `make regen`) records them again on purpose."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from mtg_env.spellbench import ids
from mtg_env.spellbench.engine import EngineSession
from mtg_env.spellbench.host import default_rules
from mtg_env.spellbench.wire import PROTOCOL

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "spellbench" / "golden.json"
RUN = b"golden transcripts of mtg_env!!!"  # 32 bytes: the recorded run's secret
GAMES = {"core": 3, "classic": 3}


def play(fmt: str, index: int) -> dict[str, Any]:
    session = EngineSession(fmt)
    hello_line = {"request_type": "hello", "protocol": PROTOCOL, "request_id": "h-0"}
    hello = session.answer(json.dumps({**hello_line, "protocol_minor": 0}).encode())
    names = sorted(d["catalog_id"] for d in hello["catalog"])
    r = random.Random(ids.agent_seed(RUN, index, "p0"))
    a, b = r.choice(names), r.choice(names)
    reset = {
        "request_type": "reset",
        "protocol": PROTOCOL,
        "request_id": "h-1",
        "game_id": ids.game_id(RUN, index),
        "format": fmt,
        "seats": [
            {"seat": "p0", "deck": {"deck_id": "sha256:x", "catalog_id": a}},
            {"seat": "p1", "deck": {"deck_id": "sha256:x", "catalog_id": b}},
        ],
        "rules": default_rules(),
        "game_secret": ids.game_secret(RUN, index).hex(),
        "max_decisions": 5000,
        "max_steps": 20000,
    }
    digest = ids.GameDigest(reset)
    resp = session.answer(json.dumps(reset).encode())
    digest.add(resp)
    bots = [random.Random(ids.agent_seed(RUN, index, s)) for s in ("p0", "p1")]
    n = 2
    while resp["response_type"] == "decision":
        sd = resp["seat_decision"]
        pick = bots[int(sd["acting_seat"][1])].randrange(len(sd["candidates"]))
        step = {
            "request_type": "step",
            "protocol": PROTOCOL,
            "request_id": f"h-{n}",
            "game_id": resp["game_id"],
            "expected_step": resp["step"],
            "selection": {
                "candidate_id": pick,
                "semantic_echo": sd["candidates"][pick]["semantic"],
            },
        }
        n += 1
        digest.add(step)
        resp = session.answer(json.dumps(step).encode())
        digest.add(resp)
    return {
        "format": fmt,
        "index": index,
        "decks": [a, b],
        "digest": digest.value,
        "terminal": {
            k: resp[k]
            for k in (
                "outcome",
                "classification",
                "winner",
                "reason",
                "step_count",
                "decision_count",
            )
        },  # fmt: skip
    }


def test_whole_games_reproduce_their_recorded_transcripts(request: pytest.FixtureRequest) -> None:
    games = [play(fmt, i) for fmt, n in GAMES.items() for i in range(n)]
    if request.config.getoption("--regen-golden"):
        GOLDEN.write_text(json.dumps(games, indent=1) + "\n")
    recorded = json.loads(GOLDEN.read_text())
    assert [g["terminal"] for g in games] == [g["terminal"] for g in recorded]
    assert [g["digest"] for g in games] == [g["digest"] for g in recorded]
    assert all(g["terminal"]["classification"] == "natural" for g in games)
