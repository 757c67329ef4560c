"""`mtg-env cards compile`: Oracle text to card data, over a card database."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import check_output, clean, command_group, echo

cards_app = command_group("Cards: compile Oracle text into card data.")


@cards_app.command("compile")
@clean
def cards_compile(
    file: Annotated[
        str,
        typer.Argument(
            help="A card database: MTGJSON AtomicCards, AllPrintings or v3 AllSets, or "
            "Scryfall's oracle cards (.json or .json.gz)."
        ),
    ],
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", help="Only cards printed in this set (a set code; repeatable)."),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(help="Folder for cards.yaml, coverage.json and coverage.md."),
    ] = None,
    name: Annotated[str, typer.Option(help="The compiled card set's name.")] = "compiled",
    decks: Annotated[
        list[str] | None,
        typer.Option(
            "--deck",
            help="A text deck list ('4 Name' a line): report which of its cards compile "
            "(repeatable).",
        ),
    ] = None,
) -> None:
    """Compile every card of a card database and report the coverage.

    Prints the counts (cards, commons, per template) and the most common unsupported
    sentences; with --out, writes the compiled cards as a card-set file (cards.yaml) and the
    full report (coverage.json, coverage.md). With --deck, also how much of each deck list
    compiles and what stops the rest. A bad file is one 'error:' line (exit status 2) and
    nothing is written."""
    from pathlib import Path

    from ..engine.carddb import MAX_DECK_CARDS, MAX_DECK_LINE, MAX_DECK_LINES, deck_text_lines
    from ..engine.files import read_lines
    from ..io import write_json, write_text
    from ..oracle.database import read_database
    from ..oracle.report import card_set_yaml, compile_database, deck_coverage

    if out is not None:
        files = [Path(out) / n for n in ("cards.yaml", "coverage.json", "coverage.md")]
        for f in files:
            check_output(str(f), [file, *(decks or [])])
    lists = []
    for d in decks or []:
        # Read before the compile: a bad deck list is reported at once, not minutes later.
        lines, problems = deck_text_lines(
            read_lines(d, "deck list", MAX_DECK_LINES, MAX_DECK_LINE), d, MAX_DECK_CARDS
        )
        if problems:
            raise ValueError(problems[0][1])
        lists.append((Path(d).stem, [(c, n) for _, c, n, side in lines if not side]))
    kind, cards = read_database(file)
    results, cov = compile_database(f"{Path(file).name} ({kind})", cards, sets or ())
    if not cov.cards:
        raise ValueError(f"{file}: no paper card of {', '.join(sets or ['any set'])} in it")
    echo(f"{cov.database}: {cov.compiled:,} of {cov.cards:,} cards compile")
    if cov.commons:
        echo(f"commons: {cov.commons_compiled:,} of {cov.commons:,}")
    for kind_, (ok, n) in sorted(cov.by_template.items()):
        echo(f"  {kind_}: {ok:,} of {n:,} lines")
    echo("most common unsupported sentences (cards):")
    for t, n in cov.unsupported.most_common(10):
        echo(f"  {n:6,}  {t}")
    deck_reports = [deck_coverage(n, entries, results, cards) for n, entries in lists]
    for dr in deck_reports:
        echo(f"deck {dr.name}: {dr.compiled} of {dr.cards} cards compile")
        for n, c, why in dr.missing:
            echo(f"  {n} {c}: {why}")
    if out is not None:
        Path(out).mkdir(parents=True, exist_ok=True)
        report = cov.as_json()
        md = cov.markdown()
        if deck_reports:
            report["decks"] = [dr.as_json() for dr in deck_reports]
            lines_md = [x for dr in deck_reports for x in dr.markdown()]
            md += "\n".join(["", "## Deck lists", "", *lines_md])
        write_text(files[0], card_set_yaml(name, results))
        write_json(files[1], report)
        write_text(files[2], md)
        echo(f"wrote {files[0]}, {files[1]}, {files[2]}")
