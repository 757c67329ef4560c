"""Modal spells (CR 700.2) and X spells (CR 107.3) in card data and in the engine: what
the loader accepts, what a caster is offered as the spell is cast (601.2b), what is paid
(601.2f), and that clones and deep copies of a game in the middle of an announcement go on as
the game does. The cards' own behaviour is in their scenarios (tests/scenarios/core)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agents.heuristic import HeuristicAgent
from mtg_env.engine import Action, load_cards
from mtg_env.engine.carddb import CardDataError, parse_card_set
from mtg_env.engine.cards import parse_cost, parse_mana_cost
from mtg_env.engine.constants import (
    CHOOSE,
    D_CHOICE,
    D_PRIORITY,
    D_TARGET,
    PLAY,
    TARGET,
    player_ref,
)
from mtg_env.engine.decisions import Announce
from mtg_env.engine.log import render_event
from mtg_env.engine.priority import MAX_X
from mtg_env.render import stack_items
from mtg_env.scenario import Runner, build, parse_scenario, run_steps

HEAD = {"set": "x", "tokens": []}


def _spell(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "S", "cost": "{X}{R}", "types": ["sorcery"]}
    base.update(kw)
    return base


# ------------------------------------------------------------------ data


def test_cr_107_3_x_in_a_mana_cost_is_announced_not_mana_value() -> None:
    c = parse_mana_cost("{X}{X}{G}")
    assert (c.x, c.generic, c.mv, c.text) == (2, 0, 1, "{X}{X}{G}")
    assert bool(parse_mana_cost("{X}")) and parse_mana_cost("{X}").text == "{X}"
    paid = c.with_x(3)  # two X symbols: 2 * 3 generic
    assert (paid.generic, paid.pips, paid.x) == (6, c.pips, 0)
    assert parse_mana_cost("{2}{U}").with_x(5) == parse_mana_cost("{2}{U}")
    with pytest.raises(ValueError, match="X"):
        parse_cost("{X}, {T}")


def test_x_in_effects_needs_x_in_the_cost_and_the_other_way_round() -> None:
    dmg = {"targets": ["any"], "effects": [{"damage": {"amount": "X", "to": "target"}}]}
    cs = parse_card_set({**HEAD, "cards": [_spell(spell=dmg)]}, "x.yaml")
    assert cs.cards["S"].spell.effects[0].args["amount"] == "X"
    with pytest.raises(CardDataError, match="only a spell with {X}"):
        parse_card_set({**HEAD, "cards": [_spell(cost="{1}{R}", spell=dmg)]}, "x.yaml")
    fixed = {"targets": ["any"], "effects": [{"damage": {"amount": 2, "to": "target"}}]}
    with pytest.raises(CardDataError, match="uses X in its spell"):
        parse_card_set({**HEAD, "cards": [_spell(spell=fixed)]}, "x.yaml")
    bad = {"targets": ["any"], "effects": [{"damage": {"amount": "Y", "to": "target"}}]}
    with pytest.raises(CardDataError, match="amount"):
        parse_card_set({**HEAD, "cards": [_spell(spell=bad)]}, "x.yaml")
    # "-X" only where a number may be negative (a P/T change).
    neg = {"targets": ["any"], "effects": [{"damage": {"amount": "-X", "to": "target"}}]}
    with pytest.raises(CardDataError, match="amount"):
        parse_card_set({**HEAD, "cards": [_spell(spell=neg)]}, "x.yaml")


def test_cr_700_2_a_modal_spell_has_two_or_more_modes_and_nothing_else() -> None:
    mode = {"text": "Draw a card.", "effects": [{"draw": {"count": 1}}]}
    ok = _spell(cost="{U}", spell={"modes": [mode, {**mode, "text": "Draw again."}]})
    cd = parse_card_set({**HEAD, "cards": [ok]}, "x.yaml").cards["S"]
    assert [m.text for m in cd.spell.modes] == ["Draw a card.", "Draw again."]
    assert cd.spell.effects == () and cd.spell.targets == ()
    one = _spell(cost="{U}", spell={"modes": [mode]})
    with pytest.raises(CardDataError, match="two or more modes"):
        parse_card_set({**HEAD, "cards": [one]}, "x.yaml")
    mixed = _spell(cost="{U}", spell={"modes": [mode, mode], "effects": [{"draw": {}}]})
    with pytest.raises(CardDataError, match="in its modes"):
        parse_card_set({**HEAD, "cards": [mixed]}, "x.yaml")


def test_the_core_set_has_modal_and_x_spells() -> None:
    cards = load_cards("core").cards.values()
    modal = [c for c in cards if c.spell is not None and c.spell.modes]
    xs = [c for c in cards if c.cost is not None and c.cost.x]
    assert len(modal) >= 6 and len(xs) >= 10


# ------------------------------------------------------------------ engine


def _runner(hand: str, lands: list[str], opp: list[Any] | None = None) -> Runner:
    raw = {
        "name": "announce",
        "format": "core",
        "setup": {
            "turn": 3,
            "step": "main1",
            "players": [
                {
                    "hand": [{"card": hand, "id": "spell"}],
                    "library": ["Forest"] * 5,
                    "battlefield": lands,
                },
                {"library": ["Forest"] * 5, "battlefield": opp or []},
            ],
        },
        "expect": [{"game_over": False}],
    }
    g, labels = build(parse_scenario(raw, "test"))
    return Runner(g, labels)


def test_cr_107_3a_x_is_offered_up_to_what_the_caster_can_pay() -> None:
    r = _runner("Blaze", ["Mountain"] * 4)
    g = r.g
    g.apply(Action(PLAY, r.labels["spell"]))
    d = g.decision
    assert d is not None and d.kind == D_CHOICE and isinstance(g.ctx, Announce)
    assert d.options == ("X = 0", "X = 1", "X = 2", "X = 3")
    g.apply(Action(CHOOSE, 0, 2))
    assert g.decision.kind == D_TARGET  # 601.2c: targets after the announcements
    g.apply(Action(TARGET, player_ref(1)))
    assert g.decision.kind == D_PRIORITY
    assert sum(g.perm[c].tapped for c in g.controlled(0)) == 3  # {2}{R}
    assert stack_items(g)[0]["what"].endswith("(X = 2)")


def test_x_is_capped_so_the_choice_fits_the_option_table() -> None:
    r = _runner("Blaze", ["Mountain"] * (MAX_X + 4))
    r.g.apply(Action(PLAY, r.labels["spell"]))
    assert len(r.g.decision.options) == MAX_X + 1


def test_cr_700_2a_a_mode_without_legal_targets_is_not_offered() -> None:
    # No artifact anywhere: Abrade offers only its damage mode.
    r = _runner("Abrade", ["Mountain", "Mountain"], opp=["Hill Giant"])
    g = r.g
    g.apply(Action(PLAY, r.labels["spell"]))
    assert g.decision.options == ("Abrade deals 3 damage to target creature.",)
    # Nothing to target with any mode: the spell can't be cast at all.
    r = _runner("Abrade", ["Mountain", "Mountain"])
    assert all(a.kind != PLAY for a in r.g.legal_actions())


def test_a_clone_and_a_deep_copy_mid_announcement_continue_like_the_game() -> None:
    r = _runner("Sphinx's Revelation", ["Plains", "Island", "Island", "Island", "Island"])
    g = r.g
    g.apply(Action(PLAY, r.labels["spell"]))
    copies = [g.clone(), copy.deepcopy(g)]  # deepcopy: the serializable path
    for x in (g, *copies):
        x.apply(Action(CHOOSE, 0, 2))
        run_steps(Runner(x, r.labels), ["resolve"])
    assert len({x.state_hash() for x in (g, *copies)}) == 1
    assert g.life[0] == 22 and len(g.hand[0]) == 2


def test_cr_601_2b_the_log_says_what_was_announced() -> None:
    r = _runner("Abrade", ["Mountain", "Mountain"], opp=["Hill Giant", "Ornithopter"])
    run_steps(r, [{"player": 0, "play": "spell", "mode": "Destroy", "targets": ["Ornithopter"]}])
    ev = [e for e in r.g.events if e[0] == "announce"]
    assert ev == [("announce", 0, r.labels["spell"], "mode", 1)]
    assert render_event(r.g, ev[0]).endswith(": Destroy target artifact.")
    assert stack_items(r.g)[0]["what"].endswith("[Destroy target artifact.]")


# ------------------------------------------------------------------ the heuristic


def test_heuristic_x_kills_the_planned_creature_with_just_enough() -> None:
    r = _runner("Blaze", ["Mountain"] * 7, opp=["Hill Giant"])
    agent = HeuristicAgent(0)
    g = r.g
    a = agent.choose(g)
    assert a == Action(PLAY, r.labels["spell"])
    g.apply(a)
    x = agent.choose(g)
    assert g.decision.options[x.arg] == "X = 3"  # the Giant is 3/3; six could be paid


def test_heuristic_draws_with_all_it_can_pay() -> None:
    r = _runner("Mind Spring", ["Island"] * 6)
    agent = HeuristicAgent(0)
    g = r.g
    g.apply(agent.choose(g))
    x = agent.choose(g)
    assert g.decision.options[x.arg] == "X = 4"


def test_heuristic_picks_the_mode_that_has_a_use() -> None:
    # An artifact creature worth killing and nothing else: the damage mode kills the
    # Ornithopter too, but the 3/3 Giant is the better target for 3 damage.
    r = _runner("Abrade", ["Mountain", "Mountain"], opp=["Hill Giant", "Ornithopter"])
    agent = HeuristicAgent(0)
    g = r.g
    a = agent.choose(g)
    assert a.kind == PLAY
    g.apply(a)
    m = agent.choose(g)
    assert g.decision.options[m.arg].startswith("Abrade deals 3 damage")
    g.apply(m)
    t = agent.choose(g)
    assert g.cdef[t.obj].name == "Hill Giant"
