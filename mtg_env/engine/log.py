"""Readable text for events, actions and abilities (for logs, `watch` and envs)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .cards import ActivatedAbility, ManaAbility, StaticAbility, TriggeredAbility
from .constants import (
    ACTIVATE,
    ATTACK,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    D_ATTACKERS,
    D_BLOCKERS,
    D_BOTTOM,
    D_DISCARD,
    D_SELECT,
    KEEP,
    LAND,
    MULLIGAN,
    PASS,
    PLAY,
    STEP_NAMES,
    TARGET,
    ref_player,
)
from .effects import op_text
from .objects import Action, activated_at
from .protocol import GameLike


def obj_name(g: GameLike, ref: int) -> str:
    if ref < 0:
        return f"player {ref_player(ref)}"
    return f"{g.cdef[ref].name}#{ref}"


def ability_text(ab: Any) -> str:
    if getattr(ab, "text", ""):
        return ab.text
    if isinstance(ab, ManaAbility):
        return "{T}: add mana"
    if isinstance(ab, ActivatedAbility):
        cost = ab.cost.text or ""
        if ab.cost.sacrifice_self:
            cost = (cost + ", " if cost else "") + "sacrifice this"
        return f"{cost}: " + "; ".join(op_text(o) for o in ab.effects)
    if isinstance(ab, TriggeredAbility):
        return f"{ab.event}: " + "; ".join(op_text(o) for o in ab.effects)
    if isinstance(ab, StaticAbility):
        return "static: " + ", ".join(c.op for c in ab.components)
    return repr(ab)


def describe_action(g: GameLike, a: Action) -> str:
    d = g.decision
    k = a.kind
    if k == PASS:
        if d is not None and d.kind == D_ATTACKERS:
            return "done declaring attackers"
        if d is not None and d.kind == D_BLOCKERS:
            return "done declaring blockers"
        return "pass priority"
    if k == PLAY:
        halves = g.cdef[a.obj].halves
        if halves:  # pocket: a half, or the card face down as a mana source
            if a.arg >= len(halves):
                return f"play {obj_name(g, a.obj)} face down as a mana source"
            part = "top" if a.arg == 0 else "bottom"
            return f"cast {halves[a.arg].name} ({part} half of {obj_name(g, a.obj)})"
        verb = "play" if g.cdef[a.obj].types & LAND else "cast"
        return f"{verb} {obj_name(g, a.obj)}"
    if k == ACTIVATE:
        try:
            ab = activated_at(g.chars(a.obj), a.arg)
            return f"activate {obj_name(g, a.obj)} [{a.arg}] {ability_text(ab)}"
        except Exception:
            return f"activate {obj_name(g, a.obj)} ability {a.arg}"
    if k == ATTACK:
        return f"attack player {a.arg} with {obj_name(g, a.obj)}"
    if k == BLOCKER:
        return f"block with {obj_name(g, a.obj)}"
    if k == BLOCK:
        return f"block {obj_name(g, a.obj)}"
    if k == TARGET:
        return f"target {obj_name(g, a.obj)}"
    if k == CHOOSE:
        if d is not None and a.arg < len(d.options):
            return f"choose {d.options[a.arg]}"
        return f"choose option {a.arg}"
    if k == KEEP:
        return "keep hand"
    if k == MULLIGAN:
        return "mulligan"
    if k == CARD:
        if d is not None and d.kind == D_BOTTOM:
            return f"put {obj_name(g, a.obj)} on the bottom"
        if d is not None and d.kind == D_DISCARD:
            return f"discard {obj_name(g, a.obj)}"
        if d is not None and d.kind == D_SELECT:
            return f"choose {obj_name(g, a.obj)}"
        return f"card {obj_name(g, a.obj)}"
    return repr(a)


def render_event(g: GameLike, e: tuple) -> str | None:
    k = e[0]
    n = lambda r: obj_name(g, r)  # noqa: E731
    if k == "start":
        return f"Game start: player {e[1]} plays first"
    if k == "turn":
        return f"=== Turn {e[1]} (player {e[2]}) ==="
    if k == "step":
        return None
    if k == "draw":
        return f"  player {e[1]} draws {n(e[2])}"
    if k == "draw_empty":
        return f"  player {e[1]} can't draw: library empty"
    if k == "discard":
        return f"  player {e[1]} discards {n(e[2])}"
    if k == "mulligan":
        return f"  player {e[1]} mulligans"
    if k == "keep":
        return f"  player {e[1]} keeps ({e[2]} cards)"
    if k == "bottom":
        return None
    if k == "play_land":
        return f"  player {e[1]} plays {n(e[2])}"
    if k == "cast":
        tg = ", ".join(n(t) for t, _ in e[3])
        return f"  player {e[1]} casts {n(e[2])}" + (f" targeting {tg}" if tg else "")
    if k == "announce":
        if e[3] == "x":
            return f"  player {e[1]} announces X = {e[4]} for {n(e[2])}"
        if e[3] == "kicker":
            paid = "pays" if e[4] else "doesn't pay"
            return f"  player {e[1]} {paid} the kicker cost of {n(e[2])}"
        if e[3] == "bestow":
            how = "for its bestow cost, as an Aura" if e[4] else "as a creature"
            return f"  player {e[1]} casts {n(e[2])} {how}"
        cd = g.cdef[e[2]]
        modes = cd.spell.modes if cd.spell is not None else ()
        text = modes[e[4]].text if e[4] < len(modes) else f"mode {e[4] + 1}"
        return f"  player {e[1]} chooses for {n(e[2])}: {text}"
    if k == "activate":
        tg = ", ".join(n(t) for t, _ in e[4])
        return f"  player {e[1]} activates {n(e[2])} [{e[3]}]" + (f" targeting {tg}" if tg else "")
    if k == "pay":
        return None
    if k == "trigger":
        return f"  {n(e[2])} triggers"
    if k == "trigger_removed":
        return f"  {n(e[2])}'s trigger has no legal target and is removed"
    if k == "resolve":
        return f"  {n(e[1])} resolves" if e[2] == 0 else f"  {n(e[1])}'s ability resolves"
    if k == "fizzle":
        return f"  {n(e[1])} doesn't resolve: all its targets are illegal"
    if k == "condition_false":
        return f"  {n(e[1])}'s trigger does nothing (its condition is false)"
    if k == "damage":
        return f"  {n(e[1])} deals {e[3]} damage to {n(e[2])}"
    if k == "lifelink":
        return f"  player {e[1]} gains {e[2]} life (lifelink)"
    if k == "poison":
        return f"  player {e[1]} gets {e[2]} poison counter{'s' if e[2] != 1 else ''}"
    if k == "gain_life":
        return f"  player {e[1]} gains {e[2]} life"
    if k == "lose_life":
        return f"  player {e[1]} loses {e[2]} life"
    if k == "exiled":
        return f"  {n(e[1])} is exiled"
    if k == "milled":
        return f"  {n(e[1])} is milled"
    if k == "scry":
        return f"  player {e[1]} scries {e[2]}"
    if k == "reveal_hand":
        shown = ", ".join(n(c) for c in e[2]) or "no cards"
        return f"  player {e[1]} reveals their hand: {shown}"
    if k == "convoke":
        return f"  player {e[1]} taps {', '.join(n(c) for c in e[2])} for convoke"
    if k == "stun_removed":
        return f"  a stun counter is removed from {n(e[1])} instead of untapping it"
    if k == "plot":
        return f"  player {e[1]} plots {n(e[2])} (exiled from their hand)"
    if k == "reveal_ninjutsu":
        return f"  player {e[1]} reveals {n(e[2])} from their hand (ninjutsu)"
    if k == "ninjutsu":
        return f"  player {e[1]} puts {n(e[2])} onto the battlefield tapped and attacking"
    if k == "explore_reveal":
        return f"  player {e[1]} reveals {n(e[2])} from the top of their library (explore)"
    if k == "explore_graveyard":
        return f"  player {e[1]} puts {n(e[2])} into their graveyard (explore)"
    if k == "initiative":
        return f"  player {e[1]} takes the initiative"
    if k == "venture":
        return f"  player {e[1]} ventures into Undercity: {e[2]}"
    if k == "goad":
        return f"  {n(e[1])} is goaded"
    if k == "cascade_exile":
        return f"  player {e[1]} exiles {n(e[2])} from the top of their library (cascade)"
    if k == "reveal_top":
        return f"  player {e[1]} reveals {n(e[2])} from the top of their library"
    if k == "choose_type":
        return f"  player {e[1]} chooses {e[2]}"
    if k == "look_at":
        return f"  player {e[1]} looks at the top {e[2]} cards of their library"
    if k == "look_take":
        return f"  player {e[1]} puts {n(e[2])} into their hand"
    if k == "look_reveal":
        return f"  player {e[1]} reveals {n(e[2])} and puts it into their hand"
    if k == "look_graveyard":
        return f"  player {e[1]} puts {n(e[2])} into their graveyard"
    if k == "look_rest_bottom":
        return f"  player {e[1]} puts {e[2]} cards on the bottom of their library"
    if k == "search":
        return f"  player {e[1]} searches their library"
    if k == "impulse":
        return f"  player {e[1]} exiles {n(e[2])} and may play it for a while"
    if k == "copy_spell":
        return f"  player {e[1]} puts a copy of {n(e[2])} on the stack"
    if k == "add_mana":
        return f"  player {e[1]} adds {e[2]} to their mana pool"
    if k == "mana_empties":
        return f"  player {e[1]}'s unspent mana ({e[2]}) empties from their pool"
    if k == "shuffled_in":
        return f"  {n(e[1])} is shuffled into its owner's library"
    if k == "search_declined":
        return f"  player {e[1]} doesn't search their library"
    if k == "search_nothing":
        return f"  player {e[1]} finds nothing and shuffles their library"
    if k == "search_reveal":
        return f"  player {e[1]} reveals {n(e[2])}, puts it into their hand and shuffles"
    if k == "search_reveal_top":
        return f"  player {e[1]} reveals {n(e[2])}, shuffles and puts it on top of their library"
    if k == "to_library_top":
        return f"  {n(e[1])} is put on top of its owner's library"
    if k == "search_battlefield":
        return f"  player {e[1]} puts {n(e[2])} onto the battlefield tapped and shuffles"
    if k == "surveil":
        return f"  player {e[1]} surveils {e[2]}"
    if k == "look_top":
        return f"  player {e[1]} puts {n(e[2])} on top of their library"
    if k == "look_bottom":
        return f"  player {e[1]} puts {n(e[2])} on the bottom of their library"
    if k == "surveil_graveyard":
        return f"  player {e[1]} puts {n(e[2])} into their graveyard (surveil)"
    if k in ("sba", "to_graveyard"):
        return f"  {n(e[1])} goes to the graveyard ({e[2]})"
    if k == "shield":
        return f"  {n(e[1])} gets a regeneration shield"
    if k == "regenerate":
        return f"  {n(e[1])} regenerates (tapped, damage removed)"
    if k == "lose":
        return f"  player {e[1]} loses: {e[2]}"
    if k == "game_over":
        return "Game over: " + ("draw" if e[1] is None else f"player {e[1]} wins")
    if k == "control":
        return f"  player {e[2]} now controls {n(e[1])}"
    if k == "no_attackers":
        return None
    if k == "attack":
        return f"  {n(e[1])} attacks"
    if k == "block":
        return f"  {n(e[1])} blocks {n(e[2])}"
    if k == "combat_damage":
        return None
    if k == "to_hand":
        return f"  {n(e[1])} returns to its owner's hand"
    if k == "to_battlefield":
        return f"  {n(e[1])} returns to the battlefield"
    if k == "countered":
        return f"  {n(e[1])} is countered"
    if k == "ability_countered":
        return f"  {n(e[1])}'s ability is countered"
    if k == "paid":
        return f"  player {e[1]} pays {e[2]}"
    if k == "prevent_next":
        who = f"player {ref_player(e[1])}" if e[1] < 0 else n(e[1])
        return f"  the next {e[2]} damage to {who} this turn will be prevented"
    if k == "exiled_instead":
        return f"  {n(e[1])} is exiled instead of dying"
    if k == "prevented":
        return f"  {e[2]} damage is prevented"
    if k == "pay_life":
        return f"  player {e[1]} pays {e[2]} life"
    if k == "token":
        return f"  player {e[1]} creates {n(e[2])}"
    if k == "counter":
        return f"  {n(e[1])} gets {e[3]} {e[2]} counter(s)"
    if k == "prevent_combat_damage":
        return "  combat damage will be prevented this turn"
    if k == "copy":
        return f"  {n(e[1])} enters as a copy of {e[2]}"
    if k == "attach":
        return f"  {n(e[1])} becomes attached to {n(e[2])}"
    if k == "unattach":
        return f"  {n(e[1])} becomes unattached"
    if k == "bestow_ends":
        return f"  {n(e[1])} is an enchantment creature again (bestow)"
    if k == "setup":
        return (
            f"Scripted position: turn {e[1]}, player {e[2]} active, step {g.rules.step_name(e[3])}"
        )
    if k == "face_down":
        return f"  player {e[1]} plays a card face down as a mana source"
    if k == "unstable_removed":
        return (
            f"  player {e[1]} removes an unstable mana source: {n(e[2])} goes to the discard pile"
        )
    if k == "reshuffle":
        return "  the discard pile is shuffled into a new draw pile"
    if k == "mana":
        return f"  player {e[1]}'s mana pool is refilled to {e[2]}"
    if k == "sacrifice":
        return f"  player {e[1]} sacrifices {n(e[2])}"
    if k == "truncated":
        return f"Game truncated after {e[1]} decisions"
    return f"  {k} {e[1:]}"


def private_event(e: tuple) -> tuple[int, str] | None:
    """For an event whose line shows a card only one seat may see (a draw): that seat and
    the line the other seat sees instead; None for a public event."""
    if e[0] == "draw":
        return e[1], f"  player {e[1]} draws a card"
    if e[0] == "look_top":
        return e[1], f"  player {e[1]} puts a card on top of their library"
    if e[0] == "look_bottom":
        return e[1], f"  player {e[1]} puts a card on the bottom of their library"
    if e[0] == "look_take":
        return e[1], f"  player {e[1]} puts a card into their hand"
    return None


def render_events(g: GameLike, events: Iterable[tuple], seat: int | None = None) -> str:
    """Readable lines; with `seat`, as that seat sees them (the other player's draws
    without the card's name)."""
    lines = []
    for e in events:
        s = render_event(g, e)
        if s is None:
            continue
        if seat is not None:
            priv = private_event(e)
            if priv is not None and priv[0] != seat:
                s = priv[1]
        lines.append(s)
    return "\n".join(lines)


def step_name(step: int) -> str:
    return STEP_NAMES[step] if 0 <= step < len(STEP_NAMES) else "pregame"
