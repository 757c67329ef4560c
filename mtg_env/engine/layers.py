"""Continuous effects and the layer system (CR 613).

Every characteristic the rules read (types, subtypes, colors, abilities, keywords, P/T,
controller) comes from `compute()`, which starts from the printed card (copiable values)
and applies, layer by layer, the effects of static abilities, of resolved spells and
abilities, and of counters. Within a layer: characteristic-defining abilities first, then
effects in dependency order, then by timestamp (CR 613.7, 613.8). An effect from a static
ability that began to apply in one layer keeps applying in later layers to the same set of
objects even if the ability is removed meanwhile (CR 613.6).

The result is cached by the game and recomputed only after something that can change it.
"""

from __future__ import annotations

from typing import Any, Final

from .cards import (
    Component,
    Filter,
    StaticAbility,
)
from .chars import (
    _BASE,
    _BASIC_TYPES,
    _INTRINSIC_SET,
    _PROT,
    Chars,
    Effect,
    _base,
    _has_static,
    _intrinsic,
)
from .constants import (
    ARTIFACT,
    CREATURE,
    DUR_WHILE_CONTROL_SOURCE,
    ENCHANTMENT,
    INSTANT,
    L_ABILITY,
    L_COLOR,
    L_CONTROL,
    L_COPY,
    L_PT_CDA,
    L_PT_MOD,
    L_PT_SET,
    L_PT_SWITCH,
    L_TEXT,
    L_TYPE,
    LAND,
    LAYER_NAMES,
    LEGENDARY,
    PLANESWALKER,
    SORCERY,
    STACK,
)
from .objects import SPELL
from .state import GameFields
from .text import change_ability, change_keywords, change_subtypes


def matches(f: Filter, ch: Chars, cid: int, source: int, you: int, owner: int) -> bool:
    """Does the object with characteristics `ch` match filter `f` relative to `source`?"""
    if f.types and not ch.types & f.types:
        return False
    if f.not_types and ch.types & f.not_types:
        return False
    if f.subtypes and not any(ch.has_subtype(s) for s in f.subtypes):
        return False
    if f.not_subtypes and any(ch.has_subtype(s) for s in f.not_subtypes):
        return False
    if f.supertypes and not ch.supertypes & f.supertypes:
        return False
    if f.not_supertypes and ch.supertypes & f.not_supertypes:
        return False
    if f.colors and not ch.colors & f.colors:
        return False
    if f.not_colors and ch.colors & f.not_colors:
        return False
    if f.controller == "you" and ch.controller != you:
        return False
    if f.controller == "opponent" and ch.controller == you:
        return False
    if f.owner == "you" and owner != you:
        return False
    if f.min_mana_value and ch.mv < f.min_mana_value:
        return False
    if f.max_mana_value >= 0 and ch.mv > f.max_mana_value:
        return False
    if f.keywords and not f.keywords & ch.keywords:
        return False
    if f.not_keywords and f.not_keywords & ch.keywords:
        return False
    if f.min_power >= 0 or f.max_power >= 0:
        pw = ch.power  # None: not a creature, which has no power (CR 208.1)
        if pw is None or pw < f.min_power or (f.max_power >= 0 and pw > f.max_power):
            return False
    return not (f.other and cid == source)


def card_types_in_graveyards(g: GameFields) -> int:
    """Number of card types among cards in all graveyards."""
    mask = 0
    for gy in g.graveyard:
        mask |= _types_of(g, gy)
    return sum(1 for k in _CARD_TYPES if mask & k)


def _types_of(g: GameFields, cards: list[int]) -> int:
    """The card types among `cards` (their printed types), as a bit mask."""
    mask = 0
    for cid in cards:
        mask |= g.cdef[cid].types
    return mask


_CARD_TYPES: Final = (ARTIFACT, CREATURE, ENCHANTMENT, INSTANT, LAND, PLANESWALKER, SORCERY)


