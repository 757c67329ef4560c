"""The candidates of a priority decision (the spec's Section 7.2) for our games: pass
first, one candidate per legal action, distinct semantics, references that match the
observation, and nothing that depends on what the seat cannot see."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
from sample_games import SECRET, states

from mtg_env.engine.constants import D_PRIORITY
from mtg_env.spellbench.candidates import (
    Unsupported,
    activated_ability,
    attack_candidates,
    potential_attackers,
    priority_candidates,
    seat_candidates,
)
from mtg_env.spellbench.observation import Observer
from mtg_env.spellbench.wire import canonical

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "env"))
from hidden import swap_hidden  # noqa: E402

REF = ("object_id", "card_name", "owner_seat", "controller_seat", "zone")


@pytest.mark.parametrize("fmt", ["core", "classic"])
def test_priority_candidates(fmt: str) -> None:
    obs = Observer(SECRET)
    kinds: set[str] = set()
    checked = 0
    for g in states(fmt, games=3, every=3):
        d = g.decision
        if d is None or d.kind != D_PRIORITY:
            continue
        seat = d.player
        cands = priority_candidates(g, seat, obs)
        assert cands[0][0] == {"kind": "pass"}
        assert sorted(map(repr, (a for _, _, a in cands))) == sorted(map(repr, g.legal_actions()))
        semantics = [canonical(s) for s, _, _ in cands]
        assert len(set(semantics)) == len(semantics)
        o = obs.observe(g, seat)
        records = {
            r["object_id"]: r
            for p in o["players"]
            for z in ("hand", "battlefield", "graveyard", "exile")
            for r in (p[z] or [])
        }
        for s, text, a in cands:
            kinds.add(s["kind"])
            assert isinstance(text, str) and text
            assert not re.search(r"#\d", text)  # no engine id in what the seat reads
            if "source" in s:
                rec = records[s["source"]["object_id"]]
                assert {k: rec[k] for k in REF} == s["source"]
                if s["kind"] == "activate_ability":
                    assert rec["zone"] == "battlefield"
                    assert s["ability_index"] == activated_ability(g, a.obj, a.arg)[0] >= 0
                else:
                    assert rec["zone"] == "hand" and rec["owner_seat"] == f"p{seat}"
        # What the seat cannot see changes none of it.
        h = swap_hidden(g, seat)
        assert [canonical(s) for s, _, _ in priority_candidates(h, seat, obs)] == semantics
        checked += 1
    assert checked > 30
    assert {"pass", "play_land", "cast_spell"} <= kinds
    if fmt == "classic":  # Mutavault: its ability follows a mana ability (index 0, ours 1)
        assert "activate_ability" in kinds


def test_only_the_seat_with_priority_is_asked() -> None:
    g = next(g for g in states("core", games=1) if g.decision and g.decision.kind == D_PRIORITY)
    with pytest.raises(ValueError, match="no priority decision"):
        priority_candidates(g, 1 - g.decision.player, Observer(SECRET))


@pytest.mark.parametrize("fmt", ["core", "classic"])
def test_the_candidates_of_every_decision_posed_so_far(fmt: str) -> None:
    """Priority, modes, X and targets: one candidate per legal action, distinct
    semantics, every reference (sources, stack entries, targets) equal to the
    observation's record, and nothing that changes with what the seat cannot see."""
    obs = Observer(SECRET)
    kinds: set[str] = set()
    unsupported = 0
    for g in states(fmt, games=6, every=1):
        d = g.decision
        if d is None:
            continue
        seat = d.player
        try:
            cands = seat_candidates(g, seat, obs)
        except Unsupported:
            unsupported += 1
            continue
        assert sorted(map(repr, (a for _, _, a in cands))) == sorted(map(repr, g.legal_actions()))
        semantics = [canonical(s) for s, _, _ in cands]
        assert len(set(semantics)) == len(semantics)
        o = obs.observe(g, seat)
        records = {r["object_id"]: r for r in _records(o)}
        for s, text, _ in cands:
            kinds.add(s["kind"])
            assert not re.search(r"#\d", text)
            for ref in _refs_of(s):
                assert {k: records[ref["object_id"]][k] for k in REF} == ref, s
        h = swap_hidden(g, seat)
        assert [canonical(s) for s, _, _ in seat_candidates(h, seat, obs)] == semantics
    assert {"pass", "cast_spell", "choose_target", "mulligan", "order_pick"} <= kinds
    assert unsupported  # the decisions still to come (attacks, blocks, mulligans, ...)


