"""The candidates of a `spellbench/v2` seat decision (the spec's Section 7) for our engine's
decisions, each paired with the engine action it stands for.

Built so far (`seat_candidates` dispatches on the pending decision):

- priority (Section 7.2): `pass` first, then each land the seat may play (`play_land`,
  face 0), each spell it may cast (`cast_spell`, method `normal`) and each ability it may
  activate (`activate_ability`, its index among the object's non-mana activated abilities
  in text order), in the engine's order (the seat's hand order, then its permanents in
  battlefield order: nothing hidden from the seat). Mana is paid by the engine
  (`engine_defaults.mana_payment: engine_autopay`), so no mana ability is offered;
- a modal spell's mode (`choose_spell_mode`, one pick of the printed modes that can be
  chosen) and X (`choose_number`, purpose `x_value`, from 0 to what can be paid), both
  announced while the spell is on the stack (CR 601.2b);
- targets (`choose_target`): one slot per target requirement, each filled by one target
  (minimum = maximum = 1), the source being the spell's or ability's stack entry;
- the London mulligan (`mulligan`: keep, or take another while the format allows), and
  the cards a keeper puts on the bottom (`order_pick`, purpose `mulligan_bottom`: one
  pick per card, position 0 the first card placed, which ends closest to the top);
- a resolving spell's or ability's "you may" (`choose_boolean`, purpose `may_ability`),
  "unless ... pays" (`optional_cost`, cost `unless_payment`, asked of the payer), basic
  land type (`choose_name`, purpose `basic_land_type`), whether a permanent enters as a
  copy (`choose_boolean`, purpose `optional_replacement`) and of which creature
  (`select_object`, purpose `other`), a text change's words (`choose_option`, purpose
  `effect_option`, labelled "red -> blue"; the same for an effect's other options naming
  public things: a card type, a graveyard card to exile, a room of Undercity, a revealed
  card) and the enchantment an effect returns to its
  owner's hand (`select_object`, purpose `return_to_hand`), its stack entry the source;
- the legend rule (`select_object`, purpose `legend_rule`: the one to keep);
- one creature's attack (`declare_attack`, `attack_candidates`): the engine declares
  attackers one pick at a time and then "done", the spec one decision per creature that
  could attack when the declaration began (`potential_attackers`), each answered "this
  opponent" or `null`; the engine role keeps the group's place and gives the engine the
  picks, then done. `null` is not offered for a creature that attacks each combat if
  able (CR 508.1d).

Every other decision raises `Unsupported` naming it; the plan for them is in
docs/spellbench.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..engine import Action, Game
from ..engine.cards import ActivatedAbility, ManaAbility
from ..engine.constants import (
    ACTIVATE,
    ATTACK,
    D_BOTTOM,
    D_CHOICE,
    D_MULLIGAN,
    D_PRIORITY,
    D_SELECT,
    D_TARGET,
    GRAVEYARD,
    KEEP,
    LAND,
    PASS,
    PLAY,
)
from ..engine.decisions import Announce, Legend, Resolving, Targets
from .observation import Observer, normalize

Candidate = tuple[dict[str, Any], str, Action]  # (semantic, display text, engine action)


class Unsupported(ValueError):
    """A decision the engine role cannot pose yet."""


def activated_indices(abilities: Iterable[Any]) -> list[int]:
    """Our `ACTIVATE` argument of each of an object's non-mana activated abilities, in
    text order: the spec's `ability_index` i is our `activated_indices(...)[i]`. Ours
    counts the mana and non-mana activated abilities together, the spec's the non-mana
    ones alone."""
    out: list[int] = []
    ours = -1
    for ab in abilities:
        if isinstance(ab, ManaAbility | ActivatedAbility):
            ours += 1
            if not isinstance(ab, ManaAbility):
                out.append(ours)
    return out


def activated_ability(g: Game, cid: int, arg: int) -> tuple[int, ActivatedAbility]:
    """The spec's `ability_index` of our `ACTIVATE` argument, and the ability."""
    abilities = g.chars(cid).abilities
    ours = activated_indices(abilities)
    if arg not in ours:
        raise ValueError(f"object {cid} has no activated ability {arg}")
    ab = [a for a in abilities if isinstance(a, ManaAbility | ActivatedAbility)][arg]
    assert isinstance(ab, ActivatedAbility)
    return ours.index(arg), ab


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
            # Flashback (702.34a): cast from the graveyard (pauper cards only).
            flashback = g.zone[a.obj] == GRAVEYARD
            method = "flashback" if flashback else "normal"
            semantic = {"kind": "cast_spell", "source": source, "method": method}
            text = f"Cast {name} with flashback" if flashback else f"Cast {name}"
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


