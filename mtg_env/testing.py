"""The information-leak checker: whatever a seat cannot see must not change what it is shown.

For a state and the seat to act, every view of the seat is taken, then the hidden part of
the state is re-dealt several times (`resample`: for this engine `Game.resample_hidden`, the
opponent's hand from its unseen cards and both library orders) and every view is taken
again. A view that differs in any byte between the real state and a re-dealt one shows the
seat something it may not know: a leak.

`find_leaks(states, views, resample)` is the checker itself and knows nothing of this
engine: any card game env can hand it its states, a function giving each view of the seat
to act, and its own resampler. `game_views(fmt)` gives this project's views of a `Game`:

- `v0`: the flat observation and its action mask (`FlatObserver`);
- `v1`: the entity tables, the candidate rows and the mask (`EntityObserver`);
- `text`: the text view with its numbered moves (`TextObserver`);
- `openspiel_observation` and `openspiel_information_state`: the OpenSpiel game's tensors
  and strings (where `open_spiel` is installed);
- `spellbench`: the Spellbench seat observation and candidates, object ids included
  (core and classic, the formats the protocol serves; a decision the engine role does not
  pose is left out);
- `spellbench_v1`: the v1 tables a policy bot builds from that seat decision
  (`mtg_env.spellbench.entity_view`).

`fuzzed_states(fmt, games, every, seed)` gives states of random games to check.

```python
from mtg_env.testing import find_leaks, fuzzed_states, game_views, resample_game

report = find_leaks(fuzzed_states("classic", games=2), game_views("classic"), resample_game)
assert report.leaks == [], report.leaks[:3]
```
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .engine import Game, load_cards, load_decks
from .env.observers import EntityObserver, FlatObserver, TextObserver
from .env.spaces import Layout

View = Callable[[Any, int], Any]  # (state, seat) -> what the seat is shown


@dataclass
class LeakReport:
    """What `find_leaks` checked and found: `leaks` holds one line per view and state that
    changed when the hidden part of the state was re-dealt."""

    states: int = 0
    worlds: int = 0
    checked: dict[str, int] = field(default_factory=dict)  # view -> states it was taken in
    leaks: list[str] = field(default_factory=list)


def canonical_bytes(value: Any) -> bytes:
    """A view as bytes that differ exactly when the view does: arrays with their dtype and
    shape, mappings by key, strings and numbers as JSON."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{value.shape}".encode() + np.ascontiguousarray(value).tobytes()
    if isinstance(value, dict):
        return (
            b"{"
            + b",".join(
                json.dumps(str(k)).encode() + b":" + canonical_bytes(value[k])
                for k in sorted(value)
            )
            + b"}"
        )
    if isinstance(value, list | tuple):
        return b"[" + b",".join(canonical_bytes(v) for v in value) + b"]"
    return json.dumps(value, sort_keys=True, default=str).encode()


def find_leaks(
    states: Iterable[tuple[Any, int]],
    views: dict[str, View],
    resample: Callable[[Any, int, int], Any],
    worlds: int = 3,
    seed: int = 0,
) -> LeakReport:
    """Check every (state, seat) of `states`: each view of the seat in the state against the
    same view in `worlds` states whose hidden part `resample(state, seat, seed)` re-dealt.
    A view that raises `NotImplementedError` for a state is not checked there."""
    report = LeakReport(worlds=worlds)
    rng = random.Random(seed)
    for k, (state, seat) in enumerate(states):
        report.states += 1
        real: dict[str, bytes] = {}
        for name, view in views.items():
            try:
                real[name] = canonical_bytes(view(state, seat))
            except NotImplementedError:
                continue
            report.checked[name] = report.checked.get(name, 0) + 1
        for _ in range(worlds):
            other = resample(state, seat, rng.getrandbits(63))
            for name in real:
                if canonical_bytes(views[name](other, seat)) != real[name]:
                    report.leaks.append(f"{name}: state {k}, seat {seat}: changed by a re-deal")
    return report


def resample_game(g: Game, seat: int, seed: int) -> Game:
    """This engine's resampler: `Game.resample_hidden`."""
    return g.resample_hidden(seat, seed)


def fuzzed_states(
    fmt: str, games: int = 3, every: int = 5, seed: int = 0, max_decisions: int = 2000
) -> Iterator[tuple[Game, int]]:
    """(state, seat to act) every `every` decisions of `games` random games of `fmt`
    between random decks of the format."""
    decks = list(load_decks(fmt).values())
    rng = random.Random(seed)
    for _ in range(games):
        g = Game.new(
            decks=(rng.choice(decks), rng.choice(decks)),
            seed=rng.getrandbits(63),
            format=fmt,
            max_decisions=max_decisions,
        )
        n = 0
        while not g.is_over:
            seat = g.current_player
            assert seat is not None
            if n % every == 0:
                yield g.clone(), seat
            g.apply(rng.choice(g.legal_actions()))
            n += 1


def game_views(fmt: str, game_secret: bytes = b"\x00" * 32) -> dict[str, View]:
    """This project's views of a `Game` for the seat to act (see the module's text)."""
    layout = Layout(load_cards(fmt))
    flat, entity = FlatObserver(layout), EntityObserver(layout)
    text = TextObserver(flat)

    def v0(g: Game, seat: int) -> Any:
        legal = flat.legal(g, seat)
        return {"observation": flat.observe(g, seat, legal), "mask": legal.mask}

    def v1(g: Game, seat: int) -> Any:
        legal = entity.legal(g, seat)
        return {**entity.observe(g, seat, legal), "mask": legal.mask}

    def text_view(g: Game, seat: int) -> Any:
        return text.observe(g, seat, flat.legal(g, seat))

    views: dict[str, View] = {"v0": v0, "v1": v1, "text": text_view}
    views.update(_openspiel_views(fmt))
    views.update(_spellbench_views(fmt, game_secret, entity))
    return views


def _openspiel_views(fmt: str) -> dict[str, View]:
    try:
        import pyspiel
    except ImportError:  # the openspiel extra is not installed: those views are left out
        return {}
    from .openspiel import MtgDuelGame, MtgDuelState

    game = MtgDuelGame({"format": fmt})

    def tensors(recall: bool) -> View:
        observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))

        def view(g: Game, seat: int) -> Any:
            state = MtgDuelState(game, g)
            observer.set_from(state, seat)
            return {"tensor": observer.tensor.copy(), "string": observer.string_from(state, seat)}

        return view

    return {"openspiel_observation": tensors(False), "openspiel_information_state": tensors(True)}


def _spellbench_views(fmt: str, game_secret: bytes, entity: EntityObserver) -> dict[str, View]:
    from .env.observers import entity_tables
    from .spellbench.engine import FORMATS, EngineSession
    from .spellbench.entity_view import NeutralEntityObserver

    if fmt not in FORMATS:
        return {}

    def view(g: Game, seat: int) -> Any:
        # The whole seat decision the engine role poses here (counters and group included).
        decision = EngineSession.pose(g, game_secret)
        if decision is None:  # the role answers this one itself: nothing is shown
            raise NotImplementedError
        return decision

    tables = entity_tables(entity)
    assert tables is not None
    neutral = NeutralEntityObserver(tables)

    def v1_of(g: Game, seat: int) -> Any:
        obs, ids = neutral.observe(view(g, seat))
        return {**obs, "ids": np.array(ids)}

    return {"spellbench": view, "spellbench_v1": v1_of}
