"""The identifiers, secrets and digests of `spellbench/v2` (the spec's Sections 4.3, 5.3,
11.6 and 11.8), each as the spec constructs it; its Section 16 gives test vectors for
every one (tests/spellbench/test_ids.py)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from typing import Any

from .wire import canonical


def _hmac(key: bytes, message: str | bytes) -> bytes:
    data = message.encode("utf-8") if isinstance(message, str) else message
    return hmac.new(key, data, hashlib.sha256).digest()


def sha256_id(value: Any) -> str:
    """ "sha256:" + the hex SHA-256 of a value's canonical JSON."""
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


def deck_id(decklist: Iterable[Mapping[str, Any]]) -> str:
    """A decklist's id: its rows `{count, name}`, one per distinct name, sorted by name."""
    counts: dict[str, int] = {}
    for row in decklist:
        counts[row["name"]] = counts.get(row["name"], 0) + int(row["count"])
    return sha256_id([{"count": counts[n], "name": n} for n in sorted(counts)])


def domain_id(names: Iterable[str]) -> str:
    """A card-name domain's id: its names sorted by code point."""
    return sha256_id(sorted(names))


def commitment(run_secret: bytes) -> str:
    """What a host publishes before a run's first game."""
    return hashlib.sha256(run_secret).hexdigest()


def game_secret(run_secret: bytes, index: int) -> bytes:
    """The 32-byte secret of the game at `index` in the run's schedule."""
    return _hmac(run_secret, f"spellbench/v2/game:{index}")


def game_id(run_secret: bytes, index: int) -> str:
    """The opaque id engines and agents see for that game."""
    return "g-" + _hmac(run_secret, f"spellbench/v2/game-id:{index}")[:8].hex()


def agent_seed(run_secret: bytes, index: int, seat: str) -> int:
    """The seed a seat's agent gets for that game (53 bits)."""
    raw = _hmac(run_secret, f"spellbench/v2/agent-seed:{index}:{seat}")[:8]
    return int.from_bytes(raw, "big") & (2**53 - 1)


def id_key(secret: bytes) -> bytes:
    """The key of a game's object ids, from its game secret."""
    return _hmac(secret, "spellbench/v2/object-id")


def object_id(key: bytes, viewer: str, internal: str, look: int | None = None) -> str:
    """The id `viewer` sees for the object the engine knows as `internal` (a key that
    changes on every zone change); `look` counts the effects that showed the viewer an
    object in a zone hidden from it (None: the zone is visible to the viewer)."""
    message = f"{viewer}:{internal}" if look is None else f"{viewer}:{internal}:look:{look}"
    return "o-" + _hmac(key, message)[:8].hex()


def stream_seed(secret: bytes, owner: str, purpose: str, n: int = 0) -> bytes:
    """The seed of one of a game's random streams (`owner`: a seat or "shared")."""
    return _hmac(secret, f"spellbench/v2/rng:{owner}:{purpose}:{n}")


def _without_request_id(message: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "request_id"}


class GameDigest:
    """The SHA-256 chain over one game's engine traffic: start it with the `reset`
    request, then `add` each distinct engine response and step request in order, and
    `adjudicate` when the host records the ending itself."""

    def __init__(self, reset: Mapping[str, Any]) -> None:
        self.d = hashlib.sha256(
            b"spellbench/v2/game-digest" + canonical(_without_request_id(reset))
        ).digest()

    def add(self, message: Mapping[str, Any]) -> None:
        self.d = hashlib.sha256(self.d + canonical(_without_request_id(message))).digest()

    def adjudicate(
        self, classification: str, outcome: str, reason: str, winner: str | None
    ) -> None:
        record = {
            "adjudication": {
                "classification": classification,
                "outcome": outcome,
                "reason": reason,
                "winner": winner,
            }
        }
        self.d = hashlib.sha256(self.d + canonical(record)).digest()

    @property
    def value(self) -> str:
        return "sha256:" + self.d.hex()
