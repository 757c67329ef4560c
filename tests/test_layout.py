"""The package's import structure: no circle anywhere in the import graph (imports under
`if TYPE_CHECKING` included: a type-only import that closes a circle only hides it), the
layers point one way (engine <- env <- agents <- training <- cli), and `Game` implements
every member of `engine.protocol.GameLike`, the type its jobs and the modules below it
take the game as."""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

from mtg_env.engine.fields import SLOTS
from mtg_env.engine.game import Game
from mtg_env.engine.protocol import GameLike
from mtg_env.engine.state import GameFields

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mtg_env", "agents")


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = path
    return mods


MODULES = _modules()


def _targets(module: str, node: ast.ImportFrom | ast.Import) -> set[str]:
    """The package modules an import statement loads (a name imported from a package is a
    module of it when one has that name)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in MODULES}
    if node.level:
        is_pkg = MODULES[module].name == "__init__.py"
        parts = module.split(".")[: len(module.split(".")) - node.level + (1 if is_pkg else 0)]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = set()
    for a in node.names:
        if f"{base}.{a.name}" in MODULES:
            out.add(f"{base}.{a.name}")
        elif base in MODULES:
            out.add(base)
    return out


@functools.cache  # read once: the layer checks below each read the whole graph
def import_graph() -> Mapping[str, frozenset[str]]:
    graph = {}
    for name, path in MODULES.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _targets(name, node)
        graph[name] = frozenset(edges - {name})
    return MappingProxyType(graph)


def circles(graph: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_has_no_circle() -> None:
    assert circles(import_graph()) == []


def test_circles_are_found() -> None:
    # The checker itself: a graph with a circle through a type-only edge is reported.
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(g) == [["a", "b", "c"]]


# Support modules that use only the engine (files, scenarios, text rendering, perft,
# golden playthroughs, worker processes): every layer above the engine may use them.
SUPPORT = ("mtg_env.io", "mtg_env.workers", "mtg_env.render", "mtg_env.scenario")
SUPPORT += ("mtg_env.tools.perft", "mtg_env.tools.golden")
LAYERS = [
    ("mtg_env.engine", ()),
    *[(m, ("mtg_env.engine", *SUPPORT)) for m in SUPPORT],
    ("mtg_env.env", ("mtg_env.engine", *SUPPORT)),
    ("mtg_env.nets", ("mtg_env.engine", "mtg_env.env", *SUPPORT)),
    ("mtg_env.entity_nets", ("mtg_env.engine", "mtg_env.env", *SUPPORT)),
    ("mtg_env.vector", ("mtg_env.engine", "mtg_env.env", *SUPPORT)),
    ("mtg_env.openspiel", ("mtg_env.engine", "mtg_env.env", *SUPPORT)),
    ("mtg_env.spellbench", ("mtg_env.engine", "mtg_env.env", *SUPPORT)),
    # The Oracle-text compiler writes card data, which the engine's card loader validates.
    ("mtg_env.oracle", ("mtg_env.engine", *SUPPORT)),
    # The information-leak checker takes every view a seat has: the envs' observers, the
    # OpenSpiel game's and the Spellbench protocol's.
    (
        "mtg_env.testing",
        ("mtg_env.engine", "mtg_env.env", "mtg_env.openspiel", "mtg_env.spellbench", *SUPPORT),
    ),
    # The batched envs are envs: the training recipe's opponent pool steps its games in one.
    # The deck generator builds the held-out benchmark's decks of unseen cards. A Spellbench
    # host run's game records are rated as an evaluation (agents.hosted).
    (
        "agents",
        (
            "mtg_env.engine",
            "mtg_env.env",
            "mtg_env.spellbench",
            "mtg_env.vector",
            "mtg_env.nets",
            "mtg_env.entity_nets",
            "mtg_env.decks",
            *SUPPORT,
        ),  # fmt: skip
    ),
]


@pytest.mark.parametrize(("layer", "below"), LAYERS, ids=[layer for layer, _ in LAYERS])
def test_a_layer_imports_only_itself_and_the_layers_below(
    layer: str, below: tuple[str, ...]
) -> None:
    graph = import_graph()
    bad = [
        (m, t)
        for m, targets in graph.items()
        if m == layer or m.startswith(layer + ".")
        for t in targets
        if not (t == layer or t.startswith(layer + ".") or t == "mtg_env")
        and not any(t == b or t.startswith(b + ".") for b in below)
    ]
    assert bad == []


# The library's root: the package's own modules. A job with several modules has a room (a
# subpackage): the engine, the envs, the vector env, the command line (one module per group
# of commands), the developer tools (bench, fuzz, perft, golden), the scenario files (schema
# and runner). A new module at the root is a decision made here, not by accident.
ROOT_MODULES = {
    "__init__", "cardlist", "decks", "entity_nets", "io", "nets", "openspiel", "play", "render",
    "testing", "viewer", "workers",
}  # fmt: skip
ROOMS = {"cli", "engine", "env", "oracle", "scenario", "spellbench", "tools", "vector"}


def test_the_library_root_holds_only_its_listed_modules_and_rooms() -> None:
    pkg = ROOT / "mtg_env"
    assert {p.stem for p in pkg.glob("*.py")} == ROOT_MODULES
    rooms = {p.name for p in pkg.iterdir() if (p / "__init__.py").is_file()}
    assert rooms == ROOMS


def test_the_command_line_has_one_module_per_group_of_commands() -> None:
    """Every command is defined in a module of `mtg_env/cli/` other than `common` and the
    package's `__init__` (which lists them in the order of `mtg-env --help`)."""
    from mtg_env.cli import app

    where = {info.callback.__module__ for info in app.registered_commands}
    for group in app.registered_groups:
        where |= {info.callback.__module__ for info in group.typer_instance.registered_commands}
    assert where and all(m.startswith("mtg_env.cli.") for m in where), where
    assert not where & {"mtg_env.cli", "mtg_env.cli.common"}