def _records(o: dict) -> list[dict]:
    out = [r for p in o["players"] for z in ("battlefield", "graveyard", "exile") for r in p[z]]
    out += [r for p in o["players"] if p["hand"] is not None for r in p["hand"]]
    return out + list(o["stack"])


def _refs_of(semantic: dict) -> list[dict]:
    refs = [semantic["source"]] if semantic.get("source") else []
    item = semantic.get("item")
    if item and "object" in item:
        refs.append(item["object"])
    target = semantic.get("target")
    if target and "object" in target:
        refs.append(target["object"])
    return refs


def test_modes_and_x_as_a_spell_is_cast() -> None:
    """A modal spell's mode and X (no bundled deck plays them: a deck of them here)."""
    from mtg_env.engine import Game
    from mtg_env.engine.carddb import parse_deck
    from mtg_env.engine.decisions import Announce

    cards = ["Mountain"] * 16 + ["Island"] * 8
    cards += ["Izzet Charm", "Blaze", "Abrade", "Stroke of Genius"] * 4
    deck = parse_deck({"name": "Modes and X", "format": "core", "cards": cards}, "test")
    obs = Observer(SECRET)
    seen: dict[str, int] = {}
    rng = random.Random(0)
    for seed in range(12):
        g = Game.new((deck, deck), seed=seed, max_decisions=400, format="core")
        while not g.is_over:
            d = g.decision
            if d is not None and isinstance(g.ctx, Announce):
                seat = d.player
                cands = seat_candidates(g, seat, obs)
                assert len(cands) == len(g.legal_actions())
                stack_ids = {s["object_id"] for s in obs.observe(g, seat)["stack"]}
                for s, text, a in cands:
                    seen[s["kind"]] = seen.get(s["kind"], 0) + 1
                    assert s["source"]["object_id"] in stack_ids  # the spell, on the stack
                    if s["kind"] == "choose_number":
                        assert s["purpose"] == "x_value"
                        assert s["minimum"] <= s["value"] == g.ctx.choices[a.arg] <= s["maximum"]
                    else:
                        assert s["kind"] == "choose_spell_mode"
                        assert s["mode_index"] == g.ctx.choices[a.arg] < s["mode_count"]
                        assert text.startswith(s["source"]["card_name"] + ": ")
            g.apply(rng.choice(g.legal_actions()))
    assert seen.get("choose_spell_mode") and seen.get("choose_number")


def test_a_kicker_is_an_optional_cost_asked_as_the_spell_is_cast() -> None:
    """Kicker (CR 702.33a) is the spec's `optional_cost`, cost `kicker`: pay or not, the
    spell on the stack its source (the pauper set has the only kicker cards)."""
    from mtg_env.engine import Game
    from mtg_env.engine.carddb import parse_deck
    from mtg_env.engine.decisions import Announce

    cards = ["Mountain"] * 21 + ["Island"] * 15 + ["Burst Lightning", "Into the Roil"] * 12
    deck = parse_deck({"name": "Kicker", "format": "pauper", "cards": cards}, "test")
    obs = Observer(SECRET)
    paid: set[bool] = set()
    rng = random.Random(1)
    for seed in range(6):
        g = Game.new((deck, deck), seed=seed, max_decisions=300, format="pauper")
        while not g.is_over:
            d = g.decision
            if d is not None and isinstance(g.ctx, Announce) and g.ctx.what == "kicker":
                cands = seat_candidates(g, d.player, obs)
                stack_ids = {s["object_id"] for s in obs.observe(g, d.player)["stack"]}
                assert [(s["kind"], s["cost"], s["pay"]) for s, _, _ in cands] == [
                    ("optional_cost", "kicker", False),
                    ("optional_cost", "kicker", True),
                ]
                assert all(s["source"]["object_id"] in stack_ids for s, _, _ in cands)
                s, _, a = rng.choice(cands)
                paid.add(s["pay"])
                g.apply(a)
                continue
            g.apply(rng.choice(g.legal_actions()))
    assert paid == {False, True}


