"""What resolving spells and abilities do (CR 608.2): every effect op declared once (`OPS`),
its card-data schema, its behaviour and its text together.

`run_op` returns True when the op finished, False when it is waiting for a player's
choice (the game then sets a decision; the answer lands in `res.vars["answer"]` and the
same op runs again to finish).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final, NamedTuple

from .cards import (
    NO_MANA,
    VENTURE,
    Component,
    Filter,
    Op,
    StaticAbility,
    TriggeredAbility,
    parse_mana_cost,
)
from .constants import (
    ARTIFACT,
    BASIC,
    BASIC_LAND_TYPES,
    BATTLEFIELD,
    COLOR_BITS,
    COLOR_WORD_OF,
    CREATURE,
    D_CHOICE,
    D_DISCARD,
    D_SELECT,
    DUR_EOT,
    DUR_FOREVER,
    DUR_UNTIL_YOUR_NEXT_TURN,
    DUR_WHILE_CONTROL_SOURCE,
    ENCHANTMENT,
    EXILE,
    GRAVEYARD,
    HAND,
    L_ABILITY,
    L_CONTROL,
    L_PT_MOD,
    L_PT_SET,
    L_PT_SWITCH,
    L_TEXT,
    L_TYPE,
    LAND,
    LIBRARY,
    MANA_BITS,
    STACK,
    TYPE_BITS,
    bit_mask,
    player_ref,
    ref_player,
)
from .decisions import Resolving
from .derived import count_permanents
from .layers import Chars, Effect
from .mana import can_pay
from .objects import SPELL, Resolution, Trigger
from .opschema import (
    AddManaOp,
    AnimateOp,
    AttachOp,
    CardTypesOp,
    ColorsOp,
    ControlOp,
    CostOp,
    CounterOp,
    CounterSpellOp,
    CounterUnlessOp,
    DamageOp,
    DestroyOp,
    DiscardOp,
    DrawOp,
    EmptyOp,
    ExileLinkedOp,
    FightOp,
    GrantOp,
    ImpulseOp,
    LandTypeOp,
    LifeOp,
    LookOp,
    LookTakeOp,
    MillOp,
    PlayerOp,
    PreventOp,
    PumpOp,
    RestrictOp,
    RevealDiscardOp,
    RevealPutOp,
    RevealTakeOp,
    SearchOp,
    SubtypeOp,
    SwitchOp,
    TakeInitiativeOp,
    TappedOp,
    TokenCopyOp,
    TokenOp,
    UntapUpToOp,
    WhatOp,
    restriction_text,
)
from .protocol import GameLike
from .rng import HAND_PICK, SHUFFLE
from .text import words
from .vocab import NameSet, Strict

DURATION: Final = {
    "end_of_turn": DUR_EOT,
    "forever": DUR_FOREVER,
    "while_you_control_source": DUR_WHILE_CONTROL_SOURCE,
    # Only the Undercity's rooms last "until your next turn" (goad, Throne's hexproof).
    "until_your_next_turn": DUR_UNTIL_YOUR_NEXT_TURN,
}
_TARGET_INDEX: Final = {"target": 0, "target1": 1, "target2": 2}


class OpDef(NamedTuple):
    name: str
    model: type[Strict] | None  # the card-data schema of its arguments
    run: Callable[..., bool]  # (game, resolution, args) -> finished
    text: Callable[[dict[str, Any]], str] | None = None  # None: "<op> <what>"


def run_op(g: GameLike, res: Resolution, op: Op) -> bool:
    return _RUN[op.name](g, res, op.args)


# ---------------------------------------------------------------------- references


def _target(g: GameLike, res: Resolution, name: str) -> int | None:
    """The ref of target `name` if it is still legal (608.2b), else None."""
    return _target_at(g, res, _TARGET_INDEX[name])


def _target_at(g: GameLike, res: Resolution, i: int) -> int | None:
    item = res.item
    if i >= len(item.targets) or i in item.info.get("illegal", ()):
        return None
    ref, oid = item.targets[i]
    if ref >= 0 and g.oid[ref] != oid:
        return None
    return ref


def refs(g: GameLike, res: Resolution, what: str) -> list[int]:
    """Players (negative refs) and objects (card ids) that `what` names now."""
    item = res.item
    if what in _TARGET_INDEX:
        r = _target(g, res, what)
        return [] if r is None else [r]
    if what == "self":
        c = item.cid
        if item.kind == SPELL:
            return [c]
        return [c] if g.zone[c] == BATTLEFIELD and g.oid[c] == item.src_oid else []
    if what == "enchanted":
        e = item.info.get("enchanted")
        if e is not None:
            c, oid = e
            return [c] if g.oid[c] == oid and g.zone[c] == BATTLEFIELD else []
        p = g.perm.get(item.cid)
        return [p.attached] if p is not None and p.attached >= 0 else []
    if what == "you":
        return [player_ref(item.controller)]
    if what == "that_player":
        return [player_ref(item.info["player"])]
    if what == "target_controller":
        # "Its controller": the controller of the first target, as it is now or as it
        # last was on the battlefield (608.2h: "Destroy target creature. Its controller
        # loses 2 life").
        if not item.targets or item.targets[0][0] < 0:
            return []
        c, oid = item.targets[0]
        if g.zone[c] == BATTLEFIELD and g.oid[c] == oid:
            return [player_ref(g.chars(c).controller)]
        last = g.lki.get(c)
        return [player_ref(last[1].controller)] if last is not None and last[0] == oid else []
    if what == "each_opponent":
        return [player_ref(1 - item.controller)]
    if what == "that_object":
        c, oid = item.info["object"]
        return [c] if g.oid[c] == oid and g.zone[c] == BATTLEFIELD else []
    if what == "all_creatures":
        return [c for c in g.battlefield if g.chars(c).types & CREATURE]
    if what == "your_creatures":  # "creatures you control", as the effect begins (611.2c)
        return _creatures(g, item.controller, True)
    if what == "this_card":
        # "Return it to its owner's hand" after "When this is put into a graveyard from the
        # battlefield": the card in the graveyard, while it stays there (400.7).
        card = item.info.get("card")
        if card is None:
            return []
        c, oid = card
        return [c] if g.oid[c] == oid and g.zone[c] == GRAVEYARD else []
    if what == "opponent_creatures":  # "creatures your opponents control" (611.2c, too)
        return _creatures(g, item.controller, False)
    if what == "targets":
        # "Up to N target ...": each chosen target still legal (608.2b).
        out = []
        for i in range(len(item.targets)):
            r = _target_at(g, res, i)
            if r is not None:
                out.append(r)
        return out
    if what == "creatures_without_flying":  # "each creature without flying"
        return [
            c
            for c in g.battlefield
            if (ch := g.chars(c)).types & CREATURE and "flying" not in ch.keywords
        ]
    if what == "all_enchantments":  # "Destroy all enchantments."
        return [c for c in g.battlefield if g.chars(c).types & ENCHANTMENT]
    if what == "attacking_creatures":  # "Attacking creatures get +1/+1", as it begins (611.2c)
        return [c for c in g.battlefield if c in g.attackers]
    raise AssertionError(what)  # pragma: no cover - validated when loading


def _creatures(g: GameLike, you: int, yours: bool) -> list[int]:
    """The creatures on the battlefield `you` control (`yours`), or the others."""
    out = []
    for c in g.battlefield:
        ch = g.chars(c)
        if ch.types & CREATURE and (ch.controller == you) == yours:
            out.append(c)
    return out


def _objects(g: GameLike, res: Resolution, what: str) -> list[int]:
    return [r for r in refs(g, res, what) if r >= 0]


def _on_battlefield(g: GameLike, res: Resolution, what: str) -> list[int]:
    return [r for r in _objects(g, res, what) if g.zone[r] == BATTLEFIELD]


def _players(g: GameLike, res: Resolution, who: str) -> list[int]:
    return [ref_player(r) for r in refs(g, res, who) if r < 0]


def source_chars(g: GameLike, res: Resolution) -> Chars:
    item = res.item
    if item.kind == SPELL:
        return g.chars(item.cid)
    return g._source_chars(item.cid, item.src_oid)


RESOLVING: Final = Resolving()


def _ask(
    g: GameLike,
    res: Resolution,
    kind: int,
    seat: int,
    prompt: str,
    options: tuple[str, ...] = (),
    select: tuple[int, ...] = (),
    purpose: str = "",
) -> None:
    if kind == D_SELECT:
        g.ctx = Resolving(select, purpose)
    else:  # `purpose` is not hashed: a plain choice shares one context value
        g.ctx = Resolving(None, purpose) if purpose else RESOLVING
    g._set_decision(kind, seat, res.item.cid, prompt, options)


def _effect(
    g: GameLike,
    res: Resolution,
    comps: tuple[Component, ...],
    cids: list[int],
    duration: str,
    text: str,
) -> None:
    """Create a continuous effect; the affected set is locked now (CR 611.2c) and its
    timestamp is the time it was created (CR 613.7a)."""
    if not cids:
        return
    item = res.item
    e = Effect(
        g._tick(),
        comps,
        tuple((c, g.oid[c]) for c in cids),
        DURATION[duration],
        item.cid,
        item.src_oid,
        item.controller,
        f"{g.name(item.cid)}: {text}",
    )
    g.effects.append(e)
    g._dirty = True


def num(g: GameLike, res: Resolution, v: Any) -> int:
    """An op's number: an int, or "X" / "-X", the value announced for the spell's X as it
    was cast (CR 107.3a; 0 if none was), or a count (`opschema.CountOf`) made now."""
    if type(v) is int:
        return int(v)
    if isinstance(v, dict):
        return int(v.get("times", 1)) * count_of(g, res.item.controller, v)
    x = int(res.item.info.get("x", 0))
    return -x if v == "-X" else x


def count_text(c: dict[str, Any]) -> str:
    """A count (`opschema.CountOf`) in a few words, for descriptions: "creature (you)"."""
    what = c.get("subtype") or "/".join(c.get("types") or ["card"])
    if c.get("keyword"):
        what += f" with {c['keyword']}"
    zone = c.get("zone", "battlefield")
    return f"{what} ({c.get('whose', 'you')})" if zone == "battlefield" else f"{what} in {zone}"


def amount_text(v: Any) -> str:
    """An op's amount for descriptions: the number, X, or "N per <what it counts>"."""
    return f"{v.get('times', 1)} per {count_text(v)}" if isinstance(v, dict) else str(v)


