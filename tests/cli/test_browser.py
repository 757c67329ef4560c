"""The replay viewer page in headless Chromium: stepping, jumping, playing and the seat
views, checked against the frames computed from the replay.

Needs Debian's chromium (/usr/bin/chromium, or MTG_ENV_CHROMIUM) and Playwright's Python
package (the `dev` extra). Without them these tests fail, naming what is missing: they never
pass silently. `.ci/run` installs chromium, so CI always runs them; on a machine without
it, `make test` leaves them out (`-m "not browser"`) and says plainly that it did.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents import make_agent
from mtg_env.engine import Game, load_decks
from mtg_env.env.replay import Recorder, parse_replay
from mtg_env.viewer import render_html, replay_frames

# Another Chromium build (not Debian, e.g. a developer's Mac) can be named here.
CHROMIUM = os.environ.get("MTG_ENV_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.browser


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Any:
    why = _missing()
    if why is not None:
        pytest.fail(f"browser test cannot run: {why}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield b
        b.close()


def record(seed: int, decks: tuple[str, str]) -> dict[str, Any]:
    """A heuristic-vs-heuristic game as replay data."""
    pool = load_decks("classic")
    pair = [pool[decks[0]], pool[decks[1]]]
    g = Game.new(pair, seed=seed)
    players = [make_agent("heuristic", seed * 2 + i) for i in (0, 1)]
    rec = Recorder(g, pair, seed, agents=["heuristic", "heuristic"])
    while not g.is_over:
        rec.apply(players[g.current_player].choose(g))
    return rec.to_dict()


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], Path]:
    m = parse_replay(record(3, ("Rakdos Vampires", "Red Burn")))
    frames = replay_frames(m)
    path = tmp_path_factory.mktemp("viewer") / "game.html"
    path.write_text(render_html(m, frames), encoding="utf-8")
    return frames, path


@pytest.fixture()
def page(browser: Any, game: tuple[list[dict[str, Any]], Path]) -> Any:
    p = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    requests: list[str] = []
    p.on("request", lambda r: requests.append(r.url))
    p.goto(game[1].as_uri())
    yield p
    assert not errors, errors
    assert all(u.startswith("file:") for u in requests), requests  # nothing from the network
    p.close()


def frame_at(page: Any) -> int:
    return int(page.get_attribute("[data-testid=position]", "data-frame"))


def check(page: Any, frames: list[dict[str, Any]], i: int) -> None:
    """The page shows frame i: position, life totals, every permanent's P/T and state."""
    f = frames[i]
    assert frame_at(page) == i
    for s in (0, 1):
        assert page.inner_text(f"[data-testid=life-{s}]") == str(f["players"][s]["life"])
    shown = page.eval_on_selector_all(
        "[data-testid=perm]",
        "els => els.map(e => [Number(e.dataset.id), e.dataset.name, e.dataset.pt ?? null,"
        " e.dataset.tapped === 'true'])",
    )
    want = [
        [c["id"], c["name"], c.get("pt"), c.get("tapped", False)]
        for side in f["battlefield"]
        for c in side
    ]
    assert sorted(shown) == sorted(want), f"frame {i}"
    if f["action"] is not None:
        assert page.inner_text("[data-testid=action]") == f["action"]["text"]
    else:
        assert page.inner_text("[data-testid=result]") == f["result"]


