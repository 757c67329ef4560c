"""Layer-system API: explain() and the characteristics cache."""

from __future__ import annotations

from mtg_env.engine import Game


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
