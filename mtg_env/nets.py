"""Neural-network pieces for policies on the flat observation (needs the `train` extra).

`EntityExtractor` reads the observation layout: each of the 80 permanent slots and 20
stack slots goes through a small MLP shared across slots (what is learned about one slot
applies to all), the per-slot embeddings are kept in slot order (actions name slots, so the
policy must know which slot holds what) and also pooled per side; global features, hand
and graveyards go through their own layer. About a million parameters in all.

With `race_features=True` the global layer also reads a race summary computed from the
observation itself (`race_summary`): each side's power that can attack now, its power on
the board (next turn's clock), its untapped creatures (blockers) and flying power, the
turns each side needs to kill the other at that power, and whether an attack now or the
crack-back is lethal. A network can only approximate these sums, divisions and thresholds
over 80 slots, and they are what a race turns on (docs/agents.md, "Where the games are lost"). They
are a function of the observation, so the observation and old policies are unchanged.
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .engine import load_cards
from .env.observers import FLAT_SLOTS, FlatObserver, Piece
from .env.spaces import Layout

RACE_FEATURES = 13  # the length of `race_summary`'s output


RACE_FIELDS = ("present", "creature", "power", "tapped", "sick", "defender", "flying")
# The permanent slot's column of each race field (`mtg_env.env.observers.Piece.columns`).
RACE_COLUMNS = (
    "present",
    "types.creature",
    "power",
    "tapped",
    "sick",
    "keywords.defender",
    "keywords.flying",
)
_RACE_SCALE = torch.tensor([20.0, 20.0, 10.0, 20.0])  # now, board, blockers, flying


def race_summary(fields: torch.Tensor, life: torch.Tensor) -> torch.Tensor:
    """Race features from `RACE_FIELDS` of both sides' permanent slots (batch, 2 sides,
    slots, len(RACE_FIELDS); own side first) and the life pair (batch, 2; own first), in the
    observation's scaling (power / 20, life / 40). Both sides are computed in one pass: this
    runs on every policy decision."""
    present, creature, power, tapped, sick, defender, flying = fields.unbind(-1)
    crt = present * creature
    untapped = 1.0 - tapped
    fighter_power = crt * (1.0 - defender) * (power * 20.0)
    per_slot = torch.stack(
        [
            fighter_power * untapped * (1.0 - sick),  # power that can attack now
            fighter_power,  # power on the board (next turn's clock)
            crt * untapped,  # untapped creatures (blockers)
            fighter_power * flying,
        ],
        dim=-1,
    )
    totals = per_slot.sum(2)  # (batch, 2 sides, 4)
    now, board = totals[..., 0], totals[..., 1]
    lives = life * 40.0
    # Turns for each side to kill the other at its board's power (side 0: own board against
    # the opponent's life); 10 stands for "not within sight".
    clock = torch.clamp(torch.ceil(lives.flip(1) / board.clamp(min=1e-3)), max=10.0)
    lethal = torch.stack([now[:, 0] >= lives[:, 1], board[:, 1] >= lives[:, 0]], dim=1)
    # Few, batched ops: per-op overhead is the cost at batch size 1.
    return torch.cat(
        [
            (totals / _RACE_SCALE.to(totals.device)).reshape(-1, 8),  # own, then opponent
            clock / 10.0,  # turns to kill the opponent, turns to be killed
            lethal.float(),  # an attack now is lethal; the crack-back is lethal
            (clock[:, 1:] - clock[:, :1]) / 10.0,
        ],
        dim=1,
    )


def flat_observer(format: str) -> FlatObserver:
    """The flat observation of `format` whose pieces a network reads."""
    return FlatObserver(Layout(load_cards(format)))


def global_indices(pieces: dict[str, Piece]) -> list[int]:
    """The observation indices `EntityExtractor`'s global layer reads: all but the slots."""
    return [i for k, p in pieces.items() if k not in FLAT_SLOTS for i in range(p.start, p.stop)]


def entity_features_dim(pieces: dict[str, Piece], entity_dim: int, global_dim: int) -> int:
    """The width of `EntityExtractor`'s features: every permanent slot's embedding, each
    side's sum and max of them, the stack's sum, the global layer."""
    slots = pieces["permanents_own"].shape[0]
    return 2 * slots * entity_dim + 2 * 2 * entity_dim + entity_dim + global_dim


