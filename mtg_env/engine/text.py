"""Text-changing effects (CR 612, layer 3): replace a color word or a basic land type word
in an object's own text (its printed or copied abilities, keywords and type line).

Abilities are structured data, so "the text" is every color and land-type word the data
holds: filter colors and subtypes, protection and landwalk keywords, land-type-setting
components and effect arguments. Abilities granted by other effects are not text and are
untouched (they are added in layer 6, after this layer).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from .cards import (
    ActivatedAbility,
    Component,
    Filter,
    ManaAbility,
    Op,
    StaticAbility,
    TargetSpec,
    TriggeredAbility,
)
from .constants import BASIC_LAND_TYPES, COLOR_BITS, COLOR_WORD_OF, COLOR_WORDS

Change = tuple[str, Any, Any]  # ("color", from_bit, to_bit) | ("land", "Island", "Swamp")

_WALK: Final = {f"{t.lower()}walk": t for t in BASIC_LAND_TYPES}
_cache: dict[tuple[int, Change], tuple[Any, Any]] = {}


def change_keyword(kw: str, ch: Change) -> str:
    kind, frm, to = ch
    if kind == "color" and kw.startswith("protection_from_"):
        if COLOR_WORDS.get(kw[16:]) == frm:
            return "protection_from_" + COLOR_WORD_OF[to]
    if kind == "land" and _WALK.get(kw) == frm:
        return f"{to.lower()}walk"
    return kw


def change_keywords(kws: frozenset[str], ch: Change) -> frozenset[str]:
    return frozenset(change_keyword(k, ch) for k in kws)


def change_subtypes(st: frozenset[str], ch: Change) -> frozenset[str]:
    if ch[0] == "land" and ch[1] in st:
        return (st - {ch[1]}) | {ch[2]}
    return st


def _mask(m: int, ch: Change) -> int:
    if ch[0] == "color" and m & ch[1]:
        return (m & ~ch[1]) | ch[2]
    return m


def _filter(f: Filter, ch: Change) -> Filter:
    new = dataclasses.replace(
        f,
        colors=_mask(f.colors, ch),
        not_colors=_mask(f.not_colors, ch),
        subtypes=change_subtypes(f.subtypes, ch),
        not_subtypes=change_subtypes(f.not_subtypes, ch),
    )
    return f if new == f else new


def _args(a: dict[str, Any], ch: Change) -> dict[str, Any]:
    out = dict(a)
    kind, frm, to = ch
    if kind == "color" and "colors" in out:
        letters = {v: k for k, v in COLOR_BITS.items()}
        out["colors"] = [letters[to] if COLOR_BITS[c] == frm else c for c in out["colors"]]
    if "keywords" in out:
        out["keywords"] = [change_keyword(k, ch) for k in out["keywords"]]
    if kind == "land" and "subtypes" in out:
        out["subtypes"] = [to if s == frm else s for s in out["subtypes"]]
    if "effects" in out:
        out["effects"] = tuple(_op(o, ch) for o in out["effects"])
    return out


def _op(o: Op, ch: Change) -> Op:
    new = _args(o.args, ch)
    return o if new == o.args else Op(o.name, new)


def _comp(c: Component, ch: Change) -> Component:
    arg = c.arg
    if c.op == "add_keywords":
        arg = change_keywords(arg, ch)
    elif c.op == "set_land_type" and ch[0] == "land" and arg == ch[1]:
        arg = ch[2]
    elif c.op == "add_abilities":
        arg = tuple(change_ability(a, ch) for a in arg)
    elif c.op == "set_colors":
        arg = _mask(arg, ch)
    return c if arg == c.arg else Component(c.layer, c.op, arg)


def change_ability(ab: Any, ch: Change) -> Any:
    """The ability with `ch` applied to its text (cached, so identities are stable)."""
    key = (id(ab), ch)
    hit = _cache.get(key)
    if hit is not None and hit[0] is ab:
        return hit[1]
    if isinstance(ab, StaticAbility):
        new: Any = dataclasses.replace(
            ab,
            affects=_filter(ab.affects, ch),
            components=tuple(_comp(c, ch) for c in ab.components),
        )
    elif isinstance(ab, ActivatedAbility | TriggeredAbility):
        new = dataclasses.replace(
            ab,
            targets=tuple(TargetSpec(t.kind, _filter(t.filter, ch), t.text) for t in ab.targets),
            effects=tuple(_op(o, ch) for o in ab.effects),
        )
    elif isinstance(ab, ManaAbility):
        new = ab
    else:  # pragma: no cover
        new = ab
    if new == ab:
        new = ab
    _cache[key] = (ab, new)
    return new


def words(
    abilities: tuple, keywords: frozenset[str], subtypes: frozenset[str]
) -> tuple[list[int], list[str]]:
    """Color bits and land types that appear in this text (for a text-changing effect's choice)."""
    colors: set[int] = set()
    lands: set[str] = {s for s in subtypes if s in BASIC_LAND_TYPES}

    def kw(ks: Any) -> None:
        for k in ks:
            if k.startswith("protection_from_") and k[16:] in COLOR_WORDS:
                colors.add(COLOR_WORDS[k[16:]])
            if k in _WALK:
                lands.add(_WALK[k])

    def flt(f: Filter) -> None:
        for b in COLOR_BITS.values():
            if (f.colors | f.not_colors) & b:
                colors.add(b)
        lands.update(s for s in f.subtypes | f.not_subtypes if s in BASIC_LAND_TYPES)

    def op(o: Op) -> None:
        for c in o.args.get("colors", ()):
            colors.add(COLOR_BITS[c])
        kw(o.args.get("keywords", ()))
        for sub in o.args.get("effects", ()):
            op(sub)

    def ability(a: Any) -> None:
        if isinstance(a, StaticAbility):
            flt(a.affects)
            for c in a.components:
                if c.op == "add_keywords":
                    kw(c.arg)
                elif c.op == "set_land_type":
                    lands.add(c.arg)
                elif c.op == "add_abilities":
                    for sub in c.arg:
                        ability(sub)
        elif isinstance(a, ActivatedAbility | TriggeredAbility):
            for t in a.targets:
                flt(t.filter)
            for o in a.effects:
                op(o)

    kw(keywords)
    for a in abilities:
        ability(a)
    return sorted(colors), [t for t in BASIC_LAND_TYPES if t in lands]
