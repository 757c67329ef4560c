"""Oracle text to card data: a card's name, mana cost, type line, Oracle text and P/T
become an entry of the card-data vocabulary (`engine.carddb`, docs/engine.md), or a precise
"not supported" naming the sentence and why.

A card is read line by line, as Oracle text writes its abilities: keyword lines
("Flying, haste", "Enchant creature", "Equip {2}", "Ward {2}") are read here; every other
line is parsed by the template grammar (`grammar`), an instant's or sorcery's lines
together as the one spell they are. The entry is then validated by the card loader itself,
so what compiles is exactly what a hand-written card file could say.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, get_args

from lark.exceptions import UnexpectedInput, VisitError

from ..engine.carddb import parse_card_set
from ..engine.cards import CardDataError, parse_mana_cost
from ..engine.effects import NESTED
from ..engine.vocab import KEYWORDS, SUPERTYPE_NAMES, TYPE_NAMES
from .grammar import (
    BASIC_LANDCYCLING,
    COLOR_OF_WORD,
    ENTERS_OR_LEAVES,
    ENTERS_OR_TO_GRAVEYARD,
    NUMBER_WORDS,
    UNDERCITY_TOKENS,
    ToData,
    Unsupported,
    parser,
    typecycling,
)

SELF_WORDS = (
    "this creature",
    "this artifact",
    "this enchantment",
    "this land",
    "this aura",
    "this equipment",
    "this permanent",
    "this spell",
)


@dataclass(frozen=True)
class OracleCard:
    """One card as a card database gives it (MTGJSON, Scryfall) or a card file holds it."""

    name: str
    type_line: str
    text: str = ""
    mana_cost: str | None = None
    power: str | None = None
    toughness: str | None = None


@dataclass(frozen=True)
class Problem:
    """Why a card does not compile: the sentence (the card's name written `~`, as the
    grammar reads it) and the reason."""

    sentence: str
    reason: str

    def __str__(self) -> str:
        return f"{self.sentence!r}: {self.reason}"


@dataclass
class Compiled:
    """A card's entry (None when it does not compile), the token entries it creates, and
    the problems that stopped it."""

    card: OracleCard
    entry: dict[str, Any] | None = None
    tokens: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Each ability line's template kind ("keywords", "spell", "modal", "mana", "activated",
    # "triggered", "static") and whether it compiled: the coverage report's per-template
    # counts.
    lines: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.entry is not None and not self.problems


# --------------------------------------------------------------------------- text


def strip_reminders(text: str) -> str:
    """Oracle text without its reminder text (parenthesized, never rules)."""
    out = re.sub(r"\s*\([^()]*\)", "", text)
    return "\n".join(line.strip() for line in out.splitlines() if line.strip())


def self_names(name: str) -> list[str]:
    """How a card's text names the card: its name, and a legend's short name ("Yargle"
    for "Yargle, Glutton of Urborg")."""
    names = [name]
    if ", " in name:
        names.append(name.split(", ")[0])
    return names


def normalize(line: str, name: str) -> str:
    """One line as the grammar reads it: `~` for the card itself, lower case, punctuation
    set off by spaces."""
    s = line
    for n in self_names(name):
        s = s.replace(n, "~")
    s = _SELF_RE.sub("~", s)
    s = s.replace("’", "'").replace("−", "-")
    # A sentence that ends in a quote ends after it: '... with "Sacrifice this token: Add
    # {C}."' reads as '... with "Sacrifice this token : Add {C}" .'.
    s = re.sub(r'\."(?=\s|$)', '" .', s)
    s = re.sub(r"([,.:;])(?=\s|$)", r" \1", s)
    return re.sub(r"\s+", " ", s).strip()


_SELF_RE = re.compile("|".join(SELF_WORDS), re.IGNORECASE)


def sentences_of(line: str) -> list[str]:
    """A line's sentences (for naming the one that does not parse)."""
    return [s.strip() for s in re.split(r"(?<=\.)\s+", line.strip()) if s.strip(" .")]


