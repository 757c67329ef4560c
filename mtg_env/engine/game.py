"""The game state and the rules that drive it (turns, priority, casting, resolution,
triggers, state-based actions, combat).

`Game` is the one state class (python-chess style) with an OpenSpiel-style API:
`current_player`, `decision`, `legal_actions()`, `apply()`, `clone()`, `is_over`,
`winner`, `state_hash()`. Internally the game runs as an explicit continuation stack
(`self.k`) of small tuples, so that a game paused at any decision (mid-cast, mid-
resolution, mid-SBA) is plain data and clones by copying lists.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from . import combat as cb
from . import effects as fx
from .carddb import Deck, load_cards, resolve_deck
from .cards import (
    ActivatedAbility,
    CardDef,
    ManaAbility,
    Op,
    StaticAbility,
    TargetSpec,
    TriggeredAbility,
    spell_targets,
)
from .constants import (
    ACTIVATE,
    ATTACK,
    AURA_SUBTYPE,
    BATTLEFIELD,
    BEGIN_COMBAT,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    CLEANUP,
    COMBAT_DAMAGE,
    CREATURE,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    D_BOTTOM,
    D_CHOICE,
    D_DISCARD,
    D_MULLIGAN,
    D_PRIORITY,
    D_SELECT,
    D_TARGET,
    D_TRIGGER_ORDER,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    DRAW,
    DUR_EOT,
    END,
    END_COMBAT,
    EXILE,
    GRAVEYARD,
    HAND,
    INSTANT,
    KEEP,
    LAND,
    LEGENDARY,
    LIBRARY,
    MAIN1,
    MAIN2,
    MULLIGAN,
    NOWHERE,
    PASS,
    PERMANENT_TYPES,
    PLAY,
    PREGAME,
    STACK,
    TARGET,
    UNTAP,
    UPKEEP,
    player_ref,
    ref_player,
)
from .decisions import (
    CLEANUP_DISCARD,
    TRIGGER_ORDER,
    CleanupDiscard,
    Context,
    Legend,
    LegendKeep,
    Redraw,
    Resolving,
    Targets,
)
from .explain import why_illegal
from .formats import Format, rules_for
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
from .layers import Chars, Effect, chars_off_battlefield, compute, matches
from .log import describe_action, obj_name, render_events
from .mana import Source, can_pay
from .objects import (
    ABILITY,
    SPELL,
    TRIGGER,
    Action,
    Decision,
    IllegalActionError,
    Perm,
    Resolution,
    StackItem,
    Trigger,
    activated_at,
)
from .rng import Rng

PASS_ACTION = Action(PASS)
KEEP_ACTION = Action(KEEP)
MULLIGAN_ACTION = Action(MULLIGAN)

STARTING_LIFE = 20
HAND_SIZE = 7
MAX_HAND = 7

_PRIORITY = (Decision(D_PRIORITY, 0), Decision(D_PRIORITY, 1))


class Game:
    """A two-player game. Build one with `Game.new(...)` (or `Game.setup(...)` for a
    scripted position); then alternate `legal_actions()` and `apply()`."""

    __slots__ = (
        "format",
        "rules",
        "window",
        "pool",
        "pool_max",
        "cardset",
        "auto_pass",
        "max_decisions",
        "rng",
        "cdef",
        "owner",
        "zone",
        "oid",
        "next_oid",
        "library",
        "hand",
        "graveyard",
        "exile",
        "battlefield",
        "perm",
        "stack",
        "life",
        "lost",
        "lose_reason",
        "drew_from_empty",
        "turn",
        "active",
        "step",
        "first_player",
        "lands_played",
        "clock",
        "last_turn_start",
        "turn_start_clock",
        "effects",
        "triggers",
        "delayed",
        "attackers",
        "blocked",
        "blockers",
        "fs_participants",
        "fs_step",
        "fog_turn",
        "k",
        "_decision",
        "ctx",
        "res",
        "passes",
        "mull_count",
        "mull_kept",
        "mull_round",
        "over",
        "winner",
        "truncated",
        "n_decisions",
        "_chars",
        "_dirty",
        "_drv",
        "_sba_ok",
        "_legal",
        "_events",
        "_ev_shared",
        "lki",
        "deck_names",
        "_offbf",
        "_white_any",
        "stray_tokens",
    )

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        decks: Sequence[Deck | str | Sequence[str]],
        seed: int = 0,
        format: str = "classic",
        *,
        first_player: int | None = None,
        auto_pass: bool = True,
        mulligans: bool = True,
        max_decisions: int | None = None,
    ) -> Game:
        """A new game: shuffle, choose the first player by the seed (unless
        `first_player` fixes it), draw seven each, then London mulligans as decisions."""
        if len(decks) != 2:
            raise ValueError("a game needs exactly two decks")
        g = cls._empty(format, seed, auto_pass, max_decisions)
        names = [_deck_names(d, format) for d in decks]
        g.rules.deal(g, names, first_player, mulligans)
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
        seed: int = 0,
        turn: int = 1,
        active: int = 0,
        step: int = MAIN1,
        auto_pass: bool = False,
        max_decisions: int | None = None,
    ) -> tuple[Game, dict[str, int]]:
        """A scripted position (docs/scenarios.md): the active player has priority in `step` with
        an empty stack. `players[i]` has `life` and zone lists (`hand`, `library` top card
        first, `graveyard`, `exile`, `battlefield`) of entries `{card, id, tapped, sick,
        damage, counters, attached_to, timestamp}`. Returns the game and label -> card id.
        Permanents are not summoning sick unless `sick`; timestamps follow the listed
        order (seat 0 first) unless `timestamp` overrides (smaller is earlier)."""
        if len(players) != 2:
            raise ValueError("setup needs exactly two players")
        g = cls._empty(format, seed, auto_pass, max_decisions)
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
                        p = Perm(cid, g.oid[cid], seat, 0, 0)
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
        # Control from static effects (Mind Control) is the starting position, not a change.
        g._dirty = False
        g._chars = compute(g)
        for cid in g.battlefield:
            g.perm[cid].last_ctrl = g._chars[cid].controller
        g._log("setup", turn, active, step)
        g.k.append((F_PRIO, active))
        g._run()
        return g, labels

    @classmethod
    def _empty(cls, fmt: str, seed: int, auto_pass: bool, max_decisions: int | None) -> Game:
        g = cls.__new__(cls)
        g.format = fmt
        g.rules = rules_for(fmt)
        g.window = None
        g.pool = [0, 0]
        g.pool_max = [0, 0]
        g.cardset = load_cards(g.rules.card_set)
        g.auto_pass = auto_pass
        g.max_decisions = max_decisions
        g.rng = Rng(seed)
        g.cdef = []
        g.owner = []
        g.zone = []
        g.oid = []
        g.next_oid = 1
        g.library = [[], []]
        g.hand = [[], []]
        g.graveyard = [[], []]
        g.exile = [[], []]
        g.battlefield = []
        g.perm = {}
        g.stack = []
        g.life = [g.rules.starting_life, g.rules.starting_life]
        g.lost = [False, False]
        g.lose_reason = ["", ""]
        g.drew_from_empty = [False, False]
        g.turn = 0
        g.active = 0
        g.step = PREGAME
        g.first_player = 0
        g.lands_played = 0
        g.clock = 1
        g.last_turn_start = [-1, -1]
        g.turn_start_clock = 0
        g.effects = []
        g.triggers = []
        g.delayed = []
        g.attackers = {}
        g.blocked = set()
        g.blockers = {}
        g.fs_participants = None
        g.fs_step = False
        g.fog_turn = -1
        g.k = []
        g._decision = None
        g.ctx = None
        g.res = None
        g.passes = 0
        g.mull_count = [0, 0]
        g.mull_kept = [False, False]
        g.mull_round = []
        g.over = False
        g.winner = None
        g.truncated = False
        g.n_decisions = 0
        g._chars = {}
        g._drv = None
        g._sba_ok = None
        g._offbf = [0, 0]
        g._white_any = [False, False]
        g.stray_tokens = []
        g._dirty = True
        g._legal = None
        g._events = []
        g._ev_shared = False
        g.lki = {}
        g.deck_names = [(), ()]
        return g

    def _new_card(self, cdef: CardDef, owner: int) -> int:
        cid = len(self.cdef)
        self.cdef.append(cdef)
        self.owner.append(owner)
        self.zone.append(NOWHERE)
        self.oid.append(self._new_oid())
        return cid

    def _new_oid(self) -> int:
        o = self.next_oid
        self.next_oid = o + 1
        return o

    def _tick(self) -> int:
        c = self.clock
        self.clock = c + 1
        return c

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

    def chars(self, cid: int) -> Chars:
        """Characteristics of object `cid` as the layer system computes them."""
        if self._dirty:
            self._recompute()
        ch = self._chars.get(cid)
        if ch is None:
            ch = chars_off_battlefield(self, cid)
        return ch

    def chars_of(self, cids: Iterable[int]) -> list[Chars]:
        """`[chars(c) for c in cids]` with one layer-state check (for encoders)."""
        if self._dirty:
            self._recompute()
        m = self._chars
        return [m.get(c) or chars_off_battlefield(self, c) for c in cids]

    def controlled(self, seat: int) -> list[int]:
        """The permanents `seat` controls, in battlefield order (do not mutate)."""
        return self._derived().controlled[seat]

    def positions(self, seat: int) -> dict[int, int]:
        """Permanent -> its index among those `seat` controls (do not mutate)."""
        d = self._derived()
        pos = d.positions[seat]
        if pos is None:
            pos = d.positions[seat] = {c: i for i, c in enumerate(d.controlled[seat])}
        return pos

    def controller(self, cid: int) -> int:
        if self.zone[cid] == BATTLEFIELD:
            return self.chars(cid).controller
        return self.controller_off_battlefield(cid)

    def controller_off_battlefield(self, cid: int) -> int:
        """A spell's controller is who cast it; other cards are "controlled" by their owner."""
        if self.zone[cid] == STACK:
            for it in self.stack:
                if it.kind == SPELL and it.cid == cid:
                    return it.controller
        return self.owner[cid]

    def name(self, cid: int) -> str:
        return self.cdef[cid].name

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
        if action not in legal:
            raise IllegalActionError(self._why_illegal(action))
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
        g = Game.__new__(Game)
        g.format = self.format
        g.rules = self.rules
        g.window = self.window
        g.pool = self.pool[:]
        g.pool_max = self.pool_max[:]
        g.cardset = self.cardset
        g.auto_pass = self.auto_pass
        g.max_decisions = self.max_decisions
        g.rng = self.rng.copy()
        g.cdef = self.cdef[:]
        g.owner = self.owner[:]
        g.zone = self.zone[:]
        g.oid = self.oid[:]
        g.next_oid = self.next_oid
        g.library = [self.library[0][:], self.library[1][:]]
        g.hand = [self.hand[0][:], self.hand[1][:]]
        g.graveyard = [self.graveyard[0][:], self.graveyard[1][:]]
        g.exile = [self.exile[0][:], self.exile[1][:]]
        g.battlefield = self.battlefield[:]
        g.perm = {c: p.copy() for c, p in self.perm.items()}
        items = {id(it): it.copy() for it in self.stack}
        g.stack = [items[id(it)] for it in self.stack]
        g.life = self.life[:]
        g.lost = self.lost[:]
        g.lose_reason = self.lose_reason[:]
        g.drew_from_empty = self.drew_from_empty[:]
        g.turn = self.turn
        g.active = self.active
        g.step = self.step
        g.first_player = self.first_player
        g.lands_played = self.lands_played
        g.clock = self.clock
        g.last_turn_start = self.last_turn_start[:]
        g.turn_start_clock = self.turn_start_clock
        g.effects = self.effects[:]  # Effect objects are never mutated
        g.triggers = self.triggers[:]  # Trigger objects are never mutated
        g.delayed = self.delayed[:]
        g.attackers = dict(self.attackers)
        g.blocked = set(self.blocked)
        g.blockers = dict(self.blockers)
        g.fs_participants = None if self.fs_participants is None else set(self.fs_participants)
        g.fs_step = self.fs_step
        g.fog_turn = self.fog_turn
        g.k = self.k[:]
        g._decision = self._decision
        g.ctx = _copy_ctx(self.ctx, items)
        if self.res is not None:
            it = self.res.item
            g.res = self.res.copy(items.get(id(it)) or it.copy())
        else:
            g.res = None
        g.passes = self.passes
        g.mull_count = self.mull_count[:]
        g.mull_kept = self.mull_kept[:]
        g.mull_round = self.mull_round[:]
        g.over = self.over
        g.winner = self.winner
        g.truncated = self.truncated
        g.n_decisions = self.n_decisions
        # Computed characteristics are read-only outside `compute`, so they can be shared.
        g._chars = self._chars
        g._drv = self._drv  # derived from _chars and the battlefield only: shared too
        g._sba_ok = self._sba_ok
        g._offbf = self._offbf
        g._white_any = self._white_any
        g.stray_tokens = self.stray_tokens[:]
        g._dirty = self._dirty
        g._legal = self._legal
        g._events = self._events
        g._ev_shared = self._ev_shared = True
        g.lki = dict(self.lki)
        g.deck_names = self.deck_names
        return g

    @property
    def events(self) -> list[tuple]:
        """Structured event log: tuples whose first item names the event."""
        return self._events

    def state_hash(self) -> str:
        """A stable hash of the full state (hex), equal across processes and machines."""
        parts = [
            self.format,
            self.turn,
            self.active,
            self.step,
            self.first_player,
            self.lands_played,
            self.clock,
            tuple(self.last_turn_start),
            self.turn_start_clock,
            tuple(self.life),
            tuple(self.lost),
            tuple(self.drew_from_empty),
            self.rng.state,
            tuple(c.name for c in self.cdef),
            tuple(self.owner),
            tuple(self.zone),
            tuple(self.oid),
            self.next_oid,
            tuple(map(tuple, self.library)),
            tuple(map(tuple, self.hand)),
            tuple(map(tuple, self.graveyard)),
            tuple(map(tuple, self.exile)),
            tuple(self.battlefield),
            tuple(self.perm[c].state() for c in sorted(self.perm)),
            tuple(it.state() for it in self.stack),
            tuple(_effect_state(e) for e in self.effects),
            tuple(t.state() for t in self.triggers),
            tuple(t.state() for t in self.delayed),
            tuple(sorted(self.attackers.items())),
            tuple(sorted(self.blocked)),
            tuple(sorted(self.blockers.items())),
            None if self.fs_participants is None else tuple(sorted(self.fs_participants)),
            self.fs_step,
            self.fog_turn,
            tuple(self.k),
            self._decision,
            _ctx_state(self.ctx),
            None if self.res is None else (self.res.item.oid, self.res.state()),
            self.passes,
            tuple(self.mull_count),
            tuple(self.mull_kept),
            tuple(self.mull_round),
            self.over,
            self.winner,
            self.truncated,
            self.n_decisions,
        ]
        parts += self.rules.hash_extras(self)
        return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()

    # ------------------------------------------------------------------ logging

    def _log(self, *event: Any) -> None:
        if self._ev_shared:
            self._events = self._events[:]
            self._ev_shared = False
        self._events.append(event)

    def log_text(self, events: Iterable[tuple] | None = None) -> str:
        """The event log as readable lines."""
        return render_events(self, self._events if events is None else events)

    def describe(self, action: Action) -> str:
        """A readable string for `action` in the current state."""
        return describe_action(self, action)

    # ------------------------------------------------------------------ characteristics

    def _recompute(self) -> None:
        for _ in range(8):
            self._dirty = False
            self._chars = compute(self)
            if not self._track_control():
                break
        self._drv = None

    def _derived(self) -> Derived:
        """Per-layer-state tables read at every decision (state-based-action candidates,
        mana sources, activated abilities), built once after each layer recomputation:
        they depend only on the computed characteristics and on which permanents exist,
        and both change only through `_recompute`."""
        if self._dirty:
            self._recompute()
        d = self._drv
        if d is None:
            d = self._drv = Derived(self)
        return d

    def _track_control(self) -> bool:
        """Note control changes (summoning sickness, CR 302.6; removal from combat,
        CR 506.4) and end effects whose "as long as you control" condition broke."""
        changed = False
        chars = self._chars
        for cid in self.battlefield:
            p = self.perm[cid]
            ctl = chars[cid].controller
            if ctl != p.last_ctrl:
                p.last_ctrl = ctl
                p.control_since = self._tick()
                self._log("control", cid, ctl)
                if cid in self.attackers or cid in self.blockers:
                    cb.remove_from_combat(self, cid)
        keep = []
        for e in self.effects:
            if e.duration == 2:  # DUR_WHILE_CONTROL_SOURCE
                src = chars.get(e.source)
                if (
                    src is None
                    or self.perm[e.source].oid != e.source_oid
                    or (src.controller != e.controller)
                ):
                    changed = True
                    continue
            keep.append(e)
        if changed:
            self.effects = keep
            self._dirty = True
        return changed

    def explain(self, cid: int) -> list[str]:
        """Why object `cid` looks the way it does: its printed (or copied) values, then the
        continuous effects applied to it layer by layer with their timestamps (CR 613),
        then the result."""
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

    def sick(self, cid: int) -> bool:
        """CR 302.6: not continuously controlled since its controller's most recent turn
        began (haste is checked by the callers)."""
        if not self.rules.summoning_sickness:
            return False
        p = self.perm[cid]
        return p.control_since > self.last_turn_start[self.chars(cid).controller]

    def has_kw(self, cid: int, kw: str) -> bool:
        return kw in self.chars(cid).keywords

    # ------------------------------------------------------------------ the run loop

    def _set_decision(
        self,
        kind: int,
        player: int,
        source: int = -1,
        prompt: str = "",
        options: tuple[str, ...] = (),
    ) -> None:
        self._decision = Decision(kind, player, source, prompt, options)
        self._legal = None

    def _run(self) -> None:
        frames = _TABLES.get(self.rules.__class__) or _frame_table(self.rules)
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
            frames[f[0]](self, *f[1:])

    # ------------------------------------------------------------------ zones

    def _move(
        self,
        cid: int,
        to: int,
        seat: int | None = None,
        bottom: bool = False,
        controller: int | None = None,
    ) -> None:
        """Move object `cid` to zone `to` (of `seat`, default its owner). A moved object
        becomes a new object (CR 400.7): it gets a new object id."""
        self._sba_ok = None
        frm = self.zone[cid]
        owner = self.owner[cid]
        pile = self.rules.pile(owner)  # library and graveyard index
        if frm == LIBRARY:
            self.library[pile].remove(cid)
        elif frm == HAND:
            self.hand[owner].remove(cid)
        elif frm == GRAVEYARD:
            self.graveyard[pile].remove(cid)
        elif frm == EXILE:
            self.exile[owner].remove(cid)
        elif frm == STACK:
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i].kind == SPELL and self.stack[i].cid == cid:
                    del self.stack[i]
                    break
        elif frm == BATTLEFIELD:
            self._leave_battlefield(cid)
        self.oid[cid] = self._new_oid()
        self.zone[cid] = to
        s = owner if seat is None else seat
        if self.cdef[cid].token and to != BATTLEFIELD and frm == BATTLEFIELD:
            # A token leaving the battlefield goes to the zone, then ceases to exist
            # (CR 111.7, 704.5d); it is kept in the zone list until SBAs are checked.
            self.stray_tokens.append(cid)
        if to not in (BATTLEFIELD, STACK) and self.cdef[cid].half_of:
            # A half or a face-down card leaving play is the whole card again.
            self.cdef[cid] = self.cardset.cards[self.cdef[cid].half_of]
        if to == LIBRARY:
            if bottom:
                self.library[pile].insert(0, cid)
            else:
                self.library[pile].append(cid)
        elif to == HAND:
            self.hand[owner].append(cid)
        elif to == GRAVEYARD:
            self.graveyard[pile].append(cid)
        elif to == EXILE:
            self.exile[owner].append(cid)
        elif to == BATTLEFIELD:
            self._enter_battlefield(cid, owner if controller is None else controller)
        del s
        if frm == BATTLEFIELD or to == BATTLEFIELD:
            self._dirty = True
        elif (to == GRAVEYARD or frm == GRAVEYARD) and not self._dirty and self._derived().cda:
            # The layers read other zones only through characteristic-defining abilities
            # that count graveyard cards (Tarmogoyf); without one on the battlefield a move
            # between other zones changes no computed characteristics.
            self._dirty = True
        self._legal = None

    def _leave_battlefield(self, cid: int) -> None:
        ch = self.chars(cid)
        self.lki[cid] = (self.oid[cid], ch)
        self.battlefield.remove(cid)
        del self.perm[cid]
        if cid in self.attackers or cid in self.blockers:
            cb.remove_from_combat(self, cid)

    def _enter_battlefield(self, cid: int, controller: int) -> None:
        ts = self._tick()
        p = Perm(cid, self.oid[cid], controller, ts, ts)
        self.perm[cid] = p
        self.battlefield.append(cid)
        self._dirty = True

    def _draw(self, seat: int) -> None:
        self.rules.draw(self, seat)

    def _discard(self, seat: int, cid: int) -> None:
        self._move(cid, GRAVEYARD)
        self._log("discard", seat, cid)

    def lib_top(self, seat: int) -> list[int]:
        """Library of `seat`, top card first."""
        return self.library[seat][::-1]

    # ------------------------------------------------------------------ turn structure

    def _start_turn(self, seat: int, first: bool = False) -> None:
        self.turn += 1
        self.active = seat
        self.lands_played = 0
        if self._dirty:
            self._recompute()  # control changes at end of turn happen before the turn begins
        stamp = self._tick()
        self.last_turn_start[seat] = stamp
        self.turn_start_clock = stamp
        self.step = UNTAP
        self._log("turn", self.turn, seat)
        self.k.append((F_BEGIN_STEP,))

    def _f_begin_step(self) -> None:
        step = self.step
        a = self.active
        self.passes = 0
        self._log("step", step)
        if step == UNTAP:
            # 502.3: untap the active player's permanents; no priority in this step.
            self._untap_all(a)
            self.k.append((F_END_STEP,))
            return
        if step == UPKEEP:
            self._step_triggers("upkeep")
        elif step == DRAW:
            # 103.8a: the starting player skips the draw of the game's first turn.
            if not (self.turn == 1 and a == self.first_player):
                self._draw(a)
        elif step == BEGIN_COMBAT:
            cb.begin_combat(self)
        elif step == DECLARE_ATTACKERS:
            self.k.append((F_PRIO, a))
            cb.start_declare_attackers(self)
            return
        elif step == DECLARE_BLOCKERS:
            self.k.append((F_PRIO, a))
            cb.start_declare_blockers(self)
            return
        elif step == COMBAT_DAMAGE:
            self.k.append((F_PRIO, a))
            self.k.append((F_DAMAGE,))
            return
        elif step == END:
            self._step_triggers("end_step")
        elif step == CLEANUP:
            self.k.append((F_CLEANUP,))
            return
        self.k.append((F_PRIO, a))

    def _untap_all(self, a: int) -> None:
        """Untap (ready) every permanent player `a` controls."""
        for cid in self.battlefield:
            p = self.perm[cid]
            if p.tapped and self.chars(cid).controller == a:
                p.tapped = False

    def _f_battle(self) -> None:
        """Combat damage of the BATTLE phase: first-strike damage and then regular damage
        (702.7b, 702.4b) as in classic, with state-based actions between, but no priority."""
        cb.combat_damage(self)
        if self.fs_step:
            self.fs_step = False
            self.k.append((F_BATTLE,))
        else:
            self.k.append((F_AFTER_BATTLE,))
        self.k.append((F_SETTLE,))

    def _f_after_battle(self) -> None:
        cb.end_combat(self)
        self.step = END
        self.k.append((F_BEGIN_STEP,))

    def _settled(self, again: tuple, resolve: bool) -> bool:
        """CR 117.5's loop: state-based actions (repeatedly), then triggers onto the stack,
        then, if `resolve`, the stack resolves. True once nothing is left to do; otherwise
        the frame `again` is pushed under the work still to do and False is returned."""
        while True:
            r = self._sba()
            if self.over:
                return False
            if r == "paused":
                self.k.append(again)
                return False
            if self.triggers:
                self.k.append(again)
                self.k.append((F_PUT_TRIGGERS,))
                return False
            if r == "none":
                break
        if resolve and self.stack:
            self.k.append(again)
            self.k.append((F_RESOLVE,))
            return False
        return True

    def _f_settle(self) -> None:
        """State-based actions, triggers and the stack without giving anyone priority: the
        steps of adventure and pocket in which no player has priority, and pocket's
        reactions, which resolve at once."""
        self._settled((F_SETTLE,), True)

    def _f_end_step(self) -> None:
        """All players passed with an empty stack: the step ends (CR 500.2)."""
        step = self.step
        if step == COMBAT_DAMAGE and self.fs_step:
            # 510.4: a first-strike damage step is followed by the regular one.
            self.fs_step = False
            self.k.append((F_BEGIN_STEP,))
            return
        if step == END_COMBAT:
            cb.end_combat(self)
        if step == CLEANUP:
            self.k.append((F_BEGIN_STEP,))  # 514.3a: a new cleanup step
            return
        nxt = step + 1
        if nxt in (DECLARE_BLOCKERS, COMBAT_DAMAGE) and not self.attackers:
            nxt = END_COMBAT  # 508.8: no attackers, skip blockers and damage
        self.step = nxt
        self.k.append((F_BEGIN_STEP,))

    def _f_cleanup(self) -> None:
        a = self.active
        # 514.1: discard down to maximum hand size.
        mh = self.rules.max_hand
        if mh is not None and len(self.hand[a]) > mh:
            self.k.append((F_CLEANUP,))
            self.ctx = CLEANUP_DISCARD
            self._set_decision(D_DISCARD, a, -1, f"discard to {mh} cards")
            return
        self._end_turn_effects()
        # 514.3a: if SBAs or triggers would happen, players get priority, then another
        # cleanup step follows.
        if self._sba_pending() or self.triggers:
            self.k.append((F_PRIO, a))  # when all pass: another cleanup step (F_END_STEP)
            return
        self._start_turn(1 - a)

    def _end_turn_effects(self) -> None:
        """514.2: damage is removed and "until end of turn" effects end."""
        for p in self.perm.values():
            p.damage = 0
            p.deathtouched = False
        n = len(self.effects)
        self.effects = [e for e in self.effects if e.duration != DUR_EOT]
        if len(self.effects) != n:
            self._dirty = True
        self.fog_turn = -1

    def _step_triggers(self, event: str) -> None:
        a = self.active
        for cid in self._derived().triggered:
            ch = self.chars(cid)
            if not self.rules.triggers_at_step(ch):
                continue
            for idx, ab in enumerate(ch.abilities):
                if ab.__class__ is not TriggeredAbility or ab.event != event:
                    continue
                info: dict[str, Any] = {}
                if ab.whose == "you":
                    if ch.controller != a:
                        continue
                elif ab.whose == "enchanted_controller":
                    t = self.perm[cid].attached
                    if t < 0 or self.zone[t] != BATTLEFIELD or self.chars(t).controller != a:
                        continue
                    info["enchanted"] = (t, self.oid[t])
                if not self._condition_holds(ab, cid, ch.controller):
                    continue
                self._add_trigger(ch.controller, cid, ab, idx, info)
        if event == "end_step" and self.delayed:
            rest = []
            for t in self.delayed:
                if t.info.get("at") == "next_end_step":
                    self.triggers.append(t)
                else:
                    rest.append(t)
            self.delayed = rest

    def _condition_holds(self, ab: TriggeredAbility, cid: int, controller: int) -> bool:
        """Intervening "if" clauses (CR 603.4), checked on triggering and resolving."""
        for cond in ab.condition:
            p = self.perm.get(cid)
            if p is None:
                return False
            if cond == "not_attacked_this_turn" and p.attacked_turn == self.turn:
                return False
            if cond == "controlled_since_turn_start" and p.control_since > self.turn_start_clock:
                return False
        return True

    def _add_trigger(
        self, controller: int, cid: int, ab: TriggeredAbility, idx: int, info: dict[str, Any]
    ) -> None:
        self.triggers.append(Trigger(controller, cid, self.oid[cid], ab, idx, info))
        self._log("trigger", controller, cid, idx)

    # ------------------------------------------------------------------ priority

    def _f_prio(self, p: int, resolve: bool = False) -> None:
        """CR 117.5: before a player receives priority, SBAs are checked (repeatedly) and
        then triggered abilities are put on the stack; then the player gets priority. With
        `resolve` (a format's priority policy) the stack resolves before anyone acts."""
        if self._settled((F_PRIO, p), resolve):
            # The two priority decisions are immutable values: shared, not rebuilt each time.
            self._decision = _PRIORITY[p]
            self._legal = None

    def _pass(self, p: int) -> None:
        self.rules.pass_priority(self, p)

    # ------------------------------------------------------------------ mana

    def mana_sources(self, seat: int, exclude: int = -1) -> list[Source]:
        """The mana `seat` can spend now, as payment sources (the format's mana model)."""
        return self.rules.mana_sources(self, seat, exclude)

    def _pay_mana(self, seat: int, cost: Any, exclude: int = -1) -> None:
        if cost:
            self.rules.pay_mana(self, seat, cost, exclude)

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> list[Action]:
        d = self._decision
        assert d is not None
        k = d.kind
        p = d.player
        if k == D_PRIORITY:
            return self.rules.priority_actions(self, p)
        if k == D_TARGET:
            return [Action(TARGET, r) for r in self._target_choices()]
        if k == D_ATTACKERS:
            return [PASS_ACTION] + [Action(ATTACK, c, 1 - p) for c in cb.can_attack_list(self)]
        if k == D_BLOCKERS:
            acts = [PASS_ACTION] if cb.blocks_legal(self) else []
            return acts + [Action(BLOCKER, c) for c in cb.blocker_choices(self)]
        if k == D_BLOCK_TARGET:
            return [Action(BLOCK, a) for a in cb.block_target_choices(self, self.ctx.blocker)]
        if k in (D_CHOICE, D_TRIGGER_ORDER):
            return [Action(CHOOSE, 0, i) for i in range(len(d.options))]
        if k == D_MULLIGAN:
            return (
                [KEEP_ACTION, MULLIGAN_ACTION]
                if self.mull_count[p] < self.rules.opening_hand - 1
                else [KEEP_ACTION]
            )
        if k in (D_BOTTOM, D_DISCARD):
            cards = [Action(CARD, c) for c in self.hand[p]]
            redraw = isinstance(self.ctx, Redraw)
            return [PASS_ACTION, *cards] if redraw else cards
        if k == D_SELECT:
            return [Action(CARD, c) for c in self.ctx.choices]
        raise AssertionError(k)  # pragma: no cover

    def cost_of(self, p: int, cd: CardDef) -> Any:
        """What `p` pays to cast `cd` now (the format may change a card's cost)."""
        return self.rules.cost(self, p, cd)

    def _priority_actions(self, p: int) -> list[Action]:
        """CR 117.1: what `p` may do with priority (the format decides whether to use this)."""
        acts = [PASS_ACTION]
        sorcery_ok = self.active == p and self.step in (MAIN1, MAIN2) and not self.stack
        hand = self.hand[p]
        if sorcery_ok and self.lands_played < 1:
            for cid in hand:
                if self.cdef[cid].types & LAND:
                    acts.append(Action(PLAY, cid))
        srcs: list[Source] | None = None
        castable: dict[CardDef, bool] = {}  # copies of a card in hand share the answer
        for cid in hand:
            cd = self.cdef[cid]
            if cd.types & LAND:
                continue
            # Off the battlefield only characteristic-defining abilities and colour
            # effects apply (chars_off_battlefield), so a card's keywords are printed ones.
            if not (sorcery_ok or cd.types & INSTANT or "flash" in cd.keywords):
                continue
            ok = castable.get(cd)
            if ok is None:
                if cd.cost is None:
                    ok = False  # a card without a mana cost can't be cast (CR 202.1b)
                else:
                    if srcs is None:
                        srcs = self.mana_sources(p)
                    specs = spell_targets(cd)
                    # Targets are checked against the spell's colours as it would be cast
                    # (112.3, 702.16b): a colour effect on cards off the battlefield
                    # (Celestial Dawn) applies, so the card's current characteristics.
                    src = self.chars(cid) if self._offbf[p] else cd
                    ok = can_pay(srcs, cd.cost) and (
                        not specs or self._targets_exist(specs, cid, p, SPELL, src)
                    )
                castable[cd] = ok
            if ok:
                acts.append(Action(PLAY, cid))
        for cid, ch, idx, ab in self._derived().activated[p]:
            if srcs is None:
                srcs = self.mana_sources(p)
            if self._can_activate(p, cid, ch, ab, sorcery_ok, srcs) is None:
                acts.append(Action(ACTIVATE, cid, idx))
        return acts

    def _can_activate(
        self,
        p: int,
        cid: int,
        ch: Chars,
        ab: ActivatedAbility,
        sorcery_ok: bool,
        srcs: list[Source] | None = None,
    ) -> str | None:
        """None if `ab` of `cid` can be activated by `p` now, else the reason. `srcs`:
        `p`'s mana sources if already computed (the source itself is left out when it
        must tap for the ability)."""
        if ab.timing == "your_turn" and self.active != p:
            return "it can be activated only during your turn"
        if ab.timing == "sorcery" and not sorcery_ok:
            return "it can be activated only as a sorcery"
        cost = ab.cost
        if cost.tap:
            if self.perm[cid].tapped:
                return f"{ch.name} is tapped"
            if ch.types & CREATURE and self.sick(cid) and "haste" not in ch.keywords:
                return (
                    f"{ch.name} has summoning sickness (CR 302.6): its controller has not "
                    "controlled it continuously since their most recent turn began, so "
                    "abilities with {T} in the cost can't be activated"
                )
        if cost.mana:
            if srcs is None:
                srcs = self.mana_sources(p)
            if cost.tap:
                srcs = [s for s in srcs if s.cid != cid]
            if not can_pay(srcs, cost.mana):
                return f"you can't pay {cost.mana.text}"
        if ab.targets and not self._targets_exist(ab.targets, cid, p, ABILITY, ch):
            return "there is no legal target"
        return None

    # ------------------------------------------------------------------ targets

    def _targets_exist(
        self, specs: Sequence[TargetSpec], src: int, you: int, kind: int, src_ch: Any
    ) -> bool:
        colors = src_ch.colors
        for spec in specs:
            if spec.allows_player:
                continue  # a player is always a legal target (_iter_targets yields both)
            k = spec.kind
            if k in ("any", "creature"):
                # Only creatures can match these kinds: look at them alone.
                target_ok = self._target_ok
                if not any(target_ok(spec, c, src, you, colors) for c in self._derived().creatures):
                    return False
                continue
            for _ in self._iter_targets(spec, src, you, colors, kind):
                break
            else:
                return False
        return True

    def _iter_targets(
        self, spec: TargetSpec, src: int, you: int, src_colors: int, kind: int
    ) -> Iterable[int]:
        k = spec.kind
        if spec.allows_player:
            yield player_ref(0)
            yield player_ref(1)
        if k == "spell":
            for it in self.stack:
                if it.kind == SPELL and it.cid != src:
                    yield it.cid
            return
        if k == "graveyard_card":
            for seat in (0, 1):
                for cid in self.graveyard[seat]:
                    if self._target_ok(spec, cid, src, you, src_colors):
                        yield cid
            return
        if k == "player":
            return
        for cid in self.battlefield:
            if self._target_ok(spec, cid, src, you, src_colors):
                yield cid

    def _target_ok(self, spec: TargetSpec, cid: int, src: int, you: int, src_colors: int) -> bool:
        """Is object `cid` a legal target for `spec` (CR 115, 702.16b protection)?"""
        k = spec.kind
        z = self.zone[cid]
        if k == "spell":
            return (
                z == STACK
                and cid != src
                and any(it.kind == SPELL and it.cid == cid for it in self.stack)
            )
        if k == "graveyard_card":
            if z != GRAVEYARD:
                return False
            ch = self.chars(cid)
            return matches(spec.filter, ch, cid, src, you, self.owner[cid])
        if z != BATTLEFIELD:
            return False
        ch = self.chars(cid)
        t = ch.types
        if k in ("any", "creature"):
            if not t & CREATURE:
                return False
        elif k == "land":
            if not t & LAND:
                return False
        elif k == "aura":
            if not ch.has_subtype(AURA_SUBTYPE):
                return False
        elif k == "enchantment":
            if not t & 4:
                return False
        if src_colors & ch.prot:
            return False
        return matches(spec.filter, ch, cid, src, you, self.owner[cid])

    def _target_choices(self) -> list[int]:
        ctx = self.ctx
        item, specs = ctx.item, ctx.specs
        spec = specs[len(item.targets)]
        colors = self._item_colors(item)
        return list(self._iter_targets(spec, item.cid, item.controller, colors, item.kind))

    def _item_colors(self, item: StackItem) -> int:
        if item.kind == SPELL:
            return self.chars(item.cid).colors
        return self._source_chars(item.cid, item.src_oid).colors

    def _source_chars(self, cid: int, oid: int) -> Chars:
        """Characteristics of a source, using last known information if it left (CR 608.2h)."""
        if self.oid[cid] == oid or self.zone[cid] == BATTLEFIELD and self.perm[cid].oid == oid:
            return self.chars(cid)
        lk = self.lki.get(cid)
        if lk is not None and lk[0] == oid:
            return lk[1]
        return self.chars(cid)

    def target_still_legal(self, item: StackItem, i: int) -> bool:
        """608.2b: a target is illegal if it's gone (a new object) or no longer matches."""
        ref, oid = item.targets[i]
        if ref < 0:
            return True
        if self.oid[ref] != oid:
            return False
        specs = _item_specs(self, item)
        spec = specs[i]
        colors = self._item_colors(item)
        return self._target_ok(spec, ref, item.cid, item.controller, colors)

    # ------------------------------------------------------------------ answering

    def _answer(self, d: Decision, a: Action) -> None:
        k = d.kind
        p = d.player
        if k == D_PRIORITY:
            if a.kind == PASS:
                self._pass(p)
                return
            self.passes = 0
            self.rules.answer_priority(self, p, a)
            return
        ctx = self.ctx
        if ctx is not None:
            answer = self.rules.answers.get(ctx.__class__)
            if answer is not None:
                answer(self, p, a)
                return
        if k == D_TARGET:
            item = self.ctx.item
            item.targets.append((a.obj, 0 if a.obj < 0 else self.oid[a.obj]))
            self._next_target()
            return
        if k == D_ATTACKERS:
            cb.answer_attackers(self, a)
            return
        if k in (D_BLOCKERS, D_BLOCK_TARGET):
            cb.answer_blockers(self, a)
            return
        if k == D_MULLIGAN:
            self._answer_mulligan(p, a)
            return
        if k == D_BOTTOM:
            self._move(a.obj, LIBRARY, bottom=True)
            self._log("bottom", p)
            return
        if k == D_DISCARD:
            if isinstance(ctx, CleanupDiscard):
                self._discard(p, a.obj)
                self.ctx = None
            else:
                assert self.res is not None
                self.res.vars["answer"] = a.obj
            return
        if k == D_TRIGGER_ORDER:
            mine = [t for t in self.triggers if t.controller == p]
            t = mine[a.arg]
            self.triggers.remove(t)
            self._put_trigger(t)
            return
        if k == D_CHOICE:
            if isinstance(self.ctx, Resolving):
                assert self.res is not None
                self.res.vars["answer"] = a.arg
            return
        if k == D_SELECT:
            if isinstance(ctx, Legend):
                self.ctx = LegendKeep(a.obj)
            elif isinstance(ctx, Resolving):
                assert self.res is not None
                self.res.vars["answer"] = a.obj
            return
        raise AssertionError(k)  # pragma: no cover

    def _take_priority_action(self, p: int, a: Action) -> None:
        """CR 117.1a: play a land, cast a spell or activate an ability."""
        if a.kind == PLAY:
            if self.cdef[a.obj].types & LAND:
                self._play_land(p, a.obj)
            else:
                self._begin_cast(p, a.obj)
        elif a.kind == ACTIVATE:
            self._begin_activate(p, a.obj, a.arg)

    # ------------------------------------------------------------------ lands, casting

    def _play_land(self, p: int, cid: int) -> None:
        # 305.2: one land per turn; it doesn't use the stack (305.1).
        self.lands_played += 1
        self._move(cid, BATTLEFIELD, controller=p)
        self._log("play_land", p, cid)
        self._etb(cid)
        self.k.append((F_PRIO, p))

    def _begin_cast(self, p: int, cid: int) -> None:
        """CR 601.2: move the card to the stack, choose targets one at a time, pay."""
        cd = self.cdef[cid]
        self._move(cid, STACK)
        item = StackItem(self.oid[cid], SPELL, cid, self.oid[cid], p, cd.spell, -1)
        self.stack.append(item)
        self.k.append((F_CAST_DONE,))
        self.ctx = Targets(item, tuple(spell_targets(cd)), F_CAST_DONE)
        self._next_target()

    def _begin_activate(self, p: int, cid: int, idx: int) -> None:
        """CR 602.2: announce, choose targets, pay costs; the ability goes on the stack."""
        ab = activated_at(self.chars(cid), idx)
        item = StackItem(self._new_oid(), ABILITY, cid, self.oid[cid], p, ab, idx)
        self.k.append((F_ACT_DONE,))
        self.ctx = Targets(item, tuple(ab.targets), F_ACT_DONE)
        self._next_target()

    def _next_target(self) -> None:
        ctx = self.ctx
        item, specs = ctx.item, ctx.specs
        i = len(item.targets)
        if i < len(specs):
            self._set_decision(
                D_TARGET,
                item.controller,
                item.cid,
                f"target {i + 1} of {len(specs)}: {specs[i].text}",
            )

    def _f_cast_done(self) -> None:
        item = self.ctx.item
        self.ctx = None
        cd = self.cdef[item.cid]
        self._pay_mana(item.controller, self.rules.cost(self, item.controller, cd))
        self._log("cast", item.controller, item.cid, tuple(item.targets))
        self.rules.after_cast(self, item.controller)

    def _f_act_done(self) -> None:
        item = self.ctx.item
        self.ctx = None
        ab: ActivatedAbility = item.ability
        cid = item.cid
        p = item.controller
        self._pay_mana(p, ab.cost.mana, cid if ab.cost.tap else -1)
        if ab.cost.tap:
            self.perm[cid].tapped = True
        if ab.cost.sacrifice_self:
            self._to_graveyard(cid, "sacrificed")
        self.stack.append(item)
        self._log("activate", p, cid, item.ab_index, tuple(item.targets))
        self.k.append((F_PRIO, self.rules.priority_after(p)))

    # ------------------------------------------------------------------ triggers

    def _f_put_triggers(self) -> None:
        """CR 603.3b: APNAP order; a player with several triggers orders them."""
        if not self.triggers:
            return
        for seat in (self.active, 1 - self.active):
            mine = [t for t in self.triggers if t.controller == seat]
            if not mine:
                continue
            self.k.append((F_PUT_TRIGGERS,))
            if len(mine) == 1:
                self.triggers.remove(mine[0])
                self._put_trigger(mine[0])
            else:
                opts = tuple(
                    f"{self.name(t.cid)}: {t.ability.text or t.ability.event}" for t in mine
                )
                self.ctx = TRIGGER_ORDER
                self._set_decision(
                    D_TRIGGER_ORDER, seat, -1, "choose the next trigger to put on the stack", opts
                )
            return

    def _put_trigger(self, t: Trigger) -> None:
        ab: TriggeredAbility = t.ability
        item = StackItem(
            self._new_oid(), TRIGGER, t.cid, t.src_oid, t.controller, ab, t.ab_index, dict(t.info)
        )
        if ab.targets:
            src_ch = self._source_chars(t.cid, t.src_oid)
            if not self._targets_exist(ab.targets, t.cid, t.controller, TRIGGER, src_ch):
                self._log("trigger_removed", t.controller, t.cid)  # 603.3d
                return
            self.k.append((F_TRIG_DONE,))
            self.ctx = Targets(item, tuple(ab.targets), F_TRIG_DONE)
            self._next_target()
            return
        self.stack.append(item)

    def _f_trig_done(self) -> None:
        item = self.ctx.item
        self.ctx = None
        self.stack.append(item)

    # ------------------------------------------------------------------ resolution

    def _f_resolve(self) -> None:
        """CR 608: resolve the top object; then the active player gets priority."""
        item = self.stack[-1]
        self.rules.after_resolve(self)
        if item.targets:
            legal = [self.target_still_legal(item, i) for i in range(len(item.targets))]
            if not any(legal):
                # 608.2b: every target illegal: it doesn't resolve.
                self._log("fizzle", item.cid)
                self.stack.pop()
                if item.kind == SPELL:
                    self._move(item.cid, GRAVEYARD)
                return
            item.info["illegal"] = tuple(i for i, ok in enumerate(legal) if not ok)
        if item.kind == TRIGGER and item.ability.condition:
            if not self._condition_holds(item.ability, item.cid, item.controller):
                self.stack.pop()
                self._log("condition_false", item.cid)
                return
        if item.kind == SPELL and self.cdef[item.cid].types & PERMANENT_TYPES:
            self._resolve_permanent(item)
            return
        ops = item.ability.effects if item.ability is not None else ()
        self._log("resolve", item.cid, item.kind)
        self.res = Resolution(item, ops)
        self.k.append((F_OPS,))

    def _resolve_permanent(self, item: StackItem) -> None:
        """608.3: a permanent spell enters the battlefield; an Aura attaches to its target.
        A card that may enter as a copy makes its choice first (CR 707.5)."""
        cd = self.cdef[item.cid]
        if cd.enters_as_copy:
            self._log("resolve", item.cid, SPELL)
            ops = (Op("enter_as_copy"), Op("enter_battlefield"))
            self.res = Resolution(item, ops)
            self.k.append((F_OPS,))
            return
        self.stack.pop()
        self._log("resolve", item.cid, SPELL)
        self._enter_from_stack(item, None)

    def _enter_from_stack(self, item: StackItem, copy_def: CardDef | None) -> None:
        cid = item.cid
        if self.stack and self.stack[-1] is item:
            self.stack.pop()
        self._move(cid, BATTLEFIELD, controller=item.controller)
        if copy_def is not None:
            self.perm[cid].copy_def = copy_def
            self._log("copy", cid, copy_def.name)
        if self.cdef[cid].enchant is not None:
            self.perm[cid].attached = item.targets[0][0]
            self._sba_ok = None
        self._etb(cid)

    def can_enchant(self, aura: int, target: int) -> bool:
        """Could Aura `aura` legally enchant object `target` (CR 303.4, 702.16c)?"""
        spec = self.cdef[aura].enchant
        if spec is None or self.zone[target] != BATTLEFIELD or aura == target:
            return False
        tch = self.chars(target)
        if spec.kind == "creature" and not tch.types & CREATURE:
            return False
        if spec.kind == "land" and not tch.types & LAND:
            return False
        # 702.16c: can't be enchanted by an Aura of a color it has protection from.
        ach = self.chars(aura)
        return not (ach.colors & tch.prot and not _keeps_itself(ach))

    def _f_ops(self) -> None:
        res = self.res
        assert res is not None
        while res.frames:
            frame = res.frames[-1]
            ops, pc = frame
            if pc >= len(ops):
                res.frames.pop()
                continue
            done = fx.run_op(self, res, ops[pc])
            if self.over:
                return
            if not done:
                self.k.append((F_OPS,))
                return
            frame[1] = pc + 1
        item = res.item
        self.res = None
        if self.stack and self.stack[-1] is item:
            self.stack.pop()
        if item.kind == SPELL and self.zone[item.cid] == STACK:
            self._move(item.cid, GRAVEYARD)  # 608.2n

    # ------------------------------------------------------------------ ETB and damage

    def _etb(self, cid: int) -> None:
        ch = self.chars(cid)
        for idx, ab in enumerate(ch.abilities):
            if ab.__class__ is TriggeredAbility and ab.event == "enters":
                self._add_trigger(ch.controller, cid, ab, idx, {})

    def _damage(self, src: int, src_ch: Chars, target: int, amount: int, combat: bool) -> int:
        """Deal damage (CR 120) after prevention; returns the damage dealt."""
        if amount <= 0:
            return 0
        if combat and self.fog_turn == self.turn:
            return 0
        if target < 0:
            seat = ref_player(target)
            self.life[seat] -= amount
            self._sba_ok = None
            self._log("damage", src, target, amount)
            if seat != src_ch.controller:
                for idx, ab in enumerate(src_ch.abilities):
                    if ab.__class__ is TriggeredAbility and ab.event == "damage_to_opponent":
                        self._add_trigger(src_ch.controller, src, ab, idx, {"player": seat})
        else:
            if self.zone[target] != BATTLEFIELD:
                return 0
            tch = self.chars(target)
            if src_ch.colors & tch.prot:
                return 0  # 702.16e: damage from a source of that color is prevented
            p = self.perm[target]
            p.damage += amount
            self._sba_ok = None
            if "deathtouch" in src_ch.keywords:
                p.deathtouched = True
            self._log("damage", src, target, amount)
        if "lifelink" in src_ch.keywords:
            self.life[src_ch.controller] += amount  # 702.15b
            self._log("lifelink", src_ch.controller, amount)
        return amount

    # ------------------------------------------------------------------ state-based actions

    def _sba_pending(self) -> bool:
        return bool(self._sba_collect())

    def _sba_collect(self) -> list[tuple]:
        acts: list[tuple] = []
        for seat in (0, 1):
            if self.life[seat] <= 0:
                acts.append(("lose", seat, "life 0 or less (CR 704.5a)"))
            elif self.drew_from_empty[seat]:
                acts.append(("lose", seat, "drew from an empty library (CR 704.5b)"))
        # Only tokens that left the battlefield can be in another zone (noted in _move).
        for cid in self.stray_tokens:
            if self.zone[cid] not in (BATTLEFIELD, NOWHERE, STACK):
                acts.append(("token_gone", cid))
        legends: dict[tuple[int, str], list[int]] = {}
        perm = self.perm
        # Only permanents that some state-based action can touch, in battlefield order
        # (the order of `acts` decides the order of zone changes).
        for cid, ch in self._derived().sba:
            p = perm[cid]
            if ch.types & CREATURE:
                t = ch.toughness or 0
                if t <= 0:
                    acts.append(("graveyard", cid, "toughness 0 or less (CR 704.5f)"))
                    continue
                if p.damage >= t:
                    acts.append(("destroy", cid, "lethal damage (CR 704.5g)"))
                    continue
                if p.deathtouched and p.damage > 0:
                    acts.append(("destroy", cid, "deathtouch damage (CR 704.5h)"))
                    continue
            if ch.types & 4 and ch.has_subtype(AURA_SUBTYPE):
                if not self._aura_legal(cid, ch):
                    acts.append(("graveyard", cid, "Aura not legally attached (CR 704.5m)"))
                    continue
            elif p.attached >= 0 and "Equipment" in ch.subtypes:
                t = p.attached
                if (
                    self.zone[t] != BATTLEFIELD
                    or not self.chars(t).types & CREATURE
                    or (ch.colors & self.chars(t).prot)
                ):
                    acts.append(("unattach", cid))
            if ch.supertypes & LEGENDARY:
                legends.setdefault((ch.controller, ch.name), []).append(cid)
            c = p.counters
            if c and c.get("+1/+1", 0) and c.get("-1/-1", 0):
                acts.append(("annihilate", cid))
        for (seat, _name), cids in legends.items():
            if len(cids) > 1:
                acts.append(("legend", seat, tuple(cids)))
        return acts

    def _aura_legal(self, cid: int, ch: Chars) -> bool:
        t = self.perm[cid].attached
        return t >= 0 and self.can_enchant(cid, t)

    def _sba(self) -> str:
        """Perform one round of state-based actions (CR 704.3). Returns "none" if there
        were none, "done" if some were performed, "paused" if a choice is pending."""
        # Nothing an SBA reads changed since a check found none: the same layer state (the
        # Derived tables) and no move, damage, life loss, attachment or empty draw since.
        if not self._dirty and self._sba_ok is not None and self._sba_ok is self._drv:
            return "none"
        acts = self._sba_collect()
        if not acts:
            self._sba_ok = self._drv  # _sba_collect brought the layer state up to date
            return "none"
        # The legend rule needs its controller's choice (CR 704.5j).
        keep: dict[tuple[int, ...], int] = {}
        for a in acts:
            if a[0] == "legend":
                cids = a[2]
                ctx = self.ctx
                if isinstance(ctx, LegendKeep) and ctx.card in cids:
                    keep[cids] = ctx.card
                    self.ctx = None
                else:
                    self.ctx = Legend(cids)
                    self._set_decision(
                        D_SELECT, a[1], -1, f"legend rule: choose the {self.name(cids[0])} to keep"
                    )
                    return "paused"
        losers = [a[1] for a in acts if a[0] == "lose"]
        to_gy: list[tuple[int, str]] = []
        for a in acts:
            if a[0] in ("graveyard", "destroy"):
                to_gy.append((a[1], a[2]))
            elif a[0] == "legend":
                kept = keep[a[2]]
                to_gy.extend((c, "legend rule (CR 704.5j)") for c in a[2] if c != kept)
            elif a[0] == "annihilate":
                c = self.perm[a[1]].counters
                assert c is not None
                n = min(c["+1/+1"], c["-1/-1"])
                c["+1/+1"] -= n
                c["-1/-1"] -= n
                for key in ("+1/+1", "-1/-1"):
                    if not c[key]:
                        del c[key]
                self._dirty = True
            elif a[0] == "unattach":
                self.perm[a[1]].attached = -1  # 704.5n: it stays on the battlefield
                self._dirty = True
                self._log("unattach", a[1])
            elif a[0] == "token_gone":
                cid = a[1]
                z = self.zone[cid]
                zl = {
                    HAND: self.hand,
                    GRAVEYARD: self.graveyard,
                    EXILE: self.exile,
                    LIBRARY: self.library,
                }[z]
                owner = self.owner[cid]
                zl[self.rules.pile(owner) if z in (GRAVEYARD, LIBRARY) else owner].remove(cid)
                self.zone[cid] = NOWHERE
                self.stray_tokens.remove(cid)
                self._dirty = True
        for p in self.perm.values():
            p.deathtouched = False
        # Leaving simultaneously: gather last known information first (CR 603.10a).
        lki = [(cid, why, self.chars(cid)) for cid, why in to_gy]
        for cid, why, ch in lki:
            if self.zone[cid] != BATTLEFIELD:
                continue
            self._move(cid, GRAVEYARD)
            self._log("sba", cid, why)
            if ch.types & CREATURE:
                self._dies(cid, ch)
        if losers:
            for s in losers:
                self.lost[s] = True
                self.lose_reason[s] = next(a[2] for a in acts if a[0] == "lose" and a[1] == s)
                self._log("lose", s, self.lose_reason[s])
            self._end_game()
        return "done"

    def _to_graveyard(self, cid: int, why: str) -> None:
        """Destroy or sacrifice: to its owner's graveyard, with "dies" triggers."""
        ch = self.chars(cid)
        self._move(cid, GRAVEYARD)
        self._log("to_graveyard", cid, why)
        if ch.types & CREATURE:
            self._dies(cid, ch)

    def _dies(self, cid: int, ch: Chars) -> None:
        """Leaves-the-battlefield triggers look back in time (CR 603.10a)."""
        for idx, ab in enumerate(ch.abilities):
            if ab.__class__ is TriggeredAbility and ab.event == "dies":
                self.triggers.append(Trigger(ch.controller, cid, self.lki[cid][0], ab, idx, {}))
                self._log("trigger", ch.controller, cid, idx)

    def _end_game(self) -> None:
        self.over = True
        self._decision = None
        self._legal = None
        if self.lost[0] and self.lost[1]:
            self.winner = None  # both lose at once: a draw (CR 104.4a)
        elif self.lost[0]:
            self.winner = 1
        else:
            self.winner = 0
        self._log("game_over", self.winner)

    # ------------------------------------------------------------------ mulligans

    def _f_mulligan(self) -> None:
        """London mulligan (CR 103.5): in turn order each undecided player keeps or
        mulligans; mulligans shuffle and draw seven; a keeper bottoms one card per
        mulligan taken."""
        order = (self.first_player, 1 - self.first_player)
        for seat in order:
            if not self.mull_kept[seat] and seat not in self.mull_round:
                self.k.append((F_MULLIGAN,))
                self._set_decision(
                    D_MULLIGAN, seat, -1, f"keep {len(self.hand[seat])} cards or mulligan"
                )
                return
        # Everyone declared this round: those who mulliganed draw new hands.
        again = [s for s in order if not self.mull_kept[s]]
        if again:
            for s in again:
                for cid in list(self.hand[s]):
                    self._move(cid, LIBRARY)
                self.rng.shuffle(self.library[s])
                for _ in range(self.rules.opening_hand):
                    self._draw(s)
            self.mull_round = []
            self.k.append((F_MULLIGAN,))
            return
        self._start_turn(self.first_player, first=True)

    def _answer_mulligan(self, p: int, a: Action) -> None:
        self.mull_round.append(p)
        if a.kind == KEEP:
            self.mull_kept[p] = True
            self._log("keep", p, len(self.hand[p]) - self.mull_count[p])
            n = min(self.mull_count[p], len(self.hand[p]))
            for _ in range(n):
                self.k.append((F_BOTTOM, p))
        else:
            self.mull_count[p] += 1
            self._log("mulligan", p)

    def _f_bottom(self, p: int) -> None:
        self._set_decision(D_BOTTOM, p, -1, "put a card on the bottom of your library")

    # ------------------------------------------------------------------ combat damage

    def _f_damage(self) -> None:
        cb.combat_damage(self)

    # ------------------------------------------------------------------ illegal actions

    def _why_illegal(self, a: Action) -> str:
        return why_illegal(self, a)

    # ------------------------------------------------------------------ hidden information

    def resample_hidden(self, seat: int, rng: Any = None) -> Game:
        """A copy where what `seat` cannot see is re-dealt: the opponent's hand is redrawn
        from the opponent's unseen cards (hand + library) and both libraries are
        reshuffled. `seat`'s own hand, all public zones and the decision are unchanged."""
        g = self.clone()
        g.rules.resample_hidden(g, seat, _as_rng(rng))
        g._legal = None
        return g


