"""
# Ray RLlib support

| Import          | `from agents.rllib import MtgMultiAgentEnv, MaskedSlotModule`       |
|-----------------|----------------------------------------------------------------------|
| Needs           | the `rllib` and `train` extras (`pip install "mtg_env[train,rllib]"`) |
| API stack       | RLlib's new API stack (`RLModule`, `MultiAgentEnv`, `EnvRunner`)      |
| Training script | `scripts/train_rllib.py --config configs/train/rllib_default.yaml`   |
| Agent spec      | `policy:rllib:PATH` (an algorithm checkpoint or one module's folder) |

RLlib has no built-in action masking for turn-based PettingZoo games, so this module owns
the two pieces that need it:

- `MtgMultiAgentEnv`: `mtg/duel-v0` as an RLlib `MultiAgentEnv`. Only the agent that must
  decide gets an observation, in the form RLlib's masking modules expect:
  `{"observations": Box(0, 1, (F,), float32), "action_mask": Box(0, 1, (N,), float32)}`.
  Rewards (+1 / -1 at the end) go to both players on the last step. An episode is either a
  league game (agents `player_0` and `player_1`, both driven by RLlib modules) or, with
  probability `opponents[spec]`, a game against an engine agent (`heuristic`, `random`,
  `ismcts`, `policy:...`) that the env plays itself; RLlib then sees one agent, `learner`,
  whose seat alternates (`infos["learner"]["seat"]`). `env.agents` is the episode's agents
  (both seats, or `learner`) from `reset` to the last step. A masked-out action ends the
  episode (PettingZoo's convention, as in `SelfPlay-v0`): the offender gets -1, the other
  agent 0, and its info `illegal_action`. So RLlib's env checker, which steps the env with an
  unmasked random action, passes: `scripts/train_rllib.py` keeps it on.
- `MaskedSlotModule`: a PPO `TorchRLModule` (with `ValueFunctionAPI`) that adds the mask to
  the logits (masked actions get the float minimum: probability 0, never sampled). Its
  network is the SB3 recipe's (`mtg_env.nets`: entity encoder, slot-pointer action head)
  with the same parameter names, so `load_sb3_policy` can start it from `policy:default`.

Environment config (`env_config`, validated; unknown keys are an error):

| key | default | meaning |
|---|---|---|
| `format` | `"classic"` | rules format |
| `decks` | `None` | deck names/paths (two: fixed pair; more: a pool); default all bundled |
| `max_decisions` | `2000` | truncation cap |
| `opponents` | `{}` | engine agent spec -> probability of an episode against it |
| `seed` | `None` | seeds the engine opponents' choice when `reset` gets no seed |

Agent-to-module mapping for league play (`league_mapping`): in `player_*` games one seat
(by the episode id) is `main`, the other is `main` again (self-play) with probability
`self_play`, else a uniformly drawn frozen snapshot `main_v1`, `main_v2`, ...; `learner` is
always `main`. `LeagueCallback` adds a snapshot every `snapshot_every` iterations with
`Algorithm.add_module` (keeping the last `max_snapshots`) and logs `win_rate_vs_<opponent>`
for `main` (window 100) in the env-runner metrics.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from pydantic import BaseModel, ConfigDict, Field, ValidationError

try:
    import torch
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"agents.rllib needs Ray RLlib and PyTorch ({e}); install them with "
        '`pip install "mtg_env[train,rllib]"` (`make install` does)'
    ) from None

from mtg_env.engine import load_cards
from mtg_env.entity_nets import CandidateMlpExtractor, PointerHead, TableExtractor
from mtg_env.env.duel import AGENTS, as_action, raw_env
from mtg_env.env.spaces import Layout
from mtg_env.nets import EntityExtractor, SlotActionHead, SlotMlpExtractor, widen_state_dict

from .base import make_agent
from .policy import DEFAULT, load_model, load_rllib_module, rllib_module_path

LEARNER = "learner"
MAIN = "main"


class EnvConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: str = "classic"
    decks: list[str] | None = None
    max_decisions: int = Field(default=2000, ge=1)
    opponents: dict[str, float] = {}
    seed: int | None = None
    # "flat" (mtg/duel-v0's vector) or "entity" (mtg/duel_entity-v1's tables; MaskedCandidateModule)
    obs_type: Literal["flat", "entity"] = "flat"


def parse_env_config(config: dict[str, Any] | None) -> EnvConfig:
    # RLlib passes an EnvContext (a dict with extra attributes); only its items count.
    try:
        cfg = EnvConfig(**dict(config or {}))
    except ValidationError as e:
        errs = "; ".join(f"field {'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
        raise ValueError(f"MtgMultiAgentEnv: bad env_config: {errs}") from None
    total = sum(cfg.opponents.values())
    if any(p < 0 for p in cfg.opponents.values()) or total > 1 + 1e-9:
        raise ValueError(
            f"MtgMultiAgentEnv: opponents probabilities must be >= 0 and sum to at most 1, "
            f"got {cfg.opponents}"
        )
    return cfg


class MtgMultiAgentEnv(MultiAgentEnv):
    """`mtg/duel-v0` for RLlib: turn-based, masked observations, optional engine opponent."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.cfg = parse_env_config(config)
        self.aec = raw_env(
            format=self.cfg.format,
            decks=self.cfg.decks,
            max_decisions=self.cfg.max_decisions,
            replay_hashes=False,
            obs_type=self.cfg.obs_type,
        )
        n = self.aec.n_actions
        # RLlib's "observations": the observation without a mask (the flat vector, or the
        # entity tables other than `action_mask`); the mask goes beside it.
        space = spaces.Dict(
            {
                "observations": self.aec.observer.tables_space,
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )
        self.possible_agents = [*AGENTS, LEARNER]
        self.agents: list[str] = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(n))
        self._rng = random.Random(self.cfg.seed)
        self._opp_specs = list(self.cfg.opponents)
        self._opp_probs = [self.cfg.opponents[s] for s in self._opp_specs]
        self._opp_agents = {s: make_agent(s, seed=i) for i, s in enumerate(self._opp_specs)}
        self.opponent: str | None = None  # spec of this episode's engine opponent
        self.learner_seat = 0
        self._episodes = 0
        self._acted: set[str] = set()
        self._over = False  # the episode ended (an illegal action ends it before the game)

    # The name RLlib sees for a seat: `learner` in a game against an engine agent.
    def _name(self, seat: int) -> str:
        return LEARNER if self.opponent is not None else AGENTS[seat]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._rng.seed(seed)
        self.aec.reset(seed=self._rng.getrandbits(63))
        self.opponent = None
        r = self._rng.random()
        for spec, p in zip(self._opp_specs, self._opp_probs, strict=True):
            if r < p:
                self.opponent = spec
                break
            r -= p
        self.learner_seat = self._episodes % 2
        self._episodes += 1
        if self.opponent is not None:
            self._opp_agents[self.opponent].reset()
            self.aec.engine_seat = 1 - self.learner_seat
        else:
            self.aec.engine_seat = None
        self._acted = set()
        self._over = False
        # The episode's agents, for its whole length (RLlib's env checker wants every key
        # of a step's dicts among them): both seats take turns in a league game.
        self.agents = [LEARNER] if self.opponent is not None else list(AGENTS)
        self._play_engine()
        return self._observe()

    def step(
        self, action_dict: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict]:
        aec = self.aec
        g = aec.game
        if self._over or g is None or g.is_over or g.current_player is None:
            raise RuntimeError("step() called after the game ended; call reset()")
        name = self._name(g.current_player)
        if name not in action_dict:
            raise ValueError(
                f"MtgMultiAgentEnv: {name} must act now, got actions for {sorted(action_dict)}"
            )
        self._acted.add(name)
        action = as_action(action_dict[name])
        mask = aec.legal_moves().mask
        if not (0 <= action < len(mask)) or not mask[action]:
            return self._end_illegal(name, action)
        aec.step(action)
        self._play_engine()
        done = bool(g.is_over or any(aec.truncations.values()))
        # RLlib wants a reward (0 too) for every agent that acted and gets an observation.
        rewards: dict[str, float] = {}
        for seat, ag in enumerate(AGENTS):
            nm = self._name(seat)
            if (self.opponent is None or seat == self.learner_seat) and nm in self._acted:
                rewards[nm] = float(aec.rewards[ag])
        if done:
            # Every agent that acted gets a last observation (RLlib closes its episode with
            # it; on truncation it is the state value's input).
            obs, infos = self._observe(final=True)
            terminated = g.is_over and not g.truncated
            term = dict.fromkeys(obs, terminated)
            trunc = dict.fromkeys(obs, not terminated)
            term["__all__"], trunc["__all__"] = terminated, not terminated
            self._over = True
            return obs, rewards, term, trunc, infos
        obs, infos = self._observe()
        return obs, rewards, {"__all__": False}, {"__all__": False}, infos

    def _end_illegal(
        self, name: str, action: int
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict]:
        """PettingZoo's illegal-move convention (as in `SelfPlay-v0`): a masked-out action
        ends the episode, the offender gets -1 and the other agent 0. RLlib's env checker
        steps the env with an unmasked random action, which must not raise."""
        self._over = True
        obs, infos = self._observe(final=True)
        rewards = {nm: (-1.0 if nm == name else 0.0) for nm in obs}
        infos[name]["illegal_action"] = action
        term = dict.fromkeys(obs, True)
        trunc = dict.fromkeys(obs, False)
        term["__all__"], trunc["__all__"] = True, False
        return obs, rewards, term, trunc, infos

    def _play_engine(self) -> None:
        if self.opponent is None:
            return
        aec, seat = self.aec, 1 - self.learner_seat
        agent = self._opp_agents[self.opponent]
        g = aec.game
        while not g.is_over and g.current_player == seat and not any(aec.truncations.values()):
            aec.step_engine(agent.choose(g))

    def _observe(self, final: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
        g = self.aec._g()
        observer = self.aec.observer
        if final:
            seats = [s for s in (0, 1) if self._name(s) in self._acted]
            if self.opponent is not None:
                seats = [s for s in seats if s == self.learner_seat]
        else:
            seats = [g.current_player]
        obs: dict[str, Any] = {}
        infos: dict[str, Any] = {}
        for s in seats:
            name = self._name(s)
            if final:
                mask = np.zeros(self.aec.n_actions, dtype=np.float32)
            else:
                mask = self.aec.legal_moves().mask.astype(np.float32)
            legal = self.aec.legal_moves() if g.current_player == s else None
            tables = observer.tables(observer.observe(g, s, legal))
            obs[name] = {"observations": tables, "action_mask": mask}
            info: dict[str, Any] = {"seat": s, "opponent": self.opponent or "league"}
            if final and g.is_over:
                info["winner"] = g.winner
                info["truncated"] = g.truncated
            infos[name] = info
        return obs, infos


# ------------------------------------------------------------------ the masked module


class MaskedSlotModule(TorchRLModule, ValueFunctionAPI):
    """PPO module on the masked observation. `model_config`: `format` ("classic"),
    `hidden` (256), `entity_dim` (24), `race_features` (False) -- the SB3 recipe's network
    (`mtg_env.nets`)."""

    def setup(self) -> None:

        cfg = dict(self.model_config or {})
        fmt = cfg.get("format", "classic")
        hidden = int(cfg.get("hidden", 256))
        entity_dim = int(cfg.get("entity_dim", 24))
        race = bool(cfg.get("race_features", False))
        space = self.observation_space
        if isinstance(space, spaces.Dict):
            space = space["observations"]
        lay = Layout(load_cards(fmt))
        if space.shape != (lay.n_obs,):
            raise ValueError(
                f"MaskedSlotModule: observations of shape {space.shape}, the {fmt} format "
                f"has ({lay.n_obs},): set model_config['format']"
            )
        self.features_extractor = EntityExtractor(
            space, format=fmt, entity_dim=entity_dim, race_features=race
        )
        P, E = self.features_extractor.P, entity_dim
        own = slice(0, P * E)
        opp = slice(P * E + 2 * E, P * E + 2 * E + P * E)
        self.mlp_extractor = SlotMlpExtractor(
            self.features_extractor.features_dim, hidden, (own, opp)
        )
        self.action_net = SlotActionHead(lay, hidden, entity_dim)
        self.value_net = torch.nn.Linear(hidden, 1)

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor | None]:
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            return obs["observations"], obs["action_mask"]
        return obs, None

    def _logits(self, x: torch.Tensor, mask: torch.Tensor | None) -> dict[str, Any]:
        feats = self.features_extractor(x)
        logits = self.action_net(self.mlp_extractor.forward_actor(feats))
        if mask is not None:
            # Masked actions get the float minimum (not -inf: no NaN in the entropy).
            logits = logits.masked_fill(mask < 0.5, torch.finfo(logits.dtype).min)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: feats}

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        x, mask = self._split(batch)
        out = self._logits(x, mask)
        out.pop(Columns.EMBEDDINGS)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        # The features go out as embeddings: PPO's value loss reuses them.
        x, mask = self._split(batch)
        return self._logits(x, mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        if embeddings is None:
            x, _ = self._split(batch)
            embeddings = self.features_extractor(x)
        return self.value_net(self.mlp_extractor.forward_critic(embeddings)).squeeze(-1)


class MaskedCandidateModule(TorchRLModule, ValueFunctionAPI):
    """PPO module on the v1 entity observation (env_config `obs_type: entity`):
    `model_config`: `hidden` (256), `entity_dim` (64), `card_embedding` (16) -- the SB3
    network of `mtg_env.entity_nets` (set encoder over objects, pointer over candidates)."""

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        hidden = int(cfg.get("hidden", 256))
        entity_dim = int(cfg.get("entity_dim", 64))
        space = self.observation_space
        tables = dict(space["observations"].spaces)
        tables["action_mask"] = space["action_mask"]
        self.features_extractor = TableExtractor(
            spaces.Dict(tables),
            entity_dim=entity_dim,
            hidden=hidden,
            card_embedding=int(cfg.get("card_embedding", 16)),
        )
        fe = self.features_extractor
        self.mlp_extractor = CandidateMlpExtractor(fe.hidden, hidden, fe.n_cands, fe.E)
        self.action_net = PointerHead(hidden, fe.n_cands, fe.E)
        self.value_net = torch.nn.Linear(hidden, 1)

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        obs = batch[Columns.OBS]
        return {**obs["observations"], "action_mask": obs["action_mask"]}, obs["action_mask"]

    def _logits(self, x: dict[str, torch.Tensor], mask: torch.Tensor) -> dict[str, Any]:
        feats = self.features_extractor(x)
        logits = self.action_net(self.mlp_extractor.forward_actor(feats))
        # Masked actions get the float minimum (not -inf: no NaN in the entropy).
        logits = logits.masked_fill(mask < 0.5, torch.finfo(logits.dtype).min)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: feats}

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        out = self._logits(*self._split(batch))
        out.pop(Columns.EMBEDDINGS)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._logits(*self._split(batch))

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.features_extractor(self._split(batch)[0])
        return self.value_net(self.mlp_extractor.forward_critic(embeddings)).squeeze(-1)


