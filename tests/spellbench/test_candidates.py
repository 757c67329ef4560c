"""The candidates of a priority decision (the spec's Section 7.2) for our games: pass
first, one candidate per legal action, distinct semantics, references that match the
observation, and nothing that depends on what the seat cannot see."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from sample_games import SECRET, states

from mtg_env.engine.constants import D_PRIORITY
from mtg_env.spellbench.candidates import activated_ability, priority_candidates
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
