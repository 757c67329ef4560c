"""The game: `Game` is the one state class (python-chess style) with an OpenSpiel-style API:
`current_player`, `decision`, `legal_actions()`, `apply()`, `clone()`, `is_over`,
`winner`, `state_hash()`. Internally the game runs as an explicit continuation stack
(`self.k`) of small tuples, so that a game paused at any decision (mid-cast, mid-
resolution, mid-SBA) is plain data and clones by copying lists.

`Game` is split by job, one base class per module: building a game (`setup`), zones
(`zones`), the turn (`turn`), priority and casting (`priority`), targets (`targets`), the
stack and triggers (`stack`) and state-based actions (`sba`); this module holds the public
API, the run loop and the characteristics cache. Its fields are declared once
(`engine.fields`), and the format's hooks (`engine.formats`) decide what a format changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from operator import index
from typing import Any, Final, SupportsIndex

from . import combat as cb
from .constants import (
    BATTLEFIELD,
    CREATURE,
    D_PRIORITY,
    STACK,
)
from .derived import Derived
from .explain import why_illegal
from .formats import Format
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
from .layers import Chars, chars_off_battlefield, compute
from .log import describe_action, obj_name, render_events
from .objects import (
    SPELL,
    Action,
    Decision,
    IllegalActionError,
)
from .rng import Rng
from .setup import Setup
from .state import clone_state, hash_parts


class Game(Setup):
    """A two-player game. Build one with `Game.new(...)` (or `Game.setup(...)` for a
    scripted position); then alternate `legal_actions()` and `apply()`."""

    __slots__ = ()  # the fields' slots are GameFields' (engine.state, from engine.fields)

    # ------------------------------------------------------------------ construction

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

    def chars(self, cid: SupportsIndex) -> Chars:
        """Characteristics of object `cid` as the layer system computes them."""
        if not isinstance(cid, int):  # a numpy integer, say: the compiled build needs an int
            cid = index(cid)
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
            d = self._drv = Derived(self._chars, self.battlefield, self.perm, self._spend)
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


def _frame_table(fmt: Format) -> tuple:
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
