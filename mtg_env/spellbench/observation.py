"""The `spellbench/v2` observation of a game for one seat (the spec's Section 6): what the
seat may know, as the neutral JSON every engine sends, with per-viewer object ids.

Built from the engine's state through its public views (characteristics from the layer
system, zones, permanents, the stack), never from hidden state: the other seat's hand is a
count, libraries are counts, and object ids are HMACs keyed by the game secret of the
engine's object incarnation (a card's id and its zone-change object id), so an id carries
nothing but "this object, during this stay in its zone" and differs between the seats
(Section 5.3).

The optional fields this engine declares (`OBSERVATION_FLAGS`, Section 6.9): keywords, and
none of the others (they are sent as `null`). `known` lists the cards the seat is looking
at in the current decision (scry and surveil, given by the engine role), each with a fresh
id per look (Section 5.3); with `known_cards` off, nothing else.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine import Game
from ..engine.constants import (
    BATTLEFIELD,
    COLOR_WORDS,
    CREATURE,
    D_PRIORITY,
    PREGAME,
    STACK,
    STEP_NAMES,
    SUPERTYPE_NAMES,
    TYPE_NAMES,
    ZONE_NAMES,
)
from ..engine.decisions import Targets
from ..engine.objects import ABILITY, SPELL, TRIGGER
from . import ids

SEATS = ("p0", "p1")

# Section 6.9: the thirteen optional observation fields and whether this engine sends each.
OBSERVATION_FLAGS: dict[str, bool] = {
    "poison": False,
    "player_counters": False,
    "designations": False,
    "player_progress": False,
    "day_night": False,
    "passed_seats": False,
    "pending_triggers": False,
    "keywords": True,
    "full_name": False,
    "exiled_by": False,
    "stack_text": False,
    "permanent_details": False,
    "known_cards": False,
}

# Section 6.2's step names for the engine's (main1 and main2 are the two main phases).
_PHASE_STEP = {
    "main1": "precombat_main",
    "main2": "postcombat_main",
    "end": "end_step",
}
PHASE_STEPS = tuple(_PHASE_STEP.get(n, n) for n in STEP_NAMES)
_COLORS = tuple(COLOR_WORDS.items())  # white, blue, black, red, green: the spec's order
_TYPES = sorted(TYPE_NAMES.items())
_SUPERTYPES = sorted(SUPERTYPE_NAMES.items())
_STACK_KIND = {SPELL: "spell", ABILITY: "activated_ability", TRIGGER: "triggered_ability"}
_PT_COUNTER = re.compile(r"^([+-])(\d+)/([+-])(\d+)$")


def normalize(word: str) -> str:
    """Section 6.10's normal form of a subtype, keyword or counter name: lowercase,
    apostrophes removed, spaces and hyphens as `_` (`Urza's` -> `urzas`)."""
    return re.sub(r"[ -]", "_", word.lower().replace("'", "").replace("\u2019", ""))


def counter_name(name: str) -> str:
    """`+1/+1` -> `p1p1`, `-1/-1` -> `m1m1`; other counters by their normalized name."""
    m = _PT_COUNTER.match(name)
    if m is None:
        return normalize(name)
    sign = {"+": "p", "-": "m"}
    return f"{sign[m[1]]}{m[2]}{sign[m[3]]}{m[4]}"


class SeatIds:
    """Object ids for the two viewers of one game, from its game secret."""

    def __init__(self, game_secret: bytes) -> None:
        self.key = ids.id_key(game_secret)

    def card(self, g: Game, viewer: int, cid: int) -> str:
        return ids.object_id(self.key, SEATS[viewer], f"card-{cid}:z{g.oid[cid]}")

    def look(self, g: Game, viewer: int, cid: int, look: int) -> str:
        """A card in a hidden zone as effect `look` shows it: fresh for each effect that
        shows it, stable within that effect's decisions (Section 5.3)."""
        return ids.object_id(self.key, SEATS[viewer], f"card-{cid}:z{g.oid[cid]}", look)

    def ability(self, viewer: int, stack_oid: int) -> str:
        return ids.object_id(self.key, SEATS[viewer], f"ability-{stack_oid}")