def _keeps_itself(aura: Chars) -> bool:
    """Black Ward: "This effect doesn't remove Black Ward" (its protection never makes the
    Aura itself fall off, whatever color word a text change put there)."""
    return any(
        ab.__class__ is StaticAbility and "doesnt_remove_source" in ab.rules
        for ab in aura.abilities
    )


def _as_rng(rng: Any) -> Rng:
    if rng is None:
        return Rng(0)
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, int):
        return Rng(rng)
    # random.Random or numpy Generator: draw a seed from it
    if hasattr(rng, "getrandbits"):
        return Rng(rng.getrandbits(63))
    if hasattr(rng, "integers"):
        return Rng(int(rng.integers(0, 2**63 - 1)))
    raise TypeError("rng must be None, an int, an Rng, random.Random or numpy Generator")


def _deck_names(d: Deck | str | Sequence[str], fmt: str) -> tuple[str, ...]:
    if isinstance(d, Deck):
        if d.format != fmt:
            raise ValueError(f"deck {d.name!r} is a {d.format} deck; this game is {fmt}")
        return d.cards
    if isinstance(d, str):
        return resolve_deck(d, fmt).cards
    return tuple(d)


def _item_specs(g: Game, item: StackItem) -> tuple[TargetSpec, ...]:
    if item.kind == SPELL:
        return spell_targets(g.cdef[item.cid])
    return item.ability.targets


