"""The engine stands alone: `import mtg_env.engine` works, and plays a whole game, where
gymnasium, pettingzoo, numpy and torch are missing (tested in a subprocess that blocks
those imports), and imports nothing of the package outside itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "mtg_env" / "engine"

PROGRAM = """
import sys
for name in ("gymnasium", "pettingzoo", "numpy", "torch"):
    sys.modules[name] = None  # any import of these now fails
import random
import mtg_env
from mtg_env.engine import Game, load_decks
decks = load_decks("classic")
g = Game.new((decks["Red Burn"], decks["Green Stompy"]), seed=3)
r = random.Random(0)
while not g.is_over:
    g.apply(r.choice(g.legal_actions()))
loaded = sorted(m for m in sys.modules if m.startswith("mtg_env"))
print("ok", g.winner, ",".join(loaded))
"""


def test_the_engine_plays_without_the_env_dependencies() -> None:
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout.split()
    assert out[0] == "ok"
    loaded = out[2].split(",")
    assert all(m == "mtg_env" or m.startswith("mtg_env.engine") for m in loaded), loaded


def test_engine_modules_import_nothing_of_the_package_outside_the_engine() -> None:
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level >= 2 or (node.module or "").startswith("mtg_env."):
                    target = node.module or ""
                    assert target.startswith("mtg_env.engine"), (path.name, node.level, target)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith(("agents", "gymnasium", "pettingzoo")), (
                        path.name,
                        alias.name,
                    )
