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
