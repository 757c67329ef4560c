"""A trained policy as an agent, and the policy file format.

Specs: `policy:PATH` and `policy:default` (the policy shipped in
`mtg_env/data/policies/default.safetensors`).

The policy file is data only: a safetensors file (the network's weights, float16) whose
metadata holds a JSON description of the network (`PolicySpec`: its class from a fixed
list, layer sizes, activation, the format it plays). Loading it reads tensors and JSON and
nothing else, so a policy file can't run code. Every size in the description is bounded,
and the description must name the file's tensors with their shapes (`check_weights`, from
the safetensors header) before any network is built: editing the JSON alone can't make the
loader build a network larger than the weights in the file.

Pickled files - full sb3 MaskablePPO checkpoints (`.zip`), the `.pt` policy files written
before the safetensors format, RLlib checkpoints (`policy:rllib:PATH`) - load only where the
caller says the file is trusted. sb3's and RLlib's loaders unpickle, which runs any code the
file carries; an old `.pt` is read even then with `torch.load(weights_only=True)`, every
object it names standing in as an inert placeholder (`_load_old_pt`). Trust is given by
(`trust_pickle=True`; on the command line `mtg-env --trust-pickle ...`, which sets
`MTG_ENV_TRUST_PICKLE=1` for the command and its worker processes). Convert such a file
once, where you trust it: `mtg-env --trust-pickle policy convert FILE OUT.safetensors`.
Every other problem is a `CheckpointError` naming the file.
"""

from __future__ import annotations

import abc
import json
import os
import struct
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mtg_env.engine import Action, Game, load_cards
from mtg_env.engine.formats import FORMATS
from mtg_env.env.entity import EntityLayout
from mtg_env.env.observers import FlatObserver, Observer, observer_for_space
from mtg_env.env.spaces import Layout
from mtg_env.io import InputFileError, read_bytes, write_bytes

from .registry import Budget

DATA = Path(__file__).resolve().parent.parent / "mtg_env" / "data" / "policies"
DEFAULT = DATA / "default.safetensors"
FORMAT = "mtg_env.policy.v2"
TRUST_ENV = "MTG_ENV_TRUST_PICKLE"
# A policy of this project is a few MB; the bound keeps a wrong file from filling memory.
MAX_POLICY_BYTES = 1 << 30
# Bounds on the sizes a policy description may give, far above any network of this project
# (hidden 256, entity_dim 24-64, net_arch [256]) and low enough that a description can't
# ask for an absurd network. The training configs use the same bounds, so that every
# policy they write loads. The weights' shapes are checked against the description as well,
# before any network is built (`check_weights`).
MAX_WIDTH = 4096  # a layer's width: each net_arch entry, hidden, global_dim
MAX_LAYERS = 16  # net_arch entries (per network)
MAX_ENTITY_DIM = 1024
MAX_CARD_EMBEDDING = 256
MAX_OBSERVATION_SIZE = 1 << 20
MAX_ACTION_SIZE = 1 << 16
_cache: dict[Any, Any] = {}


class CheckpointError(ValueError):
    """A policy checkpoint that is missing, unreadable or refused."""


def trusted_by_default() -> bool:
    """Whether the user said (`--trust-pickle`, or MTG_ENV_TRUST_PICKLE=1) that pickled
    checkpoints may be loaded."""
    return os.environ.get(TRUST_ENV, "") == "1"


def pickle_refusal(path: str | Path, what: str, convert: bool = True) -> CheckpointError:
    how = (
        f", or convert it once: mtg-env --trust-pickle policy convert {path} OUT.safetensors"
        if convert
        else ""
    )
    return CheckpointError(
        f"{path}: {what}, which unpickles: loading it can run code stored in the file, so "
        f"it is refused. If you trust the file, pass --trust-pickle (trust_pickle=True){how}"
    )


# ------------------------------------------------------------------ the file's description

ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


