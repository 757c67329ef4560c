"""The identifiers, secrets and digests of `spellbench/v2` against the test vectors of the
spec's Section 16 (run secret: the bytes 0x00 to 0x1f)."""

from __future__ import annotations

import hashlib

from mtg_env.spellbench import ids
from mtg_env.spellbench.wire import canonical

RUN = bytes(range(32))
BURN = "sha256:0df0a001e3c4b74b1061b21e319a645f32fbe3173120e432864e14d6d6f2f5d2"

# The `reset` example of the spec's Section 9.2 (game 0 of the test-vector run).
RESET = {
    "request_type": "reset",
    "protocol": "spellbench/v2",
    "request_id": "h-2",
    "game_id": "g-f67d7fe78c792984",
    "format": "pauper-bo1",
    "seats": [
        {
            "seat": "p0",
            "deck": {
                "deck_id": BURN,
                "catalog_id": "Burn",
            },
        },
        {
            "seat": "p1",
            "deck": {
                "deck_id": BURN,
                "catalog_id": "Burn",
            },
        },
    ],
    "rules": {
        "opponent_decklist": "visible",
        "mulligan": "none",
        "starting_player": "host_assigned",
        "starting_seat": "p0",
        "card_name_domain": {
            "domain_id": "sha256:74f7f4b39eecbed1c039cf4b229fa533069d2cdd8caf3bb6380b832eb40fb697",
            "names": ["Lightning Bolt", "Mountain"],
        },
        "extensions": [],
        "probe": False,
    },
    "game_secret": "7648831b4ae4148770e13149d5ebbe1c4991168413d4b38e49292cfc5538980e",
    "max_decisions": 10000,
    "max_steps": 100000,
}


def test_run_commitment_game_secrets_and_ids() -> None:
    assert ids.commitment(RUN) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert ids.game_secret(RUN, 0).hex() == (
        "7648831b4ae4148770e13149d5ebbe1c4991168413d4b38e49292cfc5538980e"
    )
    assert ids.game_secret(RUN, 1).hex() == (
        "952ea875cce08bf7706f87a89ae6a4e318a1bc4b46d6b506f8bb8505c518238e"
    )
    assert (ids.game_id(RUN, 0), ids.game_id(RUN, 1)) == (
        "g-f67d7fe78c792984",
        "g-bb341404cf686511",
    )


def test_agent_seeds() -> None:
    got = [ids.agent_seed(RUN, i, s) for i in (0, 1) for s in ("p0", "p1")]
    assert got == [8103969398531465, 1382627979884484, 4616060983342951, 7705961899067306]


def test_object_ids_are_per_viewer_and_fresh_per_look() -> None:
    key = ids.id_key(ids.game_secret(RUN, 0))
    assert key.hex() == "842e5229d41477f389ae25e2b8196afb5bfa8c6bd9b95d7bd3703031c88e22e6"
    assert ids.object_id(key, "p0", "card-17:z2") == "o-0a3647243d16bf78"
    assert ids.object_id(key, "p1", "card-17:z2") == "o-e5e4b7ed2a0730e4"
    assert ids.object_id(key, "p0", "card-17:z2", look=0) == "o-794a5cb152c9620f"
    assert ids.object_id(key, "p0", "card-17:z2", look=1) == "o-e18a35822cc60e1c"


def test_stream_seed() -> None:
    seed = ids.stream_seed(ids.game_secret(RUN, 0), "p1", "library_shuffle", 0)
    assert seed[:8].hex() == "8a28fd4db75719b1"


def test_deck_and_domain_ids() -> None:
    deck = [{"count": 4, "name": "Lightning Bolt"}, {"count": 18, "name": "Mountain"}]
    want = BURN
    assert ids.deck_id(deck) == want
    # Row order, key order and a name split over two rows do not change the id.
    assert ids.deck_id([{"name": "Mountain", "count": 18}, {"name": "Lightning Bolt", "count": 4}])
    assert (
        ids.deck_id(
            [
                {"name": "Mountain", "count": 10},
                {"name": "Lightning Bolt", "count": 4},
                {"name": "Mountain", "count": 8},
            ]
        )
        == want
    )
    assert ids.deck_id([{"count": 3, "name": "Lightning Bolt"}, deck[1]]) != want
    assert ids.domain_id(["Mountain", "Lightning Bolt"]) == (
        "sha256:74f7f4b39eecbed1c039cf4b229fa533069d2cdd8caf3bb6380b832eb40fb697"
    )


def test_canonical_json_vector() -> None:
    value = {"b": "Chainer's Edict", "a": "Lim-D\u00fbl's Vault", "c": "tab\there"}
    text = canonical(value)
    assert text == '{"a":"Lim-D\u00fbl\'s Vault","b":"Chainer\'s Edict","c":"tab\\there"}'.encode()
    assert b"\xc3\xbb" in text
    assert hashlib.sha256(text).hexdigest() == (
        "041575311eb1deb02f63f70361e14159034faf0d2a31e57edf8b4cf037680377"
    )


def test_game_digest_chain() -> None:
    d = ids.GameDigest(RESET)
    assert d.d.hex() == "a328e304e4dcacdde5d8abe089c93a8bedd108e9985d3bdab6ede3b8e8f093a3"
    # The request id is left out, so a retransmission's new id changes nothing.
    assert ids.GameDigest({**RESET, "request_id": "h-99"}).value == d.value
    first = d.value
    d.add({"response_type": "decision", "request_id": "h-2", "step": 0})
    after_step = d.value
    assert after_step != first and after_step.startswith("sha256:")
    d.adjudicate("forfeit", "p1_win", "forfeit:timeout", "p1")
    assert d.value != after_step