def announce_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """A modal spell's mode, whether its kicker is paid (`optional_cost`, cost `kicker`)
    or the value of X, as it is cast."""
    ctx = g.ctx
    assert isinstance(ctx, Announce)
    source = observer.stack_ref(g, seat, ctx.item)
    name = g.cdef[ctx.item.cid].name
    out: list[Candidate] = []
    if ctx.what == "mode":
        spell = g.cdef[ctx.item.cid].spell
        assert spell is not None
        for a in g.legal_actions():
            mode = ctx.choices[a.arg]
            semantic = {
                "kind": "choose_spell_mode",
                "source": source,
                "mode_index": mode,
                "mode_count": len(spell.modes),
                "selected_count": 0,
                "minimum": 1,
                "maximum": 1,
            }
            out.append((semantic, f"{name}: {spell.modes[mode].text}", a))
        return out
    if ctx.what in ("kicker", "buyback"):
        d = g.decision
        assert d is not None
        for a in g.legal_actions():
            semantic = {
                "kind": "optional_cost",
                "source": source,
                "cost": ctx.what,
                "pay": bool(ctx.choices[a.arg]),
            }
            out.append((semantic, f"{name}: {d.options[a.arg]}", a))
        return out
    top = max(ctx.choices)
    for a in g.legal_actions():
        x = ctx.choices[a.arg]
        semantic = {
            "kind": "choose_number",
            "source": source,
            "purpose": "x_value",
            "value": x,
            "minimum": min(ctx.choices),
            "maximum": top,
        }
        out.append((semantic, f"{name}: X = {x}", a))
    return out


def target_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """One target for the next target requirement of the spell or ability being put on
    the stack."""
    ctx = g.ctx
    assert isinstance(ctx, Targets)
    item = ctx.item
    slot = len(item.targets)
    source = observer.stack_ref(g, seat, item)
    out: list[Candidate] = []
    for a in g.legal_actions():
        if a.obj < 0:
            target: dict[str, Any] = {"player": f"p{-1 - a.obj}"}
            text = "you" if -1 - a.obj == seat else "your opponent"
        else:
            target = {"object": observer.ref(g, seat, a.obj)}
            text = g.cdef[a.obj].name
        semantic = {
            "kind": "choose_target",
            "source": source,
            "slot": slot,
            "target": target,
            "selected_count": 0,
            "minimum": 1,
            "maximum": 1,
        }
        out.append((semantic, f"Target {text} ({ctx.specs[slot].text})", a))
    return out


def mulligan_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """Keep the hand, or (while the format allows) take a mulligan (CR 103.5)."""
    hand, taken = len(g.hand[seat]), g.mull_count[seat]
    out: list[Candidate] = []
    for a in g.legal_actions():
        keep = a.kind == KEEP
        semantic = {"kind": "mulligan", "hand_size": hand, "mulligans_taken": taken, "keep": keep}
        out.append((semantic, f"Keep these {hand} cards" if keep else "Take a mulligan", a))
    out.sort(key=lambda c: not c[0]["keep"])  # keep first, as the spec's example
    return out