# What a CDA's `Count` may read (card data: `cda: {power: {count: ...}}`).
COUNTS: Final = {"card_types_in_graveyards": card_types_in_graveyards}


def apply_cda(g: GameFields, ch: Chars) -> None:
    for ab in ch.abilities:
        if isinstance(ab, StaticAbility) and ab.cda is not None:
            cda = ab.cda
            if cda.power is not None:
                ch.power = COUNTS[cda.power.what](g) + cda.power.plus
            if cda.toughness is not None:
                ch.toughness = COUNTS[cda.toughness.what](g) + cda.toughness.plus


class _Cand:
    """One effect taking part in a layer: from a static ability or a resolved effect."""

    __slots__ = (
        "key",
        "ts",
        "components",
        "source",
        "you",
        "filter",
        "locked",
        "cda",
        "text",
        "is_static",
    )

    def __init__(
        self,
        key: Any,
        ts: int,
        components: tuple[Component, ...],
        source: int,
        you: int,
        flt: Filter | None,
        locked: list[int] | None,
        cda: bool,
        text: str,
        is_static: bool,
    ) -> None:
        self.key = key
        self.ts = ts
        self.components = components
        self.source = source
        self.you = you
        self.filter = flt
        self.locked = locked
        self.cda = cda
        self.text = text
        self.is_static = is_static


def compute(g: GameFields, trace: dict[int, list[str]] | None = None) -> dict[int, Chars]:
    """Characteristics of every permanent (and spell on the stack), layer by layer.

    `trace`, if given, receives per object the effects applied, in order, for `explain`.
    """
    if trace is None and not g.effects:
        plain = _compute_plain(g)
        if plain is not None:
            return plain
    bf = g.battlefield
    perm = g.perm
    cdef = g.cdef
    work: dict[int, Chars] = {}
    # Only permanents with a static ability can generate effects; most have none, so the
    # layer loop looks at these alone (the list is rebuilt when a layer changes abilities).
    holders: list[int] = []
    countered: list[int] = []  # permanents with counters, for 613.4c below
    for cid in bf:
        p = perm[cid]
        d = p.copy_def or cdef[cid]
        work[cid] = Chars(d, p.controller)
        if _BASE[d][3]:
            holders.append(cid)
        if p.counters:
            countered.append(cid)
    # The holders' static abilities with the layers each applies in, gathered once and
    # again only where `holders` is rebuilt (nowhere else can a static ability change).
    statics = _statics(holders, work, g)
    started: dict[Any, _Cand] = {}
    effects = g.effects
    eff_layers = [(e, _layer_mask(e.components)) for e in effects]
    # The intrinsic mana abilities follow the land types (CR 305.6, 305.7): recomputed
    # after layer 4 only if an effect in layers 1-4 may have changed types.
    types_touched = False

    for layer in (
        L_COPY,
        L_CONTROL,
        L_TEXT,
        L_TYPE,
        L_COLOR,
        L_ABILITY,
        L_PT_CDA,
        L_PT_SET,
        L_PT_MOD,
        L_PT_SWITCH,
    ):
        cands: list[_Cand] = []
        bit = 1 << layer
        for cid, ab, mask in statics:
            if not mask & bit:
                continue
            ch = work[cid]
            if layer == L_PT_CDA:
                # CDAs apply in 7a (and in every zone: see chars_off_battlefield)
                cands.append(
                    _Cand(
                        ("cda", cid),
                        0,
                        (),
                        cid,
                        ch.controller,
                        None,
                        [cid],
                        True,
                        ab.text or "characteristic-defining",
                        True,
                    )
                )
                continue
            key = (cid, id(ab))
            if key in started:
                continue
            cands.append(
                _Cand(
                    key,
                    perm[cid].timestamp,
                    ab.components,
                    cid,
                    ch.controller,
                    ab.affects,
                    None,
                    False,
                    ab.text or cdef[cid].name,
                    True,
                )
            )
        for c in started.values():
            if any(x.layer == layer for x in c.components):
                cands.append(c)
        for e, layers in eff_layers:
            comps = e.components
            if layers & bit:
                locked = [cid for cid, oid in e.affected if cid in work and perm[cid].oid == oid]
                if e.duration == DUR_WHILE_CONTROL_SOURCE and not _source_controls(g, e, work):
                    continue
                cands.append(
                    _Cand(
                        e, e.ts, comps, e.source, e.controller, None, locked, False, e.text, False
                    )
                )
        if not cands:
            if layer == L_TYPE and types_touched:
                _refresh_intrinsic(work)
            continue
        if layer <= L_TYPE:
            types_touched = True
        if len(cands) > 1:
            cands = _order(g, cands, work, layer)
        for c in cands:
            if c.locked is None and c.is_static and not _has_ability(work, c.key):
                continue  # its ability was removed earlier in this layer (CR 613.8 example)
            if c.cda:
                ch = work[c.source]
                apply_cda(g, ch)
                if trace is not None:
                    trace.setdefault(c.source, []).append(f"{LAYER_NAMES[layer]}: {c.text}")
                continue
            if c.locked is None:
                c.locked = _affected(g, c, work)
                if c.is_static:
                    started[c.key] = c
            for comp in c.components:
                if comp.layer != layer:
                    continue
                for cid in c.locked:
                    target = work.get(cid)
                    if target is not None:
                        _apply(g, comp, target, c)
                        if trace is not None:
                            trace.setdefault(cid, []).append(
                                f"{LAYER_NAMES[layer]}: {c.text} [{comp.op}] (timestamp {c.ts})"
                            )
        if layer == L_TYPE:
            _refresh_intrinsic(work)
        if layer in (L_COPY, L_TEXT, L_TYPE, L_ABILITY) and any(
            comp.layer == layer and _CHANGES[comp.op] & _ALTERS_ABILITIES
            for c in cands
            for comp in c.components
        ):
            # Abilities may have been added, removed or rewritten.
            holders = [cid for cid in bf if _has_static(work[cid])]
            statics = _statics(holders, work, g)
    # Counters (CR 613.4c) are applied with the 7c effects; addition commutes, so after them.
    for cid in countered:
        ch = work[cid]
        counters = perm[cid].counters
        if counters and ch.types & CREATURE and ch.power is not None:
            n = counters.get("+1/+1", 0) - counters.get("-1/-1", 0)
            if n:
                ch.power += n
                ch.toughness = (ch.toughness or 0) + n  # a creature with power has toughness
                if trace is not None:
                    trace.setdefault(cid, []).append(f"7c: counters {n:+d}/{n:+d}")
    _finish(g, work, holders)
    return work


