"""Invariant fuzzing: seeded random play over every format and deck pair, checking the
engine and the env after every action.

Checked after every action:
- each card is in exactly one zone (and the battlefield list matches the permanents);
- no negative damage or counters; life above 0 whenever a player has priority;
- no dead ends: every decision of a game not over has a legal action;
- state-based actions are at a fixpoint and no trigger is waiting whenever a player has
  priority;
- mana pools are empty between steps (the engine pays mana automatically and keeps no
  pool, so this holds by construction; nothing to check);
- the env mask equals the engine's legal set (every legal action has an index, every
  masked-in index is a legal action);
- every legal action applies on a clone, and applying on a clone gives the same state hash
  as applying on the game;
- observations of both seats are inside the declared bounds;
- replaying the recorded actions reproduces the final state hash.

A failure writes a replay of the game up to the failing action and says how to reproduce.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import Deck, Game, load_decks
from ..engine.constants import (
    BATTLEFIELD,
    D_PRIORITY,
    EXILE,
    GRAVEYARD,
    HAND,
    LIBRARY,
    NOWHERE,
    STACK,
)
from ..engine.formats import FORMATS as _FORMATS
from ..engine.objects import SPELL
from ..env.entity import EntityLayout
from ..env.replay import Recorder, layout_for, load_replay, new_game, parse_replay, replay_games
from ..io import atomic_write_text

FORMATS = tuple(_FORMATS)


class InvariantError(AssertionError):
    pass


@dataclass
class FuzzStats:
    decisions: int = 0
    games: int = 0
    failures: list[str] = field(default_factory=list)


def check_zones(g: Game) -> None:
    seen: dict[int, str] = {}

    def mark(cid: int, where: str) -> None:
        if cid in seen:
            raise InvariantError(f"card {cid} is in {seen[cid]} and in {where}")
        seen[cid] = where

    for s in (0, 1):
        for name, zl, z in (
            ("library", g.library, LIBRARY),
            ("hand", g.hand, HAND),
            ("graveyard", g.graveyard, GRAVEYARD),
            ("exile", g.exile, EXILE),
        ):
            for cid in zl[s]:
                mark(cid, f"{name} {s}")
                if g.zone[cid] != z:
                    raise InvariantError(f"card {cid} listed in {name} but zone says {g.zone[cid]}")
                shared = g.rules.piles == 1 and z in (LIBRARY, GRAVEYARD)
                if g.owner[cid] != s and not shared:
                    raise InvariantError(f"card {cid} in player {s}'s {name} is not theirs")
    for cid in g.battlefield:
        mark(cid, "battlefield")
        if g.zone[cid] != BATTLEFIELD or cid not in g.perm:
            raise InvariantError(f"battlefield card {cid} has no permanent status")
    if set(g.perm) != set(g.battlefield):
        raise InvariantError("permanent statuses don't match the battlefield")
    for it in g.stack:
        if it.kind == SPELL:
            mark(it.cid, "stack")
            if g.zone[it.cid] != STACK:
                raise InvariantError(f"spell {it.cid} on the stack has zone {g.zone[it.cid]}")
    for cid, z in enumerate(g.zone):
        if z != NOWHERE and cid not in seen:
            raise InvariantError(f"card {cid} has zone {z} but is in no zone list")


def check_state(g: Game) -> None:
    check_zones(g)
    for p in g.perm.values():
        if p.damage < 0:
            raise InvariantError(f"negative damage on {p.cid}")
        if p.counters and any(v <= 0 for v in p.counters.values()):
            raise InvariantError(f"non-positive counter count on {p.cid}: {p.counters}")
    d = g.decision
    if not g.is_over and not g.legal_actions():
        # No dead ends: a decision always has something to choose (a spell cast without a
        # legal target left one once).
        raise InvariantError(f"a decision with no legal action: {d}")
    if not g.is_over and d is not None and d.kind == D_PRIORITY:
        if g._sba_collect():
            raise InvariantError(f"state-based actions pending at priority: {g._sba_collect()}")
        if g.triggers:
            raise InvariantError("triggered abilities waiting while a player has priority")
        for s in (0, 1):
            if g.life[s] <= 0:
                raise InvariantError(f"player {s} has {g.life[s]} life at priority")
        check_characteristics(g)


def _chars_key(ch: Any) -> tuple[Any, ...]:
    return (
        ch.name,
        ch.controller,
        ch.types,
        tuple(sorted(ch.subtypes)),
        ch.supertypes,
        ch.colors,
        ch.power,
        ch.toughness,
        tuple(sorted(ch.keywords)),
        ch.abilities,
        tuple(sorted(ch.rules)),
        ch.prot,
    )


def check_characteristics(g: Game) -> None:
    """The cached characteristics of every permanent equal those computed afresh: nothing
    that can change them (a zone move, a condition of an "as long as" ability, an effect
    ending) left the cache stale."""
    cached = {c: _chars_key(g.chars(c)) for c in g.battlefield}
    fresh_game = g.clone()
    fresh_game._dirty = True  # recompute from the fields, not the cache
    for c, key in cached.items():
        fresh = _chars_key(fresh_game.chars(c))
        if fresh != key:
            name = g.cdef[c].name
            raise InvariantError(f"stale characteristics of {name} ({c}): {key} != {fresh}")


_entities: dict[str, EntityLayout] = {}


def check_env_view(g: Game, obs_high: float = 1.0) -> None:
    lay = layout_for(g.format)
    seat = g.current_player
    if seat is None:
        return
    mask, amap, missing = lay.mask_and_map(g, seat)
    if missing:
        raise InvariantError(f"{missing} legal action(s) have no index in the layout")
    legal = g.legal_actions()
    own, opp, stack = lay.slots(g, seat)
    idx = {lay.action_index(g, a, seat, own, opp, stack) for a in legal}
    if set(np.flatnonzero(mask).tolist()) != idx:
        raise InvariantError("the env mask differs from the engine's legal set")
    for s in (0, 1):
        o = lay.observe(g, s)
        if o.dtype != np.float32 or o.min() < 0.0 or o.max() > obs_high or np.isnan(o).any():
            raise InvariantError(f"observation of seat {s} out of bounds")
    # v1: the candidate rows are the distinct legal moves, and the tables are in bounds.
    ent = _entities.get(g.format)
    if ent is None:
        ent = _entities[g.format] = EntityLayout(lay)
    reason = ent.overflow(g)
    if reason is not None:
        raise InvariantError(f"v1 tables exceeded: {reason}")
    rows, rmap, missing = ent.candidates(g, seat)
    if missing or rows != sorted(amap) or any(rmap[i] is not amap[i] for i in rows):
        raise InvariantError("the v1 candidate rows differ from the engine's legal moves")
    space = ent.observation_space
    for s in (0, 1):
        o1 = ent.observe(g, s, (rows, rmap) if s == seat else None)
        if not space.contains(o1):
            raise InvariantError(f"v1 observation of seat {s} out of its space")
        if s == seat and int(o1["action_mask"].sum()) != len(rows):
            raise InvariantError("the v1 action mask differs from the candidate rows")


def check_actions(g: Game) -> None:
    for a in g.legal_actions():
        c = g.clone()
        c.apply(a)  # every legal action applies


def fuzz_game(
    fmt: str,
    deck_a: str | Deck,
    deck_b: str | Deck,
    seed: int,
    max_decisions: int,
    out_dir: Path | None = None,
    full: bool = True,
) -> tuple[int, str | None]:
    """Play one seeded random game with every check; (decisions, failure or None). A deck
    is a bundled deck's name or a Deck (a generated one)."""
    # Bundled decks only when a deck is named: a format of a registered pool has none.
    named = isinstance(deck_a, str) or isinstance(deck_b, str)
    decks = load_decks(fmt) if named else {}
    pair = tuple(d if isinstance(d, Deck) else decks[d] for d in (deck_a, deck_b))
    deck_a, deck_b = (d.name for d in pair)
    g = Game.new(pair, seed=seed, format=fmt, max_decisions=max_decisions)
    rec = Recorder(
        g, pair, seed, agents=["random", "random"], options={"max_decisions": max_decisions}
    )
    r = random.Random(seed)
    lay = layout_for(fmt)
    n = 0
    try:
        check_state(g)
        while not g.is_over:
            if full:
                check_env_view(g)
                check_actions(g)
            seat = g.current_player
            assert seat is not None
            amap, _ = lay.action_map(g, seat)
            i = r.choice(sorted(amap))
            a = amap[i]
            c = g.clone()
            c.apply(a)
            rec.apply_index(i, a)
            n += 1
            if c.state_hash() != g.state_hash():
                raise InvariantError("applying on a clone gives a different state hash")
            check_state(g)
        m = parse_replay(rec.to_dict())
        if replay_games(m).state_hash() != g.state_hash():
            raise InvariantError("replaying the actions does not reproduce the final hash")
    except Exception as e:  # noqa: BLE001 - every failure is reported with a replay
        msg = f"{fmt} {deck_a} vs {deck_b} seed {seed} decision {n}: {type(e).__name__}: {e}"
        if out_dir is not None:
            import json

            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"fuzz_fail_{fmt}_{seed}.json"
            atomic_write_text(path, json.dumps(rec.to_dict(), indent=1))
            msg += (
                f"\n  replay written to {path}; reproduce with: "
                f"python scripts/fuzz.py --replay {path}"
            )
        return n, msg
    return n, None


