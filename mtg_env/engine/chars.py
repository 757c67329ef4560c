"""Characteristics (CR 109.3) and continuous effects (CR 611) as values: `Chars`, what the
layer system (engine.layers) computes for one object, and `Effect`, a continuous effect
from a resolved spell or ability. Plain data, below every module that reads them."""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from .cards import CardDef, Component, Cost, ManaAbility, StaticAbility
from .constants import BASIC_LAND_TYPES, COLOR_WORDS, CREATURE, LAND, LAND_TYPE_MANA

# Intrinsic mana abilities of the basic land types (CR 305.6), one shared object each. Their
# cost text is empty, so that no printed "{T}: Add ..." ability compares equal to one.
INTRINSIC: Final = {
    t: ManaAbility(cost=Cost(tap=True), produce=LAND_TYPE_MANA[t], text=f"{{T}}: Add {t}")
    for t in BASIC_LAND_TYPES
}
_INTRINSIC_SET: Final = frozenset(INTRINSIC.values())
_BASIC_TYPES: Final = frozenset(BASIC_LAND_TYPES)
_NO_RULES: Final[frozenset[str]] = frozenset()
_PROT: Final = {f"protection_from_{w}": bit for w, bit in COLOR_WORDS.items()}


# An initialiser with arguments: serializable tells the compiled build how pickle and
# deepcopy rebuild it (restore the fields, don't call __init__), as plain Python does.
@mypyc_attr(serializable=True)
class Chars:
    """Computed characteristics of one object (mutable only while being computed)."""

    __slots__ = (
        "cdef",
        "name",
        "types",
        "subtypes",
        "supertypes",
        "colors",
        "power",
        "toughness",
        "keywords",
        "abilities",
        "controller",
        "all_ctypes",
        "mv",
        "rules",
        "prot",
        "plain",
        "memo",
    )

    def __init__(self, cdef: CardDef, controller: int) -> None:
        self.cdef = cdef
        self.name = cdef.name
        self.types = cdef.types
        self.subtypes = cdef.subtypes
        self.supertypes = cdef.supertypes
        self.colors = cdef.colors
        self.power = cdef.power
        self.toughness = cdef.toughness
        self.keywords = cdef.keywords
        base = _BASE.get(cdef)
        if base is None:
            base = _base(cdef)
        self.abilities = base[1]
        self.controller = controller
        self.all_ctypes = cdef.changeling  # 702.73a: a CDA, so in every zone
        self.mv = base[2]
        self.rules: frozenset[str] = _NO_RULES
        self.prot = 0
        # Computed with no continuous effect in the game (see _compute_plain): such a
        # result depends only on the definition and controller, so it can be reused.
        self.plain = False
        # What readers derived from these characteristics, kept with them because they
        # never change once computed (the observation encoders' templates, mtg_env.env):
        # a field read is cheaper than a table keyed by `id()`. Not part of the state: no
        # copy, hash or comparison reads it.
        self.memo: Any = None

    def copy(self) -> Chars:
        # Through the constructor and field by field: mypyc compiles neither __new__ nor a
        # setattr loop over __slots__.
        c = Chars(self.cdef, self.controller)
        c.name = self.name
        c.types = self.types
        c.subtypes = self.subtypes
        c.supertypes = self.supertypes
        c.colors = self.colors
        c.power = self.power
        c.toughness = self.toughness
        c.keywords = self.keywords
        c.abilities = self.abilities
        c.controller = self.controller
        c.all_ctypes = self.all_ctypes
        c.mv = self.mv
        c.rules = self.rules
        c.prot = self.prot
        c.plain = self.plain
        return c

    def has_subtype(self, s: str) -> bool:
        if s in self.subtypes:
            return True
        # "All creature types" (CR 205.3m) covers every creature type, never land types.
        return self.all_ctypes and s not in _BASIC_TYPES and s != "Aura"

    @property
    def is_creature(self) -> bool:
        return bool(self.types & CREATURE)

    def __repr__(self) -> str:
        pt = f" {self.power}/{self.toughness}" if self.types & CREATURE else ""
        return f"<{self.name}{pt} ctl={self.controller}>"


def _intrinsic(subtypes: frozenset[str]) -> tuple[ManaAbility, ...]:
    # Asked for every land at every layer recomputation, of a handful of distinct sets.
    hit = _INTRINSIC_OF.get(subtypes)
    if hit is None:
        if len(_INTRINSIC_OF) > 1024:
            _INTRINSIC_OF.clear()
        hit = tuple(INTRINSIC[t] for t in BASIC_LAND_TYPES if t in subtypes)
        _INTRINSIC_OF[subtypes] = hit
    return hit


_INTRINSIC_OF: Final[dict[frozenset[str], tuple[ManaAbility, ...]]] = {}


# Per card definition, computed once: (the definition, kept alive so its id stays unique;
# its abilities with the intrinsic mana abilities of its basic land types, CR 305.6;
# its mana value; whether it has a static ability).
_BASE: Final[dict[CardDef, tuple[CardDef, tuple, int, bool]]] = {}


def _base(cdef: CardDef) -> tuple[CardDef, tuple, int, bool]:
    abilities = cdef.abilities
    if cdef.types & LAND and cdef.subtypes & _BASIC_TYPES:
        abilities = _intrinsic(cdef.subtypes) + abilities
    static = any(type(ab) is StaticAbility for ab in abilities)
    out = _BASE[cdef] = (cdef, abilities, cdef.mv, static)
    return out


def _has_static(ch: Chars) -> bool:
    return any(type(ab) is StaticAbility for ab in ch.abilities)


# An initialiser with arguments: serializable tells the compiled build how pickle and
# deepcopy rebuild it (restore the fields, don't call __init__), as plain Python does.
@mypyc_attr(serializable=True)
class Effect:
    """A continuous effect from a resolved spell or ability (CR 611.2): its components,
    the objects it affects (locked when it began, CR 611.2c), timestamp and duration."""

    __slots__ = (
        "ts",
        "components",
        "affected",
        "duration",
        "source",
        "source_oid",
        "controller",
        "text",
    )

    def __init__(
        self,
        ts: int,
        components: tuple[Component, ...],
        affected: tuple[tuple[int, int], ...],
        duration: int,
        source: int,
        source_oid: int,
        controller: int,
        text: str,
    ) -> None:
        self.ts = ts
        self.components = components
        self.affected = affected
        self.duration = duration
        self.source = source
        self.source_oid = source_oid
        self.controller = controller
        self.text = text

    @staticmethod
    def new(
        ts: int,
        components: tuple[Component, ...],
        affected: tuple[tuple[int, int], ...],
        duration: int,
        source: int,
        source_oid: int,
        controller: int,
        text: str,
    ) -> Effect:
        """`Effect(...)` for interpreted callers (tests, tools): in the compiled build a
        serializable class called from outside the compiled modules is made without its
        fields (mypyc issue 1172), so they construct it through compiled code."""
        return Effect(ts, components, affected, duration, source, source_oid, controller, text)

    def __repr__(self) -> str:
        return f"<Effect ts={self.ts} {self.text}>"