def _layer_mask(components: tuple[Component, ...]) -> int:
    mask = 0
    for c in components:
        mask |= 1 << c.layer
    return mask


def _statics(
    holders: list[int], work: dict[int, Chars], g: GameFields
) -> list[tuple[int, StaticAbility, int]]:
    """(permanent, static ability, bit mask of the layers it applies in) for each static
    ability of `holders`, in order; one that applies only during (or outside) its
    controller's turn only then, one that applies "as long as" a condition only while it
    holds."""
    out: list[tuple[int, StaticAbility, int]] = []
    active = g.active
    for cid in holders:
        for ab in work[cid].abilities:
            if type(ab) is StaticAbility:
                if ab.during and (work[cid].controller == active) != (ab.during == "your_turn"):
                    continue
                if ab.condition and not all(
                    static_condition(g, work, cid, c) for c in ab.condition
                ):
                    continue
                mask = _layer_mask(ab.components)
                # Layer 7a holds the characteristic-defining abilities and nothing else.
                mask &= ~(1 << L_PT_CDA)
                if ab.cda:
                    mask |= 1 << L_PT_CDA
                out.append((cid, ab, mask))
    return out


def static_condition(g: GameFields, work: dict[int, Chars], cid: int, cond: str) -> bool:
    """Whether `cond` holds now for permanent `cid` ("it's attacking", "~ is equipped") or
    its controller. The artifacts and Equipment counted are the permanents'
    characteristics before continuous effects apply (`work`, as the layers begin): an
    effect that makes a permanent an artifact is not counted."""
    if cond == "attacking":
        return cid in g.attackers
    if cond == "equipped":
        perm = g.perm
        return any(perm[o].attached == cid and "Equipment" in ch.subtypes for o, ch in work.items())
    seat = work[cid].controller
    if cond == "threshold":  # seven or more cards in your graveyard
        return len(g.graveyard[g.rules.pile_of[seat]]) >= 7
    if cond == "hellbent":  # you have no cards in hand
        return not g.hand[seat]
    if cond == "delirium":  # four or more card types among cards in your graveyard
        mask = _types_of(g, g.graveyard[g.rules.pile_of[seat]])
        return sum(1 for k in _CARD_TYPES if mask & k) >= 4
    need = 3 if cond == "metalcraft" else 1  # "three or more artifacts" / "an artifact"
    n = 0
    for ch in work.values():
        if ch.controller == seat and ch.types & ARTIFACT:
            n += 1
            if n >= need:
                return True
    return False


