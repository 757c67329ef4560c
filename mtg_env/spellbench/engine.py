"""The environment role of `spellbench/v2` (the spec's Sections 2-4, 8 and 9): our engine as
a process a Spellbench host drives with `hello`, `reset` and `step`, one NDJSON request line
in, one response line out (`serve`, `mtg-env spellbench engine`).

What it does:

- strict reading (`wire.parse_line`) and strict requests: every field present, none
  unknown, each of its type; the error codes of Section 9.8;
- request ids and the retransmission cache: the same request again (same id, same
  canonical payload) gets the cached response with no side effect, the same id with
  another payload `request_id_reuse_mismatch`; a request refused as malformed is never
  cached (Section 4.1);
- `validate_deck` (optional, Section 9.6): `deck_ok` or the deck's error, no game;
- `hello` with minor-version negotiation (this engine speaks minor 0);
- `reset` with decks from the format's catalog (our decks under their names) or as
  decklists of Oracle names (a name the card set lacks is `unsupported_deck`); London
  mulligans or none; the host's starting seat; the caps `max_decisions` (groups) and
  `max_steps` (single decisions), reaching either a `truncated` terminal;
- `step` validated in the spec's order (Section 9.4), answered with the next `decision`
  or a `terminal`;
- seat decisions (Section 9.3) with the observation of `observation.Observer` and the
  candidates of `candidates`: priority, targets, modes, X, mulligans and the bottom
  block, and attacks and blocks as fixed groups, one `declare_attack` per creature that
  can attack and one `declare_block` per creature that can block, each `declare_block`
  candidate keeping the declaration completable (menace: `combat.menace_completable`
  over the blockers still to come). A seat with two or more triggers to put on the stack
  orders them (`order_pick`, purpose `triggers`, one fixed group, the last position
  implied); the engine then puts them on in that order, each one's targets chosen as it
  goes on. Combat damage is assigned by the engine and mana paid by it (`engine_autopay`).
- discards (to hand size, or by an effect) as fixed `select_object` groups, purpose
  `discard`; a resolving spell's "you may", "unless ... pays", basic land type, entering
  as a copy and of what, and a text change's words (`candidates`);
- the legend rule as `select_object`, purpose `legend_rule`;
- scry and surveil as the fixed arrangement of 2n - 1 decisions (Section 7.5), the cards
  looked at in `known` with ids fresh for this look;
- a decision this role cannot pose (none of our cards asks one today; docs/spellbench.md)
  ends the game `halted` with a reason `engine_contract_failure: ...`, never a partial
  decision.

Randomness: every stream is seeded from the game secret (`ids.stream_seed`), so a rerun
with the same secret and the same answers is the same game. Each seat's hidden zones have
streams of their own, by purpose (`<seat>:library_shuffle`, its library shuffles;
`<seat>:hand_random`, random picks from its hand), so that no stream feeds both seats'
hidden zones (Section 11.6); the rest (none of it hidden) comes from `shared:game`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any, BinaryIO

from ..engine import Action, Game, load_cards, load_decks
from ..engine import combat as cb
from ..engine.cards import TriggeredAbility
from ..engine.constants import (
    D_ATTACKERS,
    D_BLOCKERS,
    D_CHOICE,
    D_DISCARD,
    D_PRIORITY,
    D_TRIGGER_ORDER,
    HAND,
    LIBRARY,
    PASS,
)
from ..engine.decisions import CleanupDiscard, Resolving
from ..engine.rng import PURPOSES
from . import ids
from .candidates import (
    Unsupported,
    attack_candidates,
    potential_attackers,
    resolving_source,
    seat_candidates,
)
from .observation import OBSERVATION_FLAGS, Observer
from .wire import PROTOCOL, ProtocolError, canonical, error_response, parse_line, read_line

MINOR = 0
FORMATS = ("core", "classic")  # the formats whose cards are real cards (docs/spellbench.md)
SEATS = ("p0", "p1")
DECISION_KINDS = (
    "pass",
    "play_land",
    "cast_spell",
    "activate_ability",
    "choose_target",
    "choose_spell_mode",
    "choose_number",
    "mulligan",
    "order_pick",
    "declare_attack",
    "declare_block",
    "select_object",
    "choose_boolean",
    "choose_option",
    "choose_name",
    "arrange_card",
    "optional_cost",
)
ENGINE_DEFAULTS = {
    "trigger_order": None,
    "replacement_order": "engine_order",
    "combat_damage_assignment": "engine_order",
    "mana_payment": "engine_autopay",
}
_HEX64 = re.compile(r"[0-9a-f]{64}")
ENVELOPE: dict[str, type] = {"request_type": str, "protocol": str, "request_id": str}
Candidate = tuple[dict[str, Any], str, Any]  # (semantic, display text, what answering does)


def _stream(secret: bytes, owner: str, purpose: str) -> int:
    """A random stream's 64-bit seed: the first 8 bytes of its HMAC (Section 11.6)."""
    return int.from_bytes(ids.stream_seed(secret, owner, purpose)[:8], "big")


