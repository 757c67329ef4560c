"""Text rendering of a game state (used by `mtg-env watch` and the env's ansi mode)."""

from __future__ import annotations

from typing import Any

from .engine import Game
from .engine.constants import COLOR_LETTERS, CREATURE, DECISION_NAMES, TYPE_NAMES
from .engine.log import ability_text, describe_action, obj_name
from .engine.objects import SPELL


def colors_text(bits: int) -> str:
    return "".join(COLOR_LETTERS[i] for i in range(5) if bits & (1 << i))


# Type bits in order, sorted once: the viewer names the types of every permanent in every frame.
_TYPE_BITS = sorted(TYPE_NAMES.items())


def type_names(types: int) -> list[str]:
    return [name for bit, name in _TYPE_BITS if types & bit]


def permanent_state(g: Game, cid: int) -> dict[str, Any]:
    """A permanent's visible state as plain data (characteristics from the layer system);
    false or empty fields are left out. The text line and the replay viewer both use it."""
    ch = g.chars(cid)
    p = g.perm[cid]
    d: dict[str, Any] = {"id": cid, "name": g.cdef[cid].name, "types": type_names(ch.types)}
    if ch.name != d["name"]:
        d["as"] = ch.name  # a copy (Clone), named by its copiable values
    if ch.types & CREATURE:
        d["pt"] = f"{ch.power}/{ch.toughness}"
    colors = colors_text(ch.colors)
    if colors:
        d["colors"] = colors
    if ch.keywords:
        d["kw"] = sorted(ch.keywords)
    if p.tapped:
        d["tapped"] = True
    if ch.types & CREATURE and g.sick(cid) and "haste" not in ch.keywords:
        d["sick"] = True
    if p.damage:
        d["damage"] = p.damage
    if p.counters:
        d["counters"] = dict(sorted(p.counters.items()))
    if p.attached >= 0:
        d["on"] = obj_name(g, p.attached)
    if cid in g.attackers:
        d["attacking"] = g.attackers[cid]  # the defending player
    if cid in g.blockers:
        d["blocking"] = obj_name(g, g.blockers[cid])
    if ch.controller != g.owner[cid]:
        d["owner"] = g.owner[cid]
    return d


def permanent_line(g: Game, cid: int) -> str:
    d = permanent_state(g, cid)
    bits = [obj_name(g, cid)]
    if "pt" in d:
        bits.append(d["pt"])
    if "colors" in d and "land" not in d["types"]:
        bits.append(f"({d['colors']})")
    if "kw" in d:
        bits.append("[" + ", ".join(d["kw"]) + "]")
    flags: list[str] = [k for k in ("tapped", "sick") if k in d]
    if "damage" in d:
        flags.append(f"damage {d['damage']}")
    flags.extend(f"{n}x{k}" for k, n in d.get("counters", {}).items())
    if "on" in d:
        flags.append(f"on {d['on']}")
    if "attacking" in d:
        flags.append("attacking")
    if "blocking" in d:
        flags.append(f"blocking {d['blocking']}")
    if "owner" in d:
        flags.append(f"owner {d['owner']}")
    if flags:
        bits.append("{" + ", ".join(flags) + "}")
    return " ".join(bits)


def stack_items(g: Game) -> list[dict[str, Any]]:
    """The stack, top first, as plain data."""
    out = []
    for it in reversed(g.stack):
        if it.kind == SPELL:
            what = obj_name(g, it.cid)
            # What was announced as it was cast (CR 601.2b): public, so shown to both seats.
            if "mode" in it.info and it.ability is not None:
                what += f" [{it.ability.text}]"
            if "x" in it.info:
                what += f" (X = {it.info['x']})"
        else:
            what = f"ability of {obj_name(g, it.cid)}: {ability_text(it.ability)}"
        out.append(
            {
                "what": what,
                "name": g.cdef[it.cid].name,
                "controller": it.controller,
                "targets": [obj_name(g, r) for r, _ in it.targets],
            }
        )
    return out


def header_line(g: Game) -> str:
    """The first line of the board: turn, active player and step."""
    return f"Turn {g.turn}, player {g.active}'s {g.rules.step_name(g.step)}"


def player_line(g: Game, s: int) -> str:
    """A player's public counts: life, library, graveyard and hand sizes, pool mana, poison
    counters (CR 122.1f), the initiative and their room of Undercity (CR 725: public)."""
    line = (
        f"Player {s}: life {g.life[s]}, library {len(g.library[s])}, "
        f"graveyard {len(g.graveyard[s])}, hand {len(g.hand[s])}"
        + (f", mana {mt}" if (mt := g.rules.mana_text(g, s)) else "")
    )
    if g.poison is not None and g.poison[s]:
        line += f", poison {g.poison[s]}"
    ini = g.initiative
    if ini is not None:
        if ini[0] == s:
            line += ", has the initiative"
        if ini[3 + s] >= 0:
            line += f", in Undercity's {g.cardset.undercity[ini[3 + s]].name}"
    return line


def status_line(g: Game) -> str | None:
    """The pending decision, or the result of a finished game (None: neither)."""
    d = g.decision
    if d is not None:
        return f"Decision: {DECISION_NAMES[d.kind]} for player {d.player}" + (
            f" ({d.prompt})" if d.prompt else ""
        )
    if g.is_over:
        return "Game over: " + ("draw" if g.winner is None else f"player {g.winner} wins")
    return None


def render(g: Game, seat: int | None = None) -> str:
    """The board as text. With `seat`, the other player's hand is hidden. The env's
    picture (`mtg_env.env.image`) shows the same things."""
    lines = [header_line(g)]
    for s in (0, 1):
        lines.append(player_line(g, s))
        if seat is None or seat == s:
            lines.append("  hand: " + ", ".join(obj_name(g, c) for c in g.hand[s]))
        for cid in g.battlefield:
            if g.chars(cid).controller == s:
                lines.append("  " + permanent_line(g, cid))
    if g.stack:
        lines.append("Stack (top first):")
        for it in stack_items(g):
            tg = ", ".join(it["targets"])
            lines.append(f"  {it['what']}" + (f" -> {tg}" if tg else ""))
    status = status_line(g)
    if status is not None:
        lines.append(status)
    return "\n".join(lines)


def legal_lines(g: Game) -> list[str]:
    return [f"{i}: {describe_action(g, a)}" for i, a in enumerate(g.legal_actions())]
