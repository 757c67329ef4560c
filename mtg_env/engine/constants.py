"""Small integer enums shared by the engine (ints, not Enum members, for speed)."""

from __future__ import annotations

# Card types (CR 300.1) as a bit mask.
ARTIFACT = 1
CREATURE = 2
ENCHANTMENT = 4
INSTANT = 8
LAND = 16
SORCERY = 32
PLANESWALKER = 64
TYPE_BITS = {
    "artifact": ARTIFACT,
    "creature": CREATURE,
    "enchantment": ENCHANTMENT,
    "instant": INSTANT,
    "land": LAND,
    "sorcery": SORCERY,
    "planeswalker": PLANESWALKER,
}
TYPE_NAMES = {v: k for k, v in TYPE_BITS.items()}
PERMANENT_TYPES = ARTIFACT | CREATURE | ENCHANTMENT | LAND | PLANESWALKER
AURA_SUBTYPE = "Aura"

# Supertypes (CR 205.4).
BASIC = 1
LEGENDARY = 2
SUPERTYPE_BITS = {"basic": BASIC, "legendary": LEGENDARY}
SUPERTYPE_NAMES = {v: k for k, v in SUPERTYPE_BITS.items()}

# Colors (CR 105.1) as a bit mask. Colorless mana is C (not a color).
W, U, B, R, G = 1, 2, 4, 8, 16
COLOR_BITS = {"W": W, "U": U, "B": B, "R": R, "G": G}
COLOR_LETTERS = "WUBRG"
COLOR_WORDS = {"white": W, "blue": U, "black": B, "red": R, "green": G}
COLOR_WORD_OF = {v: k for k, v in COLOR_WORDS.items()}
ALL_COLORS = W | U | B | R | G
C = 32  # colorless mana (a mana type, not a color)
MANA_BITS = {"W": W, "U": U, "B": B, "R": R, "G": G, "C": C}


def colors_to_letters(mask: int) -> list[str]:
    return [COLOR_LETTERS[i] for i in range(5) if mask & (1 << i)]


# Basic land types and their intrinsic mana (CR 305.6).
BASIC_LAND_TYPES = ("Plains", "Island", "Swamp", "Mountain", "Forest")
LAND_TYPE_MANA = {"Plains": W, "Island": U, "Swamp": B, "Mountain": R, "Forest": G}

# Zones (CR 400.1).
LIBRARY, HAND, BATTLEFIELD, GRAVEYARD, STACK, EXILE, NOWHERE = range(7)
ZONE_NAMES = ("library", "hand", "battlefield", "graveyard", "stack", "exile", "nowhere")
ZONE_BY_NAME = {n: i for i, n in enumerate(ZONE_NAMES)}

# Steps (CR 500.1). Both combat damage steps are COMBAT_DAMAGE (a flag tells them apart).
(
    UNTAP,
    UPKEEP,
    DRAW,
    MAIN1,
    BEGIN_COMBAT,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    COMBAT_DAMAGE,
    END_COMBAT,
    MAIN2,
    END,
    CLEANUP,
) = range(12)
PREGAME = -1
STEP_NAMES = (
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
STEP_BY_NAME = {n: i for i, n in enumerate(STEP_NAMES)}

# Decisions (docs/design.md): what kind of choice is pending.
(
    D_PRIORITY,
    D_TARGET,
    D_ATTACKERS,
    D_BLOCKERS,
    D_BLOCK_TARGET,
    D_CHOICE,
    D_MULLIGAN,
    D_BOTTOM,
    D_DISCARD,
    D_SELECT,
    D_TRIGGER_ORDER,
) = range(11)
DECISION_NAMES = (
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
(
    PASS,  # pass priority; "done" when declaring attackers/blockers
    PLAY,  # play a land or cast a spell: obj = card id in hand
    ACTIVATE,  # obj = permanent, arg = ability index (card text order)
    ATTACK,  # obj = creature, arg = defending player
    BLOCKER,  # obj = creature chosen to block (then BLOCK picks the attacker)
    BLOCK,  # obj = attacker the chosen blocker blocks
    TARGET,  # obj = card id, or PLAYER0/PLAYER1 (negative)
    CHOOSE,  # arg = option index (mode, colour, land type, yes/no, ...)
    KEEP,
    MULLIGAN,
    CARD,  # obj = card id: put on the bottom / discard / select
) = range(11)
ACTION_NAMES = (
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
L_COPY, L_CONTROL, L_TEXT, L_TYPE, L_COLOR, L_ABILITY, L_PT_CDA, L_PT_SET, L_PT_MOD, L_PT_SWITCH = (
    range(1, 11)
)
LAYER_NAMES = {
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
DUR_EOT = 0  # until end of turn (CR 514.2)
DUR_FOREVER = 1
DUR_WHILE_CONTROL_SOURCE = 2  # "for as long as you control <source>"
DUR_COMBAT = 3

# The name a two-part card has while it is played face down as a mana source (pocket).
FACE_DOWN = "Face-down mana source"
