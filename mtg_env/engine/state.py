"""Generated from `engine.fields.FIELDS` by `MTG_ENV_PURE=1 python -m
mtg_env.engine.fields`: do not edit (change FIELDS and regenerate; a test compares
this file with the generator)."""

from __future__ import annotations

from typing import Any

from .cards import CardDef, CardSet
from .chars import Chars, Effect
from .constants import PREGAME
from .decisions import Context
from .derived import Derived
from .fields import copy_ctx, effect_state
from .hooks import FormatHooks
from .objects import Action, Decision, FormatState, Perm, Resolution, StackItem, Trigger
from .rng import Rng


class GameFields:
    """The state fields of a game, typed (`rules` is the game's format, through the
    hooks it implements: engine.hooks): the root of `Game`'s single chain of base
    classes, so that the compiled build reads and writes them at fixed offsets. Never
    instantiated alone."""

    __slots__ = (
        "format",
        "rules",
        "turn",
        "active",
        "step",
        "first_player",
        "lands_played",
        "clock",
        "last_turn_start",
        "turn_start_clock",
        "life",
        "lost",
        "drew_from_empty",
        "rng",
        "cdef",
        "owner",
        "zone",
        "oid",
        "next_oid",
        "library",
        "hand",
        "graveyard",
        "exile",
        "battlefield",
        "perm",
        "stack",
        "effects",
        "triggers",
        "delayed",
        "attackers",
        "blocked",
        "blockers",
        "fs_participants",
        "fs_step",
        "fog_turn",
        "k",
        "_decision",
        "ctx",
        "res",
        "passes",
        "mull_count",
        "mull_kept",
        "mull_round",
        "over",
        "winner",
        "truncated",
        "n_decisions",
        "draws",
        "plotted",
        "playable",
        "mana_pool",
        "prevent_next",
        "skip_untap",
        "exile_if_dies",
        "linked_exile",
        "damaged_turn",
        "poison",
        "initiative",
        "format_state",
        "cardset",
        "auto_pass",
        "max_decisions",
        "deck_names",
        "lose_reason",
        "stray_tokens",
        "lki",
        "_chars",
        "_drv",
        "_sba_ok",
        "_offbf",
        "_spend",
        "_dirty",
        "_legal",
        "_events",
        "_ev_shared",
    )

    format: str
    rules: FormatHooks
    turn: int
    active: int
    step: int
    first_player: int
    lands_played: int
    clock: int
    last_turn_start: list[int]
    turn_start_clock: int
    life: list[int]
    lost: list[bool]
    drew_from_empty: list[bool]
    rng: Rng
    cdef: list[CardDef]
    owner: list[int]
    zone: list[int]
    oid: list[int]
    next_oid: int
    library: list[list[int]]
    hand: list[list[int]]
    graveyard: list[list[int]]
    exile: list[list[int]]
    battlefield: list[int]
    perm: dict[int, Perm]
    stack: list[StackItem]
    effects: list[Effect]
    triggers: list[Trigger]
    delayed: list[Trigger]
    attackers: dict[int, int]
    blocked: set[int]
    blockers: dict[int, int]
    fs_participants: set[int] | None
    fs_step: bool
    fog_turn: int
    k: list[tuple[Any, ...]]
    _decision: Decision | None
    ctx: Context | None
    res: Resolution | None
    passes: int
    mull_count: list[int]
    mull_kept: list[bool]
    mull_round: list[int]
    over: bool
    winner: int | None
    truncated: bool
    n_decisions: int
    draws: list[int] | None
    plotted: dict[int, tuple[int, int]] | None
    playable: dict[int, tuple[int, int, int]] | None
    mana_pool: list[list[int]] | None
    prevent_next: dict[int, int] | None
    skip_untap: list[int] | None
    exile_if_dies: list[int] | None
    linked_exile: dict[int, tuple[int, int, int]] | None
    damaged_turn: list[bool] | None
    poison: list[int] | None
    initiative: list[int] | None
    format_state: FormatState
    cardset: CardSet
    auto_pass: bool
    max_decisions: int | None
    deck_names: list[tuple[str, ...]]
    lose_reason: list[str]
    stray_tokens: list[int]
    lki: dict[int, tuple[int, Chars]]
    _chars: dict[int, Chars]
    _drv: Derived | None
    _sba_ok: Derived | None
    _offbf: list[int]
    _spend: list[tuple[int, bool] | None]
    _dirty: bool
    _legal: list[Action] | None
    _events: list[tuple[Any, ...]]
    _ev_shared: bool


