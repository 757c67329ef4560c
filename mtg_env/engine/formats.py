"""Rules formats: variants of the one engine (DESIGN §2), in the manner of python-chess's
board variants. A format supplies its turn structure, mana model, starting values and card
set; priority, the stack, combat, triggers, state-based actions and the layer system are
shared.

- `classic`: Magic: The Gathering (the Comprehensive Rules where they matter for play).
- `adventure`: "Adventure Cards" (source document 004): six phases (DRAW, MAIN, ATTACKERS,
  BLOCKERS, BATTLE, END), no lands, an automatic mana pool that grows by one each turn up to
  eight, and priority that passes to the other player after every action; casts and
  abilities resolve at once.
- `pocket`: "Pocket Game: The Gathering" (source document 003, docs/pocket.md): one shared
  pile, two-part cards with suits, face-down mana sources, reaction windows, several
  attacks per turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .constants import (
    CLEANUP,
    COMBAT_DAMAGE,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    END,
    MAIN1,
    STEP_NAMES,
    UNTAP,
)


@dataclass(frozen=True, slots=True)
class Rules:
    """What a format decides. Engine code reads these flags instead of the format name."""

    name: str
    card_set: str
    deck_size: int
    starting_life: int = 20
    opening_hand: int = 7
    max_hand: int | None = 7  # discard down to this at cleanup (None: no maximum)
    mulligans: bool = True  # London mulligans as decisions
    # "lands": mana from permanents' mana abilities (CR 106); "pool": an automatic pool that
    # grows by one at the start of each of its owner's turns up to `pool_cap`, and is
    # refilled then; a cost takes its mana value from it, colours ignored.
    mana: str = "lands"
    pool_cap: int = 0
    # Objects put on the stack resolve at once, and after any action other than a pass
    # priority goes to the other player (source 004); otherwise CR 117.3.
    immediate: bool = False
    # The six-phase turn of source 004 instead of CR 500's steps (see ADVENTURE).
    phases: bool = False
    # Source 003's game (see POCKET): a turn of main phase and attacks, reaction windows,
    # two-part cards, face-down mana sources, a shared pile.
    pocket: bool = False
    shared_pile: bool = False  # one library and one graveyard for both players
    summoning_sickness: bool = True
    # Step names players and scenario files use, by engine step constant.
    step_names: dict[int, str] = field(default_factory=dict)

    @property
    def pool(self) -> bool:
        return self.mana == "pool"

    def step_name(self, step: int) -> str:
        if step < 0:
            return "pregame"
        return self.step_names.get(step) or STEP_NAMES[step]

    def step_by_name(self, name: str) -> int | None:
        for step, n in self.step_names.items():
            if n == name:
                return step
        return None


CLASSIC = Rules(
    name="classic",
    card_set="classic",
    deck_size=40,
    step_names={i: n for i, n in enumerate(STEP_NAMES)},
)

# Source 004 maps onto the engine's steps: DRAW is the untap step (untap, mana, draw; no
# priority), MAIN the first main step, ATTACKERS and BLOCKERS the two declaration steps (a
# declaration only, no priority), BATTLE the combat damage step (priority first; damage when
# both players pass in succession) and END the end step (enchantments' triggers, then the
# turn's damage and "until end of turn" effects end; no priority).
ADVENTURE = Rules(
    name="adventure",
    card_set="adventure",
    deck_size=30,
    opening_hand=5,
    max_hand=None,
    mulligans=False,
    mana="pool",
    pool_cap=8,
    immediate=True,
    phases=True,
    step_names={
        UNTAP: "draw",
        MAIN1: "main",
        DECLARE_ATTACKERS: "attackers",
        DECLARE_BLOCKERS: "blockers",
        COMBAT_DAMAGE: "battle",
        END: "end",
    },
)

# Source 003 on the engine's steps (docs/pocket.md): READY is the untap step, then the
# active player's main phase, from which each attack runs through ATTACK (declare), DEFEND
# (the opponent assigns defenders) and FIGHT (reactions, then damage) and returns to the
# main phase; passing in the main phase goes to CLEANUP (heal, remove one unspent unstable
# mana source, draw).
POCKET = Rules(
    name="pocket",
    card_set="pocket",
    deck_size=18,
    opening_hand=3,
    max_hand=None,
    mulligans=False,
    pocket=True,
    shared_pile=True,
    summoning_sickness=False,
    step_names={
        UNTAP: "ready",
        MAIN1: "main",
        DECLARE_ATTACKERS: "attack",
        DECLARE_BLOCKERS: "defend",
        COMBAT_DAMAGE: "fight",
        CLEANUP: "cleanup",
    },
)

FORMATS: dict[str, Rules] = {r.name: r for r in (CLASSIC, ADVENTURE, POCKET)}


def rules_for(name: str) -> Rules:
    """The rules of format `name`; a clear error naming the known formats otherwise."""
    r = FORMATS.get(name)
    if r is None:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return r
