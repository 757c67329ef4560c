"""Build: the engine (mtg_env/engine) and the observation encoders (mtg_env/env/spaces.py,
entity.py) compiled with mypyc, or pure Python where they cannot be.

Everything else about the package is in pyproject.toml; this file only adds the compiled
engine. The same `.py` files are compiled and installed beside their extensions, so that
the pure engine is always there as the fallback (docs/compiling.md):

- `MTG_ENV_PURE=1` at install time builds no extensions (the user's opt-out);
- an interpreter other than CPython, or no mypyc, builds none;
- a failed compile (no C compiler, a mypyc error) says so in one warning and installs the
  pure engine instead of failing the install.

A successful build writes `mtg_env/engine/_compiled.json`, the SHA-256 of every compiled
source. `mtg_env.engine` reads it at import: if any source has changed since (an edited
file in a developer's tree), it imports the `.py` files instead of the stale extensions
and says so, so that a stale build never shadows edited source.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
ENGINE = "mtg_env/engine"
# Compiled with the engine, in the same group (so that they read the engine's objects
# natively): the observation encoders (v0 with the action mask, v1 with its candidates), most
# of an env step once the engine is compiled (docs/performance.md). They are loaded compiled
# or pure together with the engine (mtg_env/engine/build.py): a compiled encoder only works
# with the compiled engine.
ENV_MODULES = ["mtg_env/env/spaces.py", "mtg_env/env/entity.py"]
# Interpreted beside the compiled modules: the package and its import guard (build.py),
# and the modules that define pydantic models (pydantic builds classes and validators when
# the module runs, which a compiled class does not support).
UNCOMPILED = {"__init__.py", "build.py", "carddb.py", "vocab.py", "opschema.py"}
# The shared library of the compiled modules, inside the package (mypyc names it
# `<group>__mypyc`).
GROUP = "mtg_env.engine._native"
MANIFEST = "_compiled.json"


def compiled_sources() -> list[str]:
    """The engine modules that are compiled, as paths relative to the project root."""
    paths = sorted((ROOT / ENGINE).glob("*.py")) + sorted((ROOT / ENGINE / "formats").glob("*.py"))
    engine = [p.relative_to(ROOT).as_posix() for p in paths if p.name not in UNCOMPILED]
    return engine + ENV_MODULES


def manifest() -> dict:
    """What `mtg_env.engine` checks before it imports the compiled modules."""
    import mypy.version

    return {
        "mypy": mypy.version.__version__,
        "python": platform.python_version(),
        # Paths relative to the package directory (mtg_env/): engine/game.py, env/spaces.py.
        "sources": {
            p[len("mtg_env/") :]: hashlib.sha256((ROOT / p).read_bytes()).hexdigest()
            for p in compiled_sources()
        },
    }


def _warn(why: str) -> None:
    # One line in the build's output (`pip install -v` shows it); the install goes on
    # with the pure engine, and `mtg_env.engine.build.WHY_PURE` says so at run time.
    print(f"mtg_env: installing the pure-Python engine: {why}", file=sys.stderr)


def wanted() -> bool:
    """Whether to try compiling at all: not when asked for pure Python, not on another
    interpreter than CPython, not without mypyc (each said in one line but the first)."""
    if os.environ.get("MTG_ENV_PURE", "") not in ("", "0"):
        return False
    if platform.python_implementation() != "CPython":
        _warn(f"mypyc compiles for CPython only, not {platform.python_implementation()}")
        return False
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        _warn("mypyc (part of mypy) is not installed")
        return False
    return True


# A stand-in that marks the distribution as having extensions (a platform wheel); mypyc
# makes the real ones when build_ext runs, not each time setup.py is read (pip reads it
# for the metadata too, and mypyc type-checks the whole engine each time it is called).
PLACEHOLDER = Extension(f"{GROUP}__mypyc", sources=[])


class BuildEngine(build_ext):
    """build_ext that compiles the engine with mypyc, falls back to the pure engine when
    that fails, and writes the manifest of compiled sources when it succeeds."""

    built: dict | None = None

    def finalize_options(self) -> None:
        if self.distribution.ext_modules == [PLACEHOLDER]:
            # The sources' hashes before they are compiled: a file edited during the build
            # must show as changed afterwards, not be recorded as built.
            self.built = manifest()
            try:
                from mypyc.build import mypycify

                exts = mypycify(compiled_sources(), opt_level="3", group_name=GROUP)
            except (Exception, SystemExit) as e:  # mypyc exits on a type error
                _warn(f"mypyc failed on the engine ({type(e).__name__}: {e})")
                exts = []
            self.distribution.ext_modules = exts
        super().finalize_options()

    def run(self) -> None:
        if not self.extensions or self.built is None:
            return
        try:
            super().run()
        except Exception as e:  # no C compiler, a compile error: pure Python it is
            _warn(f"compiling the engine failed ({type(e).__name__}: {e})")
            self._remove_outputs()
            return
        text = json.dumps(self.built, indent=1, sort_keys=True) + "\n"
        for base in {self.build_lib, "." if self.inplace or self.editable_mode else None} - {None}:
            out = Path(base) / ENGINE / MANIFEST
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)

    def get_outputs(self) -> list[str]:
        outs = super().get_outputs()
        return outs + [os.path.join(self.build_lib, ENGINE, MANIFEST)] if self.extensions else outs

    def _remove_outputs(self) -> None:
        # A half-built set of extensions must not stay where it would be imported.
        for ext in self.extensions:
            for base in (self.build_lib, "."):
                path = Path(base) / self.get_ext_filename(ext.name)
                path.unlink(missing_ok=True)
        self.extensions = []


setup(ext_modules=[PLACEHOLDER] if wanted() else [], cmdclass={"build_ext": BuildEngine})