def _compute_plain(g: GameFields) -> dict[int, Chars] | None:
    """The common case with no continuous effect at all (no resolved effects, no static
    ability on the battlefield): every permanent has its printed characteristics (plus
    counters), so the previous result of an unchanged permanent is reused. None if some
    permanent has a static ability (the full computation is needed)."""
    prev = g._chars
    perm = g.perm
    cdef = g.cdef
    work: dict[int, Chars] = {}
    for cid in g.battlefield:
        p = perm[cid]
        d = p.copy_def or cdef[cid]
        base = _BASE.get(d)
        if base is None:
            base = _base(d)
        if base[3]:
            return None
        ch = prev.get(cid)
        if (
            ch is None
            or not ch.plain
            or ch.cdef is not d
            or ch.controller != p.controller
            or p.counters
        ):
            ch = Chars(d, p.controller)
            counters = p.counters
            if counters and ch.types & CREATURE and ch.power is not None:
                n = counters.get("+1/+1", 0) - counters.get("-1/-1", 0)
                ch.power += n
                ch.toughness = (ch.toughness or 0) + n
            ch.prot = _prot(ch.keywords)
            ch.plain = True
        work[cid] = ch
    g._offbf = [0, 0]
    g._spend = [None, None]
    return work


def _has_ability(work: dict[int, Chars], key: Any) -> bool:
    cid, ab_id = key
    ch = work.get(cid)
    return ch is not None and any(id(a) == ab_id for a in ch.abilities)


def _trial(g: GameFields, b: _Cand, work: dict[int, Chars], layer: int) -> dict[int, Chars]:
    """The working characteristics after applying only `b`'s part in `layer`. Copy on
    write: an object `b` leaves alone is `work`'s own (never mutated here)."""
    trial = dict(work)
    copied: set[int] = set()
    objs = b.locked if b.locked is not None else _affected(g, b, trial)
    for comp in b.components:
        if comp.layer == layer:
            for cid in objs:
                ch = trial.get(cid)
                if ch is not None:
                    if cid not in copied:
                        copied.add(cid)
                        ch = trial[cid] = ch.copy()
                    _apply(g, comp, ch, b)
    if layer == L_TYPE:
        for cid, ch in trial.items():
            fixed = _intrinsic_fix(ch)
            if fixed is not None:
                if cid not in copied:
                    copied.add(cid)
                    ch = trial[cid] = ch.copy()
                ch.abilities = fixed
    return trial


