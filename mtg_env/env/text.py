"""The text view of a game for one seat: what that seat may see and its legal actions as a
numbered list, in plain text for a prompt (an LLM agent's observation).

`raw_env.text(agent)` returns it for the env's state, numbered with the indices `step`
takes (candidate rows in v1, flat indices in v0). Hidden information is as in the
observations: the opponent's hand is a count, libraries are counts, a face-down card shows
as a face-down source; objects are named `Name#id`, the id telling apart two copies.
"""

from __future__ import annotations

from ..engine import Game
from ..engine.log import obj_name
from ..render import render


def text_view(g: Game, seat: int, legal: list[tuple[int, str]]) -> str:
    lines = [f"You are player {seat}.", render(g, seat=seat)]
    for s in dict.fromkeys((g.rules.pile(seat), g.rules.pile(1 - seat))):
        if g.graveyard[s]:
            who = "shared" if g.rules.pile(0) == g.rules.pile(1) else f"player {s}'s"
            lines.append(f"Graveyard ({who}): " + ", ".join(obj_name(g, c) for c in g.graveyard[s]))
    for s in (0, 1):
        if g.exile[s]:
            lines.append(f"Exile (player {s}): " + ", ".join(obj_name(g, c) for c in g.exile[s]))
    if legal:
        lines.append("Your legal actions (answer with the number):")
        lines += [f"  {i}: {desc}" for i, desc in legal]
    elif not g.is_over:
        lines.append(f"Waiting for player {g.current_player}.")
    return "\n".join(lines) + "\n"