# --------------------------------------------------------------------------- type line


def parse_type_line(type_line: str) -> tuple[list[str], list[str], list[str]]:
    """(supertypes, types, subtypes) of a type line such as "Legendary Creature — Elf
    Druid"; raises Unsupported for a type the engine does not have."""
    parts = re.split(r"\s+[—-]\s+", type_line, maxsplit=1)
    left = parts[0]
    right = parts[1] if len(parts) > 1 else ""
    sup: list[str] = []
    types: list[str] = []
    for w in left.lower().split():
        if w in get_args(SUPERTYPE_NAMES):
            sup.append(w)
        elif w in get_args(TYPE_NAMES):  # the types card data may name
            types.append(w)
        else:
            raise Unsupported(f"the type {w!r}")
    if not types:
        raise Unsupported("a type line with no card type")
    # Land types other than the basic ones (Gate, Desert, Locus) carry no rules of their
    # own (CR 205.3i): only a basic land type gives a land its mana ability (305.6).
    subtypes = right.split() if right else []
    return sup, types, subtypes


# --------------------------------------------------------------------------- keywords

_MANA_KEYWORD: Final = re.compile(
    r"(echo|kicker|flashback|plot|madness|buyback|ninjutsu) ((?:\{[0-9wubrg/]+\})+)"
)
_KEYWORD_OF_WORDS = {k.replace("_", " "): k for k in KEYWORDS}


def keyword_line(line: str) -> tuple[list[str], dict[str, Any]] | None:
    """A line of keywords ("Flying, haste", "First strike; protection from black and from
    red", "Ward {2}", "Enchant creature", "Equip {1}") as keywords and card fields, or
    None when the line is not one."""
    low = line.lower().rstrip(".")
    m = re.fullmatch(r"equip ((?:\{[0-9wubrg/]+\})+)", low)
    if m:
        return [], {"equip": m.group(1).upper()}
    m = re.fullmatch(r"ward (\{[0-9]+\})", low)
    if m:
        return [], {"ward": m.group(1)}
    m = re.fullmatch(r"cycling ((?:\{[0-9wubrg/]+\})+)", low)
    if m:
        return [], {"cycling": m.group(1).upper()}
    m = re.fullmatch(r"affinity for (artifacts|creatures|enchantments|lands)", low)
    if m:
        return [], {"affinity": m.group(1)[:-1]}  # 702.41a
    m = re.fullmatch(r"affinity for (plains|islands|swamps|mountains|forests)", low)
    if m:
        return [], {"affinity": m.group(1).removesuffix("s").capitalize()}
    m = re.fullmatch(r"basic landcycling ((?:\{[0-9wubrg/]+\})+)", low)
    if m:
        return [], {"landcycling": m.group(1).upper()}  # 702.29e
    m = re.fullmatch(r"(plains|island|swamp|mountain|forest)cycling ((?:\{[0-9wubrg/]+\})+)", low)
    if m:
        # Typecycling (702.29e): "Islandcycling {2}" searches for an Island card.
        return [], {"typecycling": (m.group(1).capitalize(), m.group(2).upper())}
    m = re.fullmatch(r"bestow ((?:\{[0-9xwubrg/]+\})+)", low)
    if m:
        return [], {"bestow": m.group(1).upper()}  # 702.103a: its cost may have X
    m = _MANA_KEYWORD.fullmatch(low)
    if m:
        # A keyword and its mana cost, a card field of the same name: echo (702.30a; "Echo—
        # Discard a card" is not one), kicker (702.33a; "and/or", two, is not one),
        # flashback (702.34a), plot (702.170a), madness (702.35a), buyback (702.27a),
        # ninjutsu (702.49a).
        return [], {m.group(1): m.group(2).upper()}
    m = re.fullmatch(r"flashback—(sacrifice .+)", low)
    if m and (sac := sacrifice_cost(m.group(1))) is not None:
        return [], {"flashback_sacrifice": sac}  # 702.34a: "Flashback—Sacrifice a Mountain"
    m = re.fullmatch(r"backup ([0-9]+)", low)
    if m:
        return [], {"backup": {"count": int(m.group(1))}}  # 702.165a
    m = re.fullmatch(r"(bushido|soulshift) ([0-9]+)", low)
    if m:
        return [], {m.group(1): int(m.group(2))}  # 702.45a, 702.46a
    if low == "prowess":
        return [], {"prowess": True}
    m = re.fullmatch(r"fabricate ([0-9]+)", low)
    if m:
        return [], {"fabricate": {"count": int(m.group(1))}}  # 702.123a
    m = re.fullmatch(r"bloodthirst ([0-9]+)", low)
    if m:
        return [], {"bloodthirst": int(m.group(1))}  # 702.54a: a card field, how it enters
    if low == "cascade":
        return [], {"cascade": True}  # 702.85a
    if low == "extort":
        return [], {"extort": True}  # 702.101a
    m = re.fullmatch(r"toxic ([0-9]+)", low)
    if m:
        return [], {"toxic": int(m.group(1))}  # 702.164a: a card field, its static ability
    if low in ("infect", "intimidate"):
        return [], {low: True}  # 702.90a, 702.13a: card fields, the static ability of each
    if low in ("persist", "undying"):
        return [], {low: True}  # 702.79a, 702.93a: card fields, the "dies" ability each gives
    if low == "job select":
        return [], {"job_select": "Hero"}  # the Equipment's own trigger and its token
    if low == "convoke":
        return [], {"convoke": True}  # 702.51a: a card field, how it is paid for
    if low == "changeling":
        return [], {"changeling": True}  # 702.73a: a card field, every creature type
    if low == "devoid":
        # 702.114a: a characteristic-defining ability, "this object is colorless".
        return [], {"colors": []}
    kws: list[str] = []
    for item in re.split(r"\s*[,;]\s*", low):
        pm = re.fullmatch(r"protection from (\w+)((?: and from \w+)*)", item)
        if pm:
            colors = [pm.group(1), *re.findall(r"and from (\w+)", pm.group(2))]
            if not all(c in COLOR_OF_WORD for c in colors):
                return None
            kws += [f"protection_from_{c}" for c in colors]
        elif item in _KEYWORD_OF_WORDS and item != "ward":
            kws.append(_KEYWORD_OF_WORDS[item])
        else:
            return None
    return kws, {}


