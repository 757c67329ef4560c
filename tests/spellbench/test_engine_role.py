"""The environment role (`mtg_env.spellbench.engine`, `mtg-env spellbench engine`): hello,
reset and step as the spec's Section 9 has them, whole games through the protocol with
every seat decision checked by the host's validator, the groups of Section 8, the
information-leak check on every decision, and each malformed request answered with its
error code."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mtg_env.engine.constants import GRAVEYARD, HAND
from mtg_env.spellbench.engine import DECISION_KINDS, EngineSession, serve
from mtg_env.spellbench.observation import OBSERVATION_FLAGS
from mtg_env.spellbench.validate import check_observation
from mtg_env.spellbench.wire import MAX_LINE, canonical

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "env"))
from hidden import swap_hidden  # noqa: E402
from sample_games import Host  # noqa: E402
from sample_games import catalog as _catalog  # noqa: E402
from sample_games import play as _play  # noqa: E402
from sample_games import rules_with as _rules  # noqa: E402

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")
REF = ("object_id", "card_name", "owner_seat", "controller_seat", "zone")


def test_hello_ok_declares_what_the_engine_does() -> None:
    host = Host("core")
    ok = host.send(request_type="hello", protocol_minor=7)
    assert ok["response_type"] == "hello_ok" and ok["request_id"] == "h-1"
    assert ok["protocol_minor"] == 0  # no greater than the host's: this engine speaks 0
    assert set(ok) == {
        "response_type", "protocol", "request_id", "protocol_minor", "engine", "formats",
        "deck_sources", "catalog", "rules_supported", "observation", "decision_kinds",
        "engine_defaults", "rewind", "fairness", "extensions",
    }  # fmt: skip
    assert ok["formats"] == ["core"] and ok["observation"] == OBSERVATION_FLAGS
    assert {"pass", "play_land", "cast_spell", "declare_attack", "declare_block"} <= set(
        ok["decision_kinds"]
    )
    assert set(ok["engine_defaults"]) == {
        "trigger_order", "replacement_order", "combat_damage_assignment", "mana_payment",
    }  # fmt: skip
    for deck in ok["catalog"]:
        assert sum(row["count"] for row in deck["decklist"]) >= 40
        assert [row["name"] for row in deck["decklist"]] == sorted(
            row["name"] for row in deck["decklist"]
        )
    assert ok["engine"]["name"] == "mtg_env" and ok["engine"]["card_pool_identity"]


@pytest.mark.parametrize("fmt", ["core", "classic"])
def test_whole_games_through_the_protocol(fmt: str) -> None:
    """Random games to their terminals: each seat decision passes the host's validator,
    its references equal the observation's records, the counters and groups run as
    Sections 8 and 9.3 say, and what the seat cannot see changes nothing in it."""
    kinds: set[str] = set()
    outcomes: set[str] = set()
    for index in range(6):
        steps: list[int] = []
        seat_steps = {"p0": 0, "p1": 0}
        # (group_id, substep_index, substep_count) of each seat's last decision; none yet.
        groups = {"p0": (-1, 0, 1), "p1": (-1, 0, 1)}
        completed = 0
        for host, resp in _play(fmt, index):
            if resp["response_type"] == "terminal":
                assert resp["step_count"] == len(steps)
                assert resp["decision_count"] == completed
                assert resp["classification"] in ("natural", "truncated", "halted")
                if resp["classification"] == "natural":
                    winner = resp["winner"]
                    assert resp["outcome"] == (f"{winner}_win" if winner else "draw")
                    assert " " not in resp["reason"] and "(" not in resp["reason"]
                outcomes.add(resp["classification"])
                break
            assert resp["response_type"] == "decision", resp
            assert resp["step"] == len(steps)
            steps.append(resp["step"])
            sd = resp["seat_decision"]
            seat = sd["acting_seat"]
            assert sd["seat_step"] == seat_steps[seat]
            seat_steps[seat] += 1
            assert check_observation(sd["observation"], seat, OBSERVATION_FLAGS) == []
            g = sd["group"]
            gid, sub, count = groups[seat]
            if sub + 1 < count:  # the group goes on: the same id, the next substep
                assert (g["group_id"], g["substep_index"], g["substep_count"]) == (
                    gid,
                    sub + 1,
                    count,
                )
            else:  # a new group, numbered after the seat's completed ones
                assert (g["substep_index"], g["group_id"]) == (0, gid + 1)
            groups[seat] = (g["group_id"], g["substep_index"], g["substep_count"])
            if g["substep_index"] == g["substep_count"] - 1:
                completed += 1
            cands = sd["candidates"]
            assert [c["candidate_id"] for c in cands] == list(range(len(cands)))
            assert len({canonical(c["semantic"]) for c in cands}) == len(cands)
            if sd["context"]["kind"] == "priority":
                assert cands[0]["semantic"] == {"kind": "pass"}
            records = _records(sd["observation"])
            for c in cands:
                kinds.add(c["semantic"]["kind"])
                assert c["semantic"]["kind"] in DECISION_KINDS
                for ref in _refs(c["semantic"]):
                    assert {k: records[ref["object_id"]][k] for k in REF} == ref
            _assert_no_leak(host, sd)
    assert {"pass", "cast_spell", "declare_attack", "declare_block", "choose_target"} <= kinds
    assert "natural" in outcomes


def _assert_no_leak(host: Host, sd: dict[str, Any]) -> None:
    """The same seat decision when the other seat's hand and both library orders change."""
    s = host.session
    real, pending = s.game, s.pending
    assert real is not None
    seat = real.current_player
    assert seat is not None
    try:
        s.game = swap_hidden(real, seat)
        s.pending = s._candidates(s.game, seat)
        priority = sd["context"]["kind"] == "priority"
        again = s._decision(s.game, seat, priority)["seat_decision"]
    finally:
        s.game, s.pending = real, pending
    assert canonical(again) == canonical(sd)