def _order(g: GameFields, cands: list[_Cand], work: dict[int, Chars], layer: int) -> list[_Cand]:
    """Order effects within a layer (CR 613.7, 613.8): characteristic-defining abilities
    first; then an effect that depends on another applies after it; otherwise by
    timestamp. Dependency loops fall back to timestamp order (613.8b).

    A dependency is found by trial: B is applied alone to the current characteristics and
    we look whether A still exists and still applies to the same objects. Effects that
    already started (613.6) or come from resolved spells have locked object sets and fixed
    instructions, so only not-yet-started static abilities can depend on others; and from
    layer 7a on, no effect changes what a filter or an ability's existence looks at.
    """
    cands = sorted(cands, key=lambda c: (not c.cda, c.ts))
    if layer > L_ABILITY:
        return cands
    pending = [c for c in cands if not c.cda and c.locked is None and c.is_static]
    if not pending:
        return cands
    deps: dict[int, set[int]] = {id(c): set() for c in cands}
    reads = {id(a): _READS_ABILITY | _reads(a.filter) for a in pending}
    base: dict[int, list[int]] = {}
    trials: dict[int, dict[int, Chars]] = {}
    for b in cands:
        if b.cda:
            continue
        changes = 0
        for comp in b.components:
            if comp.layer == layer:
                changes |= _CHANGES[comp.op]
        for a in pending:
            if a is b or not changes & reads[id(a)]:
                # b changes nothing a's existence or filter looks at: no trial needed.
                continue
            t = trials.get(id(b))
            if t is None:
                t = trials[id(b)] = _trial(g, b, work, layer)
            was = base.get(id(a))
            if was is None:
                was = base[id(a)] = _affected(g, a, work)
            if not _has_ability(t, a.key) or _affected(g, a, t) != was:
                deps[id(a)].add(id(b))
    if not any(deps.values()):
        return cands
    out: list[_Cand] = [c for c in cands if c.cda]
    rest = [c for c in cands if not c.cda]
    done: set[int] = set()
    while rest:
        ready = [c for c in rest if deps[id(c)] <= done]
        # In a dependency loop nothing is ready: ignore the loop, use timestamps.
        nxt = ready[0] if ready else rest[0]
        out.append(nxt)
        done.add(id(nxt))
        rest.remove(nxt)
    return out


# What each layer op can change that `_order`'s dependency test looks at (CR 613.8a): an
# ability's existence (removing or rewriting abilities) and the characteristics `matches`
# reads. The trial that test runs is needed only where the two meet.
_READS_ABILITY: Final = 1
_READS_TYPES: Final = 2
_READS_SUBTYPES: Final = 4
_READS_COLORS: Final = 8
_READS_CONTROLLER: Final = 16
_READS_SUPERTYPES: Final = 32
# Not read by the dependency test (adding keeps every ability that existed), but it does
# change the list of abilities, so `compute` looks again for static abilities after it.
_ADDS_ABILITY: Final = 64
_ALTERS_ABILITIES: Final = _READS_ABILITY | _ADDS_ABILITY
_CHANGES: Final[dict[str, int]] = {
    "modify_pt": 0,
    "set_pt": 0,
    "switch_pt": 0,
    "set_pt_mv": 0,
    "add_keywords": 0,
    "add_abilities": _ADDS_ABILITY,
    "lose_all_abilities": _READS_ABILITY,
    "control": _READS_CONTROLLER,
    "add_types": _READS_TYPES,
    "add_subtypes": _READS_SUBTYPES,
    "all_creature_types": _READS_SUBTYPES,
    "set_land_type": _READS_SUBTYPES | _READS_ABILITY,
    "set_colors": _READS_COLORS,
    "text": _READS_SUBTYPES | _READS_ABILITY,
}


def _reads(f: Filter | None) -> int:
    """The characteristics `_affected` reads for a filter (`matches`, field by field)."""
    if f is None or f.relation == "self" or f.relation == "enchanted":
        return 0  # itself, or what it enchants (`_affected`): no characteristic is read
    r = 0
    if f.types or f.not_types:
        r |= _READS_TYPES
    if f.subtypes or f.not_subtypes:
        r |= _READS_SUBTYPES
    if f.supertypes or f.not_supertypes:
        r |= _READS_SUPERTYPES
    if f.colors or f.not_colors:
        r |= _READS_COLORS
    if f.controller is not None:
        r |= _READS_CONTROLLER
    # Mana value bounds read the mana cost, a copiable value that only layer 1 changes:
    # nothing the dependency test looks at from layer 2 on.
    return r


