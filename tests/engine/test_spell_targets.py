"""Targets on the stack (CR 115.1, 601.2c, 608.2b): "counter target [quality] spell" checks
the quality when the target is chosen and again on resolution.

The three cards that carry such a restriction each have a scenario
(tests/scenarios/core/rules/cr_601_2c_*.yaml: the illegal target is refused, the mode is not
offered without a legal target, the legal target is countered). Here: the check on
resolution, which no card of the core pool can reach (nothing there changes a spell's colour
while it is on the stack), and the mana value bounds card data may give a target.
"""

from __future__ import annotations

from typing import Any

import pytest

from mtg_env.engine import Game, load_cards
from mtg_env.engine.carddb import CardDataError, parse_card_set
from mtg_env.engine.cards import Filter, TargetSpec
from mtg_env.engine.constants import BATTLEFIELD, STACK
from mtg_env.scenario import Runner, build, parse_scenario, run_steps


def _position(script: list[Any], hand1: list[Any], extra0: list[Any] | None = None) -> Runner:
    sc = parse_scenario(
        {
            "name": "t",
            "format": "core",
            "setup": {
                "turn": 3,
                "active": 1,
                "step": "main1",
                "players": [
                    {
                        "hand": [{"card": "Red Elemental Blast", "id": "reb"}, *(extra0 or [])],
                        "battlefield": ["Mountain", "Mountain", "Mountain"],
                    },
                    {
                        "hand": hand1,
                        "library": ["Island", "Island", "Island"],
                        "battlefield": ["Island", "Island", "Island", "Mountain"],
                    },
                ],
            },
            "script": script,
        }
    )
    game, labels = build(sc)
    runner = Runner(game, labels)
    run_steps(runner, script)
    return runner


def _put_onto_battlefield(g: Game, name: str, seat: int, set_name: str) -> int:
    """What an instant-speed "put it onto the battlefield" effect does (as op_create_token)."""
    cid = g._new_card(load_cards(set_name).cards[name], seat)
    g._move(cid, BATTLEFIELD, controller=seat)
    g._etb(cid)
    return cid


def test_cr_608_2b_counter_target_blue_spell_that_stopped_being_blue() -> None:
    # Player 1 casts Divination (blue); player 0 answers with Red Elemental Blast's counter
    # mode targeting it (legal then). Before it resolves, player 1 gets Celestial Dawn ("The
    # same is true for spells you control": white): the Divination is no longer blue, so the
    # Blast's only target is illegal, the Blast doesn't resolve (608.2b) and the Divination
    # draws two cards.
    script = [
        {"player": 1, "play": "div"},
        "pass",
        {"player": 0, "play": "reb", "mode": "Counter target blue", "targets": ["div"]},
    ]
    r = _position(script, [{"card": "Divination", "id": "div"}])
    g = r.g
    reb, div = r.labels["reb"], r.labels["div"]
    assert [it.cid for it in g.stack] == [div, reb]
    item = g.stack[-1]
    assert g.target_still_legal(item, 0)
    _put_onto_battlefield(g, "Celestial Dawn", 1, "classic")
    assert g.chars(div).colors == 1  # white only
    assert not g.target_still_legal(item, 0)
    run_steps(r, ["resolve"])
    assert g.zone[div] != STACK and g.zone[reb] != STACK
    assert len(g.hand[1]) == 2  # the Divination resolved


def test_cr_608_2b_a_target_still_blue_is_countered() -> None:
    # The same line without Celestial Dawn: the Blast counters the Divination.
    script = [
        {"player": 1, "play": "div"},
        "pass",
        {"player": 0, "play": "reb", "mode": "Counter target blue", "targets": ["div"]},
        "resolve",
    ]
    r = _position(script, [{"card": "Divination", "id": "div"}])
    assert len(r.g.hand[1]) == 0 and len(r.g.library[1]) == 3


def _spell_on_stack(cost_x: int) -> tuple[Game, int, int]:
    """Player 1's Blaze (X announced as `cost_x`) on the stack; player 0's Red Elemental
    Blast in hand. Returns the game, the Blaze and the Blast."""
    script = [
        {"player": 1, "play": "blaze", "x": cost_x, "targets": ["player0"]},
        "pass",
    ]
    r = _position(script, [{"card": "Blaze", "id": "blaze"}])
    return r.g, r.labels["blaze"], r.labels["reb"]


@pytest.mark.parametrize(
    ("bounds", "x", "ok"),
    [
        ({"max_mana_value": 1}, 0, True),  # Blaze {X}{R}: mana value 1 + X on the stack
        ({"max_mana_value": 1}, 2, False),
        ({"max_mana_value": 3}, 2, True),
        ({"min_mana_value": 3}, 2, True),
        ({"min_mana_value": 4}, 2, False),
    ],
)
def test_cr_202_3e_mana_value_bound_on_a_spell_counts_its_x(
    bounds: dict[str, int], x: int, ok: bool
) -> None:
    g, blaze, reb = _spell_on_stack(x)
    spec = TargetSpec("spell", Filter(**bounds), "spell")
    assert g._target_ok(spec, blaze, reb, 0, 0) is ok
    assert (blaze in list(g._iter_targets(spec, reb, 0, 0, 0))) is ok


def test_mana_value_bounds_in_card_data() -> None:
    head = {"set": "x", "tokens": []}
    card = {
        "name": "Snare",
        "cost": "{U}",
        "types": ["instant"],
        "spell": {
            "targets": [{"kind": "spell", "max_mana_value": 2}],
            "effects": [{"counter": {"what": "target"}}],
        },
    }
    cs = parse_card_set({**head, "cards": [card]}, "x.yaml")
    f = cs.cards["Snare"].spell.targets[0].filter
    assert (f.min_mana_value, f.max_mana_value) == (0, 2)
    bad = {**card, "spell": {**card["spell"], "targets": [{"kind": "spell", "max_mana_value": -1}]}}
    with pytest.raises(CardDataError, match="max_mana_value"):
        parse_card_set({**head, "cards": [bad]}, "x.yaml")


@pytest.mark.parametrize(
    "scenario",
    ["cr_702_34a_flashback", "cr_702_34a_flashback_countered", "cr_702_34a_flashback_fizzle"],
)
def test_cr_702_34a_the_log_says_a_flashback_spell_is_exiled(scenario: str) -> None:
    """However a flashback spell leaves the stack (resolved, countered, without a legal
    target), it is exiled, and the log says so once."""
    from mtg_env.scenario import load_scenario, run_scenario

    r = run_scenario(load_scenario(f"tests/scenarios/pauper/{scenario}.yaml"))
    assert r.ok, r.message
    exiled = [line for line in r.log.splitlines() if line.endswith(" is exiled")]
    assert len(exiled) == 1, r.log
