"""Which engine runs: the mypyc-compiled modules or their Python source (docs/compiling.md).

`mtg_env.engine` calls `choose()` before it imports any other engine module. The engine
runs compiled when the install built the extensions (setup.py) and every compiled source
is still the file it was built from (the SHA-256s in `_compiled.json`). Otherwise it runs
the `.py` files, which are always installed beside the extensions. The choice covers every
compiled module, the observation encoders (`mtg_env/env/spaces.py` and `entity.py`, compiled
in the engine's group) included: they are compiled or pure together with the engine.

- `MTG_ENV_PURE=1` in the environment asks for the pure engine (same behaviour, slower);
- a source edited since the build (a developer's tree) gives one warning and the pure
  engine, never the stale extension: `make install` rebuilds;
- no extensions built (no compiler, another interpreter, `MTG_ENV_PURE=1` at install):
  the pure engine, silently.

Interpreted always (setup.py's UNCOMPILED): this module and the package's `__init__`, and
the modules that define pydantic models.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent
PACKAGE = __name__.rpartition(".")[0]  # mtg_env.engine
TOP = PACKAGE.partition(".")[0]  # mtg_env
TOP_DIR = HERE.parent
MANIFEST = HERE / "_compiled.json"
# Where compiled modules live, relative to the package directory (setup.py's
# compiled_sources): the engine, its formats, and the env's observation encoders.
COMPILED_DIRS = ("engine", "engine/formats", "env")

COMPILED = False  # set by choose(): whether the compiled modules are in use
WHY_PURE = "not chosen yet"  # why not, in words ("" when compiled)


class StaleBuildWarning(RuntimeWarning):
    """An engine source changed after the engine was compiled: the pure engine runs."""


def _extensions() -> dict[str, Path]:
    """The compiled modules next to their sources: module name -> `.py` path."""
    found: dict[str, Path] = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for folder in COMPILED_DIRS:
            for ext in (TOP_DIR / folder).glob(f"*{suffix}"):
                stem = ext.name[: -len(suffix)]
                source = ext.with_name(stem + ".py")
                if source.exists():
                    rel = source.relative_to(TOP_DIR).with_suffix("")
                    found[".".join((TOP, *rel.parts))] = source
    return found


def _stale(modules: dict[str, Path]) -> str:
    """Why the built extensions can't be used (a changed source, say), or ''."""
    try:
        sources = json.loads(MANIFEST.read_text())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{MANIFEST.name} is missing or unreadable"
    # Keys are relative to the package directory (engine/game.py, env/spaces.py).
    built = {".".join((TOP, *Path(k).with_suffix("").parts)): v for k, v in sources.items()}
    for name, source in modules.items():
        if name not in built:
            return f"{source.relative_to(TOP_DIR.parent)} has no record of its build"
        if hashlib.sha256(source.read_bytes()).hexdigest() != built[name]:
            return f"{source.relative_to(TOP_DIR.parent)} changed since it was compiled"
    missing = sorted(set(built) - set(modules))
    if missing:
        return f"{missing[0]} has no compiled extension"
    return ""


class _SourceFinder:
    """A meta path finder that imports the listed modules from their `.py` files, ahead
    of the extension modules that the default finder would prefer."""

    def __init__(self, modules: dict[str, Path]) -> None:
        self.modules = modules

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.modules.get(name)
        return None if source is None else importlib.util.spec_from_file_location(name, source)


def choose() -> None:
    """Decide once, before the first engine module is imported."""
    global COMPILED, WHY_PURE
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return
    modules = _extensions()
    if not modules:
        COMPILED, WHY_PURE = False, "no compiled extensions are installed"
        return
    if os.environ.get("MTG_ENV_PURE", "") not in ("", "0"):
        why = "MTG_ENV_PURE is set"
    else:
        why = _stale(modules)
        if why:
            warnings.warn(
                f"mtg_env: {why}; running the pure-Python engine (make install rebuilds)",
                StaleBuildWarning,
                stacklevel=3,
            )
    if why:
        sys.meta_path.insert(0, _SourceFinder(modules))
        COMPILED, WHY_PURE = False, why
    else:
        COMPILED, WHY_PURE = True, ""


def engine_build() -> str:
    """'compiled' or 'pure': what `mtg-env bench` and the tests report."""
    return "compiled" if COMPILED else "pure"


choose()  # at import: mtg_env.engine imports this module before any other engine module
