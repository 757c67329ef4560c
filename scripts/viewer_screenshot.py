"""Regenerate the replay viewer's screenshot (docs/replays.md) (docs/viewer.png).

Records a heuristic-vs-heuristic game, writes its viewer page, opens it in headless
Chromium (Debian's /usr/bin/chromium driven by Playwright) at a busy moment of combat and
saves a 1280x800 screenshot. `make screenshot` runs it; the browser test runs it into a
temporary folder, so `make test` never rewrites the committed picture.

    python scripts/viewer_screenshot.py --out docs/viewer.png
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from agents import make_agent
from mtg_env.engine import Game, load_decks
from mtg_env.env.replay import Recorder, parse_replay
from mtg_env.io import write_bytes
from mtg_env.viewer import render_html, replay_frames

CHROMIUM = os.environ.get("MTG_ENV_CHROMIUM", "/usr/bin/chromium")


def busiest(frames: list[dict[str, Any]]) -> int:
    """The frame to show: attackers, blockers and something on the stack, then the fullest
    board."""

    def score(f: dict[str, Any]) -> tuple[int, int, int]:
        perms = [c for side in f["battlefield"] for c in side]
        attacking = any("attacking" in c for c in perms)
        blocking = any("blocking" in c for c in perms)
        return (attacking + blocking + bool(f["stack"]), len(perms), -f["turn"])

    return max(range(len(frames) - 1), key=lambda i: score(frames[i]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="docs/viewer.png", help="PNG file to write")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--decks", default="Rakdos Vampires,Red Burn")
    ap.add_argument("--chromium", default=CHROMIUM, help="Chromium executable")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    pool = load_decks("classic")
    pair = [pool[n.strip()] for n in args.decks.split(",")]
    game = Game.new(pair, seed=args.seed)
    players = [make_agent("heuristic", args.seed * 2 + i) for i in (0, 1)]
    rec = Recorder(game, pair, args.seed, agents=["heuristic", "heuristic"])
    while not game.is_over:
        rec.apply(players[game.current_player].choose(game))
    m = parse_replay(rec.to_dict())
    frames = replay_frames(m)
    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "game.html"
        page_path.write_text(render_html(m, frames), encoding="utf-8")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, headless=True)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{page_path.as_uri()}#{busiest(frames) + 1}")
            png = page.screenshot()
            browser.close()
    write_bytes(args.out, png)  # the project's one write helper, like every results file
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
