"""Reading a card database the user provides: MTGJSON's AtomicCards or AllPrintings (v5),
MTGJSON's v3 AllSets, or Scryfall's bulk "oracle cards"; `.json` or `.json.gz`.

Every way the file can be wrong (missing, not gzip, not JSON, too large, not one of those
schemas, an entry without a field the compiler needs) is one `InputFileError` line naming
the file, and the entry and field where there is one. The database is read whole, so a
bad entry stops the command before anything is written.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..io import InputFileError, parse_json, read_bytes
from .compiler import OracleCard

# AllPrintings is about 500 MB of JSON; a file past this is refused before it is parsed.
MAX_DATABASE_BYTES: Final = 1024 * 1024 * 1024

# Layouts that are not cards a deck holds (tokens, emblems, planes, schemes, ...): left
# out of the pool and of every count.
NOT_CARDS: Final = frozenset(
    {
        "token",
        "double_faced_token",
        "emblem",
        "art_series",
        "planar",
        "scheme",
        "vanguard",
        "reversible_card",
    }
)
# Layouts of one face, which the engine's cards are.
ONE_FACE: Final = frozenset({"normal", "leveler", "class", "saga", "case", "mutate"})
RARITIES: Final = ("common", "uncommon", "rare", "mythic", "special", "bonus")


@dataclass(frozen=True)
class DbCard:
    """One card of a database: its Oracle text, its layout, the sets it was printed in,
    whether it was printed on paper, and its rarities on paper (empty where the database
    has none: AtomicCards; then `common` is read from its Pauper legality, which a card
    has exactly when it was printed at common)."""

    card: OracleCard
    layout: str
    sets: tuple[str, ...]
    paper: bool
    rarities: frozenset[str]
    common: bool
    funny: bool = False


def read_database(path: str | Path) -> tuple[str, list[DbCard]]:
    """The database's kind and its cards (one record per card name)."""
    raw = _load(Path(path))
    if isinstance(raw, dict) and isinstance(raw.get("data"), dict) and "meta" in raw:
        data = raw["data"]
        first = next(iter(data.values()), None)
        if isinstance(first, list):
            return "mtgjson-atomic", list(_atomic(path, data))
        if isinstance(first, dict) and "cards" in first:
            return "mtgjson-allprintings", _by_name(_printings(path, data, v3=False))
        raise InputFileError(f"{path}: an MTGJSON file, but not AtomicCards or AllPrintings")
    if isinstance(raw, list) and raw and isinstance(raw[0], dict) and raw[0].get("object"):
        return "scryfall", _by_name(_scryfall(path, raw))
    if (
        isinstance(raw, dict)
        and raw
        and all(isinstance(v, dict) and isinstance(v.get("cards"), list) for v in raw.values())
    ):
        return "mtgjson-v3", _by_name(_printings(path, raw, v3=True))
    raise InputFileError(
        f"{path}: not a card database this command reads (MTGJSON AtomicCards, "
        "AllPrintings or v3 AllSets, or Scryfall's oracle cards)"
    )


def _load(path: Path) -> Any:
    data = read_bytes(path, "card database", MAX_DATABASE_BYTES)
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
                data = f.read(MAX_DATABASE_BYTES + 1)
        except (OSError, EOFError, zlib.error) as e:
            raise InputFileError(f"{path}: not a readable gzip file ({e})") from None
        if len(data) > MAX_DATABASE_BYTES:
            raise InputFileError(
                f"{path}: more than {MAX_DATABASE_BYTES:,} bytes once unpacked (nothing was read)"
            )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return parse_json(text, path, "card database")


def _field(path: str | Path, where: str, entry: Any, key: str, kind: type = str) -> Any:
    if not isinstance(entry, dict):
        raise InputFileError(f"{path}: {where}: not a mapping")
    if key not in entry:
        raise InputFileError(f"{path}: {where}: field {key!r} is missing")
    v = entry[key]
    if not isinstance(v, kind):
        raise InputFileError(f"{path}: {where}: field {key!r} is not a {kind.__name__}")
    return v


def _opt(path: str | Path, where: str, entry: dict[str, Any], key: str) -> str | None:
    v = entry.get(key)
    if v is not None and not isinstance(v, str):
        raise InputFileError(f"{path}: {where}: field {key!r} is not a string")
    return v