_SAC_KINDS: Final = {
    **{t: t for t in ("artifact", "creature", "enchantment", "land")},
    **{t.lower(): t for t in ("Plains", "Island", "Swamp", "Mountain", "Forest")},
}


def sacrifice_cost(words: str) -> dict[str, Any] | None:
    """ "sacrifice a Mountain", "sacrifice two Mountains" (lower case) as a cost that
    sacrifices permanents of one card type or basic land type, or None."""
    m = re.fullmatch(r"sacrifice (a|an|two|three|four|five) (\w+)", words.lower())
    if m is None:
        return None
    n = NUMBER_WORDS[m.group(1)]
    word = m.group(2)
    if n > 1:
        if not word.endswith("s") or word == "plains":
            return None
        word = word[:-1]
    kind = _SAC_KINDS.get(word)
    return None if kind is None else {"count": n, "kind": kind}


_ALTERNATIVE_COST = re.compile(
    r"You may (sacrifice [^.]+) rather than pay this spell's mana cost\."
)


# --------------------------------------------------------------------------- compile

_ADDITIONAL_COST = re.compile(
    r"As an additional cost to cast this spell, (sacrifice an? (?:artifact|creature|enchantment"
    r"|land)(?: or (?:artifact|creature|enchantment|land))?|discard a card)\."
)


