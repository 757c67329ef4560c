"""Pieces shared by the resumable runs (`tournament`, `evaluate`): the digest of the file
behind an agent spec, the description of how two run configurations differ, and the
versions a results file records.

A resumable run stores the configuration that made it; a rerun compares its own
configuration with the stored one and refuses a mismatch in one line naming the fields
that differ (`config_diff`), so that a results file never mixes games of two runs."""

from __future__ import annotations

import functools
import hashlib
import json
import platform
from pathlib import Path
from typing import Any

from .plugin import file_digest, is_plugin_spec, plugin_file
from .policy import DEFAULT


def spec_file_digest(spec: str) -> str | None:
    """sha256 (16 hex digits) of the file behind a `policy:` spec or a `FILE.py:ATTR`
    plug-in spec, or None (a built-in agent, a module plug-in, or an unreadable path, which
    building the agent reports)."""
    if spec.startswith("policy:"):
        if spec.startswith("policy:rllib:"):
            return None
        path = spec[len("policy:") :]
        return file_digest(Path(str(DEFAULT) if path == "default" else path))
    if is_plugin_spec(spec):
        f = plugin_file(spec)
        return file_digest(f) if f is not None else None
    return None


def _short(v: Any) -> str:
    text = json.dumps(v)
    return text if len(text) <= 60 else text[:57] + "..."


def config_diff(old: Any, new: dict[str, Any]) -> str:
    """`field: OLD there, NEW now; ...` for every field of `new` that `old` differs in."""
    keys = [k for k in new if not isinstance(old, dict) or old.get(k) != new[k]]
    return "; ".join(
        f"{k}: {_short(old.get(k) if isinstance(old, dict) else None)} there, {_short(new[k])} now"
        for k in keys
    )


ROOT = Path(__file__).resolve().parents[1]
# The code and data a game's result depends on. The anchors file is left out: writing it
# (scripts/leaderboard.py --anchors) must not make the evaluations after it look different.
_CODE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".safetensors")
# The compiled build's manifest is a build output, not code a pure-Python run executes.
_NOT_CODE = ("mtg_env/data/benchmarks/anchors.yaml", "mtg_env/engine/_compiled.json")


@functools.cache
def code_digest() -> str:
    """sha256 (12 hex digits) of the engine, env, agents and card, deck and policy data as
    this process found them when it first asked: results made on different code (an
    engine edited between two runs, or during one) can be told apart."""
    h = hashlib.sha256()
    for top in ("mtg_env", "agents"):
        for f in sorted((ROOT / top).rglob("*")):
            rel = f.relative_to(ROOT).as_posix()
            if f.suffix in _CODE_SUFFIXES and "__pycache__" not in rel and rel not in _NOT_CODE:
                h.update(rel.encode() + b"\0")
                try:
                    h.update(f.read_bytes())
                except OSError:
                    h.update(b"unreadable")
    return h.hexdigest()[:12]


def versions() -> dict[str, str | None]:
    """The versions a results file records: the project, Python, numpy and torch (None when
    it is not installed)."""
    import numpy

    import mtg_env

    try:
        import torch

        torch_version: str | None = str(torch.__version__)
    except ImportError:  # pragma: no cover - no train extra
        torch_version = None
    return {
        "mtg_env": mtg_env.__version__,
        "code_sha256": code_digest(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "torch": torch_version,
    }
