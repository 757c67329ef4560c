"""The game: `Game` is the one state class (python-chess style) with an OpenSpiel-style API:
`current_player`, `decision`, `legal_actions()`, `apply()`, `clone()`, `is_over`,
`winner`, `state_hash()`. Internally the game runs as an explicit continuation stack
(`self.k`) of small tuples, so that a game paused at any decision (mid-cast, mid-
resolution, mid-SBA) is plain data and clones by copying lists.

`Game` is split by job, one base class per module, each calling only itself and the jobs
below it (engine.protocol): building a game (`setup`), the turn (`turn`), priority and
casting (`priority`), the stack and triggers (`stack`), targets (`targets`), state-based
actions (`sba`) and the kernel (`kernel`: the event log, the characteristics cache,
decisions, zone moves); this module holds the public API, the constructors and the run
loop. Its fields are declared once (`engine.fields`), and the format's hooks
(`engine.formats`) decide what a format changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from operator import index
from typing import Any, Final, Self, SupportsIndex

from .carddb import Deck, resolve_deck
from .constants import (
    BATTLEFIELD,
    CREATURE,
    D_PRIORITY,
    EXILE,
    GRAVEYARD,
    HAND,
    LIBRARY,
    MAIN1,
)
from .explain import why_illegal
from .frames import (
    F_ACT_DONE,
    F_AFTER_BATTLE,
    F_BATTLE,
    F_BEGIN_STEP,
    F_BOTTOM,
    F_CAST_DONE,
    F_CLEANUP,
    F_DAMAGE,
    F_END_STEP,
    F_MULLIGAN,
    F_OPS,
    F_PRIO,
    F_PUT_TRIGGERS,
    F_RESOLVE,
    F_SETTLE,
    F_TRIG_DONE,
)
from .hooks import FormatHooks
from .layers import compute
from .log import describe_action, obj_name, render_events
from .objects import (
    Action,
    Decision,
    IllegalActionError,
    Perm,
)
from .rng import Rng
from .setup import Setup
from .state import clone_state, hash_parts


class Game(Setup):
    """A two-player game. Build one with `Game.new(...)` (or `Game.setup(...)` for a
    scripted position); then alternate `legal_actions()` and `apply()`."""

    __slots__ = ()  # the fields' slots are GameFields' (engine.state, from engine.fields)

    # ------------------------------------------------------------------ construction

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
        seat_seeds: Sequence[Sequence[SupportsIndex]] | None = None,
    ) -> Self:
        """A new game: shuffle, choose the first player by the seed (unless
        `first_player` fixes it), draw seven each, then London mulligans as decisions.

        `seat_seeds[seat][purpose]` gives each seat its own random streams for what lands in
        its hidden zones (its library shuffles, random picks from its hand: `rng.PURPOSES`)
        instead of the game's one stream (`seed`)."""
        if len(decks) != 2:
            raise ValueError("a game needs exactly two decks")
        # Numbers as plain ints (numpy integers included): the compiled build takes no
        # other kind, and the hashes and logs must not depend on which kind was given.
        g = cls._empty(format, index(seed), auto_pass, _index_or_none(max_decisions))
        if seat_seeds is not None:
            g.rng.split([[index(x) for x in row] for row in seat_seeds])
        names = [_deck_names(d, format) for d in decks]
        g.rules.deal(g, names, _index_or_none(first_player), mulligans)
        g._run()
        return g

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
        stack: Sequence[dict[str, Any]] = (),
    ) -> tuple[Self, dict[str, int]]:
        """A scripted position (docs/scenarios.md): the active player has priority in `step`.
        `players[i]` has `life` and zone lists (`hand`, `library` top card first,
        `graveyard`, `exile`, `battlefield`) of entries `{card, id, tapped, sick, damage,
        counters, attached_to, timestamp}`. Returns the game and label -> card id.
        Permanents are not summoning sick unless `sick`; timestamps follow the listed
        order (seat 0 first) unless `timestamp` overrides (smaller is earlier).

        `stack` lists spells and activated abilities already on the stack, bottom first,
        their costs paid and their targets chosen: a spell `{card, id, owner, controller,
        targets, mode, x}` (owner and controller default to seat 0, the controller to the
        owner), an ability `{source, ability, controller, targets, x}` (`source` the label
        of its permanent, `ability` its index as `ACTIVATE` numbers them; the controller
        defaults to the source's). A target is a label or a seat number (a player)."""
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
                if g.cdef[cid].asks_entered:
                    g.perm[cid].entered_turn = turn  # listed as new this turn
        # Control from static effects (an Aura's "you control") is the starting position,
        # not a change.
        g._dirty = False
        g._chars = compute(g)
        for cid in g.battlefield:
            g.perm[cid].last_ctrl = g._chars[cid].controller
        for i, e in enumerate(stack):
            g._setup_stack_entry(e, labels, f"stack[{i}]")
        g._log("setup", turn, active, step)
        g.k.append((F_PRIO, active))
        g._run()
        return g, labels

    # ------------------------------------------------------------------ public API

    @property
    def current_player(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        d = self._decision
        return None if d is None or self.over else d.player

    @property
    def decision(self) -> Decision | None:
        return None if self.over else self._decision

    @property
    def is_over(self) -> bool:
        return self.over

    def legal_actions(self) -> list[Action]:
        """Exactly the actions `apply` accepts now (computed once per state)."""
        if self._legal is None:
            self._legal = [] if self.over or self._decision is None else self._compute_legal()
        return self._legal

    def apply(self, action: Action | tuple) -> None:
        """Apply one action of the current player; IllegalActionError says why not."""
        if self.over:
            raise IllegalActionError("the game is over")
        if not isinstance(action, Action):
            action = Action(*action)
        legal = self.legal_actions()
        try:
            # The engine's own copy of the action: an equal one built from numpy integers
            # would reach the rules with numbers the compiled build does not take.
            action = legal[legal.index(action)]
        except ValueError:
            raise IllegalActionError(self._why_illegal(action)) from None
        self.n_decisions += 1
        d = self._decision
        assert d is not None
        self._decision = None
        self._legal = None
        self._answer(d, action)
        self._run()
        if (
            not self.over
            and self.max_decisions is not None
            and self.n_decisions >= self.max_decisions
        ):
            self.over = True
            self.truncated = True
            self._decision = None
            self._log("truncated", self.n_decisions)

    def clone(self) -> Game:
        """An independent copy (RNG included)."""
        g = Game()  # no initialiser: clone_state sets every field
        clone_state(self, g)
        return g

    @property
    def events(self) -> list[tuple]:
        """Structured event log: tuples whose first item names the event."""
        return self._events

    def state_hash(self) -> str:
        """A stable hash of the full state (hex), equal across processes and machines."""
        parts = hash_parts(self)
        parts += self.rules.hash_extras(self)
        if self.draws is not None:
            parts += (("draws", tuple(self.draws)),)
        if self.plotted is not None:
            parts += (("plotted", tuple(sorted(self.plotted.items()))),)
        if self.playable is not None:
            parts += (("playable", tuple(sorted(self.playable.items()))),)
        if self.mana_pool is not None:
            parts += (("mana_pool", tuple(tuple(p) for p in self.mana_pool)),)
        if self.skip_untap is not None:
            parts += (("skip_untap", tuple(sorted(self.skip_untap))),)
        if self.exile_if_dies is not None:
            parts += (("exile_if_dies", tuple(sorted(self.exile_if_dies))),)
        if self.prevent_next is not None:
            parts += (("prevent_next", tuple(sorted(self.prevent_next.items()))),)
        if self.linked_exile is not None:
            parts += (("linked_exile", tuple(sorted(self.linked_exile.items()))),)
        if self.damaged_turn is not None:
            parts += (("damaged_turn", tuple(self.damaged_turn)),)
        if self.initiative is not None:
            parts += (("initiative", tuple(self.initiative)),)
        if self.poison is not None:
            parts += (("poison", tuple(self.poison)),)
        if self.cardset.bestowed:
            # An Aura form has its card's name: which cards are in theirs (702.103a).
            parts += (("bestowed", tuple(i for i, c in enumerate(self.cdef) if c.bestowed)),)
        return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()

    # ------------------------------------------------------------------ logging

    def log_text(self, events: Iterable[tuple] | None = None) -> str:
        """The event log as readable lines."""
        return render_events(self, self._events if events is None else events)

    def describe(self, action: Action) -> str:
        """A readable string for `action` in the current state."""
        return describe_action(self, action)

    # ------------------------------------------------------------------ characteristics

    def explain(self, cid: SupportsIndex) -> list[str]:
        """Why object `cid` looks the way it does: its printed (or copied) values, then the
        continuous effects applied to it layer by layer with their timestamps (CR 613),
        then the result."""
        cid = index(cid)
        cd = self.cdef[cid]
        pt = f" {cd.power}/{cd.toughness}" if cd.power is not None else ""
        lines = [f"{obj_name(self, cid)}: printed {cd.name}{pt}"]
        trace: dict[int, list[str]] = {}
        if self.zone[cid] == BATTLEFIELD:
            p = self.perm[cid]
            if p.copy_def is not None:
                c = p.copy_def
                cpt = f" {c.power}/{c.toughness}" if c.power is not None else ""
                lines.append(f"  1 (copy): copiable values of {c.name}{cpt}")
            lines.append(f"  entered the battlefield at timestamp {p.timestamp}")
            compute(self, trace)
        lines.extend("  " + t for t in trace.get(cid, []))
        ch = self.chars(cid)
        kws = ", ".join(sorted(ch.keywords)) or "none"
        res = f"  result: controller {ch.controller}"
        if ch.power is not None and ch.types & CREATURE:
            res += f", {ch.power}/{ch.toughness}"
        res += f", subtypes {sorted(ch.subtypes)}, keywords {kws}"
        lines.append(res)
        return lines

    # ------------------------------------------------------------------ the run loop

    def _run(self) -> None:
        frames = _TABLES.get(type(self.rules)) or _frame_table(self.rules)
        while not self.over:
            d = self._decision
            if d is not None:
                if d.kind == D_PRIORITY and self.auto_pass:
                    # legal_actions() inlined: the game is not over and a decision is pending.
                    legal = self._legal
                    if legal is None:
                        legal = self._legal = self.rules.priority_actions(self, d.player)
                    if len(legal) == 1:
                        self._decision = None
                        self._legal = None
                        self._pass(d.player)
                        continue
                return
            if not self.k:  # pragma: no cover - a rules bug, never user input
                raise RuntimeError("internal error: nothing to do and no decision pending")
            f = self.k.pop()
            fid: int = f[0]
            fn = frames[fid]
            if fn is not None:
                fn(self, *f[1:])
            # The three frames that run most (about 7 of every 8), where the format keeps
            # the shared one: a direct call, without building an argument tuple.
            elif fid == F_PRIO:
                if len(f) == 2:
                    self._f_prio(f[1])
                else:
                    self._f_prio(f[1], f[2])
            elif fid == F_BEGIN_STEP:
                self._f_begin_step()
            else:
                self._f_end_step()

    # ------------------------------------------------------------------ zones

    # ------------------------------------------------------------------ turn structure

    # ------------------------------------------------------------------ priority

    # ------------------------------------------------------------------ mana

    # ------------------------------------------------------------------ legal actions

    # ------------------------------------------------------------------ targets

    # ------------------------------------------------------------------ answering

    # ------------------------------------------------------------------ lands, casting

    # ------------------------------------------------------------------ triggers

    # ------------------------------------------------------------------ resolution

    # ------------------------------------------------------------------ ETB and damage

    # ------------------------------------------------------------------ state-based actions

    # ------------------------------------------------------------------ mulligans

    # ------------------------------------------------------------------ combat damage

    # ------------------------------------------------------------------ illegal actions

    def _why_illegal(self, a: Action) -> str:
        return why_illegal(self, a)

    # ------------------------------------------------------------------ hidden information

    def resample_hidden(self, seat: SupportsIndex, rng: Any = None) -> Game:
        """A copy where what `seat` cannot see is re-dealt: the opponent's hand is redrawn
        from the opponent's unseen cards (hand + library) and both libraries are
        reshuffled. `seat`'s own hand, all public zones and the decision are unchanged."""
        g = self.clone()
        g.rules.resample_hidden(g, index(seat), _as_rng(rng))
        g._legal = None
        return g


def _as_rng(rng: Any) -> Rng:
    if rng is None:
        return Rng(0)
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, int):
        return Rng(rng)
    if hasattr(rng, "__index__"):  # a numpy integer
        return Rng(index(rng))
    # random.Random or numpy Generator: draw a seed from it
    if hasattr(rng, "getrandbits"):
        return Rng(rng.getrandbits(63))
    if hasattr(rng, "integers"):
        return Rng(int(rng.integers(0, 2**63 - 1)))
    raise TypeError("rng must be None, an int, an Rng, random.Random or numpy Generator")


