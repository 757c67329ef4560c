"""Play a game in the terminal against an agent (`mtg-env play --opponent heuristic`).

At each of the human's decisions the board is printed from the human's seat (the opponent's
hand hidden), then the legal actions numbered with their readable names; the human enters a
number. Anything else (an empty line, a word, a number out of range) prints what is wanted
and asks again. Between decisions the game's log lines are printed, so the opponent's moves
are seen as they happen.

The game is recorded and saved as a replay at the end, also when the human stops early
(`q`, end of input, Ctrl-C): that replay holds the decisions made so far, verifies and
opens in the viewer like any other, and its `result.over` is false.

The loop reads and writes through `input_fn` and `output_fn`, so tests feed it scripted
input without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agents import make_agent

from .engine import Action, Deck, Game
from .engine.log import describe_action, render_events
from .env.replay import Recorder
from .io import check_writable
from .render import render

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help", "b", "board")


@dataclass
class PlayResult:
    path: Path  # where the replay was saved
    decisions: int  # decisions recorded (both players)
    over: bool  # False when the human stopped early
    winner: int | None  # None for a draw or an unfinished game


def choices(rec: Recorder) -> list[Action]:
    """The legal actions the human picks from, in the engine's order, one per layout index:
    equivalent actions (two Forests in hand) are listed once, as the replay records them."""
    g = rec.game
    seat = g.current_player
    assert seat is not None
    # The map keeps the engine's order: the first legal action of each index.
    _, amap, _ = rec.layout.mask_and_map(g, seat)
    return list(amap.values())


def _ask(
    options: Sequence[Action],
    g: Game,
    input_fn: Callable[[str], str],
    output_fn: Callable[[str], None],
) -> Action | None:
    """The chosen action, or None when the human quits (a quit word, end of input, Ctrl-C)."""
    last = len(options) - 1
    prompt = f"your choice (0-{last}, ? for the board, q to quit): "
    while True:
        try:
            raw = input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            output_fn("")
            return None
        text = raw.strip().lower()
        if text in QUIT_WORDS:
            return None
        if text in HELP_WORDS:
            output_fn(_board(g, options))
            continue
        try:
            n = int(text)
        except ValueError:
            what = "an empty line" if not text else repr(raw.strip())
            output_fn(f"{what} is not a choice: enter a number from 0 to {last} (q to quit)")
            continue
        if not 0 <= n <= last:
            output_fn(f"{n} is out of range: enter a number from 0 to {last} (q to quit)")
            continue
        return options[n]


def _log(g: Game, events: list[tuple], seat: int) -> str:
    """New log lines as `seat` sees them; the opponent's hidden draws in a row become one
    line ("draws 7 cards" for an opening hand)."""
    out: list[str] = []
    run = 0
    lines = render_events(g, events, seat=seat).splitlines()
    for i, line in enumerate(lines):
        if line.endswith(" draws a card"):
            run += 1
            if i + 1 < len(lines) and lines[i + 1] == line:
                continue
            if run > 1:
                line = line.replace(" draws a card", f" draws {run} cards")
        run = 0
        out.append(line)
    return "\n".join(out)


def _board(g: Game, options: Sequence[Action]) -> str:
    seat = g.current_player
    lines = ["", render(g, seat=seat), "Your options:"]
    lines += [f"  {i}: {describe_action(g, a)}" for i, a in enumerate(options)]
    return "\n".join(lines)


def play(
    opponent: str,
    seat: int,
    seed: int,
    fmt: str,
    decks: Sequence[Deck],
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
    save: str | Path | None = None,
) -> PlayResult:
    """Play seat `seat` against the agent spec `opponent`, on `decks` (seat 0's deck
    first); saves the replay to `save` (default `replays/play-SEED.json`)."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat}")
    opp_seat = 1 - seat
    # Seeded as `replay record` seeds its agents.
    agent = make_agent(opponent, seed * 2 + opp_seat, fmt=fmt)
    path = Path(save) if save is not None else Path("replays") / f"play-{seed}.json"
    check_writable(path)  # a refused path is said before the game, not after it
    game = Game.new(list(decks), seed=seed, format=fmt)
    specs = ["human", "human"]
    specs[opp_seat] = opponent
    rec = Recorder(game, decks, seed, agents=specs)
    output_fn(
        f"You are player {seat} ({decks[seat].name}); player {opp_seat} is {opponent} "
        f"({decks[opp_seat].name}). Format {fmt}, seed {seed}."
    )
    shown = 0
    quit_early = False
    while not game.is_over:
        text = _log(game, game.events[shown:], seat)
        shown = len(game.events)
        if text:
            output_fn(text)
        p = game.current_player
        assert p is not None
        if p == opp_seat:
            rec.apply(agent.choose(game))
            continue
        options = choices(rec)
        output_fn(_board(game, options))
        choice = _ask(options, game, input_fn, output_fn)
        if choice is None:
            quit_early = True
            break
        rec.apply(choice)
    text = _log(game, game.events[shown:], seat)
    if text:
        output_fn(text)
    if quit_early:
        output_fn(f"Stopped after {len(rec.actions)} decisions (turn {game.turn}).")
    else:
        output_fn("\n" + render(game))
        if game.winner is None:
            output_fn(f"Result: draw after {game.turn} turns.")
        else:
            who = "you win" if game.winner == seat else f"{opponent} wins"
            output_fn(f"Result: player {game.winner} wins ({who}) after {game.turn} turns.")
    rec.save(path)
    output_fn(f"replay saved to {path} (view it: mtg-env replay html {path} --out game.html)")
    return PlayResult(path, len(rec.actions), game.is_over, game.winner)