def bottom_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """The next card of a kept hand to put on the bottom of the library: the first placed
    ends closest to the top (each later one goes under it), the spec's position 0."""
    count = min(g.mull_count[seat], g.rules.opening_hand)
    position = g.rules.opening_hand - len(g.hand[seat])
    out: list[Candidate] = []
    for a in g.legal_actions():
        semantic = {
            "kind": "order_pick",
            "source": None,
            "purpose": "mulligan_bottom",
            "item": {"object": observer.ref(g, seat, a.obj)},
            "position": position,
            "count": count,
        }
        out.append((semantic, f"Put {g.cdef[a.obj].name} on the bottom", a))
    return out


def resolving_source(g: Game, seat: int, observer: Observer) -> dict[str, Any] | None:
    """The stack entry of the spell or ability resolving now (it stays on the stack until
    it has resolved, CR 608.2n), the source of the choices it asks."""
    return None if g.res is None else observer.stack_ref(g, seat, g.res.item)


# Yes/no choices while a spell or ability resolves: our purpose -> the spec's
# `choose_boolean` purpose, and the text of yes and of no. "You may have this enter as a
# copy" is an optional replacement effect (CR 614.1c, 707.5); the creature is selected next.
BOOLEAN_PURPOSES: dict[str, tuple[str, str, str]] = {
    "may": ("may_ability", "Yes", "No"),
    "enter_as_copy": ("optional_replacement", "Enter as a copy", "Enter as itself"),
}


# The choices a resolving effect asks among options of its own (`choose_option`).
OPTION_PURPOSES: frozenset[str] = frozenset(
    ("text_change", "card_type", "exile_from_graveyard", "room", "reveal_put")
)


def resolving_choice_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """A choice a resolving spell or ability asks, by its purpose: "you may" as
    `choose_boolean` (purpose `may_ability`), paying or not for "unless ... pays" as
    `optional_cost` (cost `unless_payment`), a basic land type as `choose_name` (purpose
    `basic_land_type`, the type's normalized name)."""
    ctx = g.ctx
    assert isinstance(ctx, Resolving)
    d = g.decision
    assert d is not None
    source = resolving_source(g, seat, observer)
    out: list[Candidate] = []
    for a in g.legal_actions():
        option = d.options[a.arg]
        semantic: dict[str, Any]
        if ctx.purpose in BOOLEAN_PURPOSES:
            purpose, yes, no = BOOLEAN_PURPOSES[ctx.purpose]
            semantic = {
                "kind": "choose_boolean",
                "source": source,
                "purpose": purpose,
                "value": option == "yes",
            }
            text = yes if option == "yes" else no
        elif ctx.purpose == "unless_payment":
            # "Counter ... unless its controller pays" and "sacrifice ... unless you pay",
            # asked of the payer (Section 7.5); the engine pays the mana (engine_autopay).
            pay = option.startswith("pay ")
            semantic = {
                "kind": "optional_cost",
                "source": source,
                "cost": "unless_payment",
                "pay": pay,
            }
            text = option[:1].upper() + option[1:]
        elif ctx.purpose in OPTION_PURPOSES:
            # Which word of the target's text becomes which (CR 612), the card type "choose
            # creature or land" names, the graveyard card "you may exile" exiles (or none),
            # the room of Undercity a venture moves into, the revealed card put onto the
            # battlefield: an effect's options, each naming public things.
            semantic = {
                "kind": "choose_option",
                "source": source,
                "purpose": "effect_option",
                "option_index": a.arg,
                "option_count": len(d.options),
                "option_label": option,
            }
            text = f"Replace {option}" if ctx.purpose == "text_change" else option.capitalize()
        elif ctx.purpose == "basic_land_type":
            value = normalize(option)
            semantic = {
                "kind": "choose_name",
                "source": source,
                "purpose": "basic_land_type",
                "value": value,
            }
            text = option
        else:
            raise Unsupported(f"the choice {d.prompt!r} (purpose {ctx.purpose!r}) is not posed yet")
        out.append((semantic, text, a))
    return out


# The spec's `select_object` purpose of each object a resolving effect selects (its list
# has no copy purpose: `other`).
SELECT_PURPOSES = {"copy": "other", "return_to_hand": "return_to_hand", "untap": "other"}