@dataclass
class Vocabulary:
    """What the compiler knows beyond the grammar: the subtype words its type lines use
    (lower case), and the tokens known by their characteristics."""

    subtypes: frozenset[str]
    tokens: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, type_lines: Iterable[str], tokens: Iterable[Mapping[str, Any]] = ()) -> Vocabulary:
        words: set[str] = set()
        for tl in type_lines:
            parts = re.split(r"\s+[—-]\s+", tl, maxsplit=1)
            kinds = parts[0].lower()
            if len(parts) == 2 and any(k in kinds for k in ("creature", "tribal", "kindred")):
                words |= {w.lower() for w in parts[-1].split()}
        v = cls(frozenset(words))
        for t in tokens:
            v.tokens.setdefault(_token_key(t), dict(t))
        return v

    def token_name(self, token: dict[str, Any]) -> str:
        """The name of the token with these characteristics: a known one's, or a new
        token's (its creature types; with its P/T, colors and keywords where another
        token already has that name)."""
        key = _token_key(token)
        if key in self.tokens:
            return str(self.tokens[key]["name"])
        name = " ".join(token["subtypes"]) or "Token"
        if any(t["name"] == name for t in self.tokens.values()):
            colors = "".join(token["colors"]) or "C"
            name = f"{name} {token['power']}/{token['toughness']} {colors}"
            if token["keywords"]:
                name += " " + " ".join(token["keywords"])
        self.tokens[key] = {"name": name, **token}
        return name


def _token_key(t: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        tuple(sorted(t.get("types", []))),
        tuple(t.get("subtypes", [])),
        tuple(sorted(t.get("colors") or [])),
        t.get("power"),
        t.get("toughness"),
        tuple(sorted(t.get("keywords", []))),
    )


def _parse(start: str, text: str, vocab: Vocabulary) -> tuple[Any, ToData]:
    tree = parser().parse(text, start=start)
    to = ToData(vocab.subtypes)
    try:
        return to.transform(tree), to
    except VisitError as e:
        # A template the transformer refuses is unsupported; any other error is a bug in
        # the transformer and is raised as itself, never reported as a card's problem.
        raise e.orig_exc from None


def _fix_ops(ops: list[dict[str, Any]], vocab: Vocabulary, tokens: list[dict[str, Any]]) -> None:
    """What the grammar leaves to the card: token characteristics to token names,
    "you gain life equal to the life lost this way" to the amount lost, "it can't be
    regenerated" to the destruction before it, and "if that spell is countered this way,
    exile it instead" to the counter before it."""
    for i, op in enumerate(ops):
        ((name, args),) = op.items()
        if name in NESTED:
            for f in NESTED[name]:
                if f in args:
                    _fix_ops(args[f], vocab, tokens)
        elif name == "create_token" and isinstance(args["token"], dict):
            tok = args["token"]
            args["token"] = vocab.token_name(tok)
            entry = vocab.tokens[_token_key(tok)]
            if entry not in tokens:
                tokens.append(entry)
        elif name == "take_initiative":
            for tok in UNDERCITY_TOKENS:
                vocab.token_name(dict(tok))
                entry = vocab.tokens[_token_key(tok)]
                if entry not in tokens:
                    tokens.append(entry)
        elif name == "no_regen":
            before = ops[i - 1] if i else None
            if before is None or "destroy" not in before:
                raise Unsupported("'can't be regenerated' after no destruction")
            before["destroy"]["regenerate"] = False
        elif name == "countered_exile":
            before = ops[i - 1] if i else None
            if before is None or "counter" not in before:
                raise Unsupported("'if that spell is countered this way' after no counter")
            before["counter"]["exile"] = True
        elif name == "gain_life_equal":
            before = ops[i - 1] if i else None
            if before is None or "lose_life" not in before:
                raise Unsupported("life gained equal to life lost, after no life lost")
            ops[i] = {"gain_life": {"amount": before["lose_life"]["amount"], "who": "you"}}
    ops[:] = [op for op in ops if "no_regen" not in op and "countered_exile" not in op]


