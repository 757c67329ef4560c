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
MaskablePPO (`MaskablePPO(CandidatePolicy, gymnasium.make("mtg_env/SelfPlayEntity-v1"))`).

The networks run on the present object rows and the legal candidate rows only, packed into
one matrix each (`TableExtractor.encode`); `CandidatePolicy` scores the packed candidates
directly, while `TableExtractor.forward` gives SB3's flat features (the context, then a
slot per candidate row) for other heads. Both give what running every row would.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .engine.constants import ACTION_NAMES, DECISION_NAMES, STEP_NAMES
from .env.observers import ENTITY_COLUMNS

# Object columns read as bit fields (name, bits) and as one-hot codes (name, size).
_BIT_FIELDS = (
    ("types", 6),
    ("colors", 5),
    ("supertypes", 2),
    ("keywords0", 8),
    ("keywords1", 8),
    ("keywords2", 8),
    ("keywords3", 8),
    ("abilities", 4),
    ("flags", 4),
)
_ONE_HOT = (("zone", 6), ("stack_kind", 4))
_FLAGS = ("mine", "owned", "has_pt", "tapped", "sick", "attacking")
_REFS = ("blocking", "attached_to")  # row references: read as "present"
_COUNTS = (("mana_value", 8.0), ("power", 8.0), ("toughness", 8.0), ("damage", 8.0))
_COUNTERS = (("plus_counters", 4.0), ("minus_counters", 4.0))
# The tables' columns as the entity observer's pieces declare them (name -> column).
GLOBAL_FIELDS = ENTITY_COLUMNS["global"]
GLOBAL_INDEX = {name: i for i, (name, _) in enumerate(GLOBAL_FIELDS)}
OBJECT_INDEX = {name: i for i, (name, _) in enumerate(ENTITY_COLUMNS["objects"])}
CANDIDATE_INDEX = {name: i for i, (name, _) in enumerate(ENTITY_COLUMNS["candidates"])}

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


def _one_hot(x: torch.Tensor, n: int) -> torch.Tensor:
    return nn.functional.one_hot(x.long().clamp(0, n - 1), n).float()


def _bits(x: torch.Tensor, n: int) -> torch.Tensor:
    shifts = torch.arange(n, device=x.device)
    return ((x.long().unsqueeze(-1) >> shifts) & 1).float()


def decode_objects(objects: torch.Tensor) -> torch.Tensor:
    """(..., columns) uint8 table -> (..., OBJECT_INPUTS) floats."""
    col = OBJECT_INDEX
    parts = [_bits(objects[..., col[name]], n) for name, n in _BIT_FIELDS]
    parts += [_one_hot(objects[..., col[name]], n) for name, n in _ONE_HOT]
    parts += [objects[..., [col[n] for n in _FLAGS]].float().clamp(0, 1)]
    parts += [(objects[..., [col[n] for n in _REFS]] > 0).float()]
    for name, scale in (*_COUNTS, *_COUNTERS):
        parts.append((objects[..., col[name]].float() / scale).unsqueeze(-1))
    return torch.cat(parts, dim=-1)