def resolving_select_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """An object a resolving spell or ability selects: the creature a permanent entering as
    a copy copies (CR 707.5), once it was chosen to enter as a copy; the enchantment an
    effect returns to its owner's hand. Its stack entry is the source."""
    ctx = g.ctx
    assert isinstance(ctx, Resolving)
    verb = {"copy": "Copy", "untap": "Untap"}.get(ctx.purpose, "Return")
    return _one_pick(
        g,
        seat,
        observer,
        resolving_source(g, seat, observer),
        SELECT_PURPOSES[ctx.purpose],
        lambda cid: f"{verb} {g.chars(cid).name}",
    )


def legend_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """The legend rule (CR 704.5j): which of the seat's legendary permanents of one name to
    keep, the others going to the graveyard (`select_object`, purpose `legend_rule`)."""
    return _one_pick(
        g, seat, observer, None, "legend_rule", lambda cid: f"Keep this {g.cdef[cid].name}"
    )


def _one_pick(
    g: Game,
    seat: int,
    observer: Observer,
    source: dict[str, Any] | None,
    purpose: str,
    text: Callable[[int], str],
) -> list[Candidate]:
    """One object among the pending decision's (`select_object`, minimum = maximum = 1)."""
    out: list[Candidate] = []
    for a in g.legal_actions():
        semantic = {
            "kind": "select_object",
            "source": source,
            "purpose": purpose,
            "choice": {"object": observer.ref(g, seat, a.obj)},
            "selected_count": 0,
            "minimum": 1,
            "maximum": 1,
        }
        out.append((semantic, text(a.obj), a))
    return out


def potential_attackers(g: Game) -> list[int]:
    """The creatures that can attack, in battlefield order, as the declaration begins:
    one `declare_attack` decision each, as one group."""
    return list(dict.fromkeys(a.obj for a in g.legal_actions() if a.kind == ATTACK))


def attack_candidates(
    g: Game, seat: int, observer: Observer, attacker: int
) -> list[tuple[dict[str, Any], str, Action | None]]:
    """Whether `attacker` attacks, and whom: `null` (no engine action) or each defender
    the engine would let it attack."""
    ref = observer.ref(g, seat, attacker)
    name = g.cdef[attacker].name
    out: list[tuple[dict[str, Any], str, Action | None]] = []
    if "attacks_each_combat" not in g.chars(attacker).rules:  # CR 508.1d
        stay = {"kind": "declare_attack", "attacker": ref, "defender": None}
        out.append((stay, f"{name} stays home", None))
    for a in g.legal_actions():
        if a.kind == ATTACK and a.obj == attacker:
            defender = {"player": f"p{a.arg}"}
            semantic = {"kind": "declare_attack", "attacker": ref, "defender": defender}
            out.append((semantic, f"{name} attacks", a))
    return out


def seat_candidates(g: Game, seat: int, observer: Observer) -> list[Candidate]:
    """The candidates of `seat`'s pending decision."""
    d = g.decision
    if d is None or d.player != seat:
        raise ValueError(f"seat {seat} has no decision pending")
    if d.kind == D_PRIORITY:
        return priority_candidates(g, seat, observer)
    if d.kind == D_TARGET and isinstance(g.ctx, Targets):
        return target_candidates(g, seat, observer)
    if d.kind == D_CHOICE and isinstance(g.ctx, Announce):
        return announce_candidates(g, seat, observer)
    if d.kind == D_SELECT and isinstance(g.ctx, Legend):
        return legend_candidates(g, seat, observer)
    if d.kind == D_SELECT and isinstance(g.ctx, Resolving) and g.ctx.purpose in SELECT_PURPOSES:
        return resolving_select_candidates(g, seat, observer)
    if d.kind == D_CHOICE and isinstance(g.ctx, Resolving):
        return resolving_choice_candidates(g, seat, observer)
    if d.kind == D_MULLIGAN:
        return mulligan_candidates(g, seat, observer)
    if d.kind == D_BOTTOM:
        return bottom_candidates(g, seat, observer)
    raise Unsupported(f"the {d.name} decision ({type(g.ctx).__name__}) is not posed yet")
