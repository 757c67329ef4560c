"""Networks for the v1 entity observation (`obs_type="entity"`; needs the `train` extra).

`TableExtractor` reads the tables of `mtg_env.env.entity`: each object row is decoded (bit
fields unpacked, counts scaled, an optional embedding of its card id) and embedded by an
MLP shared across rows; the rows are pooled as a set (masked mean and max over all rows,
means over one's own and the opponent's): deep sets, so the network takes any number of
objects and any card set. Each candidate action row is embedded from its kind, the
embeddings of its source and target rows, its target player and option. The context
(global features + pools) goes to the actor and the critic; `PointerHead` scores each
candidate against a query from the actor's state, so the policy's logits follow the
candidate rows whatever their number and order. `CandidatePolicy` puts the pieces into
MaskablePPO (`MaskablePPO(CandidatePolicy, gymnasium.make("mtg_env/SelfPlayEntity-v0"))`).
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .engine.constants import ACTION_NAMES, DECISION_NAMES, STEP_NAMES
from .env.entity import CANDIDATE_INDEX, GLOBAL_FIELDS, GLOBAL_INDEX, OBJECT_INDEX

# Object columns read as bit fields (name, bits) and as one-hot codes (name, size).
_BIT_FIELDS = (
    ("types", 6),
    ("colors", 5),
    ("supertypes", 2),
    ("keywords0", 8),
    ("keywords1", 8),
    ("keywords2", 8),
    ("abilities", 4),
    ("flags", 4),
)
_ONE_HOT = (("zone", 6), ("stack_kind", 4))
_FLAGS = ("mine", "owned", "has_pt", "tapped", "sick", "attacking")
_REFS = ("blocking", "attached_to")  # row references: read as "present"
_COUNTS = (("mana_value", 8.0), ("power", 8.0), ("toughness", 8.0), ("damage", 8.0))
_COUNTERS = (("plus_counters", 4.0), ("minus_counters", 4.0))
OBJECT_INPUTS = (
    sum(n for _, n in _BIT_FIELDS)
    + sum(n for _, n in _ONE_HOT)
    + len(_FLAGS)
    + len(_REFS)
    + len(_COUNTS)
    + len(_COUNTERS)
)
N_STEPS = len(STEP_NAMES) + 1  # step + 1, 0 before the first turn
N_DECISIONS = len(DECISION_NAMES) + 1
N_KINDS = len(ACTION_NAMES) + 1
N_OPTIONS = 16  # option values one-hot up to 15 (more: the last)


def _bits(x: torch.Tensor, n: int) -> torch.Tensor:
    shifts = torch.arange(n, device=x.device)
    return ((x.long().unsqueeze(-1) >> shifts) & 1).float()


def _one_hot(x: torch.Tensor, n: int) -> torch.Tensor:
    return nn.functional.one_hot(x.long().clamp(0, n - 1), n).float()


def decode_objects(objects: torch.Tensor) -> torch.Tensor:
    """(batch, rows, columns) uint8 table -> (batch, rows, OBJECT_INPUTS) floats."""
    col = OBJECT_INDEX
    parts = [_bits(objects[..., col[name]], n) for name, n in _BIT_FIELDS]
    parts += [_one_hot(objects[..., col[name]], n) for name, n in _ONE_HOT]
    parts += [objects[..., [col[n] for n in _FLAGS]].float().clamp(0, 1)]
    parts += [(objects[..., [col[n] for n in _REFS]] > 0).float()]
    for name, scale in (*_COUNTS, *_COUNTERS):
        parts.append((objects[..., col[name]].float() / scale).unsqueeze(-1))
    return torch.cat(parts, dim=-1)


def _gather_rows(emb: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """Row embeddings by reference (row + 1; 0 gives zeros): (batch, n, dim)."""
    b, _, d = emb.shape
    padded = torch.cat([emb.new_zeros((b, 1, d)), emb], dim=1)
    idx = ref.long().clamp(0, emb.shape[1]).unsqueeze(-1).expand(-1, -1, d)
    return torch.gather(padded, 1, idx)


class TableExtractor(BaseFeaturesExtractor):
    """Features: the context vector, then every candidate row's embedding (flattened)."""

    def __init__(
        self,
        observation_space: spaces.Dict,
        entity_dim: int = 64,
        hidden: int = 256,
        card_embedding: int = 16,
    ) -> None:
        n_rows = observation_space["objects"].shape[0]
        n_cands = observation_space["candidates"].shape[0]
        super().__init__(observation_space, features_dim=hidden + n_cands * entity_dim)
        self.E, self.hidden, self.n_cands, self.n_rows = entity_dim, hidden, n_cands, n_rows
        n_cards = int(observation_space["object_card"].high.max()) + 1
        self.card_dim = card_embedding
        self.cards = nn.Embedding(n_cards, card_embedding) if card_embedding else None
        self.row_net = nn.Sequential(
            nn.Linear(OBJECT_INPUTS + card_embedding, 128),
            nn.ReLU(),
            nn.Linear(128, entity_dim),
            nn.ReLU(),
        )
        n_global = len(GLOBAL_FIELDS) + N_STEPS + N_DECISIONS
        self.context = nn.Sequential(nn.Linear(n_global + 4 * entity_dim, hidden), nn.ReLU())
        self.cand_net = nn.Sequential(
            nn.Linear(N_KINDS + 2 * entity_dim + 3 + N_OPTIONS, 128),
            nn.ReLU(),
            nn.Linear(128, entity_dim),
            nn.ReLU(),
        )

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        objects = obs["objects"]
        mask = obs["object_mask"].float()
        x = decode_objects(objects)
        if self.cards is not None:
            x = torch.cat([x, self.cards(obs["object_card"].long().clamp(min=0))], dim=-1)
        rows = self.row_net(x) * mask.unsqueeze(-1)  # (b, rows, E); empty rows are zero
        mine = objects[..., OBJECT_INDEX["mine"]].float().clamp(0, 1) * mask
        theirs = (1.0 - mine) * mask

        def mean(w: torch.Tensor) -> torch.Tensor:
            return (rows * w.unsqueeze(-1)).sum(1) / w.sum(1, keepdim=True).clamp(min=1.0)

        biggest = (rows - 1e4 * (1.0 - mask).unsqueeze(-1)).max(1).values.clamp(min=0.0)
        pooled = torch.cat([mean(mask), biggest, mean(mine), mean(theirs)], dim=-1)
        g = obs["global"].float()
        glob = torch.cat(
            [
                torch.sign(g) * torch.log1p(g.abs()),
                _one_hot(g[:, GLOBAL_INDEX["step"]], N_STEPS),
                _one_hot(g[:, GLOBAL_INDEX["decision"]], N_DECISIONS),
            ],
            dim=-1,
        )
        context = self.context(torch.cat([glob, pooled], dim=-1))
        c = obs["candidates"]
        ci = CANDIDATE_INDEX
        cand_in = torch.cat(
            [
                _one_hot(c[..., ci["kind"]], N_KINDS),
                _gather_rows(rows, c[..., ci["source_row"]]),
                _gather_rows(rows, c[..., ci["target_row"]]),
                _one_hot(c[..., ci["target_player"]], 3),
                _one_hot(c[..., ci["option"]], N_OPTIONS),
            ],
            dim=-1,
        )
        cands = self.cand_net(cand_in) * obs["action_mask"].float().unsqueeze(-1)
        return torch.cat([context, cands.flatten(1)], dim=1)


