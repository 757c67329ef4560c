"""The mtg_env rules engine (no numpy, no gymnasium, no I/O beyond reading card data).

from mtg_env.engine import Game, load_decks
decks = load_decks("classic")
game = Game.new((decks["Green Stompy"], decks["Red Burn"]), seed=7)
while not game.is_over:
    game.apply(game.legal_actions()[0])
"""

# First: decides whether the compiled extensions or the .py sources are imported.
from . import build
from .carddb import CardSet, Deck, load_cards, load_deck_file, load_decks, parse_deck, resolve_deck
from .cards import CardDataError, CardDef
from .constants import (
    ACTION_NAMES,
    ACTIVATE,
    ATTACK,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    DECISION_NAMES,
    KEEP,
    MULLIGAN,
    PASS,
    PLAY,
    STEP_NAMES,
    TARGET,
    ZONE_NAMES,
    player_ref,
    ref_player,
)
from .game import Game
from .layers import Chars
from .objects import Action, Decision, IllegalActionError

__all__ = [
    "build",
    "ACTION_NAMES",
    "ACTIVATE",
    "ATTACK",
    "BLOCK",
    "BLOCKER",
    "CARD",
    "CHOOSE",
    "DECISION_NAMES",
    "KEEP",
    "MULLIGAN",
    "PASS",
    "PLAY",
    "STEP_NAMES",
    "TARGET",
    "ZONE_NAMES",
    "Action",
    "CardDataError",
    "CardDef",
    "CardSet",
    "Chars",
    "Decision",
    "Deck",
    "Game",
    "IllegalActionError",
    "load_cards",
    "load_deck_file",
    "load_decks",
    "parse_deck",
    "player_ref",
    "ref_player",
    "resolve_deck",
]