class Encoded(NamedTuple):
    """A batch's tables as the heads read them: `context` (batch, hidden); `cands`, the
    embeddings of the legal candidate rows only (legal rows, entity_dim); `legal`, each of
    those rows' index into the flattened (batch * candidates) grid; `game`, its game."""

    context: torch.Tensor
    cands: torch.Tensor
    legal: torch.Tensor
    game: torch.Tensor


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
        enc = self.encode(obs)
        b = enc.context.shape[0]
        cands = enc.cands.new_zeros((b * self.n_cands, self.E)).index_copy(0, enc.legal, enc.cands)
        return torch.cat([enc.context, cands.reshape(b, self.n_cands * self.E)], dim=1)

    def encode(self, obs: dict[str, torch.Tensor]) -> Encoded:
        """The context of each game and the embeddings of the legal candidates, packed."""
        # Everything per row runs on the present object rows and the legal candidates only,
        # packed into one matrix each (in play about a tenth of the object rows and a
        # fiftieth of the candidate rows), then pooled per game with index sums: the same
        # features as running the networks on every row with the empty ones zeroed, at a
        # fraction of the cost (in training most of the update's time went to empty rows).
        objects = obs["objects"]
        b, n_rows, _ = objects.shape
        mask = obs["object_mask"].reshape(-1) > 0
        present = mask.nonzero().squeeze(1)  # indices into b * rows
        game = torch.div(present, n_rows, rounding_mode="floor")  # each present row's game
        packed_objects = objects.reshape(b * n_rows, -1).index_select(0, present)
        x = decode_objects(packed_objects)
        if self.cards is not None:
            card = obs["object_card"].reshape(-1).index_select(0, present)
            x = torch.cat([x, self.cards(card.long().clamp(min=0))], dim=-1)
        rows = self.row_net(x)  # (present rows, E), each >= 0 (ReLU)
        mine = packed_objects[:, OBJECT_INDEX["mine"]].float().clamp(0, 1).unsqueeze(1)
        sums = rows.new_zeros((b, 3 * self.E)).index_add(
            0, game, torch.cat([rows, rows * mine, rows * (1.0 - mine)], dim=1)
        )
        counts = rows.new_zeros((b, 3)).index_add(
            0, game, torch.cat([torch.ones_like(mine), mine, 1.0 - mine], dim=1)
        )
        means = sums.reshape(b, 3, self.E) / counts.clamp(min=1.0).unsqueeze(-1)
        # The largest of each column over the game's rows (0 with none: rows are >= 0).
        biggest = rows.new_zeros((b, self.E)).scatter_reduce(
            0, game.unsqueeze(1).expand(-1, self.E), rows, "amax", include_self=True
        )
        pooled = torch.cat([means[:, 0], biggest, means[:, 1], means[:, 2]], dim=-1)
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
        n_cands = c.shape[1]
        legal = (obs["action_mask"].reshape(-1) > 0).nonzero().squeeze(1)  # into b * cands
        c = c.reshape(b * n_cands, -1).index_select(0, legal)
        # A row reference (row + 1; 0: none) -> its packed row; none, or an empty row, ->
        # the zero row appended after the packed ones.
        at = torch.full((b * n_rows + 1,), len(present), dtype=torch.long, device=rows.device)
        at[present] = torch.arange(len(present), device=rows.device)
        padded = torch.cat([rows, rows.new_zeros((1, self.E))])
        game_c = torch.div(legal, n_cands, rounding_mode="floor")
        base = game_c * n_rows

        def row_of(col: str) -> torch.Tensor:
            ref = c[:, CANDIDATE_INDEX[col]].long().clamp(0, n_rows)
            where = torch.where(ref > 0, base + ref - 1, b * n_rows)
            return padded.index_select(0, at.index_select(0, where))

        ci = CANDIDATE_INDEX
        cand_in = torch.cat(
            [
                _one_hot(c[:, ci["kind"]], N_KINDS),
                row_of("source_row"),
                row_of("target_row"),
                _one_hot(c[:, ci["target_player"]], 3),
                _one_hot(c[:, ci["option"]], N_OPTIONS),
            ],
            dim=-1,
        )
        return Encoded(context, self.cand_net(cand_in), legal, game_c)


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

    def packed(self, h: torch.Tensor, enc: Encoded) -> torch.Tensor:
        """The logits `forward` gives, computed on the legal rows only: (batch, candidates).
        An empty candidate row scores the bias alone in `forward`, and does here."""
        q = self.query(h).index_select(0, enc.game)
        legal = (enc.cands * q).sum(-1) + self.score(enc.cands).squeeze(-1)
        empty = self.score.bias.expand(h.shape[0] * self.n)
        return empty.index_copy(0, enc.legal, legal).reshape(h.shape[0], self.n)


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

    # SB3's methods, on the packed tables: the extractor's flattened features (an embedding
    # slot for each of the 128 candidate rows, nearly all empty) cost more to move through
    # the MLP and the head, forward and backward, than the networks themselves. The values
    # and distributions are those of SB3's own path through `forward` (tested).

    def _encode(self, obs: Any) -> Encoded:
        pre = preprocess_obs(obs, self.observation_space, normalize_images=self.normalize_images)
        return self.features_extractor.encode(pre)

    def _dist(self, enc: Encoded, action_masks: Any) -> Any:
        logits = self.action_net.packed(self.mlp_extractor.policy_net(enc.context), enc)
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def _values(self, enc: Encoded) -> torch.Tensor:
        return self.value_net(self.mlp_extractor.value_net(enc.context))

    def forward(
        self, obs: Any, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        enc = self._encode(obs)
        dist = self._dist(enc, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, self._values(enc), dist.log_prob(actions)

    def evaluate_actions(
        self, obs: Any, actions: torch.Tensor, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        enc = self._encode(obs)
        dist = self._dist(enc, action_masks)
        return self._values(enc), dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs: Any, action_masks: np.ndarray | None = None) -> Any:
        return self._dist(self._encode(obs), action_masks)

    def predict_values(self, obs: Any) -> torch.Tensor:
        return self._values(self._encode(obs))

    def evaluate_states(self, obs: Any, action_masks: Any = None) -> tuple[Any, torch.Tensor]:
        """The action distribution and the value of a batch of observations in one pass
        (what a search asks at its leaves)."""
        enc = self._encode(obs)
        return self._dist(enc, action_masks), self._values(enc)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            hidden=self.hidden,
            entity_dim=self.entity_dim,
            card_embedding=self.card_embedding,
            format=self.mtg_format,
        )
        return data
