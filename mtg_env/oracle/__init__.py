"""Oracle text to card data (docs/oracle.md).

- `compiler`: one card's name, mana cost, type line, Oracle text and P/T to an entry of the
  card-data vocabulary (`engine.carddb`), or the sentences it cannot say and why;
  `rules_of`, what the rules read of a compiled card (the gold set's comparison).
- `grammar`: the templates, a lark grammar, and the transformer to card-data fragments.
- `database`: MTGJSON (AtomicCards, AllPrintings, v3 AllSets) and Scryfall files read, every
  bad input one line.
- `report`: a database compiled, with its coverage (`mtg-env cards compile`).
"""
