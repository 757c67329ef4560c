"""`Format`: the Comprehensive Rules' answer to every hook a rules format may decide.

The hooks are declared in engine.hooks (`FormatHooks`, the type of the game's `rules`); the
numbers and the hooks that need no game are there in full, and those that take the game are
implemented here.

A format is a subclass of `Format` (python-chess's board variants are the model): its
numbers are class attributes, its rules are the hook methods it overrides, and its turn
structure is the continuation frames it replaces or adds (`frames`). The shared engine
(`mtg_env.engine.game`) calls the hooks and never asks which format it runs; see
docs/formats.md for how to add one.

The hooks, by job:

- numbers: `starting_life`, `opening_hand`, `max_hand`, `mulligans`, `summoning_sickness`,
  `deck_size`, `card_set`, `piles` (2: a library and a graveyard each; 1: one shared pile),
  `step_names`, `after_blocks` (the step in which players act after blockers are declared).
- setup: `deal` (a new game), `check_setup_step` and `setup_player` (a scripted position,
  `player_fields` naming the extra per-player fields a position may give).
- turn structure: `frames` (frame id -> function of the game; see `engine.frames`),
  `triggers_at_step`, `draw`.
- priority policy: `priority_actions`, `answer_priority`, `pass_priority`, `after_cast`,
  `priority_after`, `after_resolve`, `answers` (answers to the format's own decisions).
- mana model: `mana_sources`, `pay_mana`, `cost`, `mana_text`.
- combat: `taps_on_attack`, `divide_damage`.
- hashing extras: `hash_extras` (state only this format has).
- hidden information: `resample_hidden`.

Hooks take the game as their first argument and may use its internals: a format is part
of the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .. import combat as cb
from ..cards import CardDef
from ..constants import (
    HAND,
    LIBRARY,
    player_ref,
)
from ..frames import F_END_STEP, F_MULLIGAN, F_PRIO, F_RESOLVE
from ..hooks import FormatHooks
from ..mana import Source, choose_payment, mana_symbols, pool_sources
from ..objects import Action
from ..protocol import GameLike
from ..rng import SHUFFLE, Rng

Frame = Callable[..., None]


# A new format is a subclass of Format (docs/formats.md), which may be plain Python (a
# test's, a user's module) where Format is compiled.
@mypyc_attr(allow_interpreted_subclasses=True)
class Format(FormatHooks):
    """The Comprehensive Rules' answers (the classic format); a format overrides what it
    changes. Instances are stateless: one per format, shared by all its games."""

    __slots__ = ()

    def __reduce__(self) -> tuple:
        # A format pickles as its name: the registered instance on the other side.
        return (rules_for, (self.name,))

    # ------------------------------------------------------------------ setup

    def deal(
        self,
        g: GameLike,
        names: Sequence[tuple[str, ...]],
        first_player: int | None,
        mulligans: bool,
    ) -> None:
        """A new game (CR 103): shuffle each library, choose the first player, draw the
        opening hands, then London mulligans as decisions (or the first turn)."""
        for seat, deck in enumerate(names):
            g.deck_names[seat] = deck
            for name in deck:
                cid = g._new_card(g.cardset.get(name), seat)
                g.zone[cid] = LIBRARY
                g.library[seat].append(cid)
            g.rng.for_seat(seat, SHUFFLE).shuffle(g.library[seat])
        fp = g._choose_first(first_player)
        for seat in (fp, 1 - fp):
            for _ in range(self.opening_hand):
                g._draw(seat)
        g._log("start", fp)
        if mulligans and self.mulligans:
            g.k.append((F_MULLIGAN,))
        else:
            g._start_turn(fp, first=True)

    def setup_player(self, g: GameLike, seat: int, spec: dict[str, Any]) -> None:
        """A scripted position's format-specific player fields (`player_fields`)."""

    # ------------------------------------------------------------------ turn structure

    def draw(self, g: GameLike, seat: int) -> None:
        """`seat` draws a card; from an empty library they lose at the next SBA check
        (CR 704.5b)."""
        lib = g.library[seat]
        if not lib:
            g.drew_from_empty[seat] = True
            g._sba_ok = None
            g._log("draw_empty", seat)
            return
        cid = lib[-1]
        g._move(cid, HAND)
        g._log("draw", seat, cid)

    # ------------------------------------------------------------------ priority

    def priority_actions(self, g: GameLike, p: int) -> list[Action]:
        """What `p` may do with priority (CR 117.1)."""
        return g._priority_actions(p)

    def answer_priority(self, g: GameLike, p: int, a: Action) -> None:
        """`p` took action `a` (not a pass) with priority."""
        g._take_priority_action(p, a)

    def pass_priority(self, g: GameLike, p: int) -> None:
        """CR 117.4: when all players pass in succession the top object resolves, or with
        an empty stack the step ends; otherwise the next player gets priority."""
        g.passes += 1
        if g.passes >= 2:
            g.passes = 0
            g.k.append((F_RESOLVE,) if g.stack else (F_END_STEP,))
        else:
            g.k.append((F_PRIO, 1 - p))

    def after_cast(self, g: GameLike, p: int) -> None:
        """`p` finished casting a spell (CR 601.2i): who gets priority next."""
        g.k.append((F_PRIO, self.priority_after(p)))

    def after_resolve(self, g: GameLike) -> None:
        """CR 117.3b: the active player receives priority after an object resolves."""
        g.k.append((F_PRIO, g.active))

    # ------------------------------------------------------------------ mana

    def mana_sources(self, g: GameLike, seat: int, exclude: int = -1) -> list[Source]:
        """The untapped mana abilities `seat` can activate now (CR 106, 605)."""
        out = []
        perm = g.perm
        sickness = self.summoning_sickness
        turn_start = g.last_turn_start[seat]
        for cid, creature, haste, src in g._derived().mana[seat]:
            p = perm[cid]
            if cid == exclude or (p.tapped and src.tap):
                continue
            if creature and not haste and sickness and p.control_since > turn_start and src.tap:
                continue  # 302.6: {T} abilities of a "sick" creature can't be activated
            out.append(src)  # Source objects are never mutated: built once per layer state
        pool = g.mana_pool
        if pool is not None and pool[seat]:
            return pool_sources(pool[seat], g._spend[seat]) + out
        return out

    def pay_mana(self, g: GameLike, seat: int, cost: Any, exclude: int = -1) -> None:
        """Pay `cost` from `seat`'s sources (the choice is automatic; see engine.mana)."""
        srcs = self.mana_sources(g, seat, exclude)
        pay = choose_payment(srcs, cost)
        if pay is None:  # pragma: no cover - legality was checked before
            raise RuntimeError("internal error: cost became unpayable")
        pool = g.mana_pool
        # Only in a set that keeps a pool (CardSet.add_mana) is a source pool mana or one
        # of several mana an ability made; elsewhere the payment is as it always was.
        spent: list[int] | None = [] if pool is not None else None
        multi: dict[int, int] | None = {} if pool is not None else None
        for src, color in pay:
            if spent is not None and multi is not None:
                if src.cid < -1:  # mana from the pool (mana.pool_sources)
                    spent.append(-2 - src.cid)
                    continue
                if src.multi:  # one of several mana: how many of them were spent
                    multi[src.cid] = multi.get(src.cid, 0) + 1
            if src.tap:
                g.perm[src.cid].tapped = True
            if color and not src.free & color and src.pain:
                g._damage(src.cid, g.chars(src.cid), player_ref(seat), src.pain, False)
        if pool is not None and spent is not None and multi is not None:
            if spent:
                pool[seat] = [m for i, m in enumerate(pool[seat]) if i not in spent]
            for cid, n in multi.items():
                # The ability made all its mana (CR 106.4): what the payment left is in
                # the pool.
                pool[seat] += [s.multi for s in srcs if s.cid == cid][n:]
        g._log("pay", seat, cost.text, tuple(s.cid for s, _ in pay))
        for src, _ in pay:
            if src.sac and src.cid in g.perm:  # once, however many mana it made
                g._to_graveyard(src.cid, "sacrificed")  # its cost (CR 111.10a's token)

    def cost(self, g: GameLike, p: int, cd: CardDef) -> Any:
        """What `p` pays to cast `cd`."""
        return cd.cost

    def mana_text(self, g: GameLike, seat: int) -> str | None:
        """Mana a player has apart from their permanents, for views (None: nothing): the
        mana in their pool (public, CR 106.4)."""
        pool = g.mana_pool
        if pool is not None and pool[seat]:
            return mana_symbols(pool[seat])
        return None

    # ------------------------------------------------------------------ combat

    def divide_damage(
        self, g: GameLike, a: int, blockers: list[int], power: int, defender: int
    ) -> list[tuple[int, int]]:
        """How attacker `a` divides its combat damage among its blockers (CR 510.1c-d)."""
        return cb.divide_cr(g, a, blockers, power, defender)

    # ------------------------------------------------------------------ its own state

    # ------------------------------------------------------------------ hashing

    def hash_extras(self, g: GameLike) -> list:
        """State only this format has, appended to `Game.state_hash()`'s parts."""
        return []

    # ------------------------------------------------------------------ hidden information

    def resample_hidden(self, g: GameLike, seat: int, r: Rng) -> None:
        """Re-deal in place what `seat` cannot see: the opponent's hand is redrawn from
        their unseen cards (hand + library) and both libraries are reshuffled."""
        opp = 1 - seat
        lib = self.pile(opp)
        # A card in the hand that is the source of an ability on the stack was revealed
        # (ninjutsu, CR 702.49a): it is seen, and stays.
        sources = {it.cid for it in g.stack} if g.stack else None
        shown = [c for c in g.hand[opp] if c in sources] if sources else []
        pool = [c for c in g.hand[opp] if c not in shown] + g.library[lib]
        n_hand = len(g.hand[opp]) - len(shown)
        r.shuffle(pool)
        g.hand[opp] = shown + pool[:n_hand]
        g.library[lib] = pool[n_hand:]
        for cid in g.hand[opp]:
            g.zone[cid] = HAND
            g.owner[cid] = opp
        for cid in g.library[lib]:
            g.zone[cid] = LIBRARY
        if self.pile(seat) != lib:
            r.shuffle(g.library[seat])


FORMATS: Final[dict[str, Format]] = {}


def register(fmt: Format) -> Format:
    """Make `fmt` known by its name (to `Game.new`, the env, decks and scenario files)."""
    if not fmt.name or not fmt.card_set:
        raise ValueError(f"{type(fmt).__name__}: a format needs a name and a card_set")
    FORMATS[fmt.name] = fmt
    return fmt


def rules_for(name: str) -> Format:
    """The format called `name`; a clear error naming the known formats otherwise."""
    r = FORMATS.get(name)
    if r is None:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return r