class Observer:
    """The observation of one game for either seat (`observe(g, seat)`), with the
    references candidates and stack entries make to its objects (`ref`)."""

    def __init__(self, game_secret: bytes) -> None:
        self.ids = SeatIds(game_secret)

    # ------------------------------------------------------------------ references

    def ref(self, g: Game, viewer: int, cid: int) -> dict[str, Any]:
        """The object reference (Section 5.1) of card `cid` in its current zone."""
        zone = g.zone[cid]
        if zone == STACK:
            controller = g.controller_off_battlefield(cid)
        elif zone == BATTLEFIELD:
            controller = g.chars(cid).controller
        else:
            controller = g.owner[cid]
        return {
            "object_id": self.ids.card(g, viewer, cid),
            "card_name": g.cdef[cid].name,
            "owner_seat": SEATS[g.owner[cid]],
            "controller_seat": SEATS[controller],
            "zone": ZONE_NAMES[zone],
        }

    def look_ref(self, g: Game, viewer: int, cid: int, look: int) -> dict[str, Any]:
        """The reference of a library card the viewer is looking at (effect `look`): its
        owner stands for its controller (Section 6.7)."""
        owner = SEATS[g.owner[cid]]
        return {
            "object_id": self.ids.look(g, viewer, cid, look),
            "card_name": g.cdef[cid].name,
            "owner_seat": owner,
            "controller_seat": owner,
            "zone": "library",
        }

    def looked_at(self, g: Game, viewer: int, cids: list[int], look: int) -> list[dict[str, Any]]:
        """The `known` entries (Section 6.7) of the library cards the viewer is looking at,
        with their positions from the top, in the spec's order."""
        out = []
        for cid in cids:
            pile = g.library[g.rules.pile(g.owner[cid])]
            out.append(
                {
                    "owner_seat": SEATS[g.owner[cid]],
                    "zone": "library",
                    "card_name": g.cdef[cid].name,
                    "object_id": self.ids.look(g, viewer, cid, look),
                    "position_from_top": len(pile) - 1 - pile.index(cid),
                    "position_from_bottom": None,
                    "how": "looked_at",
                }
            )
        return sorted(
            out,
            key=lambda k: (k["owner_seat"], k["card_name"], k["position_from_top"], k["object_id"]),
        )

    def _live_ref(self, g: Game, viewer: int, cid: int, oid: int) -> dict[str, Any] | None:
        """The reference of the incarnation `oid` of `cid`, or None once it has left."""
        if cid < 0 or g.oid[cid] != oid or not self._visible(g, viewer, cid):
            return None
        return self.ref(g, viewer, cid)

    @staticmethod
    def _visible(g: Game, viewer: int, cid: int) -> bool:
        zone = ZONE_NAMES[g.zone[cid]]
        return zone not in ("library", "nowhere") and (zone != "hand" or g.owner[cid] == viewer)

    def target(self, g: Game, viewer: int, ref: int, oid: int) -> dict[str, Any] | None:
        """A target reference (Section 5.2), or None for an object that has left."""
        if ref < 0:
            return {"player": SEATS[-1 - ref]}
        obj = self._live_ref(g, viewer, ref, oid)
        return None if obj is None else {"object": obj}

    # ------------------------------------------------------------------ records

    def characteristics(self, g: Game, cid: int) -> dict[str, Any]:
        ch = g.chars(cid)
        creature = bool(ch.types & CREATURE)
        return {
            "supertypes": [n for bit, n in _SUPERTYPES if ch.supertypes & bit],
            "types": [n for bit, n in _TYPES if ch.types & bit],
            "subtypes": sorted(normalize(s) for s in ch.subtypes),
            "colors": [w for w, bit in _COLORS if ch.colors & bit],
            "mana_value": ch.mv,
            "power": ch.power if creature else None,
            "toughness": ch.toughness if creature else None,
            "keywords": sorted(normalize(k) for k in ch.keywords),
        }

    def record(self, g: Game, viewer: int, cid: int) -> dict[str, Any]:
        """An object record (Section 6.4)."""
        copy = g.zone[cid] == BATTLEFIELD and g.perm[cid].copy_def is not None
        return {
            **self.ref(g, viewer, cid),
            "full_name": None,
            "face_down": False,
            "token": bool(g.cdef[cid].token),
            "copy": copy,
            "characteristics": self.characteristics(g, cid),
            "permanent": self._permanent(g, viewer, cid) if g.zone[cid] == BATTLEFIELD else None,
            "exiled_by": None,
        }

    def _permanent(self, g: Game, viewer: int, cid: int) -> dict[str, Any]:
        p = g.perm[cid]
        attached = None
        if p.attached >= 0:
            attached = self.target(g, viewer, p.attached, g.oid[p.attached])
        attacking = cid in g.attackers
        blocked = []
        if cid in g.blockers:
            a = g.blockers[cid]
            if g.zone[a] == BATTLEFIELD:
                blocked.append(self.ref(g, viewer, a))
        return {
            "tapped": bool(p.tapped),
            "summoning_sick": bool(g.chars(cid).types & CREATURE) and g.sick(cid),
            "damage": p.damage,
            "counters": {counter_name(k): n for k, n in sorted((p.counters or {}).items()) if n},
            "attached_to": attached,
            "attacking": attacking,
            "attack_target": {"player": SEATS[g.attackers[cid]]} if attacking else None,
            "blocking": cid in g.blockers,
            "blocked_attackers": blocked,
            "phased_out": False,
            "statuses": None,
            "class_level": None,
            "chosen": None,
        }

    def stack_ref(self, g: Game, viewer: int, it: Any) -> dict[str, Any]:
        """The reference of a spell's or ability's stack entry (an ability is named by its
        source and has no owner: its controller stands for one)."""
        if it.kind == SPELL:
            return self.ref(g, viewer, it.cid)
        return {
            "object_id": self.ids.ability(viewer, it.oid),
            "card_name": g.cdef[it.cid].name,
            "owner_seat": SEATS[it.controller],
            "controller_seat": SEATS[it.controller],
            "zone": "stack",
        }

    def _stack_entry(self, g: Game, viewer: int, it: Any) -> dict[str, Any]:
        if it.kind == SPELL:
            source = None
            chars: dict[str, Any] | None = self.characteristics(g, it.cid)
        else:
            source = self._live_ref(g, viewer, it.cid, it.src_oid)
            chars = None
        return {
            **self.stack_ref(g, viewer, it),
            "stack_kind": _STACK_KIND[it.kind],
            "source": source,
            "face_down": False,
            "copy": False,
            "characteristics": chars,
            "targets": [self.target(g, viewer, r, oid) for r, oid in it.targets],
            "divided": None,
            "modes": [it.info["mode"]] if "mode" in it.info else None,
            "x_value": it.info.get("x"),
            "text": None,
        }

    def _player(self, g: Game, viewer: int, s: int) -> dict[str, Any]:
        battlefield = [c for c in g.battlefield if g.chars(c).controller == s]
        graveyard = [c for pile in _piles(g) for c in g.graveyard[pile] if g.owner[c] == s]
        return {
            "seat": SEATS[s],
            "life": g.life[s],
            "poison": None,
            "counters": None,
            "mana_pool": {m: 0 for m in "WUBRGC"},
            "lands_played_this_turn": g.lands_played if g.active == s else 0,
            "mulligans_taken": g.mull_count[s],
            "designations": None,
            "progress": None,
            "hand_count": len(g.hand[s]),
            "library_count": len(g.library[g.rules.pile(s)]),
            "hand": [self.record(g, viewer, c) for c in g.hand[s]] if s == viewer else None,
            "battlefield": [self.record(g, viewer, c) for c in battlefield],
            "graveyard": [self.record(g, viewer, c) for c in graveyard],
            "exile": [self.record(g, viewer, c) for c in g.exile[s]],
            "command": [],
        }

    # ------------------------------------------------------------------ the observation

    def observe(
        self, g: Game, viewer: int, known: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """Section 6's observation of `g` for seat `viewer` (0 or 1); `known`: the entries
        of the cards it is looking at in this decision (`looked_at`)."""
        pregame = g.step == PREGAME
        d = g.decision
        priority = d.player if d is not None and d.kind == D_PRIORITY else None
        return {
            "viewer": SEATS[viewer],
            "turn": 0 if pregame else g.turn,
            "phase_step": "pregame" if pregame else PHASE_STEPS[g.step],
            "active_seat": SEATS[g.first_player if pregame else g.active],
            "priority_seat": None if priority is None else SEATS[priority],
            "passed_seats": None,
            "day_night": None,
            "players": [self._player(g, viewer, s) for s in (0, 1)],
            "stack": [self._stack_entry(g, viewer, it) for it in _stack(g)],
            "pending_triggers": None,
            "known": known or [],
        }


def _stack(g: Game) -> list[Any]:
    """The stack, with the spell or ability whose targets are being chosen on top: the
    rules put it there first (CR 601.2a, 602.2a, 603.3d) and the spec's choices name its
    stack entry; the engine adds an ability to its list once the targets are chosen. A
    spell or ability that is resolving is on top too: it leaves the stack as its last step
    (CR 608.2n), and the choices it asks name it."""
    items = list(g.stack)
    ctx = g.ctx
    if isinstance(ctx, Targets) and not any(it is ctx.item for it in items):
        items.append(ctx.item)
    res = g.res
    if res is not None and not any(it is res.item for it in items):
        items.append(res.item)
    return items


def _piles(g: Game) -> list[int]:
    return list(dict.fromkeys((g.rules.pile(0), g.rules.pile(1))))