def init_state(
    g: GameFields,
    fmt: str,
    rules: FormatHooks,
    cardset: CardSet,
    seed: int,
    auto_pass: bool,
    max_decisions: int | None,
) -> None:
    g.format = fmt
    g.rules = rules
    g.turn = 0
    g.active = 0
    g.step = PREGAME
    g.first_player = 0
    g.lands_played = 0
    g.clock = 1
    g.last_turn_start = [-1, -1]
    g.turn_start_clock = 0
    g.life = [rules.starting_life, rules.starting_life]
    g.lost = [False, False]
    g.drew_from_empty = [False, False]
    g.rng = Rng(seed)
    g.cdef = []
    g.owner = []
    g.zone = []
    g.oid = []
    g.next_oid = 1
    g.library = [[], []]
    g.hand = [[], []]
    g.graveyard = [[], []]
    g.exile = [[], []]
    g.battlefield = []
    g.perm = {}
    g.stack = []
    g.effects = []
    g.triggers = []
    g.delayed = []
    g.attackers = {}
    g.blocked = set()
    g.blockers = {}
    g.fs_participants = None
    g.fs_step = False
    g.fog_turn = -1
    g.k = []
    g._decision = None
    g.ctx = None
    g.res = None
    g.passes = 0
    g.mull_count = [0, 0]
    g.mull_kept = [False, False]
    g.mull_round = []
    g.over = False
    g.winner = None
    g.truncated = False
    g.n_decisions = 0
    g.draws = [0, 0] if cardset.draw_triggers else None
    g.plotted = {} if cardset.plot else None
    g.playable = {} if cardset.impulse else None
    g.mana_pool = [[], []] if cardset.add_mana else None
    g.prevent_next = {} if cardset.prevent_next else None
    g.skip_untap = [] if cardset.skip_untap else None
    g.exile_if_dies = [] if cardset.exile_if_dies else None
    g.linked_exile = {} if cardset.linked_exile else None
    g.damaged_turn = [False, False] if cardset.bloodthirst else None
    g.poison = [0, 0] if cardset.poison else None
    g.initiative = [-1, -1, -1, -1, -1] if cardset.undercity else None
    g.format_state = rules.new_state()
    g.cardset = cardset
    g.auto_pass = auto_pass
    g.max_decisions = max_decisions
    g.deck_names = [(), ()]
    g.lose_reason = ["", ""]
    g.stray_tokens = []
    g.lki = {}
    g._chars = {}
    g._drv = None
    g._sba_ok = None
    g._offbf = [0, 0]
    g._spend = [None, None]
    g._dirty = True
    g._legal = None
    g._events = []
    g._ev_shared = False


