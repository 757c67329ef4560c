"""`pocket`: "Pocket Game: The Gathering" (source document 003, docs/pocket.md).

One shared pile, two-part cards with suits, face-down mana sources, reaction windows and
several attacks per turn, on the engine's steps: READY is the untap step, then the active
player's main phase, from which each attack runs through ATTACK (declare), DEFEND (the
opponent assigns defenders) and FIGHT (reactions, then damage) and returns to the main
phase; passing in the main phase goes to CLEANUP (heal, remove one unspent unstable mana
source, draw).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .. import combat as cb
from ..cards import CardDef, ManaCost, spell_targets
from ..constants import (
    ATTACK,
    BATTLEFIELD,
    CLEANUP,
    COMBAT_DAMAGE,
    D_ATTACKERS,
    D_DISCARD,
    D_SELECT,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    FACE_DOWN,
    GRAVEYARD,
    HAND,
    LIBRARY,
    MAIN1,
    PASS,
    PLAY,
    UNTAP,
)
from ..decisions import ATTACKERS, Redraw, Unstable
from ..frames import (
    F_AFTER_BATTLE,
    F_BATTLE,
    F_BEGIN_STEP,
    F_CLEANUP,
    F_PRIO,
    F_SETTLE,
    FIRST_FORMAT_FRAME,
)
from ..layers import Chars
from ..mana import can_pay
from ..objects import SPELL, Action, FormatState, action
from ..protocol import GameLike
from ..rng import Rng
from .base import Format

# This format's own frames.
F_REDRAW: Final = FIRST_FORMAT_FRAME
F_BLOCKS: Final = FIRST_FORMAT_FRAME + 1
F_FIGHT: Final = FIRST_FORMAT_FRAME + 2
F_DRAW: Final = FIRST_FORMAT_FRAME + 3
FACE_DOWN_PLAY: Final = 2  # action(PLAY, card, 2): play the card face down as a mana source
PASS_ACTION: Final = action(PASS)


@mypyc_attr(serializable=True)  # pickled with the game (copies of envs and states)
class PocketState(FormatState):
    """Pocket's own per-game state: the reaction window open now ("attack" after an attack
    is declared, "cast" after a spell is cast, None for none), which decides who may act."""

    __slots__ = ("window",)

    def __init__(self, window: str | None = None) -> None:
        self.window = window

    def copy(self) -> PocketState:
        return PocketState(self.window)


def pocket_state(g: GameLike) -> PocketState:
    """The game's pocket state (a pocket game always has one)."""
    st = g.format_state
    assert isinstance(st, PocketState)
    return st


def _face_down(g: GameLike, seat: int, cid: int) -> None:
    """Put card `cid` from `seat`'s hand onto the battlefield face down: a ready mana
    source that shows nothing of the card."""
    whole = g.cdef[cid]
    g._move(cid, BATTLEFIELD, controller=seat)
    g.cdef[cid] = g.cardset.face_down[whole.name]
    g._dirty = True
    g._log("face_down", seat, cid)


def _redraw(g: GameLike, seat: int, n: int, last: bool) -> None:
    g.ctx = Redraw(seat, n, last)
    g._set_decision(D_DISCARD, seat, -1, "discard cards to draw as many (one at a time, then done)")


def _answer_redraw(g: GameLike, p: int, a: Action) -> None:
    ctx = g.ctx
    assert isinstance(ctx, Redraw)
    seat, n, last = ctx.seat, ctx.n, ctx.last
    g.ctx = None
    if a.kind == PASS:
        for _ in range(n):
            g._draw(seat)
        if last:
            g._start_turn(g.first_player, first=True)
        else:
            g.k.append((F_REDRAW, 1 - seat, 0, True))
    else:
        g._discard(seat, a.obj)
        g.k.append((F_REDRAW, seat, n + 1, last))


def _begin_step(g: GameLike) -> None:
    step = g.step
    a = g.active
    g.passes = 0
    g._log("step", step)
    if step == UNTAP:  # READY: ready all of the active player's cards
        g._untap_all(a)
        g.step = MAIN1
        g.k.append((F_BEGIN_STEP,))
        g.k.append((F_SETTLE,))
    elif step == CLEANUP:
        g.k.append((F_CLEANUP,))
    else:
        g.k.append((F_PRIO, a))


def _cleanup(g: GameLike) -> None:
    """Damaged creatures heal; the player removes one unspent unstable (face-down) mana
    source of their choice; then draws; the other player's turn."""
    a = g.active
    g._end_turn_effects()
    unspent = [
        c
        for c in g.battlefield
        if g.cdef[c].name == FACE_DOWN and not g.perm[c].tapped and g.chars(c).controller == a
    ]
    g.k.append((F_DRAW,))
    g.k.append((F_SETTLE,))
    if len(unspent) == 1:
        _remove_unstable(g, a, unspent[0])
    elif unspent:
        g.ctx = Unstable(tuple(unspent))
        g._set_decision(D_SELECT, a, -1, "remove one unspent unstable mana source")


