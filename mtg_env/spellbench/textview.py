"""The text view of a `spellbench/v2` seat decision: what the acting seat sees and its
candidates numbered by `candidate_id`, in plain text, for a text agent (a `text:` plug-in)
playing as a Spellbench bot on any engine (`mtg-env spellbench agent text:MODULE:ATTR`).

It reads the neutral seat decision alone (the observation of Section 6 and the candidates
of Section 7), never an engine's state, so it shows exactly what the protocol lets the seat
see: the other seat's hand and both libraries are counts. Like any agent it reads leniently
(Section 4.2): a field it does not know is ignored, a missing one left out. Its layout
follows the env's text view (`mtg_env.env.text`): the players, each zone in a line, the
stack, then the legal actions "answer with the number".
"""

from __future__ import annotations

from typing import Any


def _name(obj: Any) -> str:
    if not isinstance(obj, dict):
        return "?"
    name = obj.get("card_name")
    return str(name) if name is not None else "a hidden card"


def _pt(ch: dict[str, Any]) -> str:
    power, toughness = ch.get("power"), ch.get("toughness")
    return "" if power is None or toughness is None else f" {power}/{toughness}"


def _permanent(obj: dict[str, Any], names: dict[str, str]) -> str:
    """`Name P/T (tapped, sick, ...)` of a permanent."""
    ch = obj.get("characteristics") or {}
    text = _name(obj) + _pt(ch)
    notes: list[str] = []
    p = obj.get("permanent") or {}
    for flag, word in (("tapped", "tapped"), ("summoning_sick", "sick")):
        if p.get(flag):
            notes.append(word)
    if p.get("attacking"):
        notes.append("attacking")
    if p.get("blocking"):
        attackers = p.get("blocked_attackers") or []
        blocked = [names.get(str(a.get("object_id")), "?") for a in attackers]
        notes.append("blocking " + ", ".join(blocked) if blocked else "blocking")
    if p.get("damage"):
        notes.append(f"damage {p['damage']}")
    for kind, n in sorted((p.get("counters") or {}).items()):
        notes.append(f"{kind} counters {n}")
    attached = p.get("attached_to")
    if isinstance(attached, dict):
        target = attached.get("object") or {}
        notes.append("attached to " + names.get(str(target.get("object_id")), "?"))
    keywords = ch.get("keywords") or []
    if keywords:
        notes.append(", ".join(str(k) for k in keywords))
    if obj.get("face_down"):
        notes.append("face down")
    if obj.get("token"):
        notes.append("token")
    return f"{text} ({'; '.join(notes)})" if notes else text


def _known(k: dict[str, Any], me: str) -> str:
    """`Name (p1's hand)`, `Name (your library, 2nd from the top)`."""
    owner = k.get("owner_seat")
    where = f"your {k.get('zone', '?')}" if owner == me else f"{owner}'s {k.get('zone', '?')}"
    for end in ("top", "bottom"):
        n = k.get(f"position_from_{end}")
        if isinstance(n, int):
            where += f", {n} from the {end}"
    return f"{_name(k)} ({where})"


def seat_text(decision: dict[str, Any]) -> str:
    """The seat decision as text: the board the seat sees and its numbered candidates."""
    obs = decision.get("observation") or {}
    me = obs.get("viewer") or decision.get("acting_seat") or "?"
    players = [p for p in obs.get("players") or [] if isinstance(p, dict)]
    # Object ids stand for names in the notes (blocking, attached to).
    names = {
        str(o.get("object_id")): _name(o)
        for p in players
        for zone in ("battlefield", "hand", "graveyard", "exile")
        for o in p.get(zone) or []
        if isinstance(o, dict)
    }
    lines = [
        f"You are {me}.",
        f"Turn {obs.get('turn', '?')}, {str(obs.get('phase_step', '?')).replace('_', ' ')}; "
        f"active player {obs.get('active_seat', '?')}.",
    ]
    for p in sorted(players, key=lambda p: p.get("seat") != me):
        seat = p.get("seat", "?")
        who = "You" if seat == me else f"Opponent ({seat})"
        lines.append(
            f"{who}: life {p.get('life', '?')}, hand {p.get('hand_count', '?')}, library "
            f"{p.get('library_count', '?')}, lands played this turn "
            f"{p.get('lands_played_this_turn', 0)}."
        )
        pool = {k: v for k, v in (p.get("mana_pool") or {}).items() if v}
        if pool:
            lines.append("  Mana pool: " + " ".join(f"{k}{v}" for k, v in sorted(pool.items())))
        if seat == me and p.get("hand") is not None:
            hand = [_name(o) + _pt(o.get("characteristics") or {}) for o in p["hand"]]
            lines.append("  Hand: " + (", ".join(hand) if hand else "empty"))
        field = [_permanent(o, names) for o in p.get("battlefield") or [] if isinstance(o, dict)]
        lines.append("  Battlefield: " + ("; ".join(field) if field else "empty"))
        for zone in ("graveyard", "exile"):
            cards = [_name(o) for o in p.get(zone) or []]
            if cards:
                lines.append(f"  {zone.capitalize()}: " + ", ".join(cards))
    stack = [o for o in obs.get("stack") or [] if isinstance(o, dict)]
    if stack:
        entries = [f"{_name(o)} ({str(o.get('stack_kind', '?')).replace('_', ' ')})" for o in stack]
        lines.append("Stack, as the engine lists it: " + "; ".join(entries))
    known = [_known(k, me) for k in obs.get("known") or [] if isinstance(k, dict)]
    if known:
        lines.append("Cards you know in hidden zones: " + "; ".join(known))
    context = decision.get("context") or {}
    if context.get("text"):
        lines.append(f"Decision: {context['text']}")
    lines.append("Your legal actions (answer with the number):")
    for c in decision.get("candidates") or []:
        text = c.get("display_text") or (c.get("semantic") or {}).get("kind", "?")
        lines.append(f"  {c.get('candidate_id')}: {text}")
    return "\n".join(lines) + "\n"