def clone_state(s: GameFields, g: GameFields) -> None:
    items = {id(it): it.copy() for it in s.stack}  # shared by stack, ctx and res
    g.format = s.format
    g.rules = s.rules
    g.turn = s.turn
    g.active = s.active
    g.step = s.step
    g.first_player = s.first_player
    g.lands_played = s.lands_played
    g.clock = s.clock
    g.last_turn_start = s.last_turn_start[:]
    g.turn_start_clock = s.turn_start_clock
    g.life = s.life[:]
    g.lost = s.lost[:]
    g.drew_from_empty = s.drew_from_empty[:]
    g.rng = s.rng.copy()
    g.cdef = s.cdef[:]
    g.owner = s.owner[:]
    g.zone = s.zone[:]
    g.oid = s.oid[:]
    g.next_oid = s.next_oid
    g.library = [s.library[0][:], s.library[1][:]]
    g.hand = [s.hand[0][:], s.hand[1][:]]
    g.graveyard = [s.graveyard[0][:], s.graveyard[1][:]]
    g.exile = [s.exile[0][:], s.exile[1][:]]
    g.battlefield = s.battlefield[:]
    g.perm = {c: p.copy() for c, p in s.perm.items()}
    g.stack = [items[id(it)] for it in s.stack]
    g.effects = s.effects[:]
    g.triggers = s.triggers[:]
    g.delayed = s.delayed[:]
    g.attackers = dict(s.attackers)
    g.blocked = set(s.blocked)
    g.blockers = dict(s.blockers)
    g.fs_participants = None if s.fs_participants is None else set(s.fs_participants)
    g.fs_step = s.fs_step
    g.fog_turn = s.fog_turn
    g.k = s.k[:]
    g._decision = s._decision
    g.ctx = copy_ctx(s.ctx, items)
    g.res = None if s.res is None else s.res.copy(items.get(id(s.res.item)) or s.res.item.copy())
    g.passes = s.passes
    g.mull_count = s.mull_count[:]
    g.mull_kept = s.mull_kept[:]
    g.mull_round = s.mull_round[:]
    g.over = s.over
    g.winner = s.winner
    g.truncated = s.truncated
    g.n_decisions = s.n_decisions
    g.draws = None if s.draws is None else s.draws[:]
    g.plotted = None if s.plotted is None else dict(s.plotted)
    g.playable = None if s.playable is None else dict(s.playable)
    g.mana_pool = None if s.mana_pool is None else [s.mana_pool[0][:], s.mana_pool[1][:]]
    g.prevent_next = None if s.prevent_next is None else dict(s.prevent_next)
    g.skip_untap = None if s.skip_untap is None else s.skip_untap[:]
    g.exile_if_dies = None if s.exile_if_dies is None else s.exile_if_dies[:]
    g.linked_exile = None if s.linked_exile is None else dict(s.linked_exile)
    g.damaged_turn = None if s.damaged_turn is None else s.damaged_turn[:]
    g.poison = None if s.poison is None else s.poison[:]
    g.initiative = None if s.initiative is None else s.initiative[:]
    g.format_state = s.format_state.copy()
    g.cardset = s.cardset
    g.auto_pass = s.auto_pass
    g.max_decisions = s.max_decisions
    g.deck_names = s.deck_names
    g.lose_reason = s.lose_reason[:]
    g.stray_tokens = s.stray_tokens[:]
    g.lki = dict(s.lki)
    g._chars = s._chars
    g._drv = s._drv
    g._sba_ok = s._sba_ok
    g._offbf = s._offbf
    g._spend = s._spend
    g._dirty = s._dirty
    g._legal = s._legal
    g._events = s._events
    g._ev_shared = s._ev_shared = True  # the log is shared now


def hash_parts(s: GameFields) -> list:
    return [
        s.format,
        s.turn,
        s.active,
        s.step,
        s.first_player,
        s.lands_played,
        s.clock,
        tuple(s.last_turn_start),
        s.turn_start_clock,
        tuple(s.life),
        tuple(s.lost),
        tuple(s.drew_from_empty),
        s.rng.key(),
        tuple(c.name for c in s.cdef),
        tuple(s.owner),
        tuple(s.zone),
        tuple(s.oid),
        s.next_oid,
        tuple(map(tuple, s.library)),
        tuple(map(tuple, s.hand)),
        tuple(map(tuple, s.graveyard)),
        tuple(map(tuple, s.exile)),
        tuple(s.battlefield),
        tuple(s.perm[c].state() for c in sorted(s.perm)),
        tuple(it.state() for it in s.stack),
        tuple(effect_state(e) for e in s.effects),
        tuple(t.state() for t in s.triggers),
        tuple(t.state() for t in s.delayed),
        tuple(sorted(s.attackers.items())),
        tuple(sorted(s.blocked)),
        tuple(sorted(s.blockers.items())),
        None if s.fs_participants is None else tuple(sorted(s.fs_participants)),
        s.fs_step,
        s.fog_turn,
        tuple(s.k),
        s._decision,
        None if s.ctx is None else s.ctx.state(),
        None if s.res is None else (s.res.item.oid, s.res.state()),
        s.passes,
        tuple(s.mull_count),
        tuple(s.mull_kept),
        tuple(s.mull_round),
        s.over,
        s.winner,
        s.truncated,
        s.n_decisions,
    ]