def _remove_unstable(g: GameLike, seat: int, cid: int) -> None:
    g._move(cid, GRAVEYARD)
    g._log("unstable_removed", seat, cid)


def _answer_unstable(g: GameLike, p: int, a: Action) -> None:
    g.ctx = None
    _remove_unstable(g, p, a.obj)


def _draw_then_next_turn(g: GameLike) -> None:
    a = g.active
    g._draw(a)
    g._start_turn(1 - a)


def _start_attack(g: GameLike, p: int, cid: int, defender: int) -> None:
    """An attack from the main phase: attackers (this one first), then the opponent's
    defenders, then reactions, then damage; then back to the main phase."""
    g.step = DECLARE_ATTACKERS
    g._log("step", DECLARE_ATTACKERS)
    cb.begin_combat(g)
    g.attackers[cid] = defender
    g.k.append((F_BLOCKS,))
    g.ctx = ATTACKERS
    g._set_decision(D_ATTACKERS, p, -1, "declare attackers (one at a time, then done)")


def _blocks(g: GameLike) -> None:
    g.step = DECLARE_BLOCKERS
    g._log("step", DECLARE_BLOCKERS)
    g.k.append((F_FIGHT,))
    g.k.append((F_SETTLE,))
    cb.start_declare_blockers(g)


def _fight(g: GameLike) -> None:
    g.step = COMBAT_DAMAGE
    g._log("step", COMBAT_DAMAGE)
    pocket_state(g).window = "attack"
    g.passes = 0
    g.k.append((F_PRIO, g.active))


def _after_battle(g: GameLike) -> None:
    # Attackers still on the board are exhausted; back to the main phase, where the
    # player may attack again or play more cards.
    for cid in g.attackers:
        if cid in g.perm:
            g.perm[cid].tapped = True
    cb.end_combat(g)
    g.step = MAIN1
    g._log("step", MAIN1)
    g.k.append((F_PRIO, g.active))