def _atomic(path: str | Path, data: dict[str, Any]) -> Iterator[DbCard]:
    for name, faces in data.items():
        where = f"data[{name!r}]"
        if not isinstance(faces, list) or not faces:
            raise InputFileError(f"{path}: {where}: not a list of faces")
        face = faces[0]
        layout = _field(path, f"{where}[0]", face, "layout")
        if layout in NOT_CARDS:
            continue
        legal = face.get("legalities") or {}
        printings = face.get("printings") or []
        yield DbCard(
            card=OracleCard(
                name=name,
                type_line=_field(path, f"{where}[0]", face, "type"),
                text=_opt(path, f"{where}[0]", face, "text") or "",
                mana_cost=_opt(path, f"{where}[0]", face, "manaCost"),
                power=_opt(path, f"{where}[0]", face, "power"),
                toughness=_opt(path, f"{where}[0]", face, "toughness"),
            ),
            layout=layout if len(faces) == 1 else f"{layout} ({len(faces)} faces)",
            sets=tuple(str(s) for s in printings),
            # AtomicCards says no more than this about paper: a card with a paper
            # legality was printed on paper (digital-only cards have none).
            paper=not face.get("isOnlineOnly", False),
            rarities=frozenset(),
            common="pauper" in legal,
            funny=bool(face.get("isFunny", False)),
        )


def _printings(
    path: str | Path, sets: dict[str, Any], v3: bool
) -> Iterator[tuple[str, dict[str, Any]]]:
    for code, s in sets.items():
        cards = _field(path, f"{code}", s, "cards", list)
        for i, c in enumerate(cards):
            where = f"{code}.cards[{i}]"
            _field(path, where, c, "name")
            yield code, {**c, "_where": f"{path}: {where}"}


def _rarity(r: str) -> str:
    r = r.lower()
    return "mythic" if r.startswith("mythic") else ("common" if r == "basic land" else r)


def _by_name(rows: Iterator[tuple[str, dict[str, Any]]]) -> list[DbCard]:
    """Printings to cards: one record per name, the sets and paper rarities of all its
    printings."""
    first: dict[str, dict[str, Any]] = {}
    sets: dict[str, list[str]] = {}
    rar: dict[str, set[str]] = {}
    paper: dict[str, bool] = {}
    for code, c in rows:
        name = c["name"]
        if name not in first:
            first[name] = c
            sets[name] = []
            rar[name] = set()
            paper[name] = False
        if code not in sets[name]:
            sets[name].append(code)
        on_paper = _on_paper(c)
        paper[name] |= on_paper
        if on_paper and isinstance(c.get("rarity"), str):
            rar[name].add(_rarity(c["rarity"]))
    out = []
    for name, c in first.items():
        layout = str(c.get("layout", "normal"))
        if layout in NOT_CARDS:
            continue
        where = c["_where"]
        type_line = c.get("type") if "type" in c else c.get("type_line")
        if not isinstance(type_line, str):
            raise InputFileError(f"{where}: field 'type' is missing")
        faces = c.get("card_faces") or c.get("names") or []
        out.append(
            DbCard(
                card=OracleCard(
                    name=name,
                    type_line=type_line,
                    text=c.get("text") or c.get("oracle_text") or "",
                    mana_cost=c.get("manaCost") or c.get("mana_cost") or None,
                    power=_str_or_none(c.get("power")),
                    toughness=_str_or_none(c.get("toughness")),
                ),
                layout=layout if len(faces) <= 1 else f"{layout} ({len(faces)} faces)",
                sets=tuple(sets[name]),
                paper=paper[name],
                rarities=frozenset(rar[name]),
                common="common" in rar[name],
                funny=bool(c.get("isFunny", False)),
            )
        )
    return out


def _str_or_none(v: Any) -> str | None:
    return None if v is None else str(v)


def _on_paper(c: dict[str, Any]) -> bool:
    if "games" in c:  # Scryfall
        return "paper" in (c.get("games") or [])
    if "availability" in c:  # MTGJSON v5
        return "paper" in (c.get("availability") or [])
    return not c.get("isOnlineOnly", False)  # MTGJSON v3: every printing is on paper


def _scryfall(path: str | Path, cards: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for i, c in enumerate(cards):
        where = f"[{i}]"
        if not isinstance(c, dict) or c.get("object") != "card":
            raise InputFileError(f"{path}: {where}: not a card object")
        _field(path, where, c, "name")
        code = str(c.get("set", "")).upper()
        yield code, {**c, "_where": f"{path}: {where}"}
