"""The candidates of a `spellbench/v2` seat decision (the spec's Section 7) for our engine's
decisions, each paired with the engine action it stands for.

Built so far: the priority decision (Section 7.2): `pass` first, then each land the seat
may play (`play_land`, face 0), each spell it may cast (`cast_spell`, method `normal`) and
each ability it may activate (`activate_ability`, its index among the object's non-mana
activated abilities in text order), in the engine's order (the seat's hand order, then
its permanents in battlefield order: nothing hidden from the seat). Mana is paid by the
engine (`engine_defaults.mana_payment: engine_autopay`), so no mana ability is offered.
The other decisions follow the plan in docs/spellbench.md.
"""

from __future__ import annotations

from typing import Any

from ..engine import Action, Game
from ..engine.cards import ActivatedAbility, ManaAbility
from ..engine.constants import ACTIVATE, D_PRIORITY, LAND, PASS, PLAY
from .observation import Observer


def activated_ability(g: Game, cid: int, arg: int) -> tuple[int, ActivatedAbility]:
    """The spec's `ability_index` of our `ACTIVATE` argument, and the ability: ours counts
    the object's mana and non-mana activated abilities together, the spec's the non-mana
    ones alone."""
    ours = theirs = -1
    for ab in g.chars(cid).abilities:
        if isinstance(ab, ManaAbility):
            ours += 1
        elif isinstance(ab, ActivatedAbility):
            ours += 1
            theirs += 1
            if ours == arg:
                return theirs, ab
    raise ValueError(f"object {cid} has no activated ability {arg}")


def priority_candidates(
    g: Game, seat: int, observer: Observer
) -> list[tuple[dict[str, Any], str, Action]]:
    """(semantic, display text, engine action) of each legal priority action of `seat`,
    `pass` first. The display text names cards and abilities by their public text, never
    by an engine id (the spec's F2)."""
    d = g.decision
    if d is None or d.kind != D_PRIORITY or d.player != seat:
        raise ValueError(f"seat {seat} has no priority decision pending")
    out: list[tuple[dict[str, Any], str, Action]] = []
    for a in g.legal_actions():
        semantic: dict[str, Any]
        name = g.cdef[a.obj].name if a.kind != PASS else ""
        if a.kind == PASS:
            semantic, text = {"kind": "pass"}, "Pass priority"
        elif a.kind == PLAY and g.cdef[a.obj].types & LAND:
            semantic = {"kind": "play_land", "source": observer.ref(g, seat, a.obj), "face": 0}
            text = f"Play {name}"
        elif a.kind == PLAY:
            source = observer.ref(g, seat, a.obj)
            semantic = {"kind": "cast_spell", "source": source, "method": "normal"}
            text = f"Cast {name}"
        elif a.kind == ACTIVATE:
            index, ability = activated_ability(g, a.obj, a.arg)
            semantic = {
                "kind": "activate_ability",
                "source": observer.ref(g, seat, a.obj),
                "ability_index": index,
            }
            text = f"Activate {name}: {ability.text}" if ability.text else f"Activate {name}"
        else:
            raise ValueError(f"not a priority action: {a!r}")
        out.append((semantic, text, a))
    out.sort(key=lambda c: c[0]["kind"] != "pass")  # stable: the engine's order otherwise
    return out
