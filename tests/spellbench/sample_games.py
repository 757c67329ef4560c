"""Positions along random games, the game secret, and a minimal host of the engine role
(`Host`, `play`), for the Spellbench tests."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from mtg_env.engine import Game, load_decks
from mtg_env.spellbench import ids
from mtg_env.spellbench.engine import EngineSession
from mtg_env.spellbench.host import default_rules

SECRET = ids.game_secret(bytes(range(32)), 0)


def states(fmt: str, games: int = 3, every: int = 7) -> Iterator[Game]:
    """Positions along random games of the format's bundled decks."""
    decks = load_decks(fmt)
    names = sorted(decks)
    rng = random.Random(1)
    for i in range(games):
        pair = (decks[names[i % len(names)]], decks[names[(i + 3) % len(names)]])
        g = Game.new(pair, seed=i, max_decisions=500, format=fmt)
        n = 0
        while not g.is_over:
            if n % every == 0:
                yield g
            g.apply(rng.choice(g.legal_actions()))
            n += 1


RUN = b"r" * 32  # a run secret: each game's secret and id derive from it (Section 11.6)


def rules_with(**over: Any) -> dict[str, Any]:
    return {**default_rules(), **over}


class Host:
    """A minimal host: numbered requests to one engine session."""

    def __init__(self, fmt: str) -> None:
        self.session = EngineSession(fmt)
        self.n = 0

    def send(self, **msg: Any) -> dict[str, Any]:
        return self.session.answer(self.line(**msg))

    def line(self, **msg: Any) -> bytes:
        self.n += 1
        full = {"protocol": "spellbench/v2", "request_id": f"h-{self.n}", **msg}
        return json.dumps(full).encode()

    def hello(self) -> dict[str, Any]:
        return self.send(request_type="hello", protocol_minor=0)

    def reset(self, index: int, decks: tuple[Any, Any], **over: Any) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "request_type": "reset",
            "game_id": ids.game_id(RUN, index),
            "format": self.session.format,
            "seats": [
                {"seat": "p0", "deck": {"deck_id": "sha256:x", **decks[0]}},
                {"seat": "p1", "deck": {"deck_id": "sha256:x", **decks[1]}},
            ],
            "rules": rules_with(),
            "game_secret": ids.game_secret(RUN, index).hex(),
            "max_decisions": 5000,
            "max_steps": 20000,
        }
        msg.update(over)
        return self.send(**msg)

    def step(self, decision: dict[str, Any], pick: int, **over: Any) -> dict[str, Any]:
        c = decision["seat_decision"]["candidates"][pick]
        msg: dict[str, Any] = {
            "request_type": "step",
            "game_id": decision["game_id"],
            "expected_step": decision["step"],
            "selection": {"candidate_id": c["candidate_id"], "semantic_echo": c["semantic"]},
        }
        msg.update(over)
        return self.send(**msg)


def catalog(host: Host) -> list[dict[str, Any]]:
    return host.hello()["catalog"]


def play(
    fmt: str,
    index: int,
    check: bool = True,
    pick: Callable[[Host, dict[str, Any]], int] | None = None,
) -> Iterator[tuple[Host, dict[str, Any]]]:
    """Every response of one game (the terminal last), with random picks or `pick`'s (the
    candidate's position)."""
    host = Host(fmt)
    decks = catalog(host)
    r = random.Random(index)
    a, b = r.choice(decks), r.choice(decks)
    # One seat's deck from the catalog, the other's as a decklist: both deck sources.
    resp = host.reset(index, ({"catalog_id": a["catalog_id"]}, {"decklist": b["decklist"]}))
    while True:
        yield host, resp
        if resp["response_type"] != "decision":
            return
        n = len(resp["seat_decision"]["candidates"])
        resp = host.step(resp, r.randrange(n) if pick is None else pick(host, resp))
