"""A strong scripted player for the classic format.

It plays a land every turn (the colors its hand needs), spends its mana on the best
castable spell, attacks when the race or the trades favour it, blocks to prevent lethal
and to make good trades (chump-blocking only to survive), burns face when that is lethal
and otherwise removes the best threat, uses pump spells and flash creatures in combat,
counters big threats, and pings at the end of the opponent's turn. Multi-step actions
(targets, blocker-then-attacker picks) are planned once and then carried out.

It picks cards by what they do (`agents.roles`: effects, targets, keywords and static
abilities read from the card data), never by name, so it plays any card set; which plan
runs depends on the format's turn structure (dispatch on the format class).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import singledispatch
from typing import Any

from mtg_env.engine import Action, Game
from mtg_env.engine.cards import ActivatedAbility, CardDef, ManaAbility, StaticAbility
from mtg_env.engine.constants import (
    ACTIVATE,
    ATTACK,
    BATTLEFIELD,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    COMBAT_DAMAGE,
    CREATURE,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    D_BOTTOM,
    D_CHOICE,
    D_DISCARD,
    D_MULLIGAN,
    D_PRIORITY,
    D_SELECT,
    D_TARGET,
    D_TRIGGER_ORDER,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    ENCHANTMENT,
    END,
    GRAVEYARD,
    KEEP,
    LAND,
    MAIN1,
    MAIN2,
    MULLIGAN,
    PASS,
    PLAY,
    STACK,
    TARGET,
    player_ref,
)
from mtg_env.engine.decisions import Announce, Legend, Redraw, Resolving, Targets, Unstable
from mtg_env.engine.formats import Adventure, Format, Pocket
from mtg_env.engine.layers import matches
from mtg_env.engine.mana import can_pay
from mtg_env.engine.objects import SPELL, activated_at
from mtg_env.engine.priority import MAX_X

from . import pocket_play, roles
from .common import (
    HARMFUL_OPS,
    EngineAgent,
    creatures,
    lands,
    power,
    toughness,
)
from .common import creature_value as _base_creature_value
from .common import def_value as _base_def_value

PASS_A = Action(PASS)
Plan = Callable[[Any, Game, int, list[Action]], Action]

# Keywords of the newer card sets, worth more than the flat 0.3 the shared values give a
# keyword they do not list: a hexproof creature keeps what it is given and dodges
# removal, an indestructible one survives destroy effects and lethal damage.
KW_BONUS = {"hexproof": 1.0, "indestructible": 2.0}
# Effects that hurt what they target (the shared list and the newer ops): a target left
# to the general scoring is then the opponent or one of the opponent's permanents.
HARMFUL = HARMFUL_OPS | {"exile", "lose_life", "mill", "fight"}


def creature_value(g: Game, cid: int) -> float:
    """The shared value of a creature on the battlefield, plus KW_BONUS."""
    v = _base_creature_value(g, cid)
    kw = g.chars(cid).keywords
    for k, b in KW_BONUS.items():
        if k in kw:
            v += b
    return v


def def_value(cd: Any) -> float:
    """The shared value of a creature card before it is cast, plus KW_BONUS."""
    v = _base_def_value(cd)
    for k, b in KW_BONUS.items():
        if k in cd.keywords:
            v += b
    return v


def _indestructible(g: Game, cid: int) -> bool:
    """Neither destroy effects nor lethal damage (deathtouch included) kill it (702.12b)."""
    return "indestructible" in g.chars(cid).keywords


def _targetable(g: Game, cid: int, p: int) -> bool:
    """Can player `p`'s spells and abilities target `cid` (hexproof, 702.11b)?"""
    ch = g.chars(cid)
    return ch.controller == p or "hexproof" not in ch.keywords


def _can_pay_to_draw(g: Game, p: int, loss: int, cards: int) -> bool:
    """Is drawing `cards` for `loss` life worth it: life to spare and cards to draw?"""
    return g.life[p] > loss + 4 and len(g.library[g.rules.pile_of[p]]) > cards


def _fight_pair(
    g: Game,
    p: int,
    mine: list[int],
    theirs: list[int],
    boost: tuple[int, int],
    colors: int = 0,
) -> tuple[float, list[int]]:
    """The best fight: one of `mine` (given `boost` first) fights one of `theirs`. Only
    a fight that kills the other creature counts (its power reaches the other's toughness
    left, or deathtouch; never an indestructible one); one where ours survives is
    preferred, and a trade must trade up. Returns (value, [mine, theirs]) or (-1, [])."""
    best: tuple[tuple[bool, float], list[int]] | None = None
    for t in theirs:
        cht = g.chars(t)
        if not _targetable(g, t, p) or cht.prot & colors or _indestructible(g, t):
            continue
        t_pow, t_left = power(g, t), toughness(g, t) - g.perm[t].damage
        for m in mine:
            chm = g.chars(m)
            if chm.prot & colors:
                continue
            m_pow = max(power(g, m) + boost[0], 0)
            m_left = toughness(g, m) + boost[1] - g.perm[m].damage
            kills = m_pow >= t_left or (m_pow > 0 and "deathtouch" in chm.keywords)
            if not kills:
                continue
            survives = _indestructible(g, m) or not (
                t_pow >= m_left or (t_pow > 0 and "deathtouch" in cht.keywords)
            )
            gain = creature_value(g, t) - (0.0 if survives else creature_value(g, m))
            key = (survives, gain)
            if best is None or key > best[0]:
                best = (key, [m, t])
    if best is None:
        return -1.0, []
    (survives, gain), targets = best
    if survives and gain >= 3:
        return gain, targets
    if not survives and gain >= 2:  # a trade only when it trades up
        return gain, targets
    return -1.0, []


# How the player takes priority, and how it defends on the opponent's turn, by the
# format's turn structure (dispatch on the format class, so a format derived from one of
# these plays like it).
@singledispatch
def _turn_plan(fmt: Format) -> Plan:
    return HeuristicAgent._priority_in_turn


@_turn_plan.register
def _(fmt: Pocket) -> Plan:
    return pocket_play.priority


@singledispatch
def _defence(fmt: Format) -> Plan:
    return HeuristicAgent._defend_in_steps


@_defence.register
def _(fmt: Adventure) -> Plan:
    return HeuristicAgent._defend_in_phases


