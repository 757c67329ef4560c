"""What the scripted player (agents.heuristic.HeuristicAgent) values, without state: a
creature's worth, the score of casting a spell or an effect, which cards to keep, what is
doomed on the stack. Pure functions of the game and the seat, so ISMCTS rollouts and tests
call them as they are."""

from __future__ import annotations

from typing import Any

from mtg_env.engine import Action, Game
from mtg_env.engine.cards import CardDef, ManaAbility, StaticAbility
from mtg_env.engine.constants import (
    BATTLEFIELD,
    CARD,
    CREATURE,
    ENCHANTMENT,
    GRAVEYARD,
    KEEP,
    LAND,
    MULLIGAN,
    PASS,
    TARGET,
    player_ref,
)
from mtg_env.engine.decisions import Legend, Redraw, Resolving, Unstable
from mtg_env.engine.layers import matches
from mtg_env.engine.mana import can_pay
from mtg_env.engine.objects import SPELL, activated_at
from mtg_env.engine.priority import MAX_X

from . import roles
from .common import (
    HARMFUL_OPS,
    creatures,
    lands,
    power,
    toughness,
)
from .common import creature_value as _base_creature_value
from .common import def_value as _base_def_value

PASS_A = Action(PASS)
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


def indestructible(g: Game, cid: int) -> bool:
    """Neither destroy effects nor lethal damage (deathtouch included) kill it (702.12b)."""
    return "indestructible" in g.chars(cid).keywords


def dies_to(g: Game, victim: int, toughness: int, killer: int, power: int) -> bool:
    """Whether `killer`'s damage (`power`) kills `victim` (`toughness` left): lethal damage
    or deathtouch, unless the victim is indestructible."""
    return (power >= toughness or "deathtouch" in g.chars(killer).keywords) and not (
        indestructible(g, victim)
    )


def targetable(g: Game, cid: int, p: int) -> bool:
    """Can player `p`'s spells and abilities target `cid` (hexproof, 702.11b)?"""
    ch = g.chars(cid)
    return ch.controller == p or "hexproof" not in ch.keywords


def can_pay_to_draw(g: Game, p: int, loss: int, cards: int) -> bool:
    """Is drawing `cards` for `loss` life worth it: life to spare and cards to draw?"""
    return g.life[p] > loss + 4 and len(g.library[g.rules.pile_of[p]]) > cards


