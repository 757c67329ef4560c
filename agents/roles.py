"""What a card does, read from its data: the roles the scripted players pick cards by.

Each role is a predicate on a card's definition (or an ability) built from the card-data
vocabulary (types, keywords, effect ops, targets, static components), never from a card's
name, so the scripted players play any card set: a new card that does what a role
describes is played like the cards it resembles.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mtg_env.engine.cards import (
    ActivatedAbility,
    CardDef,
    Op,
    SpellAbility,
    StaticAbility,
    TriggeredAbility,
)
from mtg_env.engine.constants import CREATURE, ENCHANTMENT, INSTANT, LAND
from mtg_env.engine.effects import NESTED, inner_lists

BASIC = 1  # supertype bit of "basic"


def with_x(ops: tuple[Op, ...], x: int) -> tuple[Op, ...]:
    """`ops` with every "X" (and "-X") number replaced by `x` (CR 107.3a)."""

    def sub(o: Op) -> Op:
        args = o.args
        if o.name in NESTED:
            fields = NESTED[o.name]  # the op lists; the other arguments stay as they are
            return Op(
                o.name,
                {f: tuple(sub(e) for e in v) if f in fields else v for f, v in args.items()},
            )
        if not any(v in ("X", "-X") for v in args.values() if isinstance(v, str)):
            return o
        return Op(
            o.name,
            {k: (x if v == "X" else -x if v == "-X" else v) for k, v in args.items()},
        )

    return tuple(sub(o) for o in ops)


def spell_ops(cd: CardDef) -> tuple[Op, ...]:
    """What the card's spell does: its effects, and those of every mode of a modal spell
    (a role holds if some mode plays it). X is 0 off the stack (CR 202.3e)."""
    sp = cd.spell
    if sp is None:
        return ()
    if not sp.modes and not (cd.cost and cd.cost.x):
        return sp.effects
    return with_x(sp.effects + tuple(o for m in sp.modes for o in m.effects), 0)


def announces(cd: CardDef) -> bool:
    """A spell whose caster announces a mode or X as it is cast (CR 601.2b)."""
    return cd.spell is not None and (bool(cd.spell.modes) or bool(cd.cost and cd.cost.x))


def variants(cd: CardDef, x: int) -> list[tuple[int, CardDef]]:
    """The spells a modal or X spell can be once announced, as cards of one mode with X
    = `x`: (mode number, or -1 for a spell without modes; that card)."""
    sp = cd.spell
    assert sp is not None
    modes = list(enumerate(sp.modes)) if sp.modes else [(-1, sp)]
    return [
        (i, dataclasses.replace(cd, spell=SpellAbility(m.targets, with_x(m.effects, x), m.text)))
        for i, m in modes
    ]


def _ops_named(ops: tuple[Op, ...], name: str) -> list[Op]:
    """Ops called `name`, including those inside "you may" and kicker's wrappers (either
    branch of a "kicked" one)."""
    out = []
    for o in ops:
        if o.name == name:
            out.append(o)
        for inner in inner_lists(o):
            out += _ops_named(inner, name)
    return out


def _statics(cd: CardDef) -> list[StaticAbility]:
    return [ab for ab in cd.abilities if isinstance(ab, StaticAbility)]


def _components(cd: CardDef, op: str) -> list[Any]:
    return [c for ab in _statics(cd) for c in ab.components if c.op == op]


def _enters_triggers(cd: CardDef) -> list[TriggeredAbility]:
    return [ab for ab in cd.abilities if isinstance(ab, TriggeredAbility) and ab.event == "enters"]


# ------------------------------------------------------------------ creatures


def bounces_on_entering(cd: CardDef) -> bool:
    """A creature that returns target creature to its owner's hand when it enters."""
    return any(
        t.targets
        and t.targets[0].kind == "creature"
        and any(o.args.get("what") == "target" for o in _ops_named(t.effects, "return_to_hand"))
        for t in _enters_triggers(cd)
    )


def regrows_on_entering(cd: CardDef) -> bool:
    """A creature that returns a creature card from its controller's graveyard to hand
    when it enters."""
    return any(
        t.targets
        and t.targets[0].kind == "graveyard_card"
        and t.targets[0].filter.types & CREATURE
        and _ops_named(t.effects, "return_to_hand")
        for t in _enters_triggers(cd)
    )


# ------------------------------------------------------------------ spells


def targeted_discard(cd: CardDef) -> bool:
    return any(o.args.get("who") == "target" for o in _ops_named(spell_ops(cd), "discard"))


def only_draws(cd: CardDef) -> bool:
    ops = spell_ops(cd)
    return bool(ops) and all(o.name == "draw" for o in ops)


def selects_cards(cd: CardDef) -> bool:
    """A spell that only draws and looks (scry, surveil): card selection."""
    ops = spell_ops(cd)
    names = {o.name for o in ops}
    return bool(names & {"scry", "surveil"}) and names <= {"draw", "scry", "surveil"}


