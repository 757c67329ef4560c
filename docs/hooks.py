"""MkDocs hooks (mkdocs.yml): the pages read off the code, generated at every build so they
can't drift from it. `index.md` is the README with its links made relative to docs/; the
vector env and OpenSpiel pages are their modules' docstrings; the env card is the env's docs
page (the module docstring of mtg_env/env/duel.py) with the
spaces of every format computed from the layout; rules coverage lists every scenario file
under the Comprehensive Rules references it checks; the cards page lists the core set with
the scenario that tests each card; the core decks page lists every bundled core deck; the
leaderboard is read from the committed `mtg-env evaluate` results files.

Each generated page has a short file of its own name in docs/, marked with `STUB_MARK`, that
says what the page holds and links its sources: a link to the page from another page, or
from the README, then leads somewhere when the repository is read as files (on GitHub). The
build replaces that file with the generated page."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]

# The modules whose docstring is a page of the site: name -> (module, title).
MODULE_PAGES: dict[str, tuple[str, str | None]] = {
    "vector.md": ("mtg_env/vector/__init__.py", None),
    "openspiel.md": ("mtg_env/openspiel.py", "The OpenSpiel game"),
}
# The docs page that is a module's docstring, with tables computed from the code.
ENV_CARD_MODULE = "mtg_env/env/duel.py"
# The first line of the file in docs/ that stands for a generated page.
STUB_MARK = "<!-- generated page: docs/hooks.py replaces this file when the site is built -->"


def generated_pages() -> dict[str, Callable[[], str]]:
    """Every generated page: its name in the site -> the function that writes it."""
    pages: dict[str, Callable[[], str]] = {
        "index.md": index_page,
        "env_card.md": env_card,
        "rules.md": rules_coverage,
        "cards.md": cards_page,
        "core_decks.md": core_decks_page,
        "leaderboard.md": leaderboard_page,
    }
    for name, (module, title) in MODULE_PAGES.items():
        pages[name] = lambda module=module, title=title: module_page(module, title)
    return pages


def on_files(files: Files, config: Any) -> Files:
    for name, make in generated_pages().items():
        stub = files.get_file_from_path(name)
        if stub is not None:
            # Only a marked stub is replaced: a page written by hand is never lost.
            if not Path(stub.abs_src_path).read_text(encoding="utf-8").startswith(STUB_MARK):
                raise PluginError(
                    f"docs/{name} is a page of its own, but docs/hooks.py generates {name}; "
                    f"rename one of them (a stub for the generated page starts with {STUB_MARK})"
                )
            files.remove(stub)
        files.append(File.generated(config, name, content=make()))
    return files


def index_page() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text)
    # A link to a source file: on the site, the env card is the env's page; others as text.
    text = text.replace(f"]({ENV_CARD_MODULE})", "](env_card.md)")
    for name, (module, _) in MODULE_PAGES.items():
        text = text.replace(f"]({module})", f"]({name})")
    return re.sub(r"\[([^\]]+)\]\((?:mtg_env|agents|scripts)/[^)]+\)", r"\1", text)


def module_page(path: str, title: str | None = None) -> str:
    """A module's docstring as its page (read from the source: nothing is imported)."""
    import ast

    doc = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8"))) or ""
    head = f"# {title}\n\n" if title else ""
    return head + doc.strip() + f"\n\nThis page is the docstring of `{path}`.\n"


def env_card() -> str:
    from mtg_env.engine import load_cards
    from mtg_env.engine.formats import FORMATS
    from mtg_env.env import duel
    from mtg_env.env.observers import EntityObserver, FlatObserver
    from mtg_env.env.spaces import Layout

    doc = (duel.__doc__ or "").strip()
    out = [doc, "", "## Entity observation pieces, field by field", ""]
    out += ["Generated from the pieces of `mtg_env.env.observers.EntityObserver`.", ""]
    entity = EntityObserver(Layout(load_cards("classic")))
    out += ["| piece | shape | dtype | meaning |", "|---|---|---|---|"]
    out += [f"| `{p.name}` | {p.shape} | {p.dtype} | {p.meaning} |" for p in entity.pieces]
    out.append("")
    for p in entity.pieces:
        if p.columns:
            out += [f"### `{p.name}` ({p.dtype})", "", "| index | field | meaning |"]
            out += ["|---|---|---|"]
            out += [f"| {i} | `{n}` | {m} |" for i, (n, m) in enumerate(p.columns)]
            out.append("")
    out += ["## Flat observation pieces and actions of every format", ""]
    out += ["Generated from the pieces of `mtg_env.env.observers.FlatObserver`.", ""]
    for fmt in sorted(FORMATS):
        flat = FlatObserver(Layout(load_cards(fmt)))
        lay = flat.layout
        out += [f"### `{fmt}`: Discrete({lay.n_actions}), observation ({lay.n_obs},)", ""]
        out += ["| action slice | indices | size |", "|---|---|---|"]
        for k, sl in lay.action_slices.items():
            out.append(f"| `{k}` | {sl.start}-{sl.stop - 1} | {sl.stop - sl.start} |")
        out += ["", "| observation piece | indices | size | meaning |", "|---|---|---|---|"]
        for p in flat.pieces:
            shape = " x ".join(map(str, p.shape))
            out.append(f"| `{p.name}` | {p.start}-{p.stop - 1} | {shape} | {p.meaning} |")
        out.append("")
    return "\n".join(out)