def _link_exiles(abilities: list[dict[str, Any]]) -> bool:
    """Linked abilities (607.2a): where a "When ~ leaves the battlefield, return the exiled
    card ..." ability names the card its "When ~ enters, exile target ..." ability exiled,
    that exile is one the permanent remembers (`exile_linked`). False if there is no such
    exile to link to."""
    if not any("return_linked" in op for a in abilities for op in _ability_ops(a)):
        return True
    exiles = [
        (op, a["triggered"].get("targets", []))
        for a in abilities
        if a.get("triggered", {}).get("event") == "enters"
        for op in a["triggered"]["effects"]
        if "exile" in op
    ]
    if len(exiles) != 1:
        return False
    op, targets = exiles[0]
    kinds = [t if isinstance(t, str) else t.get("kind") for t in targets]
    if kinds not in (["creature"], ["land"], ["artifact"]):
        # An exiled Aura would return attached to what its owner chooses (303.4f), which
        # the engine can't ask as it returns: no enchantment (or "permanent").
        return False
    op["exile_linked"] = {"what": op.pop("exile")["what"]}
    return True


def _ability_ops(a: dict[str, Any]) -> list[dict[str, Any]]:
    ((_, data),) = a.items()
    return list(data.get("effects", [])) if isinstance(data, dict) else []


def _try(starts: Iterable[str], text: str, vocab: Vocabulary) -> tuple[str, Any, ToData]:
    last: UnexpectedInput | None = None
    for start in starts:
        try:
            out, to = _parse(start, text, vocab)
            return start, out, to
        except UnexpectedInput as e:
            last = e
    assert last is not None
    raise last


def _spell_problem(lines: list[str], name: str, vocab: Vocabulary) -> Problem:
    """The first sentence of a spell's text that does not parse alone."""
    for line in lines:
        for s in sentences_of(line):
            try:
                _parse("spell", normalize(s, name), vocab)
            except UnexpectedInput:
                return Problem(normalize(s, name), "no template reads this sentence")
            except Unsupported as e:
                return Problem(normalize(s, name), str(e))
    text = normalize(" ".join(lines), name)
    return Problem(text, "the sentences do not read together")


