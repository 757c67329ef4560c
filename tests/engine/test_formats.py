"""Rules formats on the one engine: the adventure format (source 004) beside classic.

Rules behaviours of each phase are scenario files (tests/scenarios/adventure/, named after
the source paragraph); here: the format's setup values, its card set and decks, random play
over every deck pair, determinism, agents, replays, and clear errors for bad input.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import make_agent
from agents.match import run_match
from mtg_env.cli import app
from mtg_env.engine import Game, load_cards, load_decks
from mtg_env.engine.carddb import CardDataError, parse_card_set, parse_deck
from mtg_env.engine.constants import LAND, MAIN1
from mtg_env.engine.formats import FORMATS, rules_for
from mtg_env.engine.formats.adventure import adventure_state
from mtg_env.env.replay import load_replay, verify
from mtg_env.scenario import ScenarioError, parse_scenario


def _random_game(a: str, b: str, seed: int, fmt: str = "adventure") -> Game:
    decks = load_decks(fmt)
    g = Game.new((decks[a], decks[b]), seed=seed, format=fmt, max_decisions=3000)
    rng = random.Random(seed)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_unknown_format_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown format .nope..*classic, adventure, pocket"):
        rules_for("nope")
    with pytest.raises(ValueError, match="unknown format"):
        Game.new(("Red Burn", "Red Burn"), format="nope")


def test_adventure_004_setup_values() -> None:
    """Source 004 says nothing of the start: 20 life, five cards, no mulligans (documented)."""
    decks = load_decks("adventure")
    g = Game.new((decks["Red Fire"], decks["Green Beasts"]), seed=3, format="adventure")
    assert g.life == [20, 20]
    fp = g.first_player
    # The first player's first DRAW phase ran: one mana, a sixth card; the other has five.
    st = adventure_state(g)
    assert st.pool_max[fp] == 1 and st.pool[fp] <= 1
    assert len(g.hand[fp]) + (1 - st.pool[fp]) >= 6 - 1
    assert st.pool_max[1 - fp] == 0 and len(g.hand[1 - fp]) == 5
    assert g.step == MAIN1 and g.current_player == fp


def test_adventure_card_set_has_no_lands_and_reuses_classic_cards() -> None:
    cs = load_cards("adventure")
    classic = load_cards("classic")
    assert not any(c.types & LAND for c in cs.cards.values())
    assert all(c.cost is not None for c in cs.cards.values())
    shared = set(cs.cards) & set(classic.cards)
    assert {"Grizzly Bears", "Lightning Bolt", "Basilisk Collar"} <= shared
    assert "Counterspell" not in cs.cards  # nothing waits on the stack to be countered
    own = set(cs.cards) - set(classic.cards)
    assert own == {"Sunlit Sanctuary", "Ember Shrine", "Oracle's Lantern", "Withering Totem"}
    assert cs.cards["Grizzly Bears"].text == classic.cards["Grizzly Bears"].text


def test_adventure_decks_are_thirty_cards_and_at_least_four() -> None:
    decks = load_decks("adventure")
    assert len(decks) >= 4
    assert all(len(d.cards) == rules_for("adventure").deck_size == 30 for d in decks.values())


@pytest.mark.parametrize("pair", list(itertools.combinations(sorted(load_decks("adventure")), 2)))
def test_adventure_random_play_over_all_deck_pairs(pair: tuple[str, str]) -> None:
    for seed in range(3):
        g = _random_game(pair[0], pair[1], seed)
        assert g.is_over and not g.truncated
        # The pool never exceeds the cap of 8 (source 004, DRAW).
        st = adventure_state(g)
        assert max(st.pool_max) <= 8 and min(st.pool) >= 0


def test_adventure_is_deterministic_and_clone_is_independent() -> None:
    a = _random_game("Red Fire", "White Knights", 21)
    b = _random_game("Red Fire", "White Knights", 21)
    assert a.state_hash() == b.state_hash()
    decks = load_decks("adventure")
    g = Game.new((decks["Red Fire"], decks["White Knights"]), seed=5, format="adventure")
    c = g.clone()
    assert c.state_hash() == g.state_hash()
    c.apply(c.legal_actions()[-1])
    assert c.state_hash() != g.state_hash()
    assert adventure_state(g).pool == adventure_state(g.clone()).pool


def test_a_format_owns_its_state_and_a_clone_copies_it() -> None:
    """Pocket's window and adventure's pool are the format's (`Game.format_state`), not
    shared fields: the format makes, copies and hashes them."""
    from mtg_env.engine.formats.pocket import PocketState, pocket_state
    from mtg_env.engine.objects import NO_FORMAT_STATE
    from mtg_env.engine.state import GameFields

    assert not {"window", "pool", "pool_max"} & set(GameFields.__annotations__)
    decks = load_decks("adventure")
    g = Game.new((decks["Red Fire"], decks["White Knights"]), seed=5, format="adventure")
    c = g.clone()
    assert adventure_state(c) is not adventure_state(g)
    adventure_state(c).pool[0] += 1  # a copy: the original is untouched, and the hash sees it
    assert adventure_state(g).pool != adventure_state(c).pool
    assert c.state_hash() != g.state_hash()
    pocket = load_decks("pocket")
    deck = next(iter(pocket.values()))
    p = Game.new((deck, deck), seed=1, format="pocket")
    assert isinstance(p.format_state, PocketState) and pocket_state(p.clone()) is not pocket_state(
        p
    )
    classic = load_decks("classic")
    k = Game.new((classic["Red Burn"], classic["Green Stompy"]), seed=1)
    assert k.format_state is NO_FORMAT_STATE and k.clone().format_state is NO_FORMAT_STATE


def test_adventure_pool_is_in_the_state_hash() -> None:
    g, _ = Game.setup([{"mana": 2}, {"mana": 0}], format="adventure", step=MAIN1)
    h, _ = Game.setup([{"mana": 3}, {"mana": 0}], format="adventure", step=MAIN1)
    assert g.state_hash() != h.state_hash()


def test_adventure_position_must_start_where_a_player_has_priority() -> None:
    from mtg_env.engine.constants import DECLARE_ATTACKERS

    with pytest.raises(ValueError, match="main or battle, not attackers"):
        Game.setup([{}, {}], format="adventure", step=DECLARE_ATTACKERS)


def test_deck_of_another_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="is a classic deck; this game is adventure"):
        Game.new((load_decks("classic")["Red Burn"],) * 2, format="adventure")
    with pytest.raises(CardDataError, match="unknown card 'Forest' in set 'adventure'"):
        parse_deck({"name": "x", "format": "adventure", "cards": ["30 Forest"]}, "deck.yaml")
    with pytest.raises(CardDataError, match="an adventure deck has exactly 30"):
        parse_deck({"name": "x", "format": "adventure", "cards": ["29 Grizzly Bears"]}, "deck.yaml")


def test_card_set_include_errors_name_the_field() -> None:
    with pytest.raises(CardDataError, match=r"include.cards\[1\]: no card 'Nope'"):
        parse_card_set(
            {"set": "x", "include": {"set": "classic", "cards": ["Shock", "Nope"]}}, "x.yaml"
        )
    with pytest.raises(CardDataError, match="include.set: unknown card set 'nope'"):
        parse_card_set({"set": "x", "include": {"set": "nope", "cards": []}}, "x.yaml")


def test_scenario_step_names_are_the_format_s_own() -> None:
    base = {"name": "n", "expect": [{"step": "main"}]}
    ok = parse_scenario(
        {**base, "format": "adventure", "setup": {"step": "battle", "players": [{}, {}]}}
    )
    assert ok.model.setup.step == "battle"
    with pytest.raises(ScenarioError, match="unknown step 'main1' for format adventure"):
        parse_scenario(
            {**base, "format": "adventure", "setup": {"step": "main1", "players": [{}, {}]}}
        )
    with pytest.raises(ScenarioError, match="advance: unknown step 'upkeep'.*adventure"):
        parse_scenario(
            {
                "name": "n",
                "format": "adventure",
                "setup": {"players": [{}, {}]},
                "script": [{"advance": "upkeep"}],
            }
        )
    with pytest.raises(ScenarioError, match="mana is not a player field of format classic"):
        parse_scenario({**base, "setup": {"players": [{"mana": 3}, {}]}})


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:8"])
def test_agents_play_adventure_legally(spec: str) -> None:
    # Game.apply raises on an illegal action, so finished games prove legality.
    res = run_match(spec, "random", 2, seed=3, fmt="adventure")
    assert res.games == 2
    assert make_agent(spec, 0) is not None


def test_heuristic_beats_random_in_adventure_on_fixed_seeds() -> None:
    res = run_match("heuristic", "random", 40, seed=11, fmt="adventure")
    assert res.win_rate_a >= 0.8, res.to_dict()


@pytest.mark.parametrize("fmt", ["adventure", "pocket"])
def test_replay_records_and_verifies(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    r = CliRunner().invoke(
        app,
        ["replay", "record", "--seed", "2", "--format", fmt, "--agents", "heuristic,random"]
        + ["--out", str(out)],
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert data["format"] == fmt and data["result"]["over"]
    verify(load_replay(out))


def test_every_format_has_rules_and_a_card_set() -> None:
    for name, r in FORMATS.items():
        assert r.name == name
        assert load_cards(r.card_set).cards
        assert load_decks(name)


# ---------------------------------------------------------------------- pocket (source 003)


def _pocket(seed: int = 1) -> Game:
    d = load_decks("pocket")["Pocket 18"]
    return Game.new((d, d), seed=seed, format="pocket")


def test_pocket_003_setup_face_down_card_three_cards_and_redraw() -> None:
    """Source 003, "Setup": one shared 18-card pile; each player draws one card and puts it
    face down (a mana source), then draws three; first player first, each may discard
    cards to draw as many."""
    from mtg_env.engine.carddb import FACE_DOWN
    from mtg_env.engine.constants import D_DISCARD

    g = _pocket(3)
    fp = g.first_player
    assert [len(h) for h in g.hand] == [3, 3]
    for seat in (0, 1):
        mine = [c for c in g.battlefield if g.controller(c) == seat]
        assert len(mine) == 1 and g.cdef[mine[0]].name == FACE_DOWN
    assert len(g.library[0]) == 18 - 8 and not g.library[1]
    assert g.life == [20, 20]
    d = g.decision
    assert d is not None and d.kind == D_DISCARD and d.player == fp
    # Discard two, then done: two new cards; the discards are in the shared discard pile.
    for _ in range(2):
        g.apply(next(a for a in g.legal_actions() if a.kind != 0))
    g.apply(g.legal_actions()[0])  # done (pass)
    assert len(g.hand[fp]) == 3 and len(g.graveyard[0]) == 2 and len(g.library[0]) == 8
    assert g.decision is not None and g.decision.player == 1 - fp


def test_pocket_003_pile_reshuffles_the_discard_pile_when_it_runs_out() -> None:
    g, _ = Game.setup(
        [{"graveyard": ["Wanderer / Scout", "Hermit / Insight"]}, {}],
        format="pocket",
        step=MAIN1,
    )
    assert not g.library[0]
    g.apply(g.legal_actions()[0])  # pass: cleanup, then the draw reshuffles
    assert len(g.hand[0]) == 1 and len(g.library[0]) == 1 and not g.graveyard[0]
    assert g.owner[g.hand[0][0]] == 0
    assert "the discard pile is shuffled" in g.log_text()


def test_pocket_face_down_identity_is_hidden_from_the_opponent() -> None:
    from mtg_env.env.replay import layout_for

    lay = layout_for("pocket")
    views = []
    for card in ("Warlord / Rally", "Hermit / Insight"):
        g, _ = Game.setup(
            [{"battlefield": [{"card": card, "face_down": True}]}, {}],
            format="pocket",
            step=MAIN1,
        )
        views.append(lay.observe(g, 1))
    assert (views[0] == views[1]).all()


def test_pocket_shared_pile_needs_the_same_deck_twice() -> None:
    from mtg_env.engine.carddb import Deck

    d = load_decks("pocket")["Pocket 18"]
    other = Deck("Other", "pocket", tuple(reversed(d.cards)))
    with pytest.raises(ValueError, match="one shared pile: give the same deck twice"):
        Game.new((d, other), format="pocket")


def test_pocket_half_of_a_card_is_not_a_deck_entry() -> None:
    with pytest.raises(CardDataError, match="'Spark' is half of a card"):
        parse_deck({"name": "x", "format": "pocket", "cards": ["18 Spark"]}, "deck.yaml")


def test_pocket_random_play_is_deterministic_and_ends() -> None:
    hashes = []
    for _ in range(2):
        g = _random_game("Pocket 18", "Pocket 18", 12, fmt="pocket")
        assert g.is_over and not g.truncated
        hashes.append(g.state_hash())
    assert hashes[0] == hashes[1]
    for seed in range(20):
        g = _random_game("Pocket 18", "Pocket 18", seed, fmt="pocket")
        assert g.is_over and not g.truncated


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:8"])
def test_agents_play_pocket_legally(spec: str) -> None:
    res = run_match(spec, "random", 2, seed=3, fmt="pocket")
    assert res.games == 2


def test_heuristic_beats_random_in_pocket_on_fixed_seeds() -> None:
    res = run_match("heuristic", "random", 40, seed=11, fmt="pocket")
    assert res.win_rate_a >= 0.8, res.to_dict()


def test_pocket_resample_hidden_redeals_what_is_under_face_down_sources() -> None:
    """The opponent's face-down cards are hidden information: determinizations vary them;
    the seat's own view (observation) is unchanged."""
    from mtg_env.env.replay import layout_for

    g = _pocket(5)
    while g.decision is not None and g.decision.kind != 0:  # through the redraws
        g.apply(g.legal_actions()[0])
    seat = g.current_player
    assert seat is not None
    opp = 1 - seat
    down = next(c for c in g.battlefield if g.controller(c) == opp)
    lay = layout_for("pocket")
    seen = set()
    for i in range(30):
        h = g.resample_hidden(seat, i)
        seen.add(h.cdef[down].half_of)
        assert (lay.observe(h, seat) == lay.observe(g, seat)).all()
        assert h.cdef[down].name == g.cdef[down].name

        def cards(x: Game) -> list[str]:  # every physical card, whatever side is up
            return sorted(c.half_of or c.name for c in x.cdef)

        assert cards(h) == cards(g)
    assert len(seen) > 1


def test_pocket_position_starts_in_the_main_phase() -> None:
    from mtg_env.engine.constants import COMBAT_DAMAGE

    with pytest.raises(ValueError, match="main phase \\(main\\), not fight"):
        Game.setup([{}, {}], format="pocket", step=COMBAT_DAMAGE)