def test_scripts_run_from_the_installed_package() -> None:
    """No script in scripts/ or helper in tests/ puts the repository on `sys.path`: they
    import the installed package (`make install` installs it in editable mode)."""
    found = []
    for path in [*(ROOT / "scripts").glob("*.py"), *(ROOT / "tests").glob("*_trace.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in {"insert", "append"}
                and ast.unparse(node.value) == "sys.path"
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


# The one module that knows which observation it builds (`mtg_env.env.observers`).
OBSERVERS_MODULE = "mtg_env.env.observers"
# What a branch on the observation type looks like: the type's name, the entity tables'
# attribute of an env or agent, an observer's kind, or an observer's (or layout's) class.
OBS_NAMES = {"obs_type"}
OBS_ATTRS = {"entity", "obs_type"}
OBS_CLASSES = {"EntityLayout", "EntityObserver", "FlatObserver", "TextObserver"}


def obs_type_branches(path: Path) -> list[int]:
    """The lines of `path` whose `if`, conditional expression, `while`, `assert` or boolean
    test reads the observation type."""

    def reads_type(test: ast.expr) -> bool:
        for n in ast.walk(test):
            if isinstance(n, ast.Name) and n.id in OBS_NAMES:
                return True
            if isinstance(n, ast.Attribute) and (
                n.attr in OBS_ATTRS or (n.attr == "kind" and "observer" in ast.unparse(n.value))
            ):
                return True
            if (
                isinstance(n, ast.Call)
                and ast.unparse(n.func) == "isinstance"
                and len(n.args) == 2
                and any(
                    isinstance(c, ast.Name) and c.id in OBS_CLASSES for c in ast.walk(n.args[1])
                )
            ):
                return True
        return False

    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        tests: list[ast.expr] = []
        if isinstance(node, ast.If | ast.IfExp | ast.While | ast.Assert):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests += node.ifs
        elif isinstance(node, ast.match_case) and node.guard is not None:
            tests.append(node.guard)
        for t in tests:
            if reads_type(t):
                lines.append(t.lineno)
    return sorted(set(lines))


def test_only_the_observers_branch_on_the_observation_type() -> None:
    """Every env and agent asks its observer (`mtg_env.env.observers`) instead of asking
    which observation it has: a new observation is a new observer, not a branch in each env."""
    found = {
        name: lines
        for name, path in MODULES.items()
        if name != OBSERVERS_MODULE and (lines := obs_type_branches(path))
    }
    for path in (ROOT / "scripts").glob("*.py"):
        if lines := obs_type_branches(path):
            found[f"scripts/{path.name}"] = lines
    assert found == {}


def test_a_branch_on_the_observation_type_is_found(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    for branch in (
        "if self.entity is not None:\n    pass",
        "x = a if obs_type == 'entity' else b",
        "if isinstance(lay, EntityLayout):\n    pass",
        "if env.observer.kind == 'flat':\n    pass",
        "ys = [y for y in xs if cfg.obs_type == 'flat']",
    ):
        src.write_text(branch + "\n")
        assert obs_type_branches(src) == [1], branch
    src.write_text("observer = make_observer(obs_type, layout)\nif n > 0:\n    pass\n")
    assert obs_type_branches(src) == []


# Game's chain of jobs, from the public API down to the declarations and the kernel: (class,
# module under mtg_env/engine).
CHAIN = (
    ("Game", "game"),
    ("Setup", "setup"),
    ("Turn", "turn"),
    ("Priority", "priority"),
    ("Stack", "stack"),
    ("Targeting", "targets"),
    ("StateBasedActions", "sba"),
    ("GameLike", "protocol"),
    ("Kernel", "kernel"),
)
ENGINE = ROOT / "mtg_env" / "engine"


def _is_declaration(f: ast.FunctionDef) -> bool:
    return any(isinstance(s, ast.Raise) and "NotImplementedError" in ast.unparse(s) for s in f.body)


def chain_calls(
    chain: tuple[tuple[str, str], ...] = CHAIN, engine: Path = ENGINE
) -> dict[str, list[str]]:
    """Every use of a job's method from a job below the one that implements it ("up"), and
    from above ("down"), as "Caller.method -> Callee.name". A use is `self.name`, or
    `g.name` for a game `g` a classmethod made (`g = cls...`). The callee is the class the
    method resolution order finds: the highest in the chain that implements the name (a
    declaration in GameLike is not an implementation)."""
    methods: dict[int, list[ast.FunctionDef]] = {}
    implemented: dict[str, int] = {}
    for k, (cls, mod) in enumerate(chain):
        tree = ast.parse((engine / f"{mod}.py").read_text())
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        methods[k] = [f for f in node.body if isinstance(f, ast.FunctionDef)]
        for f in methods[k]:
            if not _is_declaration(f):
                implemented.setdefault(f.name, k)
    out: dict[str, list[str]] = {"up": [], "down": []}
    for k, fs in methods.items():
        for f in fs:
            games = {"self"}
            for n in ast.walk(f):
                if isinstance(n, ast.Assign) and ast.unparse(n.value).startswith("cls"):
                    games |= {t.id for t in n.targets if isinstance(t, ast.Name)}
            for n in ast.walk(f):
                if (
                    isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name)
                    and n.value.id in games
                    and n.attr in implemented
                    and implemented[n.attr] != k
                ):
                    way = "up" if implemented[n.attr] < k else "down"
                    callee = chain[implemented[n.attr]][0]
                    out[way].append(f"{chain[k][0]}.{f.name} -> {callee}.{n.attr}")
    return out


def test_the_jobs_call_only_themselves_and_the_jobs_below() -> None:
    """The chain is right side up: no job calls a method that a job above it implements
    (a lower job that must continue in a higher one pushes a frame on `self.k`)."""
    calls = chain_calls()
    assert calls["up"] == []
    assert len(calls["down"]) > 50  # the check reads the calls it should


def test_an_upward_call_is_found(tmp_path: Path) -> None:
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "top.py").write_text(
        "class Top(Low):\n    def run(self):\n        return 1\n"
        "    @classmethod\n    def new(cls):\n        g = cls()\n        return g.low()\n"
    )
    (engine / "low.py").write_text(
        "class Low:\n    def low(self):\n        return self.run()\n"
        "    def run(self):\n        raise NotImplementedError\n"
    )
    calls = chain_calls((("Top", "top"), ("Low", "low")), engine)
    assert calls == {"up": ["Low.low -> Top.run"], "down": ["Top.new -> Low.low"]}


def test_every_declaration_is_called_below_the_chain() -> None:
    """GameLike declares what the rules modules below the chain (combat, effects, layers,
    log, explain, the formats) call on the game, and nothing else."""
    jobs = {mod for _, mod in CHAIN}
    declared = {n for n in vars(GameLike) if not n.startswith("__")}
    used: set[str] = set()
    for path in [*ENGINE.glob("*.py"), *(ENGINE / "formats").glob("*.py")]:
        if path.parent == ENGINE and path.stem in jobs:
            continue
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.Attribute) and not (
                isinstance(n.value, ast.Name) and n.value.id == "self"
            ):
                used.add(n.attr)
    assert declared - used == set()


