"""Tiny-budget smoke runs of every script in scripts/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    r = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_bench_legal_smoke() -> None:
    out = run("scripts/bench_legal.py", "--games", "1")
    assert "us/call" in out


def test_bench_env_smoke() -> None:
    out = run("scripts/bench_env.py", "--seconds", "1")
    assert "steps/s" in out and "observation" in out
