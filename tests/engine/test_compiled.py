"""The two engine builds (docs/compiling.md): the mypyc-compiled engine that `make install`
builds, and the pure-Python engine (`MTG_ENV_PURE=1`), which `make test` runs the engine
suite on as well. Here: which one runs, that both give the same state-hash traces, and
that a compiled file never shadows a source edited after the build."""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import mtg_env
import mtg_env.engine.game
from mtg_env.engine import Game, build, load_decks
from mtg_env.engine.formats import FORMATS

PACKAGE = Path(mtg_env.__file__).parent
PURE = os.environ.get("MTG_ENV_PURE", "") not in ("", "0")


def _has_c_compiler() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


def test_the_engine_runs_compiled_unless_asked_for_pure_python() -> None:
    """`make install` compiled the engine and the v0 observation encoder (where a C compiler
    exists), and they are what runs; with MTG_ENV_PURE=1 the same installation runs the
    `.py` files of both."""
    modules = [mtg_env.engine.game.__file__, importlib.import_module("mtg_env.env.spaces").__file__]
    if PURE:
        assert not build.COMPILED and build.WHY_PURE == "MTG_ENV_PURE is set"
        assert all(m.endswith(".py") for m in modules), modules
        return
    if not _has_c_compiler():
        pytest.skip("no C compiler here: the install fell back to the pure engine")
    assert build.COMPILED, build.WHY_PURE
    assert build.engine_build() == "compiled"
    assert all(m.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) for m in modules), modules


def hash_traces(games: int) -> dict[str, str]:
    """Per format, one digest over the state hash after every action of `games` seeded
    games of random legal play (each format's decks in turn)."""
    out = {}
    for fmt in sorted(FORMATS):
        decks = load_decks(fmt)
        names = sorted(decks)
        h = hashlib.sha256()
        for i in range(games):
            pair = (decks[names[i % len(names)]], decks[names[(i + 1) % len(names)]])
            g = Game.new(pair, seed=i, format=fmt, max_decisions=3000)
            r = random.Random(i)
            while not g.is_over:
                g.apply(r.choice(g.legal_actions()))
                h.update(g.state_hash().encode())
            h.update(repr((g.winner, g.turn, len(g.events))).encode())
        out[fmt] = h.hexdigest()
    return out


def test_the_compiled_and_the_pure_engine_give_the_same_hash_traces() -> None:
    """The same seeded games, here and in a child process that runs the other build: the
    state hash after every action, the winner, the turn and the log length agree."""
    other = "0" if PURE else "1"
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import test_compiled as t; "
        "print(json.dumps([t.build.engine_build(), t.hash_traces(12)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)],
        env={**os.environ, "MTG_ENV_PURE": other},
        capture_output=True,
        text=True,
        check=True,
    )
    their_build, theirs = json.loads(done.stdout)
    if build.COMPILED or their_build == "compiled":
        assert {build.engine_build(), their_build} == {"compiled", "pure"}
    assert theirs == hash_traces(12)


