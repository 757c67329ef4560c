"""A game of our engine rebuilt from a `spellbench/v2` seat decision, for the agents that
decide from an engine state (the heuristic, the searches) when they play as Spellbench bots.

`rebuild(decision, decks, seed)` sets up (`Game.setup`) the position the seat sees:

- life, the turn, the step, who is active, lands played this turn, mulligans;
- every permanent with its controller and owner, tapped, summoning sickness, damage,
  +1/+1 and -1/-1 counters and attachments, and the attackers and blockers of the combat;
- the seat's own hand, both graveyards and exiles;
- the stack: spells with their targets, mode and X, and activated abilities (of a source
  with one such ability, since the entry does not say which), as if cast or activated;
- what the seat cannot see, determinized: the other hand and both libraries are filled
  with the cards of each deck that are not visible (the decklists of `game_start`), in an
  order drawn from `seed`, and with the pool's first card where a decklist is missing or
  short. An agent that reads them sees guesses, never the real cards: the rebuild is made
  from the neutral seat decision alone.

It rebuilds a priority decision and the start of a declaration of attackers or of
blockers (`declaration`). Anything else raises `CannotRebuild` with the reason, as does a
visible card outside our pool, a triggered ability on the stack (what it resolves with,
the event that triggered it, is not in the view) or a stack entry whose target has left.

What the neutral view does not carry is not rebuilt: continuous effects (a creature's
characteristics are its printed card's with its counters), other kinds of counters, "until
end of turn" effects, a copy or a face-down permanent (refused). The game the agent reads
can therefore differ from the engine's: `tests/spellbench/test_rebuild.py` measures how
often the heuristic decides differently on the rebuilt game than on the real one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ..engine import Game, load_cards
from ..engine.constants import (
    BEGIN_COMBAT,
    D_ATTACKERS,
    D_BLOCKERS,
    D_PRIORITY,
    DECLARE_ATTACKERS,
    PASS,
)
from .candidates import activated_indices
from .observation import PHASE_STEPS, SEATS

_COUNTERS = {"p1p1": "+1/+1", "m1m1": "-1/-1"}
_STEP = {name: i for i, name in enumerate(PHASE_STEPS)}


class CannotRebuild(ValueError):
    """A seat decision this module cannot rebuild as an engine position (the reason)."""


@dataclass
class Rebuilt:
    """The rebuilt game, with the object id of each card of it the seat sees."""

    game: Game
    object_id: dict[int, str]


def _decklist(deck: dict[str, Any] | None) -> list[str] | None:
    if not isinstance(deck, dict) or not isinstance(deck.get("decklist"), list):
        return None
    out: list[str] = []
    for row in deck["decklist"]:
        out += [str(row["name"])] * int(row.get("count", 1))
    return out


def rebuild(
    decision: dict[str, Any],
    decks: tuple[dict[str, Any] | None, dict[str, Any] | None],
    fmt: str,
    seed: int = 0,
    declaration: str | None = None,
) -> Rebuilt:
    """The engine game of a seat decision (see the module's docstring): `decks` are the
    seat's own and the other seat's decks as `game_start` gives them; `declaration`
    ("attack" or "block") rebuilds the start of the seat's declaration of attackers or
    blockers instead of a priority."""
    obs = decision["observation"]
    viewer = decision["acting_seat"]
    me = SEATS.index(viewer)
    if obs["phase_step"] == "pregame":
        raise CannotRebuild("a decision before the first turn")
    active = SEATS.index(obs["active_seat"])
    if (declaration == "attack") != (active == me) and declaration is not None:
        raise CannotRebuild(f"a declaration ({declaration}) of the wrong seat")
    cardset = load_cards(fmt)
    known = {**cardset.tokens, **cardset.cards}
    filler = next(iter(cardset.cards))
    players = obs["players"]
    visible: list[list[str]] = [[], []]  # by owner: the visible cards of each deck
    specs: list[dict[str, Any]] = []
    for p in players:
        spec: dict[str, Any] = {"life": int(p["life"])}
        for zone in ("hand", "graveyard", "exile"):
            spec[zone] = []
            for rec in p.get(zone) or ():
                spec[zone].append({"card": rec["card_name"], "id": rec["object_id"]})
        spec["battlefield"] = []
        for rec in p.get("battlefield") or ():
            perm = rec.get("permanent") or {}
            entry: dict[str, Any] = {
                "card": rec["card_name"],
                "id": rec["object_id"],
                "owner": SEATS.index(rec["owner_seat"]),
                "tapped": bool(perm.get("tapped")),
                "sick": bool(perm.get("summoning_sick")),
                "damage": int(perm.get("damage") or 0),
                "counters": {
                    _COUNTERS[k]: int(n)
                    for k, n in (perm.get("counters") or {}).items()
                    if k in _COUNTERS
                },
            }
            attached = perm.get("attached_to")
            if attached and "object" in attached:
                entry["attached_to"] = attached["object"]["object_id"]
            if rec.get("face_down") or rec.get("copy"):
                raise CannotRebuild(f"{rec['card_name']}: a face-down or copied permanent")
            spec["battlefield"].append(entry)
        specs.append(spec)
        for zone in ("hand", "graveyard", "exile", "battlefield"):
            for rec in p.get(zone) or ():
                visible[SEATS.index(rec["owner_seat"])].append(rec["card_name"])
    stack = _stack(obs.get("stack") or (), known)
    for e, rec in zip(stack, obs.get("stack") or (), strict=True):
        if "card" in e:
            visible[SEATS.index(rec["owner_seat"])].append(rec["card_name"])
    for names in visible:
        for name in names:
            if name not in known:
                raise CannotRebuild(f"{name!r} is not in the {fmt} card pool")
    # What each seat's deck holds that the seat deciding does not see, in a seeded order.
    rng = random.Random(seed)
    for s, p in enumerate(players):
        deck = _decklist(decks[0] if s == me else decks[1]) or []
        rest = [n for n in deck if n in known]
        for name in visible[s]:
            if name in rest:
                rest.remove(name)
        rng.shuffle(rest)
        hidden = (0 if s == me else int(p["hand_count"])) + int(p["library_count"])
        rest = (rest + [filler] * hidden)[:hidden]
        if s != me:
            n = int(p["hand_count"])
            specs[s]["hand"] = rest[:n]
            rest = rest[n:]
        specs[s]["library"] = rest
    # A declaration begins once both players pass in the step before it.
    step = {"attack": BEGIN_COMBAT, "block": DECLARE_ATTACKERS}.get(
        declaration or "", _STEP[obs["phase_step"]]
    )
    try:
        g, labels = Game.setup(
            specs,
            format=fmt,
            seed=seed,
            turn=int(obs["turn"]),
            active=active,
            step=step,
            stack=stack,
        )
    except ValueError as e:
        raise CannotRebuild(f"the position cannot be set up ({e})") from None
    g.mull_count = [int(p.get("mulligans_taken") or 0) for p in players]
    g.lands_played = int(players[active].get("lands_played_this_turn") or 0)
    if declaration != "attack":
        for p in players:
            for rec in p.get("battlefield") or ():
                perm = rec.get("permanent") or {}
                cid = labels[rec["object_id"]]
                if perm.get("attacking"):
                    g.attackers[cid] = 1 - active
                for a in perm.get("blocked_attackers") or ():
                    if a["object_id"] in labels:
                        g.blockers[cid] = labels[a["object_id"]]
                        g.blocked.add(labels[a["object_id"]])
    want = {"attack": D_ATTACKERS, "block": D_BLOCKERS}.get(declaration or "", D_PRIORITY)
    # The active player has priority after the setup: the seat deciding gets it (or its
    # declaration) once those before it have passed with the stack empty.
    for _ in range(2):
        d = g.decision
        if g.is_over or d is None or (d.kind == want and d.player == me):
            break
        if d.kind != D_PRIORITY:
            break
        g.apply(next(a for a in g.legal_actions() if a.kind == PASS))
    d = g.decision
    if g.is_over or d is None or d.kind != want or d.player != me:
        raise CannotRebuild("the rebuilt position does not pose this seat's decision")
    return Rebuilt(g, {cid: label for label, cid in labels.items()})


def _stack(entries: Any, known: dict[str, Any]) -> list[dict[str, Any]]:
    """`Game.setup`'s stack entries of the observation's stack (bottom first): spells, and
    activated abilities of a source that is still there and has one such ability (the
    entry does not say which). A copy, a face-down spell, a triggered ability (what it
    resolves with, the event that triggered it, is not in the view) or a target that has
    left cannot be rebuilt."""
    out: list[dict[str, Any]] = []
    for rec in entries:
        name, kind = rec.get("card_name"), rec.get("stack_kind")
        if rec.get("copy") or rec.get("face_down") or name is None:
            raise CannotRebuild("a copied or face-down spell or ability on the stack")
        if kind == "triggered_ability":
            raise CannotRebuild("a triggered ability on the stack")
        if name not in known:
            raise CannotRebuild(f"{name!r} is not in the card pool")
        e: dict[str, Any] = {"controller": SEATS.index(rec["controller_seat"])}
        if kind == "spell":
            e.update(card=name, id=rec["object_id"], owner=SEATS.index(rec["owner_seat"]))
            if rec.get("modes"):
                e["mode"] = int(rec["modes"][0])
        else:
            source = rec.get("source")
            if source is None:
                raise CannotRebuild("an ability on the stack whose source has left")
            # As ACTIVATE numbers them: mana abilities counted (`objects.activated_at`).
            activated = activated_indices(known[name].abilities)
            if len(activated) != 1:
                raise CannotRebuild(f"an ability of {name}, which has {len(activated)}")
            e.update(source=source["object_id"], ability=activated[0])
        if rec.get("x_value") is not None:
            e["x"] = int(rec["x_value"])
        targets: list[Any] = []
        for t in rec.get("targets") or ():
            if t is None:
                raise CannotRebuild("a spell or ability on the stack whose target has left")
            targets.append(SEATS.index(t["player"]) if "player" in t else t["object"]["object_id"])
        e["targets"] = targets
        out.append(e)
    return out
