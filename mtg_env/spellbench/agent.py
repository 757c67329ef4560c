"""The agent role of `spellbench/v2` (the spec's Section 10): a bot served over NDJSON on
stdin/stdout, one request line in, one response line out.

`serve(bot, stdin, stdout)` answers `hello`, `game_start`, `choose` and `game_over`, and
answers every other request with the agent error codes of Section 10.5. An agent is a
lenient reader (Section 4.2): it ignores unknown fields and parses any JSON the host sends.

A bot is an object with `name`, `version`, `start(game_start) -> None` (the `game_start`
request: the seat, the decks, the rules, `agent_seed`) and `choose(decision) -> int` (the
validated seat decision; the answer is a `candidate_id`). `RandomBot` (uniform over the
candidates, seeded from `agent_seed`, so a game reruns exactly) and `FirstBot` (candidate 0:
`pass` whenever passing is legal) are the spec's minimal agents (Section 10.6).
"""

from __future__ import annotations

import json
import random
from typing import Any, BinaryIO, Protocol

from .wire import PROTOCOL, error_response

VERSION = "1.0.0"


class Bot(Protocol):
    name: str
    version: str

    def start(self, game_start: dict[str, Any]) -> None: ...

    def choose(self, decision: dict[str, Any]) -> int: ...


class RandomBot:
    """A uniformly random candidate, from a generator seeded with the game's agent seed."""

    name = "mtg_env-random"
    version = VERSION

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, game_start: dict[str, Any]) -> None:
        self.rng = random.Random(int(game_start.get("agent_seed", 0)))

    def choose(self, decision: dict[str, Any]) -> int:
        return int(self.rng.randrange(len(decision["candidates"])))


class FirstBot:
    """Candidate 0 (`pass` whenever passing is legal)."""

    name = "mtg_env-first"
    version = VERSION

    def start(self, game_start: dict[str, Any]) -> None:
        pass

    def choose(self, decision: dict[str, Any]) -> int:
        return 0


BOTS: dict[str, type[RandomBot] | type[FirstBot]] = {"random": RandomBot, "first": FirstBot}


def _response(kind: str, request_id: str, **fields: Any) -> dict[str, Any]:
    return {"response_type": kind, "protocol": PROTOCOL, "request_id": request_id, **fields}


class AgentSession:
    """One agent process's state: the game it serves, if any."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.game_id: str | None = None

    def answer(self, line: bytes) -> dict[str, Any]:
        """The response to one request line."""
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            return error_response("", "malformed_json", "the request line is not valid JSON")
        if not isinstance(msg, dict):
            return error_response("", "malformed_request", "the request is not an object")
        rid = msg.get("request_id")
        if not isinstance(rid, str):
            return error_response("", "malformed_request", "no request_id string")
        protocol = msg.get("protocol")
        if not isinstance(protocol, str):
            return error_response(rid, "malformed_request", "no protocol string")
        if protocol != PROTOCOL:
            return error_response(rid, "protocol_mismatch", f"protocol {protocol!r}")
        kind = msg.get("request_type")
        try:
            if kind == "hello":
                bot = {"name": self.bot.name, "version": self.bot.version}
                requires: dict[str, list[str]] = {"observation": [], "extensions": []}
                return _response(
                    "hello_ok", rid, bot=bot, requires=requires, extensions_accepted=[]
                )
            if kind == "game_start":
                if self.game_id is not None:
                    return error_response(rid, "game_already_active", f"serving {self.game_id}")
                gid = msg.get("game_id")
                if not isinstance(gid, str):
                    return error_response(rid, "malformed_request", "no game_id string")
                self.bot.start(msg)
                self.game_id = gid
                return _response("ack", rid)
            if kind in ("choose", "game_over"):
                gid = msg.get("game_id")
                if gid != self.game_id or self.game_id is None:
                    return error_response(rid, "unknown_game", f"not serving {gid!r}")
                if kind == "game_over":
                    self.game_id = None
                    return _response("ack", rid)
                decision = msg.get("decision")
                if not isinstance(decision, dict) or not decision.get("candidates"):
                    return error_response(rid, "malformed_request", "no decision with candidates")
                pick = self.bot.choose(decision)
                return _response("choice", rid, selection={"candidate_id": pick})
        except Exception as e:  # the bot failed: the host reads it as a forfeit (agent_error)
            return error_response(rid, "internal_error", f"{type(e).__name__}: {e}")
        return error_response(rid, "malformed_request", f"unknown request_type {kind!r}")


def serve(bot: Bot, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer requests until stdin closes (the spec's way to end a process)."""
    session = AgentSession(bot)
    for line in stdin:
        if not line.strip():
            continue
        out = json.dumps(session.answer(line), separators=(",", ":"), ensure_ascii=False)
        stdout.write(out.encode("utf-8") + b"\n")
        stdout.flush()