@mypyc_attr(allow_interpreted_subclasses=True)  # a new format may extend it
class Pocket(Format):
    __slots__ = ()

    name = "pocket"
    card_set = "pocket"
    deck_size = 18
    opening_hand = 3
    max_hand = None
    mulligans = False
    summoning_sickness = False
    piles = 1
    step_names = {
        UNTAP: "ready",
        MAIN1: "main",
        DECLARE_ATTACKERS: "attack",
        DECLARE_BLOCKERS: "defend",
        COMBAT_DAMAGE: "fight",
        CLEANUP: "cleanup",
    }
    frames = {
        F_BEGIN_STEP: _begin_step,
        F_CLEANUP: _cleanup,
        F_AFTER_BATTLE: _after_battle,
        F_REDRAW: _redraw,
        F_BLOCKS: _blocks,
        F_FIGHT: _fight,
        F_DRAW: _draw_then_next_turn,
    }
    answers = {Redraw: _answer_redraw, Unstable: _answer_unstable}

    def deal(
        self,
        g: GameLike,
        names: Sequence[tuple[str, ...]],
        first_player: int | None,
        mulligans: bool,
    ) -> None:
        """One shared pile; each player draws a card and places it face down as a mana
        source, then draws three; then, first player first, each may discard cards and
        draw as many."""
        if tuple(names[1]) != tuple(names[0]):
            raise ValueError(f"a {self.name} game has one shared pile: give the same deck twice")
        g.deck_names = [tuple(names[0]), tuple(names[0])]
        for name in names[0]:
            cid = g._new_card(g.cardset.get(name), 0)
            g.zone[cid] = LIBRARY
            g.library[0].append(cid)
        g.rng.shuffle(g.library[0])
        fp = g._choose_first(first_player)
        for seat in (fp, 1 - fp):
            g._draw(seat)
            _face_down(g, seat, g.hand[seat][-1])
        for seat in (fp, 1 - fp):
            for _ in range(self.opening_hand):
                g._draw(seat)
        g._log("start", fp)
        g.k.append((F_REDRAW, fp, 0, False))

    def check_setup_step(self, step: int) -> None:
        if step != MAIN1:
            raise ValueError(
                f"a {self.name} position starts in the active player's main phase "
                f"({self.step_name(MAIN1)}), not {self.step_name(step)}"
            )

    def draw(self, g: GameLike, seat: int) -> None:
        """Draw from the shared pile, which is the discard pile reshuffled when it runs
        out; with both empty nothing is drawn. The drawer owns the card now."""
        lib = g.library[0]
        if not lib:
            if not g.graveyard[0]:
                g._log("draw_empty", seat)
                return
            for cid in list(g.graveyard[0]):
                g._move(cid, LIBRARY)
            g.rng.shuffle(g.library[0])
            g._log("reshuffle", len(lib))
        cid = lib[-1]
        g.owner[cid] = seat
        g._move(cid, HAND)
        g._log("draw", seat, cid)

    def priority_actions(self, g: GameLike, p: int) -> list[Action]:
        acts = [PASS_ACTION]
        w = pocket_state(g).window
        srcs = self.mana_sources(g, p)
        want = "" if w is None else ("opponent_plays_card" if w == "cast" else "during_attack")
        for cid in g.hand[p]:
            whole = g.cdef[cid]
            if w is None and g.lands_played < 1:
                acts.append(action(PLAY, cid, FACE_DOWN_PLAY))
            for h, half in enumerate(whole.halves):
                if half.reaction != want:
                    continue
                cost = self.cost(g, p, half)
                if cost is None or not can_pay(srcs, cost):
                    continue
                specs = spell_targets(half)
                if specs and not g._targets_exist(specs, cid, p, SPELL, half):
                    continue
                acts.append(action(PLAY, cid, h))
        if w is None:
            acts += [action(ATTACK, c, 1 - p) for c in cb.can_attack_list(g)]
        return acts

    def answer_priority(self, g: GameLike, p: int, a: Action) -> None:
        if a.kind == ATTACK:
            _start_attack(g, p, a.obj, a.arg)
        elif a.arg == FACE_DOWN_PLAY:
            g.lands_played += 1
            _face_down(g, p, a.obj)
            g.k.append((F_PRIO, p))
        else:
            g.cdef[a.obj] = g.cdef[a.obj].halves[a.arg]
            g._begin_cast(p, a.obj)

    def pass_priority(self, g: GameLike, p: int) -> None:
        w = pocket_state(g).window
        if w == "cast":
            # No reaction: the card takes effect; the active player goes on.
            pocket_state(g).window = None
            g.k.append((F_PRIO, g.active))
            g.k.append((F_SETTLE,))
        elif w == "attack":
            g.passes += 1
            if g.passes >= 2:
                g.passes = 0
                pocket_state(g).window = None
                g.k.append((F_BATTLE,))
            else:
                g.k.append((F_PRIO, 1 - p))
        else:
            # Done playing cards and attacking: cleanup.
            g.step = CLEANUP
            g.k.append((F_BEGIN_STEP,))

    def after_cast(self, g: GameLike, p: int) -> None:
        w = pocket_state(g).window
        if w is None:
            # After a card is announced and paid, the opponent may react.
            pocket_state(g).window = "cast"
            g.k.append((F_PRIO, 1 - p))
        elif w == "cast":
            # A reaction: it can't be reacted to; everything takes effect (it first).
            pocket_state(g).window = None
            g.k.append((F_PRIO, g.active))
            g.k.append((F_SETTLE,))
        else:
            # During an attack: it takes effect; then the other player may react.
            g.k.append((F_PRIO, 1 - p))
            g.k.append((F_SETTLE,))

    def after_resolve(self, g: GameLike) -> None:
        pass  # cards take effect from the frame that settles them

    def cost(self, g: GameLike, p: int, cd: CardDef) -> Any:
        """The cost less 1 per permanent `p` controls that shares a suit with the card,
        never below nothing."""
        cost = cd.cost
        if cost is None or not cd.subtypes:
            return cost
        n = sum(1 for c in g.controlled(p) if g.chars(c).subtypes & cd.subtypes)
        return cost if n == 0 else ManaCost(max(0, cost.mv - n), (), f"{{{max(0, cost.mv - n)}}}")

    def taps_on_attack(self, ch: Chars) -> bool:
        return False  # attackers are exhausted after the attack instead (`_after_battle`)

    def divide_damage(
        self, g: GameLike, a: int, blockers: list[int], power: int, defender: int
    ) -> list[tuple[int, int]]:
        # "Each creature deals damage to its power divided amongst creatures it is
        # fighting": evenly, the remainder one point at a time in assignment order.
        base, rem = divmod(power, len(blockers))
        split = [(b, base + (1 if i < rem else 0)) for i, b in enumerate(blockers)]
        return [(b, n) for b, n in split if n > 0]

    def new_state(self) -> PocketState:
        return PocketState()

    def hash_extras(self, g: GameLike) -> list:
        return [pocket_state(g).window]

    def resample_hidden(self, g: GameLike, seat: int, r: Rng) -> None:
        super().resample_hidden(g, seat, r)
        # What is under the opponent's face-down sources is unseen too; each may trade
        # identities with an unseen card (hand or pile).
        opp = 1 - seat
        unseen = g.hand[opp] + g.library[0]
        for f in g.battlefield:
            if g.cdef[f].name != FACE_DOWN or g.controller(f) != opp:
                continue
            j = r.below(len(unseen) + 1)
            if j < len(unseen):
                c = unseen[j]
                under, other = g.cdef[f].half_of, g.cdef[c].name
                g.cdef[f] = g.cardset.face_down[other]
                g.cdef[c] = g.cardset.cards[under]


POCKET: Final = Pocket()
