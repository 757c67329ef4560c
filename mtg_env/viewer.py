"""The replay viewer: one self-contained HTML page that steps through a recorded game.

`replay_frames` re-simulates a replay (checking it as `verify` does) and captures one
JSON-able frame per decision, taken before the action is applied, plus the final state.
`render_html` embeds the frames in a page with inline CSS and JavaScript and no external
resource, so the file opens offline in any browser and can be mailed or attached to a bug.

    from mtg_env.env.replay import load_replay
    from mtg_env.io import write_text
    from mtg_env.viewer import render_html, replay_frames

    m = load_replay("tests/data/replays/classic_seed5.json")
    write_text("game.html", render_html(m, replay_frames(m)))

Hidden information: every frame holds both hands (the page's "full view"); the seat views
show the other seat's hand as a count and replace what that seat could not see in the log
(the names of the cards the other player draws, the card a player puts on the bottom or
plays face down) with a redacted line.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from .engine import Action, Game, load_cards
from .engine.cards import CardDef
from .engine.constants import D_BOTTOM, DECISION_NAMES, LAND, PLAY
from .engine.decisions import Resolving
from .engine.log import describe_action, obj_name, private_event, render_event
from .env.replay import ReplayModel, replay_games
from .render import colors_text, permanent_state, stack_items, type_names

TEMPLATE = Path(__file__).resolve().parent / "data" / "viewer" / "viewer.html"
DATA_MARK = "/*__REPLAY_DATA__*/"
TITLE_MARK = "__TITLE__"


def _log(g: Game, events: list[tuple]) -> list[Any]:
    """Log lines; a line that one seat may not see is `[text, seat who may, redacted]`."""
    out: list[Any] = []
    for e in events:
        s = render_event(g, e)
        if s is None:
            continue
        priv = private_event(e)
        out.append(s if priv is None else [s, priv[0], priv[1]])
    return out


def _action(g: Game, a: Action, index: int) -> dict[str, Any]:
    text = describe_action(g, a)
    d: dict[str, Any] = {"index": index, "text": text}
    dec = g.decision
    seat = g.current_player
    halves = g.cdef[a.obj].halves if a.kind == PLAY else ()
    if dec is not None and dec.kind == D_BOTTOM:
        d["private"], d["redacted"] = seat, "put a card on the bottom of the library"
    elif halves and a.arg >= len(halves):  # pocket: a card played face down
        d["private"], d["redacted"] = seat, "play a card face down as a mana source"
    elif isinstance(g.ctx, Resolving) and g.ctx.purpose == "look":  # scry, surveil
        d["private"], d["redacted"] = seat, "put a card looked at on top or away"
    return d


def snapshot(g: Game) -> dict[str, Any]:
    """The visible state of `g` (both hands included) as plain JSON-able data."""
    players = []
    for s in (0, 1):
        pl: dict[str, Any] = {
            "life": g.life[s],
            "library": len(g.library[s]),
            "graveyard": [obj_name(g, c) for c in g.graveyard[s]],
            "exile": len(g.exile[s]),
            "hand": [[c, g.cdef[c].name] for c in g.hand[s]],
        }
        mana = g.rules.mana_text(g, s)
        if mana is not None:
            pl["mana"] = mana
        if g.lost[s]:
            pl["lost"] = True
        players.append(pl)
    bf: list[list[dict[str, Any]]] = [[], []]
    for cid in g.battlefield:
        bf[g.chars(cid).controller].append(permanent_state(g, cid))
    d = g.decision
    return {
        "turn": g.turn,
        "step": g.rules.step_name(g.step),
        "active": g.active,
        "players": players,
        "battlefield": bf,
        "stack": stack_items(g),
        "decision": None
        if d is None
        else {"kind": DECISION_NAMES[d.kind], "player": d.player, "prompt": d.prompt},
    }


def replay_frames(m: ReplayModel) -> list[dict[str, Any]]:
    """One frame per decision (the state before the action, the decision, the chosen
    action and the log lines since the previous frame), then the final state. Re-simulates
    and checks the replay like `verify`: a corrupt replay raises ReplayError."""
    frames: list[dict[str, Any]] = []
    shown = 0

    def capture(n: int, g: Game, a: Action, index: int) -> None:
        nonlocal shown
        f = snapshot(g)
        f["n"] = n
        f["action"] = _action(g, a, index)
        f["log"] = _log(g, g.events[shown:])
        shown = len(g.events)
        frames.append(f)

    g = replay_games(m, on_action=capture)
    f = snapshot(g)
    f["n"] = None
    f["action"] = None
    f["log"] = _log(g, g.events[shown:])
    if g.is_over:
        f["result"] = (
            ("truncated: " if g.truncated else "")
            + ("draw" if g.winner is None else f"player {g.winner} wins")
            + f" after {g.turn} turns and {g.n_decisions} decisions"
        )
    else:
        f["result"] = f"the replay stops before the end of the game (turn {g.turn})"
    frames.append(f)
    return frames


def _card_text(cd: CardDef) -> str:
    """Cost, type line and rules text of a card (the page's tooltip)."""
    if cd.halves:  # pocket: a two-part card
        return "\n".join(f"{h.name}: {_card_text(h)}" for h in cd.halves)
    head = " ".join(type_names(cd.types))
    if cd.subtypes:
        head += " - " + " ".join(sorted(cd.subtypes))
    if cd.cost:
        head = f"{cd.cost.text} {head}"
    if cd.power is not None:
        head += f" {cd.power}/{cd.toughness}"
    return f"{head}\n{cd.text}".strip()


def _card_table(fmt: str, frames: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Text and printed colors by card name (for tooltips and hand cards), for the names the
    frames use: once per name, not per frame."""
    cs = load_cards(fmt)
    known: dict[str, CardDef] = {}
    for cd in [*cs.cards.values(), *cs.tokens.values(), *cs.face_down.values()]:
        known.setdefault(cd.name, cd)
        for h in cd.halves:
            known.setdefault(h.name, h)
    names: set[str] = set()
    for f in frames:
        for p in f["players"]:
            names.update(n for _, n in p["hand"])
        for side in f["battlefield"]:
            names.update(c["name"] for c in side)
            names.update(c["as"] for c in side if "as" in c)
        names.update(it["name"] for it in f["stack"])
    out: dict[str, dict[str, Any]] = {}
    for n in sorted(names):
        cd = known.get(n)
        if cd is not None:
            out[n] = {"text": _card_text(cd), "colors": colors_text(cd.colors)}
            if cd.types & LAND:
                out[n]["land"] = True
    return out


def _embed(data: Any) -> str:
    """JSON safe inside <script>: no `<`, `>` or `&` can end the element early."""
    s = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(m: ReplayModel, frames: list[dict[str, Any]]) -> str:
    """The self-contained viewer page for replay `m` and its `replay_frames`."""
    agents = list(m.agents) + ["unknown"] * (2 - len(m.agents))
    title = f"{m.decks[0].name} ({agents[0]}) vs {m.decks[1].name} ({agents[1]})"
    data = {
        "title": title,
        "format": m.format,
        "seed": m.seed,
        "decks": [d.name for d in m.decks],
        "agents": agents[:2],
        "cards": _card_table(m.format, frames),
        "frames": frames,
    }
    page = TEMPLATE.read_text(encoding="utf-8")
    return page.replace(TITLE_MARK, html.escape(f"Replay: {title}", quote=False)).replace(
        DATA_MARK, _embed(data)
    )
