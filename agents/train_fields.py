"""Ranged field types and checks shared by the training configs (`scripts/train_ppo.py`,
`scripts/train_entity.py`, `scripts/train_rllib.py`).

Every value of a config is ranged: a zero, negative, non-finite or absurdly large value is
an error naming the field (docs/trust.md). The upper bounds are far beyond any real run
(the recorded runs: 5M steps, 1,000 warm-start games, 16 envs of 128 steps) and keep a typo
from asking for memory or time the process can't have; the network's bounds are the policy
file's (`agents.policy`), so that every policy a run writes loads.

Checks across fields sit on the later field (pydantic validates in field order, so the
earlier one is in `info.data`), so that the error names it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError, ValidationInfo

from mtg_env.engine.formats import FORMATS

from .policy import MAX_WIDTH

MAX_STEPS = 10**10  # environment steps: total_timesteps and the periods counted in them
MAX_GAMES = 100_000  # games played in one go (warm start, evaluation)
MAX_ROLLOUT = 1 << 16  # n_steps * n_envs: the rollout buffer holds that many observations
MAX_SEED = 2**32 - 1  # numpy's global seed (sb3's set_random_seed, RLlib) takes no more


def _known_format(v: str) -> str:
    if v not in FORMATS:
        raise ValueError(f"unknown format {v!r} (one of {sorted(FORMATS)})")
    return v


def _rollout_fits(v: int, info: ValidationInfo) -> int:
    """n_steps: the rollout of all envs (n_envs, an earlier field) is bounded."""
    n_envs = info.data.get("n_envs")
    if n_envs is not None and v * n_envs > MAX_ROLLOUT:
        raise ValueError(
            f"a rollout of n_steps * n_envs = {v * n_envs} observations is more than {MAX_ROLLOUT}"
        )
    return v


def _batch_in_rollout(v: int, info: ValidationInfo) -> int:
    """batch_size: at most one rollout (n_steps * n_envs, earlier fields)."""
    n_steps, n_envs = info.data.get("n_steps"), info.data.get("n_envs")
    if n_steps is not None and n_envs is not None and v > n_steps * n_envs:
        raise ValueError(f"{v} is more than a rollout (n_steps * n_envs = {n_steps * n_envs})")
    return v


Format = Annotated[str, Field(max_length=64), AfterValidator(_known_format)]
Steps = Annotated[int, Field(gt=0, le=MAX_STEPS)]
Games = Annotated[int, Field(gt=0, le=MAX_GAMES)]
Epochs = Annotated[int, Field(gt=0, le=1000)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Rate = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]  # learning rate, discount
Width = Annotated[int, Field(gt=0, le=MAX_WIDTH)]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
Envs = Annotated[int, Field(gt=0, le=256)]
Threads = Annotated[int, Field(gt=0, le=256)]
Workers = Annotated[int, Field(gt=0, le=256)]  # processes that step a batch's games
Decisions = Annotated[int, Field(gt=0, le=100_000)]  # a game's decision cap
ClipRange = Annotated[float, Field(gt=0, le=10, allow_inf_nan=False)]
RolloutSteps = Annotated[int, Field(gt=0, le=MAX_ROLLOUT), AfterValidator(_rollout_fits)]
BatchSize = Annotated[int, Field(gt=1, le=MAX_ROLLOUT), AfterValidator(_batch_in_rollout)]


# Where a run's networks train: "auto" is the GPU where PyTorch sees one, else the CPU.
# Policy files and checkpoints are written from CPU copies, so they load on either.
Device = Literal["auto", "cpu", "cuda"]


def torch_device(spec: str, where: str | None = None) -> Any:
    """The torch device of a config's `device` ("auto", "cpu" or "cuda"); "cuda" where
    PyTorch sees no GPU is one `error:` line (SystemExit) naming the config and the field."""
    if spec not in ("auto", "cpu", "cuda"):  # before importing torch: a typo answers at once
        raise SystemExit(
            f"error: {where or 'config'}: field device: {spec!r} is not one of auto, cpu, cuda"
        )
    import torch

    if spec == "cpu" or (spec == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        why = (
            "this PyTorch is built without CUDA"
            if torch.version.cuda is None
            else f"this PyTorch (CUDA {torch.version.cuda}) sees no GPU"
        )
        raise SystemExit(
            f"error: {where or 'config'}: field device: 'cuda' asked for, but {why}; "
            "use 'auto' (the GPU where there is one) or 'cpu'"
        )
    return torch.device("cuda")


def device_name(device: Any) -> str:
    """A run's hardware for its model card: "cpu", or "cuda (GPU NAME)"."""
    import torch

    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return str(device)


def config_error(where: str | None, e: ValidationError) -> SystemExit:
    """One `error: WHERE: field X: ...` line (SystemExit) for a config that fails validation;
    a check across fields names its field, one of a whole entry the message's subject."""
    errs = "; ".join(
        f"field {'.'.join(map(str, x['loc'])) or x['msg'].split(':')[0]}: {x['msg']}"
        for x in e.errors()
    )
    return SystemExit(f"error: {where or 'config'}: {errs}")


def run_script(main: Callable[[list[str] | None], int], argv: list[str] | None) -> int:
    """A training script's `main(argv)`: bad input (a SystemExit carrying an `error:` line,
    as `config_error` makes) is that one line on stderr and exit status 2, as argparse's own
    usage errors are; everything else propagates."""
    try:
        return main(argv)
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            return 2
        raise


def train_split_of_format(v: str, info: ValidationInfo) -> str:
    """A config's `decks: train` (the held-out benchmark's training decks) only with that
    split's format; used as the `decks` field's validator, after `format`."""
    from .heldout import load_split

    fmt = info.data.get("format")
    if v == "train" and fmt is not None and fmt != load_split().format:
        raise ValueError(f"'train' is the split of format {load_split().format!r}")
    return v
