"""A small `spellbench/v2` host (the spec's Section 11): one engine process and two agent
processes over NDJSON, for the project's tests and for users who want to see a match on
their machine (`mtg-env spellbench host`).

What it does, per the spec:

- preflight (11.1): `hello` to the engine and both agents; the agents' `requires` checked
  against the engine's declarations; decks resolved through the engine's catalog, each
  with its `deck_id` (Section 4.3);
- per game (seat-swapped pairs: entry A holds p0 in even games and p1 in odd ones): the
  run's game secret, game id and agent seeds (11.6), `reset`, `game_start` to both agents,
  then for each engine `decision`: the live validation of the seat decision (11.3: V1-V6
  and V8 through `validate.check_observation`, V3's counters, candidates dense, distinct,
  `pass` first, each kind declared), `choose` to the acting seat's agent with the
  canonical seat decision, the `choice` checked (candidate in range, optional echoes
  equal), and `step` to the engine;
- clocks and limits (11.4): each decision's wall time against `max_decision_ms` and the
  seat's bank (with its increment), each engine response against `engine_step_ms`; a
  seat's decisions per turn, completed groups and answered decisions per game against
  their caps (each per-game cap under half the game's), and at a cap the stalling rule
  over the last 250 decisions (`stall_verdict`): the seat with more real choices forfeits
  (`forfeit:stalling`), or, when neither made one, a `mandatory_loop` draw;
- adjudication (11.5): a seat that times out, answers what cannot be read, picks an
  invalid candidate, answers an error or dies forfeits (`forfeit:<cause>`); an engine
  that errs, stalls, dies or fails validation halts the game (`halted`, with
  `host_validator:<rule>` for a violation) and is restarted;
- the per-game digest chain (11.8) over the engine traffic;
- `game_over` to both agents with the seat's step count.

Each game is a record (`GameRecord`) with the fields `mtg-env evaluate` writes for a game
(agent, opponent, seat, decks, score, turns, decisions) and the protocol's own (game id,
outcome, classification, reason, digest). Not built: resource enforcement (reserved in
v2.0) and the run manifest.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from . import ids
from .validate import check_observation
from .wire import PROTOCOL, ProtocolError, canonical, parse_line

SEATS = ("p0", "p1")
TIME_CONTROL = {
    "startup_ms": 120_000,
    "game_start_ms": 60_000,
    "bank_ms": 600_000,
    "increment_ms": 2_000,
    "max_decision_ms": 60_000,
    "engine_step_ms": 120_000,
}
LIMITS = {
    "max_decisions": 10_000,
    "max_steps": 100_000,
    "max_seat_decisions_per_turn": 500,
    "max_seat_decisions_per_game": 4_999,
    "max_seat_steps_per_game": 49_999,
}
RESOURCES = {"cpus": 1, "memory_mb": 4096, "gpu": False, "engine_cpus": 1}
VALIDATOR_VERSION = "mtg_env-live-validator/2.0"
# The stalling rule's trailing window: the last decisions answered by either seat.
STALL_WINDOW = 250
# A seat's caps and the game cap each must stay under half of (Section 11.4): two seats
# within their caps never run a game into a truncation together.
SEAT_CAPS = (
    ("max_seat_decisions_per_game", "max_decisions"),
    ("max_seat_steps_per_game", "max_steps"),
)
# What `game_start.engine_profile` copies from the engine's `hello_ok` (Section 10.2).
PROFILE = (
    "rules_supported",
    "observation",
    "decision_kinds",
    "engine_defaults",
    "rewind",
    "fairness",
    "extensions",
)


def default_rules() -> dict[str, Any]:
    """The information rules (Section 12.2) this host's games use: decklists visible,
    London mulligans, `p0` first, no card-name domain, extensions or probe."""
    return {
        "opponent_decklist": "visible",
        "mulligan": "london",
        "starting_player": "host_assigned",
        "starting_seat": "p0",
        "card_name_domain": {"domain_id": ids.domain_id([]), "names": []},
        "extensions": [],
        "probe": False,
    }


class HostError(RuntimeError):
    """A configuration error found at preflight: the run does not start."""


class Dead(Exception):
    """A process that timed out, closed its output or wrote something unreadable."""

    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(detail)
        self.cause = cause  # timeout, transport_error or malformed_response


class Peer:
    """A child process speaking NDJSON: one request line, one response line."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self.proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # diagnostics only, never forwarded (Section 2)
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.n = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def request(self, kind: str, timeout_ms: int, **fields: Any) -> tuple[dict[str, Any], float]:
        """Send one request; its response and the wall time it took (ms)."""
        rid = f"r-{self.n}"
        self.n += 1
        msg = {"request_type": kind, "protocol": PROTOCOL, "request_id": rid, **fields}
        start = time.monotonic()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(canonical(msg) + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise Dead("transport_error", f"cannot write: {e}") from None
        try:
            line = self.lines.get(timeout=timeout_ms / 1000)
        except queue.Empty:
            raise Dead("timeout", f"no answer in {timeout_ms} ms") from None
        ms = (time.monotonic() - start) * 1000
        if line is None:
            raise Dead("transport_error", "the process closed its output")
        try:
            resp = parse_line(line)
        except ProtocolError as e:
            raise Dead("malformed_response", e.message) from None
        if resp.get("request_id") != rid:
            raise Dead("malformed_response", "the response answers another request")
        return resp, ms

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # closing stdin ends the process (Section 2)
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


@dataclass
class GameRecord:
    """One game of a host run, from entry A's side (`agent`), as `mtg-env evaluate` writes
    a game, with the protocol's ending and the game's digest."""

    index: int
    game_id: str
    agent: str
    opponent: str
    seat_agent: int
    deck_agent: str
    deck_opponent: str
    score: float  # entry A's: 1 win, 0.5 draw, 0 loss; None-like -1 for unrated games
    outcome: str
    classification: str
    winner: str | None
    reason: str
    steps: int
    turns: int
    digest: str
    seat_steps: list[int] = field(default_factory=lambda: [0, 0])
    # Milliseconds each seat's bot took to answer its decisions, and the game's wall time.
    seat_ms: list[float] = field(default_factory=lambda: [0.0, 0.0])
    seconds: float = 0.0

    @property
    def rated(self) -> bool:
        return self.classification in ("natural", "forfeit")

    def row(self) -> dict[str, Any]:
        return asdict(self)


class Host:
    """A run: an engine command, two agent commands (entries A and B), decks by catalog
    id, a run secret."""

    def __init__(
        self,
        engine: Sequence[str],
        agents: tuple[Sequence[str], Sequence[str]],
        run_secret: bytes,
        fmt: str,
        time_control: dict[str, int] | None = None,
        limits: dict[str, int] | None = None,
    ) -> None:
        self.engine_cmd = list(engine)
        self.agent_cmds = (list(agents[0]), list(agents[1]))
        self.run_secret = run_secret
        self.format = fmt
        self.tc = {**TIME_CONTROL, **(time_control or {})}
        self.limits = {**LIMITS, **(limits or {})}
        for seat_cap, game_cap in SEAT_CAPS:
            if not 2 * self.limits[seat_cap] < self.limits[game_cap]:
                raise HostError(
                    f"limits: {seat_cap} ({self.limits[seat_cap]}) must be below half of "
                    f"{game_cap} ({self.limits[game_cap]})"
                )
        self.engine: Peer | None = None
        self.hello: dict[str, Any] = {}
        self.names = ["A", "B"]
        # The live validator's record for the run manifest (Section 11.3).
        self.decisions_checked = 0
        self.violations: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ preflight

    def _start_engine(self) -> None:
        self.engine = Peer(self.engine_cmd)
        try:
            hello, _ = self.engine.request("hello", self.tc["startup_ms"], protocol_minor=0)
        except Dead as e:
            raise HostError(f"the engine did not answer hello: {e}") from None
        if hello.get("response_type") != "hello_ok":
            raise HostError(f"the engine answered hello with {hello.get('response_type')!r}")
        if self.format not in hello.get("formats", []):
            raise HostError(f"the engine does not play {self.format!r}")
        self.hello = hello

    def _start_agent(self, entry: int) -> Peer:
        peer = Peer(self.agent_cmds[entry])
        try:
            hello, _ = peer.request("hello", self.tc["startup_ms"], protocol_minor=0)
        except Dead as e:
            raise HostError(f"agent {'AB'[entry]} did not answer hello: {e}") from None
        bot = hello.get("bot") or {}
        if hello.get("response_type") != "hello_ok" or not bot.get("name"):
            raise HostError(f"agent {'AB'[entry]} answered hello without a bot name")
        requires = hello.get("requires") or {}
        flags = self.hello["observation"]
        missing = [f for f in requires.get("observation", []) if not flags.get(f)]
        if missing or requires.get("extensions"):
            raise HostError(
                f"agent {'AB'[entry]} requires what the engine does not give: {missing}"
            )
        self.names[entry] = f"{bot['name']}/{bot.get('version', '?')}"
        return peer

    def decks(self) -> dict[str, list[dict[str, Any]]]:
        """The engine's catalog: deck name -> decklist."""
        return {d["catalog_id"]: d["decklist"] for d in self.hello["catalog"]}

    def manifest(self, run_secret: bytes) -> dict[str, Any]:
        """The run manifest's record of a finished run: its commitment and the secret it
        reveals (Section 11.6), the engine and bots, the information rules in the wire's
        shape with the engine facts that affect play (Section 12.2), the clocks, limits and
        declared resources (Section 11.4), and the live validator's verdict (Section
        11.3)."""
        hello = self.hello
        return {
            "protocol": PROTOCOL,
            "run_commitment": ids.commitment(run_secret),
            "run_secret": run_secret.hex(),
            "engine": hello.get("engine"),
            "bots": list(self.names),
            "information_rules": {
                "rules": default_rules(),
                "engine_defaults": hello.get("engine_defaults"),
                "observation": hello.get("observation"),
                "native_id_extensions": [],
                # The probe is never run in a rated game (Section 16): declaring it is not
                # passing it.
                "fairness_label": "validator only",
            },
            "time_control": dict(self.tc),
            "limits": dict(self.limits),
            "resources": dict(RESOURCES),
            "validator": {
                "version": VALIDATOR_VERSION,
                "verdict": "fail" if self.violations else "pass",
                "decisions_checked": self.decisions_checked,
                "violations": list(self.violations),
            },
            "status": "invalid" if self.violations else "valid",
        }

    # ------------------------------------------------------------------ a run

    def run(self, pairs: Sequence[tuple[str, str]]) -> list[GameRecord]:
        """Two games per deck pair, seats swapped: (A's deck, B's deck)."""
        if self.engine is None or self.engine.proc.poll() is not None:
            self._start_engine()
        catalog = self.decks()
        for a, b in pairs:
            for d in (a, b):
                if d not in catalog:
                    raise HostError(f"deck {d!r} is not in the engine's catalog")
        out = []
        try:
            for k, (a, b) in enumerate(pairs):
                for swap in (0, 1):
                    out.append(self.game(2 * k + swap, swap, a, b))
        finally:
            if self.engine is not None:
                self.engine.close()
        return out

    def game(self, index: int, a_seat: int, deck_a: str, deck_b: str) -> GameRecord:
        """Game `index` of the run: A in seat `a_seat` with `deck_a`, B with `deck_b`."""
        start = time.perf_counter()
        record = self._game(index, a_seat, deck_a, deck_b)
        record.seconds = round(time.perf_counter() - start, 3)
        return record

    def _game(self, index: int, a_seat: int, deck_a: str, deck_b: str) -> GameRecord:
        if self.engine is None or self.engine.proc.poll() is not None:
            self._start_engine()
        assert self.engine is not None
        catalog = self.decks()
        entries = [0, 1] if a_seat == 0 else [1, 0]  # entries[seat]: A (0) or B (1)
        deck_of = {0: deck_a, 1: deck_b}
        secret = ids.game_secret(self.run_secret, index)
        gid = ids.game_id(self.run_secret, index)
        seat_decks = [
            {"deck_id": ids.deck_id(catalog[deck_of[e]]), "catalog_id": deck_of[e]} for e in entries
        ]
        rules = default_rules()
        reset = {
            "game_id": gid,
            "format": self.format,
            "seats": [{"seat": SEATS[s], "deck": seat_decks[s]} for s in (0, 1)],
            "rules": rules,
            "game_secret": secret.hex(),
            "max_decisions": self.limits["max_decisions"],
            "max_steps": self.limits["max_steps"],
        }
        digest = ids.GameDigest({"request_type": "reset", "protocol": PROTOCOL, **reset})
        record = GameRecord(
            index=index,
            game_id=gid,
            agent=self.names[0],
            opponent=self.names[1],
            seat_agent=a_seat,
            deck_agent=deck_a,
            deck_opponent=deck_b,
            score=-1.0,
            outcome="",
            classification="",
            winner=None,
            reason="",
            steps=0,
            turns=0,
            digest="",
        )
        agents: list[Peer | None] = [None, None]
        try:
            for s in (0, 1):
                agents[s] = self._start_agent(entries[s])
            record.agent, record.opponent = self.names  # the bots' own names, from hello
            resp = self._engine(digest, "reset", **reset)
            if resp is None:
                return self._end(record, digest, agents, "halted", "engine_fault: reset")
            for s in (0, 1):
                peer = agents[s]
                assert peer is not None
                own, other = (
                    {
                        "deck_id": seat_decks[x]["deck_id"],
                        "name": deck_of[entries[x]],
                        "decklist": catalog[deck_of[entries[x]]],
                    }
                    for x in (s, 1 - s)
                )
                profile = {k: self.hello[k] for k in PROFILE}
                try:
                    ack, _ = peer.request(
                        "game_start",
                        self.tc["game_start_ms"],
                        game_id=gid,
                        seat=SEATS[s],
                        format=self.format,
                        own_deck=own,
                        opponent_deck=other,
                        rules=rules,
                        engine=self.hello["engine"],
                        engine_profile=profile,
                        time_control=self.tc,
                        limits=self.limits,
                        resources=RESOURCES,
                        agent_seed=ids.agent_seed(self.run_secret, index, SEATS[s]),
                    )
                except Dead as e:
                    return self._forfeit(record, digest, agents, s, e.cause)
                if ack.get("response_type") != "ack":
                    return self._forfeit(record, digest, agents, s, "agent_error")
            return self._play(record, digest, agents, resp)
        finally:
            for peer in agents:
                if peer is not None:
                    peer.close()

    def _engine(self, digest: ids.GameDigest, kind: str, **fields: Any) -> dict[str, Any] | None:
        """One engine request, chained into the digest; None when the engine failed."""
        assert self.engine is not None
        try:
            resp, _ = self.engine.request(kind, self.tc["engine_step_ms"], **fields)
        except Dead:
            self.engine.close()
            self.engine = None
            return None
        if kind == "step":
            digest.add({"request_type": kind, "protocol": PROTOCOL, **fields})
        if resp.get("response_type") not in ("decision", "terminal"):
            return None
        digest.add(resp)
        return resp

    def _play(
        self,
        record: GameRecord,
        digest: ids.GameDigest,
        agents: list[Peer | None],
        resp: dict[str, Any],
    ) -> GameRecord:
        banks = [self.tc["bank_ms"], self.tc["bank_ms"]]
        seat_steps = [0, 0]
        seat_groups = [0, 0]  # completed groups (physical decisions) per seat
        turn_steps = [(-1, 0), (-1, 0)]  # per seat: (turn, decisions answered in it)
        window: deque[tuple[int, bool]] = deque(maxlen=STALL_WINDOW)  # (seat, real choice)
        groups: list[tuple[int, int, int] | None] = [None, None]  # (id, index, count)
        open_group: int | None = None  # the seat whose group is partial
        kinds = set(self.hello["decision_kinds"])
        flags = self.hello["observation"]
        provenance = resp.get("provenance")
        while resp["response_type"] == "decision":
            sd: Any = resp.get("seat_decision")
            try:
                seat = SEATS.index(sd["acting_seat"]) if sd["acting_seat"] in SEATS else -1
                problems = [] if seat >= 0 else ["V2: acting_seat is not a seat"]
                if seat >= 0:
                    problems += check_observation(sd["observation"], SEATS[seat], flags)
                    problems += _check_candidates(sd["candidates"], kinds)
                    problems += _check_counters(sd, seat, seat_steps, groups, open_group)
            except (KeyError, TypeError, AttributeError) as e:
                problems = [f"V1: the seat decision lacks {e}"]
            if resp.get("provenance") != provenance:
                problems.append("V10: the engine identity drifted")
            self.decisions_checked += 1
            if problems:
                rule = problems[0].split(":")[0].split(" ")[0]
                self.violations.append({"game_id": record.game_id, "rule": rule})
                record.seat_steps = seat_steps
                return self._end(record, digest, agents, "halted", f"host_validator:{rule}")
            g = sd["group"]
            open_group = seat if g["substep_index"] + 1 < g["substep_count"] else None
            groups[seat] = (g["group_id"], g["substep_index"], g["substep_count"])
            record.turns = max(record.turns, int(sd["observation"]["turn"]))
            peer = agents[seat]
            assert peer is not None
            limit = min(self.tc["max_decision_ms"], banks[seat])
            try:
                choice, ms = peer.request(
                    "choose",
                    limit,
                    game_id=record.game_id,
                    decision=sd,
                    clock={"remaining_ms": banks[seat], "max_decision_ms": limit},
                )
            except Dead as e:
                record.seat_steps = seat_steps
                return self._forfeit(record, digest, agents, seat, e.cause)
            banks[seat] = int(banks[seat] - ms) + self.tc["increment_ms"]
            record.seat_ms[seat] += ms
            pick = _selection(choice, sd)
            if isinstance(pick, str):
                record.seat_steps = seat_steps
                return self._forfeit(record, digest, agents, seat, pick)
            seat_steps[seat] += 1
            semantic = sd["candidates"][pick]["semantic"]
            window.append((seat, semantic["kind"] != "pass" and len(sd["candidates"]) > 1))
            if g["substep_index"] + 1 == g["substep_count"]:
                seat_groups[seat] += 1
            turn = int(sd["observation"]["turn"])
            turn_steps[seat] = (turn, turn_steps[seat][1] + 1 if turn_steps[seat][0] == turn else 1)
            if (
                turn_steps[seat][1] >= self.limits["max_seat_decisions_per_turn"]
                or seat_groups[seat] >= self.limits["max_seat_decisions_per_game"]
                or seat_steps[seat] >= self.limits["max_seat_steps_per_game"]
            ):
                record.seat_steps = seat_steps
                loser = stall_verdict(window, seat)
                if loser is None:
                    return self._draw(record, digest, agents, "mandatory_loop")
                return self._forfeit(record, digest, agents, loser, "stalling")
            nxt = self._engine(
                digest,
                "step",
                game_id=record.game_id,
                expected_step=resp["step"],
                selection={"candidate_id": pick, "semantic_echo": semantic},
            )
            if nxt is None:
                record.seat_steps = seat_steps
                return self._end(record, digest, agents, "halted", "engine_fault: step")
            resp = nxt
        record.seat_steps = seat_steps
        return self._finish(record, agents, resp, digest)

    # ------------------------------------------------------------------ endings

    def _finish(
        self,
        record: GameRecord,
        agents: list[Peer | None],
        terminal: dict[str, Any],
        digest: ids.GameDigest,
    ) -> GameRecord:
        record.outcome = terminal["outcome"]
        record.classification = terminal["classification"]
        record.winner = terminal["winner"]
        record.reason = terminal["reason"]
        record.steps = terminal["step_count"]
        record.digest = digest.value
        record.score = _score(record)
        self._game_over(record, agents)
        return record

    def _end(
        self,
        record: GameRecord,
        digest: ids.GameDigest,
        agents: list[Peer | None],
        classification: str,
        reason: str,
    ) -> GameRecord:
        """A game the host ends itself as an engine halt (the engine is restarted)."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        digest.adjudicate(classification, classification, reason, None)
        terminal = {
            "outcome": classification,
            "classification": classification,
            "winner": None,
            "reason": reason,
            "step_count": sum(record.seat_steps),
        }
        return self._finish(record, agents, terminal, digest)

    def _draw(
        self,
        record: GameRecord,
        digest: ids.GameDigest,
        agents: list[Peer | None],
        reason: str,
    ) -> GameRecord:
        """A draw the host records itself (Section 11.5: a mandatory loop at a cap)."""
        digest.adjudicate("natural", "draw", reason, None)
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        terminal = {
            "outcome": "draw",
            "classification": "natural",
            "winner": None,
            "reason": reason,
            "step_count": sum(record.seat_steps),
        }
        return self._finish(record, agents, terminal, digest)

    def _forfeit(
        self,
        record: GameRecord,
        digest: ids.GameDigest,
        agents: list[Peer | None],
        seat: int,
        cause: str,
    ) -> GameRecord:
        """Seat `seat` loses by forfeit (Section 11.5); the engine's game is discarded."""
        winner = SEATS[1 - seat]
        reason = f"forfeit:{cause}"
        digest.adjudicate("forfeit", f"{winner}_win", reason, winner)
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        terminal = {
            "outcome": f"{winner}_win",
            "classification": "forfeit",
            "winner": winner,
            "reason": reason,
            "step_count": sum(record.seat_steps),
        }
        loser = agents[seat]
        if loser is not None:
            loser.proc.kill()  # it may be stalled: it gets no more time
            loser.close()
            agents[seat] = None  # it gets no game_over: it may be gone
        return self._finish(record, agents, terminal, digest)

    def _game_over(self, record: GameRecord, agents: list[Peer | None]) -> None:
        for s, peer in enumerate(agents):
            if peer is None or peer.proc.poll() is not None:
                continue
            terminal = {
                "outcome": record.outcome,
                "classification": record.classification,
                "winner": record.winner,
                "reason": record.reason,
                "seat_step_count": record.seat_steps[s],
            }
            # The game is decided: an agent that fails to ack changes nothing.
            with contextlib.suppress(Dead):
                peer.request(
                    "game_over", self.tc["game_start_ms"], game_id=record.game_id, terminal=terminal
                )


def stall_verdict(window: Iterable[tuple[int, bool]], capped: int) -> int | None:
    """The stalling rule (Section 11.4), when seat `capped` reaches a cap: over the window
    of the last decisions answered by either seat, the seat with more real choices (a
    selection other than `pass` among two or more candidates) forfeits, the capped seat on
    a tie; None when neither made one (a loop of mandatory actions: a draw, CR 104.4b)."""
    real = [0, 0]
    for seat, is_real in window:
        real[seat] += is_real
    if not any(real):
        return None
    if real[0] == real[1]:
        return capped
    return 0 if real[0] > real[1] else 1


def _score(record: GameRecord) -> float:
    """Entry A's score in a rated game; -1 in a truncated or halted one (not rated)."""
    if not record.rated:
        return -1.0
    if record.winner is None:
        return 0.5
    return 1.0 if SEATS.index(record.winner) == record.seat_agent else 0.0


def _selection(choice: dict[str, Any], sd: dict[str, Any]) -> int | str:
    """The chosen candidate, or the forfeit cause (Section 10.3: lenient reading)."""
    if choice.get("response_type") == "error":
        return "agent_error"
    sel = choice.get("selection")
    if choice.get("response_type") != "choice" or not isinstance(sel, dict):
        return "malformed_response"
    pick = sel.get("candidate_id")
    if not isinstance(pick, int) or isinstance(pick, bool):
        return "malformed_response"
    if not 0 <= pick < len(sd["candidates"]):
        return "invalid_selection"
    if "seat_step" in sel and sel["seat_step"] != sd["seat_step"]:
        return "invalid_selection"
    if "semantic_echo" in sel and sel["semantic_echo"] != sd["candidates"][pick]["semantic"]:
        return "invalid_selection"
    return pick


def _check_candidates(cands: Any, kinds: set[str]) -> list[str]:
    """V1 and V8 for the candidate list (Section 7.1)."""
    if not isinstance(cands, list) or not 0 < len(cands) <= 4096:
        return ["V1: candidates empty, missing or over 4096"]
    out = []
    if [c.get("candidate_id") for c in cands] != list(range(len(cands))):
        out.append("V1: candidate ids are not dense")
    semantics = [canonical(c.get("semantic")) for c in cands]
    if len(set(semantics)) != len(semantics):
        out.append("V1: two candidates with one semantic")
    passes = [i for i, c in enumerate(cands) if c["semantic"].get("kind") == "pass"]
    if passes and passes != [0]:
        out.append("V1: pass is not candidate 0")
    undeclared = {c["semantic"].get("kind") for c in cands} - kinds
    if undeclared:
        out.append(f"V8: undeclared kinds {sorted(map(str, undeclared))}")
    return out


def _check_counters(
    sd: dict[str, Any],
    seat: int,
    seat_steps: list[int],
    groups: list[tuple[int, int, int] | None],
    open_group: int | None,
) -> list[str]:
    """V3: `seat_step` contiguous per seat; a group continues or advances (Section 8); no
    decision for the other seat while a group is partial."""
    out = []
    if sd.get("seat_step") != seat_steps[seat]:
        out.append("V3: seat_step is not contiguous")
    if open_group is not None and open_group != seat:
        out.append("V3: a decision for the other seat while a group is partial")
    g = sd.get("group") or {}
    now = (g.get("group_id"), g.get("substep_index"), g.get("substep_count"))
    last = groups[seat]
    if last is not None and last[1] + 1 < last[2]:
        want: tuple[Any, Any, Any] = (last[0], last[1] + 1, last[2])
        if now != want:
            out.append("V3: a partial group did not continue")
    elif now[1] != 0 or now[0] != (0 if last is None else last[0] + 1):
        out.append("V3: a new group does not start at the next id")
    return out
