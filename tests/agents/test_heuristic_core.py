"""The scripted player and the core set's newer effects (exile, fight, life loss, mill) and
keywords (hexproof, indestructible): small positions built from a scenario `setup:`
mapping, and the choice the heuristic makes in each. It picks by what the cards do, never
by their names (tests/engine/test_format_hooks.py); the classic games it plays are pinned by
tests/agents/test_heuristic_trace.py."""

from __future__ import annotations

from typing import Any

from agents.heuristic import HeuristicAgent
from agents.heuristic_scores import creature_value, spell_score
from mtg_env.engine import Game
from mtg_env.engine.cards import Component
from mtg_env.engine.chars import Effect
from mtg_env.engine.constants import (
    ACTIVATE,
    ATTACK,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    D_CHOICE,
    D_PRIORITY,
    D_TARGET,
    DUR_FOREVER,
    L_ABILITY,
    PASS,
    PLAY,
    player_ref,
)
from mtg_env.engine.objects import Action
from mtg_env.scenario import Runner, build, parse_scenario

ME, OPP = player_ref(0), player_ref(1)


def _position(
    mine: dict[str, Any], theirs: dict[str, Any], **setup: Any
) -> tuple[Game, dict[str, int]]:
    """A core position from a scenario `setup:` mapping: player 0 (the heuristic) is
    active in its first main phase unless `setup` says otherwise."""
    raw = {
        "name": "heuristic position",
        "format": "core",
        "setup": {"turn": 3, "step": "main1", **setup, "players": [mine, theirs]},
        "expect": [{"turn": 3}],
    }
    return build(parse_scenario(raw, "position.yaml"))


def _indestructible(g: Game, cid: int) -> None:
    """Give a permanent indestructible (no core card grants it yet): a continuous effect
    as a resolved spell would create it."""
    comp = Component(L_ABILITY, "add_keywords", frozenset({"indestructible"}))
    oid = g.oid[cid]
    who = g.chars(cid).controller
    g.effects.append(
        Effect.new(g._tick(), (comp,), ((cid, oid),), DUR_FOREVER, cid, oid, who, "indestructible")
    )
    g._dirty = True
    assert "indestructible" in g.chars(cid).keywords


def _cast(g: Game, agent: HeuristicAgent) -> tuple[str | None, list[int]]:
    """The heuristic's move at priority: the card it casts (None: it passes) and the
    targets it picks for it."""
    a = agent.choose(g)
    if a.kind != PLAY:
        return None, []
    name = g.cdef[a.obj].name
    g.apply(a)
    while g.decision is not None and g.decision.kind == D_TARGET and g.decision.player == 0:
        g.apply(agent.choose(g))
    return name, [r for r, _ in g.stack[-1].targets]


LANDS = {
    "G": ["Forest"] * 4,
    "B": ["Swamp"] * 4,
    "WB": ["Plains", "Swamp", "Swamp", "Swamp"],
    "R": ["Mountain"] * 4,
    "U": ["Island"] * 4,
}


# ---------------------------------------------------------------------- fight