def fight_pair(
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
        if not targetable(g, t, p) or cht.prot & colors or indestructible(g, t):
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
            survives = indestructible(g, m) or not (
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


def card_ops(g: Game, cid: int, ability: Any = None, x: int = 0) -> list[Any]:
    """What `ability` does (a spell on the stack: its ability, the mode chosen, with its
    X), or without one what card `cid`'s spell does."""
    if ability is not None:
        return list(roles.with_x(getattr(ability, "effects", ()), x))
    return list(roles.spell_ops(g.cdef[cid]))


def item_ops(g: Game, item: Any) -> list[Any]:
    return card_ops(g, item.cid, item.ability, item.info.get("x", 0))


def max_x(g: Game, p: int, cd: CardDef) -> int:
    """The largest X `p` could pay for `cd` now (as the engine offers it)."""
    cost = g.rules.cost(g, p, cd)
    if cost is None or not cost.x:
        return 0
    srcs = g.mana_sources(p)
    x = 0
    while x < MAX_X and can_pay(srcs, cost.with_x(x + 1)):
        x += 1
    return x


def fight_boost_of(ops: tuple[Any, ...]) -> tuple[int, int]:
    return roles.fight_boost_ops(ops) or (0, 0)


def damage_amount(ops: list[Any]) -> int:
    # An amount counted as the spell resolves ("for each creature you control") is not
    # known ahead: counted as none.
    return sum(
        o.args["amount"] for o in ops if o.name == "damage" and type(o.args["amount"]) is int
    )


def activated(g: Game, a: Action) -> Any:
    return activated_at(g.chars(a.obj), a.arg)


def mulligan(g: Game, p: int) -> Action:
    hand = g.hand[p]
    n = len(hand) - g.mull_count[p]
    nl = sum(1 for c in hand if g.cdef[c].types & LAND)
    if len(hand) - g.mull_count[p] <= 5:
        return Action(KEEP)
    if 2 <= nl <= 5 or (n <= 6 and 1 <= nl <= 5):
        return Action(KEEP)
    return Action(MULLIGAN)


def discard(g: Game, p: int, legal: list[Action]) -> Action:
    """Bottom or discard: keep about three lands in hand (fewer once lands are on the
    battlefield); otherwise drop the spell that is hardest to cast."""
    if isinstance(g.ctx, Redraw):
        # Pocket's opening: throw back what costs five or more on both halves.
        for a in legal:
            if a.kind == CARD and min(h.mv for h in g.cdef[a.obj].halves) >= 5:
                return a
        return PASS_A
    hand = [a.obj for a in legal]
    hand_lands = [c for c in hand if g.cdef[c].types & LAND]
    spells = [c for c in hand if not g.cdef[c].types & LAND]
    on_bf = len(lands(g, p))
    want = max(0, 3 - on_bf // 2) if on_bf < 6 else 0
    if hand_lands and (len(hand_lands) > want or not spells):
        return Action(CARD, hand_lands[-1])
    return Action(CARD, max(spells, key=lambda c: (g.cdef[c].mv, c)))


def select(g: Game, p: int, legal: list[Action]) -> Action:
    cands = [a.obj for a in legal]
    if isinstance(g.ctx, Legend | Unstable):
        return legal[0]
    # A copy effect: copy the best creature; returning an enchantment: the cheapest.
    if isinstance(g.ctx, Resolving) and g.ctx.purpose == "copy":
        return Action(CARD, max(cands, key=lambda c: creature_value(g, c)))
    return Action(CARD, min(cands, key=lambda c: g.cdef[c].mv))


def keep_on_top(g: Game, d: Any) -> bool:
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


def best_land(g: Game, p: int, options: list[Action]) -> Action:
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


def spell_score(g: Game, p: int, cid: int, main2: bool) -> tuple[float, list[int]]:
    """How good casting `cid` now is, and the planned targets. A modal or X spell
    scores as its best mode with the largest X it can pay."""
    cd = g.cdef[cid]
    if not roles.announces(cd):
        return score_def(g, p, cid, cd, main2)
    best: tuple[float, list[int]] = (-1.0, [])
    for _, var in roles.variants(cd, max_x(g, p, cd)):
        if var.spell is not None and var.spell.targets:
            if not g._targets_exist(var.spell.targets, cid, p, SPELL, g.chars(cid)):
                continue
        scored = score_def(g, p, cid, var, main2)
        if scored[0] > best[0]:
            best = scored
    return best


def score_def(g: Game, p: int, cid: int, cd: CardDef, main2: bool) -> tuple[float, list[int]]:
    """`spell_score` of card `cid` as `cd` (itself, or one mode with a value of X)."""
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
            bounceable = [c for c in theirs if targetable(g, c, p)]
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
        scored = new_effects_score(g, p, cid, cd, ops, mine, theirs)
        if scored is not None:
            return scored
    dmg = damage_amount(ops)
    if "damage" in opnames:
        spec = cd.spell.targets[0] if cd.spell and cd.spell.targets else None
        if spec is not None and spec.allows_player and dmg >= g.life[opp]:
            return 100.0, [player_ref(opp)]
        if spec is not None and spec.kind not in ("player", "opponent"):
            killable = [
                c
                for c in theirs
                if toughness(g, c) - g.perm[c].damage <= dmg
                and not g.chars(c).prot & cd.colors
                and targetable(g, c, p)
                and not indestructible(g, c)  # damage does not kill it
            ]
            if killable:
                t = max(killable, key=lambda c: creature_value(g, c))
                val = creature_value(g, t)
                if val >= 3.5 or len(g.hand[p]) > 5:
                    return val, [t]
        if spec is not None and spec.kind in ("player", "opponent"):
            return 3.0 + dmg * 0.5, [player_ref(opp)]
        return -1.0, []
    if "destroy" in opnames:
        legal_t = [
            c
            for c in theirs
            if not (g.chars(c).colors & 4)
            and not g.chars(c).prot & cd.colors
            and targetable(g, c, p)
            and not indestructible(g, c)  # destroy does nothing to it
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
        stealable = [c for c in theirs if targetable(g, c, p)]
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
        return enchantment_score(g, p, cid, mine, theirs)
    if roles.is_equipment(cd):
        return 2.0, []
    return -1.0, []


def new_effects_score(
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
        # Fight only when ours kills theirs, preferably surviving (fight_pair).
        return fight_pair(g, p, mine, theirs, boost, cd.colors)
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
            and targetable(g, c, p)
            and matches(specs[0].filter, g.chars(c), c, cid, p, g.owner[c])
        ]
        if not legal_t:
            return -1.0, []
        t = max(legal_t, key=lambda c: (creature_value(g, c), indestructible(g, c)))
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
            if can_pay_to_draw(g, p, loss, roles.draws(ops_t, "target")):
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
        ok = can_pay_to_draw(g, p, self_loss, roles.draws(ops_t, "you"))
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


def enchantment_score(
    g: Game, p: int, cid: int, mine: list[int], theirs: list[int]
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
            ok = [c for c in theirs if not g.chars(c).prot & cd.colors and targetable(g, c, p)]
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


def doomed(g: Game, p: int, top: Any, r: int, ops: list[Any], dmg: int) -> bool:
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
    if indestructible(g, r):
        return False
    left = toughness(g, r) - g.perm[r].damage
    if "fight" in names:
        # The opponent's creature in the fight (the other target) kills ours?
        boost = fight_boost_of(tuple(ops))
        for t, _ in top.targets:
            if t >= 0 and t != r and g.zone[t] == BATTLEFIELD and g.chars(t).types & CREATURE:
                hits = power(g, t) + boost[0]
                if hits >= left or (hits > 0 and "deathtouch" in g.chars(t).keywords):
                    return True
    shrink = sum(-o.args["toughness"] for o in ops if o.name == "pump")
    return "destroy" in names or (dmg > 0 and dmg >= left) or (shrink > 0 and shrink >= left)


def target_new_effects(
    g: Game, p: int, legal: list[Action], item: Any, ops: tuple[Any, ...]
) -> Action | None:
    """Targets for fights, life loss and exile from a graveyard, when no plan made
    them (a triggered ability, a plan gone stale); None: the general scoring."""
    opp = 1 - p
    objs = [a.obj for a in legal if a.obj >= 0 and g.zone[a.obj] == 2]
    if "fight" in {o.name for o in ops} and objs:
        mine = [c for c in objs if g.chars(c).controller == p]
        if mine:  # the creature of ours that fights: the one that wins best
            theirs = [c for c in creatures(g, opp) if targetable(g, c, p)]
            _, pair = fight_pair(g, p, mine, theirs, fight_boost_of(ops))
            best = pair[0] if pair else max(mine, key=lambda c: (power(g, c), -c))
            return Action(TARGET, best)
        fighter = item.targets[0][0] if item.targets else -1
        if fighter >= 0 and g.zone[fighter] == 2:
            _, pair = fight_pair(g, p, [fighter], objs, fight_boost_of(ops))
            if pair:
                return Action(TARGET, pair[1])
        return None
    players = {a.obj for a in legal if a.obj < 0}
    loss = roles.life_loss(ops, "target")
    if loss and players == {player_ref(0), player_ref(1)}:
        if roles.draws(ops, "target"):
            # Target player draws and loses life: us, unless it is lethal for the
            # opponent or leaves us low.
            us = loss < g.life[opp] and can_pay_to_draw(g, p, loss, roles.draws(ops, "target"))
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