def module_spec(model_config: dict[str, Any] | None = None) -> RLModuleSpec:
    """The module for `model_config`: with `obs_type: entity`, the v1 candidate module."""
    cfg = dict(model_config or {})
    cls = MaskedCandidateModule if cfg.get("obs_type") == "entity" else MaskedSlotModule
    return RLModuleSpec(module_class=cls, model_config=cfg)


def load_sb3_policy(module: MaskedSlotModule, path: str | Path) -> None:
    """Copy an SB3 `SlotPolicy` (a `policy:` file, e.g. `policy:default`) into the module:
    the parameter names are the same. A policy without the race summary is widened for a
    module with it (`mtg_env.nets.widen_state_dict`), as SB3's `init_from` does."""

    policy = load_model(DEFAULT if str(path) == "default" else path)
    own = module.state_dict()
    src = {k: v for k, v in policy.state_dict().items() if k in own}
    src = widen_state_dict(src, own)
    missing = sorted(set(own) - set(src))
    if missing:
        raise ValueError(f"{path}: not a slot policy of this shape (missing {missing[:3]}...)")
    for k, v in src.items():
        if v.shape != own[k].shape:
            hint = " (set race_features as the policy has it)" if "global_net" in k else ""
            raise ValueError(
                f"{path}: {k} has shape {tuple(v.shape)}, the module {tuple(own[k].shape)}{hint}"
            )
    module.load_state_dict(src)