def run(
    decisions: int,
    seed: int = 0,
    formats: tuple[str, ...] = FORMATS,
    out_dir: Path | None = None,
    max_decisions: int = 3000,
    progress: bool = False,
    random_decks: bool = False,
) -> FuzzStats:
    """Fuzz until `decisions` decisions have been checked, cycling formats and deck
    pairs (every ordered pair of bundled decks); with `random_decks`, every game two new
    decks from the seeded deck generator (`mtg_env.decks`) instead, in the formats it
    builds decks for."""
    stats = FuzzStats()
    if random_decks:
        return _run_random_decks(decisions, seed, formats, out_dir, max_decisions, stats)
    pairs = [
        (f, a, b)
        for f in formats
        for a in sorted(load_decks(f))
        for b in sorted(load_decks(f))
        if a == b or _FORMATS[f].piles == 2  # a shared pile is one deck for both
    ]
    k = 0
    from rich.progress import Progress

    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("fuzzing", total=decisions)
        while stats.decisions < decisions:
            fmt, a, b = pairs[k % len(pairs)]
            n, fail = fuzz_game(fmt, a, b, seed * 1_000_003 + k, max_decisions, out_dir)
            stats.decisions += n
            stats.games += 1
            bar.update(task, advance=n)
            if fail:
                stats.failures.append(fail)
            k += 1
    return stats


def _run_random_decks(
    decisions: int,
    seed: int,
    formats: tuple[str, ...],
    out_dir: Path | None,
    max_decisions: int,
    stats: FuzzStats,
) -> FuzzStats:
    from ..decks import generate_deck

    k = 0
    while stats.decisions < decisions:
        fmt = formats[k % len(formats)]
        gseed = seed * 1_000_003 + k
        pair = (generate_deck(fmt, seed=2 * gseed), generate_deck(fmt, seed=2 * gseed + 1))
        n, fail = fuzz_game(fmt, pair[0], pair[1], gseed, max_decisions, out_dir)
        stats.decisions += n
        stats.games += 1
        if fail:
            stats.failures.append(fail)
        k += 1
    return stats


def check_replay(path: str | Path) -> str | None:
    """Re-run the invariant checks along a replay (to reproduce a fuzz failure)."""
    m = load_replay(path)
    g = new_game(m)
    lay = layout_for(m.format)
    try:
        for i in m.actions:
            check_state(g)
            check_env_view(g)
            check_actions(g)
            seat = g.current_player
            assert seat is not None
            amap, _ = lay.action_map(g, seat)
            g.apply(amap[i])
        check_state(g)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None