def steals_target_this_turn(cd: CardDef) -> bool:
    return any(
        o.args.get("what") == "target" and o.args.get("duration") == "end_of_turn"
        for o in _ops_named(spell_ops(cd), "gain_control")
    )


def steals_all_creatures_this_turn(cd: CardDef) -> bool:
    return any(
        o.args.get("what") == "all_creatures" for o in _ops_named(spell_ops(cd), "gain_control")
    )


def instant_tokens(cd: CardDef) -> bool:
    """An instant that creates tokens: best at the end of the opponent's turn."""
    return bool(cd.types & INSTANT) and bool(_ops_named(spell_ops(cd), "create_token"))


def counters_spells(cd: CardDef) -> bool:
    return bool(_ops_named(spell_ops(cd), "counter"))


def removal_worth_countering(cd: CardDef) -> bool:
    """A spell that takes or destroys a target: an Aura that gains control, a destroy or
    exile spell, a fight spell, a spell that gains control of a target."""
    if _components(cd, "control"):
        return True
    ops = spell_ops(cd)
    return (
        bool(_ops_named(ops, "destroy"))
        or steals_target_this_turn(cd)
        or bool(exiles_target_permanent(cd))
        or fight_boost(cd) is not None
    )


def pump(cd: CardDef) -> int:
    """The power an instant gives one target creature ("+N/+N until end of turn"), or 0."""
    if not cd.types & INSTANT:
        return 0
    ops = spell_ops(cd)
    if len(ops) == 1 and ops[0].name == "pump" and ops[0].args.get("what") == "target":
        return max(0, int(ops[0].args["power"]))
    return 0


def burn(cd: CardDef) -> int:
    """The damage an instant deals to any one target, or 0."""
    if not cd.types & INSTANT or cd.spell is None:
        return 0
    ops = spell_ops(cd)
    targets = cd.spell.targets
    if len(ops) == 1 and ops[0].name == "damage" and targets and targets[0].kind == "any":
        return int(ops[0].args["amount"])
    return 0


def shrinks(cd: CardDef) -> bool:
    """An instant that makes target creature lose its abilities until end of turn."""
    return bool(cd.types & INSTANT) and any(
        o.args.get("what") == "target" for o in _ops_named(spell_ops(cd), "lose_abilities")
    )


def grants_hexproof(cd: CardDef) -> bool:
    """An instant that gives target creature you control hexproof."""
    if not cd.types & INSTANT or cd.spell is None or not cd.spell.targets:
        return False
    spec = cd.spell.targets[0]
    return (
        spec.kind == "creature"
        and spec.filter.controller == "you"
        and any(
            o.args.get("what") == "target" and "hexproof" in o.args["keywords"]
            for o in _ops_named(spell_ops(cd), "grant")
        )
    )


def fogs(cd: CardDef) -> bool:
    return bool(_ops_named(spell_ops(cd), "prevent_combat_damage"))


def destroy_target_creature(cd: CardDef) -> int | None:
    """Colors a destroy spell can't target (a mask) if it destroys target creature;
    None otherwise."""
    if cd.spell is None or not cd.spell.targets or cd.spell.targets[0].kind != "creature":
        return None
    if not _ops_named(spell_ops(cd), "destroy"):
        return None
    return cd.spell.targets[0].filter.not_colors


def exiles_target_permanent(cd: CardDef) -> str:
    """The kind of target ("creature", "permanent") a spell exiles from the battlefield,
    or "" (an exile of a card in a graveyard is not removal)."""
    if cd.spell is None or not cd.spell.targets:
        return ""
    kind = cd.spell.targets[0].kind
    if kind not in ("creature", "permanent") or not any(
        o.args.get("what") == "target" for o in _ops_named(spell_ops(cd), "exile")
    ):
        return ""
    return kind


def fight_boost(cd: CardDef) -> tuple[int, int] | None:
    """A spell in which target creature you control fights target creature you don't
    control: the power and toughness the spell gives the first creature before the fight
    (a pump, +1/+1 counters); None if the spell does not fight."""
    if cd.spell is None or len(cd.spell.targets) < 2:
        return None
    return fight_boost_ops(spell_ops(cd))


def fight_boost_ops(ops: tuple[Op, ...]) -> tuple[int, int] | None:
    fight = _ops_named(ops, "fight")
    if not fight or fight[0].args.get("what") != "target":
        return None
    pw = th = 0
    for o in ops:
        if o.name == "fight":
            break
        if o.args.get("what") != "target":
            continue
        if o.name == "pump":
            pw += int(o.args.get("power", 0))
            th += int(o.args.get("toughness", 0))
        elif o.name == "add_counter" and o.args.get("counter") == "+1/+1":
            n = int(o.args.get("count", 1))
            pw += n
            th += n
    return pw, th


