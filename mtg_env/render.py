"""Text rendering of a game state (used by `mtg-env watch` and the env's ansi mode)."""

from __future__ import annotations

from .engine import Game
from .engine.constants import COLOR_LETTERS, CREATURE, DECISION_NAMES, LAND
from .engine.log import ability_text, describe_action, obj_name
from .engine.objects import SPELL


def permanent_line(g: Game, cid: int) -> str:
    ch = g.chars(cid)
    p = g.perm[cid]
    bits = [obj_name(g, cid)]
    if ch.types & CREATURE:
        bits.append(f"{ch.power}/{ch.toughness}")
    colors = "".join(COLOR_LETTERS[i] for i in range(5) if ch.colors & (1 << i))
    if colors and not ch.types & LAND:
        bits.append(f"({colors})")
    if ch.keywords:
        bits.append("[" + ", ".join(sorted(ch.keywords)) + "]")
    flags = []
    if p.tapped:
        flags.append("tapped")
    if ch.types & CREATURE and g.sick(cid) and "haste" not in ch.keywords:
        flags.append("sick")
    if p.damage:
        flags.append(f"damage {p.damage}")
    if p.counters:
        flags.extend(f"{n}x{k}" for k, n in sorted(p.counters.items()))
    if p.attached >= 0:
        flags.append(f"on {obj_name(g, p.attached)}")
    if cid in g.attackers:
        flags.append("attacking")
    if cid in g.blockers:
        flags.append(f"blocking {obj_name(g, g.blockers[cid])}")
    if ch.controller != g.owner[cid]:
        flags.append(f"owner {g.owner[cid]}")
    if flags:
        bits.append("{" + ", ".join(flags) + "}")
    return " ".join(bits)


def render(g: Game, seat: int | None = None) -> str:
    """The board as text. With `seat`, the other player's hand is hidden."""
    lines = []
    step = g.rules.step_name(g.step)
    lines.append(f"Turn {g.turn}, player {g.active}'s {step}")
    for s in (0, 1):
        lines.append(
            f"Player {s}: life {g.life[s]}, library {len(g.library[s])}, "
            f"graveyard {len(g.graveyard[s])}, hand {len(g.hand[s])}"
            + (f", mana {g.pool[s]}/{g.pool_max[s]}" if g.rules.pool else "")
        )
        if seat is None or seat == s:
            lines.append("  hand: " + ", ".join(obj_name(g, c) for c in g.hand[s]))
        for cid in g.battlefield:
            if g.chars(cid).controller == s:
                lines.append("  " + permanent_line(g, cid))
    if g.stack:
        lines.append("Stack (top first):")
        for it in reversed(g.stack):
            what = (
                obj_name(g, it.cid)
                if it.kind == SPELL
                else (f"ability of {obj_name(g, it.cid)}: {ability_text(it.ability)}")
            )
            tg = ", ".join(obj_name(g, r) for r, _ in it.targets)
            lines.append(f"  {what}" + (f" -> {tg}" if tg else ""))
    d = g.decision
    if d is not None:
        lines.append(
            f"Decision: {DECISION_NAMES[d.kind]} for player {d.player}"
            + (f" ({d.prompt})" if d.prompt else "")
        )
    elif g.is_over:
        lines.append("Game over: " + ("draw" if g.winner is None else f"player {g.winner} wins"))
    return "\n".join(lines)


def legal_lines(g: Game) -> list[str]:
    return [f"{i}: {describe_action(g, a)}" for i, a in enumerate(g.legal_actions())]