@pytest.mark.source
def test_game_implements_every_member_of_gamelike() -> None:
    fields = set(GameFields.__annotations__)
    assert fields == set(SLOTS)
    declared = [n for n in vars(GameLike) if not n.startswith("__")]
    assert declared
    for name in declared:
        member = vars(GameLike)[name]
        theirs = getattr(Game, name)
        # Implemented by Game or one of its jobs, not the declaration's stub.
        assert theirs is not member, name
        if isinstance(member, property):
            assert isinstance(theirs, property), name
            continue
        want = list(inspect.signature(member).parameters)
        assert list(inspect.signature(theirs).parameters) == want, name


# Where test files live: one folder per part of the code, and the project-wide checks at the
# top (docs/testing.md).
TEST_ROOMS = {"agents", "cli", "engine", "env", "oracle", "spellbench", "tools", "train", "vector"}
TOP_TESTS = {"test_docs_links.py", "test_docstring_examples.py", "test_layout.py", "test_readme.py"}


def test_the_tests_mirror_the_code() -> None:
    tests = ROOT / "tests"
    top = {p.name for p in tests.glob("test_*.py")}
    assert top == TOP_TESTS
    rooms = {p.parent.name for p in tests.glob("*/test_*.py")}
    assert rooms == TEST_ROOMS
    assert not list(tests.glob("*/*/test_*.py"))  # one level: a room, not a tree of them
    # The rooms have no __init__.py: pytest imports each test file by its base name, so two
    # files of one name in two rooms would stop the collection.
    names = [p.name for p in tests.glob("*/*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