def life_loss(ops: tuple[Op, ...], who: str) -> int:
    """The life an ability or spell makes `who` ("target", "each_opponent", "you") lose."""
    return sum(int(o.args["amount"]) for o in _ops_named(ops, "lose_life") if o.args["who"] == who)


def mills(ops: tuple[Op, ...], who: str) -> int:
    """The cards an ability or spell mills from `who`'s library."""
    return sum(int(o.args.get("count", 1)) for o in _ops_named(ops, "mill") if o.args["who"] == who)


def draws(ops: tuple[Op, ...], who: str) -> int:
    """The cards an ability or spell makes `who` draw."""
    return sum(int(o.args.get("count", 1)) for o in _ops_named(ops, "draw") if o.args["who"] == who)


def drains_opponent(ab: Any) -> int:
    """An activated ability whose only effects are life loss for an opponent (and life
    gain for you): the life the opponent loses, or 0."""
    if not isinstance(ab, ActivatedAbility):
        return 0
    if not ab.effects or any(o.name not in ("lose_life", "gain_life") for o in ab.effects):
        return 0
    if any(o.name == "gain_life" and o.args["who"] != "you" for o in ab.effects):
        return 0
    return life_loss(ab.effects, "each_opponent") + life_loss(ab.effects, "target")


def bounces_target_creature(cd: CardDef) -> bool:
    if cd.spell is None or not cd.spell.targets or cd.spell.targets[0].kind != "creature":
        return False
    return bool(_ops_named(spell_ops(cd), "return_to_hand"))


# ------------------------------------------------------------------ permanents


def is_equipment(cd: CardDef) -> bool:
    return "Equipment" in cd.subtypes


def grants_abilities_to_land(cd: CardDef) -> bool:
    """An Aura for a land that gives it an ability: for one's own land."""
    return (
        cd.enchant is not None
        and cd.enchant.kind == "land"
        and bool(_components(cd, "add_abilities"))
    )


def gains_control(cd: CardDef) -> bool:
    """A permanent whose static ability gains control of what it affects (an Aura)."""
    return bool(_components(cd, "control"))


def anthem(cd: CardDef) -> bool:
    """An enchantment that gives creatures +N/+N."""
    return bool(cd.types & ENCHANTMENT) and any(
        c.op == "modify_pt" and c.arg[0] > 0 and ab.affects.types & CREATURE
        for ab in _statics(cd)
        for c in ab.components
    )


def equalizes_creatures(cd: CardDef) -> bool:
    """Every creature loses its abilities and has a fixed power and toughness."""
    for ab in _statics(cd):
        ops = {c.op for c in ab.components}
        if {"set_pt", "lose_all_abilities"} <= ops and ab.affects.types & CREATURE:
            return ab.affects.controller is None
    return False


def punishes_nonbasic_lands(cd: CardDef) -> bool:
    """Nonbasic lands become a basic land type."""
    return any(
        ab.affects.types & LAND
        and ab.affects.not_supertypes & BASIC
        and any(c.op == "set_land_type" for c in ab.components)
        for ab in _statics(cd)
    )


def returns_own_enchantment(cd: CardDef) -> bool:
    return any(_ops_named(t.effects, "return_own_enchantment") for t in _enters_triggers(cd))


# ------------------------------------------------------------------ activated abilities


def equips(ab: Any) -> bool:
    return isinstance(ab, ActivatedAbility) and bool(_ops_named(ab.effects, "attach"))


def pings(ab: Any) -> bool:
    """{T}: 1 damage to any target."""
    return (
        isinstance(ab, ActivatedAbility)
        and ab.cost.tap
        and len(ab.effects) == 1
        and ab.effects[0].name == "damage"
        and ab.effects[0].args.get("amount") == 1
        and bool(ab.targets)
        and ab.targets[0].kind == "any"
    )


def has_pinger(abilities: tuple) -> bool:
    return any(pings(ab) for ab in abilities)


def damages_target_creature(ab: Any) -> int:
    """Damage an activated ability deals to target creature (other than the source), or 0."""
    if not isinstance(ab, ActivatedAbility) or not ab.targets or ab.targets[0].kind != "creature":
        return 0
    dmg = [o for o in ab.effects if o.name == "damage" and o.args.get("to") == "target"]
    return int(dmg[0].args["amount"]) if dmg else 0


def steals_subtype(ab: Any) -> frozenset[str]:
    """The creature types an activated ability gains control of (target creature of one
    of these types), or nothing."""
    if not isinstance(ab, ActivatedAbility) or not ab.targets:
        return frozenset()
    if not _ops_named(ab.effects, "gain_control"):
        return frozenset()
    return ab.targets[0].filter.subtypes


def copies_own_creature(ab: Any) -> bool:
    return isinstance(ab, ActivatedAbility) and bool(_ops_named(ab.effects, "create_token_copy"))
