"""pytest collects every scenario file under tests/scenarios/ as a test item."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

# pytest-xdist runs one worker per core (make test: -n 2). Torch, OpenMP and BLAS would each
# start a thread per core on top of that, in every worker and in every script a test starts:
# their spin-waits then fight over the cores, and an 8 s training took 90 s in the suite.
# One thread each; the environment reaches the commands the tests start. (Set before any
# test module imports torch, which reads it once.)
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

SCENARIO_ROOT = Path(__file__).parent / "scenarios"

# The Ctrl-C tests send SIGINT to the commands they start. A test run started in the
# background of a non-interactive shell (or under nohup) inherits SIGINT ignored, and so
# would every command it starts: Ctrl-C would do nothing there. Each test process (xdist
# workers included) takes the default handler back, so that its children start with it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_in_the_session_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """SB3's `learn()` without a logger of its own (the README's example, the tests' short
    trainings) makes a folder under the system's temp directory on every call; its
    SB3_LOGDIR puts them in this session's temporary folder instead, for the commands the
    tests start too."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))


@pytest.fixture(scope="session")
def made_once(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Callable[[str, Callable[[Path], None]], Path]:
    """`made_once(name, make)`: a folder that `make(folder)` fills once per test session,
    however many xdist workers ask for it (a lock in the session's shared temporary folder;
    pytest-xdist's recipe for a session fixture). Several tests then read one training run
    instead of each training its own; a test that changes the run copies it first."""
    root = tmp_path_factory.getbasetemp()
    if worker_id != "master":  # each worker's base is a folder of the session's
        root = root.parent
    root = root / "made-once"
    root.mkdir(exist_ok=True)

    def get(name: str, make: Callable[[Path], None]) -> Path:
        out = root / name
        with FileLock(str(out) + ".lock"):
            if not (out / ".made").exists():
                shutil.rmtree(out, ignore_errors=True)  # a make that failed part-way
                out.mkdir()
                make(out)
                (out / ".made").touch()
        return out

    return get


def pytest_report_header(config: pytest.Config) -> str:
    from mtg_env.engine import build

    note = f" ({build.WHY_PURE})" if build.WHY_PURE else ""
    return f"mtg_env engine: {build.engine_build()}{note}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The long runs (the rest of the identity sweep, the million-decision fuzz) are left out
    # unless --long asks for them: make test runs the gates at the size that catches a
    # regression, make test-all (which CI runs too) adds the rest.
    if not config.getoption("--long"):
        long = [item for item in items if item.get_closest_marker("long")]
        if long:
            config.hook.pytest_deselected(items=long)
            items[:] = [item for item in items if not item.get_closest_marker("long")]
    # Tests that read the engine's classes as Python wrote them (slots, annotations,
    # signatures) run on the pure engine: make test runs them in its pure-engine pass.
    from mtg_env.engine import build

    if not build.COMPILED:
        return
    skip = pytest.mark.skip(reason="reads the Python source's classes: run with MTG_ENV_PURE=1")
    for item in items:
        if item.get_closest_marker("source"):
            item.add_marker(skip)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        help="also run the tests marked long (make test-all): the whole identity sweep, "
        "the million-decision fuzz",
    )
    parser.addoption(
        "--regen-golden",
        action="store_true",
        help="rewrite tests/data/golden/* from the current engine",
    )
    parser.addoption(
        "--regen-identity",
        action="store_true",
        help="rewrite tests/data/identity/*.json from the current engine and env",
    )


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix == ".yaml" and SCENARIO_ROOT in file_path.parents:
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self):  # type: ignore[override]
        yield ScenarioItem.from_parent(self, name=self.path.stem)


class ScenarioItem(pytest.Item):
    def runtest(self) -> None:
        from mtg_env.scenario import check_solution, load_scenario, run_scenario

        sc = load_scenario(self.path)
        if sc.model.goal is not None and not sc.model.script:
            # A puzzle here must carry a winning line that reaches its goal.
            if not sc.model.solution:
                raise ScenarioFailed(f"{sc.name}: a puzzle under tests/ needs a solution")
            r = check_solution(sc)
        else:
            r = run_scenario(sc)
        if not r.ok:
            raise ScenarioFailed(f"{r.name}: {r.message}\n--- log ---\n{r.log}")

    def repr_failure(self, excinfo, style=None):  # type: ignore[override]
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):  # type: ignore[override]
        return self.path, 0, f"scenario: {self.name}"


class ScenarioFailed(Exception):
    pass
