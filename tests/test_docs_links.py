"""Links in the docs lead somewhere, read either way: as files in the repository (on GitHub)
and as pages of the built site.

The pages are docs/*.md, the README (the site's home page, `index.md`) and the module
docstrings that are pages (docs/hooks.py's MODULE_PAGES and the env card). Links to missing
anchors, absolute links and pages left out of the site are caught by the strict site build
itself (`validation:` in mkdocs.yml; `make docs`, in `make test`); this file checks what that
build can't: a link the site resolves only because docs/hooks.py generates its target is
also a file in the repository, and every link of a page that is not itself in docs/ (the
README, a docstring) is a page or file of the site."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _hooks()
GENERATED = set(HOOKS.generated_pages())
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(text: str) -> list[str]:
    """The relative link targets of a Markdown text, without their anchors; links inside
    code (fenced blocks, code spans) are examples, not links."""
    text = _CODE.sub("", _FENCE.sub("", text))
    out = []
    for target in _LINK.findall(text):
        if target.startswith("#") or re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # an anchor on the same page; http:, https:, mailto:
        out.append(target.split("#", 1)[0])
    return out


def is_stub(page: Path) -> bool:
    return page.read_text(encoding="utf-8").startswith(HOOKS.STUB_MARK)


def docstring(module: str) -> str:
    return ast.get_docstring(ast.parse((ROOT / module).read_text(encoding="utf-8"))) or ""


DOC_PAGES = sorted(DOCS.glob("*.md"))
# Pages of the site that are not files of docs/: (what, text), their links relative to docs/.
SITE_ONLY = [("README.md as index.md", HOOKS.index_page())]
SITE_ONLY += [(m, docstring(m)) for m, _ in HOOKS.MODULE_PAGES.values()]
SITE_ONLY += [(HOOKS.ENV_CARD_MODULE, docstring(HOOKS.ENV_CARD_MODULE))]


def test_the_link_finder_finds_links_and_leaves_code_alone() -> None:
    text = "[a](x.md#top) [b](https://e.org) [c](#here) `[d](y.md)`\n```\n[e](z.md)\n```\n"
    assert links(text) == ["x.md"]


@pytest.mark.parametrize(
    "page", [ROOT / "README.md", *DOC_PAGES], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_every_link_is_a_file_of_the_repository(page: Path) -> None:
    """As GitHub shows the repository: a link from README.md or docs/X.md opens a file."""
    for target in links(page.read_text(encoding="utf-8")):
        assert (page.parent / target).exists(), (
            f"{page.relative_to(ROOT)} links {target}, which is not a file of the repository"
            + (
                f" (docs/hooks.py generates it for the site: add docs/{target} starting with "
                "its STUB_MARK, saying what the page holds)"
                if target in GENERATED
                else ""
            )
        )


def _in_site(target: str) -> bool:
    """A link from a page at the top of the site: a file of docs/ or a generated page."""
    path = (DOCS / target).resolve()
    if not path.is_relative_to(DOCS):
        return False  # the site holds docs/ only
    rel = path.relative_to(DOCS).as_posix()
    return rel in GENERATED or (path.is_file() and not rel.endswith(".py"))


@pytest.mark.parametrize(
    ("what", "text"),
    [
        pytest.param(what, text, id=what)
        for what, text in [
            *[(p.name, p.read_text(encoding="utf-8")) for p in DOC_PAGES if not is_stub(p)],
            *SITE_ONLY,
        ]
    ],
)
def test_every_link_of_a_page_is_in_the_site(what: str, text: str) -> None:
    bad = [t for t in links(text) if not _in_site(t)]
    assert bad == [], f"{what}: links to pages or files that are not in the site: {bad}"


def test_each_generated_page_has_its_file_in_docs_and_no_other_file_is_replaced() -> None:
    stubs = {p.name for p in DOC_PAGES if is_stub(p)}
    assert stubs == GENERATED


def test_a_link_to_a_generated_page_that_has_no_file_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("The [list](cards.md) and the [decks](decks.md).\n")
    (tmp_path / "decks.md").write_text("# Decks\n")
    assert [t for t in links(page.read_text()) if not (tmp_path / t).exists()] == ["cards.md"]
    assert not _in_site("../mtg_env/cli/__init__.py")
    assert _in_site("cards.md") and _in_site("decks.md")


def test_the_scenario_format_lists_every_format() -> None:
    """docs/scenarios.md's `format:` line names every format a scenario can be written in."""
    from mtg_env.engine.formats import FORMATS

    text = (DOCS / "scenarios.md").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("format: "))
    named = set(re.findall(r"[a-z]+", line.split("#", 1)[1])) - {"default", "also"}
    assert named == set(FORMATS), line