def _copy_ctx(ctx: Context | None, items: dict[int, StackItem]) -> Context | None:
    """The context for a clone: contexts are immutable values, except that the stack item
    whose targets are being chosen is the clone's copy of it."""
    if isinstance(ctx, Targets):
        item = ctx.item
        return Targets(items.get(id(item)) or item.copy(), ctx.specs, ctx.done)
    return ctx


def _ctx_state(ctx: Context | None) -> Any:
    return None if ctx is None else ctx.state()


def _effect_state(e: Effect) -> tuple:
    return (e.ts, repr(e.components), e.affected, e.duration, e.source, e.source_oid, e.controller)


# The shared frames by id (engine.frames); a format replaces some and adds its own.
_SHARED_FRAMES: dict[int, Any] = {
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
_TABLES: dict[type, tuple] = {}


def _frame_table(fmt: Format) -> tuple:
    """Frame id -> function for games of format `fmt` (built once per format class)."""
    frames = {**_SHARED_FRAMES, **fmt.frames}
    if sorted(frames) != list(range(len(frames))):
        raise ValueError(f"format {fmt.name}: frame ids must run 0..n-1, got {sorted(frames)}")
    table = tuple(frames[i] for i in range(len(frames)))
    _TABLES[fmt.__class__] = table
    return table


class Derived:
    """Tables derived from one layer state (see `Game._derived`); never mutated."""

    __slots__ = (
        "sba",
        "mana",
        "activated",
        "controlled",
        "cda",
        "positions",
        "triggered",
        "creatures",
    )

    def __init__(self, g: Game) -> None:
        chars = g._chars
        sba: list[tuple[int, Chars]] = []
        mana: tuple[list[tuple], list[tuple]] = ([], [])
        activated: tuple[list[tuple], list[tuple]] = ([], [])
        controlled: tuple[list[int], list[int]] = ([], [])  # battlefield order
        self.cda = False  # a characteristic-defining ability on the battlefield
        self.triggered: list[int] = []  # permanents with a triggered ability
        self.creatures: list[int] = []  # battlefield order
        for cid in g.battlefield:
            ch = chars[cid]
            p = g.perm[cid]
            controlled[ch.controller].append(cid)
            if ch.types & CREATURE:
                self.creatures.append(cid)
            if any(ab.__class__ is TriggeredAbility for ab in ch.abilities):
                self.triggered.append(cid)
            if (
                ch.types & CREATURE
                or (ch.types & 4 and ch.has_subtype(AURA_SUBTYPE))
                or "Equipment" in ch.subtypes
                or ch.supertypes & LEGENDARY
                or p.counters
            ):
                sba.append((cid, ch))
            seat = ch.controller
            colors = free = pain = 0
            other = False
            idx = -1
            for ab in ch.abilities:
                cls = ab.__class__
                if cls is ManaAbility:
                    idx += 1
                    colors |= ab.produce & 31
                    if ab.pain:
                        pain = ab.pain
                    else:
                        free |= ab.produce
                elif cls is ActivatedAbility:
                    idx += 1
                    other = True
                    activated[seat].append((cid, ch, idx, ab))
                elif cls is StaticAbility and ab.cda:
                    self.cda = True
            if not colors and not free:
                continue
            if g._white_any[seat]:
                # Celestial Dawn: white mana pays any color; other mana only generic.
                colors = 31 if colors & 1 else 0
                free = 31 if free & 1 else free & 32
            creature = bool(ch.types & CREATURE)
            score = (100 if creature else 0) + (5 if other else 0) + bin(colors).count("1")
            src = Source(cid, colors, pain, score, free)
            mana[seat].append((cid, creature, "haste" in ch.keywords, src))
        self.sba = sba
        self.mana = mana
        self.activated = activated
        self.controlled = controlled
        # cid -> index in controlled[seat] (observation slots), built on first use
        self.positions: list[dict[int, int] | None] = [None, None]

    def __repr__(self) -> str:
        return f"<Derived {len(self.controlled[0])}+{len(self.controlled[1])} permanents>"