def test_step_jump_and_play(page: Any, game: tuple[list[dict[str, Any]], Path]) -> None:
    frames, _ = game
    last = len(frames) - 1
    check(page, frames, 0)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    check(page, frames, 5)
    page.keyboard.press("ArrowLeft")
    check(page, frames, 4)
    page.click("[data-testid=forward]")
    page.click("[data-testid=forward]")
    check(page, frames, 6)
    page.click("[data-testid=back]")
    check(page, frames, 5)

    # Jump to a decision where a creature shows P/T changed by counters (Olivia Voldaren).
    k = max(
        i
        for i, f in enumerate(frames)
        for side in f["battlefield"]
        for c in side
        if c["name"] == "Olivia Voldaren" and c.get("counters")
    )
    page.fill("[data-testid=jump]", str(k + 1))
    page.press("[data-testid=jump]", "Enter")
    check(page, frames, k)
    olivia = next(
        c for side in frames[k]["battlefield"] for c in side if c["name"] == "Olivia Voldaren"
    )
    sel = f"[data-testid=perm][data-id='{olivia['id']}']"
    assert page.get_attribute(sel, "data-pt") == olivia["pt"] != "3/3"
    assert page.inner_text(f"{sel} .pt") == olivia["pt"]

    page.keyboard.press("End")
    check(page, frames, last)
    assert "wins" in page.inner_text("[data-testid=result]")
    page.keyboard.press("Home")
    check(page, frames, 0)
    page.click("[data-testid=last]")
    check(page, frames, last)
    page.click("[data-testid=first]")
    check(page, frames, 0)

    # PageDown: the first decision of the next turn.
    page.keyboard.press("PageDown")
    nxt = next(i for i, f in enumerate(frames) if f["turn"] > frames[0]["turn"])
    check(page, frames, nxt)
    page.keyboard.press("PageUp")
    check(page, frames, 0)

    # The address names the decision, and opening it there shows that decision.
    page.keyboard.press("ArrowRight")
    assert page.url.endswith("#2")
    page.goto(page.url.split("#")[0] + f"#{k + 1}")
    page.reload()
    check(page, frames, k)

    # Space plays and pauses.
    page.keyboard.press("Home")
    page.keyboard.press(" ")
    assert page.inner_text("[data-testid=play]") == "pause"
    page.wait_for_function("document.querySelector('[data-testid=position]').dataset.frame >= 3")
    page.keyboard.press(" ")
    stopped = frame_at(page)
    page.wait_for_timeout(1200)
    assert frame_at(page) == stopped and page.inner_text("[data-testid=play]") == "play"
    check(page, frames, stopped)


def test_seat_views_hide_the_other_hand(page: Any, game: tuple[list[dict[str, Any]], Path]) -> None:
    frames, _ = game
    i = next(n for n, f in enumerate(frames) if f["turn"] >= 3 and f["players"][1]["hand"])
    page.fill("[data-testid=jump]", str(i + 1))
    page.press("[data-testid=jump]", "Enter")
    f = frames[i]

    def hand(seat: int) -> tuple[str | None, list[str]]:
        names = page.eval_on_selector_all(
            f"[data-testid=hand-{seat}] [data-testid=hand-card]",
            "els => els.map(e => e.dataset.name)",
        )
        return page.get_attribute(f"[data-testid=hand-{seat}]", "data-hidden"), names

    assert hand(0) == ("false", [n for _, n in f["players"][0]["hand"]])
    assert hand(1) == ("false", [n for _, n in f["players"][1]["hand"]])
    page.select_option("[data-testid=view]", "0")
    assert hand(0)[0] == "false" and hand(1) == ("true", [])
    count = page.get_attribute("[data-testid=hand-1]", "data-count")
    assert count == str(len(f["players"][1]["hand"]))
    log = page.inner_text("[data-testid=log]")
    assert "player 1 draws a card" in log and "player 0 draws a card" not in log
    page.select_option("[data-testid=view]", "1")
    assert hand(0) == ("true", []) and hand(1)[0] == "false"
    log = page.inner_text("[data-testid=log]")
    assert "player 0 draws a card" in log and "player 1 draws a card" not in log
    page.select_option("[data-testid=view]", "full")
    assert "draws a card" not in page.inner_text("[data-testid=log]")
    # The select gives the keys back: the arrows step again.
    page.keyboard.press("ArrowRight")
    check(page, frames, i + 1)


def test_screenshot(page: Any, tmp_path: Path) -> None:
    page.keyboard.press("End")
    out = tmp_path / "viewer.png"
    page.screenshot(path=str(out))
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_docs_screenshot_script(browser: Any, tmp_path: Path) -> None:
    """scripts/viewer_screenshot.py (make screenshot) writes the picture in docs/replays.md."""
    out = tmp_path / "docs" / "viewer.png"
    r = subprocess.run(
        [sys.executable, "scripts/viewer_screenshot.py", "--out", str(out), "--chromium", CHROMIUM],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 1280 and int.from_bytes(data[20:24], "big") == 800