# The shared frames by id (engine.frames); a format replaces some and adds its own.
_SHARED_FRAMES: Final[dict[int, Any]] = {
    F_BEGIN_STEP: Game._f_begin_step,
    F_PRIO: Game._f_prio,
    F_END_STEP: Game._f_end_step,
    F_RESOLVE: Game._f_resolve,
    F_OPS: Game._f_ops,
    F_CAST_DONE: Game._f_cast_done,
    F_ACT_DONE: Game._f_act_done,
    F_TRIG_DONE: Game._f_trig_done,
    F_PUT_TRIGGERS: Game._f_put_triggers,
    F_MULLIGAN: Game._f_mulligan,
    F_CLEANUP: Game._f_cleanup,
    F_DAMAGE: Game._f_damage,
    F_BOTTOM: Game._f_bottom,
    F_SETTLE: Game._f_settle,
    F_BATTLE: Game._f_battle,
    F_AFTER_BATTLE: Game._f_after_battle,
}
_TABLES: Final[dict[type, tuple]] = {}


def _frame_table(fmt: FormatHooks) -> tuple:
    """Frame id -> function for games of format `fmt` (built once per format class), or
    None for a shared frame that `Game._run` calls directly."""
    frames = {**_SHARED_FRAMES, **fmt.frames}
    if sorted(frames) != list(range(len(frames))):
        raise ValueError(f"format {fmt.name}: frame ids must run 0..n-1, got {sorted(frames)}")
    # None: a shared frame that `Game._run` calls directly (the format keeps it).
    direct = {F_PRIO, F_BEGIN_STEP, F_END_STEP} - set(fmt.frames)
    table = tuple(None if i in direct else frames[i] for i in range(len(frames)))
    _TABLES[type(fmt)] = table
    return table


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
