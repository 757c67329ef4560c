"""Policy files for tests that must not depend on how the shipped default was trained."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def default_uses_race_features() -> bool:
    from agents.policy import DEFAULT, load_model

    return bool(load_model(DEFAULT).features_extractor.race_features)


def policy_like_default(race_features: bool, seed: int = 0) -> Any:
    """A fresh policy network of the shipped default's shape (seeded random weights), with
    or without the race summary."""
    import torch

    from agents.policy import DEFAULT, load_model

    src = load_model(DEFAULT)
    data = dict(src._get_constructor_parameters())
    data["features_extractor_kwargs"] = {
        **data["features_extractor_kwargs"],
        "race_features": race_features,
    }
    torch.manual_seed(seed)
    policy = type(src)(**data)
    policy.set_training_mode(False)
    return policy


def write_policy_like_default(path: Path, race_features: bool) -> Path:
    from agents.policy import export_policy

    export_policy(policy_like_default(race_features), path)
    return path


# Small networks of each class a policy file describes (classic format), for tests that
# check the file's description against its weights: seconds to build, KB to MB on disk.
SMALL_SPECS: dict[str, dict[str, Any]] = {
    "mlp": {
        "policy": "mlp",
        "net_arch": {"pi": [16, 8], "vf": [12]},
        "extractor": {"kind": "flatten"},
    },
    "mlp_entity": {
        "policy": "mlp",
        "net_arch": [16],
        "extractor": {"kind": "entity", "format": "classic", "entity_dim": 4, "global_dim": 8},
    },
    "slot": {
        "policy": "slot",
        "hidden": 16,
        "extractor": {
            "kind": "entity",
            "format": "classic",
            "entity_dim": 4,
            "global_dim": 8,
            "race_features": True,
        },
    },
    "candidate": {
        "policy": "candidate",
        "observation": "entity",
        "hidden": 16,
        "extractor": {"kind": "table", "format": "classic", "entity_dim": 8, "card_embedding": 4},
    },
}


def small_spec(kind: str) -> Any:
    """The description of a small network of `kind` (a key of SMALL_SPECS)."""
    from agents.policy import FORMAT, PolicySpec
    from mtg_env.engine import load_cards
    from mtg_env.env.entity import EntityLayout
    from mtg_env.env.spaces import Layout

    lay = Layout(load_cards("classic"))
    entity = kind == "candidate"
    table = EntityLayout(lay)
    return PolicySpec.model_validate(
        {
            "kind": FORMAT,
            "game_format": "classic",
            "observation_size": table.limits.objects if entity else lay.n_obs,
            "observation_low": 0.0,
            "observation_high": 255.0 if entity else 1.0,
            "action_size": table.n_actions if entity else lay.n_actions,
            "net_arch": [],
            "activation": "Tanh",
            "ortho_init": True,
            "normalize_images": True,
            "optimizer_kwargs": {"eps": 1e-5},
            **SMALL_SPECS[kind],
        }
    )


def write_small_policy(path: Path, kind: str, seed: int = 0) -> Path:
    """A policy file of a small network of `kind`, seeded random weights."""
    import torch

    from agents.policy import build, export_policy

    torch.manual_seed(seed)
    export_policy(build(small_spec(kind)), path)
    return path


def policy_description(path: Path) -> dict[str, Any]:
    """The JSON description in a policy file's metadata."""
    import json

    from agents.policy import _read_header

    return json.loads(_read_header(path.read_bytes())["__metadata__"]["mtg_env"])


def edited_copy(src: Path, dst: Path, description: dict[str, Any]) -> Path:
    """A copy of the policy file `src` whose description is `description`: the weights are
    the same tensors, only the JSON differs."""
    import json

    from safetensors.torch import load, save

    dst.write_bytes(save(load(src.read_bytes()), metadata={"mtg_env": json.dumps(description)}))
    return dst
