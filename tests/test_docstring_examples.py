"""Every code example in the docs runs as written: the module docstrings of the packages
(`mtg_env`, `agents`) and the pages under docs/ (the README's are run by test_readme.py).

An example is a fenced ```python block, an indented block that is Python (it compiles), a
paragraph of a docstring that is code rather than prose (it compiles and does something),
or a doctest (`>>>`; its outputs are checked). Each runs in a fresh interpreter, in a
temporary working directory that links the repository's `tests`, `configs` and `docs`
folders (an example that names `tests/scenarios/...` reads it as from the repository's
root; the files an example writes stay in the temporary folder), with one thread for the
numeric libraries and a timeout.

An example that needs minutes (training) starts with a line `# not run in tests: REASON`;
the test then skips it and shows the reason."""

from __future__ import annotations

import ast
import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mtg_env", "agents")
LINKED = ("tests", "configs", "docs")  # read by examples as from the repository's root
TIMEOUT = 240  # seconds; no example is meant to take more than a few
NOT_RUN = re.compile(r"^#\s*not run in tests:\s*(.+)$")

# An example is named by its file and a piece of its code that no other example of that
# file holds. Each entry must name exactly one example (test_the_examples_are_found).

# Examples of pages whose text carries no `# not run in tests:` line yet, with the reason
# the test shows when it skips them.
NOT_RUN_HERE: dict[tuple[str, str], str] = {
    ("docs/environment.md", "learn(10_000)"): "trains MaskablePPO for 10,000 steps (minutes)",
    ("docs/environment.md", "CandidatePolicy"): (
        "runs as written in tests/env/test_entity.py::test_the_environment_page_v1_example_runs"
    ),
}

# Examples that do not run as written yet, with what is wrong. They are expected to fail
# (xfail): one that runs fails the test until its entry is removed here.
KNOWN_FAILING: dict[tuple[str, str], str] = {}


def _entry(table: dict[tuple[str, str], str], ex: Example) -> str | None:
    for (where, piece), why in table.items():
        if where == ex.where and piece in ex.code:
            return why
    return None


@dataclass(frozen=True)
class Example:
    where: str  # the file, relative to the repository
    number: int  # 1, 2, ... in the file
    kind: str  # fenced, indented, paragraph, doctest
    code: str

    @property
    def id(self) -> str:
        return f"{self.where}#{self.number}"


_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)


def _compiles(code: str) -> bool:
    try:
        compile(code, "<example>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def _does_something(code: str) -> bool:
    """Code rather than a heading or a word: a statement other than a bare name or constant
    (a Markdown heading is a comment, a one-word line a name)."""
    body = ast.parse(code).body
    return any(
        not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Name | ast.Constant)) for s in body
    )


def examples_in(text: str, where: str, docstring: bool) -> list[Example]:
    """The examples of a Markdown text (a docs page or a module docstring), in order."""
    found: list[tuple[int, str, str]] = []  # (offset, kind, code)
    for m in _FENCE.finditer(text):
        lang = m.group(1).lower()
        if lang in ("python", "py", "python3"):
            found.append((m.start(), "fenced", _dedent(m.group(2))))
        elif lang in ("pycon", "doctest"):
            found.append((m.start(), "doctest", _dedent(m.group(2))))
    # Fenced blocks blanked out, their lines kept, so that offsets stay as they were.
    rest = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    if docstring:  # docs pages' indented text is list continuation, never an example here
        lines = rest.split("\n")
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        i = 0
        while i < len(lines):
            if not lines[i].strip() or (i > 0 and lines[i - 1].strip()):
                i += 1
                continue
            indented = lines[i].startswith("    ")
            start, j = i, i + 1
            # An indented block goes on over blank lines while the next line is indented;
            # a paragraph ends at a blank line.
            while j < len(lines) and (
                (lines[j].strip() and (lines[j].startswith("    ") or not indented))
                or (indented and not lines[j].strip())
            ):
                j += 1
            block = "\n".join(lines[start:j])
            i = j
            if block.lstrip().startswith(">>>"):
                continue  # a doctest, below
            code = _dedent(block)
            if not _compiles(code):
                continue  # prose, a table, a shell command
            if indented:
                found.append((starts[start], "indented", code))
            elif _does_something(code):
                found.append((starts[start], "paragraph", code))
    parser = doctest.DocTestParser()
    for m in re.finditer(r"(?:^[ \t]*>>>.*\n(?:^[ \t]*(?:\.\.\.|\S).*\n?)*)", rest, re.M):
        if parser.get_examples(m.group(0)):
            found.append((m.start(), "doctest", _dedent(m.group(0))))
    found.sort()
    return [Example(where, i, kind, code) for i, (_, kind, code) in enumerate(found, 1)]


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).strip("\n") + "\n"