def count_of(g: GameLike, you: int, c: dict[str, Any]) -> int:
    """How many objects a count (`opschema.CountOf`) names now, for player `you`."""
    zone = c.get("zone", "battlefield")
    if zone == "battlefield":
        return count_permanents([g.chars(cid) for cid in g.battlefield], c, you)
    want = bit_mask(c.get("types") or (), TYPE_BITS)
    sub = c.get("subtype")
    n = 0
    cards = g.graveyard[g.rules.pile_of[you]] if zone == "graveyard" else g.hand[you]
    for cid in cards:
        cd = g.cdef[cid]
        if (want and not cd.types & want) or (sub and sub not in cd.subtypes):
            continue
        n += 1
    return n


# ---------------------------------------------------------------------- ops


def op_damage(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    src = source_chars(g, res)
    n = num(g, res, a["amount"])
    for r in refs(g, res, a["to"]):
        g._damage(res.item.cid, src, r, n, False)
    return True


def op_destroy(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    for c in _on_battlefield(g, res, a["what"]):
        if "indestructible" in g.chars(c).keywords:  # 702.12b
            continue
        if a["regenerate"] and g._use_shield(c):  # 701.15a; "can't be regenerated": 701.15b
            continue
        g._to_graveyard(c, "destroyed")
    return True


def op_prevent_damage(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """615.7: a shield that prevents the next N damage to a permanent or a player this
    turn (`Game.prevent_next`, by the permanent's object id: it ends as the object leaves
    the battlefield, 400.7)."""
    shields = g.prevent_next
    assert shields is not None  # kept in a set with this op (CardSet.prevent_next)
    n = a["amount"]
    for r in refs(g, res, a["to"]):
        if r >= 0 and g.zone[r] != BATTLEFIELD:
            continue
        key = r if r < 0 else g.oid[r]
        shields[key] = shields.get(key, 0) + n
        g._log("prevent_next", r, n)
    return True


def _mark(g: GameLike, res: Resolution, a: dict[str, Any], marked: list[int] | None) -> bool:
    """Mark the objects of `a["what"]` by object id in `marked` (a game field kept only in
    a set with the op): an effect on those objects that ends as they change zones (400.7)."""
    assert marked is not None
    for c in _on_battlefield(g, res, a["what"]):
        if g.oid[c] not in marked:
            marked.append(g.oid[c])
    return True


def op_exile_if_dies(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "If that creature would die this turn, exile it instead" (614.1a): a replacement
    effect on that object (`Game.exile_if_dies`) until the turn ends."""
    return _mark(g, res, a, g.exile_if_dies)


def op_skip_untap(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "It doesn't untap during its controller's next untap step" (502.3): the object is
    marked (`Game.skip_untap`) until that step."""
    return _mark(g, res, a, g.skip_untap)


def op_regenerate(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """701.15a: a shield that replaces the permanent's next destruction this turn."""
    for c in _on_battlefield(g, res, a["what"]):
        g.perm[c].shields += 1
        g._log("shield", c)
    return True


def op_sacrifice(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """The ability's controller sacrifices the objects; a player can sacrifice only a
    permanent they control (701.21a), so one controlled by another player stays."""
    you = res.item.controller
    for c in _on_battlefield(g, res, a["what"]):
        if g.chars(c).controller == you:
            g._to_graveyard(c, "sacrificed")
    return True


def op_return_to_hand(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    for c in _objects(g, res, a["what"]):
        if g.zone[c] in (BATTLEFIELD, GRAVEYARD):
            g._move(c, HAND)
            g._log("to_hand", c)
    return True


def op_shuffle_into_library(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Its owner shuffles it into their library" (CR 701.24a, 401.3): the card, if it is
    still the object in the graveyard that the trigger names (400.7)."""
    for c in _objects(g, res, a["what"]):
        if g.zone[c] == GRAVEYARD:
            owner = g.owner[c]
            g._move(c, LIBRARY)
            g._log("shuffled_in", c)
            g.rng.for_seat(owner, SHUFFLE).shuffle(g.library[g.rules.pile_of[owner]])
    return True


def op_return_to_battlefield(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Return a card from a graveyard to the battlefield, under the control of the spell's
    or ability's controller (CR 110.2a: the player who puts it onto the battlefield)."""
    seat = res.item.controller
    for c in _objects(g, res, a["what"]):
        if g.zone[c] == GRAVEYARD:
            _returned_to_battlefield(g, c, seat)
    return True


def _returned_to_battlefield(
    g: GameLike, c: int, controller: int, tapped: bool = False, counter: str = ""
) -> None:
    """Card `c` returns to the battlefield under `controller`'s control: tapped, or with a
    `counter` counter on it, as it enters (614.1c), before its enters triggers."""
    g._move(c, BATTLEFIELD, controller=controller)
    if tapped:
        g.perm[c].tapped = True
    if counter:
        _put_counters(g, c, counter, 1)
    g._log("to_battlefield", c)
    g._etb(c)


def op_return_self_from_graveyard(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Return this card from your graveyard to the battlefield tapped": the ability's own
    card, if it is still the object in its owner's graveyard that triggered (400.7),
    under its owner's control (the ability's controller), tapped if `tapped`."""
    item = res.item
    c = item.cid
    if g.zone[c] != GRAVEYARD or g.oid[c] != item.src_oid:
        return True
    _returned_to_battlefield(g, c, item.controller, tapped=bool(a.get("tapped")))
    return True


def op_counter(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    for c in _objects(g, res, a["what"]):
        if g.zone[c] == STACK:
            # 701.5a: a countered spell goes to the graveyard, or to exile instead (614.1a)
            g._move(c, EXILE if a["exile"] else GRAVEYARD)
            g._log("countered", c)
            if a["exile"]:
                g._log("exiled", c)
    return True


def op_return_dead(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Persist's and undying's return (702.79a, 702.93a): the card that died, if it is
    still that object in its owner's graveyard (400.7; a token has ceased to exist), onto
    the battlefield under its owner's control with a `counter` counter on it (614.1c: as
    it enters, before its enters triggers)."""
    cid, oid = res.item.info["card"]
    if g.zone[cid] != GRAVEYARD or g.oid[cid] != oid:
        return True
    _returned_to_battlefield(g, cid, g.owner[cid], counter=a["counter"])
    return True


def op_put_on_library(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Put target creature on top of its owner's library." (a permanent; 400.7: the card
    is a new object there)."""
    for c in _objects(g, res, a["what"]):
        if g.zone[c] == BATTLEFIELD:
            g._move(c, LIBRARY)
            g._log("to_library_top", c)
    return True


def op_untap(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    for c in _on_battlefield(g, res, a["what"]):
        g._untap(c)
    return True


def op_untap_up_to(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Untap up to N lands, chosen as it resolves (not targets): one at a time, each after
    a "you may" yes or no, so that stopping is a choice and no land is chosen twice. Only
    tapped lands are offered: choosing an untapped one does nothing, which stopping does
    as well, so the outcomes are the rule's own (CR 701.21a)."""
    v = res.vars
    ans = v.pop("answer", None)
    chosen: tuple[int, ...] = v.get("untap_chosen", ())
    if v.get("untap_select") and ans is not None:
        g._untap(ans)
        g._log("untap", ans)
        chosen = (*chosen, ans)
        v["untap_chosen"] = chosen
        del v["untap_select"]
        ans = None
    cands = tuple(
        c for c in g.battlefield if c not in chosen and g.perm[c].tapped and g.chars(c).types & LAND
    )
    if len(chosen) >= a["count"] or not cands or ans == 1:
        v.pop("untap_chosen", None)
        return True
    you = res.item.controller
    if ans is None:
        left = a["count"] - len(chosen)
        _ask(
            g,
            res,
            D_CHOICE,
            you,
            f"untap a land? (up to {left} more)",
            ("yes", "no"),
            purpose="may",
        )
        return False
    v["untap_select"] = 1
    _ask(g, res, D_SELECT, you, "choose a land to untap", select=cands, purpose="untap")
    return False


def op_explore(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """The creature explores (CR 701.44a): its controller reveals the top card of their
    library; a land goes into their hand; otherwise (or with no card to reveal) the
    creature gets a +1/+1 counter, and they may put the revealed card into their
    graveyard (yes or no: the card is revealed, so the choice names it)."""
    v = res.vars
    seat = res.item.controller
    pile = g.library[g.rules.pile_of[seat]]
    ans = v.pop("answer", None)
    if ans is not None:
        c = v.pop("explored")
        if ans == 0 and c in pile:
            g._move(c, GRAVEYARD)
            g._log("explore_graveyard", seat, c)
        return True
    top = pile[-1] if pile else -1
    if top >= 0:
        g._log("explore_reveal", seat, top)
        if g.cdef[top].types & LAND:
            g._move(top, HAND)
            return True
    for c in _on_battlefield(g, res, a["what"]):
        _put_counters(g, c, "+1/+1", 1)
    if top < 0:
        return True
    v["explored"] = top
    prompt = f"explore: put {g.name(top)} into your graveyard?"
    _ask(g, res, D_CHOICE, seat, prompt, ("yes", "no"), purpose="may")
    return False


def op_tap(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    for c in _on_battlefield(g, res, a["what"]):
        g.perm[c].tapped = True
    return True


def op_draw(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    n = num(g, res, a["count"])
    for seat in _players(g, res, a["who"]):
        for _ in range(n):
            g._draw(seat)
    return True


def op_gain_life(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    n = num(g, res, a["amount"])
    for seat in _players(g, res, a["who"]):
        g.life[seat] += n
        g._log("gain_life", seat, n)
    return True


def op_gain_life_sacrificed(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You gain life equal to the sacrificed permanent's mana value": of the permanent
    sacrificed for the spell's additional cost (CR 601.2b), as it last existed (a token's
    is 0)."""
    c = res.item.info.get("extra")
    n = 0 if c is None else g.cdef[c].mv
    seat = res.item.controller
    g.life[seat] += n
    g._log("gain_life", seat, n)
    return True


def op_opponent_discards_or_you_draw(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Each opponent discards a card. For each opponent who can't, you draw a card." The
    opponent chooses the card (a single card needs no choice); with an empty hand they
    can't, and the controller draws."""
    you = res.item.controller
    opp = 1 - you
    ans = res.vars.pop("answer", None)
    if ans is not None:
        g._discard(opp, ans)
        return True
    hand = g.hand[opp]
    if not hand:
        g._draw(you)
        return True
    if len(hand) == 1:
        g._discard(opp, hand[0])
        return True
    _ask(g, res, D_DISCARD, opp, "discard a card")
    return False


def op_exile_graveyard(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Exile target player's graveyard": every card in it."""
    for seat in _players(g, res, a["who"]):
        pile = g.graveyard[g.rules.pile_of[seat]]
        for c in list(pile):
            g._move(c, EXILE)
            g._log("exiled", c)
    return True


def _pay_answer(
    g: GameLike,
    res: Resolution,
    seat: int,
    cost: Any,
    prompt: str,
    yes: str,
    purpose: str,
    no: str = "don't pay",
) -> int | None:
    """ "Pay `cost`?" asked of `seat` as the effect resolves, only when they can pay: None
    while asked (the op returns False and runs again with the answer), then 0 to pay, 1
    not to (also when they can't)."""
    ans: int | None = res.vars.pop("answer", None)
    if ans is None:
        if not can_pay(g.mana_sources(seat), cost):
            return 1
        _ask(g, res, D_CHOICE, seat, prompt, (yes, no), purpose=purpose)
    return ans


def op_may_pay(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You may pay {B}. If you do, ...": asked on resolution only when the controller can
    pay; paid, `effects` run next."""
    seat = res.item.controller
    cost = parse_mana_cost(a["cost"])
    ans = _pay_answer(g, res, seat, cost, f"pay {cost.text}?", f"pay {cost.text}", "may")
    if ans is None:
        return False
    if ans == 0:
        g._pay_mana(seat, cost)
        res.frames.append([a["effects"], 0])
    return True


def op_may_exile_card(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You may exile a creature card from your graveyard. If you do, ...": asked only
    when the controller's graveyard holds such a card; one of each name is offered (the
    graveyard is public, and cards of one name are alike there). Exiled, `effects` run
    next (608.2c)."""
    v = res.vars
    seat = res.item.controller
    pile = g.graveyard[g.rules.pile_of[seat]]
    names = _one_of_each_name(g, pile, a["types"])
    if not names:
        return True  # nothing to exile: nothing is done, so nothing follows
    ans = v.pop("answer", None)
    if ans is None:
        opts = (*(f"exile {n}" for n in names), "exile nothing")
        prompt = "you may exile a card from your graveyard"
        _ask(g, res, D_CHOICE, seat, prompt, opts, (), "exile_from_graveyard")
        return False
    if ans < len(names):
        c = list(names.values())[ans]
        g._move(c, EXILE)
        g._log("exiled", c)
        res.frames.append([a["effects"], 0])
    return True


def op_pay_to_copy(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Then that player or that permanent's controller may pay {R}{R}.
    If the player does, they may copy this spell and may choose a new target for that
    copy." The target player, or the target permanent's controller as it is or last was
    (608.2h), is asked only when they can pay; paid, the spell notes them
    (`info["copy_for"]`), and as it finishes resolving the stack puts a copy of it under
    their control and has them choose its target (CR 707.10, 707.10c: the spell's target
    again, or a new one)."""
    item = res.item
    if not item.targets:
        return True
    ref = item.targets[0][0]
    if ref >= 0:
        found = refs(g, res, "target_controller")
        if not found:
            return True
        ref = found[0]
    seat = ref_player(ref)
    cost = parse_mana_cost(a["cost"])
    prompt = f"pay {cost.text} to copy {g.name(item.cid)}?"
    ans = _pay_answer(g, res, seat, cost, prompt, f"pay {cost.text} and copy it", "copy_payment")
    if ans is None:
        return False
    if ans == 0:
        g._pay_mana(seat, cost)
        g._log("paid", seat, cost.text)
        item.info["copy_for"] = seat
    return True


def op_lose_life(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Life loss (CR 119.3): not damage, so nothing prevents it and lifelink has no part."""
    n = num(g, res, a["amount"])
    for seat in _players(g, res, a["who"]):
        g.life[seat] -= n
        g._sba_ok = None  # 704.5a may apply now
        g._log("lose_life", seat, n)
    return True


def op_exile(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Exile permanents or cards in graveyards (CR 406.3)."""
    for c in _objects(g, res, a["what"]):
        if g.zone[c] in (BATTLEFIELD, GRAVEYARD):
            g._move(c, EXILE)
            g._log("exiled", c)
    return True


def op_exile_linked(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Exile permanents, the source remembering them (`Game.linked_exile`) for its linked
    "When this leaves the battlefield, return the exiled card ..." ability (607.2a)."""
    item = res.item
    linked = g.linked_exile
    assert linked is not None  # kept in a set with such an effect (CardSet.linked_exile)
    for c in _objects(g, res, a["what"]):
        if g.zone[c] == BATTLEFIELD:
            g._move(c, EXILE)
            g._log("exiled", c)
            if g.zone[c] == EXILE:  # (a token has ceased to exist)
                linked[c] = (item.cid, item.src_oid, g.oid[c])
    return True


def op_return_linked(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "When this leaves the battlefield, return the exiled card to the battlefield under
    its owner's control" (607.2a): the cards its linked ability exiled, each only if it is
    still the object that was exiled (400.7). Killed with that ability still on the stack,
    the permanent returns nothing, and the exile that follows is for good."""
    linked = g.linked_exile
    assert linked is not None
    item = res.item
    for c, (src, soid, coid) in list(linked.items()):
        if src != item.cid or soid != item.src_oid:
            continue
        del linked[c]
        if g.zone[c] == EXILE and g.oid[c] == coid:
            _returned_to_battlefield(g, c, g.owner[c])
    return True


def op_mill(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Mill (CR 701.17a): put the top `count` cards of the library into the graveyard;
    with fewer cards, all of them (701.17b)."""
    for seat in _players(g, res, a["who"]):
        pile = g.library[g.rules.pile_of[seat]]
        for _ in range(num(g, res, a["count"])):
            if not pile:
                break
            top = pile[-1]
            g._move(top, GRAVEYARD)
            g._log("milled", top)
    return True


def op_impulse(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Exile the top `count` cards of the controller's library (all of them if fewer), face
    up, and let the controller play them (CR 601.2, 305.1: cast at the card's usual time
    and cost, or play a land with the turn's land play) until the end of this turn
    (`until: turn`) or of their next turn (`next_turn`). `Game.playable` remembers each
    card with its object id: once it leaves exile it is a new object, no longer playable."""
    seat = res.item.controller
    playable = g.playable
    assert playable is not None  # kept in a set with such an effect (CardSet.impulse)
    last = g.turn
    if a["until"] == "next_turn":
        last += 2 if g.active == seat else 1  # turns alternate
    for cid in [c for c, (oid, _, end) in playable.items() if end < g.turn or g.oid[c] != oid]:
        del playable[cid]  # no longer playable: kept no longer
    pile = g.library[g.rules.pile_of[seat]]
    for _ in range(a["count"]):
        if not pile:
            break
        top = pile[-1]
        g._move(top, EXILE)
        g._log("impulse", seat, top)
        playable[top] = (g.oid[top], seat, last)
    return True


def op_add_mana(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Add {R}{G}.": the mana goes to the controller's pool (CR 106.4), where it pays costs
    before any source is tapped, until the step ends (500.4)."""
    pool = g.mana_pool
    assert pool is not None  # kept in a set with such an effect (CardSet.add_mana)
    seat = res.item.controller
    pool[seat].extend(MANA_BITS[c] for c in a["mana"][1::3])
    g._log("add_mana", seat, a["mana"])
    return True


def _look(g: GameLike, res: Resolution, a: dict[str, Any], away: str) -> bool:
    """Scry (`away` "bottom", CR 701.22a) or surveil (`away` "graveyard", CR 701.25a): the
    controller looks at the top `count` cards of their library (all of them if fewer,
    701.22b) and puts each on top of the library or away (on the bottom, or into the
    graveyard), one card at a time: a choice among "<card> on top" and "<card> <away>" for
    each card still looked at. Cards put on top later lie above those put there before,
    cards put on the bottom later below those put there before, so any order of both piles
    can be chosen. The looked-at cards stay on top of the library while the choice is made."""
    v = res.vars
    seat = res.item.controller
    pile = g.library[g.rules.pile_of[seat]]
    looking, first = _kept_or_top(res, pile, "look", a["count"])
    if first:
        if not looking:
            return True
        g._log("scry" if away == "bottom" else "surveil", seat, len(looking))
    ans = v.pop("answer", None)
    if ans is not None:
        c = looking.pop(ans // 2)
        # The looked-at cards are still in the library, except in a copy whose hidden
        # cards `resample_hidden` re-dealt: a card moved away is skipped.
        looking = [x for x in looking if x in pile]
        if c not in pile:
            pass
        elif ans % 2 == 0:
            # On top of the library, below the cards still looked at.
            pile.remove(c)
            pile.insert(len(pile) - len(looking), c)
            g._log("look_top", seat, c)
        elif away == "bottom":
            g._move(c, LIBRARY, bottom=True)
            g._log("look_bottom", seat, c)
        else:
            g._move(c, GRAVEYARD)
            g._log("surveil_graveyard", seat, c)
    if not looking:
        return True
    v["look"] = tuple(looking)
    where = "on the bottom" if away == "bottom" else "into the graveyard"
    opts: list[str] = []
    for c in looking:
        opts += [f"{g.name(c)} on top", f"{g.name(c)} {where}"]
    verb = "scry" if away == "bottom" else "surveil"
    # Purpose "look": which card goes where is the looking player's secret (views redact it).
    _ask(g, res, D_CHOICE, seat, f"{verb}: put a card on top or {where}", tuple(opts), (), "look")
    return False


def op_look_take(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Look at the top `count` cards of your library and take `take` of them into your hand
    (with `reveal`, up to one card of one of `types`, revealed: a public card), one choice
    a card; the rest go into the graveyard, or to the bottom of the library, in a random
    order with `random`, otherwise in the order they were in (the controller's choice of
    "any order", made for them: their library's bottom is seldom reached). The choices name
    the cards looked at, which only the looking player knows (purpose `look`, as scry's)."""
    v = res.vars
    seat = res.item.controller
    pile = g.library[g.rules.pile_of[seat]]
    state = v.pop("look_take", None)
    if state is None:
        looking = _top_cards(pile, a["count"])
        if not looking:
            return True
        g._log("look_at", seat, len(looking))
        left = len(looking) if a["any_number"] else a["take"]
    else:
        looking, left = list(state[0]), state[1]
    # A copy whose hidden cards `resample_hidden` re-dealt may have moved a looked-at card.
    looking = [c for c in looking if c in pile]
    ans = v.pop("answer", None)
    eligible = [c for c in looking if _card_of_types(g, c, a["types"])]
    if ans is not None:
        if ans < len(eligible):
            c = eligible[ans]
            g._move(c, HAND)
            g._log("look_reveal" if a["reveal"] else "look_take", seat, c)
            looking.remove(c)
            eligible.remove(c)
            left -= 1
        else:
            left = 0  # "you may": nothing (more) taken
    if left > 0 and eligible and (len(looking) > left or a["reveal"]):
        v["look_take"] = (tuple(looking), left)
        verb = "reveal and put" if a["reveal"] else "put"
        opts = tuple(f"{verb} {g.name(c)} into your hand" for c in eligible)
        if a["reveal"]:
            opts += ("take no more" if a["any_number"] else "take nothing",)
        _ask(g, res, D_CHOICE, seat, "look at the top cards: take one", opts, (), "look")
        return False
    if left > 0:  # as many left to take as cards looked at: they are all taken
        for c in looking[:left]:
            g._move(c, HAND)
            g._log("look_take", seat, c)
        looking = looking[left:]
    if a["rest"] == "graveyard":
        for c in looking:
            g._move(c, GRAVEYARD)
            g._log("look_graveyard", seat, c)
    else:
        _to_bottom(g, seat, looking, a["random"])
    return True


def _to_bottom(g: GameLike, seat: int, cards: list[int], shuffled: bool) -> None:
    """`cards` put on the bottom of `seat`'s library, in a random order with `shuffled`
    (else in the order given: the owner's choice of "any order", made for them)."""
    if shuffled:
        g.rng.for_seat(seat, SHUFFLE).shuffle(cards)
    for c in cards:
        g._move(c, LIBRARY, bottom=True)
    if cards:
        g._log("look_rest_bottom", seat, len(cards))


def op_reveal_take(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Reveal the top N cards of your library. Put all land cards revealed this way into
    your hand and the rest into your graveyard." (701.20a: revealed cards are public); with
    `choose`, the card type is chosen first ("Choose creature or land."). A card of a
    chosen type that is two types at once (an artifact creature) counts once."""
    v = res.vars
    seat = res.item.controller
    types = a["types"]
    if a["choose"]:
        ans = v.pop("answer", None)
        if ans is None:
            _ask(g, res, D_CHOICE, seat, "choose a card type", tuple(types), (), "card_type")
            return False
        types = [types[ans]]
        g._log("choose_type", seat, types[0])
    pile = g.library[g.rules.pile_of[seat]]
    revealed = _top_cards(pile, a["count"])
    for c in revealed:
        g._log("reveal_top", seat, c)
    rest = []
    for c in revealed:
        if _card_of_types(g, c, types):
            g._move(c, HAND)
            g._log("to_hand", c)
        else:
            rest.append(c)
    if a["rest"] == "graveyard":
        for c in rest:
            g._move(c, GRAVEYARD)
    else:
        _to_bottom(g, seat, rest, False)
    return True


def op_take_initiative(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You take the initiative." (CR 725.3): only one player has it (725.1); taking it,
    even again, triggers the initiative's "whenever you take the initiative, venture into
    Undercity" (725.2)."""
    item = res.item
    seat = item.controller if a["who"] == "you" else item.info["taker"]
    ini = g.initiative
    assert ini is not None  # kept in a set where a card takes it (CardSet.undercity)
    ini[0], ini[1], ini[2] = seat, item.cid, item.src_oid
    g._log("initiative", seat)
    g.triggers.append(Trigger(seat, item.cid, item.src_oid, VENTURE, -1, {}))
    return True


def op_venture(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Venture into Undercity (CR 701.49a, 701.49c): a player not in it enters its first
    room; one in it moves to a room the current one leads to, their choice of two. The
    room's ability then triggers (309.4c). A player on the bottommost room has completed
    Undercity once that room's ability has left the stack (309.7, 704.5t), and enters it
    anew; while that ability is still on the stack or waiting, venturing does nothing."""
    ini = g.initiative
    assert ini is not None
    rooms = g.cardset.undercity
    item = res.item
    seat = item.controller
    at = ini[3 + seat]
    nxt: tuple[int, ...] = (0,)
    if at >= 0 and rooms[at].leads_to:
        nxt = rooms[at].leads_to
    elif at >= 0 and _room_pending(g, seat, at):
        return True
    if len(nxt) > 1:
        ans = res.vars.pop("answer", None)
        if ans is None:
            opts = tuple(rooms[i].name for i in nxt)
            _ask(g, res, D_CHOICE, seat, "venture into Undercity: the next room", opts, (), "room")
            return False
        nxt = (nxt[ans],)
    room = nxt[0]
    ini[3 + seat] = room
    g._log("venture", seat, rooms[room].name)
    g.triggers.append(
        Trigger(seat, item.cid, item.src_oid, rooms[room].ability, -1, {"room": room})
    )
    return True


def _room_pending(g: GameLike, seat: int, room: int) -> bool:
    """Whether `seat`'s ability of room `room` waits to be put on the stack or is on it."""
    return any(t.controller == seat and t.info.get("room") == room for t in g.triggers) or any(
        i.controller == seat and i.info.get("room") == room for i in g.stack
    )


def op_goad(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Goad (CR 701.15a-b): until the goading player's next turn, the creature attacks
    each combat if able, and attacks a player other than the goading player if able. With
    two players the second part asks nothing more: an opponent's goaded creature can attack
    only the goading player, the goading player's own one only the opponent."""
    cids = _on_battlefield(g, res, a["what"])
    rules = NameSet(("attacks_each_combat",))
    ab = StaticAbility(SELF_FILTER, rules=rules, text="attacks each combat if able (goaded)")
    comp = Component(L_ABILITY, "add_abilities", (ab,))
    _effect(g, res, (comp,), cids, "until_your_next_turn", "goaded")
    for c in cids:
        g._log("goad", c)
    return True


def op_reveal_put(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Reveal the top ten cards of your library. Put a creature card from among them onto
    the battlefield with three +1/+1 counters on it. It gains hexproof until your next turn.
    Then shuffle." (Undercity's last room). The revealed cards are public (701.20a); the
    controller chooses one of each name (cards of one name are alike); the counters are on
    it as it enters (614.1c), before its enters triggers."""
    v = res.vars
    seat = res.item.controller
    pile = g.library[g.rules.pile_of[seat]]
    revealed, first = _kept_or_top(res, pile, "reveal_put", a["count"])
    if first:
        for c in revealed:
            g._log("reveal_top", seat, c)
    # A copy whose hidden cards `resample_hidden` re-dealt may have moved a revealed card.
    revealed = [c for c in revealed if c in pile]
    names = _one_of_each_name(g, revealed, a["types"])
    ans = v.pop("answer", None)
    if names and ans is None:
        v["reveal_put"] = tuple(revealed)
        opts = tuple(f"put {n} onto the battlefield" for n in names)
        prompt = "put a revealed card onto the battlefield"
        _ask(g, res, D_CHOICE, seat, prompt, opts, (), "reveal_put")
        return False
    if names and ans is not None and ans < len(names):
        c = list(names.values())[ans]
        g._move(c, BATTLEFIELD, controller=seat)
        g._log("to_battlefield", c)
        if a["counters"]:
            _put_counters(g, c, "+1/+1", a["counters"])
        if a["keywords"]:
            comp = Component(L_ABILITY, "add_keywords", NameSet(a["keywords"]))
            text = "gains " + ", ".join(a["keywords"])
            _effect(g, res, (comp,), [c], "until_your_next_turn", text)
        g._etb(c)
    g.rng.for_seat(seat, SHUFFLE).shuffle(pile)
    return True


def _one_of_each_name(g: GameLike, cards: list[int], types: list[str]) -> dict[str, int]:
    """The first of `cards` of each name among those of one of `types` (any card with no
    types): the options of a choice among public cards, where cards of one name are alike."""
    names: dict[str, int] = {}
    for c in cards:
        if _card_of_types(g, c, types):
            names.setdefault(g.cdef[c].name, c)
    return names


def _kept_or_top(res: Resolution, pile: list[int], key: str, count: int) -> tuple[list[int], bool]:
    """The cards a resolving effect looks at or reveals: those kept in `res.vars[key]`
    while a choice about them is asked (False), or the top `count` of `pile` the first
    time (True)."""
    state = res.vars.pop(key, None)
    if state is None:
        return _top_cards(pile, count), True
    return list(state), False


def _top_cards(pile: list[int], count: int) -> list[int]:
    """The top `count` cards of a library (all of them if fewer, 701.22b), top card first."""
    return pile[len(pile) - min(count, len(pile)) :][::-1]


def _card_of_types(g: GameLike, cid: int, types: list[str]) -> bool:
    """Whether card `cid` is of one of `types` (any card when none are named)."""
    return not types or bool(g.cdef[cid].types & bit_mask(types, TYPE_BITS))


def op_scry(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    return _look(g, res, a, "bottom")


def op_surveil(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    return _look(g, res, a, "graveyard")


def op_search_basic_land(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Search your library for a basic land card (CR 701.19a), then shuffle it. The choice
    is among the names of the card set's basic lands and "find nothing" (701.19b: a
    search for a card with a stated quality need not find one), the same options whatever
    the library holds, so neither the options nor the legal moves tell anything about the
    hidden library; a name with no card of it left in the library finds nothing. A card
    found is revealed and put into the hand (`to: hand`) or onto the battlefield tapped.
    `basic_types` narrows the basic lands to those of any of the types; `who:
    target_controller` has the first target's controller search their own library, and
    `may` lets the searcher decline ("don't search": no search, no shuffle)."""
    if a.get("who", "you") == "you":
        seat = res.item.controller
    else:
        seats = _players(g, res, a["who"])
        if not seats:
            return True
        seat = seats[0]
    pile = g.library[g.rules.pile_of[seat]]
    land_type = a.get("land_type")
    types = a.get("basic_types")
    if types:
        cards = g.cardset.cards
        names = tuple(n for n in basic_land_names(g) if any(t in cards[n].subtypes for t in types))
    else:
        names = basic_land_names(g) if land_type is None else land_type_names(g, land_type)
    ans = res.vars.pop("answer", None)
    if ans is None:
        if not a.get("may"):
            g._log("search", seat)
        if types:
            what = "a basic " + ", ".join(types[:-1]) + f", or {types[-1]}"
        else:
            what = "a basic land" if land_type is None else f"{_a(land_type)} {land_type}"
        _ask(
            g,
            res,
            D_CHOICE,
            seat,
            f"search your library for {what} card",
            (*names, "find nothing", *(("don't search",) if a.get("may") else ())),
            purpose="search",
        )
        return False
    if a.get("may"):
        if ans > len(names):  # "don't search": nothing is searched, or shuffled
            g._log("search_declined", seat)
            return True
        g._log("search", seat)
    found = -1
    if ans < len(names):
        for c in reversed(pile):  # any copy: copies of a card are alike
            if g.cdef[c].name == names[ans]:
                found = c
                break
    if found < 0:
        g._log("search_nothing", seat)
    elif a["to"] == "hand":
        g._move(found, HAND)
        g._log("search_reveal", seat, found)  # 701.19a: "reveal it": public
    elif a["to"] == "top":
        # "reveal it, then shuffle and put that card on top": the revealed card stays the
        # same object in the library; the rest is shuffled under it.
        pile.remove(found)
        g.rng.for_seat(seat, SHUFFLE).shuffle(pile)
        pile.append(found)
        g._log("search_reveal_top", seat, found)
        return True
    else:
        g._move(found, BATTLEFIELD, controller=seat)
        g.perm[found].tapped = True  # it enters tapped (614.1c), before anything triggers
        g._log("search_battlefield", seat, found)
        g._etb(found)
    g.rng.for_seat(seat, SHUFFLE).shuffle(pile)
    return True


def op_reveal_discard(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """A player reveals their hand (CR 701.20a: everyone sees it, so the log names every
    card); the spell's controller chooses a card of the given types from it, by name
    (copies of a card are alike), and that player discards it. No such card: nothing."""
    seats = _players(g, res, a["who"])
    if not seats:
        return True
    seat = seats[0]
    hand = g.hand[seat]
    want = bit_mask(a["types"], TYPE_BITS)
    avoid = bit_mask(a["not_types"], TYPE_BITS)
    names = sorted(
        {
            g.cdef[c].name
            for c in hand
            if (not want or g.cdef[c].types & want) and not g.cdef[c].types & avoid
        }
    )
    ans = res.vars.pop("answer", None)
    if ans is None:
        g._log("reveal_hand", seat, tuple(hand))
        if not names:
            return True
        res.vars["reveal_names"] = tuple(names)
        _ask(
            g,
            res,
            D_CHOICE,
            res.item.controller,
            f"choose a card from player {seat}'s hand: they discard it",
            tuple(names),
            purpose="reveal_discard",
        )
        return False
    # The answer names a card of the hand as it was revealed; in a copy whose hidden cards
    # `resample_hidden` re-dealt, the name may be gone: then nothing is discarded.
    pick = res.vars.pop("reveal_names", names)
    for c in hand:
        if ans < len(pick) and g.cdef[c].name == pick[ans]:
            g._discard(seat, c)
            break
    return True


def basic_land_names(g: GameLike) -> tuple[str, ...]:
    """The names of the basic land cards of the game's card set, in name order."""
    return tuple(
        sorted(
            c.name
            for c in g.cardset.cards.values()
            if c.supertypes & BASIC and c.types & LAND and not c.token
        )
    )


def land_type_names(g: GameLike, land_type: str) -> tuple[str, ...]:
    """The names of the cards of the game's card set with basic land type `land_type`
    (basic or not: "an Island card", CR 205.3i), in name order."""
    return tuple(
        sorted(c.name for c in g.cardset.cards.values() if land_type in c.subtypes and not c.token)
    )


def _a(word: str) -> str:
    return "an" if word[0] in "AEIOU" else "a"


def op_fight(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """`what` fights `other` (CR 701.14a): each deals damage equal to its power to the
    other; if either is no longer a creature on the battlefield, neither deals damage
    (701.14b), and a creature that fights itself deals damage to itself (701.14c)."""
    one = [c for c in _on_battlefield(g, res, a["what"]) if g.chars(c).types & CREATURE]
    two = [c for c in _on_battlefield(g, res, a["other"]) if g.chars(c).types & CREATURE]
    if not one or not two:
        return True
    x, y = one[0], two[0]
    cx, cy = g.chars(x), g.chars(y)
    if x == y:
        g._damage(x, cx, x, max(cx.power or 0, 0), False)
        return True
    g._damage(x, cx, y, max(cx.power or 0, 0), False)
    g._damage(y, cy, x, max(cy.power or 0, 0), False)
    return True


def op_discard(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Discard `count` cards: at random, or chosen by the discarding player one at a
    time (no decision when the hand has no more cards than must be discarded)."""
    v = res.vars
    state = v.get("discard")
    if state is None:
        seats = _players(g, res, a["who"])
        if not seats:
            return True
        seat = seats[0]
        left = num(g, res, a["count"])
    else:
        seat, left = state
    ans = v.pop("answer", None)
    if ans is not None:
        g._discard(seat, ans)
        left -= 1
    hand = g.hand[seat]
    if left <= 0 or not hand:
        v.pop("discard", None)
        return True
    if a["random"]:
        for _ in range(min(left, len(hand))):
            g._discard(seat, hand[g.rng.for_seat(seat, HAND_PICK).below(len(hand))])
        v.pop("discard", None)
        return True
    if len(hand) <= left:
        for c in list(hand):
            g._discard(seat, c)
        v.pop("discard", None)
        return True
    v["discard"] = (seat, left)
    _ask(g, res, D_DISCARD, seat, f"discard a card ({left} to go)")
    return False


def _pt(layer: int, op: str) -> Any:
    def run(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
        cids = _of_subtype(g, _on_battlefield(g, res, a["what"]), a)
        if op == "switch_pt":
            comp = Component(layer, op, True)
            text = "switch power and toughness"
        else:
            pw, th = num(g, res, a["power"]), num(g, res, a["toughness"])
            comp = Component(layer, op, (pw, th))
            text = f"{pw:+d}/{th:+d}" if op == "modify_pt" else f"base P/T {pw}/{th}"
        _effect(g, res, (comp,), cids, a["duration"], text)
        return True

    return run


def _of_subtype(g: GameLike, cids: list[int], a: dict[str, Any]) -> list[int]:
    """Of a group of creatures, those with the op's creature type ("Humans you control"),
    as the effect begins (CR 611.2c); all of them without one."""
    sub = a.get("subtype")
    return cids if sub is None else [c for c in cids if g.chars(c).has_subtype(sub)]


def op_grant(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    cids = _of_subtype(g, _on_battlefield(g, res, a["what"]), a)
    if a.get("if_other"):
        cids = [c for c in cids if c != res.item.cid]
    comp = Component(L_ABILITY, "add_keywords", NameSet(a["keywords"]))
    _effect(g, res, (comp,), cids, a["duration"], "gains " + ", ".join(a["keywords"]))
    return True


# What a restriction's own static ability affects: the object that has it.
SELF_FILTER: Final = Filter(relation="self")


def op_restrict(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Target creature can't block this turn": the objects gain a static ability of
    their own with those rules (layer 6) for the duration."""
    cids = _on_battlefield(g, res, a["what"])
    rules = NameSet(a["rules"])
    ab = StaticAbility(SELF_FILTER, rules=rules, text=restriction_text(a["rules"]))
    comp = Component(L_ABILITY, "add_abilities", (ab,))
    _effect(g, res, (comp,), cids, a["duration"], restriction_text(a["rules"]))
    return True


def op_lose_abilities(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    cids = _on_battlefield(g, res, a["what"])
    comp = Component(L_ABILITY, "lose_all_abilities", True)
    _effect(g, res, (comp,), cids, a["duration"], "loses all abilities")
    return True


def op_gain_control(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    cids = _on_battlefield(g, res, a["what"])
    you = res.item.controller
    comp = Component(L_CONTROL, "control", you)
    _effect(g, res, (comp,), cids, a["duration"], f"player {you} controls it")
    return True


def op_add_subtypes(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    cids = _on_battlefield(g, res, a["what"])
    comp = Component(L_TYPE, "add_subtypes", NameSet(a["subtypes"]))
    _effect(g, res, (comp,), cids, a["duration"], "becomes " + " ".join(a["subtypes"]))
    return True


def op_animate(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    cids = _on_battlefield(g, res, a["what"])
    mask = 0
    for t in a["add_types"]:
        mask |= TYPE_BITS[t]
    comps = [Component(L_TYPE, "add_types", mask)]
    if a["all_creature_types"]:
        comps.append(Component(L_TYPE, "all_creature_types", True))
    comps.append(Component(L_PT_SET, "set_pt", (a["power"], a["toughness"])))
    _effect(
        g,
        res,
        tuple(comps),
        cids,
        a["duration"],
        f"becomes a {a['power']}/{a['toughness']} creature",
    )
    return True


def op_land_type_change(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Becomes the basic land type of your choice" (CR 305.7): the choice is made on
    resolution, by the controller."""
    cids = _on_battlefield(g, res, a["what"])
    if not cids:
        return True
    ans = res.vars.pop("answer", None)
    if ans is None:
        _ask(
            g,
            res,
            D_CHOICE,
            res.item.controller,
            "choose a basic land type",
            BASIC_LAND_TYPES,
            purpose="basic_land_type",
        )
        return False
    t = BASIC_LAND_TYPES[ans]
    _effect(g, res, (Component(L_TYPE, "set_land_type", t),), cids, a["duration"], f"becomes a {t}")
    return True


def _new_token(g: GameLike, tdef: Any, you: int) -> int:
    """A token of `tdef` created on the battlefield under `you`'s control (CR 111.1)."""
    cid = g._new_card(tdef, you)
    g._move(cid, BATTLEFIELD, controller=you)
    g._log("token", you, cid)
    return cid


def _attach(g: GameLike, cid: int, to: int) -> None:
    """Attach `cid` to `to` (CR 701.3): a new timestamp when it moves onto another object
    (613.7e)."""
    p = g.perm[cid]
    if p.attached != to:
        g._sba_ok = None
        p.attached = to
        p.timestamp = g._tick()
        g._dirty = True
        g._log("attach", cid, to)


def op_create_token(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    tdef = g.cardset.tokens[a["token"]]
    you = res.item.controller
    for _ in range(num(g, res, a["count"])):
        g._etb(_new_token(g, tdef, you))
    return True


def op_fabricate(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Fabricate N (CR 702.123a): "you may put N +1/+1 counters on it. If you don't,
    create N 1/1 colorless Servo artifact creature tokens." Asked only while the permanent
    is still the object that entered (400.7); otherwise the tokens are created."""
    item = res.item
    n = a["count"]
    if g.zone[item.cid] == BATTLEFIELD and g.oid[item.cid] == item.src_oid:
        ans = res.vars.pop("answer", None)
        if ans is None:
            said = "a +1/+1 counter" if n == 1 else f"{n} +1/+1 counters"
            made = "a Servo token" if n == 1 else f"{n} Servo tokens"
            opts = (f"put {said} on it", f"create {made}")
            _ask(g, res, D_CHOICE, item.controller, "fabricate", opts, (), "fabricate")
            return False
        if ans == 0:
            _put_counters(g, item.cid, "+1/+1", n)
            return True
    tdef = g.cardset.tokens[a["token"]]
    for _ in range(n):
        g._etb(_new_token(g, tdef, item.controller))
    return True


def op_job_select(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Job select: create the token, then attach this Equipment to it, if the
    Equipment is still the object that entered (400.7)."""
    item = res.item
    t = _new_token(g, g.cardset.tokens[a["token"]], item.controller)
    g._etb(t)
    eq = item.cid
    if g.zone[eq] == BATTLEFIELD and g.oid[eq] == item.src_oid:
        _attach(g, eq, t)
    return True


def op_add_counter(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    for c in _on_battlefield(g, res, a["what"]):
        _put_counters(g, c, a["counter"], num(g, res, a["count"]))
    return True


def _put_counters(g: GameLike, c: int, kind: str, n: int) -> None:
    """Put `n` counters of `kind` on permanent `c` (CR 122.1)."""
    p = g.perm[c]
    g._sba_ok = None
    if p.counters is None:
        p.counters = {}
    p.counters[kind] = p.counters.get(kind, 0) + n
    g._dirty = True
    g._log("counter", c, kind, n)


def op_prevent_combat_damage(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    g.fog_turn = g.turn  # CR 615: a prevention shield for all combat damage this turn
    g._log("prevent_combat_damage", g.turn)
    return True


def op_sacrifice_unless_pay(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Sacrifice <source> unless you pay <cost>": the controller chooses on resolution."""
    item = res.item
    src = item.cid
    if not (g.zone[src] == BATTLEFIELD and g.oid[src] == item.src_oid):
        return True
    cost = parse_mana_cost(a["cost"])
    prompt = f"pay {cost.text} to keep {g.name(src)}?"
    pay = f"pay {cost.text}"
    ans = _pay_answer(g, res, item.controller, cost, prompt, pay, "unless_payment", "sacrifice")
    if ans is None:
        return False
    if ans == 0:
        g._pay_mana(item.controller, cost)
    else:
        g._to_graveyard(src, "sacrificed")
    return True


def op_counter_unless_pay(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Counter that spell or ability unless its controller pays <cost>" (ward, CR
    702.21a): the spell or ability that triggered this one (`info["item"]`), if it is still
    on the stack; its controller chooses on resolution, and one who can't pay doesn't. A
    countered spell goes to its owner's graveyard, a countered ability leaves the stack
    (701.6a). With `what: target` ("counter target spell unless its controller pays"),
    the spell it targets instead, if that target is still legal (608.2b)."""
    if a.get("what") == "target":
        ref = _target(g, res, "target")
        found = [s for s in g.stack if s.kind == SPELL and s.cid == ref]
    else:
        oid = res.item.info.get("item")
        found = [s for s in g.stack if s.oid == oid and s is not res.item]
    if not found:
        return True
    it = found[0]
    seat = it.controller
    cost = parse_mana_cost(a["cost"])
    prompt = f"pay {cost.text} or {g.name(it.cid)} is countered?"
    ans = _pay_answer(g, res, seat, cost, prompt, f"pay {cost.text}", "unless_payment")
    if ans is None:
        return False
    if ans == 0:
        g._pay_mana(seat, cost)
        g._log("paid", seat, cost.text)
    elif it.kind == SPELL:
        g._move(it.cid, GRAVEYARD)
        g._log("countered", it.cid)
    else:
        g.stack.remove(it)
        g._legal = None
        g._log("ability_countered", it.cid)
    return True


def op_return_own_enchantment(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Return an enchantment you control of one of these colors to its owner's hand (not
    targeted: chosen on resolution)."""
    mask = 0
    for c in a["colors"]:
        mask |= COLOR_BITS[c]
    you = res.item.controller
    cands = tuple(
        c
        for c in g.battlefield
        if (ch := g.chars(c)).controller == you and ch.types & ENCHANTMENT and ch.colors & mask
    )
    if not cands:
        return True
    ans = res.vars.pop("answer", None)
    if ans is None:
        if len(cands) == 1:
            ans = cands[0]
        else:
            _ask(
                g,
                res,
                D_SELECT,
                you,
                "choose an enchantment to return to its owner's hand",
                select=cands,
                purpose="return_to_hand",
            )
            return False
    g._move(ans, HAND)
    g._log("to_hand", ans)
    return True


def op_attach(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Attach an Aura or Equipment to an object (CR 701.3). It gets a new timestamp when
    it moves onto a different object (CR 613.7e)."""
    objs = _on_battlefield(g, res, a["what"])
    to = _on_battlefield(g, res, a["to"])
    if not objs or not to or objs[0] == to[0]:
        return True
    if g.cdef[objs[0]].enchant is not None and not g.can_enchant(objs[0], to[0]):
        return True  # 701.3b: an Aura can't be attached to something it can't enchant
    _attach(g, objs[0], to[0])
    return True


def copiable(g: GameLike, cid: int) -> Any:
    """Copiable values (CR 707.2): the printed card as modified by copy effects and copy
    exceptions; not counters, Auras, or other effects."""
    p = g.perm.get(cid)
    if p is not None and p.copy_def is not None:
        return p.copy_def
    return g.cdef[cid]


def op_create_token_copy(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Kiki-Jiki: a token that's a copy of the target (CR 707.2, 111.10)."""
    objs = _on_battlefield(g, res, a["what"])
    if not objs:
        return True
    you = res.item.controller
    tdef = dataclasses.replace(copiable(g, objs[0]), token=True)
    cid = _new_token(g, tdef, you)
    if a["haste"]:
        # "That token has haste" (the card's original wording, as in the layer article's
        # worked example): the ability grants it, it is not a copiable value (707.9b), so
        # a copy of this token has no haste.
        comp = Component(L_ABILITY, "add_keywords", frozenset({"haste"}))
        _effect(g, res, (comp,), [cid], "forever", "gains haste")
    if a["sacrifice_at_next_end_step"]:
        ab = TriggeredAbility(
            "next_end_step",
            effects=(Op("sacrifice", {"what": "that_object"}),),
            text="sacrifice it at the beginning of the next end step",
        )
        g.delayed.append(
            Trigger(
                you, cid, g.oid[cid], ab, -1, {"at": "next_end_step", "object": (cid, g.oid[cid])}
            )
        )
    g._etb(cid)
    return True


def op_ninjutsu(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Ninjutsu's effect (CR 702.49a, 702.49c): the card, if it is still the one revealed
    in its owner's hand, is put onto the battlefield tapped and attacking whom the
    returned creature attacked; it was never declared as an attacker (508.4), so nothing
    that triggers on attacking triggers."""
    item = res.item
    cid = item.cid
    if g.zone[cid] != HAND or g.oid[cid] != item.src_oid:
        return True
    g._move(cid, BATTLEFIELD, controller=item.controller)
    g.perm[cid].tapped = True
    g.attackers[cid] = item.info["defender"]
    if g.cardset.conditional_statics:
        g._dirty = True  # it is attacking: "as long as it's attacking" (611.3a)
    g._log("ninjutsu", item.controller, cid)
    g._etb(cid)
    return True


def op_enter_as_copy(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You may have this enter as a copy of any creature on the battlefield": first yes
    or no, then which creature (chosen as it resolves, CR 707.5)."""
    v = res.vars
    cands = tuple(c for c in g.battlefield if g.chars(c).types & CREATURE)
    if "copy_of" in v:
        return True
    ans = v.pop("answer", None)
    if "may" not in v:
        if not cands:
            v["copy_of"] = -1
            return True
        if ans is None:
            _ask(
                g,
                res,
                D_CHOICE,
                res.item.controller,
                f"have {g.name(res.item.cid)} enter as a copy of a creature?",
                ("yes", "no"),
                purpose="enter_as_copy",
            )
            return False
        v["may"] = ans
        if ans == 1:
            v["copy_of"] = -1
            return True
        _ask(
            g,
            res,
            D_SELECT,
            res.item.controller,
            "choose a creature to copy",
            select=cands,
            purpose="copy",
        )
        return False
    v["copy_of"] = ans if ans in cands else -1
    return True


def op_enter_battlefield(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """608.3: the permanent spell enters the battlefield (as a copy if one was chosen)."""
    item = res.item
    cid = item.cid
    copy_of = res.vars.get("copy_of", -1)
    base = copiable(g, copy_of) if copy_of >= 0 else None
    if base is not None:
        ex = g.cdef[cid].copy_except_pt
        if ex is not None:
            # 707.9d: with power and toughness set by the copy effect, a CDA that defines
            # them is not copied (a 7/7 exception copying a CDA creature is 7/7, CR 707.9d).
            kept = tuple(
                ab for ab in base.abilities if not (isinstance(ab, StaticAbility) and ab.defines_pt)
            )
            base = dataclasses.replace(base, power=ex[0], toughness=ex[1], abilities=kept)
    g._enter_from_stack(item, base)
    return True


def op_text_change(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """A text change (CR 612): replace one color word with another or one basic land type
    with another in the target's text. The choice is made on resolution among the words the
    text holds; a text without such words is unchanged."""
    objs = _on_battlefield(g, res, a["what"])
    if not objs:
        return True
    cid = objs[0]
    opts = res.vars.get("text_options")
    if opts is None:
        base = copiable(g, cid)
        ch = g.chars(cid)
        colors, lands = words(base.abilities, base.keywords, ch.subtypes | base.subtypes)
        opts = [("color", c, t) for c in colors for t in (1, 2, 4, 8, 16) if t != c]
        opts += [("land", c, t) for c in lands for t in BASIC_LAND_TYPES if t != c]
        if not opts:
            return True
        res.vars["text_options"] = opts
    ans = res.vars.pop("answer", None)
    if ans is None:
        labels = tuple(
            (f"{COLOR_WORD_OF[f]} -> {COLOR_WORD_OF[t]}" if k == "color" else f"{f} -> {t}")
            for k, f, t in opts
        )
        _ask(
            g,
            res,
            D_CHOICE,
            res.item.controller,
            "replace which word with which?",
            labels,
            purpose="text_change",
        )
        return False
    change = tuple(opts[ans])
    res.vars.pop("text_options", None)
    comp = Component(L_TEXT, "text", change)
    _effect(g, res, (comp,), [cid], "forever", f"text change {change[1]} -> {change[2]}")
    return True


def op_may(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You may ...": yes or no, by the controller on resolution."""
    ans = res.vars.pop("answer", None)
    if ans is None:
        _ask(g, res, D_CHOICE, res.item.controller, "you may: do it?", ("yes", "no"), purpose="may")
        return False
    if ans == 0:
        # The optional effects run next, then what "if you do" adds; the caller then
        # advances past this op.
        res.frames.append([(*a["effects"], *a.get("if_you_do", ())), 0])
    return True


def op_cascade(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Cascade (CR 702.85a): "exile cards from the top of your library until you exile a
    nonland card whose mana value is less than this spell's. You may cast it without paying
    its mana cost. Put the exiled cards on the bottom of your library in a random order."
    The exiled cards are public; the card is offered only if it can be cast for no mana
    (its targets exist); cast, the cast begins once this ability has left the stack, as
    madness's does. The spell's mana value is its card's (X counts as 0)."""
    v = res.vars
    item = res.item
    seat = item.controller
    state = v.pop("cascade", None)
    if state is None:
        pile = g.library[g.rules.pile_of[seat]]
        below = g.cdef[item.cid].mv
        exiled: list[int] = []
        hit = -1
        while pile:
            top = pile[-1]
            g._move(top, EXILE)
            g._log("cascade_exile", seat, top)
            exiled.append(top)
            cd = g.cdef[top]
            if not cd.types & LAND and cd.mv < below:
                hit = top
                break
        if hit >= 0 and g._can_cast(seat, hit, NO_MANA, g.mana_sources(seat)):
            v["cascade"] = (tuple(exiled), hit)
            prompt = f"cascade: cast {g.name(hit)} without paying its mana cost?"
            _ask(g, res, D_CHOICE, seat, prompt, ("yes", "no"), purpose="may")
            return False
    else:
        exiled, hit = list(state[0]), state[1]
        if v.pop("answer", None) == 0 and g.zone[hit] == EXILE:
            item.info["cast_free"] = hit
            exiled.remove(hit)
    _to_bottom(g, seat, [c for c in exiled if g.zone[c] == EXILE], True)
    return True


def op_madness(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Madness's trigger (CR 702.35a): the card's owner may cast it from exile by paying
    its madness cost; if they don't (or can't), it goes to their graveyard. Cast, the
    spell is cast once this trigger has left the stack (`item.info["cast"]`)."""
    item = res.item
    cid = item.cid
    if g.zone[cid] != EXILE or g.oid[cid] != item.src_oid:
        return True  # the card left exile: a new object, nothing to cast (400.7)
    seat = g.owner[cid]
    ans = res.vars.pop("answer", None)
    if ans is None:
        cost = g.cdef[cid].madness
        if g._can_cast(seat, cid, cost, g.mana_sources(seat)):
            assert cost is not None
            prompt = f"madness: cast {g.name(cid)} for {cost.text}?"
            _ask(g, res, D_CHOICE, seat, prompt, ("yes", "no"), purpose="may")
            return False
        ans = 1
    if ans == 0:
        item.info["cast"] = 1
    else:
        g._move(cid, GRAVEYARD)
    return True


def op_unless_entered_this_turn(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "... unless this creature entered this turn": the effects, unless the ability's
    source is the permanent that entered the battlefield this turn (`Perm.entered_turn`,
    kept for the cards that ask)."""
    item = res.item
    p = g.perm.get(item.cid)
    entered = p is not None and p.oid == item.src_oid and p.entered_turn == g.turn
    return _branch(res, a, not entered)


def op_at_next_upkeep(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "Draw a card at the beginning of the next turn's upkeep": a delayed triggered
    ability (CR 603.7a), controlled by this spell's or ability's controller, that triggers
    once, as the next upkeep begins (603.7c), whoever's turn it is."""
    item = res.item
    ab = TriggeredAbility(
        "next_upkeep",
        effects=a["effects"],
        text="at the beginning of the next turn's upkeep, "
        + "; ".join(op_text(o) for o in a["effects"]),
    )
    g.delayed.append(
        Trigger(item.controller, item.cid, item.src_oid, ab, -1, {"at": "next_upkeep"})
    )
    return True


def op_kicked(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """Kicker's linked abilities (CR 702.33d): `effects` if the spell was kicked (for an
    ability, the permanent that kicked spell became), else `otherwise` ("... instead")."""
    item = res.item
    if item.kind == SPELL:
        kicked = bool(item.info.get("kicked"))
    else:
        p = g.perm.get(item.cid)
        kicked = p is not None and p.kicked
    return _branch(res, a, kicked)


def op_discard_or_sacrifice_land(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "You may discard a card or sacrifice a land. If you do, ...": the controller
    chooses which of the two they can do, or neither; then the card or the land; and
    `effects` run only if one was given (608.2c)."""
    v = res.vars
    seat = res.item.controller
    ans = v.pop("answer", None)
    give = v.pop("give", None)
    if give is not None:
        # The card discarded or the land sacrificed (`ans`), then what doing it gives.
        if give == "discard":
            g._discard(seat, ans)
        else:
            g._to_graveyard(ans, "sacrificed")
        res.frames.append([a["effects"], 0])
        return True
    lands = tuple(
        c for c in g.battlefield if (ch := g.chars(c)).controller == seat and ch.types & LAND
    )
    opts = (("discard",) if g.hand[seat] else ()) + (("sacrifice",) if lands else ())
    if ans is None:
        if not opts:
            return True  # nothing to give: nothing is done, so nothing follows
        labels = tuple("discard a card" if o == "discard" else "sacrifice a land" for o in opts)
        _ask(g, res, D_CHOICE, seat, "you may", (*labels, "neither"), purpose="may")
        return False
    if ans >= len(opts):
        return True  # neither
    v["give"] = opts[ans]
    if opts[ans] == "discard":
        _ask(g, res, D_DISCARD, seat, "discard a card")
    else:
        _ask(g, res, D_SELECT, seat, "sacrifice a land", select=lands, purpose="sacrifice")
    return False


def op_discarded_nonland(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    """ "If the discarded card wasn't a land card, ...": `effects` if the card discarded
    for the spell's additional cost (CR 601.2b, 601.2h) is not a land card."""
    c = res.item.info.get("extra")
    return _branch(res, a, c is not None and not g.cdef[c].types & LAND)


def _branch(res: Resolution, a: dict[str, Any], yes: bool) -> bool:
    """A wrapper op's `effects` if `yes`, else its `otherwise` (kicker's, an ability
    word's): they run next; the caller then advances past the wrapper."""
    ops = a["effects"] if yes else a.get("otherwise", ())
    if ops:
        res.frames.append([ops, 0])
    return True


def op_text(op: Op) -> str:
    """How the log and card text say `op`."""
    d = OPS.get(op.name)
    if d is not None and d.text is not None:
        return d.text(op.args)
    what = op.args.get("what")
    name = op.name.replace("_", " ")
    return f"{name} {what}" if what else name


def _may_text(a: dict[str, Any]) -> str:
    out = "you may: " + "; ".join(op_text(o) for o in a["effects"])
    if a.get("if_you_do"):
        out += "; if you do: " + "; ".join(op_text(o) for o in a["if_you_do"])
    return out


def _unless_entered_text(a: dict[str, Any]) -> str:
    return "unless it entered this turn: " + "; ".join(op_text(o) for o in a["effects"])


def _next_upkeep_text(a: dict[str, Any]) -> str:
    return "at the next upkeep: " + "; ".join(op_text(o) for o in a["effects"])


# The ability words whose condition `state_condition` reads (trigger conditions and ops).
STATE_CONDITIONS: Final = frozenset({"metalcraft", "threshold", "hellbent"})


def state_condition(g: GameLike, cond: str, seat: int) -> bool:
    """The game-state conditions of ability words (CR 207.2c: an ability word has no rules
    meaning; the condition it heads does): metalcraft, "you control three or more
    artifacts"; threshold, "seven or more cards are in your graveyard"; hellbent, "you have
    no cards in hand"."""
    if cond == "metalcraft":
        n = 0
        for c in g._derived().controlled[seat]:
            if g.chars(c).types & ARTIFACT:
                n += 1
        return n >= 3
    if cond == "threshold":
        return len(g.graveyard[g.rules.pile_of[seat]]) >= 7
    if cond == "hellbent":
        return not g.hand[seat]
    raise AssertionError(cond)  # pragma: no cover - validated when loading


def _if_state(g: GameLike, res: Resolution, a: dict[str, Any], cond: str) -> bool:
    """`effects` if the condition holds for the controller as the op runs, else
    `otherwise` ("... instead if you control three or more artifacts")."""
    return _branch(res, a, state_condition(g, cond, res.item.controller))


def op_metalcraft(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    return _if_state(g, res, a, "metalcraft")


def op_threshold(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    return _if_state(g, res, a, "threshold")


def op_hellbent(g: GameLike, res: Resolution, a: dict[str, Any]) -> bool:
    return _if_state(g, res, a, "hellbent")


def _state_text(cond: str) -> Callable[[dict[str, Any]], str]:
    def text(a: dict[str, Any]) -> str:
        out = f"if {cond}: " + "; ".join(op_text(o) for o in a["effects"])
        if a.get("otherwise"):
            out += "; otherwise: " + "; ".join(op_text(o) for o in a["otherwise"])
        return out

    return text


def _kicked_text(a: dict[str, Any]) -> str:
    out = "if kicked: " + "; ".join(op_text(o) for o in a["effects"])
    if a.get("otherwise"):
        out += "; otherwise: " + "; ".join(op_text(o) for o in a["otherwise"])
    return out


def _pt_text(kind: str, a: dict[str, Any]) -> str:
    verb = "gets" if kind == "pump" else "has base P/T"
    sign = "+" if kind == "pump" else ""
    p, t = a["power"], a["toughness"]

    def part(v: Any) -> str:  # "X" takes the sign as an int does: +X, -X
        if isinstance(v, dict):  # a count: N for each of what it counts
            return f"{sign}{v.get('times', 1)} per {count_text(v)}"
        return f"{sign if v == 'X' or (type(v) is int and v >= 0) else ''}{v}"

    return f"{_group_text(a)} {verb} {part(p)}/{part(t)}"


def _group_text(a: dict[str, Any]) -> str:
    return a["what"] + (f" ({a['subtype']})" if a.get("subtype") else "")


# Every effect op, declared once: its card-data schema (None: made by the engine, not
# written in card files), what it does, and how the log and card text say it.
OPS: Final[dict[str, OpDef]] = {
    d.name: d
    for d in (
        OpDef(
            "damage",
            DamageOp,
            op_damage,
            lambda a: f"{amount_text(a['amount'])} damage to {a['to']}",
        ),
        OpDef("destroy", DestroyOp, op_destroy),
        OpDef("regenerate", WhatOp, op_regenerate),
        OpDef(
            "skip_untap",
            WhatOp,
            op_skip_untap,
            lambda a: f"{a['what']} doesn't untap during its controller's next untap step",
        ),
        OpDef(
            "exile_if_dies",
            WhatOp,
            op_exile_if_dies,
            lambda a: f"if {a['what']} would die this turn, exile it instead",
        ),
        OpDef("sacrifice", WhatOp, op_sacrifice),
        OpDef("return_to_hand", WhatOp, op_return_to_hand),
        OpDef(
            "impulse",
            ImpulseOp,
            op_impulse,
            lambda a: f"exile the top {a['count']} card(s); may play them until {a['until']}",
        ),
        OpDef("return_to_battlefield", WhatOp, op_return_to_battlefield),
        OpDef(
            "shuffle_into_library",
            WhatOp,
            op_shuffle_into_library,
            lambda a: "its owner shuffles it into their library",
        ),
        OpDef(
            "gain_life_sacrificed",
            EmptyOp,
            op_gain_life_sacrificed,
            lambda a: "you gain life equal to the sacrificed permanent's mana value",
        ),
        OpDef(
            "opponent_discards_or_you_draw",
            EmptyOp,
            op_opponent_discards_or_you_draw,
            lambda a: "each opponent discards a card; for each who can't, you draw a card",
        ),
        OpDef(
            "exile_graveyard",
            PlayerOp,
            op_exile_graveyard,
            lambda a: f"exile the graveyard of {a['who']}",
        ),
        OpDef(
            "return_self_from_graveyard",
            TappedOp,
            op_return_self_from_graveyard,
            lambda a: (
                "return this card from your graveyard to the battlefield"
                + (" tapped" if a.get("tapped") else "")
            ),
        ),
        OpDef("counter", CounterSpellOp, op_counter),
        OpDef("put_on_library", WhatOp, op_put_on_library),
        OpDef("exile_linked", ExileLinkedOp, op_exile_linked),
        OpDef("return_linked", EmptyOp, op_return_linked),
        OpDef("untap", WhatOp, op_untap),
        OpDef("tap", WhatOp, op_tap),
        OpDef("explore", WhatOp, op_explore),
        OpDef("untap_up_to", UntapUpToOp, op_untap_up_to, lambda a: f"untap up to {a['count']}"),
        OpDef("draw", DrawOp, op_draw, lambda a: f"draw {amount_text(a['count'])}"),
        OpDef("gain_life", LifeOp, op_gain_life),
        OpDef("lose_life", LifeOp, op_lose_life, lambda a: f"{a['who']} loses {a['amount']} life"),
        OpDef("exile", WhatOp, op_exile),
        OpDef("mill", MillOp, op_mill, lambda a: f"{a['who']} mills {a['count']}"),
        OpDef("scry", LookOp, op_scry, lambda a: f"scry {a['count']}"),
        OpDef(
            "look_take",
            LookTakeOp,
            op_look_take,
            lambda a: f"look at {a['count']}, take {a['take']}, the rest to the {a['rest']}",
        ),
        OpDef(
            "reveal_take",
            RevealTakeOp,
            op_reveal_take,
            lambda a: f"reveal {a['count']}, take the {'/'.join(a['types'])} cards",
        ),
        OpDef("add_mana", AddManaOp, op_add_mana, lambda a: f"add {a['mana']}"),
        OpDef("take_initiative", TakeInitiativeOp, op_take_initiative),
        OpDef("goad", WhatOp, op_goad),
        OpDef("reveal_put", RevealPutOp, op_reveal_put),
        OpDef("surveil", LookOp, op_surveil, lambda a: f"surveil {a['count']}"),
        OpDef("fight", FightOp, op_fight, lambda a: f"{a['what']} fights {a['other']}"),
        OpDef("discard", DiscardOp, op_discard),
        OpDef("pump", PumpOp, _pt(L_PT_MOD, "modify_pt"), lambda a: _pt_text("pump", a)),
        OpDef("set_base_pt", PumpOp, _pt(L_PT_SET, "set_pt"), lambda a: _pt_text("set", a)),
        OpDef("switch_pt", SwitchOp, _pt(L_PT_SWITCH, "switch_pt")),
        OpDef(
            "grant",
            GrantOp,
            op_grant,
            lambda a: f"{_group_text(a)} gains {', '.join(a['keywords'])}",
        ),
        OpDef("lose_abilities", SwitchOp, op_lose_abilities),
        OpDef(
            "reveal_discard",
            RevealDiscardOp,
            op_reveal_discard,
            lambda a: f"{a['who']} reveals their hand and discards a card you choose",
        ),
        OpDef(
            "search_basic_land",
            SearchOp,
            op_search_basic_land,
            lambda a: f"search for {a.get('land_type') or 'a basic land'} card ({a['to']})",
        ),
        OpDef(
            "restrict",
            RestrictOp,
            op_restrict,
            lambda a: f"{a['what']} {restriction_text(a['rules'])}",
        ),
        OpDef("gain_control", ControlOp, op_gain_control),
        OpDef("add_subtypes", SubtypeOp, op_add_subtypes),
        OpDef("animate", AnimateOp, op_animate),
        OpDef("land_type_change", LandTypeOp, op_land_type_change),
        OpDef("create_token", TokenOp, op_create_token),
        OpDef("add_counter", CounterOp, op_add_counter),
        OpDef("prevent_combat_damage", EmptyOp, op_prevent_combat_damage),
        OpDef(
            "prevent_damage",
            PreventOp,
            op_prevent_damage,
            lambda a: f"prevent the next {a['amount']} damage to {a['to']} this turn",
        ),
        OpDef("sacrifice_unless_pay", CostOp, op_sacrifice_unless_pay),
        OpDef(
            "pay_to_copy",
            CostOp,
            op_pay_to_copy,
            lambda a: f"the target's player or controller may pay {a['cost']} to copy this spell",
        ),
        OpDef(
            "counter_unless_pay",
            CounterUnlessOp,
            op_counter_unless_pay,
            lambda a: (
                "counter "
                + ("target spell" if a.get("what") == "target" else "that spell or ability")
                + f" unless its controller pays {a['cost']}"
            ),
        ),
        OpDef("return_own_enchantment", ColorsOp, op_return_own_enchantment),
        OpDef("attach", AttachOp, op_attach),
        OpDef("create_token_copy", TokenCopyOp, op_create_token_copy),
        OpDef("text_change", WhatOp, op_text_change),
        OpDef("enter_as_copy", None, op_enter_as_copy),
        OpDef("ninjutsu", None, op_ninjutsu),
        OpDef("enter_battlefield", None, op_enter_battlefield),
        OpDef("madness", None, op_madness),
        OpDef("job_select", None, op_job_select),
        OpDef("fabricate", None, op_fabricate),
        OpDef("cascade", None, op_cascade),
        OpDef("venture", None, op_venture),
        OpDef("return_dead", None, op_return_dead),
        # "You may" and kicker's "if this spell was kicked": validated by the loader,
        # which checks the ops inside them (`NESTED`).
        OpDef("may", None, op_may, _may_text),
        OpDef("unless_entered_this_turn", None, op_unless_entered_this_turn, _unless_entered_text),
        OpDef("kicked", None, op_kicked, _kicked_text),
        OpDef(
            "may_pay",
            None,
            op_may_pay,
            lambda a: (
                f"you may pay {a['cost']}; if you do: "
                + "; ".join(op_text(o) for o in a["effects"])
            ),
        ),
        OpDef(
            "may_exile_card",
            None,
            op_may_exile_card,
            lambda a: (
                f"you may exile a {'/'.join(a['types']) or 'any'} card from your graveyard; "
                "if you do: " + "; ".join(op_text(o) for o in a["effects"])
            ),
        ),
        OpDef(
            "discard_or_sacrifice_land",
            None,
            op_discard_or_sacrifice_land,
            lambda a: (
                "you may discard a card or sacrifice a land; if you do: "
                + "; ".join(op_text(o) for o in a["effects"])
            ),
        ),
        OpDef(
            "discarded_nonland",
            None,
            op_discarded_nonland,
            lambda a: (
                "if the discarded card wasn't a land card: "
                + "; ".join(op_text(o) for o in a["effects"])
            ),
        ),
        # Ability words' conditions (metalcraft, threshold, hellbent): the same shape.
        OpDef("metalcraft", None, op_metalcraft, _state_text("metalcraft")),
        OpDef("threshold", None, op_threshold, _state_text("threshold")),
        OpDef("hellbent", None, op_hellbent, _state_text("hellbent")),
        OpDef("at_next_upkeep", None, op_at_next_upkeep, _next_upkeep_text),
    )
}

# The ops that hold op lists, and the fields that hold them (the first is required).
NESTED: Final[dict[str, tuple[str, ...]]] = {
    "may": ("effects", "if_you_do"),
    "unless_entered_this_turn": ("effects",),
    "kicked": ("effects", "otherwise"),
    "discarded_nonland": ("effects",),
    "discard_or_sacrifice_land": ("effects",),
    "may_pay": ("effects",),
    "may_exile_card": ("effects",),
    "metalcraft": ("effects", "otherwise"),
    "threshold": ("effects", "otherwise"),
    "hellbent": ("effects", "otherwise"),
    "at_next_upkeep": ("effects",),
}
# The other arguments of such an op, with their schema ("you may pay {B}": its cost).
NESTED_ARGS: Final[dict[str, type[Strict]]] = {"may_pay": CostOp, "may_exile_card": CardTypesOp}


def inner_lists(op: Op) -> list[Any]:
    """The op lists inside `op` (a "may" or "kicked" wrapper), else none."""
    fields = NESTED.get(op.name)
    if fields is None:
        return []
    return [op.args[f] for f in fields if f in op.args]


_RUN: Final = {name: d.run for name, d in OPS.items()}
