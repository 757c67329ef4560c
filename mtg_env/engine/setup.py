"""Building a game: a new game from two decks (CR 103), or a scripted position
(docs/scenarios.md).

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import index
from typing import Any, Self, SupportsIndex

from .carddb import Deck, load_cards, resolve_deck
from .constants import (
    BATTLEFIELD,
    EXILE,
    GRAVEYARD,
    HAND,
    LIBRARY,
    MAIN1,
)
from .formats import rules_for
from .frames import (
    F_PRIO,
)
from .layers import compute
from .objects import (
    Perm,
)
from .state import init_state
from .zones import Zones


class Setup(Zones):
    __slots__ = ()

    @classmethod
    def new(
        cls,
        decks: Sequence[Deck | str | Sequence[str]],
        seed: SupportsIndex = 0,
        format: str = "classic",
        *,
        first_player: SupportsIndex | None = None,
        auto_pass: bool = True,
        mulligans: bool = True,
        max_decisions: SupportsIndex | None = None,
    ) -> Self:
        """A new game: shuffle, choose the first player by the seed (unless
        `first_player` fixes it), draw seven each, then London mulligans as decisions."""
        if len(decks) != 2:
            raise ValueError("a game needs exactly two decks")
        # Numbers as plain ints (numpy integers included): the compiled build takes no
        # other kind, and the hashes and logs must not depend on which kind was given.
        g = cls._empty(format, index(seed), auto_pass, _index_or_none(max_decisions))
        names = [_deck_names(d, format) for d in decks]
        g.rules.deal(g, names, _index_or_none(first_player), mulligans)
        g._run()
        return g

    def _choose_first(self, first_player: int | None) -> int:
        """The first player: by the seed unless `first_player` fixes it."""
        fp = self.rng.below(2) if first_player is None else first_player
        if fp not in (0, 1):
            raise ValueError("first_player must be 0 or 1")
        self.first_player = fp
        self.active = fp
        return fp

    @classmethod
    def setup(
        cls,
        players: Sequence[dict[str, Any]],
        *,
        format: str = "classic",
        seed: SupportsIndex = 0,
        turn: SupportsIndex = 1,
        active: SupportsIndex = 0,
        step: SupportsIndex = MAIN1,
        auto_pass: bool = False,
        max_decisions: SupportsIndex | None = None,
    ) -> tuple[Self, dict[str, int]]:
        """A scripted position (docs/scenarios.md): the active player has priority in `step` with
        an empty stack. `players[i]` has `life` and zone lists (`hand`, `library` top card
        first, `graveyard`, `exile`, `battlefield`) of entries `{card, id, tapped, sick,
        damage, counters, attached_to, timestamp}`. Returns the game and label -> card id.
        Permanents are not summoning sick unless `sick`; timestamps follow the listed
        order (seat 0 first) unless `timestamp` overrides (smaller is earlier)."""
        if len(players) != 2:
            raise ValueError("setup needs exactly two players")
        turn, active, step = index(turn), index(active), index(step)
        g = cls._empty(format, index(seed), auto_pass, _index_or_none(max_decisions))
        g.rules.check_setup_step(step)
        labels: dict[str, int] = {}
        g.turn = turn
        g.active = active
        g.step = step
        g.first_player = active if turn % 2 == 1 else 1 - active
        # Clock: 1 = the non-active player's last turn began, 2 = this turn began.
        g.last_turn_start = [0, 0]
        g.last_turn_start[1 - active] = 1
        g.last_turn_start[active] = 2
        g.turn_start_clock = 2
        g.clock = 3
        attach: list[tuple[int, str]] = []
        order: list[tuple[int, int]] = []  # (timestamp key, cid)
        n = 0
        for seat, spec in enumerate(players):
            g.life[seat] = spec.get("life", g.rules.starting_life)
            g.rules.setup_player(g, seat, spec)
            for zname, zone in (
                ("library", LIBRARY),
                ("hand", HAND),
                ("graveyard", GRAVEYARD),
                ("exile", EXILE),
                ("battlefield", BATTLEFIELD),
            ):
                entries = list(spec.get(zname, []))
                if zone == LIBRARY:
                    entries.reverse()  # listed top first; stored bottom first
                for e in entries:
                    e = {"card": e} if isinstance(e, str) else e
                    owner = e.get("owner", seat)
                    cdef = g.cardset.cards.get(e["card"]) or g.cardset.tokens.get(e["card"])
                    if cdef is None:
                        raise ValueError(f"unknown card {e['card']!r}")
                    if e.get("face_down"):
                        if e["card"] not in g.cardset.face_down or zone != BATTLEFIELD:
                            raise ValueError(
                                f"face_down: {e['card']!r} must be a two-part card on the "
                                "battlefield"
                            )
                        cdef = g.cardset.face_down[e["card"]]
                    if zone == LIBRARY and g.rules.pile(seat) != seat:
                        raise ValueError(
                            "this format has one shared pile: list it as player 0's library"
                        )
                    cid = g._new_card(cdef, owner)
                    label = e.get("id")
                    if label:
                        if label in labels:
                            raise ValueError(f"duplicate label {label!r}")
                        labels[label] = cid
                    if zone == BATTLEFIELD:
                        g.zone[cid] = BATTLEFIELD
                        n += 1
                        ts = e.get("timestamp")
                        order.append((ts if ts is not None else n, cid))
                        p = Perm.new(cid, g.oid[cid], seat, 0, 0)
                        p.tapped = bool(e.get("tapped", False))
                        p.damage = int(e.get("damage", 0))
                        if e.get("counters"):
                            p.counters = {k: int(v) for k, v in e["counters"].items() if v}
                        p.control_since = 3 if e.get("sick") else 0
                        g.perm[cid] = p
                        g.battlefield.append(cid)
                        if e.get("attached_to"):
                            attach.append((cid, e["attached_to"]))
                    else:
                        g.zone[cid] = zone
                        pile = g.rules.pile(owner) if zone in (LIBRARY, GRAVEYARD) else owner
                        {LIBRARY: g.library, HAND: g.hand, GRAVEYARD: g.graveyard, EXILE: g.exile}[
                            zone
                        ][pile].append(cid)
        for cid, label in attach:
            if label not in labels:
                raise ValueError(f"attached_to: unknown label {label!r}")
            g.perm[cid].attached = labels[label]
        # Timestamps in listed order unless overridden; the clock starts after them.
        order.sort(key=lambda x: x[0])
        for ts, cid in order:
            g.perm[cid].timestamp = ts + 10
        g.battlefield = [cid for _, cid in order]
        g.clock = max([g.perm[c].timestamp for c in g.battlefield], default=10) + 1
        sick_stamp = g._tick()
        for cid in g.battlefield:
            if g.perm[cid].control_since == 3:
                g.perm[cid].control_since = sick_stamp
        # Control from static effects (an Aura's "you control") is the starting position,
        # not a change.
        g._dirty = False
        g._chars = compute(g)
        for cid in g.battlefield:
            g.perm[cid].last_ctrl = g._chars[cid].controller
        g._log("setup", turn, active, step)
        g.k.append((F_PRIO, active))
        g._run()
        return g, labels

    @classmethod
    def _empty(cls, fmt: str, seed: int, auto_pass: bool, max_decisions: int | None) -> Self:
        g = cls()
        rules = rules_for(fmt)
        init_state(g, fmt, rules, load_cards(rules.card_set), seed, auto_pass, max_decisions)
        return g


def _deck_names(d: Deck | str | Sequence[str], fmt: str) -> tuple[str, ...]:
    if isinstance(d, Deck):
        if d.format != fmt:
            raise ValueError(f"deck {d.name!r} is a {d.format} deck; this game is {fmt}")
        return d.cards
    if isinstance(d, str):
        return resolve_deck(d, fmt).cards
    return tuple(d)


def _index_or_none(n: SupportsIndex | None) -> int | None:
    return None if n is None else index(n)