def _source_controls(g: GameFields, e: Effect, work: dict[int, Chars]) -> bool:
    src = work.get(e.source)
    return (
        src is not None and g.perm[e.source].oid == e.source_oid and src.controller == e.controller
    )


def _affected(g: GameFields, c: _Cand, work: dict[int, Chars]) -> list[int]:
    f = c.filter
    assert f is not None
    if f.relation == "self":
        return [c.source]
    if f.relation == "enchanted":
        target = g.perm[c.source].attached
        return [target] if target in work else []
    src, you = c.source, c.you
    owner = g.owner
    return [cid for cid, ch in work.items() if matches(f, ch, cid, src, you, owner[cid])]


def _apply(g: GameFields, comp: Component, ch: Chars, c: _Cand) -> None:
    op = comp.op
    arg = comp.arg
    if op == "modify_pt":
        if ch.power is not None:
            if len(arg) == 3:
                # "+1/+1 for each +1/+1 counter on this Aura": counted as it applies.
                counters = g.perm[c.source].counters
                n = counters.get(arg[2], 0) if counters else 0
                ch.power += arg[0] * n
                ch.toughness += arg[1] * n
            else:
                ch.power += arg[0]
                ch.toughness += arg[1]
    elif op == "set_pt":
        ch.power, ch.toughness = arg
    elif op == "switch_pt":
        if ch.power is not None:
            ch.power, ch.toughness = ch.toughness, ch.power
    elif op == "add_keywords":
        ch.keywords = ch.keywords | arg
    elif op == "lose_all_abilities":
        ch.keywords = frozenset()
        ch.abilities = ()
    elif op == "add_abilities":
        ch.abilities = ch.abilities + arg
    elif op == "control":
        ch.controller = c.you if arg == "you" else arg
    elif op == "add_types":
        ch.types |= arg
    elif op == "add_subtypes":
        # A creature type added to a noncreature does nothing (CR 205.1b, 613 seed note).
        if ch.types & CREATURE:
            ch.subtypes = ch.subtypes | arg
    elif op == "all_creature_types":
        ch.all_ctypes = True
    elif op == "set_land_type":
        # CR 305.7: the land loses its other land types and all abilities from its rules
        # text, and has the new type's intrinsic mana ability (added after layer 4).
        if ch.types & LAND:
            ch.subtypes = (ch.subtypes - _BASIC_TYPES) | {arg}
            ch.abilities = ()
            ch.keywords = frozenset()
    elif op == "set_colors":
        ch.colors = arg
    elif op == "set_pt_mv":
        ch.power = ch.toughness = ch.mv
    elif op == "text":
        ch.abilities = tuple(change_ability(a, arg) for a in ch.abilities)
        ch.keywords = change_keywords(ch.keywords, arg)
        ch.subtypes = change_subtypes(ch.subtypes, arg)
    else:  # pragma: no cover - validated at load time
        raise AssertionError(f"unknown layer op {op}")


def _refresh_intrinsic(work: dict[int, Chars]) -> None:
    for ch in work.values():
        fixed = _intrinsic_fix(ch)
        if fixed is not None:
            ch.abilities = fixed


def _intrinsic_fix(ch: Chars) -> tuple | None:
    """`ch`'s abilities with the intrinsic mana abilities of its current land types
    (CR 305.6, 305.7), or None if they already have exactly those."""
    if not ch.types & LAND:
        return None
    d = ch.cdef
    if ch.subtypes is d.subtypes and d.types & LAND and ch.abilities is _BASE[d][1]:
        # A printed land with its printed land types and abilities: `_base` gave it the
        # intrinsic abilities of those types (the common case, asked for every land).
        return None
    want = _intrinsic(ch.subtypes) if ch.subtypes & _BASIC_TYPES else ()
    if ch.abilities == want:
        return None  # the usual basic land, already right
    have = _intrinsic_in(ch.abilities)
    if have != want:
        return want + tuple(a for a in ch.abilities if a not in _INTRINSIC_SET)
    return None