def compile_card(card: OracleCard, vocab: Vocabulary) -> Compiled:
    """One card to its entry, or its problems (every line that does not compile)."""
    parser()  # built outside every `try`: a grammar error is raised, never a card's problem
    out = Compiled(card)
    try:
        sup, types, subtypes = parse_type_line(card.type_line)
    except Unsupported as e:
        out.problems.append(Problem(card.type_line, str(e)))
        out.lines.append(("type line", False))
        return out
    entry: dict[str, Any] = {"name": card.name}
    if card.mana_cost:
        try:
            parse_mana_cost(card.mana_cost)
        except ValueError as e:
            out.problems.append(Problem(card.mana_cost, f"the mana cost: {e}"))
            out.lines.append(("mana cost", False))
            return out
        entry["cost"] = card.mana_cost
    entry["types"] = types
    if subtypes:
        entry["subtypes"] = subtypes
    if sup:
        entry["supertypes"] = sup
    for key, val in (("power", card.power), ("toughness", card.toughness)):
        if val is not None and "creature" in types:
            if not re.fullmatch(r"\d+", val):
                out.problems.append(Problem(f"{key} {val}", "a power or toughness not a number"))
                out.lines.append(("power and toughness", False))
                return out
            entry[key] = int(val)
    is_spell = bool({"instant", "sorcery"} & set(types))
    keywords: list[str] = []
    abilities: list[dict[str, Any]] = []
    spell_lines: list[str] = []
    modes: list[dict[str, Any]] = []
    one_or_both = False
    lines = strip_reminders(card.text).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.lower().startswith("enchant "):
            # What an Aura can enchant is a target filter (CR 303.4a): the target grammar.
            norm = normalize(line, card.name)
            try:
                entry["enchant"] = _parse("enchant", norm, vocab)[0]
                out.lines.append(("enchant", True))
            except (UnexpectedInput, Unsupported) as e:
                out.problems.append(_problem(line, card.name, e))
                out.lines.append(("enchant", False))
            continue
        m = _ALTERNATIVE_COST.fullmatch(line)
        if m and (sac := sacrifice_cost(m.group(1))) is not None:
            # CR 118.9: a card field, how the spell may be cast (not an ability).
            entry["alternative_cost"] = sac
            out.lines.append(("alternative cost", True))
            continue
        m = _ADDITIONAL_COST.fullmatch(line)
        if m:
            # CR 601.2b: a card field, paid as the spell is cast (not an ability).
            give = m.group(1).lower()
            entry["additional_cost"] = (
                {"discard": 1}
                if give == "discard a card"
                else {"sacrifice": give.removeprefix("sacrifice ").split(" ", 1)[1].split(" or ")}
            )
            out.lines.append(("additional cost", True))
            continue
        if line.startswith("This spell costs {") and " less to cast if you control " in line:
            # CR 601.2f: a card field the cost of casting it reads, not an ability.
            try:
                entry["costs_less"] = _parse("costs_less", normalize(line, card.name), vocab)[0]
                out.lines.append(("cost reduction", True))
            except (UnexpectedInput, Unsupported) as e:
                out.problems.append(_problem(line, card.name, e))
                out.lines.append(("cost reduction", False))
            continue
        kl = keyword_line(line)
        if kl is not None:
            kws, fields = kl
            keywords += kws
            if "backup" in entry:
                # 702.165a: the abilities printed below Backup are the ones it grants.
                entry["backup"].setdefault("keywords", []).extend(kws)
            if "equip" in fields:
                abilities.append(_equip(fields.pop("equip")))
            if fields.get("job_select"):
                # Its token, by the name the ability's op gives it.
                hero = {
                    "types": ["creature"],
                    "subtypes": ["Hero"],
                    "colors": [],
                    "power": 1,
                    "toughness": 1,
                    "keywords": [],
                }
                if vocab.token_name(hero) != "Hero":
                    out.problems.append(Problem(line, "job select beside another Hero token"))
                    out.lines.append(("keywords", False))
                    continue
                tok = vocab.tokens[_token_key(hero)]
                if tok not in out.tokens:
                    out.tokens.append(tok)
            if "fabricate" in fields:
                # 702.123a: its Servo token, by the name the vocabulary gives it.
                servo = {
                    "types": ["artifact", "creature"],
                    "subtypes": ["Servo"],
                    "colors": [],
                    "power": 1,
                    "toughness": 1,
                    "keywords": [],
                }
                fields["fabricate"]["token"] = vocab.token_name(servo)
                tok = vocab.tokens[_token_key(servo)]
                if tok not in out.tokens:
                    out.tokens.append(tok)
            if "cycling" in fields:
                abilities.append(_cycling(fields.pop("cycling")))
            if "landcycling" in fields:
                abilities.append(_cycling(fields.pop("landcycling"), BASIC_LANDCYCLING))
            if "typecycling" in fields:
                land_type, cost = fields.pop("typecycling")
                abilities.append(_cycling(cost, typecycling(land_type)))
            if fields.pop("prowess", False):
                abilities.append(_prowess())
            entry.update(fields)
            out.lines.append(("keywords", True))
            continue
        if line.lower().startswith("choose ") and i < len(lines) and lines[i].startswith("•"):
            # "Choose one —", and "Choose one or both —" of two modes (CR 700.2d: "both"
            # is a third mode, the two together); "choose two" is reported, not misread.
            bullets = []
            while i < len(lines) and lines[i].startswith("•"):
                bullets.append(lines[i].lstrip("• ").strip())
                i += 1
            choose = line.rstrip(" —-")
            both = choose == "Choose one or both" and len(bullets) == 2
            if not is_spell or len(bullets) < 2 or not (choose == "Choose one" or both):
                out.problems.append(Problem(normalize(line, card.name), "a modal ability"))
                out.lines.append(("modal", False))
                continue
            one_or_both = both
            before = len(out.problems)
            for b in bullets:
                try:
                    mode, _ = _parse("spell", normalize(b, card.name), vocab)
                    _fix_ops(mode["effects"], vocab, out.tokens)
                    modes.append({"text": b, **mode})
                except (UnexpectedInput, Unsupported) as e:
                    out.problems.append(_problem(b, card.name, e))
            out.lines.append(("modal", len(out.problems) == before))
            continue
        if is_spell:
            spell_lines.append(line)
            continue
        norm = normalize(line, card.name)
        if "backup" in entry:
            # Backup grants the abilities below it; only keywords are read so far.
            out.problems.append(Problem(norm, "backup granting an ability that is not a keyword"))
            out.lines.append(("backup", False))
            continue
        # An ability word without rules of its own (207.2c) heading a triggered ability
        # ("Alliance — Whenever ..."): kept for the text, the trigger read without it.
        word = _FLAVOR_WORD.match(norm)
        if word is not None and word.group(1).lower() not in _RULES_WORDS:
            norm = norm[word.end() :]
        else:
            word = None
        kind = _starts(norm)[0]
        try:
            start, data, _ = _try(_starts(norm), norm, vocab)
            if start in ("activated", "triggered"):
                _fix_ops(data["effects"], vocab, out.tokens)
            if word is not None:
                if start != "triggered":
                    raise Unsupported(f"the ability word {word.group(1)} heading a {start} ability")
                data["word"] = word.group(1)
            if start == "activated" and data["cost"] == "{0}":
                # Activations without end (CR 605.3 allows them) would outgrow every
                # observation table: a fuzz of the compiled pool stacked 49 of one.
                raise Unsupported("an ability that costs nothing, activated without end")
        except UnexpectedInput:
            out.problems.append(_first_problem(line, card.name))
            out.lines.append((kind, False))
            continue
        except Unsupported as e:
            out.problems.append(Problem(norm, str(e)))
            out.lines.append((kind, False))
            continue
        if start == "static" and "card" in data:
            entry.update(data["card"])  # a card field ("enters tapped"), not an ability
        elif start == "static" and "statics" in data:
            # One line, two static abilities ("... during your turn. Otherwise, ...").
            abilities += [{"static": s} for s in data["statics"]]
        elif start == "triggered" and data["event"] in (ENTERS_OR_TO_GRAVEYARD, ENTERS_OR_LEAVES):
            # One line, two triggered abilities (603.6a, 603.6c): the text view joins them.
            second = "to_graveyard" if data["event"] == ENTERS_OR_TO_GRAVEYARD else "leaves"
            for event in ("enters", second):
                abilities.append({start: {**copy.deepcopy(data), "event": event}})
        else:
            abilities.append({start: data})
        out.lines.append((start, True))
    if is_spell:
        if modes and spell_lines:
            out.problems.append(
                Problem(
                    normalize(spell_lines[0], card.name), "a modal spell with text beside its modes"
                )
            )
            out.lines.append(("spell", False))
        elif modes or any(kind == "modal" for kind, _ in out.lines):
            if modes:
                entry["spell"] = {"modes": modes}
                if one_or_both:
                    entry["spell"]["one_or_both"] = True
        else:
            text = normalize(" ".join(spell_lines), card.name)
            try:
                spell, _ = _parse("spell", text, vocab)
                _fix_ops(spell["effects"], vocab, out.tokens)
                entry["spell"] = spell
                out.lines.append(("spell", True))
            except UnexpectedInput:
                out.problems.append(_spell_problem(spell_lines, card.name, vocab))
                out.lines.append(("spell", False))
            except Unsupported as e:
                out.problems.append(Problem(text, str(e)))
                out.lines.append(("spell", False))
    if keywords:
        entry["keywords"] = keywords
    if abilities:
        entry["abilities"] = abilities
    entry["text"] = card.text
    if not out.problems and not _link_exiles(abilities):
        out.problems.append(
            Problem(
                normalize(card.text, card.name),
                "'the exiled card' of no exiled creature, land or artifact (an exiled Aura's "
                "return, 303.4f)",
            )
        )
    if out.problems:
        return out
    try:
        parse_card_set(
            {"set": "compiled", "tokens": list(out.tokens), "cards": [entry]}, "<compiled>"
        )
    except CardDataError as e:
        msg = str(e).split(": ", 2)[-1]
        out.problems.append(Problem(normalize(card.text, card.name), f"the vocabulary: {msg}"))
        out.lines.append(("card", False))
        return out
    out.entry = entry
    return out