def _version() -> str:
    try:
        return version("mtg-env")
    except PackageNotFoundError:  # pragma: no cover - a source tree without an install
        return "0"


class Refused(Exception):
    """A request answered with an `error` (`code` one of Section 9.8's)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _fields(msg: dict[str, Any], want: dict[str, type | tuple[type, ...]], what: str) -> None:
    """Exactly the fields of `want`, each of its type (strict reading, Section 4.2)."""
    extra = sorted(set(msg) - set(want))
    if extra:
        raise Refused("malformed_request", f"{what}: unknown field {extra[0]!r}")
    for k, t in want.items():
        if k not in msg:
            raise Refused("malformed_request", f"{what}: missing field {k!r}")
        v = msg[k]
        if not isinstance(v, t) or (t is int and isinstance(v, bool)):
            raise Refused("malformed_request", f"{what}: field {k!r} has the wrong type")


class Group:
    """A fixed-size group in progress (Section 8): attacks or blocks, one creature each, a
    discard to hand size, one card each (`creatures` empty), an arrangement, or the order
    of a seat's triggers."""

    def __init__(self, kind: str, seat: int, creatures: list[int], size: int = -1) -> None:
        self.kind = kind
        self.seat = seat
        self.creatures = creatures
        self.size = len(creatures) if size < 0 else size
        self.index = 0
        self.source: dict[str, Any] | None = None  # the resolving spell, if any
        # An arrangement (scry, surveil): its verb, destinations and each card's.
        self.verb = ""
        self.away = ""
        self.dest: dict[int, str] = {}
        self.order: list[int] = []
        # Ordering triggers: the seat's waiting triggers (engine order) and those placed.
        self.triggers: list[Any] = []
        self.placed: list[Any] = []


