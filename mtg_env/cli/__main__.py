"""`python -m mtg_env.cli`: the `mtg-env` command."""

from . import main

main()