def test_a_mulligan_then_the_cards_to_the_bottom() -> None:
    """London: after two mulligans and a keep, two picks, positions 0 and 1 of a block of
    two, each offering the cards still in hand; the first placed ends above the second."""
    from mtg_env.engine import Game, load_decks
    from mtg_env.engine.constants import D_BOTTOM, D_MULLIGAN, KEEP, MULLIGAN

    d = load_decks("core")
    names = sorted(d)
    g = Game.new((d[names[0]], d[names[1]]), seed=1, format="core")
    obs = Observer(SECRET)
    taken = 0
    while g.decision is not None and g.decision.kind == D_MULLIGAN:
        seat = g.decision.player
        cands = seat_candidates(g, seat, obs)
        assert cands[0][0]["keep"] is True
        assert {c[0]["mulligans_taken"] for c in cands} == {g.mull_count[seat]}
        want = MULLIGAN if seat == 0 and taken < 2 else KEEP
        taken += seat == 0 and want == MULLIGAN
        g.apply(next(a for _, _, a in cands if a.kind == want))
    placed = []
    while g.decision is not None and g.decision.kind == D_BOTTOM:
        cands = seat_candidates(g, 0, obs)
        assert len(cands) == len(g.hand[0])
        assert {(c[0]["position"], c[0]["count"]) for c in cands} == {(len(placed), 2)}
        _, _, a = cands[-1]
        placed.append(a.obj)
        g.apply(a)
    assert len(placed) == 2
    lib = g.library[g.rules.pile(0)]
    assert lib[:2] == [placed[1], placed[0]]  # the bottom card is the second one placed


def test_attacks_one_creature_at_a_time() -> None:
    """The spec's declaration of attackers, one decision per creature that could attack,
    played into the engine's picks-then-done: the attackers the seat chose attack."""
    from mtg_env.engine.constants import D_ATTACKERS, PASS

    obs = Observer(SECRET)
    rng = random.Random(3)
    groups = 0
    for g in states("core", games=4, every=1):
        d = g.decision
        if d is None or d.kind != D_ATTACKERS or g.attackers:
            continue
        g = g.clone()
        seat = d.player
        potential = potential_attackers(g)
        assert potential and len(set(potential)) == len(potential)
        chosen = []
        before = canonical([s for s, _, _ in attack_candidates(g, seat, obs, potential[0])])
        h = swap_hidden(g, seat)
        assert canonical([s for s, _, _ in attack_candidates(h, seat, obs, potential[0])]) == (
            before
        )
        for c in potential:
            cands = attack_candidates(g, seat, obs, c)
            assert cands[0][0]["defender"] is None and cands[0][2] is None
            assert [s["defender"] for s, _, _ in cands[1:]] == [{"player": f"p{1 - seat}"}]
            assert all(s["attacker"] == obs.ref(g, seat, c) for s, _, _ in cands)
            _, _, a = rng.choice(cands)
            if a is not None:
                g.apply(a)
                chosen.append(c)
        assert sorted(g.attackers) == sorted(chosen)  # then "done" ends the declaration
        g.apply(next(a for a in g.legal_actions() if a.kind == PASS))
        groups += 1
    assert groups > 5


def test_a_card_cast_with_flashback_is_cast_spell_method_flashback() -> None:
    # Flashback (702.34a; pauper cards, a format the engine role does not offer yet): the
    # card cast from its owner's graveyard is `cast_spell` with method `flashback`, and the
    # same card in the hand with method `normal`.
    from mtg_env.engine import Game
    from mtg_env.engine.constants import MAIN1

    zones = {"exile": [], "library": ["Mountain"] * 3}
    g, ids = Game.setup(
        [
            {
                "life": 20,
                **zones,
                "hand": [{"card": "Firebolt", "id": "in_hand"}],
                "graveyard": [{"card": "Firebolt", "id": "in_yard"}],
                "battlefield": ["Mountain"] * 5,
            },
            {"life": 20, **zones, "hand": [], "graveyard": [], "battlefield": []},
        ],
        format="pauper",
        turn=3,
        active=0,
        step=MAIN1,
    )
    obs = Observer(SECRET)
    methods = {
        a.obj: s["method"]
        for s, _, a in priority_candidates(g, 0, obs)
        if s["kind"] == "cast_spell"
    }
    assert methods == {ids["in_hand"]: "normal", ids["in_yard"]: "flashback"}
    texts = [t for s, t, _ in priority_candidates(g, 0, obs) if s["kind"] == "cast_spell"]
    assert sorted(texts) == ["Cast Firebolt", "Cast Firebolt with flashback"]
