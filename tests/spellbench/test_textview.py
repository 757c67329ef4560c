"""The text view of a neutral seat decision (`mtg_env.spellbench.textview`): what the seat
sees of the board and its candidates numbered by `candidate_id`, from the decision alone."""

from __future__ import annotations

import random

from mtg_env.engine import Game
from mtg_env.spellbench.engine import EngineSession
from mtg_env.spellbench.textview import seat_text

SECRET = b"t" * 32


def _states() -> list[Game]:
    out = []
    g = Game.new(("Red Burn", "Green Stompy"), seed=3, format="classic")
    r = random.Random(3)
    while not g.is_over and len(out) < 150:
        out.append(g.clone())
        g.apply(r.choice(g.legal_actions()))
    return out


def test_the_view_shows_the_seats_board_and_numbers_its_candidates() -> None:
    seen_hand = False
    for g in _states():
        sd = EngineSession.pose(g, SECRET)
        if sd is None:
            continue
        text = seat_text(sd)
        me = sd["acting_seat"]
        assert text.startswith(f"You are {me}.\n")
        listed = text.split("Your legal actions (answer with the number):\n")[1].splitlines()
        assert [line.split(":")[0].strip() for line in listed] == [
            str(c["candidate_id"]) for c in sd["candidates"]
        ]
        seat = int(me[1])
        if g.hand[seat]:
            hand_line = next(x for x in text.splitlines() if x.startswith("  Hand: "))
            assert hand_line.count(",") == len(g.hand[seat]) - 1
            seen_hand = True
        # The other seat's hand is a count: none of its cards is named unless public.
        opp_line = next(x for x in text.splitlines() if x.startswith("Opponent"))
        assert f"hand {len(g.hand[1 - seat])}," in opp_line
    assert seen_hand


def test_the_view_is_the_same_when_what_the_seat_cannot_see_changes() -> None:
    """Re-dealt hidden zones (the other seat's hand, both libraries) leave the text as it
    was: it is built from the seat decision, which carries nothing hidden."""
    checked = 0
    for g in _states()[::5]:
        seat = g.current_player
        sd = EngineSession.pose(g, SECRET)
        if sd is None or seat is None:
            continue
        for k in range(3):
            other = EngineSession.pose(g.resample_hidden(seat, k), SECRET)
            assert other is not None and seat_text(other) == seat_text(sd)
        checked += 1
    assert checked >= 10
