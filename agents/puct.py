"""Net-guided information-set search: ISMCTS with PUCT selection, a policy network's prior
over the legal moves and its value head at the leaves instead of heuristic rollouts
(spec `ismcts:ITERATIONS+policy:PATH`, or `ismcts:SECONDSs+policy:PATH`).

Every iteration samples a determinization of what the acting seat cannot see
(`Game.resample_hidden`, as `agents.ismcts` does: nothing hidden enters the search any
other way) and walks one tree shared by all of them, whose edges are moves keyed so that
the same move is the same edge in every determinization (`agents.ismcts.action_key`). A
node is descended while every move legal in this determinization has an edge, choosing

    Q(edge) + c_puct * P(edge) * sqrt(sum of the available edges' visits) / (1 + N(edge))

(PUCT, with the sum over the edges legal here: availability, since a move may be legal in
some determinizations only). Where a legal move has no edge yet, the state is evaluated by
the network: the prior of each legal move (the policy's masked softmax over its candidate
rows, read from the acting seat's own observation of the determinized state) and the value
for the seat to act, backed up from each node's mover's side. Leaves are evaluated
`batch` at a time in one forward pass, the paths of a batch kept apart by a virtual loss.
The move played is the root edge with the most visits.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mtg_env.engine import Action, Game

from .common import SearchAgent
from .ismcts import action_key

# Leaves evaluated per forward pass. The first batch of a decision finds the root unexpanded
# and expands it, so a budget of at most one batch leaves the root's moves without visits.
BATCH = 8


class Edge:
    __slots__ = ("player", "prior", "visits", "value", "child")

    def __init__(self, player: int, prior: float) -> None:
        self.player = player  # who makes this move
        self.prior = prior
        self.visits = 0
        self.value = 0.0  # sum of outcomes from `player`'s side
        self.child: dict[tuple, Edge] = {}


class PUCTAgent(SearchAgent):
    """ISMCTS guided by a policy network (`policy`: a `PolicyAgent`, whose observer and SB3
    policy give the priors and values)."""

    def __init__(
        self,
        policy: Any,
        iterations: int = 64,
        seconds: float | None = None,
        seed: int = 0,
        c_puct: float = 1.5,
        batch: int = BATCH,
    ) -> None:
        super().__init__(iterations, seconds, seed)
        self.policy = policy
        self.c_puct = c_puct
        self.batch = batch
        self.evaluations = 0  # states the network evaluated (for tests and reports)

    def choose(self, game: Game) -> Action:
        return self.search(game)[0]

    def search(self, game: Game) -> tuple[Action, dict[tuple, int]]:
        """The move `choose` plays and the root's visit count of each legal move, by move key
        (`agents.ismcts.action_key`): the search's own judgement of the position, which
        expert iteration trains the policy toward (`scripts/train_expert.py`). A forced move
        is not searched: its counts are empty; so are they all zero under a budget of at most
        one batch, whose leaves are all the root (`BATCH`)."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0], {}
        seat = game.current_player
        assert seat is not None
        root: dict[tuple, Edge] = {}
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            if deadline is not None and time.perf_counter() >= deadline and done:
                break
            if deadline is None and done >= self.iterations:
                break
            n = self.batch if deadline is not None else min(self.batch, self.iterations - done)
            self._round(game, seat, root, n)
            done += n
        keys = {action_key(game, a): a for a in legal}
        best = max(
            (k for k in root if k in keys),
            key=lambda k: (root[k].visits, root[k].prior),
            default=None,
        )
        visits = {k: e.visits for k, e in root.items() if k in keys}
        return (legal[0] if best is None else keys[best]), visits

    # ------------------------------------------------------------------ one batch

    def _round(self, game: Game, seat: int, root: dict[tuple, Edge], n: int) -> None:
        """`n` iterations: select `n` leaves (virtual losses keep them apart), evaluate
        them in one forward pass, expand and back up."""
        leaves: list[tuple[list[Edge], Game, dict[tuple, Edge]]] = []
        for _ in range(n):
            g = game.resample_hidden(seat, self.rng.getrandbits(63))
            path, node = self._select(g, root)
            for e in path:  # a virtual loss: the next selections of this batch look elsewhere
                e.visits += 1
                e.value -= 1.0
            leaves.append((path, g, node))
        to_eval = [(i, g) for i, (_, g, _) in enumerate(leaves) if not g.is_over]
        priors, values = self._evaluate([g for _, g in to_eval])
        value_of = {}
        for (i, g), prior, v in zip(to_eval, priors, values):
            _, _, node = leaves[i]
            p = g.current_player
            assert p is not None
            # Every legal move gets an edge; one the observation has no row for (past the
            # tables' sizes, or a duplicate of another row's move) starts with no prior.
            for a in g.legal_actions():
                k = action_key(g, a)
                if k not in node:
                    node[k] = Edge(p, prior.get(k, 0.0))
            value_of[i] = (p, v)
        for i, (path, g, _) in enumerate(leaves):
            if g.is_over:
                outcome = [0.0, 0.0] if g.winner is None else [-1.0, -1.0]
                if g.winner is not None:
                    outcome[g.winner] = 1.0
            else:
                p, v = value_of[i]
                outcome = [v, -v] if p == 0 else [-v, v]
            for e in path:
                e.value += 1.0 + outcome[e.player]  # the virtual loss taken back, the result in

    def _select(self, g: Game, node: dict[tuple, Edge]) -> tuple[list[Edge], dict[tuple, Edge]]:
        """Descend while every legal move has an edge; the path and the node to expand."""
        path: list[Edge] = []
        while not g.is_over:
            legal = g.legal_actions()
            keyed = [(action_key(g, a), a) for a in legal]
            if any(k not in node for k, _ in keyed):
                break
            total = sum(node[k].visits for k, _ in keyed)
            scale = self.c_puct * math.sqrt(total + 1)
            best_a, best_e, best_u = None, None, -math.inf
            for k, a in keyed:
                e = node[k]
                q = e.value / e.visits if e.visits else 0.0
                u = q + scale * e.prior / (1 + e.visits)
                if u > best_u:
                    best_a, best_e, best_u = a, e, u
            assert best_a is not None and best_e is not None
            g.apply(best_a)
            path.append(best_e)
            node = best_e.child
        return path, node

    # ------------------------------------------------------------------ the network

    def _evaluate(self, games: list[Game]) -> tuple[list[dict[tuple, float]], list[float]]:
        """Each state's prior over its legal moves (by move key) and value for the seat to
        act, in one forward pass."""
        if not games:
            return [], []
        import torch

        observer = self.policy.observer
        legals, observations = [], []
        for g in games:
            p = g.current_player
            legal = observer.legal(g, p)
            obs = observer.learner_view(observer.observe(g, p, legal), legal.mask)
            legals.append(legal)
            observations.append(obs)
        model = self.policy.model
        masks = np.stack([lg.mask for lg in legals]).astype(bool)
        if isinstance(observations[0], dict):
            stacked: Any = {k: np.stack([o[k] for o in observations]) for k in observations[0]}
        else:
            stacked = np.stack(observations)
        batch, _ = model.obs_to_tensor(stacked)  # SB3's: onto the policy's device
        with torch.no_grad():
            # Both policy classes (slot and candidate) give both heads in one pass.
            dist, values = model.evaluate_states(batch, action_masks=masks)
            probs = dist.distribution.probs
            values = values.flatten()
        self.evaluations += len(games)
        out = []
        # The results are read in Python: one copy from the device for the whole batch.
        for g, lg, pr in zip(games, legals, probs.cpu().numpy()):
            prior: dict[tuple, float] = {}
            for i in np.flatnonzero(lg.mask):
                k = action_key(g, lg.actions[i])
                prior[k] = prior.get(k, 0.0) + float(pr[i])
            out.append(prior)
        return out, [float(v) for v in values.cpu().numpy()]