# ------------------------------------------------------------------ league


def set_module_state(algorithm: Any, module_id: str, state: dict[str, Any]) -> None:
    """Give one module these weights in the learner and in every env runner (training and
    evaluation). `EnvRunnerGroup.sync_weights` would not do: env runners skip weights whose
    sequence number they already have, so a new snapshot would play with its fresh initial
    weights."""
    algorithm.set_state({"learner_group": {"learner": {"rl_module": {module_id: state}}}})

    def copy(er: Any) -> None:
        if module_id in er.module:
            er.module[module_id].set_state(state)

    for group in (algorithm.env_runner_group, getattr(algorithm, "eval_env_runner_group", None)):
        if group is not None:
            group.foreach_env_runner(copy, local_env_runner=True)


def league_mapping(snapshots: Sequence[str], self_play: float) -> Callable[..., str]:
    """Agent -> module: `learner` is `main`; in league games one seat (by episode id) is
    `main`, the other `main` with probability `self_play`, else a random snapshot."""
    snaps = list(snapshots)

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        if agent_id == LEARNER:
            return MAIN
        # crc32, not hash(): the same in every process (string hashes are salted).
        h = zlib.crc32(str(episode.id_).encode())
        if h % 2 == AGENTS.index(agent_id):
            return MAIN
        rng = random.Random(h)
        if not snaps or rng.random() < self_play:
            return MAIN
        return snaps[rng.randrange(len(snaps))]

    return mapping