def cards_page() -> str:
    from mtg_env.cardlist import card_list_page

    return card_list_page("core", ROOT / "tests" / "scenarios" / "core", ROOT)


def core_decks_page() -> str:
    from mtg_env.cardlist import deck_list_page

    split = yaml.safe_load(
        (ROOT / "mtg_env" / "data" / "benchmarks" / "heldout.yaml").read_text(encoding="utf-8")
    )
    parts = {n: part for part in ("train", "heldout") for n in split[part]}
    return deck_list_page(split["format"], parts, ROOT)


LEADERBOARD = ROOT / "docs" / "results" / "leaderboard"
ANCHORS = ROOT / "mtg_env" / "data" / "benchmarks" / "anchors.yaml"
DECK_SET_TITLES = {
    "classic": "Classic decks (the six classic decks, format classic)",
    "core-heldout": "Core held-out decks (the ten held-out decks of the core format)",
}


def leaderboard_page(folder: Path = LEADERBOARD, anchors_file: Path = ANCHORS) -> str:
    """The leaderboard from the results files of `mtg-env evaluate` in `folder` (JSON only:
    nothing is run), one table per deck set, best rating first."""
    import json

    anchors = (
        yaml.safe_load(anchors_file.read_text(encoding="utf-8")) if anchors_file.exists() else {}
    )
    results: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        raw = json.loads(f.read_text(encoding="utf-8"))
        if isinstance(raw, dict) and raw.get("kind") == "mtg_env.evaluate.v1":
            results[raw["config"]["deck_set"]].append(raw)
    out = [
        "# Leaderboard",
        "",
        "Ratings on the fixed anchored scale of `mtg-env evaluate` ([Agents and results]"
        "(agents.md#evaluate-a-rating-on-a-fixed-scale)): every agent plays the same "
        "seat-swapped games (deck pairs, seeds and seats) against pinned anchor agents; its "
        "rating is the Bradley-Terry maximum-likelihood rating on the Elo scale with the "
        "anchors' ratings pinned (random = 1000), with a bootstrap 95% interval over "
        "seat-swapped pairs. Win rates count draws as half and come with Wilson 95% "
        "intervals. Generated from the results files under `docs/results/leaderboard/` "
        "(made by `python scripts/leaderboard.py`) when this page was built. `code` is "
        "the digest of the engine, agents and data the games were played with (two in "
        "one row: the code changed between the runs that made it); ratings compare "
        "strictly only between rows of the same code.",
        "",
    ]
    if not results:
        out += ["No results files yet.", ""]
    for ds in sorted(set(results) | set(anchors or {}), key=lambda d: (d != "classic", d)):
        out += [f"## {DECK_SET_TITLES.get(ds, ds)}", ""]
        entry = (anchors or {}).get(ds)
        if entry:
            out += [
                f"Anchors, pinned (measured by `{entry.get('command', '?')}`: a round robin of "
                f"{entry.get('games_per_pair', '?')} games per pair of anchors, random pinned; "
                f"code {' '.join(entry.get('code') or ['?'])}):",
                "",
                "| anchor | rating | 95% CI |",
                "|---|---|---|",
            ]
            for a in entry["anchors"]:
                ci = a.get("ci95")
                ci_text = f"{ci[0]:.0f}-{ci[1]:.0f}" if ci else "pinned"
                out.append(f"| `{a['spec']}` | {a['rating']:.0f} | {ci_text} |")
            out.append("")
        rows = sorted(
            results.get(ds, []),
            key=lambda r: -(r["rating"]["elo"] if r["rating"]["elo"] is not None else -1e9),
        )
        if not rows:
            out += ["No results files for this deck set yet.", ""]
            continue
        specs = [a["spec"] for a in rows[0]["anchors"]]
        head = ["agent", "rating", "95% CI", *[f"vs `{s}`" for s in specs]]
        head += ["games", "ms/decision", "budget", "code", "command"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            rt = r["rating"]
            elo = (
                "?"
                if rt["elo"] is None
                else f"{rt['elo']:.0f}" + (" (bound)" if rt["at_bound"] else "")
            )
            ci = "?" if not rt["ci95"] else f"{rt['ci95'][0]:.0f}-{rt['ci95'][1]:.0f}"
            per = {a["opponent"]: a for a in r["per_anchor"]}
            cells = [f"`{r['agent']}`", elo, ci]
            for s in specs:
                a = per.get(s)
                cells.append(
                    f"{a['win_rate']:.2f} ({a['ci95'][0]:.2f}-{a['ci95'][1]:.2f})" if a else "-"
                )
            spd = r.get("seconds_per_decision")
            budget = (r.get("budgets") or {}).get(r["agent"])
            if budget and budget.get("iterations_per_decision"):
                btext = f"{budget['iterations_per_decision']} iterations/decision"
            elif budget and budget.get("seconds_per_decision"):
                btext = f"{budget['seconds_per_decision']} s/decision"
            else:
                btext = "-"
            games = f"{r['games_played']}" + ("" if r["complete"] else " (partial)")
            code = " ".join(r.get("code_digests") or ["?"])
            code += " (mixed)" if len(r.get("code_digests") or []) > 1 else ""
            cells += [games, "-" if spd is None else f"{spd * 1000:.2f}", btext, code]
            cells.append(f"`{r.get('command') or '?'}`")
            out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
        out.append("")
        anchor_code = set((entry or {}).get("code") or [])
        row_code = {c for r in rows for c in r.get("code_digests") or []}
        if anchor_code and row_code - anchor_code:
            out += [
                f"The anchors were measured on code {', '.join(sorted(anchor_code))} and these "
                f"rows played on {', '.join(sorted(row_code))}: the engine or agents changed "
                "in between, so the pinned ratings may not describe the anchors exactly as "
                "they played these rows.",
                "",
            ]
        if ds == "core-heldout":
            out += [
                "`policy:default` is not on this table: it is a classic-format policy, and the "
                "agent loader refuses it for the core format (its observation and action "
                "spaces are classic's).",
                "",
            ]
    return "\n".join(out)


def rules_coverage() -> str:
    by_rule: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    files = sorted((ROOT / "tests" / "scenarios").rglob("*.yaml"))
    for path in files:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT / "tests" / "scenarios").as_posix()
        for rule in raw.get("rules") or ["(none given)"]:
            by_rule[str(rule)].append((raw.get("format", "classic"), rel, raw["name"]))

    def key(rule: str) -> list[Any]:
        return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", rule)]

    out = [
        "# Rules coverage",
        "",
        f"Every scenario file under `tests/scenarios/` ({len(files)} files, each a test that "
        "`make test` runs) by the rule references it declares: Comprehensive Rules sections "
        "for classic, the source document's paragraphs (`s003`, `s004`) for pocket and "
        "adventure. Generated from the files when this page was built.",
        "",
        "| rule | format | scenario | file |",
        "|---|---|---|---|",
    ]
    for rule in sorted(by_rule, key=key):
        for fmt, rel, name in by_rule[rule]:
            out.append(f"| {rule} | {fmt} | {name.replace('|', '/')} | `{rel}` |")
    tests = named_tests()
    out += [
        "",
        "## Tests named after a rule",
        "",
        f"Test functions whose names carry a rule number ({len(tests)}): "
        "`test_613_...` is CR 613, `test_pocket_003_...` source 003, "
        "`test_509_1_...` CR 509.1. Read from `tests/` when this page was built.",
        "",
        "| rule | test | file |",
        "|---|---|---|",
    ]
    for rule, name, rel in sorted(tests, key=lambda t: (key(t[0]), t[1])):
        out.append(f"| {rule} | `{name}` | `{rel}` |")
    return "\n".join(out) + "\n"


# A rule number in a test's name: CR section and rule (613, 509_1, 702_2b) or a source
# document's number (003, 004).
_RULE_IN_NAME = re.compile(r"^test_(?:[a-z]+_)?(\d{3})((?:_\d+[a-z]?)?)_")


def named_tests() -> list[tuple[str, str, str]]:
    out = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for name in re.findall(r"^\s*def (test_\w+)", path.read_text(encoding="utf-8"), re.M):
            m = _RULE_IN_NAME.match(name)
            if m:
                rule = m.group(1) + m.group(2).replace("_", ".")
                out.append((rule, name, rel))
    return out
