"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration samples a determinization of what the acting player cannot see
(`Game.resample_hidden`: the opponent's hand and both library orders), walks one shared
tree whose edges are actions (UCB1 with availability counts, since an action may be legal
in some determinizations only), expands one node, plays a rollout with the scripted
heuristic for both players for a limited number of decisions, and scores the result with
a static evaluation (or the game result if it ended). The heuristic's own choice is
expanded first at every node, so a small budget degrades gracefully to the heuristic.

Budget: `iterations` per decision, or `seconds` per decision; seeded.
"""

from __future__ import annotations

import math
import time

from mtg_env.engine import Action, Game
from mtg_env.engine.constants import CARD, HAND, PLAY, TARGET

from .common import SearchAgent, evaluate
from .heuristic import HeuristicAgent


def action_key(g: Game, a: Action) -> tuple:
    """Actions on hidden cards (a card in hand) are keyed by name, so that the same move
    is the same edge in every determinization."""
    if a.kind in (PLAY, CARD, TARGET) and a.obj >= 0 and g.zone[a.obj] == HAND:
        return (a.kind, g.cdef[a.obj].name, a.arg)
    return (a.kind, a.obj, a.arg)


class Node:
    __slots__ = ("player", "children", "visits", "value", "avail", "action")

    def __init__(self, player: int, action: tuple | None) -> None:
        self.player = player  # who chose the action leading here
        self.action = action
        self.children: dict[tuple, Node] = {}
        self.visits = 0
        self.value = 0.0
        self.avail = 0


class ISMCTSAgent(SearchAgent):
    def __init__(
        self,
        iterations: int = 200,
        seconds: float | None = None,
        seed: int = 0,
        rollout_depth: int = 40,
        c: float = 0.7,
    ) -> None:
        super().__init__(iterations, seconds, seed)
        self.rollout_depth = rollout_depth
        self.c = c
        self.heuristic = HeuristicAgent(seed)

    def reset(self) -> None:
        self.heuristic.reset()

    def choose(self, game: Game) -> Action:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = game.current_player
        assert seat is not None
        # Mid-plan steps of a multi-step action: keep the heuristic's plan consistent.
        prior = self.heuristic.choose(game.clone())
        root = Node(1 - seat, None)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        n = 0
        while True:
            if deadline is not None:
                if time.perf_counter() >= deadline:
                    break
            elif n >= self.iterations:
                break
            self._iterate(game, seat, root, prior)
            n += 1
        keys = {action_key(game, a): a for a in legal}
        best = None
        for k, child in root.children.items():
            if k in keys and (
                best is None
                or child.visits > best.visits
                or (child.visits == best.visits and child.value > best.value)
            ):
                best = child
        if best is None:
            return prior
        return keys[best.action]

    def _iterate(self, game: Game, seat: int, root: Node, prior: Action) -> None:
        g = game.resample_hidden(seat, self.rng.getrandbits(63))
        node = root
        path = [node]
        first = True
        while not g.is_over:
            legal = g.legal_actions()
            player = g.current_player
            assert player is not None
            keyed = [(action_key(g, a), a) for a in legal]
            for k, _ in keyed:
                ch = node.children.get(k)
                if ch is not None:
                    ch.avail += 1
            untried = [(k, a) for k, a in keyed if k not in node.children]
            if untried:
                if first and any(a == prior for _, a in untried):
                    k, a = next((k, a) for k, a in untried if a == prior)
                else:
                    if len(untried) < len(keyed):
                        k, a = untried[self.rng.randrange(len(untried))]
                    else:
                        ha = HeuristicAgent(self.rng.getrandbits(31)).choose(g.clone())
                        hk = action_key(g, ha)
                        k, a = next(
                            ((k, a) for k, a in untried if k == hk),
                            untried[self.rng.randrange(len(untried))],
                        )
                child = Node(player, k)
                child.avail = 1
                node.children[k] = child
                g.apply(a)
                path.append(child)
                break
            # UCB1 with availability counts, from the mover's point of view.
            best = None
            best_u = -math.inf
            for k, a in keyed:
                ch = node.children[k]
                u = ch.value / ch.visits + self.c * math.sqrt(math.log(ch.avail) / ch.visits)
                if u > best_u:
                    best, best_u = (ch, a), u
            assert best is not None
            node = best[0]
            g.apply(best[1])
            path.append(node)
            first = False
        r = self._rollout(g, seat)
        for nd in path:
            nd.visits += 1
            nd.value += r if nd.player == seat else -r

    def _rollout(self, g: Game, seat: int) -> float:
        bots = [HeuristicAgent(self.rng.getrandbits(31)) for _ in range(2)]
        for _ in range(self.rollout_depth):
            if g.is_over:
                break
            p = g.current_player
            assert p is not None
            g.apply(bots[p].choose(g))
        return evaluate(g, seat)


MAX_ITERATIONS = 10_000_000  # per decision: more is a typo, not a plan
MAX_SECONDS = 3600.0  # per decision


def parse_spec(spec: str, seed: int = 0) -> ISMCTSAgent:
    """`ismcts` or `ismcts:ITERATIONS` (or `ismcts:5s` for seconds per decision). The
    budget must be a positive whole number of iterations or a finite positive number of
    seconds (`ismcts:0` would play as the heuristic, `ismcts:nans` would never end)."""
    _, _, arg = spec.partition(":")
    if not arg:
        return ISMCTSAgent(seed=seed)
    if arg.endswith("s"):
        try:
            seconds = float(arg[:-1])
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
            raise ValueError(
                f"agent spec {spec!r}: seconds per decision must be a number more than 0 "
                f"and at most {MAX_SECONDS:g} (e.g. ismcts:5s)"
            )
        return ISMCTSAgent(seconds=seconds, seed=seed)
    if not (arg.isascii() and arg.isdigit() and 1 <= int(arg) <= MAX_ITERATIONS):
        raise ValueError(
            f"agent spec {spec!r}: iterations must be a whole number from 1 to "
            f"{MAX_ITERATIONS:,} (e.g. ismcts:200), or seconds (e.g. ismcts:5s)"
        )
    return ISMCTSAgent(iterations=int(arg), seed=seed)