# "Alliance — " before "When", "Whenever" or "At": an ability word (CR 207.2c).
_FLAVOR_WORD: Final = re.compile(
    r"([A-Z][A-Za-z']*(?: [A-Za-z']+){0,3}) — (?=(?:When|Whenever|At) )"
)
# Ability words the grammar reads with their rules (conditions, landfall's event).
_RULES_WORDS: Final = frozenset({"metalcraft", "threshold", "hellbent", "delirium", "landfall"})


def _starts(norm: str) -> list[str]:
    # An ability word (CR 207.2c) heads the ability it names: the ability is what follows.
    norm = re.sub(r"^(metalcraft|threshold|hellbent) — ", "", norm.lower())
    if re.match(r"(\{t\}|\{t\} , sacrifice ~|sacrifice ~) : add ", norm):
        return ["mana", "activated"]
    if norm.startswith(("when ", "whenever ", "at ", "landfall — ")):
        return ["triggered"]
    if re.match(r"^[^.]*? : ", norm):
        return ["activated"]
    return ["static"]


def _prowess() -> dict[str, Any]:
    """Prowess (CR 702.108a): whenever you cast a noncreature spell, this creature gets
    +1/+1 until end of turn."""
    return {
        "triggered": {
            "event": "cast_noncreature",
            "effects": [{"pump": {"what": "self", "power": 1, "toughness": 1}}],
        }
    }