def test_fights_with_a_creature_that_kills_and_survives() -> None:
    g, lab = _position(
        {
            "hand": ["Prey Upon"],
            "battlefield": [
                *LANDS["G"],
                {"card": "Llanowar Elves", "id": "elves"},
                {"card": "Centaur Courser", "id": "courser"},
            ],
        },
        {"battlefield": [{"card": "Grizzly Bears", "id": "bears"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Prey Upon", [lab["courser"], lab["bears"]])


def test_does_not_fight_when_its_creature_cannot_kill() -> None:
    g, _ = _position(
        {"hand": ["Prey Upon"], "battlefield": [*LANDS["G"], "Llanowar Elves"]},
        {"battlefield": ["Grizzly Bears"]},
    )
    assert _cast(g, HeuristicAgent(0)) == (None, [])


def test_a_deathtouch_fighter_trades_up() -> None:
    g, lab = _position(
        {"hand": ["Prey Upon"], "battlefield": [*LANDS["G"], {"card": "Typhoid Rats", "id": "r"}]},
        {"battlefield": [{"card": "Colossal Dreadmaw", "id": "big"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Prey Upon", [lab["r"], lab["big"]])


def test_a_fight_that_trades_gives_up_the_cheaper_creature() -> None:
    # Both of ours kill the 3/3 and die to it: the trade that costs least.
    g, lab = _position(
        {
            "hand": ["Prey Upon"],
            "battlefield": [*LANDS["G"], "Centaur Courser", {"card": "Typhoid Rats", "id": "r"}],
        },
        {"battlefield": [{"card": "Hill Giant", "id": "giant"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Prey Upon", [lab["r"], lab["giant"]])


def test_a_pump_before_the_fight_counts() -> None:
    # Epic Confrontation's +1/+2 makes the Courser a 4/5 that kills the 3/3 and survives.
    g, lab = _position(
        {
            "hand": ["Epic Confrontation"],
            "battlefield": [
                *LANDS["G"],
                {"card": "Centaur Courser", "id": "courser"},
                "Typhoid Rats",
            ],
        },
        {"battlefield": [{"card": "Hill Giant", "id": "giant"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Epic Confrontation", [lab["courser"], lab["giant"]])


def test_does_not_fight_an_indestructible_or_hexproof_creature() -> None:
    g, lab = _position(
        {"hand": ["Prey Upon"], "battlefield": [*LANDS["G"], "Centaur Courser"]},
        {"battlefield": [{"card": "Grizzly Bears", "id": "bears"}, "Primal Huntbeast"]},
    )
    _indestructible(g, lab["bears"])
    assert _cast(g, HeuristicAgent(0)) == (None, [])


def test_fights_the_creature_it_can_target() -> None:
    g, lab = _position(
        {
            "hand": ["Prey Upon"],
            "battlefield": [*LANDS["G"], {"card": "Colossal Dreadmaw", "id": "big"}],
        },
        {"battlefield": ["Primal Huntbeast", {"card": "Grizzly Bears", "id": "bears"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Prey Upon", [lab["big"], lab["bears"]])


# ---------------------------------------------------------------------- removal


def test_exile_answers_an_indestructible_creature_that_destroy_cannot() -> None:
    g, lab = _position(
        {"hand": ["Doom Blade", "Anguished Unmaking"], "battlefield": LANDS["WB"]},
        {"battlefield": [{"card": "Colossal Dreadmaw", "id": "big"}, "Grizzly Bears"]},
    )
    _indestructible(g, lab["big"])
    assert _cast(g, HeuristicAgent(0)) == ("Anguished Unmaking", [lab["big"]])


def test_destroy_skips_an_indestructible_creature() -> None:
    g, lab = _position(
        {"hand": ["Doom Blade"], "battlefield": LANDS["B"]},
        {
            "battlefield": [
                {"card": "Colossal Dreadmaw", "id": "big"},
                {"card": "Grizzly Bears", "id": "b"},
            ]
        },
    )
    _indestructible(g, lab["big"])
    assert _cast(g, HeuristicAgent(0)) == ("Doom Blade", [lab["b"]])


def test_exile_is_removal_like_destroy() -> None:
    g, lab = _position(
        {"hand": ["Anguished Unmaking"], "battlefield": LANDS["WB"]},
        {"battlefield": ["Grizzly Bears", {"card": "Colossal Dreadmaw", "id": "big"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Anguished Unmaking", [lab["big"]])


def test_damage_is_not_aimed_at_an_indestructible_creature() -> None:
    g, lab = _position(
        {"hand": ["Lightning Strike"], "battlefield": LANDS["R"]},
        {
            "battlefield": [
                {"card": "Colossal Dreadmaw", "id": "big"},
                {"card": "Centaur Courser", "id": "c"},
            ]
        },
    )
    _indestructible(g, lab["c"])
    assert _cast(g, HeuristicAgent(0)) == (None, [])


def test_removal_leaves_a_hexproof_creature_alone() -> None:
    g, lab = _position(
        {"hand": ["Murder"], "battlefield": LANDS["B"]},
        {"battlefield": ["Primal Huntbeast", {"card": "Grizzly Bears", "id": "b"}]},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Murder", [lab["b"]])
    g, _ = _position(
        {"hand": ["Murder", "Lightning Strike"], "battlefield": [*LANDS["B"], *LANDS["R"]]},
        {"battlefield": ["Primal Huntbeast", "Gladecover Scout"]},
    )
    assert _cast(g, HeuristicAgent(0)) == (None, [])


def test_hexproof_saves_a_creature_from_removal() -> None:
    # The opponent's turn: Murder on our Courser; Blossoming Defense gives it hexproof in
    # response, and Murder does nothing.
    g, lab = _position(
        {
            "hand": ["Blossoming Defense"],
            "battlefield": ["Forest", {"card": "Centaur Courser", "id": "courser"}],
        },
        {"hand": [{"card": "Murder", "id": "murder"}], "battlefield": LANDS["B"]},
        active=1,
    )
    r = Runner(g, lab)
    r.action_step({"player": 1, "play": "murder", "targets": ["courser"]})
    r.g.apply(Action(PASS))  # the caster passes priority
    assert r.g.decision.kind == D_PRIORITY and r.g.decision.player == 0
    assert _cast(r.g, HeuristicAgent(0)) == ("Blossoming Defense", [lab["courser"]])
    r.resolve()
    assert r.g.zone[lab["courser"]] == 2 and r.g.zone[lab["murder"]] == 3


# ---------------------------------------------------------------------- life loss, mill


def test_life_loss_is_aimed_at_the_opponent_and_finishes_them() -> None:
    agent = HeuristicAgent(0)
    g, lab = _position(
        {"hand": [{"card": "Sovereign's Bite", "id": "bite"}], "battlefield": LANDS["B"]}, {}
    )
    assert _cast(g, agent) == ("Sovereign's Bite", [OPP])
    g, lab = _position(
        {"hand": [{"card": "Sovereign's Bite", "id": "bite"}], "battlefield": LANDS["B"]},
        {"life": 3},
    )
    assert spell_score(g, 0, lab["bite"], main2=False) == (100.0, [OPP])


def test_draw_and_lose_life_targets_itself_unless_it_is_lethal() -> None:
    mine = {"hand": ["Sign in Blood"], "battlefield": LANDS["B"], "library": ["Swamp"] * 5}
    g, _ = _position(mine, {})
    assert _cast(g, HeuristicAgent(0)) == ("Sign in Blood", [ME])
    g, _ = _position(mine, {"life": 2})
    assert _cast(g, HeuristicAgent(0)) == ("Sign in Blood", [OPP])
    # Low on life, or too few cards left to draw: not cast.
    g, _ = _position({**mine, "life": 5}, {})
    assert _cast(g, HeuristicAgent(0)) == (None, [])
    g, _ = _position({**mine, "library": ["Swamp"]}, {})
    assert _cast(g, HeuristicAgent(0)) == (None, [])


def test_mill_targets_the_opponent_and_is_a_low_value_play() -> None:
    library = ["Island"] * 10
    g, lab = _position(
        {"hand": ["Tome Scour", "Coral Merfolk"], "battlefield": LANDS["U"], "library": library},
        {"library": library},
        step="main2",
    )
    assert _cast(g, HeuristicAgent(0)) == ("Coral Merfolk", [])
    g, lab = _position(
        {"hand": ["Tome Scour"], "battlefield": LANDS["U"], "library": library},
        {"library": library},
    )
    assert _cast(g, HeuristicAgent(0)) == ("Tome Scour", [OPP])


def test_a_mill_trigger_targets_the_opponent() -> None:
    library = ["Swamp"] * 10
    g, lab = _position(
        {
            "hand": [{"card": "Returned Centaur", "id": "c"}],
            "battlefield": LANDS["B"],
            "library": library,
        },
        {"library": library},
    )
    agent = HeuristicAgent(0)
    r = Runner(g, lab)
    r.action_step({"player": 0, "play": "c"})
    r.resolve()
    d = r.g.decision
    assert d.kind == D_TARGET and d.player == 0
    r.g.apply(agent.choose(r.g))
    assert [t for t, _ in r.g.stack[-1].targets] == [OPP]


def test_drains_the_opponent_with_mana_left_at_their_end_of_turn() -> None:
    g, lab = _position(
        {"battlefield": ["Swamp", "Swamp", {"card": "Vampire Neonate", "id": "neonate"}]},
        {},
        active=1,
        step="end",
    )
    g.apply(Action(PASS))  # the active player passes at its end step
    a = HeuristicAgent(0).choose(g)
    assert a.kind == ACTIVATE and a.obj == lab["neonate"]


# ---------------------------------------------------------------------- combat values


def test_hexproof_and_indestructible_creatures_are_valued_higher() -> None:
    g, lab = _position(
        {
            "battlefield": [
                {"card": "Primal Huntbeast", "id": "hex"},
                {"card": "Centaur Courser", "id": "c"},
            ]
        },
        {"battlefield": [{"card": "Hill Giant", "id": "giant"}]},
    )
    # Same size, one with hexproof: worth a point more (not just any keyword's 0.3).
    assert creature_value(g, lab["hex"]) >= creature_value(g, lab["c"]) + 1
    before = creature_value(g, lab["giant"])
    _indestructible(g, lab["giant"])
    assert creature_value(g, lab["giant"]) >= before + 2


def test_an_indestructible_creature_attacks_into_a_bigger_blocker() -> None:
    def attacks(indestructible: bool) -> bool:
        g, lab = _position(
            {"battlefield": [{"card": "Grizzly Bears", "id": "bears"}]},
            {"battlefield": ["Centaur Courser"]},
        )
        if indestructible:
            _indestructible(g, lab["bears"])
        r = Runner(g, lab)
        r.advance("declare_attackers")
        assert r.g.decision.kind == D_ATTACKERS
        return HeuristicAgent(0).choose(r.g) == Action(ATTACK, lab["bears"], 1)

    assert not attacks(indestructible=False)
    assert attacks(indestructible=True)


def test_an_indestructible_creature_blocks_a_bigger_attacker() -> None:
    def blocks(indestructible: bool) -> dict[int, int]:
        g, lab = _position(
            {"battlefield": [{"card": "Grizzly Bears", "id": "bears"}]},
            {"battlefield": [{"card": "Centaur Courser", "id": "courser"}]},
            active=1,
        )
        if indestructible:
            _indestructible(g, lab["bears"])
        r = Runner(g, lab)
        r.advance("declare_attackers")
        r.action_step({"player": 1, "attack": ["courser"]})
        r.advance("declare_blockers")
        agent = HeuristicAgent(0)
        g = r.g
        while g.decision.kind in (D_BLOCKERS, D_BLOCK_TARGET) and g.decision.player == 0:
            a = agent.choose(g)
            g.apply(a)
            if a.kind == PASS:
                break
        return dict(g.blockers)

    assert blocks(indestructible=False) == {}
    assert len(blocks(indestructible=True)) == 1


# ---------------------------------------------------------------------- scry, surveil


def _scry_answers(
    library: list[Any], battlefield: list[Any], spell: str = "Preordain"
) -> list[str]:
    """Cast a scry/surveil spell and let the heuristic answer every card: what it said."""
    g, lab = _position(
        {"hand": [spell], "battlefield": battlefield, "library": library},
        {"library": ["Forest"] * 5},
    )
    agent = HeuristicAgent(0)
    a = agent.choose(g)
    assert a.kind == PLAY and g.cdef[a.obj].name == spell
    g.apply(a)
    said = []
    for _ in range(40):
        d = g.decision
        if d.kind == D_CHOICE:
            act = agent.choose(g)
            said.append(d.options[act.arg])
            g.apply(act)
        elif not g.stack and said:
            break
        else:
            g.apply(agent.choose(g))
    return said


def test_scry_sends_away_a_land_it_has_plenty_of_and_keeps_a_castable_spell() -> None:
    said = _scry_answers(
        ["Grizzly Bears", "Forest", "Craw Wurm", "Plains"],  # the first is the top card
        [*LANDS["U"], "Island", "Island"],
    )
    assert said[:2] == ["Grizzly Bears on top", "Forest on the bottom"]


def test_scry_keeps_a_land_while_lands_are_short_and_bottoms_a_far_spell() -> None:
    said = _scry_answers(["Colossal Dreadmaw", "Forest", "Plains"], ["Island"], "Opt")
    assert said == ["Colossal Dreadmaw on the bottom"]
    said = _scry_answers(["Forest", "Craw Wurm", "Plains"], ["Island"], "Opt")
    assert said == ["Forest on top"]
