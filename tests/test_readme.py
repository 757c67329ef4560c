"""The README's examples run as written (the front door must not lie)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_its_examples() -> None:
    assert len(BLOCKS) == 2


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_python_example_runs(i: int, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(BLOCKS[i], f"README.md example {i + 1}", "exec"), {})


def test_readme_links_point_to_files() -> None:
    root = README.parent
    links = re.findall(r"\]\(([^)#]+)\)", README.read_text())
    assert links
    for link in links:
        assert (root / link).exists(), link
    # made by docs/hooks.py at build
    generated = {
        "index.md",
        "env_card.md",
        "rules.md",
        "cards.md",
        "core_decks.md",
        "leaderboard.md",
    }
    for page in (root / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([^)#:]+)\)", page.read_text()):
            assert (page.parent / link).exists() or link in generated, (page.name, link)
