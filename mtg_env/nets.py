"""Neural-network pieces for policies on the flat observation (needs the `train` extra).

`EntityExtractor` reads the observation layout: each of the 80 permanent slots and 20
stack slots goes through a small MLP shared across slots (what is learned about one slot
applies to all), the per-slot embeddings are kept in slot order (actions name slots, so the
policy must know which slot holds what) and also pooled per side; global features, hand
and graveyards go through their own layer. About a million parameters in all.
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .engine import load_cards
from .env.spaces import Layout


class EntityExtractor(BaseFeaturesExtractor):
    def __init__(
        self,
        observation_space: spaces.Box,
        format: str = "classic",
        entity_dim: int = 24,
        global_dim: int = 128,
    ) -> None:
        lay = Layout(load_cards(format))
        P = lay.limits.permanents
        features = 2 * P * entity_dim + 2 * 2 * entity_dim + entity_dim + global_dim
        super().__init__(observation_space, features_dim=features)
        s = lay.obs_slices
        self.P = lay.limits.permanents
        self.S = lay.limits.stack
        self.pf = lay.pf
        self.sf = lay.sf
        self.own = s["permanents_own"]
        self.opp = s["permanents_opp"]
        self.stack = s["stack"]
        self.global_idx = torch.tensor(
            [
                i
                for k, sl in s.items()
                if k not in ("permanents_own", "permanents_opp", "stack")
                for i in range(sl.start, sl.stop)
            ],
            dtype=torch.long,
        )
        self.perm_net = nn.Sequential(
            nn.Linear(self.pf, entity_dim), nn.ReLU(), nn.Linear(entity_dim, entity_dim), nn.ReLU()
        )
        self.stack_net = nn.Sequential(nn.Linear(self.sf, entity_dim), nn.ReLU())
        self.global_net = nn.Sequential(nn.Linear(len(self.global_idx), global_dim), nn.ReLU())

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
        gl = self.global_net(obs[:, self.global_idx.to(obs.device)])
        return torch.cat([own, opp, sh, gl], dim=1)


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
        # (slice name, which side, number of queries)
        self.slot_specs = [
            ("activate", 0, self.A),
            ("attack", 0, 1),
            ("blocker", 0, 1),
            ("object_own", 0, 1),
            ("block", 1, 1),
            ("object_opp", 1, 1),
        ]
        flat_idx = [
            i
            for name, s in sl.items()
            if name not in {x[0] for x in self.slot_specs}
            for i in range(s.start, s.stop)
        ]
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

    def _build_mlp_extractor(self) -> None:
        fe = self.features_extractor
        P, E = fe.P, self._entity_dim()
        own = slice(0, P * E)
        opp_start = P * E + 2 * E
        opp = slice(opp_start, opp_start + P * E)
        self.mlp_extractor = SlotMlpExtractor(self.features_dim, self.hidden, (own, opp))

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        lay = Layout(load_cards(self.mtg_format))
        self.action_net = SlotActionHead(lay, self.hidden, self._entity_dim())
        # The optimizer must see the new head's parameters.
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(format=self.mtg_format, hidden=self.hidden)
        return data
