"""Deterministic replays: a JSON file that re-simulates a game exactly.

A replay holds the format, the full deck lists, the seed and game options, the agent specs,
the actions as a list of integers (indices of the format's fixed action layout, as the env
uses them) and state hashes every `hash_every` decisions and at the end. `verify` re-plays
it and checks every hash; any mismatch (an edited action, a wrong hash, an unknown version)
is rejected with the decision number and the reason.

    from agents import RandomAgent
    from mtg_env.engine import Game, load_decks
    from mtg_env.env.replay import Recorder, load_replay, verify

    decks = load_decks("classic")
    pair, seed = (decks["Green Stompy"], decks["Red Burn"]), 7
    rec = Recorder(Game.new(pair, seed=seed), pair, seed, agents=["random", "random"])
    agent = RandomAgent(seed=1)
    while not rec.game.is_over:
        rec.apply(agent.choose(rec.game))
    rec.save("game.json")
    verify(load_replay("game.json"))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

from ..engine import Action, Deck, Game, load_cards
from ..io import InputFileError, atomic_write_text, load_json
from .spaces import Layout

VERSION = 1
HASH_EVERY = 10
# `hash_every` for a recording with only the final state hash (training envs).
NO_INTERMEDIATE_HASHES = 10**9


class ReplayError(ValueError):
    """A replay that can't be read or doesn't reproduce (names the decision and why)."""


class DeckModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    cards: list[str] = Field(min_length=1)


class OptionsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mulligans: bool = True
    auto_pass: bool = True
    max_decisions: int | None = None
    first_player: int | None = None


class ReplayModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int
    format: str
    decks: list[DeckModel] = Field(min_length=2, max_length=2)
    seed: int
    options: OptionsModel = OptionsModel()
    agents: list[str] = []
    # Strict: `true`, `"34"` and `34.0` are not action indices (lax parsing made them 1, 34).
    actions: list[StrictInt]
    hash_every: int = Field(default=HASH_EVERY, ge=1)
    hashes: dict[str, str] = {}
    final_hash: str
    result: dict[str, Any] = {}

    @model_validator(mode="after")
    def _hash_keys_are_decisions(self) -> ReplayModel:
        # A key that names no decision would never be compared, yet count as checked.
        n = len(self.actions)
        for k in self.hashes:
            if not (k.isdigit() and 1 <= int(k) <= n):
                raise ValueError(f"hashes: key {k!r} is not a decision number from 1 to {n}")
        return self

    @property
    def hashes_checked(self) -> int:
        """How many state hashes a verification compares: each intermediate one and the
        final one."""
        return len(self.hashes) + 1


_layouts: dict[str, Layout] = {}


def layout_for(fmt: str) -> Layout:
    lay = _layouts.get(fmt)
    if lay is None:
        lay = _layouts[fmt] = Layout(load_cards(fmt))
    return lay


class Recorder:
    """Plays a game while recording it. `apply` takes an engine action and records its
    layout index; equivalent actions (two copies of a card in hand) are canonicalised to
    the one the index stands for, so the recorded integers replay exactly."""

    def __init__(
        self,
        game: Game,
        decks: Sequence[Deck],
        seed: int,
        agents: Sequence[str] = (),
        options: dict[str, Any] | None = None,
        hash_every: int = HASH_EVERY,
    ) -> None:
        self.game = game
        self.decks = list(decks)
        self.seed = seed
        self.agents = list(agents)
        self.options = options or {}
        self.hash_every = hash_every
        self.layout = layout_for(game.format)
        self.actions: list[int] = []
        self.hashes: dict[str, str] = {}

    def index(self, action: Action) -> tuple[int, Action]:
        g = self.game
        seat = g.current_player
        assert seat is not None
        amap, _ = self.layout.action_map(g, seat)
        own, opp, stack = self.layout.slots(g, seat)
        i = self.layout.action_index(g, action, seat, own, opp, stack)
        if i < 0 or i not in amap:
            raise ReplayError(f"action {action} has no index in the layout")
        return i, amap[i]

    def apply(self, action: Action) -> None:
        i, canon = self.index(action)
        self.apply_index(i, canon)

    def apply_index(self, i: int, canon: Action | None = None) -> None:
        if canon is None:
            seat = self.game.current_player
            assert seat is not None
            amap, _ = self.layout.action_map(self.game, seat)
            canon = amap[i]
        self.game.apply(canon)
        self.record(i)

    def record(self, i: int) -> None:
        """Record the move of index `i` that the game just made (an env's step applies it and
        the recorder observes it), with the state hash every `hash_every` moves."""
        self.actions.append(i)
        n = len(self.actions)
        if n % self.hash_every == 0:
            self.hashes[str(n)] = self.game.state_hash()

    def to_dict(self) -> dict[str, Any]:
        g = self.game
        return {
            "version": VERSION,
            "format": g.format,
            "decks": [{"name": d.name, "cards": list(d.cards)} for d in self.decks],
            "seed": self.seed,
            "options": self.options,
            "agents": self.agents,
            "actions": self.actions,
            "hash_every": self.hash_every,
            "hashes": self.hashes,
            "final_hash": g.state_hash(),
            "result": {
                "over": g.is_over,
                "winner": g.winner,
                "truncated": g.truncated,
                "turns": g.turn,
                "decisions": g.n_decisions,
            },
        }

    def save(self, path: str | Path) -> None:
        atomic_write_text(path, json.dumps(self.to_dict(), indent=1))


def new_game(m: ReplayModel) -> Game:
    decks = [Deck(d.name, m.format, tuple(d.cards)) for d in m.decks]
    o = m.options
    return Game.new(
        decks,
        seed=m.seed,
        format=m.format,
        first_player=o.first_player,
        auto_pass=o.auto_pass,
        mulligans=o.mulligans,
        max_decisions=o.max_decisions,
    )


def parse_replay(raw: Any, where: str = "replay") -> ReplayModel:
    if not isinstance(raw, dict):
        raise ReplayError(f"{where}: a replay is a JSON object")
    if raw.get("version") != VERSION:
        raise ReplayError(
            f"{where}: unknown replay version {raw.get('version')!r} "
            f"(this version of mtg_env reads version {VERSION})"
        )
    try:
        return ReplayModel.model_validate(raw)
    except ValidationError as e:
        errs = "; ".join(
            (f"field {'.'.join(str(p) for p in err['loc'])}: " if err["loc"] else "")
            + err["msg"].removeprefix("Value error, ")
            for err in e.errors()
        )
        raise ReplayError(f"{where}: {errs}") from None


def load_replay(path: str | Path) -> ReplayModel:
    p = Path(path)
    try:
        raw = load_json(p, "replay file")
    except InputFileError as e:
        raise ReplayError(str(e)) from None
    return parse_replay(raw, str(p))


def replay_games(
    m: ReplayModel, on_action: Callable[[int, Game, Action, int], None] | None = None
) -> Game:
    """Re-simulate a replay, checking legality and every hash; returns the final game.
    `on_action(n, game, action, index)` is called before decision n is applied, so that a
    caller (the replay viewer) sees every intermediate state without a second re-simulation."""
    try:
        g = new_game(m)
    except ValueError as e:
        raise ReplayError(f"cannot set up the game: {e}") from None
    lay = layout_for(m.format)
    for n, idx in enumerate(m.actions, start=1):
        if g.is_over:
            raise ReplayError(
                f"decision {n}: the game is already over, but the replay has "
                f"{len(m.actions) - n + 1} more action(s)"
            )
        seat = g.current_player
        assert seat is not None
        amap, _ = lay.action_map(g, seat)
        a = amap.get(idx)
        if a is None:
            legal = ", ".join(str(i) for i in sorted(amap))
            what = lay.describe_index(idx) if 0 <= idx < lay.n_actions else "out of range"
            raise ReplayError(
                f"decision {n}: action {idx} ({what}) is not legal for player "
                f"{seat} (legal: {legal})"
            )
        if on_action is not None:
            on_action(n, g, a, idx)
        g.apply(a)
        want = m.hashes.get(str(n))
        if want is not None and want != g.state_hash():
            raise ReplayError(
                f"decision {n}: state hash mismatch (replay {want}, re-simulated {g.state_hash()})"
            )
    if g.state_hash() != m.final_hash:
        raise ReplayError(
            f"decision {len(m.actions)} (end): final state hash mismatch "
            f"(replay {m.final_hash}, re-simulated {g.state_hash()})"
        )
    return g


def verify(m: ReplayModel) -> Game:
    return replay_games(m)