def module_docstring(path: Path) -> str:
    """A module's docstring as the docs show it (cleaned: common indentation removed),
    read from the source: nothing is imported."""
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def all_examples() -> list[Example]:
    out: list[Example] = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            out += examples_in(module_docstring(path), rel, docstring=True)
    for page in sorted((ROOT / "docs").glob("*.md")):
        out += examples_in(page.read_text(encoding="utf-8"), f"docs/{page.name}", False)
    return out


EXAMPLES = all_examples()


def _script(ex: Example) -> str:
    if ex.kind != "doctest":
        return ex.code
    # Outputs are checked as doctest checks them; a failure prints doctest's report.
    return (
        "import doctest, sys\n"
        f"test = doctest.DocTestParser().get_doctest({ex.code!r}, {{}}, {ex.id!r}, None, 0)\n"
        "runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)\n"
        "runner.run(test)\n"
        "sys.exit(1 if runner.failures else 0)\n"
    )


def run_example(ex: Example, cwd: Path) -> subprocess.CompletedProcess[str]:
    for name in LINKED:
        (cwd / name).symlink_to(ROOT / name, target_is_directory=True)
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = "1"  # small budgets: the examples share the machine with the suite
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-c", _script(ex)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


def test_the_examples_are_found() -> None:
    """The finder sees the examples the docs are known to hold (a finder that found none
    would pass every file)."""
    ids = {ex.id for ex in EXAMPLES}
    kinds = {ex.kind for ex in EXAMPLES}
    assert {"fenced", "indented", "paragraph"} <= kinds, kinds
    assert any(i.startswith("mtg_env/openspiel.py#") for i in ids)
    assert any(i.startswith("mtg_env/vector/__init__.py#") for i in ids)
    assert any(i.startswith("mtg_env/engine/__init__.py#") for i in ids)
    assert any(i.startswith("docs/scenarios.md#") for i in ids)
    for where, piece in [*NOT_RUN_HERE, *KNOWN_FAILING]:
        named = [ex.id for ex in EXAMPLES if ex.where == where and piece in ex.code]
        assert len(named) == 1, (where, piece, named)


def test_the_finder_reads_each_kind_and_leaves_prose_alone() -> None:
    doc = (
        "# Title\n\nSome prose, with `code` in it.\n\n    import os\n\n    x = os.sep\n\n"
        "A command:\n\n    mtg-env match a b\n\nprint(1)\nprint(2)\n\n```python\ny = 2\n```\n\n"
        "```sh\nls -l\n```\n\n>>> 1 + 1\n2\n"
    )
    found = [(ex.kind, ex.code) for ex in examples_in(doc, "x.py", docstring=True)]
    assert found == [
        ("indented", "import os\n\nx = os.sep\n"),
        ("paragraph", "print(1)\nprint(2)\n"),
        ("fenced", "y = 2\n"),
        ("doctest", ">>> 1 + 1\n2\n"),
    ]


def test_a_failing_example_fails_and_a_doctest_checks_its_output(tmp_path: Path) -> None:
    bad = Example("x.py", 1, "fenced", "import mtg_env\nsample()\n")
    (tmp_path / "a").mkdir()
    r = run_example(bad, tmp_path / "a")
    assert r.returncode != 0 and "NameError" in r.stderr
    wrong = Example("x.py", 2, "doctest", ">>> 1 + 1\n3\n")
    (tmp_path / "b").mkdir()
    r = run_example(wrong, tmp_path / "b")
    assert r.returncode == 1 and "Expected:" in r.stdout


def _check_without_running(ex: Example) -> None:
    import ast
    import doctest
    import importlib.util

    code = ex.code
    if ex.kind == "doctest":
        code = "".join(e.source for e in doctest.DocTestParser().get_examples(code))
    tree = ast.parse(code, f"{ex.id}")
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            assert importlib.util.find_spec(name) is not None, f"{ex.id} imports {name}"


@pytest.mark.parametrize("ex", EXAMPLES, ids=[ex.id for ex in EXAMPLES])
def test_example_runs_as_written(ex: Example, tmp_path: Path) -> None:
    first = ex.code.strip().splitlines()[0]
    if NOT_RUN.match(first) or _entry(NOT_RUN_HERE, ex):
        # Too long to run here (or run elsewhere): it must still parse and import only what
        # exists, so a renamed module or a syntax slip in the example fails.
        _check_without_running(ex)
        return
    why = _entry(KNOWN_FAILING, ex)
    r = run_example(ex, tmp_path)
    if why:
        if r.returncode != 0:
            pytest.xfail(f"{ex.id}: {why}")
        pytest.fail(f"{ex.id} runs now: remove it from KNOWN_FAILING ({why})")
    assert r.returncode == 0, (
        f"{ex.id} ({ex.kind}) failed:\n{ex.code}\n--- stderr ---\n{r.stderr[-3000:]}"
    )