class EngineSession:
    """One engine process: its negotiated minor, its cache and at most one game."""

    def __init__(self, fmt: str, probe: bool = False) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format {fmt!r}: the engine role plays {', '.join(FORMATS)}")
        self.format = fmt
        # The noninterference probe (Section 9.7), reserved in v2.0: a test engine only.
        self.probe = probe
        self.probe_game = False
        self.cards = load_cards(fmt)
        self.catalog = {name: deck.cards for name, deck in load_decks(fmt).items()}
        self.cache: dict[str, tuple[bytes, dict[str, Any]]] = {}
        self.secret = b""
        self.games_seen: set[str] = set()
        self.game: Game | None = None
        self.game_id = ""
        self.terminal = False
        self.provenance = {
            "engine_name": "mtg_env",
            "engine_version": _version(),
            "rules_snapshot_id": f"mtg_env/{_version()}/{fmt}",
            "card_pool_identity": ids.domain_id(sorted(self.cards.cards)),
        }

    # ------------------------------------------------------------------ requests

    def answer(self, line: bytes) -> dict[str, Any]:
        """The response to one request line."""
        try:
            msg = parse_line(line)
        except ProtocolError as e:
            return error_response("", e.code, e.message)
        rid = msg.get("request_id")
        if not isinstance(rid, str) or not rid:
            return error_response("", "malformed_request", "no request_id string")
        protocol = msg.get("protocol")
        if not isinstance(protocol, str):
            return error_response(rid, "malformed_request", "no protocol string")
        if protocol != PROTOCOL:
            return error_response(rid, "protocol_mismatch", f"protocol {protocol!r}")
        payload = canonical(msg)
        cached = self.cache.get(rid)
        if cached is not None:
            if cached[0] != payload:
                return error_response(
                    rid, "request_id_reuse_mismatch", "this request_id came with another payload"
                )
            return cached[1]
        handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self.hello,
            "reset": self.reset,
            "step": self.step,
            "validate_deck": self.validate_deck,
        }
        kind = msg.get("request_type")
        try:
            if kind == "probe_resample" and not self.probe:
                raise Refused("unsupported_request", f"{kind} is not implemented")
            if kind == "probe_resample":
                handlers[kind] = self.probe_resample
            if not isinstance(kind, str) or kind not in handlers:
                raise Refused("malformed_request", f"unknown request_type {kind!r}")
            response = {
                "protocol": PROTOCOL,
                "request_id": rid,
                **handlers[kind](msg),
            }
        except Refused as e:
            response = error_response(rid, e.code, str(e))
            if e.code == "malformed_request":
                # Section 4.1: a request that fails parsing (its schema read strictly,
                # 4.2) is never cached: the same id may come again with a valid payload.
                return response
        self.cache[rid] = (payload, response)
        return response

    def hello(self, msg: dict[str, Any]) -> dict[str, Any]:
        _fields(
            msg,
            {**ENVELOPE, "protocol_minor": int},
            "hello",
        )
        if msg["protocol_minor"] < 0:
            raise Refused("malformed_request", "hello: protocol_minor is negative")
        catalog = [
            {"catalog_id": name, "name": name, "decklist": _rows(cards)}
            for name, cards in self.catalog.items()
        ]
        return {
            "response_type": "hello_ok",
            "protocol_minor": min(MINOR, msg["protocol_minor"]),
            "engine": {
                "name": "mtg_env",
                "version": _version(),
                "source_revision": None,
                "rules_snapshot_id": self.provenance["rules_snapshot_id"],
                "card_pool_identity": self.provenance["card_pool_identity"],
            },
            "formats": [self.format],
            "deck_sources": ["catalog", "decklist"],
            "catalog": catalog,
            "rules_supported": {
                "mulligan": ["london", "none"],
                "starting_player": ["host_assigned"],
            },
            "observation": dict(OBSERVATION_FLAGS),
            "decision_kinds": list(DECISION_KINDS),
            "engine_defaults": dict(ENGINE_DEFAULTS),
            "rewind": False,
            "fairness": {"noninterference_probe": self.probe},
            "extensions": [],
        }

    def reset(self, msg: dict[str, Any]) -> dict[str, Any]:
        _fields(
            msg,
            {
                **ENVELOPE,
                "game_id": str,
                "format": str,
                "seats": list,
                "rules": dict,
                "game_secret": str,
                "max_decisions": int,
                "max_steps": int,
            },
            "reset",
        )
        if self.game is not None and not self.terminal:
            raise Refused("game_already_active", f"game {self.game_id} is active")
        if msg["game_id"] in self.games_seen or not msg["game_id"]:
            raise Refused("malformed_request", f"reset: game_id {msg['game_id']!r} was used")
        if msg["format"] != self.format:
            raise Refused(
                "unsupported_format", f"format {msg['format']!r} (this engine plays {self.format})"
            )
        if not _HEX64.fullmatch(msg["game_secret"]):
            raise Refused("malformed_request", "reset: game_secret is not 64 lowercase hex digits")
        for cap in ("max_decisions", "max_steps"):
            if msg[cap] < 0:
                raise Refused("malformed_request", f"reset: {cap} is negative")
        rules = msg["rules"]
        _fields(
            rules,
            {
                "opponent_decklist": str,
                "mulligan": str,
                "starting_player": str,
                # A seat, or null where the toss winner chooses (Section 12.2).
                "starting_seat": (str, type(None)),
                "card_name_domain": dict,
                "extensions": list,
                "probe": bool,
            },
            "reset.rules",
        )
        if rules["opponent_decklist"] not in ("visible", "hidden"):
            raise Refused("malformed_request", "reset.rules: opponent_decklist")
        if rules["mulligan"] not in ("london", "none"):
            raise Refused("unsupported_rule", f"mulligan {rules['mulligan']!r}")
        if rules["starting_player"] != "host_assigned":
            # Section 9.2: a rule outside `rules_supported` (toss_winner_chooses, whose
            # starting_seat is null) is unsupported, not malformed.
            raise Refused("unsupported_rule", f"starting_player {rules['starting_player']!r}")
        if rules["starting_seat"] not in SEATS:
            raise Refused("malformed_request", "reset.rules: starting_seat is not a seat")
        if rules["extensions"]:
            raise Refused("unsupported_rule", "this engine emits no extensions")
        if rules["probe"] and not self.probe:
            raise Refused("unsupported_rule", "this engine has no noninterference probe")
        decks = self._decks(msg["seats"])
        secret = bytes.fromhex(msg["game_secret"])
        self.games_seen.add(msg["game_id"])
        game = Game.new(
            decks=decks,
            seed=_stream(secret, "shared", "game"),
            format=self.format,
            first_player=SEATS.index(rules["starting_seat"]),
            mulligans=rules["mulligan"] == "london",
            # Each seat's hidden zones from streams of their own (Section 11.6).
            seat_seeds=[[_stream(secret, seat, p) for p in PURPOSES] for seat in SEATS],
        )
        self._start(game, msg["game_id"], secret, (msg["max_decisions"], msg["max_steps"]))
        self.probe_game = rules["probe"]
        self.secret = secret
        return self._next()

    def _start(self, game: Game, game_id: str, secret: bytes, caps: tuple[int, int]) -> None:
        self.game = game
        self.game_id = game_id
        self.observer = Observer(secret)
        self.terminal = False
        self.caps = caps
        self.steps = 0  # answered decisions, both seats (the binding `step`)
        self.seat_steps = [0, 0]
        self.groups = [0, 0]  # completed groups per seat
        self.group: Group | None = None
        # The order a completed trigger-order group chose, given to the engine one pick
        # at a time as it asks (`_next`).
        self.trigger_plan: list[Any] = []
        self.pending: list[Candidate] = []

    @classmethod
    def pose(cls, g: Game, secret: bytes) -> dict[str, Any] | None:
        """The seat decision this role would pose for `g`'s pending decision (the first of
        a group), as if the game had reached it through the protocol; None where the role
        would first answer something itself (an empty declaration) or the game is over.
        For the information-leak checker (`mtg_env.testing`)."""
        session = cls(g.format)
        game = g.clone()
        before = game.state_hash()
        session._start(game, "g-0", secret, (1 << 53, 1 << 53))
        resp = session._next()
        if resp["response_type"] != "decision" or game.state_hash() != before:
            return None
        return dict(resp["seat_decision"])

    def step(self, msg: dict[str, Any]) -> dict[str, Any]:
        _fields(
            msg,
            {
                **ENVELOPE,
                "game_id": str,
                "expected_step": int,
                "selection": dict,
            },
            "step",
        )
        _fields(msg["selection"], {"candidate_id": int, "semantic_echo": dict}, "step.selection")
        self._check_game(msg)
        if msg["expected_step"] != self.steps:
            raise Refused("expected_step_mismatch", f"the pending decision is step {self.steps}")
        i = msg["selection"]["candidate_id"]
        if not 0 <= i < len(self.pending):
            raise Refused("candidate_id_out_of_range", f"candidate {i} of {len(self.pending)}")
        semantic, _, answer = self.pending[i]
        if canonical(msg["selection"]["semantic_echo"]) != canonical(semantic):
            raise Refused("semantic_echo_mismatch", f"candidate {i} is not the echoed one")
        try:
            self._answer(answer)
            return self._next()
        except Exception as e:  # noqa: BLE001 - a rules bug halts the game, never a partial decision
            return self._terminal("halted", f"engine_contract_failure: {type(e).__name__}")

    def _check_game(self, msg: dict[str, Any]) -> Game:
        """A request about the game: one is reset, it is this one, and it is not over."""
        if self.game is None:
            raise Refused("step_before_reset", "no game has been reset")
        if msg["game_id"] != self.game_id:
            raise Refused("game_id_mismatch", f"the game is {self.game_id}")
        if self.terminal:
            raise Refused("game_already_terminal", f"game {self.game_id} is over")
        return self.game

    def probe_resample(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The noninterference probe (Section 9.7): the pending seat decision rebuilt in
        `samples` copies of the game whose hidden part is re-dealt (`resample_hidden`:
        the other seat's hand from its unseen cards, both library orders). The real game
        does not change."""
        _fields(
            msg,
            {
                **ENVELOPE,
                "game_id": str,
                "samples": int,
            },
            "probe_resample",
        )
        real = self._check_game(msg)
        if not self.probe_game:
            raise Refused("probe_refused", "the game was not reset with rules.probe: true")
        if not 0 <= msg["samples"] <= 64:
            raise Refused("malformed_request", "probe_resample: samples outside 0-64")
        pending = self.pending
        seat = real.current_player
        assert seat is not None
        priority = real.decision is not None and real.decision.kind == D_PRIORITY
        worlds = []
        try:
            for i in range(msg["samples"]):
                seed = int.from_bytes(ids.stream_seed(self.secret, "shared", "probe", i)[:8], "big")
                self.game = real.resample_hidden(seat, seed)
                self.pending = self._candidates(self.game, seat)
                worlds.append(self._decision(self.game, seat, priority)["seat_decision"])
        finally:
            self.game, self.pending = real, pending
        return {"response_type": "probe_result", "game_id": self.game_id, "worlds": worlds}

    # ------------------------------------------------------------------ the game

    def validate_deck(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Section 9.6 (optional): whether a deck, `{catalog_id}` or `{decklist}`, plays in
        this engine's format, checked as `reset` checks a seat's deck; no game changes."""
        _fields(msg, {**ENVELOPE, "format": str, "deck": dict}, "validate_deck")
        if msg["format"] != self.format:
            raise Refused(
                "unsupported_format", f"format {msg['format']!r} (this engine plays {self.format})"
            )
        deck = msg["deck"]
        if set(deck) == {"catalog_id"}:
            _fields(deck, {"catalog_id": str}, "validate_deck.deck")
            if deck["catalog_id"] not in self.catalog:
                raise Refused("unsupported_deck", f"no catalog deck {deck['catalog_id']!r}")
        elif set(deck) == {"decklist"}:
            _fields(deck, {"decklist": list}, "validate_deck.deck")
            self._decklist(deck["decklist"])
        else:
            raise Refused(
                "malformed_request", "validate_deck: a deck is {catalog_id} or {decklist}"
            )
        return {"response_type": "deck_ok"}

    def _decks(self, seats: list[Any]) -> tuple[list[str], list[str]]:
        if len(seats) != 2:
            raise Refused("malformed_request", "reset: seats lists p0 then p1")
        out: list[list[str]] = []
        for want, entry in zip(SEATS, seats, strict=True):
            if not isinstance(entry, dict):
                raise Refused("malformed_request", "reset: a seat is not an object")
            _fields(entry, {"seat": str, "deck": dict}, "reset.seats")
            if entry["seat"] != want:
                raise Refused("malformed_request", "reset: seats lists p0 then p1")
            deck = entry["deck"]
            if set(deck) == {"deck_id", "catalog_id"}:
                _fields(deck, {"deck_id": str, "catalog_id": str}, "reset.deck")
                cards = self.catalog.get(deck["catalog_id"])
                if cards is None:
                    raise Refused("unsupported_deck", f"no catalog deck {deck['catalog_id']!r}")
                out.append(list(cards))
            elif set(deck) == {"deck_id", "decklist"}:
                _fields(deck, {"deck_id": str, "decklist": list}, "reset.deck")
                out.append(self._decklist(deck["decklist"]))
            else:
                raise Refused(
                    "malformed_request",
                    "reset: a deck is {deck_id, catalog_id} or {deck_id, decklist}",
                )
        return out[0], out[1]

    def _decklist(self, rows: list[Any]) -> list[str]:
        names: list[str] = []
        missing: list[str] = []
        for row in rows:
            if not isinstance(row, dict):
                raise Refused("malformed_request", "reset: a decklist row is not an object")
            _fields(row, {"name": str, "count": int}, "reset.decklist")
            if row["count"] < 1:
                raise Refused("malformed_request", "reset: a decklist count is below 1")
            if row["name"] not in self.cards.cards:
                missing.append(row["name"])
            names += [row["name"]] * row["count"]
        if missing:
            raise Refused(
                "unsupported_deck", f"cards this engine does not have: {', '.join(missing)}"
            )
        if not names:
            raise Refused("unsupported_deck", "an empty decklist")
        return names

    def _answer(self, answer: Any) -> None:
        """Carry out the chosen candidate: an engine action, or a group's step."""
        g = self.game
        assert g is not None
        seat = g.current_player
        assert seat is not None
        self.steps += 1
        self.seat_steps[seat] += 1
        group = self.group
        if group is None:
            g.apply(answer)
            self.groups[seat] += 1
            return
        if group.kind in ("attack", "discard") and answer is not None:
            g.apply(answer)
        elif group.kind == "arrange":
            card, dest = answer
            if group.index < len(group.creatures):
                group.dest[card] = dest
            else:
                group.order.append(card)
        elif group.kind == "block" and answer is not None:
            blocker, attacker = answer
            g.apply(_find(g, lambda a: a.obj == blocker))
            g.apply(_find(g, lambda a: a.obj == attacker))
        elif group.kind == "triggers":
            group.placed.append(answer)
        group.index += 1
        if group.index == group.size:
            if group.kind == "arrange":
                self._arranged(g, group)
            elif group.kind == "triggers":
                # The last position is implied (Section 7.5); `_next` gives the engine the
                # picks as it asks for them, each trigger's targets chosen as it goes on.
                last = [t for t in group.triggers if not _among(t, group.placed)]
                self.trigger_plan = group.placed + last
            elif group.kind != "discard":  # "done": the declaration is complete
                g.apply(_find(g, lambda a: a.kind == PASS))
            self.groups[seat] += 1
            self.group = None

    def _next(self) -> dict[str, Any]:
        """The next decision, or the terminal."""
        g = self.game
        assert g is not None
        while True:
            if g.is_over:
                return self._terminal("natural")
            if sum(self.groups) >= self.caps[0] or self.steps >= self.caps[1]:
                return self._terminal("truncated", "decision_cap")
            d = g.decision
            assert d is not None
            seat = d.player
            if self.group is None and d.kind == D_TRIGGER_ORDER:
                mine = _own_triggers(g, seat)
                plan = [t for t in self.trigger_plan if _among(t, mine)]
                self.trigger_plan = plan
                if plan and all(_among(t, plan) for t in mine):
                    # The group chose this order: the engine puts the next one now.
                    g.apply(_find(g, partial(_is_answer, _position(plan[0], mine))))
                    continue
                self.group = Group("triggers", seat, [], len(mine) - 1)
                self.group.triggers = mine
            if self.group is None and d.kind == D_ATTACKERS:
                self.group = Group("attack", seat, potential_attackers(g))
            elif self.group is None and d.kind == D_BLOCKERS:
                self.group = Group("block", seat, cb.blocker_choices(g))
            elif self.group is None and d.kind == D_DISCARD:
                try:
                    self.group = self._discard_group(g, seat)
                except Unsupported as e:
                    return self._terminal("halted", f"engine_contract_failure: {e}")
            elif self.group is None and _looking(g):
                self.group = self._arrangement(g, seat)
            if self.group is not None and self.group.size == 0:
                g.apply(_find(g, lambda a: a.kind == PASS))
                self.groups[seat] += 1
                self.group = None
                continue
            try:
                self.pending = self._candidates(g, seat)
            except Unsupported as e:
                return self._terminal("halted", f"engine_contract_failure: {e}")
            return self._decision(g, seat, d.kind == D_PRIORITY)

    def _candidates(self, g: Game, seat: int) -> list[Candidate]:
        group = self.group
        if group is None:
            return list(seat_candidates(g, seat, self.observer))
        if group.kind == "discard":
            return self._discard_candidates(g, seat, group)
        if group.kind == "arrange":
            return self._arrange_candidates(g, seat, group)
        if group.kind == "triggers":
            return self._trigger_candidates(g, seat, group)
        creature = group.creatures[group.index]
        if group.kind == "attack":
            return list(attack_candidates(g, seat, self.observer, creature))
        return self._block_candidates(g, seat, creature, group.creatures[group.index + 1 :])

    def _trigger_candidates(self, g: Game, seat: int, group: Group) -> list[Candidate]:
        """The next of the seat's triggers to put on the stack (`order_pick`, purpose
        `triggers`: position 0 goes on the stack first and resolves last, CR 603.3b), among
        those not placed yet, in the engine's order (the order they triggered)."""
        d = g.decision
        assert d is not None and d.kind == D_TRIGGER_ORDER
        mine = _own_triggers(g, seat)
        n = len(group.triggers)
        out: list[Candidate] = []
        for i, t in enumerate(group.triggers):
            if _among(t, group.placed):
                continue
            label = d.options[_position(t, mine)]  # "<card>: <its ability's text>"
            same = [x for x in group.triggers[:i] if _same_trigger(x, t)]
            source = self._trigger_source(g, seat, t.cid)
            item = {
                "source": source,
                "source_name": g.cdef[t.cid].name,
                "ability_index": _triggered_index(g, t),
                "event_objects": self._event_objects(g, seat, t, source),
                "instance": len(same),
                "label": label,
            }
            semantic = {
                "kind": "order_pick",
                "source": None,
                "purpose": "triggers",
                "item": {"trigger": item},
                "position": group.index,
                "count": n,
            }
            out.append((semantic, f"Put on the stack next: {label}", t))
        return out

    def _event_objects(
        self, g: Game, seat: int, t: Any, source: dict[str, Any] | None
    ) -> list[dict[str, Any]]:
        """The objects of the trigger's event where the seat sees them: the source itself
        for the events about it (it entered, died, attacked, blocked or was blocked, dealt
        damage, became a target), and the spell or ability that targeted it while on the
        stack. The spell whose casting triggered prowess is not recorded: left out."""
        out = [] if source is None or t.ability.event not in SELF_EVENTS else [source]
        oid = t.info.get("item")
        if oid is not None:
            out += [self.observer.stack_ref(g, seat, it) for it in g.stack if it.oid == oid]
        return out

    def _trigger_source(self, g: Game, seat: int, cid: int) -> dict[str, Any] | None:
        """The trigger's source where the seat sees it (Section 7.3), else null."""
        zone = g.zone[cid]
        if zone == LIBRARY or (zone == HAND and g.owner[cid] != seat):
            return None
        return self.observer.ref(g, seat, cid)

    def _arrangement(self, g: Game, seat: int) -> Group:
        """Scry or surveil n cards: one fixed group of 2n - 1 decisions (Section 7.5), n
        `arrange_card` (top card first) then n - 1 `order_pick`; the engine gets the whole
        arrangement at its end (`_arranged`)."""
        assert g.res is not None and g.decision is not None
        cards = list(g.res.vars["look"])
        group = Group("arrange", seat, cards, 2 * len(cards) - 1)
        group.verb = g.decision.prompt.split(":")[0]
        group.away = "bottom" if group.verb == "scry" else "graveyard"
        group.source = resolving_source(g, seat, self.observer)
        return group

    def _look_id(self, g: Game) -> int:
        assert g.res is not None
        return int(g.res.item.oid)

    def _arrange_candidates(self, g: Game, seat: int, group: Group) -> list[Candidate]:
        look = self._look_id(g)
        n = len(group.creatures)
        out: list[Candidate] = []
        if group.index < n:
            card = group.creatures[group.index]
            ref = self.observer.look_ref(g, seat, card, look)
            for dest in ("top", group.away):
                semantic = {
                    "kind": "arrange_card",
                    "purpose": group.verb,
                    "source": group.source,
                    "card": ref,
                    "card_index": group.index,
                    "card_count": n,
                    "destination": dest,
                }
                where = "on top" if dest == "top" else f"to the {dest}"
                out.append((semantic, f"{g.cdef[card].name} {where}", (card, dest)))
            return out
        # Ordering: destination by destination; the unplaced cards of the first one left,
        # by name then id (cards in a hidden zone, Section 7.1).
        for dest in ("top", group.away):
            left = [c for c in group.creatures if group.dest[c] == dest and c not in group.order]
            if left:
                break
        refs = sorted(
            ((self.observer.look_ref(g, seat, c, look), c) for c in left),
            key=lambda rc: (rc[0]["card_name"], rc[0]["object_id"]),
        )
        for ref, c in refs:
            semantic = {
                "kind": "order_pick",
                "purpose": "arrangement",
                "source": group.source,
                "item": {"object": ref},
                "position": group.index - n,
                "count": n,
            }
            out.append((semantic, f"Next: {g.cdef[c].name} ({dest})", (c, dest)))
        return out

    def _arranged(self, g: Game, group: Group) -> None:
        """Give the engine the arrangement, one card at a time: it puts a card placed on
        top just below the cards still looked at, one placed on the bottom under the
        library, so the top cards go deepest first and the others in their order."""
        last = [c for c in group.creatures if c not in group.order]
        order = group.order + last  # the implied final pick
        top = [c for c in order if group.dest[c] == "top"]
        away = [c for c in order if group.dest[c] != "top"]
        for c in [*reversed(top), *away]:
            assert g.res is not None
            looking = list(g.res.vars["look"])
            ans = 2 * looking.index(c) + (0 if group.dest[c] == "top" else 1)
            g.apply(_find(g, partial(_is_answer, ans)))

    def _discard_group(self, g: Game, seat: int) -> Group:
        """Discarding to hand size (CR 514.1), or the cards an effect makes a player
        discard: a fixed selection of as many cards as must go, one per decision."""
        if isinstance(g.ctx, CleanupDiscard):
            group = Group("discard", seat, [], len(g.hand[seat]) - (g.rules.max_hand or 0))
        elif g.res is None:  # a spell's additional cost (pauper cards only): not posed yet
            raise Unsupported(f"the discard decision ({type(g.ctx).__name__}) is not posed yet")
        else:
            assert g.res is not None
            group = Group("discard", seat, [], g.res.vars["discard"][1])
            group.source = resolving_source(g, seat, self.observer)
        return group

    def _discard_candidates(self, g: Game, seat: int, group: Group) -> list[Candidate]:
        """One more card of a fixed discard (a `select_object` group, purpose discard)."""
        out: list[Candidate] = []
        for a in g.legal_actions():
            semantic = {
                "kind": "select_object",
                "source": group.source,
                "purpose": "discard",
                "choice": {"object": self.observer.ref(g, seat, a.obj)},
                "selected_count": group.index,
                "minimum": group.size,
                "maximum": group.size,
            }
            out.append((semantic, f"Discard {g.cdef[a.obj].name}", a))
        return out

    def _block_candidates(
        self, g: Game, seat: int, blocker: int, later: list[int]
    ) -> list[Candidate]:
        """`blocker` does not block, or blocks one attacker, wherever the blockers still to
        come can complete the declaration (a menace attacker needs a second blocker)."""
        ref = self.observer.ref(g, seat, blocker)
        name = g.cdef[blocker].name
        out: list[Candidate] = []
        if cb.menace_completable(g, g.blockers, later):
            semantic = {"kind": "declare_block", "blocker": ref, "attacker": None}
            out.append((semantic, f"{name} does not block", None))
        for a in g.attackers:
            if cb.block_problem(g, blocker, a) is None and cb.menace_completable(
                g, {**g.blockers, blocker: a}, later
            ):
                semantic = {
                    "kind": "declare_block",
                    "blocker": ref,
                    "attacker": self.observer.ref(g, seat, a),
                }
                out.append((semantic, f"{name} blocks {g.cdef[a].name}", (blocker, a)))
        if not out:  # pragma: no cover - the engine offered this blocker: a rules bug
            raise Unsupported(f"no legal block for {name}")
        return out

    def _decision(self, g: Game, seat: int, priority: bool) -> dict[str, Any]:
        group = self.group
        if group is None:
            info = {"group_id": self.groups[seat], "substep_index": 0, "substep_count": 1}
        else:
            count = group.size
            info = {
                "group_id": self.groups[seat],
                "substep_index": group.index,
                "substep_count": count,
            }
        semantics = [c[0] for c in self.pending]
        context = {
            "kind": "priority" if priority else "choice",
            "source": _shared(semantics, "source"),
            "purpose": _shared(semantics, "purpose"),
            "text": g.decision.prompt if g.decision is not None and g.decision.prompt else None,
            "rewind": False,
        }
        candidates = [
            {"candidate_id": i, "semantic": s, "display_text": t}
            for i, (s, t, _) in enumerate(self.pending)
        ]
        return {
            "response_type": "decision",
            "game_id": self.game_id,
            "step": self.steps,
            "seat_decision": {
                "acting_seat": SEATS[seat],
                "seat_step": self.seat_steps[seat],
                "group": info,
                "context": context,
                "observation": self.observer.observe(g, seat, self._known(g, seat)),
                "candidates": candidates,
                "extensions": {},
            },
            "provenance": dict(self.provenance),
        }

    def _known(self, g: Game, seat: int) -> list[dict[str, Any]]:
        group = self.group
        if group is None or group.kind != "arrange":
            return []
        return self.observer.looked_at(g, seat, group.creatures, self._look_id(g))

    def _terminal(self, classification: str, why: str = "") -> dict[str, Any]:
        g = self.game
        assert g is not None
        self.terminal = True
        winner: str | None = None
        if classification == "natural":
            if g.winner is None:
                outcome, reason = "draw", "draw"
            else:
                winner = SEATS[g.winner]
                loser = 1 - g.winner
                outcome = f"{winner}_win"
                reason = f"{SEATS[loser]}_{_phrase(str(g.lose_reason[loser]))}"
        else:
            outcome, reason = classification, why
        return {
            "response_type": "terminal",
            "game_id": self.game_id,
            "outcome": outcome,
            "classification": classification,
            "winner": winner,
            "reason": reason,
            "step_count": self.steps,
            "decision_count": sum(self.groups),
            "provenance": dict(self.provenance),
        }


def _phrase(why: str) -> str:
    """A loss's reason as a short snake_case phrase: "life 0 or less (CR 704.5a)" ->
    "life_0_or_less"."""
    text = re.sub(r"\(CR [^)]*\)", "", why)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "lost"


def _rows(cards: tuple[str, ...] | list[str]) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for name in cards:
        counts[name] = counts.get(name, 0) + 1
    return [{"name": n, "count": c} for n, c in sorted(counts.items())]


def _looking(g: Game) -> bool:
    """Whether the pending decision is a card looked at by scry or surveil."""
    ctx, d = g.ctx, g.decision
    return (
        isinstance(ctx, Resolving)
        and ctx.purpose == "look"
        and d is not None
        and (d.kind == D_CHOICE and g.res is not None)
    )


def _is_answer(arg: int, a: Action) -> bool:
    return a.arg == arg


# Trigger events whose object is the trigger's own source (engine.vocab.TRIGGER_EVENTS).
SELF_EVENTS = frozenset(
    (
        "enters", "dies", "attacks", "blocks", "blocked", "blocks_or_blocked", "flanked",
        "damage_to_opponent", "combat_damage_to_player", "targeted",
        "targeted_by_opponent",
    )
)  # fmt: skip


def _own_triggers(g: Game, seat: int) -> list[Any]:
    """The seat's triggers waiting to be put on the stack, as the engine numbers them in
    its trigger-order decision."""
    return [t for t in g.triggers if t.controller == seat]


def _among(t: Any, triggers: list[Any]) -> bool:
    """Whether this very trigger (not an equal one) is in `triggers`."""
    return any(x is t for x in triggers)


def _position(t: Any, triggers: list[Any]) -> int:
    return next(i for i, x in enumerate(triggers) if x is t)


def _same_trigger(a: Any, b: Any) -> bool:
    """Two triggers a seat cannot tell apart: one source, one ability, one event."""
    return a.cid == b.cid and a.ab_index == b.ab_index and a.info == b.info


def _triggered_index(g: Game, t: Any) -> int | None:
    """The ability's index among its card's triggered abilities, in text order (null for
    one another effect gave it)."""
    n = 0
    for ab in g.cdef[t.cid].abilities:
        if ab is t.ability:
            return n
        if isinstance(ab, TriggeredAbility):
            n += 1
    return None


def _find(g: Game, want: Callable[[Action], bool]) -> Action:
    for a in g.legal_actions():
        if want(a):
            return a
    raise RuntimeError("internal error: the engine does not offer the declared move")


def _shared(semantics: list[dict[str, Any]], key: str) -> Any:
    """The value of `key` every candidate shares, or None."""
    values = [s.get(key) for s in semantics]
    if values and all(key in s for s in semantics) and all(v == values[0] for v in values):
        return values[0]
    return None


def serve(fmt: str, stdin: BinaryIO, stdout: BinaryIO, probe: bool = False) -> None:
    """Answer requests until stdin closes (the spec's way to end a process)."""
    session = EngineSession(fmt, probe)
    while True:
        try:
            line = read_line(stdin)
        except ProtocolError as e:
            response = error_response("", e.code, e.message)
        else:
            if line is None:
                return
            if not line.strip():
                continue
            response = session.answer(line)
        out = json.dumps(response, separators=(",", ":"), ensure_ascii=False)
        stdout.write(out.encode("utf-8") + b"\n")
        stdout.flush()