class CandidateMlpExtractor(nn.Module):
    """Actor and critic MLPs on the context; the actor's latent also carries the candidate
    embeddings, so the head can score each candidate from its own row."""

    def __init__(self, context: int, hidden: int, n_cands: int, entity_dim: int) -> None:
        super().__init__()
        self.context = context
        self.policy_net = nn.Sequential(nn.Linear(context, hidden), nn.ReLU())
        self.value_net = nn.Sequential(nn.Linear(context, hidden), nn.ReLU())
        self.hidden = hidden
        self.latent_dim_pi = hidden + n_cands * entity_dim
        self.latent_dim_vf = hidden

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        h = self.policy_net(features[:, : self.context])
        return torch.cat([h, features[:, self.context :]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, : self.context])


class PointerHead(nn.Module):
    """logit_i = <query(h), candidate_i> + bias(h, candidate_i): a pointer over the rows."""

    def __init__(self, hidden: int, n_cands: int, entity_dim: int) -> None:
        super().__init__()
        self.hidden, self.n, self.E = hidden, n_cands, entity_dim
        self.query = nn.Linear(hidden, entity_dim)
        self.score = nn.Linear(entity_dim, 1)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b = latent.shape[0]
        h = latent[:, : self.hidden]
        cands = latent[:, self.hidden :].reshape(b, self.n, self.E)
        q = self.query(h).unsqueeze(1)
        return (cands * q).sum(-1) + self.score(cands).squeeze(-1)


class CandidatePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy for the v1 observation: `TableExtractor` features, actor and
    critic on the context, a pointer head over the candidate rows."""

    def __init__(
        self,
        *args: Any,
        hidden: int = 256,
        entity_dim: int = 64,
        card_embedding: int = 16,
        format: str = "classic",
        **kwargs: Any,
    ) -> None:
        self.hidden, self.entity_dim, self.card_embedding = hidden, entity_dim, card_embedding
        self.mtg_format = format  # the rules format whose tables it reads (card ids)
        kwargs.setdefault("features_extractor_class", TableExtractor)
        kwargs.setdefault(
            "features_extractor_kwargs",
            {"entity_dim": entity_dim, "hidden": hidden, "card_embedding": card_embedding},
        )
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        fe = self.features_extractor
        self.mlp_extractor = CandidateMlpExtractor(fe.hidden, self.hidden, fe.n_cands, fe.E)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        fe = self.features_extractor
        self.action_net = PointerHead(self.hidden, fe.n_cands, fe.E)
        # The optimizer must see the new head's parameters.
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            hidden=self.hidden,
            entity_dim=self.entity_dim,
            card_embedding=self.card_embedding,
            format=self.mtg_format,
        )
        return data