def _ops(g: Game, cid: int, ability: Any = None, x: int = 0) -> list[Any]:
    """What `ability` does (a spell on the stack: its ability, the mode chosen, with its
    X), or without one what card `cid`'s spell does."""
    if ability is not None:
        return list(roles.with_x(getattr(ability, "effects", ()), x))
    return list(roles.spell_ops(g.cdef[cid]))


def _item_ops(g: Game, item: Any) -> list[Any]:
    return _ops(g, item.cid, item.ability, item.info.get("x", 0))


def _max_x(g: Game, p: int, cd: CardDef) -> int:
    """The largest X `p` could pay for `cd` now (as the engine offers it)."""
    cost = g.rules.cost(g, p, cd)
    if cost is None or not cost.x:
        return 0
    srcs = g.mana_sources(p)
    x = 0
    while x < MAX_X and can_pay(srcs, cost.with_x(x + 1)):
        x += 1
    return x


def _fight_boost_of(ops: tuple[Any, ...]) -> tuple[int, int]:
    return roles.fight_boost_ops(ops) or (0, 0)


def _damage_amount(ops: list[Any]) -> int:
    return sum(o.args["amount"] for o in ops if o.name == "damage")


class HeuristicAgent(EngineAgent):
    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.plan: list[int] = []  # planned targets, in order
        self.attack_plan: list[int] | None = None
        self.block_plan: dict[int, int] | None = None

    def reset(self) -> None:
        self.plan = []
        self.attack_plan = None
        self.block_plan = None

    # ------------------------------------------------------------------ dispatch

    def choose(self, g: Game) -> Action:
        d = g.decision
        assert d is not None
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        k = d.kind
        p = d.player
        if k == D_PRIORITY:
            a = self._priority(g, p, legal)
        elif k == D_TARGET:
            a = self._target(g, p, legal)
        elif k == D_ATTACKERS:
            a = self._attack(g, p, legal)
        elif k in (D_BLOCKERS, D_BLOCK_TARGET):
            a = self._block(g, p, legal)
        elif k == D_MULLIGAN:
            a = self._mulligan(g, p)
        elif k in (D_BOTTOM, D_DISCARD):
            a = self._discard(g, p, legal)
        elif k == D_SELECT:
            a = self._select(g, p, legal)
        elif k == D_CHOICE:
            a = self._choice(g, d, legal)
        elif k == D_TRIGGER_ORDER:
            a = legal[0]
        else:  # pragma: no cover
            a = legal[0]
        if a not in legal:  # a plan that went stale: fall back safely
            a = PASS_A if PASS_A in legal else legal[0]
        return a

    # ------------------------------------------------------------------ mulligan, discard

    def _mulligan(self, g: Game, p: int) -> Action:
        hand = g.hand[p]
        n = len(hand) - g.mull_count[p]
        nl = sum(1 for c in hand if g.cdef[c].types & LAND)
        if len(hand) - g.mull_count[p] <= 5:
            return Action(KEEP)
        if 2 <= nl <= 5 or (n <= 6 and 1 <= nl <= 5):
            return Action(KEEP)
        return Action(MULLIGAN)

    def _discard(self, g: Game, p: int, legal: list[Action]) -> Action:
        if isinstance(g.ctx, Redraw):
            # Pocket's opening: throw back what costs five or more on both halves.
            for a in legal:
                if a.kind == CARD and min(h.mv for h in g.cdef[a.obj].halves) >= 5:
                    return a
            return PASS_A
        """Bottom or discard: keep about three lands in hand (fewer once lands are on the
        battlefield); otherwise drop the spell that is hardest to cast."""
        hand = [a.obj for a in legal]
        hand_lands = [c for c in hand if g.cdef[c].types & LAND]
        spells = [c for c in hand if not g.cdef[c].types & LAND]
        on_bf = len(lands(g, p))
        want = max(0, 3 - on_bf // 2) if on_bf < 6 else 0
        if hand_lands and (len(hand_lands) > want or not spells):
            return Action(CARD, hand_lands[-1])
        return Action(CARD, max(spells, key=lambda c: (g.cdef[c].mv, c)))

    def _select(self, g: Game, p: int, legal: list[Action]) -> Action:
        cands = [a.obj for a in legal]
        if isinstance(g.ctx, Legend | Unstable):
            return legal[0]
        # A copy effect: copy the best creature; returning an enchantment: the cheapest.
        if isinstance(g.ctx, Resolving) and g.ctx.purpose == "copy":
            return Action(CARD, max(cands, key=lambda c: creature_value(g, c)))
        return Action(CARD, min(cands, key=lambda c: g.cdef[c].mv))

    def _choice(self, g: Game, d: Any, legal: list[Action]) -> Action:
        if isinstance(g.ctx, Announce):
            return self._announce(g, d.player, g.ctx)
        opts = [o.lower() for o in d.options]
        if (
            len(opts) >= 2
            and opts[0].endswith(" on top")
            and opts[1].endswith((" on the bottom", " into the graveyard"))
        ):
            return Action(CHOOSE, 0, 0 if self._keep_on_top(g, d) else 1)
        if "yes" in opts:
            return Action(CHOOSE, 0, opts.index("yes"))
        for i, o in enumerate(opts):
            if o.startswith("pay"):
                return Action(CHOOSE, 0, i)
        return legal[0]

    def _announce(self, g: Game, p: int, ctx: Announce) -> Action:
        """A spell being cast: its mode (CR 700.2a), then X (107.3a). The mode: one that
        counters when an opponent's spell is on the stack below it, else the best scored
        (targets planned with it); X: just enough to kill the planned creature target of a
        damage or -X/-X spell, otherwise all it can pay."""
        item = ctx.item
        cid = item.cid
        cd = g.cdef[cid]
        if ctx.what == "mode":
            assert cd.spell is not None
            below = [s for s in g.stack if s is not item]
            theirs = bool(below) and below[-1].controller != p and below[-1].kind == SPELL
            best, best_i, plan = -2.0, 0, list[int]()
            for i, mode in enumerate(ctx.choices):
                ops = cd.spell.modes[mode].effects
                if theirs and any(o.name in ("counter", "counter_unless_pay") for o in ops):
                    self.plan = [below[-1].cid]
                    return Action(CHOOSE, 0, i)
                var = roles.variants(cd, _max_x(g, p, cd))[mode][1]
                score, targets = self._score_def(g, p, cid, var, g.step == MAIN2)
                if score > best:
                    best, best_i, plan = score, i, targets
            self.plan = plan
            return Action(CHOOSE, 0, best_i)
        top = ctx.choices[-1]
        ops = roles.with_x(item.ability.effects if item.ability is not None else (), top)
        shrink = [o for o in ops if (o.name == "damage" and o.args["to"] == "target")]
        shrink += [o for o in ops if o.name == "pump" and o.args["toughness"] < 0]
        t = self.plan[0] if self.plan else -1
        if shrink and t >= 0 and g.zone[t] == BATTLEFIELD and g.chars(t).types & CREATURE:
            need = toughness(g, t) - (g.perm[t].damage if shrink[0].name == "damage" else 0)
            if 0 <= need <= top:
                return Action(CHOOSE, 0, ctx.choices.index(max(need, 0)))
        return Action(CHOOSE, 0, len(ctx.choices) - 1)

    def _keep_on_top(self, g: Game, d: Any) -> bool:
        """Scry and surveil, the first card still looked at (options "<card> on top" /
        "<card> away"): keep a land while lands are short, a spell it can cast soon; send
        away a land it has plenty of and a spell far above its mana."""
        p = d.player
        name = d.options[0][: -len(" on top")]
        n_looked = len(d.options) // 2
        pile = g.library[g.rules.pile_of[p]]
        cards = [c for c in pile[len(pile) - n_looked :] if g.name(c) == name]
        if not cards:
            return True
        cd = g.cdef[cards[0]]
        lands = sum(1 for c in g.controlled(p) if g.chars(c).types & LAND)
        lands += sum(1 for c in g.hand[p] if g.cdef[c].types & LAND)
        if cd.types & LAND:
            return lands < 5
        return cd.mv <= lands + 2

    # ------------------------------------------------------------------ priority

    def _priority(self, g: Game, p: int, legal: list[Action]) -> Action:
        return _turn_plan(g.rules)(self, g, p, legal)

    def _priority_in_turn(self, g: Game, p: int, legal: list[Action]) -> Action:
        """Priority in a turn of steps or phases (classic, adventure)."""
        self.plan = []
        if g.stack:
            return self._respond(g, p, legal)
        my_turn = g.active == p
        step = g.step
        if my_turn and step in (MAIN1, MAIN2):
            lands_ = [a for a in legal if a.kind == PLAY and g.cdef[a.obj].types & LAND]
            if lands_:
                return self._best_land(g, p, lands_)
            a = self._best_spell(g, p, legal, main2=step == MAIN2)
            if a is not None:
                return a
            a = self._best_activation(g, p, legal, sorcery=True)
            if a is not None:
                return a
            return PASS_A
        # The window after blocks and before damage (the format's `after_blocks` step).
        if my_turn and step == g.rules.after_blocks:
            a = self._combat_trick(g, p, legal, attacking=True)
            if a is not None:
                return a
        if not my_turn:
            return _defence(g.rules)(self, g, p, legal)
        return PASS_A

    def _defend_in_steps(self, g: Game, p: int, legal: list[Action]) -> Action:
        """The opponent's turn in CR 500's steps."""
        step = g.step
        if step == DECLARE_ATTACKERS and g.attackers:
            a = self._defend_instant(g, p, legal)
            if a is not None:
                return a
        if step == DECLARE_BLOCKERS:
            a = self._combat_trick(g, p, legal, attacking=False)
            if a is not None:
                return a
        if step == END:
            a = self._end_of_turn(g, p, legal)
            if a is not None:
                return a
        return PASS_A

    def _defend_in_phases(self, g: Game, p: int, legal: list[Action]) -> Action:
        """The opponent's turn in source 004's six phases."""
        step = g.step
        if step == COMBAT_DAMAGE:
            a = self._combat_trick(g, p, legal, attacking=False) or self._defend_instant(
                g, p, legal
            )
            if a is not None:
                return a
        if step == MAIN1 and g.passes == 1:
            # Flash blockers go down before the attack: there is no window between
            # ATTACKERS and BLOCKERS.
            a = self._defend_instant(g, p, legal)
            if a is not None:
                return a
        # No priority at END: the last window of the opponent's turn is BATTLE, or MAIN
        # once the active player has passed; the pool refills at our DRAW anyway.
        if step == COMBAT_DAMAGE or (step == MAIN1 and g.passes == 1):
            a = self._end_of_turn(g, p, legal)
            if a is not None:
                return a
        return PASS_A

    def _best_land(self, g: Game, p: int, options: list[Action]) -> Action:
        need = 0
        for c in g.hand[p]:
            cost = g.cdef[c].cost
            if cost is not None:
                for pip in cost.pips:
                    need |= pip
        have = 0
        for s in g.mana_sources(p):
            have |= s.colors

        def score(a: Action) -> tuple[int, int]:
            ch = g.chars(a.obj)
            makes = 0
            for ab in ch.abilities:
                if isinstance(ab, ManaAbility):
                    makes |= ab.produce & 31
            return (bin(makes & need & ~have).count("1"), bin(makes & need).count("1"))

        return max(options, key=score)

    # ------------------------------------------------------------------ casting

    def _spell_score(self, g: Game, p: int, cid: int, main2: bool) -> tuple[float, list[int]]:
        """How good casting `cid` now is, and the planned targets. A modal or X spell
        scores as its best mode with the largest X it can pay."""
        cd = g.cdef[cid]
        if not roles.announces(cd):
            return self._score_def(g, p, cid, cd, main2)
        best: tuple[float, list[int]] = (-1.0, [])
        for _, var in roles.variants(cd, _max_x(g, p, cd)):
            if var.spell is not None and var.spell.targets:
                if not g._targets_exist(var.spell.targets, cid, p, SPELL, g.chars(cid)):
                    continue
            scored = self._score_def(g, p, cid, var, main2)
            if scored[0] > best[0]:
                best = scored
        return best

    def _score_def(
        self, g: Game, p: int, cid: int, cd: CardDef, main2: bool
    ) -> tuple[float, list[int]]:
        """`_spell_score` of card `cid` as `cd` (itself, or one mode with a value of X)."""
        opp = 1 - p
        mine = creatures(g, p)
        theirs = creatures(g, opp)
        if cd.types & CREATURE:
            haste = "haste" in cd.keywords
            if cd.enters_as_copy:
                allc = mine + theirs
                if not allc:
                    return -1.0, []
                best = max(creature_value(g, c) for c in allc)
                return best + (4 if cd.copy_except_pt else 0), []
            if "flash" in cd.keywords and not main2:
                return -1.0, []  # keep flash creatures for the opponent's turn
            v = def_value(cd) + cd.mv
            if not main2 and not haste:
                v -= 0.5  # creatures without haste: after combat, unless nothing else
            if roles.bounces_on_entering(cd):
                bounceable = [c for c in theirs if _targetable(g, c, p)]
                if not bounceable:
                    return (v * 0.5, [mine[0]]) if mine else (-1.0, [])
                t = max(bounceable, key=lambda c: creature_value(g, c))
                return v + creature_value(g, t) * 0.5, [t]
            if roles.regrows_on_entering(cd):
                gy = [c for c in g.graveyard[p] if g.cdef[c].types & CREATURE]
                if gy:
                    return v + 2, [max(gy, key=lambda c: def_value(g.cdef[c]))]
            return v, []
        ops = list(roles.spell_ops(cd))
        opnames = {o.name for o in ops}
        if opnames & {"fight", "exile", "lose_life", "mill"}:
            scored = self._new_effects_score(g, p, cid, cd, ops, mine, theirs)
            if scored is not None:
                return scored
        dmg = _damage_amount(ops)
        if "damage" in opnames:
            spec = cd.spell.targets[0] if cd.spell and cd.spell.targets else None
            if spec is not None and spec.allows_player and dmg >= g.life[opp]:
                return 100.0, [player_ref(opp)]
            if spec is not None and spec.kind != "player":
                killable = [
                    c
                    for c in theirs
                    if toughness(g, c) - g.perm[c].damage <= dmg
                    and not g.chars(c).prot & cd.colors
                    and _targetable(g, c, p)
                    and not _indestructible(g, c)  # damage does not kill it
                ]
                if killable:
                    t = max(killable, key=lambda c: creature_value(g, c))
                    val = creature_value(g, t)
                    if val >= 3.5 or len(g.hand[p]) > 5:
                        return val, [t]
            if spec is not None and spec.allows_player and spec.kind == "player":
                return 3.0 + dmg * 0.5, [player_ref(opp)]
            return -1.0, []
        if "destroy" in opnames:
            legal_t = [
                c
                for c in theirs
                if not (g.chars(c).colors & 4)
                and not g.chars(c).prot & cd.colors
                and _targetable(g, c, p)
                and not _indestructible(g, c)  # destroy does nothing to it
            ]
            if legal_t:
                t = max(legal_t, key=lambda c: creature_value(g, c))
                if creature_value(g, t) >= 4:
                    return creature_value(g, t), [t]
            return -1.0, []
        if roles.targeted_discard(cd):
            return (3.0, [player_ref(opp)]) if len(g.hand[opp]) >= 2 else (-1.0, [])
        if roles.only_draws(cd) or roles.selects_cards(cd):
            return 3.0, []
        if roles.steals_target_this_turn(cd):
            stealable = [c for c in theirs if _targetable(g, c, p)]
            if not stealable or main2:  # before combat only
                return -1.0, []
            t = max(stealable, key=lambda c: power(g, c))
            gain = power(g, t) + sum(power(g, c) for c in mine if not g.perm[c].tapped)
            return (50.0 if gain >= g.life[opp] else -1.0), [t]
        if roles.steals_all_creatures_this_turn(cd):
            total = sum(power(g, c) for c in theirs + mine)
            return (60.0 if total >= g.life[opp] and not main2 else -1.0), []
        if roles.instant_tokens(cd):
            return -1.0, []  # at the end of the opponent's turn
        if cd.types & ENCHANTMENT:
            return self._enchantment_score(g, p, cid, mine, theirs)
        if roles.is_equipment(cd):
            return 2.0, []
        return -1.0, []

    def _new_effects_score(
        self,
        g: Game,
        p: int,
        cid: int,
        cd: CardDef,
        ops: list[Any],
        mine: list[int],
        theirs: list[int],
    ) -> tuple[float, list[int]] | None:
        """Spells that fight, exile, make a player lose life or mill: (score, targets), or
        None to score the spell by its other effects."""
        opp = 1 - p
        specs = cd.spell.targets if cd.spell is not None else ()
        ops_t = tuple(ops)
        boost = roles.fight_boost(cd)
        if boost is not None:
            # Fight only when ours kills theirs, preferably surviving (_fight_pair).
            return _fight_pair(g, p, mine, theirs, boost, cd.colors)
        self_loss = roles.life_loss(ops_t, "you")
        if self_loss and self_loss >= g.life[p]:
            return -1.0, []  # it would kill us
        kind = roles.exiles_target_permanent(cd)
        if kind:
            # Exile: removal like destroy, and it also answers an indestructible creature.
            legal_t = [
                c
                for c in theirs
                if not g.chars(c).prot & cd.colors
                and _targetable(g, c, p)
                and matches(specs[0].filter, g.chars(c), c, cid, p, g.owner[c])
            ]
            if not legal_t:
                return -1.0, []
            t = max(legal_t, key=lambda c: (creature_value(g, c), _indestructible(g, c)))
            v = creature_value(g, t) - self_loss * 0.5
            return (v if creature_value(g, t) >= 4 else -1.0), [t]
        aimed = bool(specs) and specs[0].allows_player
        loss = roles.life_loss(ops_t, "target") if aimed else 0
        loss += roles.life_loss(ops_t, "each_opponent")
        if loss:
            if roles.draws(ops_t, "target") and aimed:
                # Target player draws and loses life: the cards for us, unless the loss
                # is lethal for the opponent or would leave us low.
                if loss >= g.life[opp]:
                    return 100.0, [player_ref(opp)]
                if _can_pay_to_draw(g, p, loss, roles.draws(ops_t, "target")):
                    return 3.0, [player_ref(p)]
                return -1.0, []
            # Life loss for the opponent: valued as damage to their face.
            if loss >= g.life[opp]:
                return 100.0, [player_ref(opp)] if aimed else []
            return 3.0 + loss * 0.5, [player_ref(opp)] if aimed else []
        if (
            self_loss
            and roles.draws(ops_t, "you")
            and all(o.name in ("draw", "lose_life", "scry", "surveil") for o in ops)
        ):
            # We draw and lose life: a draw spell while life is comfortable.
            ok = _can_pay_to_draw(g, p, self_loss, roles.draws(ops_t, "you"))
            return (3.0 if ok else -1.0), []
        milled = roles.mills(ops_t, "target") if aimed else 0
        milled += roles.mills(ops_t, "each_opponent")
        if milled and all(o.name == "mill" for o in ops):
            # Mill the opponent: a win if it empties their library, else a low-value play
            # (it never targets us).
            left = len(g.library[g.rules.pile_of[opp]])
            if left == 0:
                return -1.0, []
            if left <= milled:
                return 50.0, [player_ref(opp)] if aimed else []
            return 1.0, [player_ref(opp)] if aimed else []
        if roles.mills(ops_t, "you") and all(o.name == "mill" for o in ops):
            return -1.0, []  # mills only us
        return None

    def _enchantment_score(
        self, g: Game, p: int, cid: int, mine: list[int], theirs: list[int]
    ) -> tuple[float, list[int]]:
        cd = g.cdef[cid]
        if cd.enchant is not None:
            harmful = False
            for ab in cd.abilities:
                if isinstance(ab, StaticAbility) and (
                    ab.rules & {"cant_attack", "cant_block"}
                    or any(c.op == "control" for c in ab.components)
                ):
                    harmful = True
            if cd.enchant.kind == "land":
                if roles.grants_abilities_to_land(cd):
                    ls = lands(g, p)
                    return (2.0, [ls[0]]) if ls else (-1.0, [])
                ol = lands(g, 1 - p)
                return (2.0, [ol[0]]) if ol else (-1.0, [])
            if harmful:
                ok = [c for c in theirs if not g.chars(c).prot & cd.colors and _targetable(g, c, p)]
                if not ok:
                    return -1.0, []
                t = max(ok, key=lambda c: creature_value(g, c))
                v = creature_value(g, t)
                return (v * (2.0 if roles.gains_control(cd) else 1.0) if v >= 3 else -1.0), [t]
            ok = [c for c in mine if not g.chars(c).prot & cd.colors]
            if not ok:
                return -1.0, []
            t = max(ok, key=lambda c: (not g.sick(c), creature_value(g, c)))
            return 2.5, [t]
        if roles.anthem(cd):
            n = len(mine)
            return (1.5 * n if n >= 2 else -1.0), []
        if roles.equalizes_creatures(cd):
            diff = sum(power(g, c) + toughness(g, c) - 2 for c in creatures(g, 1 - p)) - sum(
                power(g, c) + toughness(g, c) - 2 for c in mine
            )
            return (diff * 0.5 if diff > 4 else -1.0), []
        if roles.punishes_nonbasic_lands(cd):
            nb = sum(1 for c in lands(g, 1 - p) if not g.chars(c).supertypes & 1)
            return (2.0 * nb if nb else -1.0), []
        if roles.returns_own_enchantment(cd):
            others = [
                c
                for c in g.battlefield
                if g.chars(c).controller == p
                and g.chars(c).types & ENCHANTMENT
                and g.chars(c).colors & (8 | 16)
            ]
            return (4.0 if others and len(lands(g, p)) >= 4 else -1.0), []
        return -1.0, []

    def _best_spell(self, g: Game, p: int, legal: list[Action], main2: bool) -> Action | None:
        best: tuple[float, Action, list[int]] | None = None
        seen: set[str] = set()
        for a in legal:
            if a.kind != PLAY or g.cdef[a.obj].types & LAND:
                continue
            name = g.cdef[a.obj].name
            if name in seen:
                continue
            seen.add(name)
            score, targets = self._spell_score(g, p, a.obj, main2)
            if score > 0 and (best is None or score > best[0]):
                best = (score, a, targets)
        if best is None and not main2:
            # Nothing worth casting before combat: creatures too (they can't attack anyway).
            return None
        if best is None:
            # In main 2 also cast the creatures held back before combat.
            for a in legal:
                if (
                    a.kind == PLAY
                    and g.cdef[a.obj].types & CREATURE
                    and not (g.cdef[a.obj].enters_as_copy)
                ):
                    return a
            return None
        self.plan = list(best[2])
        return best[1]

    def _best_activation(
        self, g: Game, p: int, legal: list[Action], sorcery: bool
    ) -> Action | None:
        opp = 1 - p
        for a in legal:
            if a.kind != ACTIVATE:
                continue
            ab = _activated(g, a)
            if roles.equips(ab):
                mine = [c for c in creatures(g, p) if g.perm[a.obj].attached != c]
                pingers = [c for c in mine if roles.has_pinger(g.chars(c).abilities)]
                if g.perm[a.obj].attached < 0 and mine:
                    t = pingers[0] if pingers else max(mine, key=lambda c: creature_value(g, c))
                    self.plan = [t]
                    return a
            dmg = roles.damages_target_creature(ab)
            if dmg:
                kills = [
                    c
                    for c in creatures(g, opp)
                    if toughness(g, c) - g.perm[c].damage <= dmg
                    and _targetable(g, c, p)
                    and not _indestructible(g, c)
                ]
                if kills:
                    self.plan = [max(kills, key=lambda c: creature_value(g, c))]
                    return a
            kinds = roles.steals_subtype(ab)
            if kinds:
                vamps = [
                    c
                    for c in creatures(g, opp)
                    if any(g.chars(c).has_subtype(k) for k in kinds) and _targetable(g, c, p)
                ]
                if vamps:
                    self.plan = [max(vamps, key=lambda c: creature_value(g, c))]
                    return a
            if roles.copies_own_creature(ab):
                mine = [c for c in creatures(g, p) if not g.chars(c).supertypes & 2]
                if mine:
                    self.plan = [max(mine, key=lambda c: creature_value(g, c))]
                    return a
        return None

    # ------------------------------------------------------------------ instant speed

    def _respond(self, g: Game, p: int, legal: list[Action]) -> Action:
        top = g.stack[-1]
        if top.controller == p:
            return PASS_A
        counters = [a for a in legal if a.kind == PLAY and roles.counters_spells(g.cdef[a.obj])]
        if counters and top.kind == SPELL:
            cd = g.cdef[top.cid]
            dmg = _damage_amount(_item_ops(g, top))
            targets_mine = any(
                r >= 0 and g.zone[r] == 2 and g.chars(r).controller == p for r, _ in top.targets
            )
            if (
                cd.mv >= 4
                or (dmg and dmg >= g.life[p])
                or (cd.types & CREATURE and def_value(cd) >= 8)
                or (targets_mine and roles.removal_worth_countering(cd))
            ):
                self.plan = [top.cid]
                return counters[0]
        # Save a creature from damage with a pump spell.
        ops = _item_ops(g, top)
        dmg = _damage_amount(ops)
        if dmg:
            for r, _ in top.targets:
                if r >= 0 and g.zone[r] == 2 and g.chars(r).controller == p:
                    left = toughness(g, r) - g.perm[r].damage
                    if left <= dmg and not _indestructible(g, r):
                        for a in legal:
                            bonus = roles.pump(g.cdef[a.obj]) if a.kind == PLAY else 0
                            if bonus and left + bonus > dmg:
                                self.plan = [r]
                                return a
        # Save a creature from a removal spell or ability with hexproof: the target
        # becomes illegal and the removal does nothing to it.
        shields = [a for a in legal if a.kind == PLAY and roles.grants_hexproof(g.cdef[a.obj])]
        if shields:
            doomed = [r for r, _ in top.targets if self._doomed(g, p, top, r, ops, dmg)]
            if doomed:
                self.plan = [max(doomed, key=lambda c: creature_value(g, c))]
                return shields[0]
        return PASS_A

    def _doomed(self, g: Game, p: int, top: Any, r: int, ops: list[Any], dmg: int) -> bool:
        """Is our creature `r`, a target of the opponent's spell or ability `top` (effects
        `ops`), worth saving from it?"""
        if r < 0 or g.zone[r] != 2:
            return False
        ch = g.chars(r)
        if ch.controller != p or not ch.types & CREATURE or "hexproof" in ch.keywords:
            return False
        if creature_value(g, r) < 3:
            return False
        names = {o.name for o in ops}
        cd = g.cdef[top.cid]
        if top.kind == SPELL and cd.enchant is not None and roles.gains_control(cd):
            return True  # an Aura that takes it
        if names & {"exile", "return_to_hand", "gain_control", "lose_abilities"}:
            return True
        if _indestructible(g, r):
            return False
        left = toughness(g, r) - g.perm[r].damage
        if "fight" in names:
            # The opponent's creature in the fight (the other target) kills ours?
            boost = _fight_boost_of(tuple(ops))
            for t, _ in top.targets:
                if t >= 0 and t != r and g.zone[t] == BATTLEFIELD and g.chars(t).types & CREATURE:
                    hits = power(g, t) + boost[0]
                    if hits >= left or (hits > 0 and "deathtouch" in g.chars(t).keywords):
                        return True
        shrink = sum(-o.args["toughness"] for o in ops if o.name == "pump")
        return "destroy" in names or (dmg > 0 and dmg >= left) or (shrink > 0 and shrink >= left)

    def _combat_trick(self, g: Game, p: int, legal: list[Action], attacking: bool) -> Action | None:
        plays = [a for a in legal if a.kind == PLAY]
        pumps = [a for a in plays if roles.pump(g.cdef[a.obj])]
        burns = [a for a in plays if roles.burn(g.cdef[a.obj])]
        humbles = [a for a in plays if roles.shrinks(g.cdef[a.obj])]
        fogs = [a for a in plays if roles.fogs(g.cdef[a.obj])]
        bonus = roles.pump(g.cdef[pumps[0].obj]) if pumps else 0
        if not attacking:
            unblocked = sum(power(g, a) for a in g.attackers if a not in g.blocked)
            if fogs and unblocked >= g.life[p]:
                return fogs[0]
        if attacking and pumps:
            # Lethal with a pump on an unblocked attacker (double strike counts twice)?
            opp_life = g.life[1 - p]
            unblocked = [a for a in g.attackers if a not in g.blocked and g.zone[a] == 2]

            def dealt(c: int, bonus: int) -> int:
                n = 2 if "double_strike" in g.chars(c).keywords and not g.fs_participants else 1
                return (power(g, c) + bonus) * n

            base = sum(dealt(c, 0) for c in unblocked)
            if unblocked and base < opp_life:
                best = max(unblocked, key=lambda c: dealt(c, bonus) - dealt(c, 0))
                if base - dealt(best, 0) + dealt(best, bonus) >= opp_life:
                    self.plan = [best]
                    return pumps[0]
        # fights: (mine, theirs)
        fights: list[tuple[int, int]] = []
        for b, a in g.blockers.items():
            if attacking:
                fights.append((a, b))
            else:
                fights.append((b, a))
        for mine, theirs in fights:
            if g.zone[mine] != 2 or g.zone[theirs] != 2:
                continue
            my_p, my_t = power(g, mine), toughness(g, mine) - g.perm[mine].damage
            th_p, th_t = power(g, theirs), toughness(g, theirs) - g.perm[theirs].damage
            dies = (th_p >= my_t or "deathtouch" in g.chars(theirs).keywords) and not (
                _indestructible(g, mine)
            )
            kills = (my_p >= th_t or "deathtouch" in g.chars(mine).keywords) and not (
                _indestructible(g, theirs)
            )
            if (
                dies
                and pumps
                and th_p < my_t + bonus
                and "deathtouch" not in g.chars(theirs).keywords
            ):
                self.plan = [mine]
                return pumps[0]
            if dies and not kills and burns and _targetable(g, theirs, p):
                if th_t <= roles.burn(g.cdef[burns[0].obj]) and not _indestructible(g, theirs):
                    self.plan = [theirs]
                    return burns[0]
            if dies and humbles and _targetable(g, theirs, p):
                self.plan = [theirs]
                return humbles[0]
        return None

    def _defend_instant(self, g: Game, p: int, legal: list[Action]) -> Action | None:
        for a in legal:
            if (
                a.kind == PLAY
                and "flash" in g.cdef[a.obj].keywords
                and g.cdef[a.obj].types & (CREATURE)
            ):
                return a
        attackers = [a for a in g.attackers if g.zone[a] == 2]
        if not attackers:
            return None
        big = max(attackers, key=lambda c: creature_value(g, c))
        # An attacker our spells can target and that destroy and damage can kill.
        mortal = _targetable(g, big, p) and not _indestructible(g, big)
        for a in legal:
            if a.kind != PLAY:
                continue
            cd = g.cdef[a.obj]
            spared = roles.destroy_target_creature(cd)
            if spared is not None and not g.chars(big).colors & spared and mortal:
                self.plan = [big]
                return a
            if (
                roles.bounces_target_creature(cd)
                and creature_value(g, big) >= 4
                and _targetable(g, big, p)
            ):
                self.plan = [big]
                return a
            dmg = roles.burn(cd)
            if dmg:
                ok = [
                    c
                    for c in attackers
                    if toughness(g, c) - g.perm[c].damage <= dmg
                    and _targetable(g, c, p)
                    and not _indestructible(g, c)
                ]
                if ok:
                    self.plan = [max(ok, key=lambda c: creature_value(g, c))]
                    return a
            if (
                roles.exiles_target_permanent(cd)
                and creature_value(g, big) >= 4
                and _targetable(g, big, p)
                and not g.chars(big).prot & cd.colors
                and roles.life_loss(roles.spell_ops(cd), "you") < g.life[p]
            ):
                self.plan = [big]
                return a
            boost = roles.fight_boost(cd)
            if boost is not None:
                # An instant fight: one of ours kills an attacker.
                _, pair = _fight_pair(g, p, creatures(g, p), attackers, boost, cd.colors)
                if pair:
                    self.plan = pair
                    return a
        return None

    def _end_of_turn(self, g: Game, p: int, legal: list[Action]) -> Action | None:
        opp = 1 - p
        for a in legal:
            if a.kind == ACTIVATE and roles.pings(_activated(g, a)):
                kills = [
                    c
                    for c in creatures(g, opp)
                    if toughness(g, c) - g.perm[c].damage <= 1
                    and _targetable(g, c, p)
                    and not _indestructible(g, c)
                ]
                self.plan = (
                    [max(kills, key=lambda c: creature_value(g, c))] if kills else [player_ref(opp)]
                )
                return a
            if (
                a.kind == ACTIVATE
                and isinstance(_activated(g, a), ActivatedAbility)
                and any(o.name == "create_token" for o in _activated(g, a).effects)
            ):
                return a
        for a in legal:
            if a.kind == PLAY and roles.instant_tokens(g.cdef[a.obj]):
                return a
            if a.kind == PLAY and roles.burn(g.cdef[a.obj]):
                if roles.burn(g.cdef[a.obj]) >= g.life[opp]:
                    self.plan = [player_ref(opp)]
                    return a
        for a in legal:
            # Drain the opponent (life loss, valued as damage to their face) with mana
            # that would go unused.
            if a.kind == ACTIVATE and roles.drains_opponent(_activated(g, a)):
                self.plan = [player_ref(opp)]
                return a
        return None

    # ------------------------------------------------------------------ targets

    def _target(self, g: Game, p: int, legal: list[Action]) -> Action:
        while self.plan:
            t = self.plan.pop(0)
            a = Action(TARGET, t)
            if a in legal:
                return a
        item = g.ctx.item if isinstance(g.ctx, Targets) else None
        harmful = True
        names: set[str] = set()
        if item is not None:
            if item.kind == SPELL and g.cdef[item.cid].enchant is not None:
                harmful = False
                for ab in g.cdef[item.cid].abilities:
                    if isinstance(ab, StaticAbility) and (
                        ab.rules or any(c.op == "control" for c in ab.components)
                    ):
                        harmful = True
            else:
                ops = _item_ops(g, item)
                names = {o.name for o in ops}
                harmful = bool(names & HARMFUL) or any(
                    o.name == "pump" and o.args["power"] < 0 for o in ops
                )
                if names & {"fight", "lose_life", "exile"}:
                    a = self._target_new_effects(g, p, legal, item, tuple(ops))
                    if a is not None:
                        return a
        opp = 1 - p
        # Destroy and damage do nothing to an indestructible creature: any other target
        # of the opponent's first.
        futile = harmful and bool(names) and names <= {"damage", "destroy", "gain_life"}

        def score(a: Action) -> float:
            r = a.obj
            if r < 0:
                return 5.0 if (r == player_ref(opp)) == harmful else -5.0
            if g.zone[r] == STACK:
                return 1.0 if harmful and g.controller(r) == opp else -1.0
            if g.zone[r] != 2:
                return float(def_value(g.cdef[r]))
            ch = g.chars(r)
            v = creature_value(g, r) if ch.types & CREATURE else 1.0
            ours = ch.controller == p
            if futile and not ours and "indestructible" in ch.keywords:
                return 0.1
            return v if ours != harmful else -v

        return max(legal, key=lambda a: (score(a), -a.obj))

    def _target_new_effects(
        self, g: Game, p: int, legal: list[Action], item: Any, ops: tuple[Any, ...]
    ) -> Action | None:
        """Targets for fights, life loss and exile from a graveyard, when no plan made
        them (a triggered ability, a plan gone stale); None: the general scoring."""
        opp = 1 - p
        objs = [a.obj for a in legal if a.obj >= 0 and g.zone[a.obj] == 2]
        if "fight" in {o.name for o in ops} and objs:
            mine = [c for c in objs if g.chars(c).controller == p]
            if mine:  # the creature of ours that fights: the one that wins best
                theirs = [c for c in creatures(g, opp) if _targetable(g, c, p)]
                _, pair = _fight_pair(g, p, mine, theirs, _fight_boost_of(ops))
                best = pair[0] if pair else max(mine, key=lambda c: (power(g, c), -c))
                return Action(TARGET, best)
            fighter = item.targets[0][0] if item.targets else -1
            if fighter >= 0 and g.zone[fighter] == 2:
                _, pair = _fight_pair(g, p, [fighter], objs, _fight_boost_of(ops))
                if pair:
                    return Action(TARGET, pair[1])
            return None
        players = {a.obj for a in legal if a.obj < 0}
        loss = roles.life_loss(ops, "target")
        if loss and players == {player_ref(0), player_ref(1)}:
            if roles.draws(ops, "target"):
                # Target player draws and loses life: us, unless it is lethal for the
                # opponent or leaves us low.
                us = loss < g.life[opp] and _can_pay_to_draw(g, p, loss, roles.draws(ops, "target"))
                return Action(TARGET, player_ref(p if us else opp))
            return Action(TARGET, player_ref(opp))
        if "exile" in {o.name for o in ops}:
            cards = [a.obj for a in legal if a.obj >= 0 and g.zone[a.obj] == GRAVEYARD]
            if cards:
                # A graveyard card: the opponent's best creature card, else our least.
                def key(c: int) -> tuple[bool, float]:
                    v = def_value(g.cdef[c])
                    return (g.owner[c] == opp, v if g.owner[c] == opp else -v)

                return Action(TARGET, max(cards, key=key))
        return None

    # ------------------------------------------------------------------ combat

    def _attack(self, g: Game, p: int, legal: list[Action]) -> Action:
        if self.attack_plan is None or not g.attackers:
            self.attack_plan = self._plan_attack(g, p, [a.obj for a in legal if a.kind == ATTACK])
        while self.attack_plan:
            c = self.attack_plan.pop(0)
            a = Action(ATTACK, c, 1 - p)
            if a in legal:
                return a
        self.attack_plan = None
        return PASS_A

    def _can_block(self, g: Game, b: int, a: int) -> bool:
        akw = g.chars(a).keywords
        bkw = g.chars(b).keywords
        if "flying" in akw and not ({"flying", "reach"} & bkw):
            return False
        if g.chars(b).colors & g.chars(a).prot:
            return False
        if "cant_block" in g.chars(b).rules:
            return False
        return not (
            "islandwalk" in akw
            and any("Island" in g.chars(c).subtypes for c in lands(g, g.chars(b).controller))
        )

    def _plan_attack(self, g: Game, p: int, able: list[int]) -> list[int]:
        opp = 1 - p
        blockers = [c for c in creatures(g, opp) if not g.perm[c].tapped]
        # Lethal: what can't be blocked, plus everything if they have few blockers.
        evasive = [a for a in able if not any(self._can_block(g, b, a) for b in blockers)]
        if sum(power(g, a) for a in evasive) >= g.life[opp]:
            return able
        total = sum(power(g, a) for a in able)
        if (
            total - sum(sorted((power(g, a) for a in able), reverse=True)[: len(blockers)])
            >= (g.life[opp])
        ):
            return able
        plan = []
        for a in sorted(able, key=lambda c: -creature_value(g, c)):
            ap, at = power(g, a), toughness(g, a)
            if ap <= 0:
                continue
            bad = False
            for b in blockers:
                if not self._can_block(g, b, a):
                    continue
                bp, bt = power(g, b), toughness(g, b)
                # An indestructible creature survives lethal damage and deathtouch.
                a_dies = (bp >= at or "deathtouch" in g.chars(b).keywords) and not (
                    _indestructible(g, a)
                )
                b_dies = (ap >= bt or "deathtouch" in g.chars(a).keywords) and not (
                    _indestructible(g, b)
                )
                if "first_strike" in g.chars(a).keywords and b_dies:
                    a_dies = False
                if a_dies and not b_dies:
                    bad = True
                    break
                if a_dies and b_dies and creature_value(g, a) > creature_value(g, b) + 1:
                    bad = True
                    break
            if not bad:
                plan.append(a)
        # Don't leave yourself dead to the crack-back.
        their_power = sum(power(g, c) for c in creatures(g, opp))
        staying = [
            c for c in creatures(g, p) if c not in plan or "vigilance" in g.chars(c).keywords
        ]
        absorbed = sum(
            sorted((power(g, c) for c in creatures(g, opp)), reverse=True)[: len(staying)]
        )
        if their_power - absorbed >= g.life[p] and plan:
            keep = sorted(plan, key=lambda c: creature_value(g, c))
            while (
                keep
                and their_power
                - sum(
                    sorted((power(g, c) for c in creatures(g, opp)), reverse=True)[
                        : len(staying) + 1
                    ]
                )
                >= g.life[p]
            ):
                staying.append(keep.pop(0))
            plan = [c for c in plan if c not in staying or "vigilance" in g.chars(c).keywords]
        return plan

    def _block(self, g: Game, p: int, legal: list[Action]) -> Action:
        if self.block_plan is None or (
            not g.blockers and g.decision.kind == D_BLOCKERS and (self._block_started is False)
        ):
            self.block_plan = self._plan_blocks(g, p)
            self._block_started = True
        d = g.decision
        if d is not None and d.kind == D_BLOCK_TARGET:
            b = g.ctx.blocker
            a = self.block_plan.get(b)
            act = Action(BLOCK, a) if a is not None else None
            if act in legal:
                del self.block_plan[b]
                return act
            return legal[0]
        for b in list(self.block_plan):
            act = Action(BLOCKER, b)
            if act in legal:
                return act
            del self.block_plan[b]
        self.block_plan = None
        self._block_started = False
        return PASS_A if PASS_A in legal else legal[0]

    _block_started = False

    def _plan_blocks(self, g: Game, p: int) -> dict[int, int]:
        attackers = sorted(g.attackers, key=lambda a: -power(g, a))
        free = [
            c
            for c in creatures(g, p)
            if not g.perm[c].tapped and "cant_block" not in (g.chars(c).rules)
        ]
        plan: dict[int, int] = {}
        incoming = sum(
            power(g, a) * (2 if "double_strike" in g.chars(a).keywords else 1) for a in attackers
        )
        for a in attackers:
            ap, at = power(g, a), toughness(g, a)
            best = None
            best_score = 0.0
            for b in free:
                if b in plan or not self._can_block(g, b, a):
                    continue
                bp, bt = power(g, b), toughness(g, b)
                b_dies = (ap >= bt or "deathtouch" in g.chars(a).keywords) and not (
                    _indestructible(g, b)
                )
                a_dies = (bp >= at or "deathtouch" in g.chars(b).keywords) and not (
                    _indestructible(g, a)
                )
                if "first_strike" in g.chars(a).keywords and a_dies and b_dies and ap >= bt:
                    a_dies = False
                score = 0.0
                if a_dies and not b_dies:
                    score = 10 + creature_value(g, a)
                elif a_dies and b_dies and creature_value(g, a) >= creature_value(g, b):
                    score = 5 + creature_value(g, a) - creature_value(g, b)
                elif not b_dies:
                    score = 2.0  # free block
                if score > best_score:
                    best, best_score = b, score
            if best is not None:
                plan[best] = a
                incoming -= ap
        # Chump only to survive.
        if incoming >= g.life[p]:
            for a in attackers:
                if a in plan.values() or incoming < g.life[p]:
                    continue
                chumps = [b for b in free if b not in plan and self._can_block(g, b, a)]
                if chumps:
                    b = min(chumps, key=lambda c: creature_value(g, c))
                    plan[b] = a
                    incoming -= power(g, a)
        # Menace attackers need two blockers: drop single blocks on them.
        for a in attackers:
            if "menace" in g.chars(a).keywords:
                bs = [b for b, x in plan.items() if x == a]
                if len(bs) == 1:
                    del plan[bs[0]]
        return plan


def _activated(g: Game, a: Action) -> Any:
    return activated_at(g.chars(a.obj), a.arg)