class EntityExtractor(BaseFeaturesExtractor):
    def __init__(
        self,
        observation_space: spaces.Box,
        format: str = "classic",
        entity_dim: int = 24,
        global_dim: int = 128,
        race_features: bool = False,
    ) -> None:
        pieces = {p.name: p for p in flat_observer(format).pieces}
        features = entity_features_dim(pieces, entity_dim, global_dim)
        super().__init__(observation_space, features_dim=features)
        own, opp, stack = pieces["permanents_own"], pieces["permanents_opp"], pieces["stack"]
        self.P, self.pf = own.shape
        self.S, self.sf = stack.shape
        self.own = slice(own.start, own.stop)
        self.opp = slice(opp.start, opp.stop)
        self.stack = slice(stack.start, stack.stop)
        self.global_idx = torch.tensor(global_indices(pieces), dtype=torch.long)
        self.perm_net = nn.Sequential(
            nn.Linear(self.pf, entity_dim), nn.ReLU(), nn.Linear(entity_dim, entity_dim), nn.ReLU()
        )
        self.stack_net = nn.Sequential(nn.Linear(self.sf, entity_dim), nn.ReLU())
        self.race_features = race_features
        self.life = pieces["life"].start
        columns = [own.column(c) for c in RACE_COLUMNS]
        # Observation indices of every race field of every slot, side by side: one
        # index_select gathers them (a third of the time of indexing the slots view).
        self.register_buffer(
            "race_index",
            torch.tensor(
                [
                    side.start + k * self.pf + c
                    for side in (self.own, self.opp)
                    for k in range(self.P)
                    for c in columns
                ],
                dtype=torch.long,
            ),
            persistent=False,
        )
        # The race summary, when on, is appended to the global layer's input (so a policy
        # trained without it can be widened with zero weights: `widen_state_dict`).
        n_global = len(self.global_idx) + (RACE_FEATURES if race_features else 0)
        self.global_net = nn.Sequential(nn.Linear(n_global, global_dim), nn.ReLU())

    def _side(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        e = x.reshape(b, self.P, self.pf)
        h = self.perm_net(e) * e[:, :, :1]  # empty slots (present = 0) are zero
        return torch.cat([h.reshape(b, -1), h.sum(1), h.max(1).values], dim=1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        own = self._side(obs[:, self.own])
        opp = self._side(obs[:, self.opp])
        st = obs[:, self.stack].reshape(b, self.S, self.sf)
        sh = (self.stack_net(st) * st[:, :, :1]).sum(1)
        g = obs[:, self.global_idx.to(obs.device)]
        if self.race_features:
            g = torch.cat([g, self.race(obs)], dim=1)
        gl = self.global_net(g)
        return torch.cat([own, opp, sh, gl], dim=1)

    def race(self, obs: torch.Tensor) -> torch.Tensor:
        """The race summary (`race_summary`) of a batch of observations."""
        fields = obs.index_select(1, self.race_index).view(-1, 2, self.P, len(RACE_FIELDS))
        return race_summary(fields, obs[:, self.life : self.life + 2])


def widen_state_dict(
    src: dict[str, torch.Tensor], dst: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """`src`'s weights shaped for `dst`'s network where the two differ only in inputs
    appended to a layer (the race summary): the old input columns are copied and the new
    ones start at zero, so the widened network computes exactly what `src` did. Any other
    difference is left for `load_state_dict` to report."""
    out = dict(src)
    for k, v in src.items():
        t = dst.get(k)
        if (
            t is not None
            and v.dim() == 2
            and t.dim() == 2
            and v.shape[0] == t.shape[0]
            and v.shape[1] < t.shape[1]
            and k.endswith("global_net.0.weight")
        ):
            w = torch.zeros_like(t)
            w[:, : v.shape[1]] = v
            out[k] = w
    return out


# ---------------------------------------------------------------------- slot-aware policy


class SlotMlpExtractor(nn.Module):
    """Actor and critic MLPs on the features; the actor's latent also carries the per-slot
    embeddings unchanged, so the action head can score "slot k" from slot k itself."""

    def __init__(self, feature_dim: int, hidden: int, slot_span: tuple[slice, slice]) -> None:
        super().__init__()
        self.own, self.opp = slot_span
        n_slots = (self.own.stop - self.own.start) + (self.opp.stop - self.opp.start)
        self.policy_net = nn.Sequential(nn.Linear(feature_dim, hidden), nn.ReLU())
        self.value_net = nn.Sequential(nn.Linear(feature_dim, hidden), nn.ReLU())
        self.hidden = hidden
        self.latent_dim_pi = hidden + n_slots
        self.latent_dim_vf = hidden

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat(
            [self.policy_net(features), features[:, self.own], features[:, self.opp]], dim=1
        )

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


def slot_specs(layout: Layout) -> list[tuple[str, int, int]]:
    """The action slices `SlotActionHead` scores slot by slot: (slice name, which side (0:
    own, 1: the opponent's), number of queries per slot)."""
    return [
        ("activate", 0, layout.limits.abilities),
        ("attack", 0, 1),
        ("blocker", 0, 1),
        ("object_own", 0, 1),
        ("block", 1, 1),
        ("object_opp", 1, 1),
    ]


def flat_action_indices(layout: Layout) -> list[int]:
    """The action indices `SlotActionHead` scores with its linear layer (every other slice)."""
    slotted = {name for name, _, _ in slot_specs(layout)}
    return [
        i
        for name, s in layout.action_slices.items()
        if name not in slotted
        for i in range(s.start, s.stop)
    ]


class SlotActionHead(nn.Module):
    """Logits in the action layout's order: slot actions score each slot's embedding
    against a query computed from the actor's hidden state (pointer-style); the other
    slices come from a linear layer."""

    def __init__(self, layout: Layout, hidden: int, entity_dim: int) -> None:
        super().__init__()
        self.n = layout.n_actions
        self.P = layout.limits.permanents
        self.A = layout.limits.abilities
        self.E = entity_dim
        self.hidden = hidden
        sl = layout.action_slices
        self.slot_specs = slot_specs(layout)
        flat_idx = flat_action_indices(layout)
        self.register_buffer("flat_idx", torch.tensor(flat_idx, dtype=torch.long))
        self.flat = nn.Linear(hidden, len(flat_idx))
        n_q = sum(q for _, _, q in self.slot_specs)
        self.query = nn.Linear(hidden, n_q * entity_dim)
        self.bias = nn.Parameter(torch.zeros(n_q))
        self.starts = [sl[name].start for name, _, _ in self.slot_specs]

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b = latent.shape[0]
        h = latent[:, : self.hidden]
        slots = latent[:, self.hidden :].reshape(b, 2, self.P, self.E)
        logits = latent.new_zeros((b, self.n))
        logits[:, self.flat_idx] = self.flat(h)
        q = self.query(h).reshape(b, -1, self.E)
        qi = 0
        for (_, side, nq), start in zip(self.slot_specs, self.starts, strict=True):
            # scores[b, k, j] = <slot_k, query_j>: slot k, ability (or query) j
            scores = torch.einsum("bke,bje->bkj", slots[:, side], q[:, qi : qi + nq])
            scores = scores + self.bias[qi : qi + nq]
            logits[:, start : start + self.P * nq] = scores.reshape(b, self.P * nq)
            qi += nq
        return logits


class SlotPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose action head reads each permanent slot: use with
    `EntityExtractor` (`policy=SlotPolicy` in MaskablePPO)."""

    def __init__(
        self, *args: Any, format: str = "classic", hidden: int = 256, **kwargs: Any
    ) -> None:
        self.mtg_format = format
        self.hidden = hidden
        super().__init__(*args, **kwargs)

    def _entity_dim(self) -> int:
        return self.features_extractor.perm_net[-2].out_features

    def evaluate_states(self, obs: Any, action_masks: Any = None) -> tuple[Any, torch.Tensor]:
        """The action distribution and the value of a batch of observations in one pass
        (what a search asks at its leaves): SB3's `get_distribution` and `predict_values`
        without computing the features twice."""
        latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
        dist = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist, self.value_net(latent_vf)

    def _build_mlp_extractor(self) -> None:
        fe = self.features_extractor
        P, E = fe.P, self._entity_dim()
        own = slice(0, P * E)
        opp_start = P * E + 2 * E
        opp = slice(opp_start, opp_start + P * E)
        self.mlp_extractor = SlotMlpExtractor(self.features_dim, self.hidden, (own, opp))

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        # The action layout is the observer's (its indices are the env's actions).
        lay = flat_observer(self.mtg_format).layout
        self.action_net = SlotActionHead(lay, self.hidden, self._entity_dim())
        # The optimizer must see the new head's parameters.
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(format=self.mtg_format, hidden=self.hidden)
        return data
