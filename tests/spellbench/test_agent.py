"""The agent role (the spec's Section 10) as users run it: `mtg-env spellbench agent BOT`
in a subprocess, fed request lines on stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")
P = "spellbench/v2"


def req(kind: str, rid: str, **fields: Any) -> str:
    return json.dumps({"request_type": kind, "protocol": P, "request_id": rid, **fields})


def decision(n: int) -> dict[str, Any]:
    cands = [{"candidate_id": 0, "semantic": {"kind": "pass"}, "display_text": None}]
    cands += [{"candidate_id": i, "semantic": {"kind": "x"}} for i in range(1, n)]
    return {"acting_seat": "p0", "seat_step": 0, "candidates": cands, "x_future_field": 1}


def serve(bot: str, lines: list[str]) -> list[dict[str, Any]]:
    r = subprocess.run(
        [MTG_ENV, "spellbench", "agent", bot],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and not r.stderr, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def a_game(seed: int, choices: int, n: int = 5) -> list[str]:
    lines = [
        req("hello", "r-0", protocol_minor=0),
        req("game_start", "r-1", game_id="g-a", seat="p0", agent_seed=seed, unknown={"x": 1}),
    ]
    lines += [
        req("choose", f"r-{i + 2}", game_id="g-a", decision=decision(n), clock={"remaining_ms": 1})
        for i in range(choices)
    ]
    return lines + [req("game_over", f"r-{choices + 2}", game_id="g-a", terminal={})]


def test_a_game_through_the_random_bot() -> None:
    out = serve("random", a_game(seed=7, choices=60))
    assert [m["request_id"] for m in out] == [f"r-{i}" for i in range(63)]
    assert out[0]["response_type"] == "hello_ok" and out[0]["bot"]["name"] == "mtg_env-random"
    assert all(m["protocol"] == P for m in out)
    assert out[1]["response_type"] == "ack" and out[-1]["response_type"] == "ack"
    picks = [m["selection"]["candidate_id"] for m in out[2:-1]]
    assert set(picks) == set(range(5))  # uniform over the candidates: all met in 60 picks
    # Seeded from agent_seed: the same seed gives the same picks, another seed others.
    again = [m["selection"]["candidate_id"] for m in serve("random", a_game(7, 60))[2:-1]]
    other = [m["selection"]["candidate_id"] for m in serve("random", a_game(8, 60))[2:-1]]
    assert again == picks and other != picks


def test_the_first_bot_passes() -> None:
    out = serve("first", a_game(seed=1, choices=3))
    assert [m["selection"] for m in out[2:-1]] == [{"candidate_id": 0}] * 3


def test_each_request_it_cannot_serve_gets_its_error_code() -> None:
    lines = [
        "not json",
        "[1, 2]",
        json.dumps({"request_type": "hello", "protocol": P}),  # no request id
        req("hello", "r-1").replace(P, "spellbench/v1"),
        json.dumps({"request_type": "hello", "request_id": "r-2"}),  # no protocol
        req("choose", "r-3", game_id="g-a", decision=decision(2)),  # before game_start
        req("game_start", "r-4", game_id="g-a", seat="p1", agent_seed=1),
        req("game_start", "r-5", game_id="g-b", seat="p1", agent_seed=1),
        req("choose", "r-6", game_id="g-b", decision=decision(2)),
        req("choose", "r-7", game_id="g-a", decision={"candidates": []}),
        req("resign", "r-8", game_id="g-a"),
        req("choose", "r-9", game_id="g-a", decision=decision(2)),
        req("game_over", "r-10", game_id="g-a", terminal={}),
        req("game_over", "r-11", game_id="g-a", terminal={}),
    ]
    out = serve("random", lines)
    codes = [(m["request_id"], m.get("error", {}).get("code")) for m in out]
    assert codes == [
        ("", "malformed_json"),
        ("", "malformed_request"),
        ("", "malformed_request"),
        ("r-1", "protocol_mismatch"),
        ("r-2", "malformed_request"),
        ("r-3", "unknown_game"),
        ("r-4", None),
        ("r-5", "game_already_active"),
        ("r-6", "unknown_game"),
        ("r-7", "malformed_request"),
        ("r-8", "malformed_request"),
        ("r-9", None),
        ("r-10", None),
        ("r-11", "unknown_game"),  # after game_over the agent serves that game no more
    ]
    assert all(m["response_type"] == "error" for m in out if "error" in m)


def test_an_unknown_bot_is_one_line() -> None:
    r = subprocess.run(
        [MTG_ENV, "spellbench", "agent", "nope"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2 and r.stderr.strip() == (
        "error: unknown bot 'nope' (bots: random, first, text:MODULE:ATTR, policy:PATH, or an "
        "agent that reads the engine: heuristic, ismcts:N)"
    )