def snapshot_ids(algorithm: Any) -> list[str]:
    ids = [m for m in algorithm.config.rl_module_spec.rl_module_specs if m.startswith("main_v")]
    return sorted(ids, key=lambda m: int(m[len("main_v") :]))


class LeagueCallback(RLlibCallback):
    """Freezes a copy of `main` every `snapshot_every` training iterations (the league),
    and logs `main`'s win rate per opponent kind."""

    def __init__(
        self, snapshot_every: int = 10, max_snapshots: int = 4, self_play: float = 0.5
    ) -> None:
        super().__init__()
        self.snapshot_every = snapshot_every
        self.max_snapshots = max_snapshots
        self.self_play = self_play

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        agents = [a for a in episode.agent_ids if episode.module_for(a) == MAIN]
        if len(agents) != 1 or metrics_logger is None:
            return  # main against itself: no winner to count
        me = agents[0]
        infos = episode.get_infos(-1)
        opp = infos.get(me, {}).get("opponent", "league") if isinstance(infos, dict) else "league"
        if opp == "league":
            other = [a for a in episode.agent_ids if a != me]
            opp = "snapshots" if other else "league"
        ret = episode.agent_episodes[me].get_return()
        metrics_logger.log_value(f"win_rate_vs_{opp}", float(ret > 0), reduce="mean", window=100)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        snaps = snapshot_ids(algorithm)
        it = algorithm.iteration
        if self.snapshot_every > 0 and it % self.snapshot_every == 0:
            n = int(snaps[-1][len("main_v") :]) + 1 if snaps else 1
            new = f"main_v{n}"
            snaps.append(new)
            main = algorithm.get_module(MAIN)
            state = main.get_state()
            algorithm.add_module(
                module_id=new,
                module_spec=RLModuleSpec.from_module(main),
                new_agent_to_module_mapping_fn=league_mapping(snaps, self.self_play),
                new_should_module_be_updated=[MAIN],
            )
            set_module_state(algorithm, new, state)
            while len(snaps) > self.max_snapshots:
                old = snaps.pop(0)
                algorithm.remove_module(
                    old,
                    new_agent_to_module_mapping_fn=league_mapping(snaps, self.self_play),
                    new_should_module_be_updated=[MAIN],
                )
        result["league"] = snaps


# ------------------------------------------------------------------ checkpoints


# The loaders live with the agent that plays a checkpoint (agents.policy), which does not
# import this adapter.
def module_path(path: str | Path, module_id: str = MAIN) -> Path:
    return rllib_module_path(path, module_id)


def load_module(path: str | Path, module_id: str = MAIN) -> RLModule:
    return load_rllib_module(path, module_id)
