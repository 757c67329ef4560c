"""Card data back to Oracle text: the inverse of `compiler`. A compiled card
(`engine.cards.CardDef`) is written as the Oracle text its abilities say, from the engine's
structures alone: never from a stored text (a card's, an ability's, a mode's or a cost's),
which would only repeat the original.

What the structures do not record is decided by the templates Oracle text uses (and the
core set follows): a permanent names itself "this creature" (artifact, land, Aura,
Equipment), a spell by its name; keywords share one line in Oracle's order, Flash and
costed keywords on lines of their own; a pronoun stands for the object last named; which
clauses one sentence joins (`_joins`); where a line goes that the card's layout places
(Devoid first, "enters tapped" after the keywords, Cycling last).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from ..engine.carddb import (
    CASCADE,
    EXALTED,
    EXTORT,
    FLANKING,
    INFECT,
    INTIMIDATE,
    OP_MODELS,
    CardModel,
    backup_ability,
    bushido_ability,
    compile_card,
    sacrifice_text,
    soulshift_ability,
    toxic_ability,
)
from ..engine.cards import (
    HYBRID_SYMBOLS,
    PERSIST,
    UNDYING,
    ActivatedAbility,
    CardDef,
    Cost,
    Filter,
    ManaAbility,
    ManaCost,
    Op,
    SacCost,
    SpellAbility,
    StaticAbility,
    TargetSpec,
    TriggeredAbility,
    colors_of_cost,
)
from ..engine.constants import (
    ARTIFACT,
    BASIC_LAND_TYPES,
    COLOR_WORD_OF,
    CREATURE,
    ENCHANTMENT,
    INSTANT,
    LAND,
    MANA_BITS,
    SORCERY,
    SUPERTYPE_NAMES,
    TYPE_NAMES,
)
from ..engine.opschema import restriction_text
from .grammar import (
    _SAME_PLURAL,
    BASIC_LANDCYCLING,
    NUMBER_WORDS,
    PREDEFINED_TOKENS,
    singular,
    typecycling,
)

# The order Oracle text writes keywords in, on one line and in "has A and B" alike. The
# core set's texts agree with it except for one pair that they write both ways (trample and
# lifelink: tests/oracle/test_text.py's known differences).
KEYWORD_ORDER: Final = (
    "flash",
    "defender",
    "flying",
    "first_strike",
    "double_strike",
    "vigilance",
    "reach",
    "deathtouch",
    "lifelink",
    "trample",
    "hexproof",
    "shroud",
    "haste",
    "indestructible",
    "menace",
    "plainswalk",
    "islandwalk",
    "swampwalk",
    "mountainwalk",
    "forestwalk",
    "protection_from_white",
    "protection_from_blue",
    "protection_from_black",
    "protection_from_red",
    "protection_from_green",
    "ward",
)
_COLOR_ORDER: Final = "WUBRG"
_WORD_OF_NUMBER: Final = {v: k for k, v in NUMBER_WORDS.items() if k not in ("a", "an", "one")}
_TYPE_ORDER: Final = (ARTIFACT, CREATURE, ENCHANTMENT, LAND)
# Ops whose clause is about a player's life, cards or damage: a life or draw clause after
# one of them joins its sentence ("... deals 3 damage to any target and you gain 3 life").
_PLAYER_OPS: Final = frozenset({"damage", "draw", "discard", "gain_life", "lose_life", "mill"})
_TARGET_REFS: Final = ("target", "target1", "target2")
# Group references a P/T change or keyword grant covers, with the plural verb ("get").
_PLURAL_REFS: Final = frozenset(
    {
        "all_creatures",
        "your_creatures",
        "opponent_creatures",
        "creatures_without_flying",
        "targets",
        "all_enchantments",
        "attacking_creatures",
    }
)


def _plural_phrase(phrase: str) -> str:
    """A target phrase in the plural: its noun before what follows it ("creature card from
    your graveyard" -> "creature cards from your graveyard")."""
    cut = len(phrase)
    for tail in (" from ", " you ", " an opponent ", " with ", " without ", " that", " other "):
        i = phrase.find(tail)
        if 0 <= i < cut:
            cut = i
    return phrase[:cut] + "s" + phrase[cut:]


_HYBRID_TEXT: Final = {mask: sym for sym, mask in HYBRID_SYMBOLS.items()}
# Events whose trigger names the permanent itself: "it" in the effect then means it.
_SELF_EVENTS: Final = frozenset(
    {
        "enters", "dies", "attacks", "blocks", "blocked", "blocks_or_blocked",
        "damage_to_opponent", "combat_damage_to_player", "targeted",
        "targeted_by_opponent",
    }
)  # fmt: skip


def oracle_text(card: CardDef, tokens: Mapping[str, CardDef]) -> str:
    """The Oracle text of `card` (reminder text left out), written from its structures;
    `tokens` are its set's tokens, by name, for the tokens it creates."""
    r = _Card(card, tokens)
    # A sentence that ends in a quote ends inside it ('... with "Sacrifice this token: Add
    # {C}."'): no period after the closing quote.
    return _QUOTE_END.sub('."', "\n".join(r.lines()))


_QUOTE_END: Final = re.compile(r'\."\.')
_UNTIL_NEXT_TURN: Final = "Until the end of your next turn"


# --------------------------------------------------------------------------- words


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _times(n: Any) -> Any:
    """A P/T change's number: a count's multiplier ("+1/+1 ... for each ...")."""
    if isinstance(n, Mapping):
        return "X" if n.get("as_x") else n.get("times", 1)
    return n


def _amount(n: Any) -> str:
    """An op's amount as its sentence says it: the number, "X" for a count said as X, the
    multiplier of a count said "N ... for each"."""
    if isinstance(n, Mapping):
        return "X" if n.get("as_x") else str(n.get("times", 1))
    return str(n)


def _counted(c: Mapping[str, Any], plural: bool = False) -> str:
    """What a count (`opschema.CountOf`) counts: "creature you control", "Elf on the
    battlefield", "card in your graveyard"; plural after "the number of"."""
    zone = c.get("zone", "battlefield")
    types = list(c.get("types") or [])
    if zone != "battlefield":
        noun = " ".join([*types, "cards" if plural else "card"])
        return f"{noun} in your {'graveyard' if zone == 'graveyard' else 'hand'}"
    sub = c.get("subtype")
    word = sub if sub else types[0]
    if plural:
        word = _plural(word) if sub else word + "s"
    where = "you control" if c.get("whose", "you") == "you" else "on the battlefield"
    if c.get("keyword"):
        where += " with " + c["keyword"].replace("_", " ")
    return f"{word} {where}"


def _number(n: Any) -> str:
    """A count as Oracle text writes it: "two", "X"; 1 is left to the caller ("a")."""
    if isinstance(n, int) and n in _WORD_OF_NUMBER:
        return _WORD_OF_NUMBER[n]
    return str(n)


def _sacrifice(sac: SacCost) -> str:
    """A cost that sacrifices permanents of a card type or subtype, as Oracle words it."""
    return sacrifice_text(sac.count, sac.subtype or TYPE_NAMES[sac.types])


def _count_of(n: Any, noun: str, plural: str | None = None) -> str:
    """ "a card", "two cards", "X cards"."""
    if n == 1:
        return f"{_article(noun)} {noun}"
    return f"{_number(n)} {plural or noun + 's'}"


def _counters(kind: str, n: int) -> str:
    return f"a {kind} counter" if n == 1 else f"{_number(n)} {kind} counters"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou8" else "a"


def _and(items: Sequence[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _or(items: Sequence[str]) -> str:
    return " or ".join(items)


def _sorted_keywords(kws: Any) -> list[str]:
    return sorted(kws, key=lambda k: (KEYWORD_ORDER.index(k) if k in KEYWORD_ORDER else 99, k))


def _keyword_words(kws: Any) -> list[str]:
    """Keywords as words; protections from several colors share one "protection from A
    and from B"."""
    out: list[str] = []
    prot: list[str] = []
    for k in _sorted_keywords(kws):
        if k.startswith("protection_from_"):
            prot.append(k[len("protection_from_") :])
        else:
            out.append(k.replace("_", " "))
    if prot:
        out.append("protection from " + " and from ".join(prot))
    return out


def _keyword_list(kws: Any) -> str:
    return _and(_keyword_words(kws))


def _colors_in_order(mask: int) -> list[str]:
    """Colors in Oracle's order: WUBRG, and a pair clockwise from the color the other
    follows at most two steps later ({R}{W}, {G}{U}); three clockwise from the first of
    three neighbours ({G}{W}{U}) or, with gaps, by steps of two ({U}{R}{W})."""
    idx = [i for i, c in enumerate(_COLOR_ORDER) if mask & MANA_BITS[c]]
    if len(idx) == 2 and (idx[0] - idx[1]) % 5 in (1, 2):
        idx.reverse()
    if len(idx) == 3:
        have = set(idx)
        for step in (1, 2):
            first = [x for x in idx if {x, (x + step) % 5, (x + 2 * step) % 5} == have]
            if first:
                idx = [(first[0] + k * step) % 5 for k in range(3)]
                break
    return [_COLOR_ORDER[i] for i in idx]


def _color_words(mask: int) -> list[str]:
    return [COLOR_WORD_OF[MANA_BITS[c]] for c in _colors_in_order(mask)]


def _mana(cost: ManaCost) -> str:
    """A mana cost in Oracle's order: {X}, generic, one-color symbols (`_colors_in_order`),
    then hybrid ones ({W/B}: a pip of two colors, written in `HYBRID_SYMBOLS`' order)."""
    single = [p for p in cost.pips if p not in _HYBRID_TEXT]
    colored = "".join(
        f"{{{c}}}" * single.count(MANA_BITS[c]) for c in _colors_in_order(sum(set(single)))
    )
    hybrid = "".join(f"{{{_HYBRID_TEXT[p]}}}" for p in cost.pips if p in _HYBRID_TEXT)
    generic = f"{{{cost.generic}}}" if cost.generic or not (cost.pips or cost.x) else ""
    return "{X}" * cost.x + generic + colored + hybrid


def _signed(v: Any, other: Any) -> str:
    """One half of a P/T change: "+2", "-X"; a zero takes the other half's sign
    ("-0/-3", "+3/+0")."""
    if v == 0:
        neg = other == "-X" or (isinstance(other, int) and other < 0)
        return "-0" if neg else "+0"
    if isinstance(v, str):
        return v if v.startswith("-") else "+" + v
    return f"{v:+d}"


def _pt_change(p: Any, t: Any) -> str:
    return f"{_signed(p, t)}/{_signed(t, p)}"


def _plural(word: str) -> str:
    """A creature type's plural (the inverse of `grammar.singular`)."""
    if word.lower() in _SAME_PLURAL:
        return word
    for cand in (word[:-1] + "ves", word[:-1] + "ies", word + "es", word + "s"):
        if singular(cand) == word:
            return cand
    # A plural `singular` misreads ("Zombies"): the English one.
    return word + "s"


def _type_words(mask: int) -> list[str]:
    return [TYPE_NAMES[b] for b in _TYPE_ORDER if mask & b]


# --------------------------------------------------------------------------- the card


class _Card:
    def __init__(self, card: CardDef, tokens: Mapping[str, CardDef]) -> None:
        self.card = card
        self.tokens = tokens
        self.is_spell = bool(card.types & (INSTANT | SORCERY))

    @property
    def self_word(self) -> str:
        """How the card's text names the card: a spell by its name, a permanent by what
        it is."""
        c = self.card
        if self.is_spell:
            return c.name
        if c.bestow is not None:
            return "this permanent"  # a creature or an Aura (702.103a)
        if c.types & CREATURE:
            return "this creature"
        for sub in ("Aura", "Equipment"):
            if sub in c.subtypes:
                return f"this {sub}"
        for bit in (LAND, ARTIFACT, ENCHANTMENT):
            if c.types & bit:
                return f"this {TYPE_NAMES[bit]}"
        return "this permanent"

    def _a_permanent(self, t: TargetSpec) -> str:
        """A kind of permanent with its article: "a Wizard", "an artifact creature"."""
        f = t.filter
        if t.kind == "permanent" and not f.types and len(f.subtypes) == 1:
            phrase = next(iter(f.subtypes))
        else:
            phrase = _Ability(self, ()).target_phrase(t)
        return ("an " if phrase[0].lower() in "aeiou" else "a ") + phrase

    def lines(self) -> list[str]:
        c = self.card
        out: list[str] = []
        for a in c.abilities:
            if isinstance(a, ActivatedAbility) and _is_ninjutsu(a):
                # 702.49a: how the card is played, its first line.
                out.append(f"Ninjutsu {_mana(a.cost.mana)}")
        if c.convoke:
            out.append("Convoke")  # 702.51a: how it is paid for, its first line
        if c.colors == 0 and colors_of_cost(c.cost):
            # Devoid (CR 702.114a): colorless despite colored mana symbols, the card's first
            # line (before Flash: it says what the card is).
            out.append("Devoid")
        if c.costs_less:
            # 601.2f: what casting it costs, the card's first line.
            kinds = " and ".join(self._a_permanent(t) for t in c.costs_less_if)
            out.append(f"This spell costs {{{c.costs_less}}} less to cast if you control {kinds}.")
        if c.kicker is not None:
            out.append(f"Kicker {_mana(c.kicker)}")  # 702.33a: how the card is cast
        if c.buyback is not None:
            out.append(f"Buyback {_mana(c.buyback)}")  # 702.27a: the same
        if c.affinity:
            # 702.41a: what casting it costs, the card's first line.
            plural = "Plains" if c.affinity == "Plains" else c.affinity + "s"
            out.append(f"Affinity for {plural}")
        if c.job_select:
            out.append("Job select")  # the Equipment's first line
        if c.changeling:
            out.append("Changeling")  # 702.73a: what the card is, on a line of its own
        if c.bloodthirst:
            out.append(f"Bloodthirst {c.bloodthirst}")  # 702.54a: how it enters, first
        kws = set(c.keywords) - {"ward"}
        for a in c.abilities:
            if (backup := _backup(a)) is not None:
                kws -= set(backup[1])  # printed below "Backup N", the abilities it grants
        if "flash" in kws:
            # Flash (how the card is cast) is on a line of its own.
            out.append("Flash")
            kws.discard("flash")
        if c.bestow is not None:
            out.append(f"Bestow {_mana(c.bestow)}")  # how it may be cast (702.103a)
        if c.sacrifice_types or c.discard_cost:
            out.append(f"As an additional cost to cast this spell, {_additional_cost(c)}.")
        if c.alt_sacrifice is not None:
            # 118.9: how the card may be cast, its first line.
            sac = _sacrifice(c.alt_sacrifice)
            out.append(f"You may {sac} rather than pay this spell's mana cost.")
        if c.enchant is not None:
            out.append("Enchant " + _Ability(self, ()).target_phrase(c.enchant))
        cascade = False
        for a in c.abilities:
            if isinstance(a, TriggeredAbility) and _same_ability(a, CASCADE):
                cascade = True  # 702.85a: a keyword, after the others
            elif isinstance(a, TriggeredAbility) and a.event == "cast_self":
                # What happens as it is cast comes before what it is ("Reach").
                out.append(self.ability(a))
        # Keywords that Oracle prints with reminder text each have a line of their own.
        own_line = [k for k in _sorted_keywords(kws) if k in _OWN_LINE_KEYWORDS]
        kws -= set(own_line)
        land_first = bool(c.enters_tapped and c.types & LAND)
        if land_first:
            # A land that enters tapped says so first, before its keywords (the artifact
            # lands' "This land enters tapped. Indestructible").
            out.append(f"{_cap(self.self_word)} enters tapped.")
        if kws:
            out.append(_cap(self._keyword_line(kws)))
        out += [_cap(k) for k in own_line]
        if cascade:
            out.append("Cascade")
        if any(_is_prowess(a) for a in c.abilities):
            out.append("Prowess")  # a keyword with reminder text: a line of its own
        if c.enters_tapped and not land_first:
            # After the keywords, before the other abilities.
            out.append(f"{_cap(self.self_word)} enters tapped.")
        if c.enters_tapped_unless_life >= 0:
            n = c.enters_tapped_unless_life
            out.append(
                f"{_cap(self.self_word)} enters tapped unless a player has {n} or less life."
            )
        for kind, n in c.enters_with:
            out.append(f"{_cap(self.self_word)} enters with {_counters(kind, n)} on it.")
        if c.enters_with_x:
            out.append(f"{_cap(self.self_word)} enters with X {c.enters_with_x} counters on it.")
        for kind, n in c.kicked_enters_with:
            out.append(
                f"If {self.self_word} was kicked, it enters with {_counters(kind, n)} on it."
            )
        rest: list[str] = []
        cycling: list[str] = []
        joined = _joined_triggers(c.abilities)
        turn_pairs = _turn_pairs(c.abilities)
        for i, a in enumerate(c.abilities):
            if _is_prowess(a) or _is_exalted(a) or _is_flanking(a) or _is_ninjutsu(a):
                continue  # the keyword says it (ninjutsu: on the first line)
            if isinstance(a, TriggeredAbility) and a.effects and a.effects[0].name == "job_select":
                continue  # "Job select", on the first line
            if isinstance(a, TriggeredAbility) and a.event == "cast_self":
                continue  # above the keywords
            if i - 1 in joined or i - 1 in turn_pairs:
                continue  # a joined trigger's twin, or an "Otherwise" static's
            if i in turn_pairs:
                # "... has deathtouch during your turn. Otherwise, it has reach."
                twin = c.abilities[i + 1]
                assert isinstance(a, StaticAbility) and isinstance(twin, StaticAbility)
                subject, many = self._affected(a.affects)
                first = _keyword_list(dict((x.op, x.arg) for x in a.components)["add_keywords"])
                second = _keyword_list(dict((x.op, x.arg) for x in twin.components)["add_keywords"])
                verb = "have" if many else "has"
                rest.append(
                    f"{_cap(subject)} {verb} {first} during your turn. "
                    f"Otherwise, {'they' if many else 'it'} {verb} {second}."
                )
                continue
            if i in joined:
                assert isinstance(a, TriggeredAbility)
                ab = _Ability(self, a.targets)
                me = self.self_word
                twin = c.abilities[i + 1]
                assert isinstance(twin, TriggeredAbility)
                if twin.event == "leaves":
                    text = f"When {me} enters or leaves the battlefield, "
                else:
                    text = f"When {me} enters or is put into a graveyard from the battlefield, "
                rest.append(text + ab.effects(a.effects, after_trigger=True))
                continue
            if isinstance(a, TriggeredAbility) and a.event == "madness" and c.madness:
                # 702.35a: how the card may be cast once discarded, after its effects.
                cycling.append(f"Madness {_mana(c.madness)}")
            elif _is_ward(a):
                assert isinstance(a, TriggeredAbility)
                out.append(f"Ward {a.effects[0].args['cost']}")
            elif _is_echo(a):
                assert isinstance(a, TriggeredAbility)
                out.append(f"Echo {a.effects[0].args['cost']}")
            elif isinstance(a, TriggeredAbility) and _same_ability(a, EXTORT):
                out.append("Extort")  # 702.101a
            elif isinstance(a, StaticAbility) and replace(a, text="") in _RULE_KEYWORDS:
                word = _RULE_KEYWORDS[replace(a, text="")]  # 702.90a, 702.13a, 702.164a
                out.append(f"{word} {c.toxic}" if word == "Toxic" else word)
            elif isinstance(a, TriggeredAbility) and a.effects and a.effects[0].name == "fabricate":
                out.append(f"Fabricate {a.effects[0].args['count']}")  # 702.123a
            elif (kw := _dies_return(a)) is not None:
                rest.append(kw)  # 702.79a, 702.93a: the keyword's ability, printed last
            elif (bushido := _bushido(a)) is not None:
                out.append(f"Bushido {bushido}")
            elif (soulshift := _soulshift(a)) is not None:
                out.append(f"Soulshift {soulshift}")
            elif (backup := _backup(a)) is not None:
                # 702.165a: the keywords it grants are printed below it.
                out.append(f"Backup {backup[0]}")
                if backup[1]:
                    out.append(_cap(self._keyword_line(set(backup[1]))))
            elif isinstance(a, ActivatedAbility) and a.cost.plot:
                cycling.append(f"Plot {_mana(a.cost.mana)}")  # 702.170a: closes the text
            elif isinstance(a, ActivatedAbility) and _is_cycling(a):
                # Played from the hand, Cycling closes the text (after a spell's effects).
                cycling.append(f"Cycling {_mana(a.cost.mana)}")
            elif isinstance(a, ActivatedAbility) and _is_cycling(a, BASIC_LANDCYCLING):
                cycling.append(f"Basic landcycling {_mana(a.cost.mana)}")  # 702.29e
            elif isinstance(a, ActivatedAbility) and (t := _typecycling(a)) is not None:
                cycling.append(f"{t}cycling {_mana(a.cost.mana)}")  # 702.29e
            else:
                rest.append(self.ability(a))
        out += rest
        if c.spell is not None:
            out += self.spell(c.spell)
        if c.flashback_sacrifice is not None:
            # 702.34a: a flashback cost that is not mana is written after a dash.
            out.append(f"Flashback—{_cap(_sacrifice(c.flashback_sacrifice))}.")
        elif c.flashback is not None:
            out.append(f"Flashback {_mana(c.flashback)}")  # 702.34a: cast from the graveyard
        return out + cycling

    def _keyword_line(self, kws: set[str]) -> str:
        # A keyword with words after it (protection from ...) follows a semicolon.
        plain = [k for k in kws if not k.startswith("protection_from_")]
        prot = [k for k in kws if k.startswith("protection_from_")]
        parts = [", ".join(_keyword_words(plain))] if plain else []
        if prot:
            parts.append(_keyword_list(prot))
        return "; ".join(parts)

    def spell(self, spell: SpellAbility) -> list[str]:
        if spell.modes:
            # "Choose one or both": the last mode is the first two together (CR 700.2d).
            modes = spell.modes[:2] if spell.one_or_both else spell.modes
            head = "Choose one or both —" if spell.one_or_both else "Choose one —"
            return [head] + ["• " + _Ability(self, m.targets).effects(m.effects) for m in modes]
        lines: list[str] = []
        for text, new_line in _Ability(self, spell.targets).sentences(spell.effects):
            if new_line or not lines:
                lines.append(text)
            else:
                lines[-1] += " " + text
        return lines

    def ability(self, a: Any) -> str:
        if isinstance(a, ManaAbility):
            return self.mana(a)
        if isinstance(a, ActivatedAbility):
            if _is_equip(a):
                return f"Equip {_mana(a.cost.mana)}"
            ab = _Ability(self, a.targets)
            cost = ab.cost(a.cost)
            text = f"{cost}: {ab.effects(a.effects)}"
            if a.timing == "sorcery":
                text += " Activate only as a sorcery."
            elif a.timing == "your_turn":
                text += " Activate only during your turn."
            if a.once_each_turn:
                text += " Activate only once each turn."
            return text
        if isinstance(a, TriggeredAbility):
            ab = _Ability(self, a.targets)
            return ab.trigger(a) + ab.effects(a.effects, after_trigger=True)
        assert isinstance(a, StaticAbility)
        return self.static(a)

    def mana(self, a: ManaAbility) -> str:
        ab = _Ability(self, ())
        colors = [c for c in "WUBRGC" if a.produce & MANA_BITS[c]]
        if a.amount != 1 or a.per:  # several mana of one kind
            out = f"{{{colors[0]}}}" * a.amount
            if a.per:
                out += " for each " + _counted(dict(a.per))
        elif len(colors) >= 5:
            out = "one mana of any color"
        else:
            ordered = _colors_in_order(a.produce) + (["C"] if "C" in colors else [])
            syms = [f"{{{c}}}" for c in ordered]
            out = " or ".join(syms) if len(syms) < 3 else ", ".join(syms[:-1]) + ", or " + syms[-1]
        text = f"{ab.cost(a.cost)}: Add {out}."
        if a.pain:
            text += f" {_cap(self.self_word)} deals {a.pain} damage to you."
        return text

    # ------------------------------------------------------------------- statics
    def static(self, s: StaticAbility) -> str:
        comps = {c.op: c.arg for c in s.components}
        if comps.get("control") == "you" and s.affects.relation == "enchanted":
            return "You control enchanted creature."
        subject, plural = self._affected(s.affects)
        parts: list[str] = []
        if "modify_pt" in comps:
            p, t, *per = comps["modify_pt"]
            change = _pt_change(p, t)
            if per:
                # Said of a bestow card's Aura form: "this Aura" (702.103a).
                source = "this Aura" if self.card.bestow is not None else self.self_word
                change += f" for each {per[0]} counter on {source}"
            parts.append(("get " if plural else "gets ") + change)
        if "add_keywords" in comps:
            parts.append(("have " if plural else "has ") + _keyword_list(comps["add_keywords"]))
        for granted in comps.get("add_abilities", ()):
            # A granted ability in quotes, its "~" the creature that has it; the comma
            # that follows goes inside the quotes.
            said = _Granted(self.card, self.tokens).ability(granted).rstrip(".")
            parts.append(f'{"have" if plural else "has"} "{said},"')
        if "add_subtypes" in comps:
            subs = " ".join(sorted(comps["add_subtypes"]))
            article = "an" if subs[0] in "AEIOU" else "a"
            parts.append(
                f"{'are' if plural else 'is'} {article} {subs} in addition to its other types"
            )
        rules = set(s.rules)
        if {"cant_attack", "cant_block"} <= rules:
            parts.append("can't attack or block")
        elif "cant_attack" in rules:
            parts.append("can't attack")
        elif "cant_block" in rules:
            parts.append("can't block")
        if "block_only_flying" in rules:
            parts.append("can block only creatures with flying")
        if "cant_attack_unless_island" in rules:
            parts.append("can't attack unless defending player controls an Island")
        if "doesnt_untap" in rules:
            # Its own untap step is yours; an enchanted creature's is its controller's.
            whose = "your" if s.affects.relation == "self" else "its controller's"
            parts.append(f"{'don' if plural else 'doesn'}'t untap during {whose} untap step")
        if "attacks_each_combat" in rules:
            parts.append(("attack" if plural else "attacks") + " each combat if able")
        if "unblockable" in rules:
            parts.append("can't be blocked")
        if "max_one_blocker" in rules:
            parts.append("can't be blocked by more than one creature")
        said = _join_parts(parts)
        text = f"{_cap(subject)} {said}."
        if s.during == "your_turn":
            text = f"During your turn, {subject} {said}."
        if s.condition:
            (cond,) = s.condition
            what = f"{subject} is equipped" if cond == "equipped" else _STATIC_CONDITION_TEXT[cond]
            # Oracle mostly says the condition first where the ability both changes P/T and
            # grants ("As long as you control an artifact, ~ gets +1/+0 and has haste."),
            # after where it does one thing ("~ gets +2/+2 as long as ...") and after for
            # delirium.
            if cond == "equipped":  # "As long as ~ is equipped, it gets +1/+1."
                text = f"As long as {what}, it {said}."
            elif len(parts) > 1 and cond not in ("delirium", "attacking"):
                text = f"As long as {what}, {subject} {said}."
            else:
                text = f"{_cap(subject)} {said} as long as {what}."
            if cond in _STATE_WORDS:
                text = f"{_STATE_WORDS[cond]} — {text}"
        if "doesnt_remove_source" in rules:
            # The sentence names the card: "this Aura" would be the same words twice.
            text += f" This effect doesn't remove {self.card.name}."
        return text

    def _affected(self, f: Filter) -> tuple[str, bool]:
        """What a static ability affects, and whether that is plural."""
        if f.relation == "self":
            return self.self_word, False
        if f.relation == "enchanted":
            word = "equipped" if "Equipment" in self.card.subtypes else "enchanted"
            return f"{word} creature", False
        words: list[str] = []
        if f.other:
            words.append("other")
        words += [SUPERTYPE_NAMES[b] for b in sorted(SUPERTYPE_NAMES) if f.supertypes & b]
        words += _color_words(f.colors)
        subs = sorted(f.subtypes)
        if f.types & CREATURE:
            words += subs + ["creatures"]
        else:
            words += [_plural(s) for s in subs]
        if f.controller == "you":
            words.append("you control")
        elif f.controller == "opponent":
            words.append("your opponents control")
        elif not f.other:
            words.insert(0, "all")  # "All Sliver creatures": whoever controls them
        return " ".join(words), True


def _is_ward(a: Any) -> bool:
    return (
        isinstance(a, TriggeredAbility)
        and a.event == "targeted_by_opponent"
        and len(a.effects) == 1
        and a.effects[0].name == "counter_unless_pay"
        and "what" not in a.effects[0].args
    )


# Keywords that Oracle prints each on a line of its own, with their reminder text.
_OWN_LINE_KEYWORDS: Final = frozenset({"shadow", "horsemanship", "exalted", "wither", "flanking"})


def _is_keyword_trigger(a: Any, given: TriggeredAbility) -> bool:
    """Whether `a` is the triggered ability a keyword gives (`given`), whatever its stored
    text: exalted (CR 702.83a), flanking (702.25a)."""
    return (
        isinstance(a, TriggeredAbility)
        and a.event == given.event
        and not a.condition
        and not a.targets
        and a.effects == given.effects
    )


def _is_exalted(a: Any) -> bool:
    return _is_keyword_trigger(a, EXALTED)


def _rules_of_token(t: CardDef) -> tuple[Any, ...]:
    """What the rules read of a token: its characteristics and its abilities' costs and
    effects (not its name or texts)."""
    abilities = tuple(
        (type(a).__name__, _mana(a.cost.mana), a.cost.tap, a.cost.sacrifice_self, a.effects)
        if isinstance(a, ActivatedAbility)
        else (type(a).__name__, a.cost.tap, a.cost.sacrifice_self, a.produce, a.pain)
        if isinstance(a, ManaAbility)
        else a
        for a in t.abilities
    )
    return (t.types, t.subtypes, t.colors, t.power, t.toughness, t.keywords, abilities)


_PREDEFINED: Final = {
    _rules_of_token(
        compile_card(CardModel.model_validate({"name": name, **t}), "", 0, token=True)
    ): name
    for name, t in PREDEFINED_TOKENS.items()
}


def _predefined(t: CardDef) -> str | None:
    """The name of the predefined token (CR 111.10) token `t` is, if it is one."""
    return _PREDEFINED.get(_rules_of_token(t))


def _is_clue(t: CardDef) -> bool:
    """Whether token `t` is a Clue (CR 111.10f), which "Investigate" creates."""
    return _predefined(t) == "Clue"


def _is_flanking(a: Any) -> bool:
    return _is_keyword_trigger(a, FLANKING)


# The keywords that are a static ability's rule (card fields), whatever its stored text.
_RULE_KEYWORDS: Final = {
    replace(INFECT, text=""): "Infect",
    replace(INTIMIDATE, text=""): "Intimidate",
    # Toxic's N is on the card (`CardDef.toxic`): the abilities of every N are alike.
    replace(toxic_ability(1), text=""): "Toxic",
}


def _same_ability(a: TriggeredAbility, ref: TriggeredAbility) -> bool:
    """Whether `a` is the keyword ability `ref`, whatever its stored text."""
    return (a.event, a.condition, a.targets, a.effects) == (
        ref.event,
        ref.condition,
        ref.targets,
        ref.effects,
    )


def _dies_return(a: Any) -> str | None:
    """ "Persist" or "Undying", where `a` is that keyword's ability (`cards.PERSIST`,
    `cards.UNDYING`), whatever its stored text."""
    for kw, ref in (("Persist", PERSIST), ("Undying", UNDYING)):
        if isinstance(a, TriggeredAbility) and _same_ability(a, ref):
            return kw
    return None


def _bushido(a: Any) -> int | None:
    """N, where `a` is bushido N (CR 702.45a): the ability `carddb.bushido_ability` makes."""
    if not (isinstance(a, TriggeredAbility) and a.event == "blocks_or_blocked" and a.effects):
        return None
    n = a.effects[0].args.get("power")
    if not (isinstance(n, int) and n >= 1):
        return None
    ref = bushido_ability(n)
    same = (a.targets, a.effects, a.condition) == (ref.targets, ref.effects, ref.condition)
    return n if same else None


def _is_ninjutsu(a: Any) -> bool:
    """Whether `a` is ninjutsu's ability (CR 702.49a), `carddb.ninjutsu_ability`'s."""
    return isinstance(a, ActivatedAbility) and a.cost.ninjutsu


def _backup(a: Any) -> tuple[int, tuple[str, ...]] | None:
    """N and the granted keywords, where `a` is backup N (CR 702.165a): the ability
    `carddb.backup_ability` makes."""
    if not (isinstance(a, TriggeredAbility) and a.event == "enters" and a.effects):
        return None
    first = a.effects[0]
    n = first.args.get("count")
    if first.name != "add_counter" or not isinstance(n, int):
        return None
    kws = tuple(a.effects[1].args["keywords"]) if len(a.effects) == 2 else ()
    ref = backup_ability(n, kws)
    same = [(t.kind, t.filter) for t in a.targets] == [
        (t.kind, t.filter) for t in ref.targets
    ] and (a.effects, a.condition) == (ref.effects, ref.condition)
    return (n, kws) if same else None


def _soulshift(a: Any) -> int | None:
    """N, where `a` is soulshift N (CR 702.46a): the ability `carddb.soulshift_ability`
    makes."""
    if not (isinstance(a, TriggeredAbility) and a.event == "dies" and len(a.targets) == 1):
        return None
    n = a.targets[0].filter.max_mana_value
    if n < 0:
        return None
    ref = soulshift_ability(n)
    t, r = a.targets[0], ref.targets[0]
    same = (t.kind, t.filter, a.effects, a.condition) == (
        r.kind,
        r.filter,
        ref.effects,
        ref.condition,
    )
    return n if same else None


def _is_echo(a: Any) -> bool:
    """Echo (CR 702.30a): at your upkeep, if it came under your control since your last
    one, sacrifice it unless you pay the cost."""
    return (
        isinstance(a, TriggeredAbility)
        and a.event == "upkeep"
        and a.condition == ("echo",)
        and len(a.effects) == 1
        and a.effects[0].name == "sacrifice_unless_pay"
    )


# Ability words and the conditions they head (CR 207.2c; the `metalcraft`, `threshold` and
# `hellbent` ops and trigger conditions).
_STATE_WORDS: Final = {
    "metalcraft": "Metalcraft",
    "threshold": "Threshold",
    "hellbent": "Hellbent",
    "delirium": "Delirium",
}
# The same conditions as a static ability says them ("as long as ..."), and one without an
# ability word.
_STATIC_CONDITION_TEXT: Final = {
    "metalcraft": "you control three or more artifacts",
    "threshold": "there are seven or more cards in your graveyard",
    "hellbent": "you have no cards in hand",
    "delirium": "there are four or more card types among cards in your graveyard",
    "control_artifact": "you control an artifact",
    "attacking": "it's attacking",
}
_STATE_TEXT: Final = {
    "metalcraft": "you control three or more artifacts",
    "threshold": "seven or more cards are in your graveyard",
    "hellbent": "you have no cards in hand",
}


def _join_parts(parts: list[str]) -> str:
    """ "A and B", "A, B and C"; after a quoted ability that ends with its comma inside the
    quotes, no second comma."""
    out = parts[0] if parts else ""
    for i in range(1, len(parts)):
        sep = " and " if i == len(parts) - 1 else ", "
        if out.endswith(',"'):
            sep = sep.lstrip(",")
        out += sep + parts[i]
    return out


def _turn_pairs(abilities: Sequence[Any]) -> set[int]:
    """The indices of statics granting keywords "during your turn" followed by the same
    object's "Otherwise" keywords: one line of Oracle text (the compiler writes two)."""
    out = set()
    for i, (a, b) in enumerate(zip(abilities, abilities[1:], strict=False)):
        if (
            isinstance(a, StaticAbility)
            and isinstance(b, StaticAbility)
            and (a.during, b.during) == ("your_turn", "not_your_turn")
            and a.affects == b.affects
            and [x.op for x in a.components] == [x.op for x in b.components] == ["add_keywords"]
        ):
            out.add(i)
    return out


def _joined_triggers(abilities: Sequence[Any]) -> set[int]:
    """The indices of "enters" triggers followed by a "to_graveyard" one with the same
    effects: one line of Oracle text, "When ~ enters or is put into a graveyard from the
    battlefield, ..." (the compiler writes it as the two)."""
    out = set()
    for i, (a, b) in enumerate(zip(abilities, abilities[1:], strict=False)):
        if (
            isinstance(a, TriggeredAbility)
            and isinstance(b, TriggeredAbility)
            and (a.event, b.event) in (("enters", "to_graveyard"), ("enters", "leaves"))
            and (a.effects, a.targets, a.condition) == (b.effects, b.targets, b.condition)
        ):
            out.add(i)
    return out


def _is_prowess(a: Any) -> bool:
    """Prowess (CR 702.108a): a noncreature spell cast gives this creature +1/+1."""
    return (
        isinstance(a, TriggeredAbility)
        and a.event == "cast_noncreature"
        and not a.condition
        and not a.targets
        and [(o.name, o.args) for o in a.effects]
        == [("pump", {"what": "self", "power": 1, "toughness": 1, "duration": "end_of_turn"})]
    )


def _additional_cost(c: CardDef) -> str:
    """What a spell's additional cost gives (CR 601.2b), as its Oracle text says it."""
    if c.discard_cost:
        return "discard a card"
    names = " or ".join(n for bit, n in TYPE_NAMES.items() if c.sacrifice_types & bit)
    return f"sacrifice {_article(names)} {names}"


def _is_cycling(a: ActivatedAbility, effect: dict[str, Any] | None = None) -> bool:
    """Cycling (CR 702.29a): pay the mana and discard this card to draw a card; with
    `effect`, a cycling that does that instead (basic landcycling, 702.29e)."""
    c = a.cost
    if not (
        c.discard_self
        and not c.tap
        and not c.sacrifice_self
        and not a.targets
        and a.timing != "sorcery"
        and len(a.effects) == 1
    ):
        return False
    o = a.effects[0]
    if effect is None:
        return (
            o.name == "draw" and o.args.get("who", "you") == "you" and o.args.get("count", 1) == 1
        )
    ((name, args),) = effect.items()
    # The loader fills in the defaults of the op's arguments: compare with them filled in.
    return o.name == name and o.args == OP_MODELS[name].model_validate(args).model_dump()


def _typecycling(a: ActivatedAbility) -> str | None:
    """The land type of a landcycling of a basic land type ("Islandcycling", 702.29e)."""
    for t in BASIC_LAND_TYPES:
        if _is_cycling(a, typecycling(t)):
            return t
    return None


def _is_equip(a: ActivatedAbility) -> bool:
    """Equip (CR 702.6a): attach to target creature you control, as a sorcery."""
    return (
        a.timing == "sorcery"
        and not a.cost.tap
        and not a.cost.sacrifice_self
        and len(a.targets) == 1
        and a.targets[0].kind == "creature"
        and a.targets[0].filter == Filter(controller="you")
        and [(o.name, o.args.get("to")) for o in a.effects] == [("attach", "target")]
    )


# --------------------------------------------------------------------------- abilities


class _Granted(_Card):
    """The text of an ability a static ability grants a creature ("has \"..., this
    creature deals ...\""): its "~" is the creature."""

    @property
    def self_word(self) -> str:
        return "this creature"


class _TokenAbility(_Card):
    """The text of a token's own ability in quotes ("with \"Sacrifice this token: Add
    {C}.\""): its "~" is the token."""

    @property
    def self_word(self) -> str:
        return "this token"


@dataclass
class _Clause:
    """One clause of a sentence: its ops (a P/T change and the keywords it grants are one
    clause), its subject (a reference, or None for an imperative) and what it names."""

    kind: str
    ops: list[Op]
    subject: str | None
    objects: list[str] = field(default_factory=list)
    duration: bool = False  # ends with "until end of turn"


class _Ability:
    """One ability's (or a spell's or mode's) text: its targets, and the references its
    sentences have named so far."""

    def __init__(self, card: _Card, targets: Sequence[TargetSpec]) -> None:
        self.card = card
        self.targets = list(targets)
        self.named: set[str] = set()
        self.last: str | None = None  # what "it" means now

    # ------------------------------------------------------------------- costs, triggers
    def cost(self, cost: Cost) -> str:
        parts = []
        if cost.mana:
            parts.append(_mana(cost.mana))
        if cost.tap:
            parts.append("{T}")
        if cost.pay_life:
            parts.append(f"Pay {cost.pay_life} life")
        if cost.discard:
            parts.append("Discard a card")
        if cost.sac_types:
            names = " or ".join(TYPE_NAMES[b] for b in _TYPE_ORDER if cost.sac_types & b)
            lead = "another" if cost.sac_other else _article(names)
            parts.append(f"Sacrifice {lead} {names}")
        if cost.returned is not None:
            r = cost.returned
            name = r.subtype or " or ".join(TYPE_NAMES[b] for b in _TYPE_ORDER if r.types & b)
            parts.append(f"Return {_article(name)} {name} you control to its owner's hand")
        if cost.sacrifice_self:
            parts.append("Sacrifice " + self.card.self_word)
            self.last = "self"
        if cost.discard_self:
            # A card in the hand is "this card" whatever it is.
            parts.append("Discard this card")
        return ", ".join(parts)

    def _entering(self, a: TriggeredAbility) -> str:
        """What enters for a `permanent_enters` trigger: "another creature you control",
        "this creature or another Ally you control", "an artifact you control"."""
        f = a.filter
        assert f is not None
        words = [SUPERTYPE_NAMES[b] for b in sorted(SUPERTYPE_NAMES) if f.supertypes & b]
        words += _color_words(f.colors) + sorted(f.subtypes)
        if f.types:
            words.append(_or(_type_words(f.types)))
        elif not f.subtypes:
            words.append("permanent")
        if f.controller == "you":
            words.append("you control")
        what = " ".join(words)
        if f.other:
            lead = f"{self.card.self_word} or another" if a.or_self else "another"
            return f"{lead} {what}"
        return f"{_article(what)} {what}"

    def trigger(self, a: TriggeredAbility) -> str:
        me = self.card.self_word
        whose = "your" if a.whose == "you" else "the"
        text = {
            "enters": f"When {me} enters",
            "dies": f"When {me} dies",
            "to_graveyard": f"When {me} is put into a graveyard from the battlefield",
            "attacks": f"Whenever {me} attacks",
            "blocks": f"Whenever {me} blocks",
            "blocked": f"Whenever {me} becomes blocked",
            "blocks_or_blocked": f"Whenever {me} blocks or becomes blocked",
            "damage_to_opponent": f"Whenever {me} deals damage to an opponent",
            "combat_damage_to_player": f"Whenever {me} deals combat damage to a player",
            "targeted": f"When {me} becomes the target of a spell or ability",
            "targeted_by_opponent": (
                f"Whenever {me} becomes the target of a spell or ability an opponent controls"
            ),
            "cast_noncreature": "Whenever you cast a noncreature spell",
            "cast_instant_sorcery": "Whenever you cast an instant or sorcery spell",
            "cast_spell": "Whenever you cast a spell",
            "landfall": "Landfall — Whenever a land you control enters",
            "attacks_alone": "Whenever a creature you control attacks alone",
            "third_draw": "When you draw your third card in a turn",
            "second_draw": "Whenever you draw your second card each turn",
            "cast_self": "When you cast this spell",
            "you_sacrifice": f"Whenever you sacrifice another {a.subtype}",
            "permanent_enters": "",
            "leaves": f"When {me} leaves the battlefield",
            "upkeep": f"At the beginning of {whose} upkeep",
            "end_step": f"At the beginning of {whose} end step",
        }[a.event]
        if a.event == "permanent_enters":
            text = f"Whenever {self._entering(a)} enters"
        elif a.event == "blocks" and a.filter is not None:
            f = a.filter
            what = " ".join([*_color_words(f.colors), *sorted(f.subtypes), "creature"])
            if f.keywords:
                what += " with " + _or([k.replace("_", " ") for k in sorted(f.keywords)])
            text += f" {_article(what)} {what}"
        if a.word:
            text = f"{a.word} — {text}"  # an ability word (207.2c): no rules of its own
        if a.event in _SELF_EVENTS and a.filter is None:
            # ("blocks a creature with flying": "it" would be that creature, so Oracle
            # names the source again.)
            self.last = "self"
        elif a.event == "to_graveyard":
            self.last = "this_card"  # "return it to its owner's hand": the card there
        text += ", "
        if "not_attacked_this_turn" in a.condition:
            text += f"if {me} didn't attack this turn, "
        if "kicked" in a.condition:
            text += "if it was kicked, "
        if "another_named" in a.condition:
            text += f"if you control another creature named {self.card.card.name}, "
        for cond in a.condition:
            if cond in _STATE_WORDS:
                text = f"{_STATE_WORDS[cond]} — {text}if {_STATE_TEXT[cond]}, "
        return text

    # ------------------------------------------------------------------- references
    def target_phrase(self, t: TargetSpec) -> str:
        """A target as its filter says it, without "target": "nonblack creature",
        "creature card from your graveyard", "artifact or enchantment"."""
        f = t.filter
        adj: list[str] = []
        adj += ["non" + SUPERTYPE_NAMES[b] for b in sorted(SUPERTYPE_NAMES) if f.not_supertypes & b]
        adj += [SUPERTYPE_NAMES[b] for b in sorted(SUPERTYPE_NAMES) if f.supertypes & b]
        if f.not_types and f.not_colors:
            # Oracle's order with both: "nonartifact, nonblack creature" (Terror).
            adj += ["non" + w + "," for w in _type_words(f.not_types)]
        adj += ["non" + w for w in _color_words(f.not_colors)]
        many_colors = len(_color_words(f.colors)) > 1
        if not many_colors:
            adj += _color_words(f.colors)
        if not f.not_colors:
            adj += ["non" + w for w in _type_words(f.not_types)]
        if f.tapped:
            adj.append("tapped")
        if f.untapped:
            adj.append("untapped")
        if f.in_combat:
            adj.append("attacking or blocking")
        # Combat first, before a "non-" word: "attacking non-Human creature".
        combat = "attacking" if f.attacking else "blocking" if f.blocking else ""
        adj += [f"non-{s}" for s in sorted(f.not_subtypes)]
        adj += sorted(f.subtypes)
        kind = t.kind
        if kind == "any":
            return "any target"
        if kind == "graveyard_card":
            # A card of any of the types: "creature or land card", "instant or sorcery card".
            kinds = [TYPE_NAMES[b] for b in (*_TYPE_ORDER, INSTANT, SORCERY) if f.types & b]
            noun = " ".join([_or(kinds), "card"]) if kinds else "card"
        elif kind == "permanent" and f.types:
            noun = _or(_type_words(f.types))
        elif kind == "spell" and f.types:
            # A spell of any of the types: "instant or sorcery spell".
            spell_types = (*_TYPE_ORDER, INSTANT, SORCERY)
            noun = " or ".join(TYPE_NAMES[b] for b in spell_types if f.types & b) + " spell"
        else:
            noun = kind
        words = ", ".join(w for w in adj if w.startswith("non-"))
        plain = " ".join(w for w in adj if not w.startswith("non-"))
        phrase = " ".join(x for x in (combat, words, plain, noun) if x)
        if f.controller == "you":
            phrase += " you control"
        elif f.controller == "opponent":
            # "You don't control" beside a target you control (a fight), else "an opponent".
            mine = any(o.filter.controller == "you" for o in self.targets if o is not t)
            phrase += " you don't control" if mine else " an opponent controls"
        if kind == "graveyard_card":
            phrase += " from your graveyard" if f.owner == "you" else " from a graveyard"
        if f.max_mv_count:
            phrase += (
                f" with mana value X or less, where X is the number of {_plural(f.max_mv_count)}"
                " you control"
            )
        elif f.max_mana_value >= 0:
            phrase += f" with mana value {f.max_mana_value} or less"
        if f.min_mana_value:
            phrase += f" with mana value {f.min_mana_value} or greater"
        if f.min_power >= 0:
            phrase += f" with power {f.min_power} or greater"
        if f.max_power >= 0:
            phrase += f" with power {f.max_power} or less"
        if f.keywords:
            phrase += " with " + _keyword_list(f.keywords)
        if f.not_keywords:
            phrase += " without " + _keyword_list(f.not_keywords)
        if many_colors:
            phrase += " that's " + _or(_color_words(f.colors))
        return phrase

    def _spec(self, ref: str) -> TargetSpec | None:
        if ref in _TARGET_REFS:
            i = _TARGET_REFS.index(ref)
            return self.targets[i] if i < len(self.targets) else None
        return None

    def obj(self, ref: str, subject_of_sentence: bool = False, after_compound: bool = False) -> str:
        """An object reference: a target named first in full, then "it" ("that creature"
        to start a sentence after one that named two things)."""
        if ref == "targets" and self.targets and self.targets[0].up_to:
            # "Up to N target ..." (601.2c): the N optional targets, named together.
            n = self.targets[0].up_to
            if ref in self.named:
                return "it" if n == 1 else "them"
            self.named.add(ref)
            self.last = ref
            phrase = self.target_phrase(self.targets[0])
            other = "other " if self.targets[0].filter.other else ""
            if n == 1:
                return f"up to one {other}target {phrase}"
            return f"up to {_number(n)} {other}target {_plural_phrase(phrase)}"
        spec = self._spec(ref)
        if spec is not None:
            if ref not in self.named:
                self.named.add(ref)
                self.last = ref
                # One other than the source: "another target creature" (Oracle's words).
                return ("another target " if spec.filter.other else "target ") + (
                    self.target_phrase(spec)
                )
            if subject_of_sentence and after_compound:
                return "that " + ("creature" if spec.kind == "creature" else "permanent")
            return "it"
        if ref == "self":
            if self.last == "self" and not self.card.is_spell:
                return "it"
            return self.card.self_word
        if ref == "this_card":
            return "it"
        return {
            "enchanted": "enchanted creature",
            "all_creatures": "all creatures",
            "your_creatures": "creatures you control",
            "opponent_creatures": "creatures your opponents control",
            "creatures_without_flying": "creatures without flying",
            "all_enchantments": "all enchantments",
            "attacking_creatures": "attacking creatures",
            "each_opponent": "each opponent",
            "you": "you",
            "that_player": "that player",
        }.get(ref, ref)

    def player(self, ref: str) -> str:
        if ref == "target_controller":
            return "its controller"
        if ref in _TARGET_REFS:
            if ref not in self.named:
                self.named.add(ref)
                spec = self._spec(ref)
                return (
                    "target opponent"
                    if spec is not None and spec.kind == "opponent"
                    else "target player"
                )
            return "that player"
        return self.obj(ref)

    # ------------------------------------------------------------------- effects
    def effects(self, ops: Sequence[Op], after_trigger: bool = False) -> str:
        # After a trigger's comma the first sentence goes on in lower case.
        return " ".join(text for text, _ in self.sentences(ops, cap_first=not after_trigger))

    def sentences(self, ops: Sequence[Op], cap_first: bool = True) -> list[tuple[str, bool]]:
        """The sentences of these effects, each with whether a spell's text starts a new
        line with it (`_own_line`). Kicker's "if this spell was kicked" (CR 702.33d) is a
        sentence of its own after the ones before it, on their line."""
        out: list[tuple[str, bool]] = []
        run: list[Op] = []
        for op in ops:
            if op.name not in ("kicked", "discarded_nonland") and op.name not in _STATE_WORDS:
                run.append(op)
                continue
            if run:
                out += self._plain_sentences(run, cap_first and not out)
                run = []
            other = list(op.args.get("otherwise", ()))
            if op.name in _STATE_WORDS:
                out += self._plain_sentences(other, cap_first and not out)
                out.append((self._state_instead(op), True))
                continue
            if other:
                out += self._plain_sentences(other, cap_first and not out)
            then = list(op.args["effects"])
            if (
                len(other) == len(then) == 1
                and other[0].name == then[0].name == "damage"
                and other[0].args["to"] == then[0].args["to"]
            ):
                said = f"it deals {then[0].args['amount']} damage"
            else:
                said = " ".join(t for t, _ in self._plain_sentences(then, False))[:-1]
            if op.name == "discarded_nonland":
                head = "If the discarded card wasn't a land card"  # 601.2b: the cost's card
            else:
                # A permanent's ability asks of the permanent the kicked spell became.
                me = "this spell" if self.card.is_spell else self.card.self_word
                head = f"If {me} was kicked"
            text = f"{head}, {said}{' instead' if other else ''}."
            out.append((text if out or cap_first else text[:1].lower() + text[1:], False))
        if run or not out:
            out += self._plain_sentences(run, cap_first and not out)
        return out

    def _look_take(self, a: Mapping[str, Any]) -> str:
        """ "Look at the top N cards of your library. ..." (`look_take`): its sentences,
        the last without its full stop."""
        n = a["count"]
        if a["rest"] == "graveyard":
            place = "into your graveyard"
        elif n - a.get("take", 1) == 1 and not a.get("reveal"):
            place = "on the bottom of your library"
        else:
            order = "a random order" if a.get("random") else "any order"
            place = f"on the bottom of your library in {order}"
        text = f"look at the top {_number(n)} cards of your library. "
        if a.get("reveal"):
            kinds = list(a.get("types", ()))
            what = (
                " or ".join(kinds)
                if len(kinds) < 3
                else ", ".join(kinds[:-1]) + ", or " + kinds[-1]
            )
            if a.get("any_number"):
                return (
                    text + f"You may reveal any number of {what} cards from among them and "
                    f"put the revealed cards into your hand. Put the rest {place}"
                )
            what = _article(what) + " " + what if what else "a"
            return (
                text + f"You may reveal {what} card from among them and put it into your "
                f"hand. Put the rest {place}"
            )
        take = a.get("take", 1)
        rest = "other" if n - take == 1 else "rest"
        said = "one" if take == 1 else _number(take)
        return text + f"Put {said} of them into your hand and the {rest} {place}"

    def _reveal_take(self, a: Mapping[str, Any]) -> str:
        """ "Reveal the top N cards of your library. Put all land cards revealed this way
        ..." (`reveal_take`), after "Choose creature or land." with `choose`; the last
        sentence without its full stop."""
        types = list(a["types"])
        head, verb = "", "reveal"
        if a["choose"]:
            head, verb = "choose " + " or ".join(types) + ". ", "Reveal"
            kinds = "cards of the chosen type"
        else:
            kinds = " and ".join(types) + " cards"
        place = (
            "into your graveyard"
            if a["rest"] == "graveyard"
            else "on the bottom of your library in any order"
        )
        return (
            head + f"{verb} the top {_number(a['count'])} cards of your library. Put all "
            f"{kinds} revealed this way into your hand and the rest {place}"
        )

    def _state_instead(self, op: Op) -> str:
        """An ability word's "instead" (CR 207.2c), a paragraph of its own: "Metalcraft —
        ~ deals 4 damage instead if you control three or more artifacts." """
        other = list(op.args.get("otherwise", ()))
        then = list(op.args["effects"])
        if not (
            len(other) == len(then) == 1
            and other[0].name == then[0].name == "damage"
            and other[0].args["to"] == then[0].args["to"]
        ):
            raise ValueError(f"no Oracle template writes this {op.name} op")
        me = self.card.self_word
        return (
            f"{_STATE_WORDS[op.name]} — {_cap(me)} deals {then[0].args['amount']} damage "
            f"instead if {_STATE_TEXT[op.name]}."
        )

    def _investigates(self, sent: _Sentence) -> bool:
        """A sentence that investigates: a keyword action Oracle prints with its reminder
        text, a paragraph of its own."""
        first = sent.clauses[0]
        if first.kind != "create_token" or first.ops[0].args.get("count", 1) != 1:
            return False
        return _is_clue(self.card.tokens[first.ops[0].args["token"]])

    def _plain_sentences(self, ops: Sequence[Op], cap_first: bool) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        prev_compound = False
        sents = _sentences(_clauses(ops), spell=self.card.is_spell)
        for i, sent in enumerate(sents):
            named = set(self.named)
            text = self._sentence(sent, prev_compound)
            text = _cap(text) if i or cap_first else text
            own = _own_line(sent, named, i == len(sents) - 1) or self._investigates(sent)
            out.append((text, i > 0 and own))
            prev_compound = len(sent.clauses) > 1
        return out

    def _sentence(self, sent: _Sentence, prev_compound: bool) -> str:
        cl = sent.clauses
        # "You draw two cards and you lose 2 life": a life loss joined to your clause
        # names you in both.
        all_you = len(cl) > 1 and all(c.subject == "you" for c in cl)
        explicit_you = all_you and any(c.kind == "lose_life" for c in cl[1:])
        parts: list[str] = []
        for i, c in enumerate(cl):
            prev = cl[i - 1] if i else None
            shared = (
                prev is not None
                and prev.subject is not None
                and prev.subject == c.subject
                and not explicit_you
                and _states_subject(prev)
            )
            text = self._clause(
                c, shared=shared, explicit_you=explicit_you, start=i == 0, after=prev_compound
            )
            if i:
                text = (", then " if sent.joins[i - 1] == "then" else " and ") + text
            parts.append(text)
        if sent.equal_life:
            return "you gain life equal to the life lost this way."
        return "".join(parts) + "."

    def _clause(
        self, c: _Clause, shared: bool, explicit_you: bool, start: bool, after: bool
    ) -> str:
        op = c.ops[0]
        a = op.args
        name = op.name
        if name in ("draw", "discard", "mill", "gain_life", "lose_life"):
            who = a.get("who", "you")
            verb = {
                "draw": "draw",
                "discard": "discard",
                "mill": "mill",
                "gain_life": "gain",
                "lose_life": "lose",
            }[name]
            n = a["amount"] if name in ("gain_life", "lose_life") else a.get("count", 1)
            each = ""
            if isinstance(n, Mapping):  # "for each creature you control"
                n, each = n.get("times", 1), " for each " + _counted(n)
            if name in ("gain_life", "lose_life"):
                obj = f"{n} life{each}"
            else:
                obj = _count_of(n, "card") + each
                if name == "discard" and a.get("random"):
                    obj += " at random"
            if who == "you":
                subj = "you " if (name in ("gain_life", "lose_life") or explicit_you) else ""
                if shared:
                    subj = ""
                return f"{subj}{verb} {obj}"
            third = verb + "s"
            if shared:
                return f"{third} {obj}"
            return f"{self.player(who)} {third} {obj}"
        if name == "damage":
            src = self.obj("self")
            hits = [f"{_amount(o.args['amount'])} damage to {self._damage_to(o)}" for o in c.ops]
            n = c.ops[0].args["amount"]
            if len(c.ops) == 1 and isinstance(n, Mapping):
                # "X damage ..., where X is the number of ...", "N damage ... for each ..."
                counted = _counted(n, plural=bool(n.get("as_x")))
                hits[0] += (
                    f", where X is the number of {counted}"
                    if n.get("as_x")
                    else (f" for each {counted}")
                )
            if len(c.ops) == 3 and [o.args["to"] for o in c.ops] == [
                "all_creatures",
                "you",
                "each_opponent",
            ]:
                hits = [f"{a['amount']} damage to each creature and each player"]
            if [o.args["to"] for o in c.ops] == ["each_opponent", "opponent_creatures"]:
                hits = [
                    f"{a['amount']} damage to each opponent and each creature and planeswalker "
                    "they control"
                ]
            return f"{src} deals " + " and ".join(hits)
        if name == "may":
            inner = list(a["effects"])
            if len(inner) == 1 and inner[0].name == "damage":
                d = inner[0]
                return (
                    f"you may have {self.obj('self')} deal {d.args['amount']} damage to "
                    f"{self._damage_to(d)}"
                )
            sub = _Sentence([_Clause(o.name, [o], None) for o in inner])
            said = self._sentence(sub, False)[:-1]
            # The player is named once: "you may gain 1 life", not "you may you gain".
            text = "you may " + (said[4:] if said.startswith("you ") else said)
            then = list(a.get("if_you_do", ()))
            if then:
                # A sentence of its own that runs only if the first did.
                said = " ".join(t for t, _ in self._plain_sentences(then, False))[:-1]
                text += f". If you do, {said}"
            return text
        if name == "may_pay":
            said = " ".join(t for t, _ in self._plain_sentences(list(a["effects"]), False))[:-1]
            return f"you may pay {a['cost']}. If you do, {said}"
        if name == "may_exile_card":
            said = " ".join(t for t, _ in self._plain_sentences(list(a["effects"]), False))[:-1]
            kinds = " or ".join(a["types"])
            card = f"{_article(kinds)} {kinds} card" if kinds else "a card"
            return f"you may exile {card} from your graveyard. If you do, {said}"
        if name == "gain_life_sacrificed":
            return "you gain life equal to the sacrificed permanent's mana value"
        if name == "opponent_discards_or_you_draw":
            return "each opponent discards a card. For each opponent who can't, you draw a card"
        if name == "discard_or_sacrifice_land":
            said = " ".join(t for t, _ in self._plain_sentences(list(a["effects"]), False))[:-1]
            return f"you may discard a card or sacrifice a land. If you do, {said}"
        if name == "unless_entered_this_turn":
            sub = _Sentence([_Clause(o.name, [o], None) for o in a["effects"]])
            return (
                self._sentence(sub, False)[:-1] + f" unless {self.card.self_word} entered this turn"
            )
        if name == "look_take":
            return self._look_take(a)
        if name == "reveal_take":
            return self._reveal_take(a)
        if name == "reveal_discard":
            return (
                f"{self.player(a['who'])} reveals their hand. You choose {_card_kind(a)} "
                "from it. That player discards that card"
            )
        if name == "restrict":
            subj = self.obj(a["what"], subject_of_sentence=start, after_compound=after)
            return f"{subj} {restriction_text(a['rules'])} this turn"
        if name == "at_next_upkeep":
            sub = _Sentence([_Clause(o.name, [o], "you") for o in a["effects"]])
            return self._sentence(sub, False)[:-1] + " at the beginning of the next turn's upkeep"
        if name in ("pump", "grant", "set_base_pt", "fight", "animate"):
            what = a["what"]
            subj = self.obj(what, subject_of_sentence=start, after_compound=after)
            if a.get("subtype"):  # "Humans you control": the group's creatures, by type
                subj = subj.replace("creatures", _plural(a["subtype"]))
            plural = what in _PLURAL_REFS
            if name == "fight":
                return f"{subj} fights {self.obj(a['other'])}"
            if name == "animate":
                return self._animate(c, subj)
            words: list[str] = []
            for o in c.ops:
                if o.name == "pump":
                    words.append(
                        ("get " if plural else "gets ")
                        + _pt_change(_times(o.args["power"]), _times(o.args["toughness"]))
                    )
                elif o.name == "grant":
                    words.append(
                        ("gain " if plural else "gains ") + _keyword_list(o.args["keywords"])
                    )
                else:
                    words.append(
                        f"has base power and toughness {o.args['power']}/{o.args['toughness']}"
                    )
            text = f"{subj} {' and '.join(words)} until end of turn"
            counts = [
                v
                for v in (op.args.get("power"), op.args.get("toughness"))
                if isinstance(v, Mapping)
            ]
            if op.name == "pump" and counts and counts[0].get("as_x"):
                text += ", where X is the number of " + _counted(counts[0], plural=True)
            elif op.name == "pump" and counts:
                text += " for each " + _counted(counts[0])
            return text
        return self._imperative(op)

    def _damage_to(self, o: Op) -> str:
        to = o.args["to"]
        if to in _TARGET_REFS:
            spec = self._spec(to)
            if spec is not None and spec.kind == "any" and to not in self.named:
                self.named.add(to)
                return "any target"
            if spec is not None and spec.kind == "player" and to not in self.named:
                self.named.add(to)
                return "target player or planeswalker"
            return self.obj(to)
        if to == "all_creatures":
            return "each creature"
        if to == "opponent_creatures":
            return "each creature your opponents control"
        if to == "creatures_without_flying":
            return "each creature without flying"
        if to == "targets" and self.targets and self.targets[0].up_to > 1:
            return "each of " + self.obj(to)  # "each of up to two target creatures"
        return self.obj(to)

    def _animate(self, c: _Clause, subj: str) -> str:
        a = c.ops[0].args
        subs = [s for o in c.ops[1:] for s in o.args.get("subtypes", ())]
        types = [t for t in a.get("add_types", ()) if t != "creature"]
        words = [f"{a['power']}/{a['toughness']}", *subs, *types, "creature"]
        text = f"{subj} becomes a {' '.join(words)}"
        if a.get("all_creature_types"):
            text += " with all creature types"
        if a.get("duration", "end_of_turn") == "end_of_turn":
            text += " until end of turn"
        if self.card.card.types & LAND:
            text += ". It's still a land"
        return text

    def _imperative(self, op: Op) -> str:
        a = op.args
        name = op.name
        if name == "exile_graveyard":
            return f"exile {self.obj(a['who'])}'s graveyard"
        simple: dict[str, Callable[[str], str]] = {
            "destroy": lambda w: f"destroy {w}",
            "exile": lambda w: f"exile {w}",
            "exile_linked": lambda w: f"exile {w}",  # linked to "return the exiled card"
            "put_on_library": lambda w: f"put {w} on top of its owner's library",
            "sacrifice": lambda w: f"sacrifice {w}",
            "tap": lambda w: f"tap {w}",
            "untap": lambda w: f"untap {w}",
            "counter": lambda w: f"counter {w}",
            "regenerate": lambda w: f"regenerate {w}",
        }
        if name in simple:
            text = simple[name](self.obj(a["what"]))
            if name == "counter" and a.get("exile"):
                # Its own sentence in Oracle text, after the counter (614.1a).
                text += (
                    ". If that spell is countered this way, exile it instead of putting it "
                    "into its owner's graveyard"
                )
            if name == "destroy" and a.get("regenerate") is False:
                # Its own sentence in Oracle text, after the destruction (CR 701.15b).
                they = a["what"] in _PLURAL_REFS
                text += f". {'They' if they else 'It'} can't be regenerated"
            return text
        if name == "return_to_hand":
            what = a["what"]
            up_to = what == "targets" and bool(self.targets)
            spec = self.targets[0] if up_to else self._spec(what)
            w = self.obj(what)
            if spec is not None and spec.kind == "graveyard_card":
                # From your graveyard to your hand; from any graveyard to its owner's.
                hand = "your hand" if spec.filter.owner == "you" else "its owner's hand"
                return f"return {w} to {hand}"
            if up_to and self.targets[0].up_to > 1:
                return f"return {w} to their owners' hands"
            return f"return {w} to its owner's hand"
        if name == "return_linked":
            return "return the exiled card to the battlefield under its owner's control"
        if name == "return_to_battlefield":
            return f"return {self.obj(a['what'])} to the battlefield"
        if name == "return_self_from_graveyard":
            tapped = " tapped" if a.get("tapped") else ""
            return f"return this card from your graveyard to the battlefield{tapped}"
        if name == "gain_control":
            text = f"gain control of {self.obj(a['what'])}"
            if a.get("duration", "end_of_turn") == "end_of_turn":
                text += " until end of turn"
            return text
        if name == "counter_unless_pay":
            return f"counter {self.obj(a['what'])} unless its controller pays {a['cost']}"
        if name == "sacrifice_unless_pay":
            return f"sacrifice {self.obj('self')} unless you pay {a['cost']}"
        if name == "add_counter":
            n = a.get("count", 1)
            counters = f"{a['counter']} counter" if n == 1 else f"{a['counter']} counters"
            lead = "a" if n == 1 else _number(n)
            return f"put {lead} {counters} on {self.obj(a['what'])}"
        if name == "attach":
            return f"attach {self.obj(a.get('what', 'self'))} to {self.obj(a['to'])}"
        if name == "take_initiative":
            return "you take the initiative"
        if name == "create_token":
            if a.get("count", 1) == 1 and _is_clue(self.card.tokens[a["token"]]):
                return "investigate"  # CR 701.16a
            return "create " + self._token(a["token"], a.get("count", 1))
        if name in ("scry", "surveil"):
            return f"{name} {a['count']}"
        if name == "explore":
            return f"{self.obj(a['what'])} explores"
        if name == "untap_up_to":
            return f"untap up to {_count_of(a['count'], 'land')}"
        if name == "prevent_combat_damage":
            return "prevent all combat damage that would be dealt this turn"
        if name == "skip_untap":
            return f"{self.obj(a['what'])} doesn't untap during its controller's next untap step"
        if name == "exile_if_dies":
            # Its own sentence, of the creature the sentence before named (614.1a).
            return "if that creature would die this turn, exile it instead"
        if name == "prevent_damage":
            to = self._damage_to(Op("damage", {"to": a["to"]}))
            return f"prevent the next {a['amount']} damage that would be dealt to {to} this turn"
        if name == "search_basic_land":
            put = {
                "hand": "reveal it, put it into your hand",
                "battlefield_tapped": "put it onto the battlefield tapped",
                "top": "reveal it",
            }[a["to"]]
            t = a.get("land_type")
            types = a.get("basic_types")
            if types:
                what = "a basic " + ", ".join(types[:-1]) + f", or {types[-1]}"
            else:
                what = "a basic land" if t is None else f"{_article(t)} {t}"
            if a.get("who", "you") != "you":
                who = self.player(a["who"])
                return f"{who} may search their library for {what} card, {put}, then shuffle"
            then = " and put that card on top" if a["to"] == "top" else ""
            return f"search your library for {what} card, {put}, then shuffle{then}"
        if name == "pay_to_copy":
            return (
                f"then that player or that permanent's controller may pay {a['cost']}. If the "
                "player does, they may copy this spell and may choose a new target for that copy"
            )
        if name == "impulse":
            n = a.get("count", 1)
            what = "card" if n == 1 else f"{_number(n)} cards"
            them = "that card" if n == 1 else "those cards"
            when = (
                "Until end of turn" if a["until"] == "turn" else "Until the end of your next turn"
            )
            return f"exile the top {what} of your library. {when}, you may play {them}"
        if name == "shuffle_into_library":
            return f"its owner shuffles {self.obj(a['what'])} into their library"
        if name == "add_mana":
            return f"add {a['mana']}"
        raise ValueError(f"no Oracle template writes the op {name!r}")

    def _token(self, name: str, n: Any) -> str:
        t = self.card.tokens[name]
        known = _predefined(t)
        if known is not None:
            # "a Treasure token", "two Food tokens" (CR 111.10).
            return f"{_article(known)} {known} token" if n == 1 else f"{_number(n)} {known} tokens"
        colors = _color_words(t.colors)
        words = [
            f"{t.power}/{t.toughness}",
            " and ".join(colors) if colors else "colorless",
            *sorted(t.subtypes),
            *[w for w in _type_words(t.types) if w != "creature"],
            "creature",
            "token" if n == 1 else "tokens",
        ]
        text = " ".join(words)
        text = f"{_article(text)} {text}" if n == 1 else f"{_number(n)} {text}"
        if t.keywords:
            text += " with " + _keyword_list(t.keywords)
        mana = [a for a in t.abilities if isinstance(a, ManaAbility)]
        if mana:
            # The Eldrazi Spawn's and Scion's ability; Oracle also writes it as a sentence
            # of its own ("They have ..."), which compiles to the same token.
            text += f' with "{_TokenAbility(t, self.card.tokens).mana(mana[0])}"'
        return text


def _own_line(sent: _Sentence, named: set[str], last: bool) -> bool:
    """Whether a spell's sentence is a paragraph of its own: surveil; a closing "Draw a
    card." (a cantrip); an effect on a new target after one on another (two independent
    effects)."""
    first = sent.clauses[0]
    if first.kind == "surveil":
        return True
    if last and len(sent.clauses) == 1 and (_cantrip(first) or first.kind == "at_next_upkeep"):
        return True
    return (
        first.subject in _TARGET_REFS
        and first.subject not in named
        and any(r in named for r in _TARGET_REFS)
    )


def _card_kind(a: Mapping[str, Any]) -> str:
    """ "a nonland card", "a noncreature, nonland card", "an artifact or creature card",
    "a nonland permanent card", "a card" (the `reveal_discard` op's choice)."""
    types, avoid = list(a.get("types", ())), list(a.get("not_types", ()))
    if avoid:
        words = ", ".join("non" + t for t in avoid)
    elif types == ["artifact", "creature", "enchantment"]:
        words = "nonland permanent"
    else:
        words = " or ".join(types)
    words = f"{words} card" if words else "card"
    return f"{_article(words)} {words}"


def _cantrip(c: _Clause) -> bool:
    a = c.ops[0].args
    return c.kind == "draw" and a.get("who", "you") == "you" and a.get("count", 1) == 1


def _states_subject(c: _Clause) -> bool:
    """Whether a clause says its subject (an imperative says none)."""
    if c.kind in ("gain_life", "lose_life"):
        return True
    return c.subject is not None and c.subject != "you"


def _clauses(ops: Sequence[Op]) -> list[_Clause]:
    """The ops as clauses: a P/T change with the keywords it grants, damage a source deals
    at once, and a creature's new types are one clause each."""
    out: list[_Clause] = []
    for op in ops:
        a = op.args
        prev = out[-1] if out else None
        what = a.get("what")
        if (
            prev is not None
            and op.name == "grant"
            and prev.kind == "pump"
            and prev.ops[0].args.get("what") == what
            and len(prev.ops) == 1
        ) or (
            prev is not None
            and op.name == "add_subtypes"
            and prev.kind == "animate"
            and prev.ops[0].args.get("what") == what
        ):
            prev.ops.append(op)
            continue
        if prev is not None and op.name == "damage" and prev.kind == "damage":
            prev.ops.append(op)
            continue
        subject: str | None
        if op.name in ("draw", "discard", "mill", "gain_life", "lose_life"):
            subject = a.get("who", "you")
        elif op.name in ("pump", "grant", "set_base_pt", "fight", "animate"):
            subject = what
        elif op.name == "damage":
            subject = "self"
        elif op.name in (
            "may",
            "at_next_upkeep",
            "discard_or_sacrifice_land",
            "may_pay",
            "may_exile_card",
            "take_initiative",
            "gain_life_sacrificed",
            "opponent_discards_or_you_draw",
        ):
            subject = "you"
        elif op.name == "restrict":
            subject = what
        else:
            subject = None
        objects = [v for k, v in a.items() if k in ("what", "other", "to") and isinstance(v, str)]
        duration = op.name in ("pump", "grant", "set_base_pt", "animate") or (
            op.name == "gain_control" and a.get("duration", "end_of_turn") == "end_of_turn"
        )
        out.append(_Clause(op.name, [op], subject, objects, duration))
    return out


@dataclass
class _Sentence:
    clauses: list[_Clause]
    joins: list[str] = field(default_factory=list)  # "and" | "then", between clauses
    equal_life: bool = False


def _joins(prev: _Clause, cur: _Clause) -> str | None:
    """How `cur` joins the sentence that ends with `prev`: "then", "and" or not at all."""
    if prev.duration:
        # A duration ends its sentence: what "until end of turn" covers stays plain.
        return None
    if cur.kind == "skip_untap":
        return None  # "Tap target creature. It doesn't untap during ..." (Oracle's words)
    if prev.kind in ("scry", "surveil") and cur.kind == "draw" and cur.subject == "you":
        return "then"
    if prev.kind == "draw" and cur.kind == "discard" and prev.subject == cur.subject:
        return "then"
    if cur.kind in ("gain_life", "lose_life", "draw") and prev.kind in _PLAYER_OPS:
        return "and"
    if (
        prev.subject is None
        and cur.subject is None
        and prev.objects
        and (prev.objects == cur.objects)
    ):
        return "and"
    return None


def _sentences(clauses: list[_Clause], spell: bool = False) -> list[_Sentence]:
    out: list[_Sentence] = []
    for i, c in enumerate(clauses):
        last = out[-1] if out else None
        if last is not None and _equal_life(last.clauses[-1], c):
            out.append(_Sentence([c], equal_life=True))
            continue
        how = None
        if last is not None and len(last.clauses) == 1 and not last.equal_life:
            how = _joins(last.clauses[-1], c)
            if how == "and" and spell and i == len(clauses) - 1 and _cantrip(c):
                # A spell's closing "Draw a card." is a sentence (and line) of its own.
                how = None
        if last is not None and how is not None:
            last.clauses.append(c)
            last.joins.append(how)
        else:
            out.append(_Sentence([c]))
    return out


def _equal_life(prev: _Clause, cur: _Clause) -> bool:
    """ "Each opponent loses X life. You gain life equal to the life lost this way.": a
    gain of the variable amount each opponent just lost."""
    if prev.kind != "lose_life" or cur.kind != "gain_life":
        return False
    lost, gained = prev.ops[0].args, cur.ops[0].args
    return (
        lost.get("who") == "each_opponent"
        and gained.get("who", "you") == "you"
        and isinstance(lost["amount"], str)
        and lost["amount"] == gained["amount"]
    )
