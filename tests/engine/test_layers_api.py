"""Layer-system API: explain() and the characteristics cache."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from mtg_env.engine import Game
from mtg_env.engine.cards import StaticAbility


def test_613_explain_lists_effects_layer_by_layer_with_timestamps() -> None:
    g, lab = Game.setup(
        [
            {
                "battlefield": [
                    {"card": "Lord of Atlantis", "id": "lord"},
                    {"card": "Coral Merfolk", "id": "merfolk", "counters": {"+1/+1": 1}},
                    {"card": "Humility", "id": "humility"},
                ]
            },
            {},
        ]
    )
    lines = g.explain(lab["merfolk"])
    text = "\n".join(lines)
    assert lines[0].startswith("Coral Merfolk#") and "printed Coral Merfolk 2/1" in lines[0]
    assert "6 (abilities): " in text and "[lose_all_abilities]" in text
    assert "7b (set P/T): " in text and "[set_pt]" in text
    assert "counters +1/+1" in text
    # Humility's dependency removed the Lord's effect: it is not listed.
    assert "Lord of Atlantis" not in text
    assert lines[-1].endswith("keywords none") and "2/2" in lines[-1]


def test_613_characteristics_are_cached_until_something_changes() -> None:
    g, lab = Game.setup([{"battlefield": [{"card": "Grizzly Bears", "id": "b"}]}, {}])
    first = g.chars(lab["b"])
    assert g.chars(lab["b"]) is first  # cached: same object, no recomputation
    g.perm[lab["b"]].counters = {"+1/+1": 1}
    g._dirty = True
    second = g.chars(lab["b"])
    assert second is not first and (second.power, second.toughness) == (3, 3)


def test_613_plain_characteristics_are_reused_only_without_effects() -> None:
    # No continuous effect anywhere: an unchanged permanent keeps its computed object.
    g, lab = Game.setup(
        [{"battlefield": [{"card": "Grizzly Bears", "id": "b"}, {"card": "Forest"}]}, {}]
    )
    first = g.chars(lab["b"])
    g._dirty = True
    assert g.chars(lab["b"]) is first
    # A static ability on the battlefield (Lord of Atlantis) forces the full computation.
    g2, lab2 = Game.setup(
        [
            {
                "battlefield": [
                    {"card": "Grizzly Bears", "id": "b"},
                    {"card": "Lord of Atlantis"},
                ]
            },
            {},
        ]
    )
    first = g2.chars(lab2["b"])
    g2._dirty = True
    again = g2.chars(lab2["b"])
    assert again is not first and (again.power, again.toughness) == (2, 2)


def _layer_state(chars: dict) -> dict:
    return {
        cid: (
            ch.name,
            ch.types,
            ch.subtypes,
            ch.supertypes,
            ch.colors,
            ch.power,
            ch.toughness,
            ch.keywords,
            tuple(repr(a) for a in ch.abilities),
            ch.controller,
            ch.all_ctypes,
            ch.rules,
            ch.prot,
        )
        for cid, ch in chars.items()
    }


def _skips_a_trial(layers: Any, g: Game) -> bool:
    """Whether two printed static abilities on the battlefield share a layer where the
    dependency test runs (1-6) and one changes nothing the other's filter or existence
    depends on: a trial `_order` skips."""
    defs = [g.perm[cid].copy_def or g.cdef[cid] for cid in g.battlefield]
    statics = [ab for d in defs for ab in d.abilities if type(ab) is StaticAbility]
    for layer in range(1, 7):
        here = [ab for ab in statics if any(c.layer == layer for c in ab.components)]
        for a in here:
            reads = layers._READS_ABILITY | layers._reads(a.affects)
            for b in here:
                changes = 0
                for c in b.components:
                    if c.layer == layer:
                        changes |= layers._CHANGES[c.op]
                if a is not b and not changes & reads:
                    return True
    return False


def test_613_8_dependency_trials_are_skipped_only_where_they_cannot_matter() -> None:
    """`_order` skips the trial of effect B against static ability A when B's ops change
    nothing A's filter or existence depends on, and `compute` looks for static abilities
    again only after an op that alters abilities. Differential check: over the layer
    scenarios and random play from each, the characteristics equal those computed with
    every op marked as changing everything (every trial run, every look taken)."""
    from mtg_env.engine import layers
    from mtg_env.engine.cards import STATIC_OPS
    from mtg_env.scenario import build, load_scenario, scenario_paths

    assert set(layers._CHANGES) == set(STATIC_OPS)  # every op has its entry
    saved = dict(layers._CHANGES)
    everything = dict.fromkeys(saved, 0xFF)
    root = Path(__file__).parents[1] / "scenarios"
    paths = [p for p in scenario_paths([str(root)]) if "layers" in p.parent.name]
    assert len(paths) >= 20
    states = skippable = 0
    for path in paths:
        g, _ = build(load_scenario(path))
        r = random.Random(path.name)
        for _ in range(25):
            if g.is_over:
                break
            fast = _layer_state(layers.compute(g))
            layers._CHANGES.update(everything)
            try:
                slow = _layer_state(layers.compute(g))
            finally:
                layers._CHANGES.update(saved)
            assert fast == slow, path.name
            states += 1
            skippable += _skips_a_trial(layers, g)
            g.apply(r.choice(g.legal_actions()))
    assert states > 300 and skippable > 20, (states, skippable)
