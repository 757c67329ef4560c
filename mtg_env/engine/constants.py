"""Small integer enums shared by the engine (ints, not Enum members, for speed)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

# Card types (CR 300.1) as a bit mask.
ARTIFACT: Final = 1
CREATURE: Final = 2
ENCHANTMENT: Final = 4
INSTANT: Final = 8
LAND: Final = 16
SORCERY: Final = 32
PLANESWALKER: Final = 64
TYPE_BITS: Final = {
    "artifact": ARTIFACT,
    "creature": CREATURE,
    "enchantment": ENCHANTMENT,
    "instant": INSTANT,
    "land": LAND,
    "sorcery": SORCERY,
    "planeswalker": PLANESWALKER,
}
TYPE_NAMES: Final = {v: k for k, v in TYPE_BITS.items()}
PERMANENT_TYPES: Final = ARTIFACT | CREATURE | ENCHANTMENT | LAND | PLANESWALKER
AURA_SUBTYPE: Final = "Aura"

# Supertypes (CR 205.4).
BASIC: Final = 1
LEGENDARY: Final = 2
# Snow (CR 205.4g) has no rules of its own here: no card reads it ({S} mana, "snow
# permanent"). It is a supertype the cards print, so that they compile.
SNOW: Final = 4
SUPERTYPE_BITS: Final = {"basic": BASIC, "legendary": LEGENDARY, "snow": SNOW}
SUPERTYPE_NAMES: Final = {v: k for k, v in SUPERTYPE_BITS.items()}

# Colors (CR 105.1) as a bit mask. Colorless mana is C (not a color).
W: Final = 1
U: Final = 2
B: Final = 4
R: Final = 8
G: Final = 16
COLOR_BITS: Final = {"W": W, "U": U, "B": B, "R": R, "G": G}
COLOR_LETTERS: Final = "WUBRG"
COLOR_WORDS: Final = {"white": W, "blue": U, "black": B, "red": R, "green": G}
COLOR_WORD_OF: Final = {v: k for k, v in COLOR_WORDS.items()}
ALL_COLORS: Final = W | U | B | R | G
C: Final = 32  # colorless mana (a mana type, not a color)
MANA_BITS: Final = {"W": W, "U": U, "B": B, "R": R, "G": G, "C": C}


def colors_to_letters(mask: int) -> list[str]:
    return [COLOR_LETTERS[i] for i in range(5) if mask & (1 << i)]


# Basic land types and their intrinsic mana (CR 305.6).
BASIC_LAND_TYPES: Final = ("Plains", "Island", "Swamp", "Mountain", "Forest")
LAND_TYPE_MANA: Final = {"Plains": W, "Island": U, "Swamp": B, "Mountain": R, "Forest": G}

# Zones (CR 400.1).
LIBRARY: Final = 0
HAND: Final = 1
BATTLEFIELD: Final = 2
GRAVEYARD: Final = 3
STACK: Final = 4
EXILE: Final = 5
NOWHERE: Final = 6
ZONE_NAMES: Final = ("library", "hand", "battlefield", "graveyard", "stack", "exile", "nowhere")
ZONE_BY_NAME: Final = {n: i for i, n in enumerate(ZONE_NAMES)}

# Steps (CR 500.1). Both combat damage steps are COMBAT_DAMAGE (a flag tells them apart).
UNTAP: Final = 0
UPKEEP: Final = 1
DRAW: Final = 2
MAIN1: Final = 3
BEGIN_COMBAT: Final = 4
DECLARE_ATTACKERS: Final = 5
DECLARE_BLOCKERS: Final = 6
COMBAT_DAMAGE: Final = 7
END_COMBAT: Final = 8
MAIN2: Final = 9
END: Final = 10
CLEANUP: Final = 11
PREGAME: Final = -1
STEP_NAMES: Final = (
    "untap",
    "upkeep",
    "draw",
    "main1",
    "beginning_of_combat",
    "declare_attackers",
    "declare_blockers",
    "combat_damage",
    "end_of_combat",
    "main2",
    "end",
    "cleanup",
)
STEP_BY_NAME: Final = {n: i for i, n in enumerate(STEP_NAMES)}

# Decisions (docs/design.md): what kind of choice is pending.
D_PRIORITY: Final = 0
D_TARGET: Final = 1
D_ATTACKERS: Final = 2
D_BLOCKERS: Final = 3
D_BLOCK_TARGET: Final = 4
D_CHOICE: Final = 5
D_MULLIGAN: Final = 6
D_BOTTOM: Final = 7
D_DISCARD: Final = 8
D_SELECT: Final = 9
D_TRIGGER_ORDER: Final = 10
DECISION_NAMES: Final = (
    "priority",
    "target",
    "declare_attackers",
    "declare_blockers",
    "block_target",
    "choice",
    "mulligan",
    "bottom",
    "discard",
    "select",
    "trigger_order",
)

# Action kinds.
PASS: Final = 0  # pass priority; "done" when declaring attackers/blockers
PLAY: Final = 1  # play a land or cast a spell: obj = card id in hand
ACTIVATE: Final = 2  # obj = permanent, arg = ability index (card text order)
ATTACK: Final = 3  # obj = creature, arg = defending player
BLOCKER: Final = 4  # obj = creature chosen to block (then BLOCK picks the attacker)
BLOCK: Final = 5  # obj = attacker the chosen blocker blocks
TARGET: Final = 6  # obj = card id, or PLAYER0/PLAYER1 (negative)
CHOOSE: Final = 7  # arg = option index (mode, colour, land type, yes/no, ...)
KEEP: Final = 8
MULLIGAN: Final = 9
CARD: Final = 10  # obj = card id: put on the bottom / discard / select
ACTION_NAMES: Final = (
    "pass",
    "play",
    "activate",
    "attack",
    "blocker",
    "block",
    "target",
    "choose",
    "keep",
    "mulligan",
    "card",
)


# Players as target ids: -1 is seat 0, -2 is seat 1.
def player_ref(seat: int) -> int:
    return -1 - seat


def ref_player(ref: int) -> int:
    return -1 - ref


# Layers and sublayers (CR 613.1, 613.4) in application order.
L_COPY: Final = 1
L_CONTROL: Final = 2
L_TEXT: Final = 3
L_TYPE: Final = 4
L_COLOR: Final = 5
L_ABILITY: Final = 6
L_PT_CDA: Final = 7
L_PT_SET: Final = 8
L_PT_MOD: Final = 9
L_PT_SWITCH: Final = 10
LAYER_NAMES: Final = {
    L_COPY: "1 (copy)",
    L_CONTROL: "2 (control)",
    L_TEXT: "3 (text)",
    L_TYPE: "4 (type)",
    L_COLOR: "5 (color)",
    L_ABILITY: "6 (abilities)",
    L_PT_CDA: "7a (P/T defining)",
    L_PT_SET: "7b (set P/T)",
    L_PT_MOD: "7c (modify P/T)",
    L_PT_SWITCH: "7d (switch P/T)",
}

# Durations of continuous effects.
DUR_EOT: Final = 0  # until end of turn (CR 514.2)
DUR_FOREVER: Final = 1
DUR_WHILE_CONTROL_SOURCE: Final = 2  # "for as long as you control <source>"
DUR_COMBAT: Final = 3
# "Until your next turn" (CR 611.2b): ends as its controller's next turn begins.
DUR_UNTIL_YOUR_NEXT_TURN: Final = 4

# The name a two-part card has while it is played face down as a mana source (pocket).
FACE_DOWN: Final = "Face-down mana source"


def bit_mask(names: Iterable[str], table: dict[str, int]) -> int:
    """The union of the bits `table` gives `names` (types, colors, mana symbols)."""
    m = 0
    for n in names:
        m |= table[n]
    return m
