"""The host's live validation of an observation (the spec's Section 11.3): our observations
pass it, and each kind of fault is reported under its rule."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from sample_games import SECRET, states

from mtg_env.spellbench.observation import OBSERVATION_FLAGS, Observer
from mtg_env.spellbench.validate import check_observation


def _samples() -> list[tuple[dict[str, Any], str]]:
    obs = Observer(SECRET)
    return [
        (obs.observe(g, v), f"p{v}")
        for fmt in ("core", "classic")
        for g in states(fmt, games=2, every=11)
        for v in (0, 1)
    ]


SAMPLES = _samples()


def test_our_observations_pass() -> None:
    assert len(SAMPLES) > 40
    for o, seat in SAMPLES:
        assert check_observation(o, seat, OBSERVATION_FLAGS) == []


def _first(pred: Callable[[dict[str, Any]], bool]) -> tuple[dict[str, Any], str]:
    for o, seat in SAMPLES:
        if pred(o):
            return copy.deepcopy(o), seat
    raise AssertionError("no sample fits")


def _me(o: dict[str, Any]) -> dict[str, Any]:
    return o["players"][int(o["viewer"][1])]


def _them(o: dict[str, Any]) -> dict[str, Any]:
    return o["players"][1 - int(o["viewer"][1])]


def _perms(o: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for p in o["players"] for r in p["battlefield"]]


def _blocked(o: dict[str, Any]) -> bool:
    return any(r["permanent"]["blocked_attackers"] for r in _perms(o))


def _targets(o: dict[str, Any]) -> bool:
    return any(t and "object" in t for s in o["stack"] for t in s["targets"])


FAULTS: list[tuple[str, Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], None]]] = [
    ("V1", lambda o: True, lambda o: o.pop("turn")),
    ("V1", lambda o: True, lambda o: o.update(extra=1)),
    ("V1", lambda o: True, lambda o: o.update(phase_step="second_main")),
    ("V1", lambda o: True, lambda o: _me(o).update(life=2**31)),
    ("V1", lambda o: True, lambda o: _me(o)["mana_pool"].pop("C")),
    ("V1", lambda o: True, lambda o: o["players"].reverse()),
    (
        "V1",
        lambda o: bool(_perms(o)),
        lambda o: _perms(o)[0]["characteristics"].update(colors=["red", "white"]),
    ),
    ("V1", lambda o: bool(_perms(o)), lambda o: _perms(o)[0].update(permanent=None)),
    (
        "V1",
        lambda o: bool(_perms(o)),
        lambda o: _perms(o)[0]["permanent"].update(tapped="yes"),
    ),
    ("V2", lambda o: True, lambda o: o.update(viewer="p1" if o["viewer"] == "p0" else "p0")),
    (
        "V4",
        _blocked,
        lambda o: next(
            r["permanent"]["blocked_attackers"][0]
            for r in _perms(o)
            if r["permanent"]["blocked_attackers"]
        ).update(card_name="Not This"),
    ),  # fmt: skip
    (
        "V4",
        _targets,
        lambda o: next(
            t["object"] for s in o["stack"] for t in s["targets"] if t and "object" in t
        ).update(object_id="o-0000000000000000"),
    ),  # fmt: skip
    (
        "V4",
        lambda o: len(_perms(o)) > 1,
        lambda o: _perms(o)[1].update(object_id=_perms(o)[0]["object_id"]),
    ),  # fmt: skip
    ("V5", lambda o: True, lambda o: _them(o).update(hand=[])),
    ("V5", lambda o: bool(_me(o)["hand"]), lambda o: _me(o)["hand"].pop()),
    ("V5", lambda o: bool(_me(o)["hand"]), lambda o: _me(o)["hand"][0].update(zone="library")),
    (
        "V5",
        lambda o: True,
        lambda o: o["known"].append(
            {
                "owner_seat": o["viewer"],
                "zone": "hand",
                "card_name": "Island",
                "object_id": None,
                "position_from_top": None,
                "position_from_bottom": None,
                "how": "revealed",
            }
        ),
    ),  # fmt: skip
    (
        "V6",
        lambda o: bool(_them(o)["battlefield"]),
        lambda o: _them(o)["battlefield"][0].update(face_down=True),
    ),  # fmt: skip
    ("V8", lambda o: True, lambda o: _me(o).update(poison=0)),
    ("V8", lambda o: True, lambda o: o.update(passed_seats=[])),
    ("V8", lambda o: bool(_perms(o)), lambda o: _perms(o)[0]["permanent"].update(statuses=[])),
]


@pytest.mark.parametrize(("rule", "fits", "fault"), FAULTS)
def test_each_fault_is_reported_under_its_rule(
    rule: str,
    fits: Callable[[dict[str, Any]], bool],
    fault: Callable[[dict[str, Any]], None],
) -> None:
    o, seat = _first(fits)
    fault(o)
    got = check_observation(o, seat, OBSERVATION_FLAGS)
    assert got and all(v.startswith(rule) for v in got), got


def test_a_flagged_field_is_allowed_when_its_flag_is_on() -> None:
    o, seat = copy.deepcopy(SAMPLES[0][0]), SAMPLES[0][1]
    _me(o)["poison"] = 0
    assert check_observation(o, seat, {**OBSERVATION_FLAGS, "poison": True}) == []