Width = Annotated[int, Field(ge=1, le=MAX_WIDTH)]
Layers = Annotated[list[Width], Field(max_length=MAX_LAYERS)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


def _known_format(value: str | None) -> str | None:
    """A rules format of this package, by name: never a path (a policy file is not trusted
    to choose which card data is read)."""
    if value is not None and value not in FORMATS:
        shown = repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
        raise ValueError(f"{shown} is not a rules format (one of {', '.join(sorted(FORMATS))})")
    return value


class ExtractorSpec(_Strict):
    kind: Literal["entity", "flatten", "table"]  # table: mtg_env.entity_nets.TableExtractor
    format: str | None = None  # entity: the rules format whose observation it reads
    entity_dim: int | None = Field(default=None, ge=1, le=MAX_ENTITY_DIM)
    global_dim: int | None = Field(default=None, ge=1, le=MAX_WIDTH)
    race_features: bool | None = None
    card_embedding: int | None = Field(default=None, ge=0, le=MAX_CARD_EMBEDDING)  # table only
    # The card names the embedding's rows stand for, in row order (the format's card
    # table when the policy was written): a later, larger set maps rows by name.
    card_names: list[Annotated[str, Field(max_length=200)]] | None = Field(
        default=None,
        max_length=1 << 16,  # far more than any card set's cards
    )

    _format = field_validator("format")(staticmethod(_known_format))


class PolicySpec(_Strict):
    """The JSON description stored in a policy file's metadata."""

    kind: Literal["mtg_env.policy.v2"]
    # MaskableActorCriticPolicy, mtg_env.nets.SlotPolicy, or (the v1 observation)
    # mtg_env.entity_nets.CandidatePolicy
    policy: Literal["mlp", "slot", "candidate"]
    # "flat" (v0): a Box of observation_size in [low, high]; "entity" (v1): the entity
    # tables of game_format (observation_size is then their object rows).
    observation: Literal["flat", "entity"] = "flat"
    game_format: str  # the rules format the policy plays (a name from FORMATS)
    observation_size: int = Field(ge=1, le=MAX_OBSERVATION_SIZE)
    observation_low: Finite
    observation_high: Finite
    action_size: int = Field(ge=1, le=MAX_ACTION_SIZE)
    net_arch: Layers | dict[Literal["pi", "vf"], Layers]
    activation: Literal[ACTIVATIONS]  # type: ignore[valid-type]
    ortho_init: bool
    normalize_images: bool
    optimizer_kwargs: dict[Annotated[str, Field(max_length=40)], Finite] = Field(max_length=16)
    extractor: ExtractorSpec
    hidden: int | None = Field(default=None, ge=1, le=MAX_WIDTH)  # slot and candidate only

    _game_format = field_validator("game_format")(staticmethod(_known_format))


def describe(policy: Any) -> PolicySpec:
    """The description of a policy network (MaskableActorCriticPolicy or SlotPolicy) that
    `build` turns back into the same network."""
    # The training stack (torch, sb3) is an extra: imported when a network is described.
    from gymnasium import spaces
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from mtg_env.entity_nets import CandidatePolicy
    from mtg_env.nets import EntityExtractor, SlotPolicy

    d = policy._get_constructor_parameters()
    obs, act = d["observation_space"], d["action_space"]
    if isinstance(policy, CandidatePolicy):
        return _describe_candidate(policy, d)
    if (
        not isinstance(obs, spaces.Box)
        or len(obs.shape) != 1
        or not isinstance(act, spaces.Discrete)
    ):
        raise CheckpointError("only a flat Box observation and a Discrete action are supported")
    lows, highs = np.unique(obs.low), np.unique(obs.high)
    if len(lows) != 1 or len(highs) != 1:
        raise CheckpointError("the observation space's bounds must be one value each")
    fe_cls, fe_kw = d["features_extractor_class"], dict(d["features_extractor_kwargs"] or {})
    if fe_cls is EntityExtractor:
        extractor = ExtractorSpec(kind="entity", **fe_kw)
    elif fe_cls is FlattenExtractor and not fe_kw:
        extractor = ExtractorSpec(kind="flatten")
    else:
        raise CheckpointError(f"unsupported features extractor {fe_cls.__name__}")
    activation = d["activation_fn"].__name__
    slot = isinstance(policy, SlotPolicy)
    game_format = d.get("format") if slot else fe_kw.get("format", "classic")
    net_arch = d["net_arch"]
    return PolicySpec(
        kind=FORMAT,
        policy="slot" if slot else "mlp",
        game_format=str(game_format),
        observation_size=int(obs.shape[0]),
        observation_low=float(lows[0]),
        observation_high=float(highs[0]),
        action_size=int(act.n),
        net_arch=dict(net_arch) if isinstance(net_arch, dict) else list(net_arch),
        activation=activation,
        ortho_init=bool(d["ortho_init"]),
        normalize_images=bool(d["normalize_images"]),
        optimizer_kwargs={k: float(v) for k, v in (d["optimizer_kwargs"] or {}).items()},
        extractor=extractor,
        hidden=int(d["hidden"]) if slot else None,
    )


def _describe_candidate(policy: Any, d: dict[str, Any]) -> PolicySpec:
    net_arch = d["net_arch"]
    return PolicySpec(
        kind=FORMAT,
        policy="candidate",
        observation="entity",
        game_format=policy.mtg_format,
        observation_size=int(d["observation_space"]["objects"].shape[0]),
        observation_low=0.0,
        observation_high=255.0,
        action_size=int(d["action_space"].n),
        net_arch=dict(net_arch) if isinstance(net_arch, dict) else list(net_arch or []),
        activation=d["activation_fn"].__name__,
        ortho_init=bool(d["ortho_init"]),
        normalize_images=bool(d["normalize_images"]),
        optimizer_kwargs={k: float(v) for k, v in (d["optimizer_kwargs"] or {}).items()},
        extractor=ExtractorSpec(
            kind="table",
            format=policy.mtg_format,
            entity_dim=policy.entity_dim,
            card_embedding=policy.card_embedding,
            card_names=_row_names(policy),
        ),
        hidden=policy.hidden,
    )


def _row_names(policy: Any) -> list[str] | None:
    """The card names of a candidate policy's embedding rows: its format's card table, if
    the embedding has one row per card of it (plus the spare last row)."""
    cards = getattr(policy.features_extractor, "cards", None)
    if cards is None:
        return None
    names = list(Layout(load_cards(policy.mtg_format)).card_names)
    return names if cards.weight.shape[0] == len(names) + 1 else None


def _build_candidate(spec: PolicySpec) -> Any:
    import torch
    from gymnasium import spaces

    from mtg_env.entity_nets import CandidatePolicy
    from mtg_env.env.entity import EntityLayout

    lay = EntityLayout(Layout(load_cards(spec.game_format)))
    if lay.limits.objects != spec.observation_size or lay.n_actions != spec.action_size:
        raise CheckpointError(
            f"the policy reads {spec.observation_size} object rows and {spec.action_size} "
            f"candidates; this version's tables have {lay.limits.objects} and {lay.n_actions}"
        )
    return CandidatePolicy(
        observation_space=lay.observation_space,
        action_space=spaces.Discrete(spec.action_size),
        lr_schedule=lambda _: 0.0,  # inference only: the optimizer is never stepped
        net_arch=spec.net_arch,
        activation_fn=getattr(torch.nn, spec.activation),
        ortho_init=spec.ortho_init,
        normalize_images=spec.normalize_images,
        optimizer_kwargs=dict(spec.optimizer_kwargs),
        hidden=spec.hidden or 256,
        entity_dim=spec.extractor.entity_dim or 64,
        card_embedding=spec.extractor.card_embedding or 0,
        format=spec.game_format,
    )


def build(spec: PolicySpec) -> Any:
    """A fresh network from its description (classes from a fixed list, nothing loaded)."""
    if spec.policy == "candidate":
        return _build_candidate(spec)
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from mtg_env.nets import EntityExtractor, SlotPolicy

    fe = spec.extractor
    fe_kw = {
        k: v
        for k, v in {
            "format": fe.format,
            "entity_dim": fe.entity_dim,
            "global_dim": fe.global_dim,
            "race_features": fe.race_features,
        }.items()
        if v is not None
    }
    kw: dict[str, Any] = {
        "observation_space": spaces.Box(
            spec.observation_low,
            spec.observation_high,
            (spec.observation_size,),
            np.float32,
        ),
        "action_space": spaces.Discrete(spec.action_size),
        "lr_schedule": lambda _: 0.0,  # inference only: the optimizer is never stepped
        "net_arch": spec.net_arch,
        "activation_fn": getattr(torch.nn, spec.activation),
        "ortho_init": spec.ortho_init,
        "normalize_images": spec.normalize_images,
        "optimizer_kwargs": dict(spec.optimizer_kwargs),
        "features_extractor_class": EntityExtractor if fe.kind == "entity" else FlattenExtractor,
        "features_extractor_kwargs": fe_kw,
    }
    if spec.policy == "slot":
        return SlotPolicy(**kw, format=spec.game_format, hidden=spec.hidden or 256)
    return MaskableActorCriticPolicy(**kw)


# ------------------------------------------------------------------ the weights it describes

# One dimension of a weight the description implies: its size, and the description field
# that sets it (named in the error when the file's weight has another size).
_Dim = tuple[int, str]
_Shapes = dict[str, tuple[_Dim, ...]]
_SHARED = ("features_extractor", "pi_features_extractor", "vf_features_extractor")


def _mismatch(field: str, msg: str) -> ValueError:
    return ValueError(f"policy description, field {field}: {msg}")


def _linear(out: _Shapes, name: str, rows: _Dim, cols: _Dim) -> None:
    out[f"{name}.weight"] = (rows, cols)
    out[f"{name}.bias"] = (rows,)


def _extractor(out: _Shapes, layers: _Shapes) -> None:
    """The features extractor's weights, under each name sb3 shares it by."""
    for prefix in _SHARED:
        out.update({f"{prefix}.{k}": v for k, v in layers.items()})


def expected_weights(spec: PolicySpec) -> _Shapes:
    """The names and shapes of the weights (parameters and saved buffers) of the network that
    `build(spec)` makes, worked out from the description and the format's layout alone:
    nothing is built, so a description that asks for a huge network costs nothing here.
    Each dimension comes with the field that sets it (`_Dim`)."""
    if spec.policy == "candidate":
        return _candidate_weights(spec)
    from mtg_env.nets import RACE_FEATURES, entity_features_dim, flat_observer, global_indices

    fe = spec.extractor
    out: _Shapes = {}
    if fe.kind == "entity":
        fmt = fe.format or "classic"
        observer = flat_observer(fmt)
        pieces = {p.name: p for p in observer.pieces}
        n_obs = observer.layout.n_obs
        if spec.observation_size != n_obs:
            raise _mismatch(
                "observation_size",
                f"{spec.observation_size}, the {fmt} format's observation has {n_obs}",
            )
        e = fe.entity_dim or 24  # EntityExtractor's defaults
        g = fe.global_dim or 128
        ent, glob = (e, "extractor.entity_dim"), (g, "extractor.global_dim")
        n_global = len(global_indices(pieces)) + (RACE_FEATURES if fe.race_features else 0)
        pf, sf = pieces["permanents_own"].shape[1], pieces["stack"].shape[1]
        layers: _Shapes = {}
        _linear(layers, "perm_net.0", ent, (pf, "extractor.format"))
        _linear(layers, "perm_net.2", ent, ent)
        _linear(layers, "stack_net.0", ent, (sf, "extractor.format"))
        _linear(layers, "global_net.0", glob, (n_global, "extractor.race_features"))
        _extractor(out, layers)
        features = (entity_features_dim(pieces, e, g), "extractor")
    elif fe.kind == "flatten":
        features = (spec.observation_size, "observation_size")
    else:
        raise _mismatch("extractor.kind", "the table extractor goes with policy: candidate")
    if spec.policy == "slot":
        _slot_head(out, spec, features)
        return out
    arch = spec.net_arch
    pi, vf = (arch.get("pi", []), arch.get("vf", [])) if isinstance(arch, dict) else (arch, arch)
    last_pi = last_vf = features
    for i, w in enumerate(pi):
        _linear(out, f"mlp_extractor.policy_net.{2 * i}", (w, "net_arch"), last_pi)
        last_pi = (w, "net_arch")
    for i, w in enumerate(vf):
        _linear(out, f"mlp_extractor.value_net.{2 * i}", (w, "net_arch"), last_vf)
        last_vf = (w, "net_arch")
    _linear(out, "action_net", (spec.action_size, "action_size"), last_pi)
    _linear(out, "value_net", (1, "policy"), last_vf)
    return out


def _slot_head(out: _Shapes, spec: PolicySpec, features: _Dim) -> None:
    """SlotPolicy's actor, critic and slot action head (`mtg_env.nets`)."""
    from mtg_env.nets import flat_action_indices, slot_specs

    if spec.extractor.kind != "entity":
        raise _mismatch("extractor.kind", "a slot policy reads the entity extractor's slots")
    lay = Layout(load_cards(spec.game_format))
    if spec.action_size != lay.n_actions:
        raise _mismatch(
            "action_size",
            f"{spec.action_size}, the {spec.game_format} format has {lay.n_actions} actions",
        )
    hidden = (spec.hidden or 256, "hidden")
    ent = (spec.extractor.entity_dim or 24, "extractor.entity_dim")
    n_flat = (len(flat_action_indices(lay)), "game_format")
    n_q = (sum(q for _, _, q in slot_specs(lay)), "game_format")
    _linear(out, "mlp_extractor.policy_net.0", hidden, features)
    _linear(out, "mlp_extractor.value_net.0", hidden, features)
    out["action_net.flat_idx"] = (n_flat,)
    _linear(out, "action_net.flat", n_flat, hidden)
    _linear(out, "action_net.query", (n_q[0] * ent[0], "extractor.entity_dim"), hidden)
    out["action_net.bias"] = (n_q,)
    _linear(out, "value_net", (1, "policy"), hidden)


def _candidate_weights(spec: PolicySpec) -> _Shapes:
    """CandidatePolicy's weights (`mtg_env.entity_nets`), on the format's entity tables."""
    from mtg_env.entity_nets import N_DECISIONS, N_KINDS, N_OPTIONS, N_STEPS, OBJECT_INPUTS
    from mtg_env.env.entity import GLOBAL_FIELDS

    if spec.extractor.kind != "table":
        raise _mismatch("extractor.kind", "a candidate policy reads the table extractor")
    lay = EntityLayout(Layout(load_cards(spec.game_format)))
    if lay.limits.objects != spec.observation_size:
        raise _mismatch(
            "observation_size",
            f"{spec.observation_size} object rows, this version's "
            f"{spec.game_format} tables have {lay.limits.objects}",
        )
    if lay.n_actions != spec.action_size:
        raise _mismatch(
            "action_size",
            f"{spec.action_size} candidates, this version's "
            f"{spec.game_format} tables have {lay.n_actions}",
        )
    space = lay.observation_space
    n_cards = (int(space["object_card"].high.max()) + 1, "game_format")
    hidden = (spec.hidden or 256, "hidden")  # _build_candidate's defaults
    ent = (spec.extractor.entity_dim or 64, "extractor.entity_dim")
    c = spec.extractor.card_embedding or 0
    card = (c, "extractor.card_embedding")
    e = ent[0]
    layers: _Shapes = {}
    if c:
        layers["cards.weight"] = (n_cards, card)
    _linear(layers, "row_net.0", (128, "policy"), (OBJECT_INPUTS + c, "extractor.card_embedding"))
    _linear(layers, "row_net.2", ent, (128, "policy"))
    n_global = len(GLOBAL_FIELDS) + N_STEPS + N_DECISIONS
    _linear(layers, "context.0", hidden, (n_global + 4 * e, "extractor.entity_dim"))
    cand_in = N_KINDS + 2 * e + 3 + N_OPTIONS
    _linear(layers, "cand_net.0", (128, "policy"), (cand_in, "extractor.entity_dim"))
    _linear(layers, "cand_net.2", ent, (128, "policy"))
    out: _Shapes = {}
    _extractor(out, layers)
    _linear(out, "mlp_extractor.policy_net.0", hidden, hidden)
    _linear(out, "mlp_extractor.value_net.0", hidden, hidden)
    _linear(out, "action_net.query", ent, hidden)
    _linear(out, "action_net.score", (1, "policy"), ent)
    _linear(out, "value_net", (1, "policy"), hidden)
    return out


def _names_field(spec: PolicySpec, names: set[str]) -> str:
    """The description field that decides whether weights of these names exist."""
    if any(n.startswith("action_net.") for n in names):
        return "policy"  # each policy class has its own action head
    if any(".cards." in n for n in names):
        return "extractor.card_embedding"
    if any(n.startswith("mlp_extractor.") for n in names):
        return "net_arch" if spec.policy == "mlp" else "policy"
    if any(n.startswith(_SHARED) for n in names):
        return "extractor.kind"
    return "policy"


def _few(names: set[str]) -> list[str]:
    """A few of these names for a message, each cut short."""
    return [n if len(n) <= 80 else n[:80] + "..." for n in sorted(names)[:3]]


def check_weights(spec: PolicySpec, shapes: dict[str, tuple[int, ...]]) -> None:
    """Refuse weights (name -> shape, as a safetensors header lists them) that are not the
    described network's: a ValueError naming the description field that disagrees. Nothing
    is built or loaded, so the network that is built next is the size of the weights that
    are really in the file."""
    want = expected_weights(spec)
    missing, unexpected = set(want) - set(shapes), set(shapes) - set(want)
    if missing or unexpected:
        raise _mismatch(
            _names_field(spec, missing | unexpected),
            f"the weights do not match the described network (missing {_few(missing)}, "
            f"unexpected {_few(unexpected)})",
        )
    for name, dims in want.items():
        got = shapes[name]
        sizes = tuple(n for n, _ in dims)
        if name.endswith(".cards.weight") and len(got) == 2 and 0 < got[0] <= sizes[0]:
            sizes = (got[0], sizes[1])  # a card table of an older, smaller set (_card_rows)
        if got == sizes:
            continue
        if len(got) != len(sizes):
            field = dims[0][1]
        else:
            field = next(f for (n, f), g in zip(dims, got, strict=True) if n != g)
            if sizes[0] != got[0] and name.endswith(".cards.weight"):
                field = "extractor.card_names"  # a larger table than this version's set
        raise _mismatch(field, f"weight {name} has shape {got}, the described network {sizes}")


def _header_shapes(header: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Each tensor's shape as a safetensors header lists it (nothing read but the header)."""
    shapes = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        shape = entry.get("shape") if isinstance(entry, dict) else None
        if (
            not isinstance(shape, list)
            or len(shape) > 8
            or not all(type(n) is int and n >= 0 for n in shape)  # a bool is no size
        ):
            raise ValueError(f"not a safetensors file (tensor {name[:80]!r} has no shape)")
        shapes[name] = tuple(shape)
    return shapes


# ------------------------------------------------------------------ writing and reading


def policy_bytes(policy: Any) -> bytes:
    """The policy file's contents: float16 weights plus the JSON description."""
    from safetensors.torch import save

    spec = describe(policy)
    tensors = {
        k: (v.detach().cpu().half() if v.is_floating_point() else v.detach().cpu())
        .clone()
        .contiguous()
        for k, v in policy.state_dict().items()
    }
    return save(tensors, metadata={"mtg_env": spec.model_dump_json()})


def export_policy(policy: Any, path: str | Path) -> None:
    """Write the policy network alone (float16 weights + its description), atomically."""
    write_bytes(path, policy_bytes(policy))


def _read_header(data: bytes) -> dict[str, Any]:
    """The safetensors header (JSON), checked before any tensor is read."""
    if len(data) < 8:
        raise ValueError("too short to be a safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8 or n > 100_000_000:
        raise ValueError("not a safetensors file (bad header length)")
    header = json.loads(data[8 : 8 + n])
    if not isinstance(header, dict):
        raise ValueError("not a safetensors file (the header is not an object)")
    return header


def file_format(path: str | Path) -> str | None:
    """The rules format a safetensors policy file says it plays, read from its header alone
    (no torch, no network built), so that a policy in the wrong format is refused at once.
    None where the file is not one or does not say: `load_model` then gives the error."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8 or struct.unpack("<Q", head)[0] > 100_000_000:
                return None
            header = json.loads(f.read(struct.unpack("<Q", head)[0]))
        spec = PolicySpec.model_validate_json(header["__metadata__"]["mtg_env"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return spec.game_format


def wrong_format(name: str, plays: str | None, fmt: str) -> CheckpointError | None:
    """The one-line refusal of a policy that plays another format than `fmt`, if it does."""
    if plays is None or plays == fmt:
        return None
    return CheckpointError(
        f"{name}: this policy plays the {plays} format, not {fmt} "
        f"(use it with --format {plays}, or a policy trained for {fmt})"
    )


def _sniff(data: bytes) -> str:
    # safetensors first: its 8-byte header length can start with any byte, 0x80 included.
    if len(data) >= 10 and data[8:9] == b"{":
        (n,) = struct.unpack("<Q", data[:8])
        if 8 + n <= len(data) and data[8 : 8 + n].rstrip().endswith(b"}"):
            return "safetensors"
    if data[:2] == b"PK":
        return "zip"  # an sb3 .zip, or torch.save's zip format (the old .pt files)
    if data[:1] == b"\x80":
        return "pickle"
    return "unknown"


def _grown_card_table(key: str, saved: Any, own: Any) -> bool:
    """Whether `saved` is a card-embedding table of fewer cards than this version's set."""
    return (
        key.endswith(".cards.weight")
        and saved.dim() == 2
        and own.dim() == 2
        and saved.shape[1] == own.shape[1]
        and saved.shape[0] < own.shape[0]
    )


def _card_rows(saved: Any, n_rows: int, spec: PolicySpec) -> Any:
    """The card-embedding table of a policy trained on a smaller card set, for this
    version's set: each card's row is the one it learned (found by name when the file
    names its rows, else by position: cards were appended), and a card the policy never
    saw gets the mean of the rows it learned, a neutral "some card" rather than noise. The
    table's last row (one past the cards) stays the saved last row."""
    import torch

    mean = saved.mean(dim=0)
    names = spec.extractor.card_names
    if names is None or len(names) != saved.shape[0] - 1:
        extra = mean.unsqueeze(0).expand(n_rows - saved.shape[0], -1)
        return torch.cat([saved, extra])
    row_of = {n: i for i, n in enumerate(names)}
    now = Layout(load_cards(spec.game_format)).card_names
    rows = [saved[row_of[n]] if n in row_of else mean for n in now]
    rows += [saved[-1]] * (n_rows - len(rows))
    return torch.stack(rows)


def _load_safetensors(p: Path, data: bytes) -> Any:
    import torch
    from safetensors.torch import load

    header = _read_header(data)
    meta = header.get("__metadata__") or {}
    if "mtg_env" not in meta:
        raise ValueError("a safetensors file without an mtg_env policy description")
    try:
        spec = PolicySpec.model_validate_json(meta["mtg_env"])
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(map(str, first["loc"])) or "description"
        raise ValueError(f"policy description, field {field}: {first['msg']}") from None
    # The description must describe the weights in the file before anything is built: a
    # description edited alone (a wider layer, say) can't make a network bigger than the
    # weights that are really there.
    check_weights(spec, _header_shapes(header))
    weights = load(data)
    policy = build(spec)
    state = {k: (v.float() if v.is_floating_point() else v) for k, v in weights.items()}
    own = policy.state_dict()
    for k, v in state.items():
        if v.is_floating_point() and not bool(torch.isfinite(v).all()):
            raise ValueError(f"weight {k} holds values that are not finite numbers")
        if k in own and _grown_card_table(k, v, own[k]):
            state[k] = _card_rows(v, own[k].shape[0], spec)
            continue
        if k in own and tuple(own[k].shape) != tuple(v.shape):
            raise ValueError(
                f"weight {k} has shape {tuple(v.shape)}, the described network "
                f"{tuple(own[k].shape)}"
            )
        if k in own and not own[k].is_floating_point() and not torch.equal(own[k], v):
            # An index table (the slot head's flat_idx) follows from the format's layout:
            # other values would index outside the logits.
            raise ValueError(f"weight {k} is not the table the {spec.game_format} format gives")
    missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
    if missing or unexpected:
        raise ValueError(
            f"weights do not match the described network (missing {missing[:3]}, "
            f"unexpected {unexpected[:3]})"
        )
    with torch.no_grad():
        policy.load_state_dict(state)
    policy.mtg_spec = spec
    return policy


class _Inert:
    """Stands for any object an old `.pt` policy file names (a space, a class, a function):
    it keeps the arguments it is given and runs nothing of what it stands for."""

    qualname = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs, self.state = args, kwargs, None

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def __call__(self, *args: Any, **kwargs: Any) -> _Inert:
        return type(self)(*args, **kwargs)


def _load_old_pt(p: Path) -> Any:
    """A policy file of the format before safetensors (`mtg_env.policy.v1`, torch.save of
    weights plus constructor arguments), read with `torch.load(weights_only=True)`: every
    object the file names beyond tensors is an inert stand-in, and the network is rebuilt
    from the arguments that are plain data, so nothing in the file runs."""
    import torch

    names = torch.serialization.get_unsafe_globals_in_checkpoint(str(p))
    stand_ins = [(type("Inert", (_Inert,), {"qualname": n}), n) for n in names]
    with torch.serialization.safe_globals(stand_ins):
        saved = torch.load(p, map_location="cpu", weights_only=True)
    if not isinstance(saved, dict) or saved.get("kind") != "mtg_env.policy.v1":
        raise ValueError("not an mtg_env policy file")
    d = saved.get("data")
    if not isinstance(d, dict):
        raise ValueError("not an mtg_env policy file (no network description)")

    def named(x: Any) -> str:
        return getattr(x, "qualname", "").rsplit(".", 1)[-1]

    fe_kw = dict(d.get("features_extractor_kwargs") or {})
    fe = named(d.get("features_extractor_class"))
    slot = saved.get("class") == "mtg_env.nets:SlotPolicy"
    game_format = d.get("format") if slot else fe_kw.get("format", "classic")
    _known_format(str(game_format))
    lay = Layout(load_cards(str(game_format)))
    spec = PolicySpec(
        kind=FORMAT,
        policy="slot" if slot else "mlp",
        game_format=str(game_format),
        observation_size=lay.n_obs,  # the project's layouts: Box(0, 1, (n_obs,))
        observation_low=0.0,
        observation_high=1.0,
        action_size=lay.n_actions,
        net_arch=d.get("net_arch"),
        activation=named(d.get("activation_fn")),
        ortho_init=bool(d.get("ortho_init", True)),
        normalize_images=bool(d.get("normalize_images", True)),
        optimizer_kwargs={k: float(v) for k, v in (d.get("optimizer_kwargs") or {}).items()},
        extractor=ExtractorSpec(kind="entity" if fe == "EntityExtractor" else "flatten", **fe_kw),
        hidden=d.get("hidden") if slot else None,
    )
    weights = saved.get("state_dict")
    if not isinstance(weights, dict) or not all(
        isinstance(v, torch.Tensor) for v in weights.values()
    ):
        raise ValueError("not an mtg_env policy file (no weights)")
    check_weights(spec, {str(k): tuple(v.shape) for k, v in weights.items()})
    policy = build(spec)
    policy.load_state_dict(
        {k: (v.float() if v.is_floating_point() else v) for k, v in weights.items()}
    )
    policy.mtg_spec = spec
    return policy


def _load_pickled(p: Path, kind: str) -> Any:
    """An sb3 .zip (only ever called for a trusted file: sb3's loader unpickles), or an old
    `.pt` policy file (read as data only, `_load_old_pt`)."""
    from sb3_contrib import MaskablePPO

    if kind == "zip" and p.suffix == ".zip":
        return MaskablePPO.load(p, device="cpu").policy
    return _load_old_pt(p)


def quiet_logger() -> Any:
    """An SB3 logger that writes nowhere, for a `learn()` whose figures the caller times or
    records itself: without a logger of its own, SB3 makes a folder under the system's temp
    directory on every call, and nothing removes it."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def load_model(path: str | Path, *, trust_pickle: bool | None = None) -> Any:
    """The policy network (a MaskableActorCriticPolicy) from a policy file. Pickled files
    (sb3 `.zip`, old `.pt`) are refused unless `trust_pickle` (default: the user's
    `--trust-pickle` / MTG_ENV_TRUST_PICKLE=1)."""
    p = Path(path)
    if trust_pickle is None:
        trust_pickle = trusted_by_default()
    try:
        st = p.stat()
    except OSError:
        st = None
    key = (str(p.resolve()), st.st_mtime_ns if st else 0, st.st_size if st else 0)
    if key in _cache:
        return _cache[key]
    if st is None:
        raise CheckpointError(f"{p}: policy checkpoint not found")
    # The file is read and a pickle refused before torch is imported (two seconds): a
    # refusal is then as quick as any other bad input.
    try:
        data = read_bytes(p, "policy file")
    except InputFileError as e:
        raise CheckpointError(str(e)) from None
    kind = _sniff(data)
    if kind in ("zip", "pickle") and not trust_pickle:
        what = (
            "a full sb3 checkpoint"
            if p.suffix == ".zip"
            else "a pickled policy file (the format before safetensors)"
        )
        raise pickle_refusal(p, what)
    try:
        import torch  # noqa: F401
        from sb3_contrib import MaskablePPO  # noqa: F401
    except ImportError as e:  # pragma: no cover - the train extra is missing
        raise CheckpointError(f"{p}: loading a policy needs the 'train' extra ({e})") from None
    try:
        if kind == "safetensors":
            policy = _load_safetensors(p, data)
        elif kind in ("zip", "pickle"):
            policy = _load_pickled(p, kind)
        else:
            raise ValueError("not a policy file (neither safetensors nor a known checkpoint)")
        policy.set_training_mode(False)
    except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
        msg = str(e).splitlines()[0] if str(e) else ""
        raise CheckpointError(
            f"{p}: not a readable policy checkpoint ({type(e).__name__}: {msg})"
        ) from None
    _cache[key] = policy
    return policy


def policy_format(model: Any) -> str | None:
    """The rules format a loaded policy plays, where its file says."""
    spec = getattr(model, "mtg_spec", None)
    if spec is not None:
        return spec.game_format
    fmt = getattr(model, "mtg_format", None)
    if fmt is None:
        fmt = getattr(getattr(model, "features_extractor", None), "format", None)
    return fmt


def rllib_module_path(path: str | Path, module_id: str = "main") -> Path:
    """The folder of one module in an RLlib algorithm checkpoint (or `path` itself if it is
    already a module folder)."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{p}: RLlib checkpoint not found")
    cand = p / "learner_group" / "learner" / "rl_module" / module_id
    if cand.is_dir():
        return cand
    if (p / "module_state.pt").exists() or (p / "class_and_ctor_args.pkl").exists():
        return p
    raise ValueError(
        f"{p}: not an RLlib algorithm checkpoint with a {module_id!r} module, nor a module folder"
    )


def load_rllib_module(path: str | Path, module_id: str = "main") -> Any:
    """The module, with RLlib's own loader, which unpickles: only for a trusted folder."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    return RLModule.from_checkpoint(str(rllib_module_path(path, module_id).resolve()))


class _ObservingAgent(abc.ABC):
    """An agent that decides from the env's observation and mask (`act`); `choose` encodes
    them from an engine state and maps the chosen index back to an engine action."""

    needs_observation = True
    decides_from_engine = False
    budget: Budget | None = None
    fallbacks = 0
    layout: Layout
    observer: Observer  # the observation it reads (`mtg_env.env.observers`)

    def reset(self) -> None:  # noqa: B027 - stateless between games; subclasses may override
        return None

    @abc.abstractmethod
    def act(self, observation: Any, mask: np.ndarray, info: Any = None) -> int: ...

    def choose(self, game: Game) -> Action:
        seat = game.current_player
        assert seat is not None
        legal = self.observer.legal(game, seat)
        obs = self.observer.learner_view(self.observer.observe(game, seat, legal), legal.mask)
        return legal.actions[self.act(obs, legal.mask)]


class PolicyAgent(_ObservingAgent):
    """Acts with a trained policy: from the env's observation and mask (`act`) or from an
    engine state (`choose`, which encodes the observation itself)."""

    def __init__(
        self, model: Any, fmt: str = "classic", deterministic: bool = True, name: str = "policy"
    ) -> None:
        self.model = model
        self.deterministic = deterministic
        self.name = name
        refusal = wrong_format(name, policy_format(model), fmt)
        if refusal is not None:
            raise refusal
        self.layout = Layout(load_cards(fmt))
        # The flat vector, or (a policy on the v1 entity observation) the entity tables.
        observer = observer_for_space(model.observation_space, self.layout)
        if observer is None:
            n = model.observation_space.shape[0]
            raise CheckpointError(
                f"{name}: the policy expects observations of size {n}, the "
                f"{fmt} format has {self.layout.n_obs}"
            )
        self.observer = observer

    @classmethod
    def from_path(cls, path: str | Path, **kw: Any) -> PolicyAgent:
        return cls(load_model(path), name=str(path), **kw)

    def act(self, observation: Any, mask: np.ndarray, info: Any = None) -> int:
        a, _ = self.model.predict(
            observation, action_masks=mask.astype(bool), deterministic=self.deterministic
        )
        return int(a)


class RLlibPolicyAgent(_ObservingAgent):
    """Acts with the `main` module of an RLlib checkpoint (`scripts/train_rllib.py`):
    spec `policy:rllib:PATH`, PATH an algorithm checkpoint folder or one module's folder.
    Greedy: the most likely legal action."""

    def __init__(
        self,
        path: str | Path,
        fmt: str = "classic",
        module_id: str = "main",
        trust_pickle: bool | None = None,
    ) -> None:
        key = f"rllib:{Path(path).resolve()}:{module_id}"
        if trust_pickle is None:
            trust_pickle = trusted_by_default()
        try:
            import ray.rllib  # noqa: F401 - the extra this agent needs, checked up front
            import torch
        except ImportError as e:
            raise CheckpointError(
                f"{path}: an RLlib policy needs the 'rllib' extra ({e})"
            ) from None
        if key not in _cache:
            try:
                rllib_module_path(path, module_id)  # a missing or wrong folder is said so
            except (OSError, ValueError) as e:
                raise CheckpointError(str(e)) from None
            if not trust_pickle:
                raise pickle_refusal(path, "an RLlib checkpoint", convert=False)
            try:
                _cache[key] = load_rllib_module(path, module_id)
            except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
                raise CheckpointError(
                    f"{path}: not a readable RLlib checkpoint ({type(e).__name__}: {e})"
                ) from None
        self.module = _cache[key]
        self.module.eval()
        self._torch = torch
        self.layout = Layout(load_cards(fmt))
        self.observer = FlatObserver(self.layout)
        self.name = f"policy:rllib:{path}"
        space = self.module.observation_space
        shape = getattr(space, "spaces", {}).get("observations", space).shape
        if shape != (self.layout.n_obs,):
            raise CheckpointError(
                f"{path}: the module expects observations of shape {shape}, the {fmt} "
                f"format has ({self.layout.n_obs},)"
            )

    def act(self, observation: np.ndarray, mask: np.ndarray, info: Any = None) -> int:
        torch = self._torch
        from ray.rllib.core.columns import Columns

        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(observation, dtype=torch.float32)[None],
                "action_mask": torch.as_tensor(mask, dtype=torch.float32)[None],
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(logits.numpy()[legal]))])