# abilities tuple (by identity) -> (that tuple, its intrinsic mana abilities). Membership
# in _INTRINSIC_SET hashes each ability deeply, for every land at every layer
# recomputation; the tuples are mostly the card definitions' own, so the answer is cached.
# The entry keeps its tuple alive, so an id is not reused while it is cached.
_HAVE: Final[dict[int, tuple[tuple, tuple]]] = {}


def _intrinsic_in(abilities: tuple) -> tuple:
    hit = _HAVE.get(id(abilities))
    if hit is not None and hit[0] is abilities:
        return hit[1]
    if len(_HAVE) > 4096:
        _HAVE.clear()
    have = tuple(a for a in abilities if a in _INTRINSIC_SET)
    _HAVE[id(abilities)] = (abilities, have)
    return have


def _prot(keywords: frozenset[str]) -> int:
    p = _PROT_OF.get(keywords)
    if p is None:
        p = 0
        for k in keywords:
            p |= _PROT.get(k, 0)
        _PROT_OF[keywords] = p
    return p


_PROT_OF: Final[dict[frozenset[str], int]] = {}


def _finish(g: GameFields, work: dict[int, Chars], holders: list[int]) -> None:
    """Rules-modifying statics (after layers) and derived fields. Also records, per player,
    color-setting effects that reach spells and cards outside the battlefield
    (`everywhere`), and mana-spending rules (CR 609.4b)."""
    offbf = [0, 0]
    spend: list[tuple[int, bool] | None] = [None, None]
    # `holders`: the permanents that have a static ability after layer 6, in battlefield
    # order; only static abilities matter below.
    for cid in holders:
        ch = work[cid]
        for ab in ch.abilities:
            if type(ab) is StaticAbility:
                if ab.everywhere:
                    for comp in ab.components:
                        if comp.op == "set_colors":
                            offbf[ch.controller] = comp.arg
                if ab.spend is not None:
                    spend[ch.controller] = ab.spend
    g._offbf = offbf
    g._spend = spend
    for ch in work.values():
        ch.prot = _prot(ch.keywords)
    for cid in holders:
        ch = work[cid]
        for ab in ch.abilities:
            if type(ab) is StaticAbility and ab.rules:
                f = ab.affects
                if f.relation == "enchanted":
                    targets = [g.perm[cid].attached]
                elif f.relation == "self":
                    targets = [cid]
                else:
                    targets = [
                        x
                        for x, c2 in work.items()
                        if matches(f, c2, x, cid, ch.controller, g.owner[x])
                    ]
                for t in targets:
                    tch = work.get(t)
                    if tch is not None:
                        tch.rules = tch.rules | ab.rules


def controller_off_battlefield(g: GameFields, cid: int) -> int:
    """A spell's controller is who cast it; other cards are "controlled" by their owner."""
    if g.zone[cid] == STACK:
        for it in g.stack:
            if it.kind == SPELL and it.cid == cid:
                return it.controller
    return g.owner[cid]


def chars_off_battlefield(g: GameFields, cid: int) -> Chars:
    """Characteristics of a card in a zone other than the battlefield: printed values
    plus characteristic-defining abilities, which work in every zone (CR 604.3)."""
    ch = Chars(g.cdef[cid], controller_off_battlefield(g, cid))
    if ch.abilities:
        apply_cda(g, ch)
    color = g._offbf[ch.controller]
    if color and not ch.types & LAND:
        ch.colors = color
    return ch


def is_legendary(ch: Chars) -> bool:
    return bool(ch.supertypes & LEGENDARY)