def _copy_package(tmp_path: Path) -> Path:
    """The installed package (its built extensions included) copied under tmp_path."""
    if not any(PACKAGE.joinpath("engine").glob("*.so")):
        pytest.skip("no compiled engine installed here")
    root = tmp_path / "site"
    shutil.copytree(PACKAGE, root / "mtg_env", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _import_engine(root: Path) -> subprocess.CompletedProcess[str]:
    # The encoder first: importing it must bring the engine's choice with it.
    code = (
        "import importlib; s = importlib.import_module('mtg_env.env.spaces'); "
        "import mtg_env.engine.game as g, mtg_env.engine.build as b; "
        "print(b.COMPILED, g.__file__, s.__file__)"
    )
    env = {k: v for k, v in os.environ.items() if k != "MTG_ENV_PURE"}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={**env, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    )


def test_an_unchanged_copy_of_the_compiled_engine_runs_compiled(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    done = _import_engine(root)
    compiled, *modules = done.stdout.split()
    assert compiled == "True", done.stderr
    for module in modules:
        assert module.startswith(str(root)) and not module.endswith(".py"), module
    assert done.stderr == ""


@pytest.mark.parametrize("change", ["edit engine", "edit encoder", "no record"])
def test_a_source_changed_after_the_build_runs_as_python_and_says_so(
    tmp_path: Path, change: str
) -> None:
    """An engine file or the compiled encoder edited after `make install` (or a build with
    no record of its sources): the `.py` files of every compiled module run, never the
    stale extensions (a compiled encoder beside the pure engine could not even read its
    objects), with one warning naming the file and how to rebuild."""
    root = _copy_package(tmp_path)
    engine = root / "mtg_env" / "engine"
    edited = {"edit engine": "engine/rng.py", "edit encoder": "env/spaces.py"}.get(change)
    if edited is not None:
        path = root / "mtg_env" / edited
        path.write_text(path.read_text() + "\n# an edit after the build\n")
    else:
        (engine / "_compiled.json").unlink()
    done = _import_engine(root)
    compiled, module, encoder = done.stdout.split()
    assert compiled == "False" and module == str(engine / "game.py")
    assert encoder == str(root / "mtg_env" / "env" / "spaces.py")
    assert "Traceback" not in done.stderr
    why = (
        f"mtg_env/{edited} changed since it was compiled"
        if edited is not None
        else ("_compiled.json is missing or unreadable")
    )
    assert why in done.stderr and "make install rebuilds" in done.stderr
    assert len([ln for ln in done.stderr.splitlines() if "StaleBuildWarning" in ln]) == 1


def test_an_effect_made_from_interpreted_code_has_its_fields() -> None:
    """`Effect.new(...)` works from a test on both builds (calling `Effect(...)` here would
    give a fieldless object in the compiled one)."""
    from mtg_env.engine.cards import Component
    from mtg_env.engine.chars import Effect
    from mtg_env.engine.constants import DUR_FOREVER, L_ABILITY

    comp = Component(L_ABILITY, "add_keywords", frozenset({"indestructible"}))
    e = Effect.new(7, (comp,), ((1, 2),), DUR_FOREVER, 1, 2, 0, "a test effect")
    assert (e.ts, e.components, e.affected, e.text) == (7, (comp,), ((1, 2),), "a test effect")


def _compiled_sources() -> list[Path]:
    """The modules setup.py compiles (its UNCOMPILED and ENV_MODULES, read from its source)."""
    root = PACKAGE.parent
    consts = {}
    for node in ast.parse((root / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("UNCOMPILED", "ENV_MODULES"):
                # The set's or list's string items, read off the syntax tree.
                assert isinstance(node.value, (ast.Set, ast.List))
                consts[node.targets[0].id] = [
                    e.value for e in node.value.elts if isinstance(e, ast.Constant)
                ]
    engine = sorted((PACKAGE / "engine").glob("*.py")) + sorted(
        (PACKAGE / "engine" / "formats").glob("*.py")
    )
    found = [p for p in engine if p.name not in consts["UNCOMPILED"]]
    return found + [root / m for m in consts["ENV_MODULES"]]


def test_compiled_modules_keep_to_the_fast_forms() -> None:
    """docs/compiling.md: a module constant is `Final` (a C constant or static, not a lookup
    in the module's namespace at every use), and a class test is `type(x) is C` (which
    narrows `x`, so that its fields are read directly), never `x.__class__`."""
    sources = _compiled_sources()
    names = {p.name for p in sources}
    assert {"layers.py", "game.py", "spaces.py", "entity.py"} <= names and "build.py" not in names
    bad = []
    for path in sources:
        text = path.read_text()
        tree = ast.parse(text)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                names = t.elts if isinstance(t, ast.Tuple) else [t]
                for n in names:
                    # A constant's name: upper case (type aliases are CamelCase).
                    if isinstance(n, ast.Name) and n.id.lstrip("_").isupper():
                        bad.append(f"{path.name}:{node.lineno}: {n.id} is not Final")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "__class__":
                bad.append(f"{path.name}:{node.lineno}: .__class__ (use type(x))")
    assert not bad, "\n".join(bad)
