"""The `spellbench/v2` observation (the spec's Section 6) built from our games: its shape,
the references it makes to its own records, per-viewer ids that change with the zone, and
the information-leak check (what a seat cannot see changes nothing it receives)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sample_games import SECRET, states

from mtg_env.spellbench import ids
from mtg_env.spellbench.observation import OBSERVATION_FLAGS, Observer, counter_name, normalize
from mtg_env.spellbench.wire import canonical, parse_line

# The information-leak check of the observation tests (tests/env/hidden.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "env"))
from hidden import swap_hidden  # noqa: E402

PLAYER_KEYS = {
    "seat", "life", "poison", "counters", "mana_pool", "lands_played_this_turn",
    "mulligans_taken", "designations", "progress", "hand_count", "library_count", "hand",
    "battlefield", "graveyard", "exile", "command",
}  # fmt: skip
RECORD_KEYS = {
    "object_id", "card_name", "owner_seat", "controller_seat", "zone", "full_name",
    "face_down", "token", "copy", "characteristics", "permanent", "exiled_by",
}  # fmt: skip
STACK_KEYS = {
    "object_id", "card_name", "owner_seat", "controller_seat", "zone", "stack_kind",
    "source", "face_down", "copy", "characteristics", "targets", "divided", "modes",
    "x_value", "text",
}  # fmt: skip
REF_KEYS = ("object_id", "card_name", "owner_seat", "controller_seat", "zone")


def _records(obs: dict[str, Any]) -> list[dict[str, Any]]:
    out = [r for p in obs["players"] for z in ("battlefield", "graveyard", "exile") for r in p[z]]
    out += [r for p in obs["players"] if p["hand"] is not None for r in p["hand"]]
    return out + list(obs["stack"])


def _refs(obs: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every object reference the observation makes to another of its objects."""
    for p in obs["players"]:
        for r in p["battlefield"]:
            perm = r["permanent"]
            if perm["attached_to"] and "object" in perm["attached_to"]:
                yield perm["attached_to"]["object"]
            yield from perm["blocked_attackers"]
    for s in obs["stack"]:
        if s["source"] is not None:
            yield s["source"]
        for t in s["targets"]:
            if t is not None and "object" in t:
                yield t["object"]


@pytest.mark.parametrize("fmt", ["core", "classic"])
def test_the_observation_has_the_specs_shape_and_its_references_match(fmt: str) -> None:
    obs = Observer(SECRET)
    seen_stack = seen_refs = 0
    for g in states(fmt):
        for viewer in (0, 1):
            o = obs.observe(g, viewer)
            assert parse_line(canonical(o)) == o  # plain JSON within the wire's rules
            assert o["viewer"] == f"p{viewer}" and len(o["players"]) == 2
            assert o["known"] == [] and o["pending_triggers"] is None
            for s, p in enumerate(o["players"]):
                assert set(p) == PLAYER_KEYS and p["seat"] == f"p{s}"
                assert set(p["mana_pool"]) == set("WUBRGC")
                if s == viewer:
                    assert len(p["hand"]) == p["hand_count"]
                else:
                    assert p["hand"] is None
            records = _records(o)
            ids_ = [r["object_id"] for r in records]
            assert len(ids_) == len(set(ids_))  # unique within the observation
            by_id = {r["object_id"]: r for r in records}
            for r in records:
                assert r["zone"] != "library"
                if "stack_kind" in r:
                    assert set(r) == STACK_KEYS and r["zone"] == "stack"
                else:
                    assert set(r) == RECORD_KEYS
                    assert (r["permanent"] is not None) == (r["zone"] == "battlefield")
                ch = r["characteristics"]
                if ch is not None:
                    assert ch["keywords"] is not None  # the keywords flag is on
                    assert ch["colors"] == [
                        c for c in ("white", "blue", "black", "red", "green") if c in ch["colors"]
                    ]
                    if "creature" not in ch["types"]:
                        assert ch["power"] is None and ch["toughness"] is None
            for ref in _refs(o):
                seen_refs += 1
                assert {k: by_id[ref["object_id"]][k] for k in REF_KEYS} == ref
            seen_stack += len(o["stack"])
    assert seen_stack and seen_refs  # the sample met spells, abilities and references


@pytest.mark.parametrize("fmt", ["core", "classic"])
def test_what_a_seat_cannot_see_changes_nothing_it_receives(fmt: str) -> None:
    """The information-leak check: the other seat's hand cards and both library orders
    swapped or reversed, the observation is the same, byte for byte."""
    obs = Observer(SECRET)
    checked = 0
    for g in states(fmt, every=5):
        for viewer in (0, 1):
            h = swap_hidden(g, viewer)
            assert canonical(obs.observe(g, viewer)) == canonical(obs.observe(h, viewer))
            checked += 1
    assert checked > 50


def test_ids_are_per_viewer_per_game_and_new_on_a_zone_change() -> None:
    g = next(iter(states("core", games=1, every=40)))
    a, b = Observer(SECRET), Observer(ids.game_secret(bytes(range(32)), 1))
    card = g.hand[0][0]
    assert a.ref(g, 0, card)["object_id"] != a.ref(g, 1, card)["object_id"]
    assert a.ref(g, 0, card)["object_id"] != b.ref(g, 0, card)["object_id"]
    before = a.ref(g, 0, card)["object_id"]
    h = g.clone()
    h._move(card, 3)  # to the graveyard: a new object (CR 400.7)
    assert a.ref(h, 0, card)["object_id"] != before
    assert a.ref(g, 0, card)["object_id"] == before  # the same incarnation, the same id


def test_names_and_counters_are_normalized() -> None:
    assert normalize("Urza's") == "urzas" and normalize("Time Lord") == "time_lord"
    assert normalize("first strike") == "first_strike" and normalize("Half-Elf") == "half_elf"
    assert counter_name("+1/+1") == "p1p1" and counter_name("-1/-1") == "m1m1"
    assert counter_name("-0/-1") == "m0m1" and counter_name("Charge") == "charge"
    assert OBSERVATION_FLAGS["keywords"] and not OBSERVATION_FLAGS["known_cards"]
    assert len(OBSERVATION_FLAGS) == 13
