"""A `text:` agent as a Spellbench bot (`agents.spellbench_bot`): it answers the text view
of the neutral seat decision with a candidate number; other replies fall back to a seeded
random candidate; the command serves it and a host plays whole games with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agents.spellbench_bot import TextBot

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


def _decision(n: int) -> dict:
    cands = [{"candidate_id": i, "semantic": {"kind": "pass"}, "display_text": f"move {i}"}
             for i in range(n)]  # fmt: skip
    return {"acting_seat": "p0", "observation": {"viewer": "p0"}, "candidates": cands}


def test_a_reply_is_a_candidate_number_and_others_fall_back_reproducibly() -> None:
    asked: list[str] = []

    def fn(view: str) -> str:
        asked.append(view)
        return "I play 2"

    bot = TextBot(fn, warn=None)
    bot.start({"agent_seed": 5})
    assert bot.choose(_decision(3)) == 2 and "  2: move 2" in asked[0]
    assert bot.choose(_decision(1)) == 0 and len(asked) == 1  # one candidate: not asked
    lines: list[str] = []
    odd = TextBot(lambda view: "no idea", warn=lines.append)
    picks = []
    for _ in range(2):
        odd.start({"agent_seed": 9})
        picks.append([odd.choose(_decision(5)) for _ in range(6)])
    assert picks[0] == picks[1] and odd.fallbacks == 12 and len(lines) == 12
    assert "not a listed candidate number" in lines[0]


def test_the_command_serves_a_text_agent_that_a_host_plays(tmp_path: Path) -> None:
    plugin = tmp_path / "bot.py"
    plugin.write_text(
        "def last(view):\n"
        "    numbers = [line.split(':')[0].strip() for line in view.splitlines()\n"
        "               if line.startswith('  ') and line.split(':')[0].strip().isdigit()]\n"
        "    return numbers[-1]\n"
    )
    engine = f"{MTG_ENV} spellbench engine --format classic"
    out = tmp_path / "run.json"
    r = subprocess.run(
        [MTG_ENV, "spellbench", "host", "--engine", engine, "--agent",
         f"{MTG_ENV} spellbench agent text:{plugin}:last", "--agent",
         f"{MTG_ENV} spellbench agent random", "--format", "classic", "--pairs", "1",
         "--seed", "4", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["agent"] == "mtg_env-text-last/1.0.0" and res["complete"] is True
    assert {g["classification"] for g in res["games"]} == {"natural"}
    assert "warning" not in r.stderr  # every reply was a listed number
    bad = subprocess.run(
        [MTG_ENV, "spellbench", "agent", f"text:{plugin}:missing"],
        capture_output=True, text=True, timeout=60, input="",
    )  # fmt: skip
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "has no attribute 'missing'" in bad.stderr
