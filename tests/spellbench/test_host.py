"""The in-project host (`mtg_env.spellbench.host`, `mtg-env spellbench host`): a match
between our engine and two bots over the protocol, every seat decision validated, the
games reproducible from the run secret, and a bot that dies, stalls or cheats losing by
forfeit instead of hanging the run; an engine whose decision breaks the rules of the live
validator halts the game under the rule's name."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mtg_env.spellbench.host import Host, HostError, stall_verdict

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")
ENGINE = [MTG_ENV, "spellbench", "engine", "--format", "classic"]
RANDOM = [MTG_ENV, "spellbench", "agent", "random"]
FIRST = [MTG_ENV, "spellbench", "agent", "first"]
SECRET = b"s" * 32

# A bot that misbehaves at its MODE-th `choose`: "exit" (dies), "sleep" (stalls), "range"
# (an out-of-range candidate), "echo" (a wrong semantic echo), "error" (an error answer).
BAD_BOT = textwrap.dedent(
    """
    import json, sys, time
    mode, at = sys.argv[1], int(sys.argv[2])
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        base = {"protocol": "spellbench/v2", "request_id": msg["request_id"]}
        kind = msg["request_type"]
        if kind == "hello":
            out = {**base, "response_type": "hello_ok", "bot": {"name": "bad", "version": "0"}}
        elif kind == "choose":
            n += 1
            pick = {"candidate_id": 0}
            if n >= at:
                if mode == "exit":
                    sys.exit(0)
                if mode == "sleep":
                    time.sleep(30)
                if mode == "range":
                    pick = {"candidate_id": 10**6}
                if mode == "echo":
                    pick = {"candidate_id": 0, "semantic_echo": {"kind": "nothing"}}
                if mode == "error":
                    out = {**base, "response_type": "error",
                           "error": {"code": "internal_error", "message": "x"}}
                    print(json.dumps(out), flush=True)
                    continue
            out = {**base, "response_type": "choice", "selection": pick}
        else:
            out = {**base, "response_type": "ack"}
        print(json.dumps(out), flush=True)
    """
)

# An engine that breaks one live-validation rule in its first decision.
BAD_ENGINE = textwrap.dedent(
    """
    import json, sys
    from mtg_env.spellbench.engine import EngineSession
    s = EngineSession("classic")
    fault = sys.argv[1]
    for line in sys.stdin:
        out = s.answer(line.encode())
        if out.get("response_type") == "decision":
            sd = out["seat_decision"]
            if fault == "viewer":
                sd["observation"]["viewer"] = "p1" if sd["acting_seat"] == "p0" else "p0"
            if fault == "dense":
                sd["candidates"][0]["candidate_id"] = 7
            if fault == "seat_step":
                sd["seat_step"] = 5
        print(json.dumps(out), flush=True)
    """
)


def _bad_bot(tmp_path: Path, mode: str, at: int = 3) -> list[str]:
    script = tmp_path / "bad_bot.py"
    script.write_text(BAD_BOT)
    return [sys.executable, str(script), mode, str(at)]


def test_a_match_of_our_engine_and_two_bots_is_validated_and_reruns_exactly() -> None:
    host = Host(ENGINE, (RANDOM, FIRST), SECRET, "classic")
    host._start_engine()
    decks = sorted(host.decks())
    records = host.run([(decks[0], decks[1])])
    assert [(r.index, r.seat_agent) for r in records] == [(0, 0), (1, 1)]  # seats swapped
    for r in records:
        assert r.classification == "natural", r
        assert r.digest.startswith("sha256:") and r.steps == sum(r.seat_steps) > 0
        assert r.agent == "mtg_env-random/1.0.0" and r.opponent == "mtg_env-first/1.0.0"
        assert r.score in (0.0, 0.5, 1.0)
    # The first game again from the same run secret (another secret gives other game
    # secrets: tests/spellbench/test_ids.py).
    again = Host(ENGINE, (RANDOM, FIRST), SECRET, "classic")
    again._start_engine()
    assert again.game(0, 0, decks[0], decks[1]).digest == records[0].digest
    again.engine.close() if again.engine else None


@pytest.mark.parametrize(
    ("mode", "cause"),
    [
        ("exit", "transport_error"),
        ("sleep", "timeout"),
        ("range", "invalid_selection"),
        ("echo", "invalid_selection"),
        ("error", "agent_error"),
    ],
)
def test_a_bot_that_dies_stalls_or_cheats_forfeits(tmp_path: Path, mode: str, cause: str) -> None:
    host = Host(
        ENGINE, (_bad_bot(tmp_path, mode), FIRST), SECRET, "classic",
        time_control={"max_decision_ms": 1000},
    )  # fmt: skip
    host._start_engine()
    deck = sorted(host.decks())[0]
    (record,) = [host.game(0, 0, deck, deck)]
    assert (record.classification, record.reason) == ("forfeit", f"forfeit:{cause}")
    assert (record.outcome, record.winner, record.score) == ("p1_win", "p1", 0.0)
    assert record.rated
    host.engine.close() if host.engine else None


@pytest.mark.parametrize(
    ("fault", "rule"), [("viewer", "V2"), ("dense", "V1"), ("seat_step", "V3")]
)
def test_a_decision_that_breaks_a_validator_rule_halts_the_game(
    tmp_path: Path, fault: str, rule: str
) -> None:
    script = tmp_path / "bad_engine.py"
    script.write_text(BAD_ENGINE)
    host = Host([sys.executable, str(script), fault], (FIRST, FIRST), SECRET, "classic")
    host._start_engine()
    deck = sorted(host.decks())[0]
    record = host.game(0, 0, deck, deck)
    assert (record.classification, record.reason) == ("halted", f"host_validator:{rule}")
    assert not record.rated and record.score == -1.0
    assert host.engine is None  # discarded: the next game starts a fresh engine
    # The run manifest records the violation: the run is invalid (Section 11.3).
    manifest = host.manifest(SECRET)
    assert manifest["status"] == "invalid" and manifest["validator"]["verdict"] == "fail"
    assert manifest["validator"]["violations"] == [{"game_id": record.game_id, "rule": rule}]


def test_a_bot_that_will_not_start_is_a_configuration_error(tmp_path: Path) -> None:
    host = Host(ENGINE, ([sys.executable, "-c", "pass"], FIRST), SECRET, "classic")
    host._start_engine()
    with pytest.raises(HostError, match="agent A did not answer hello"):
        host._start_agent(0)
    host.engine.close() if host.engine else None


def _host_cli(a: list[str], b: list[str], out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MTG_ENV, "spellbench", "host", "--engine", " ".join(ENGINE), "--agent", " ".join(a),
         "--agent", " ".join(b), "--format", "classic", "--pairs", "1", "--seed", "3",
         "--out", str(out), *extra],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_host_command_writes_a_results_file_that_evaluate_rates_and_compare_reads(
    tmp_path: Path,
) -> None:
    a_out, b_out = tmp_path / "random.json", tmp_path / "first.json"
    r = _host_cli(RANDOM, FIRST, a_out, "--b-rating", "1100")
    assert r.returncode == 0, r.stderr
    assert "over 2 rated games" in r.stdout and "run commitment:" in r.stderr
    assert "pinned at 1100" in r.stdout
    res = json.loads(a_out.read_text())
    # An evaluation's results file: its config, the rating with its interval, the games.
    assert res["kind"] == res["config"]["kind"] == "mtg_env.evaluate.v1"
    assert res["agent"] == "mtg_env-random/1.0.0" and res["complete"] is True
    assert res["anchors"] == [{"spec": "mtg_env-first/1.0.0", "rating": 1100.0}]
    assert res["config"]["seed"] == 3 and res["config"]["games"] == 2 and not res["unrated"]
    rows = res["games"]
    assert len(rows) == 2 and [(g["pair"], g["swap"]) for g in rows] == [(0, 0), (0, 1)]
    # The run manifest: the secret revealed with its commitment, the information rules in
    # the wire's shape, the live validator's verdict over every decision it checked.
    manifest = res["manifest"]
    secret = bytes.fromhex(manifest["run_secret"])
    assert manifest["run_commitment"] == hashlib.sha256(secret).hexdigest()
    assert manifest["run_commitment"] in r.stderr and manifest["status"] == "valid"
    rules = manifest["information_rules"]
    assert rules["fairness_label"] == "validator only" and rules["rules"]["mulligan"] == "london"
    assert rules["engine_defaults"]["trigger_order"] is None  # the seat orders its triggers
    assert manifest["validator"]["verdict"] == "pass" and not manifest["validator"]["violations"]
    assert manifest["validator"]["decisions_checked"] == sum(g["decisions"] for g in rows)
    assert {g["seat_agent"] for g in rows} == {0, 1}
    for g in rows:
        assert g["classification"] == "natural" and g["digest"].startswith("sha256:")
        assert 0 < g["agent_decisions"] < g["decisions"] and g["agent_seconds"] > 0
    wins = sum(g["score"] for g in rows)
    assert res["per_anchor"][0]["win_rate"] == wins / 2
    # The rating is evaluate's fit of these games: above B's pinned rating exactly when A
    # scored more than half.
    elo = res["rating"]["elo"]
    assert (elo > 1100) == (wins > 1) and (elo < 1100) == (wins < 1)
    # The pinned rating is a part of the schedule (a B pinned elsewhere is another
    # schedule, which compare refuses: tests/agents/test_evaluate.py). Another bot against
    # the same B, engine, decks and seed plays the same games' seeds, so compare pairs them.
    assert [a["rating"] for a in res["config"]["anchors"]] == [1100.0]
    assert _host_cli(FIRST, FIRST, b_out, "--b-rating", "1100").returncode == 0
    cmp = subprocess.run(
        [MTG_ENV, "compare", str(a_out), str(b_out), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert cmp.returncode == 0, cmp.stderr
    out = json.loads(cmp.stdout)
    assert out["shared_games"] == 2
    first = json.loads(b_out.read_text())["games"]
    want = sum(g["score"] for g in rows) / 2 - sum(g["score"] for g in first) / 2
    assert out["score_diff"] == pytest.approx(want)


def test_the_host_command_refuses_one_bot() -> None:
    one = subprocess.run(
        [MTG_ENV, "spellbench", "host", "--engine", " ".join(ENGINE), "--agent", " ".join(RANDOM)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert one.returncode == 2 and len(one.stderr.strip().splitlines()) == 1
    assert "--agent" in one.stderr and "Traceback" not in one.stderr


def test_the_stalling_rule_picks_the_seat_with_more_real_choices_or_a_draw() -> None:
    """Section 11.4: over the trailing window, the seat with more real choices forfeits,
    the seat that reached the cap on a tie, and no real choice at all is a mandatory loop
    (a draw, None)."""
    assert stall_verdict([(0, True), (1, False), (0, True), (1, True)], capped=1) == 0
    assert stall_verdict([(0, True), (1, True)], capped=1) == 1
    assert stall_verdict([(0, True), (1, True)], capped=0) == 0
    assert stall_verdict([(0, False), (1, False)] * 300, capped=0) is None
    assert stall_verdict([], capped=1) is None


def test_a_seat_at_its_per_turn_cap_ends_the_game_by_the_stalling_rule() -> None:
    """A seat that reaches `max_seat_decisions_per_turn` ends the game (Section 11.4): the
    random bot makes more real choices in the window than the first-candidate bot, so it
    forfeits for stalling, a rated game; the adjudication enters the digest."""
    limits = {"max_seat_decisions_per_turn": 3}
    host = Host(ENGINE, (RANDOM, FIRST), SECRET, "classic", limits=limits)
    host._start_engine()
    deck = sorted(host.decks())[0]
    record = host.game(0, 0, deck, deck)
    assert record.classification == "forfeit" and record.reason == "forfeit:stalling"
    assert record.rated and record.score in (0.0, 1.0)
    assert max(record.seat_steps) >= 3
    plain = Host(ENGINE, (RANDOM, FIRST), SECRET, "classic")
    plain._start_engine()
    assert plain.game(0, 0, deck, deck).digest != record.digest
    for h in (host, plain):
        h.engine.close() if h.engine else None


def test_per_game_seat_caps_must_stay_under_half_the_game_caps() -> None:
    with pytest.raises(HostError, match="max_seat_steps_per_game"):
        Host(ENGINE, (RANDOM, FIRST), SECRET, "classic", limits={"max_seat_steps_per_game": 50_000})
