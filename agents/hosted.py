"""A Spellbench host run (`mtg-env spellbench host`) as an `mtg-env evaluate` results file.

The host plays bot A against bot B over the protocol, two seat-swapped games per deck pair.
Its rated games become the game rows of an evaluation (`agents.results.GameRow`) with B as
the one anchor, pinned at the rating the caller gives it (uniform random is 1000 on our
scale and on Spellbench's). The file is then rated as an evaluation is (`summarize`:
Bradley-Terry with the anchor pinned, a bootstrap interval over seat-swapped pairs) and
`mtg-env compare` reads two of them: two bots A1 and A2 hosted against the same B on the
same engine, decks and run seed play the same game seeds, so their games pair up.

Games the protocol does not rate (a halted game: an engine fault or a broken validator
rule) have no score: they are kept apart under `unrated`, and the file is not `complete`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from mtg_env.spellbench.host import GameRecord

from .evaluate import summarize
from .results import KIND, Anchor

# The protocol's own fields kept on each game row beside evaluate's.
PROTOCOL_FIELDS = ("game_id", "outcome", "classification", "winner", "reason", "digest")


def catalog_digest(catalog: dict[str, Any]) -> str:
    """sha256 of the engine's catalog (deck name -> decklist) as canonical JSON."""
    text = json.dumps(catalog, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def host_config(
    agent: str,
    opponent: str,
    opponent_rating: float,
    *,
    fmt: str,
    engine: dict[str, Any],
    catalog: dict[str, Any],
    pairs: int,
    seed: int | str,
    max_decisions: int,
) -> dict[str, Any]:
    """The evaluation configuration of a host run: everything that decides its games.

    `seed` is the run's `--seed`, or its commitment when the run secret was fresh (such a
    run's games pair with no other run's). `engine` is the engine's `hello` identity."""
    import mtg_env

    name = f"{engine.get('name', '?')}/{engine.get('version', '?')}"
    return {
        "kind": KIND,
        "source": "mtg-env spellbench host",
        "agent": agent,
        "agent_file": None,
        "anchors": [{"spec": opponent, "rating": float(opponent_rating), "file": None}],
        "format": fmt,
        "deck_set": f"spellbench:{name}:{fmt}",
        "decks": sorted(catalog),
        "decks_sha256": catalog_digest(catalog),
        "games": 2 * pairs,
        "seed": seed,
        "max_decisions": max_decisions,
        "mtg_env": mtg_env.__version__,
    }


def game_row(r: GameRecord) -> dict[str, Any]:
    """A rated host game as an evaluation's game row (A's side)."""
    row: dict[str, Any] = {
        "key": f"{r.agent}|{r.opponent}|{r.index // 2}|{r.index % 2}",
        "agent": r.agent,
        "opponent": r.opponent,
        "pair": r.index // 2,
        "swap": r.index % 2,
        "seed": r.index,  # the game's seeds derive from the run secret and this index
        "seat_agent": r.seat_agent,
        "deck_agent": r.deck_agent,
        "deck_opponent": r.deck_opponent,
        "score": r.score,
        "turns": r.turns,
        "decisions": r.steps,
        "agent_decisions": r.seat_steps[r.seat_agent],
        "agent_seconds": round(r.seat_ms[r.seat_agent] / 1000, 6),
        "fallbacks": 0,  # a bot's unusable answer is a forfeit, never a fallback
        "seconds": r.seconds,
        "code": "?",
    }
    row.update({k: getattr(r, k) for k in PROTOCOL_FIELDS})
    return row


def host_results(
    config: dict[str, Any], records: Sequence[GameRecord], command: str | None = None
) -> dict[str, Any]:
    """The results of a host run, rated as `mtg-env evaluate` rates its games."""
    if len(config["anchors"]) != 1:
        raise ValueError("a host run has one opponent")
    anchor = config["anchors"][0]
    rows = [game_row(r) for r in records if r.rated]
    result = summarize(config, rows, [Anchor(anchor["spec"], float(anchor["rating"]))])
    result["unrated"] = [r.row() for r in records if not r.rated]
    result["command"] = command
    return result