def _records(o: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = [r for p in o["players"] for z in ("battlefield", "graveyard", "exile") for r in p[z]]
    out += [r for p in o["players"] if p["hand"] is not None for r in p["hand"]]
    return {r["object_id"]: r for r in out + list(o["stack"])}


def _refs(semantic: dict[str, Any]) -> list[dict[str, Any]]:
    refs = []
    for key in ("source", "attacker", "blocker", "card"):
        if isinstance(semantic.get(key), dict):
            refs.append(semantic[key])
    for key in ("item", "target", "choice", "defender"):
        v = semantic.get(key)
        if isinstance(v, dict) and "object" in v:
            refs.append(v["object"])
    return refs


def test_a_game_reruns_exactly_from_its_secret_and_answers() -> None:
    first = [canonical(r) for _, r in _play("core", 3)]
    again = [canonical(r) for _, r in _play("core", 3)]
    assert first == again and len(first) > 20


def test_a_retransmission_gets_the_cached_answer_and_changes_nothing() -> None:
    host = Host("classic")
    catalog = _catalog(host)
    deck = {"catalog_id": catalog[0]["catalog_id"]}
    first = host.reset(0, (deck, deck))
    line = host.line(
        request_type="step",
        game_id=first["game_id"],
        expected_step=0,
        selection={
            "candidate_id": 0,
            "semantic_echo": first["seat_decision"]["candidates"][0]["semantic"],
        },
    )
    second = host.session.answer(line)
    assert second["response_type"] in ("decision", "terminal")
    assert host.session.answer(line) == second  # the same line: the cached response
    assert host.session.steps == 1  # and the game did not move
    # The same request id with another payload.
    changed = json.loads(line)
    changed["expected_step"] = 1
    err = host.session.answer(json.dumps(changed).encode())
    assert err["error"]["code"] == "request_id_reuse_mismatch"


def test_validate_deck_answers_deck_ok_or_the_deck_s_error() -> None:
    """Section 9.6: a catalog deck or a decklist of cards in the pool is `deck_ok`; a card
    we do not have is `unsupported_deck`, another format `unsupported_format`; no game
    starts, and the answer is cached like any other."""
    host = Host("classic")
    catalog = _catalog(host)
    rows = catalog[0]["decklist"]
    ok = host.send(request_type="validate_deck", format="classic", deck={"decklist": rows})
    assert ok == {
        "protocol": "spellbench/v2",
        "request_id": ok["request_id"],
        "response_type": "deck_ok",
    }
    by_id = {"catalog_id": catalog[1]["catalog_id"]}
    assert (
        host.send(request_type="validate_deck", format="classic", deck=by_id)["response_type"]
        == "deck_ok"
    )
    bad = [*rows, {"name": "No Such Card", "count": 1}]
    resp = host.send(request_type="validate_deck", format="classic", deck={"decklist": bad})
    assert _code(resp) == "unsupported_deck" and "No Such Card" in resp["error"]["message"]
    nope = {"catalog_id": "Nope"}
    assert _code(host.send(request_type="validate_deck", format="classic", deck=nope)) == (
        "unsupported_deck"
    )
    resp = host.send(request_type="validate_deck", format="core", deck={"decklist": rows})
    assert _code(resp) == "unsupported_format"
    both = {**by_id, "decklist": rows}
    resp = host.send(request_type="validate_deck", format="classic", deck=both)
    assert _code(resp) == "malformed_request"
    line = host.line(request_type="validate_deck", format="classic", deck=by_id)
    assert host.session.answer(line) == host.session.answer(line)
    assert host.session.game is None


def test_a_request_that_fails_parsing_is_never_cached() -> None:
    """Section 4.1: a request refused as malformed (here an unknown field, read strictly as
    4.2 asks) is not cached, so its id may come again with a valid payload; the valid
    reset and step it is corrected to are answered, and cached from then on."""
    host = Host("classic")
    deck = {"catalog_id": _catalog(host)[0]["catalog_id"]}
    # The reset line a host sends (captured), to send again under chosen ids.
    sent: list[bytes] = []
    real = host.session.answer
    host.session.answer = lambda line: (sent.append(line), real(line))[1]  # type: ignore[method-assign]
    valid = host.reset(0, (deck, deck))
    host.session.answer = real  # type: ignore[method-assign]
    assert valid["response_type"] == "decision"
    msg = json.loads(sent[0])

    fresh = Host("classic")
    bad = {**msg, "request_id": "nc-1", "x_unknown_field": 1}
    assert _code(fresh.session.answer(json.dumps(bad).encode())) == "malformed_request"
    first = fresh.session.answer(json.dumps({**msg, "request_id": "nc-1"}).encode())
    assert first["response_type"] == "decision"
    # Now cached: the same id with another payload is refused as a reuse.
    again = fresh.session.answer(json.dumps({**bad}).encode())
    assert _code(again) == "request_id_reuse_mismatch"
    # A step that fails parsing, then the same id with a valid step.
    c = first["seat_decision"]["candidates"][0]
    step = {
        "protocol": "spellbench/v2",
        "request_id": "nc-2",
        "request_type": "step",
        "game_id": first["game_id"],
        "expected_step": first["step"],
        "selection": {"candidate_id": c["candidate_id"], "semantic_echo": c["semantic"]},
    }
    wrong = {**step, "selection": {**step["selection"], "extra": True}}
    assert _code(fresh.session.answer(json.dumps(wrong).encode())) == "malformed_request"
    assert fresh.session.steps == 0
    moved = fresh.session.answer(json.dumps(step).encode())
    assert moved["response_type"] in ("decision", "terminal") and fresh.session.steps == 1


def _code(resp: dict[str, Any]) -> str:
    assert resp["response_type"] == "error", resp
    return str(resp["error"]["code"])


def test_every_malformed_request_is_answered_with_its_code() -> None:
    host = Host("core")
    catalog = _catalog(host)
    deck = {"catalog_id": catalog[0]["catalog_id"]}
    s = host.session
    line_codes = [
        (b'{"request_type": "hello", "request_type": "hello"}', "malformed_json"),
        (b'{"protocol": "spellbench/v2", "request_id": "x", "n": 1.5}', "malformed_json"),
        (b"[1, 2]", "malformed_request"),
        (b"not json", "malformed_json"),
        (b'{"protocol": "spellbench/v2", "request_type": "hello"}', "malformed_request"),
    ]
    for line, code in line_codes:
        resp = s.answer(line)
        assert _code(resp) == code and resp["request_id"] == ""
    assert _code(host.send(protocol="spellbench/v1", request_type="hello")) == "protocol_mismatch"
    assert _code(host.send(request_type="hello", protocol_minor=0, x=1)) == "malformed_request"
    assert _code(host.send(request_type="dance")) == "malformed_request"
    assert _code(host.send(request_type="validate_deck")) == "malformed_request"
    assert _code(host.send(request_type="probe_resample")) == "unsupported_request"
    step = {"request_type": "step", "game_id": "g-x", "expected_step": 0}
    echo = {"candidate_id": 0, "semantic_echo": {"kind": "pass"}}
    assert _code(host.send(**step, selection=echo)) == "step_before_reset"
    assert _code(host.reset(0, (deck, deck), format="classic")) == "unsupported_format"
    assert _code(host.reset(0, ({"catalog_id": "Nope"}, deck))) == "unsupported_deck"
    bad = {
        "decklist": [{"name": "Lightning Bolt", "count": 4}, {"name": "No Such Card", "count": 1}]
    }
    resp = host.reset(0, (bad, deck))
    assert _code(resp) == "unsupported_deck" and "No Such Card" in resp["error"]["message"]
    assert _code(host.reset(0, ({"deck_id": "x"}, deck))) == "malformed_request"
    assert _code(host.reset(0, (deck, deck), rules=_rules(probe=True))) == "unsupported_rule"
    rules = _rules(starting_player="toss_winner_chooses")
    assert _code(host.reset(0, (deck, deck), rules=rules)) == "unsupported_rule"
    # Section 12.2: with toss_winner_chooses the starting seat is null, still a rule this
    # engine does not support (9.2), not a malformed request.
    rules = _rules(starting_player="toss_winner_chooses", starting_seat=None)
    assert _code(host.reset(0, (deck, deck), rules=rules)) == "unsupported_rule"
    assert (
        _code(host.reset(0, (deck, deck), rules=_rules(starting_seat=None))) == "malformed_request"
    )
    assert _code(host.reset(0, (deck, deck), game_secret="AB" * 32)) == "malformed_request"
    first = host.reset(0, (deck, deck))
    assert first["response_type"] == "decision"
    assert _code(host.reset(1, (deck, deck))) == "game_already_active"
    assert _code(host.step(first, 0, game_id="g-other")) == "game_id_mismatch"
    assert _code(host.step(first, 0, expected_step=5)) == "expected_step_mismatch"
    n = len(first["seat_decision"]["candidates"])
    out_of_range = {"candidate_id": n, "semantic_echo": {"kind": "pass"}}
    assert _code(host.step(first, 0, selection=out_of_range)) == "candidate_id_out_of_range"
    wrong_echo = {"candidate_id": 0, "semantic_echo": {"kind": "pass", "x": 1}}
    assert _code(host.step(first, 0, selection=wrong_echo)) == "semantic_echo_mismatch"
    assert s.steps == 0  # none of these moved the game


def test_the_caps_end_a_game_truncated_and_a_game_id_is_used_once() -> None:
    host = Host("classic")
    catalog = _catalog(host)
    deck = {"catalog_id": catalog[1]["catalog_id"]}
    resp = host.reset(0, (deck, deck), max_steps=3)
    r = random.Random(0)
    while resp["response_type"] == "decision":
        resp = host.step(resp, r.randrange(len(resp["seat_decision"]["candidates"])))
    assert resp["response_type"] == "terminal" and resp["step_count"] == 3
    assert (resp["outcome"], resp["classification"], resp["winner"]) == (
        "truncated",
        "truncated",
        None,
    )
    step = {"request_type": "step", "game_id": resp["game_id"], "expected_step": 3}
    echo = {"candidate_id": 0, "semantic_echo": {"kind": "pass"}}
    assert _code(host.send(**step, selection=echo)) == "game_already_terminal"
    assert _code(host.reset(0, (deck, deck))) == "malformed_request"  # its game_id again
    assert host.reset(1, (deck, deck))["response_type"] == "decision"


def test_the_stream_answers_a_line_over_the_limit_and_goes_on() -> None:
    hello = (
        b'{"protocol":"spellbench/v2","request_id":"h-1","request_type":"hello","protocol_minor":0}'
    )
    stdin = io.BytesIO(b"x" * (MAX_LINE + 10) + b"\n" + hello + b"\n")
    stdout = io.BytesIO()
    serve("core", stdin, stdout)
    lines = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert [x["response_type"] for x in lines] == ["error", "hello_ok"]
    assert lines[0]["error"]["code"] == "malformed_json"


def test_the_installed_command_serves_a_game() -> None:
    host = Host("classic")
    catalog = _catalog(host)
    deck = {"catalog_id": catalog[0]["catalog_id"]}
    lines = [
        host.line(request_type="hello", protocol_minor=0),
        json.dumps(
            {
                "protocol": "spellbench/v2",
                "request_id": "h-99",
                "request_type": "reset",
                "game_id": "g-1",
                "format": "classic",
                "seats": [
                    {"seat": "p0", "deck": {"deck_id": "x", **deck}},
                    {"seat": "p1", "deck": {"deck_id": "x", **deck}},
                ],
                "rules": _rules(),
                "game_secret": "ab" * 32,
                "max_decisions": 100,
                "max_steps": 100,
            }
        ).encode(),
    ]
    r = subprocess.run(
        [MTG_ENV, "spellbench", "engine", "--format", "classic"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["response_type"] for x in out] == ["hello_ok", "decision"]
    bad = subprocess.run(
        [MTG_ENV, "spellbench", "engine", "--format", "pocket"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "pocket" in bad.stderr and "Traceback" not in bad.stderr


def test_scry_and_surveil_are_one_arrangement_the_engine_carries_out() -> None:
    """An arrangement of n looked-at cards is one group of 2n - 1 decisions: each card's
    destination (top card first), then the order within each destination, the last pick
    implied (Section 7.5). The cards are in `known` under ids fresh for this look, and
    afterwards the library and graveyard are as arranged: the top cards in the picked
    order from the top, the bottom ones in the picked order from the top of the bottom
    block, the graveyard in the order picked."""
    # Blue and black cards that scry or surveil 2 or 3 as they enter or resolve.
    rows = [
        {"name": "Island", "count": 10},
        {"name": "Swamp", "count": 8},
        {"name": "Augury Owl", "count": 6},
        {"name": "Omenspeaker", "count": 6},
        {"name": "Dimir Informant", "count": 6},
        {"name": "Mephitic Vapors", "count": 4},
    ]
    seen = 0
    for index in range(20):
        r = random.Random(1000 + index)
        host = Host("core")
        resp = host.reset(index, ({"decklist": rows}, {"decklist": rows}))
        arrangement: dict[str, Any] | None = None
        while resp["response_type"] == "decision":
            sd = resp["seat_decision"]
            kind = sd["candidates"][0]["semantic"]["kind"]
            if (
                kind in ("arrange_card", "order_pick")
                and sd["candidates"][0]["semantic"].get("purpose") != "mulligan_bottom"
            ):
                s = host.session
                assert s.group is not None and s.game is not None
                if arrangement is None:
                    look = s._look_id(s.game)
                    seat = s.game.current_player
                    assert seat is not None
                    cards = list(s.group.creatures)
                    by_id = {
                        s.observer.look_ref(s.game, seat, c, look)["object_id"]: c for c in cards
                    }
                    pile = s.game.rules.pile(s.game.owner[cards[0]])
                    arrangement = {"by_id": by_id, "dest": {}, "order": [], "pile": pile}
                    assert sd["group"]["substep_count"] == 2 * len(cards) - 1
                known = {k["object_id"] for k in sd["observation"]["known"]}
                assert known == set(arrangement["by_id"])
                pick = r.randrange(len(sd["candidates"]))
                sem = sd["candidates"][pick]["semantic"]
                if kind == "arrange_card":
                    arrangement["dest"][arrangement["by_id"][sem["card"]["object_id"]]] = sem[
                        "destination"
                    ]
                else:
                    assert {
                        c["semantic"]["item"]["object"]["object_id"] for c in sd["candidates"]
                    } <= known
                    arrangement["order"].append(
                        arrangement["by_id"][sem["item"]["object"]["object_id"]]
                    )
                last = sd["group"]["substep_index"] == sd["group"]["substep_count"] - 1
                resp = host.step(resp, pick)
                if last:
                    _check_arranged(host, arrangement)
                    seen += 1
                    arrangement = None
                continue
            resp = host.step(resp, r.randrange(len(sd["candidates"])))
        if seen >= 6:
            break
    assert seen >= 6


def _check_arranged(host: Host, arr: dict[str, Any]) -> None:
    g = host.session.game
    assert g is not None
    cards = list(arr["dest"])
    order = arr["order"] + [c for c in cards if c not in arr["order"]]
    top = [c for c in order if arr["dest"][c] == "top"]
    bottom = [c for c in order if arr["dest"][c] == "bottom"]
    graveyard = [c for c in order if arr["dest"][c] == "graveyard"]
    library = g.library[arr["pile"]]
    if top:
        assert library[::-1][: len(top)] == top
    if bottom:
        assert library[: len(bottom)] == bottom[::-1]
    if graveyard:  # in the order picked (the resolved spell may follow them)
        pile = g.graveyard[arr["pile"]]
        assert sorted(graveyard, key=pile.index) == graveyard


def test_the_noninterference_probe_rebuilds_the_same_decision_in_redealt_worlds() -> None:
    """`probe_resample` (Section 9.7, reserved in v2.0): only an engine started with the
    probe answers it, only in a game reset with `rules.probe: true`, and every re-dealt
    world gives the seat decision the real game gives, byte for byte; the real game does
    not move."""
    plain = Host("classic")
    deck = {"catalog_id": _catalog(plain)[0]["catalog_id"]}
    first = plain.reset(0, (deck, deck))
    probe = {"request_type": "probe_resample", "game_id": first["game_id"], "samples": 2}
    assert _code(plain.send(**probe)) == "unsupported_request"
    assert _code(plain.reset(1, (deck, deck), rules=_rules(probe=True))) in (
        "unsupported_rule",
        "game_already_active",
    )
    host = Host("classic")
    host.session = EngineSession("classic", probe=True)
    assert host.hello()["fairness"] == {"noninterference_probe": True}
    resp = host.reset(0, (deck, deck))
    assert _code(host.send(**{**probe, "game_id": resp["game_id"]})) == "probe_refused"
    host = Host("classic")
    host.session = EngineSession("classic", probe=True)
    resp = host.reset(0, (deck, deck), rules=_rules(probe=True))
    r = random.Random(0)
    checked = 0
    while resp["response_type"] == "decision" and checked < 40:
        before = host.session.game.state_hash() if host.session.game else None
        worlds = host.send(**{**probe, "game_id": resp["game_id"], "samples": 3})
        assert worlds["response_type"] == "probe_result" and len(worlds["worlds"]) == 3
        for world in worlds["worlds"]:
            assert canonical(world) == canonical(resp["seat_decision"])
        assert host.session.game is not None and host.session.game.state_hash() == before
        checked += 1
        resp = host.step(resp, r.randrange(len(resp["seat_decision"]["candidates"])))
    assert checked == 40


def test_an_internal_error_halts_the_game_instead_of_ending_the_process() -> None:
    host = Host("classic")
    deck = {"catalog_id": _catalog(host)[0]["catalog_id"]}
    first = host.reset(0, (deck, deck))

    def broken(answer: Any) -> None:
        raise RuntimeError("a rules bug")

    host.session._answer = broken  # type: ignore[method-assign]
    resp = host.step(first, 0)
    assert resp["response_type"] == "terminal"
    assert (resp["classification"], resp["reason"]) == (
        "halted",
        "engine_contract_failure: RuntimeError",
    )
    assert _code(host.step(first, 0, expected_step=1)) == "game_already_terminal"


def test_counter_unless_pays_is_an_optional_cost_asked_of_the_payer() -> None:
    """Quench and Mana Leak ("counter target spell unless its controller pays {N}", CR
    118.12): the controller of the targeted spell is asked `optional_cost` with cost
    `unless_payment`, the counterspell as the source; paying pays and the spell is not
    countered, declining counters it (Section 7.5)."""
    counters = [{"name": "Island", "count": 16}, {"name": "Quench", "count": 12}]
    counters.append({"name": "Mana Leak", "count": 12})
    burn = [{"name": "Mountain", "count": 24}, {"name": "Lightning Bolt", "count": 16}]
    seen: set[bool] = set()
    for index in range(40):
        r = random.Random(2000 + index)
        host = Host("core")
        resp = host.reset(index, ({"decklist": counters}, {"decklist": burn}))
        while resp["response_type"] == "decision" and len(seen) < 2:
            sd = resp["seat_decision"]
            sems = [c["semantic"] for c in sd["candidates"]]
            if sems[0]["kind"] != "optional_cost":
                resp = host.step(resp, r.randrange(len(sems)))
                continue
            g = host.session.game
            assert g is not None and g.res is not None
            assert [s["pay"] for s in sems] == [True, False]
            assert {s["cost"] for s in sems} == {"unless_payment"}
            assert sems[0]["source"]["card_name"] in ("Quench", "Mana Leak")
            assert sems[0]["source"]["zone"] == "stack"
            bolt = next(s for s in g.stack if s is not g.res.item)
            assert sd["acting_seat"] == f"p{bolt.controller}" == "p1"
            before = len(g._events)
            pick = 0 if len(seen) == 0 else 1
            resp = host.step(resp, pick)
            # The engine's own log of what the answer did (the game goes on past it).
            done = [e[0] for e in g._events[before:] if e[0] in ("paid", "countered")]
            assert done[:1] == (["paid"] if pick == 0 else ["countered"])
            if pick == 1:
                assert g.zone[bolt.cid] == GRAVEYARD
            seen.add(pick == 0)
        if len(seen) == 2:
            break
    assert seen == {True, False}


def test_enter_as_a_copy_and_a_text_change_are_posed_to_the_seat() -> None:
    """Clone (CR 707.5, an optional replacement effect, CR 614.1c): `choose_boolean`,
    purpose `optional_replacement`, then which creature as `select_object` (purpose
    `other`), Clone's stack entry the source of both. Mind Bend (CR 612): which word becomes
    which as `choose_option`, purpose `effect_option`, one candidate per option with its
    label. Each answer does what it says in the engine; no game halts on them."""
    copier = [{"name": "Island", "count": 20}, {"name": "Clone", "count": 10}]
    copier.append({"name": "Mind Bend", "count": 10})
    bears = [{"name": "Forest", "count": 20}, {"name": "Grizzly Bears", "count": 20}]
    seen: set[str] = set()
    for index in range(60):
        r = random.Random(3000 + index)
        host = Host("classic")
        resp = host.reset(index, ({"decklist": copier}, {"decklist": bears}))
        while resp["response_type"] == "decision" and len(seen) < 3:
            sd = resp["seat_decision"]
            sems = [c["semantic"] for c in sd["candidates"]]
            kind, purpose = sems[0]["kind"], sems[0].get("purpose")
            g = host.session.game
            assert g is not None
            if kind == "choose_boolean" and purpose == "optional_replacement":
                assert [s["value"] for s in sems] == [True, False]
                assert sems[0]["source"]["card_name"] == "Clone"
                assert sems[0]["source"]["zone"] == "stack"
                seen.add("copy?")
                resp = host.step(resp, 0)  # enter as a copy
                continue
            if kind == "select_object" and purpose == "other":
                assert {s["source"]["card_name"] for s in sems} == {"Clone"}
                assert all(s["minimum"] == s["maximum"] == 1 for s in sems)
                names = [s["choice"]["object"]["card_name"] for s in sems]
                assert set(names) <= {"Grizzly Bears", "Clone"} and "Grizzly Bears" in names
                clone = g.res.item.cid if g.res is not None else -1
                pick = names.index("Grizzly Bears")
                resp = host.step(resp, pick)
                assert g.chars(clone).name == "Grizzly Bears"  # the copy entered
                seen.add("which")
                continue
            if kind == "choose_option":
                assert {s["purpose"] for s in sems} == {"effect_option"}
                assert [s["option_index"] for s in sems] == list(range(len(sems)))
                assert {s["option_count"] for s in sems} == {len(sems)}
                assert sems[0]["source"]["card_name"] == "Mind Bend"
                assert all(" -> " in s["option_label"] for s in sems)
                before = len(g.effects)
                resp = host.step(resp, r.randrange(len(sems)))
                # The continuous effect that changes the text (CR 612.1), from Mind Bend.
                assert any("Mind Bend: text change" in e.text for e in g.effects[before:])
                seen.add("text")
                continue
            resp = host.step(resp, r.randrange(len(sems)))
        if resp["response_type"] == "terminal":
            assert resp["classification"] != "halted", resp["reason"]
        if len(seen) == 3:
            break
    assert seen == {"copy?", "which", "text"}


def test_an_enchantment_returned_on_resolution_is_a_select_object_pick() -> None:
    """Natural Emergence ("return a red or green enchantment you control to its owner's
    hand", chosen on resolution, not targeted): with two to choose from, `select_object`
    with purpose `return_to_hand`, the trigger's stack entry the source; the pick goes to
    its owner's hand."""
    deck = [{"name": "Forest", "count": 12}, {"name": "Mountain", "count": 12}]
    deck += [{"name": "Squirrel Nest", "count": 8}, {"name": "Natural Emergence", "count": 8}]
    for index in range(40):
        r = random.Random(4000 + index)
        host = Host("classic")
        resp = host.reset(index, ({"decklist": deck}, {"decklist": deck}))
        while resp["response_type"] == "decision":
            sd = resp["seat_decision"]
            sems = [c["semantic"] for c in sd["candidates"]]
            if sems[0].get("purpose") != "return_to_hand":
                # Cast what can be cast (a land first), else pick at random.
                kinds = [s["kind"] for s in sems]
                eager = [i for i, k in enumerate(kinds) if k in ("play_land", "cast_spell")]
                resp = host.step(resp, eager[0] if eager else r.randrange(len(sems)))
                continue
            g = host.session.game
            assert g is not None
            assert {s["kind"] for s in sems} == {"select_object"} and len(sems) >= 2
            assert {s["source"]["card_name"] for s in sems} == {"Natural Emergence"}
            assert {s["source"]["zone"] for s in sems} == {"stack"}
            assert all(s["minimum"] == s["maximum"] == 1 for s in sems)
            assert {s["choice"]["object"]["zone"] for s in sems} == {"battlefield"}
            options = list(g.legal_actions())
            pick = r.randrange(len(sems))
            chosen = options[pick].obj
            resp = host.step(resp, pick)
            assert g.zone[chosen] == HAND
            return
        assert resp["classification"] != "halted", resp["reason"]
    raise AssertionError("no game reached the choice")


def test_each_seats_hidden_zones_come_from_streams_of_their_own() -> None:
    """Section 11.6: no single random stream feeds both seats' hidden zones. With the same
    game secret, p1's library order (its opening hand included) is the same whatever p0's
    deck is, even one card longer (whose shuffle would take one more draw from a shared
    stream)."""
    catalog = _catalog(Host("classic"))
    deck = catalog[0]["decklist"]
    longer = [dict(row) for row in deck]
    longer[0]["count"] += 1

    def p1_cards(p0_deck: list[dict[str, Any]]) -> list[str]:
        host = Host("classic")
        other = {"catalog_id": catalog[1]["catalog_id"]}
        resp = host.reset(0, ({"decklist": p0_deck}, other), rules=_rules(mulligan="none"))
        assert resp["response_type"] == "decision"
        g = host.session.game
        assert g is not None
        return [g.cdef[c].name for c in g.hand[1] + g.library[1]]

    assert sum(row["count"] for row in longer) == 41
    assert p1_cards(deck) == p1_cards(longer)


def test_a_seat_orders_its_own_triggers_and_the_engine_puts_them_in_that_order() -> None:
    """CR 603.3b: a player with several triggers to put on the stack orders them. The role
    poses one fixed `order_pick` group (purpose `triggers`, position 0 first on the stack,
    the last position implied, Section 7.5), each item the trigger's source, ability index,
    instance and label; the engine then puts them on in the chosen order, the last one
    chosen on top."""
    from mtg_env.engine.objects import TRIGGER

    host = Host("classic")
    catalog = {d["catalog_id"]: d for d in _catalog(host)}
    merfolk = {"catalog_id": catalog["Merfolk Auras"]["catalog_id"]}
    for index in range(60):
        r = random.Random(5000 + index)
        host = Host("classic")
        resp = host.reset(index, (merfolk, merfolk))
        chosen: list[Any] = []  # the seat's triggers, in the order chosen
        while resp["response_type"] == "decision":
            sd = resp["seat_decision"]
            sems = [c["semantic"] for c in sd["candidates"]]
            g = host.session.game
            assert g is not None
            if sems[0]["kind"] == "order_pick" and sems[0]["purpose"] == "triggers":
                count = sems[0]["count"]
                assert sd["group"]["substep_count"] == count - 1  # the last is implied
                assert sd["group"]["substep_index"] == sems[0]["position"] == len(chosen)
                assert len(sems) == count - len(chosen) and {s["source"] for s in sems} == {None}
                for s in sems:
                    item = s["item"]["trigger"]
                    assert item["label"].startswith(item["source_name"] + ":")
                    assert item["ability_index"] is None or item["ability_index"] >= 0
                    # The event's objects start with the source for events about it.
                    assert item["event_objects"][:1] in ([], [item["source"]])
                pick = len(sems) - 1  # not the engine's own order
                waiting = [t for t in g.triggers if t.controller == int(sd["acting_seat"][1])]
                left = [t for t in waiting if all(t is not x for x in chosen)]
                chosen.append(left[pick])
                resp = host.step(resp, pick)
                if len(chosen) == count - 1:
                    chosen += [t for t in waiting if all(t is not x for x in chosen)]
                    # Once all are on (their targets chosen), the stack holds them in order.
                    while resp["response_type"] == "decision" and g.triggers:
                        resp = host.step(resp, 0)
                    on = [(it.cid, it.ab_index) for it in g.stack if it.kind == TRIGGER]
                    order = [(t.cid, t.ab_index) for t in chosen]
                    assert on[-len(order) :] == order
                    return
                continue
            resp = host.step(resp, r.randrange(len(sems)))
    raise AssertionError("no game reached a trigger order")
