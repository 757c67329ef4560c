"""Neural-network pieces for policies on the flat observation (needs the `train` extra).

`EntityExtractor` reads the observation layout: each of the 80 permanent slots and 20
stack slots goes through a small MLP shared across slots (what is learned about one slot
applies to all), the per-slot embeddings are kept in slot order (actions name slots, so the
policy must know which slot holds what) and also pooled per side; global features, hand
and graveyards go through their own layer. About a million parameters in all.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
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
