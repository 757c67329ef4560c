"""`mtg-env deck import|generate`: deck lists."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import check_output, clean, command_group, echo, shorten

deck_app = command_group("Deck lists: import a text deck list, generate a random legal deck.")


def _deck_out(text: str, out: str | None, what: str) -> None:
    """A deck to stdout, or to `out` through the one write helper."""
    if out is None:
        echo(text.rstrip("\n"))
        return
    from ..io import write_text

    write_text(out, text)
    echo(f"wrote {out} ({what})")


@deck_app.command("import")
@clean
def deck_import(
    file: Annotated[str, typer.Argument(help="A text deck list: '4 Name' a line.")],
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
    name: Annotated[str | None, typer.Option(help="Deck name (default: the file's).")] = None,
    out: Annotated[
        str | None, typer.Option(help="YAML deck file to write (default: print it).")
    ] = None,
) -> None:
    """Check a text deck list and print it as a YAML deck.

    One '4 Name' (or '4x Name') a line; '#' and '//' comments, Deck and Sideboard headers.
    Every bad line is reported, one 'error: FILE:LINE: ...' line each (exit status 2)."""
    import dataclasses

    from ..decks import deck_to_yaml
    from ..engine.carddb import load_deck_text
    from ..engine.cards import CardDataError

    if out is not None:
        check_output(out, [file])  # before the work, not after
    try:
        deck = load_deck_text(file, fmt)
    except CardDataError as e:
        # All the problems, not only the first (clean's one line): a deck list is
        # fixed in one go.
        for line in str(e).splitlines():
            echo(f"error: {shorten(line)}", err=True)
        raise typer.Exit(2) from None
    if name is not None:
        deck = dataclasses.replace(deck, name=name)
    _deck_out(deck_to_yaml(deck), out, f"{deck.name}: {len(deck.cards)} cards")


@deck_app.command("generate")
@clean
def deck_generate(
    fmt: Annotated[str, typer.Option("--format", help="Rules format (classic, core).")] = "core",
    seed: Annotated[int, typer.Option(min=0, help="Seed: the same seed, the same deck.")] = 0,
    colors: Annotated[
        str | None,
        typer.Option(help="Colour letters, e.g. WU (default: two drawn with the seed)."),
    ] = None,
    lands: Annotated[
        int | None, typer.Option(min=0, help="Basic lands (default 17 of 40, scaled).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Deck name.")] = None,
    text: Annotated[
        bool, typer.Option("--text", help="Write the text deck list instead of YAML.")
    ] = False,
    out: Annotated[str | None, typer.Option(help="File to write (default: print it).")] = None,
) -> None:
    """Generate a seeded random deck, legal for the format.

    The exact deck size, the chosen colours, at most four copies of a card, basic lands by
    the spells' mana symbols, spells on a mana curve; the same seed gives the same deck."""
    from ..decks import deck_to_text, deck_to_yaml, generate_deck

    if out is not None:
        from ..io import check_writable

        check_writable(out)
    deck = generate_deck(fmt, seed=seed, colors=colors, lands=lands, name=name)
    body = deck_to_text(deck) if text else deck_to_yaml(deck)
    _deck_out(body, out, f"{deck.name}: {len(deck.cards)} cards")