def _cycling(cost: str, effect: dict[str, Any] | None = None) -> dict[str, Any]:
    """Cycling [cost] (CR 702.29a): "[Cost], Discard this card: Draw a card", activated
    only from the hand; basic landcycling (702.29e) searches for a basic land instead."""
    return {
        "activated": {
            "cost": cost,
            "discard_self": True,
            "effects": [effect or {"draw": {"count": 1, "who": "you"}}],
        }
    }


def _equip(cost: str) -> dict[str, Any]:
    return {
        "activated": {
            "cost": cost,
            "timing": "sorcery",
            "targets": [{"kind": "creature", "controller": "you"}],
            "effects": [{"attach": {"to": "target"}}],
        }
    }


def _problem(line: str, name: str, e: Exception) -> Problem:
    norm = normalize(line, name)
    if isinstance(e, Unsupported):
        return Problem(norm, str(e))
    return Problem(norm, "no template reads this sentence")


def _first_problem(line: str, name: str) -> Problem:
    """A permanent's line that does not parse: the line, and the kind of ability it
    reads as."""
    norm = normalize(line, name)
    kind = _starts(norm)[0]
    what = {
        "mana": "mana ability",
        "activated": "activated ability",
        "triggered": "triggered ability",
        "static": "static ability",
    }[kind]
    return Problem(norm, f"no template reads this {what}")


# --------------------------------------------------------------------------- comparing

_NOT_RULES = frozenset({"text", "set_name", "index"})


def rules_of(value: Any) -> Any:
    """A compiled card (`engine.cards.CardDef`) as plain nested tuples of everything the
    rules read: two cards play identically when these are equal. Texts (for people and
    the log) and the card's place in its set are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple(
                (f.name, rules_of(getattr(value, f.name)))
                for f in dataclasses.fields(value)
                if f.name not in _NOT_RULES
            ),
        )
    if isinstance(value, (frozenset, set)):
        return ("set", tuple(sorted((rules_of(v) for v in value), key=repr)))
    if isinstance(value, (list, tuple)):
        return tuple(rules_of(v) for v in value)
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, rules_of(v)) for k, v in value.items())))
    return value
