"""A trained policy as an agent.

Specs: `policy:PATH` and `policy:default` (the policy shipped in
`mtg_env/data/policies/default.pt`). PATH is either a policy file written by
`export_policy` (`.pt`: the network's weights in float16 and its constructor arguments, a
few MB) or a full MaskablePPO checkpoint (`.zip`, with optimizer state, for resuming). A
file that can't be read is a clear `CheckpointError` naming it.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Any

import numpy as np

from mtg_env.engine import Action, Game, load_cards
from mtg_env.env.spaces import Layout

DEFAULT = Path(__file__).resolve().parent.parent / "mtg_env" / "data" / "policies" / "default.pt"
_cache: dict[str, Any] = {}


class CheckpointError(ValueError):
    """A policy checkpoint that is missing or unreadable."""


def export_policy(policy: Any, path: str | Path) -> None:
    """Write the policy network alone (float16 weights + constructor arguments), atomically."""
    import io as _io

    import torch

    from mtg_env.io import atomic_write_bytes

    buf = _io.BytesIO()
    state = {k: (v.half() if v.is_floating_point() else v) for k, v in policy.state_dict().items()}
    cls = type(policy)
    torch.save(
        {
            "state_dict": state,
            "data": policy._get_constructor_parameters(),
            "kind": "mtg_env.policy.v1",
            "class": f"{cls.__module__}:{cls.__qualname__}",
        },
        buf,
    )
    atomic_write_bytes(path, buf.getvalue())


def load_model(path: str | Path) -> Any:
    """The policy network (a MaskableActorCriticPolicy) from a `.pt` or `.zip` file."""
    p = Path(path)
    key = str(p.resolve())
    if key in _cache:
        return _cache[key]
    if not p.exists():
        raise CheckpointError(f"{p}: policy checkpoint not found")
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - the train extra is missing
        raise CheckpointError(f"{p}: loading a policy needs the 'train' extra ({e})") from None
    try:
        if p.suffix == ".zip":
            policy = MaskablePPO.load(p, device="cpu").policy
        else:
            saved = torch.load(p, map_location="cpu", weights_only=False)
            if not isinstance(saved, dict) or saved.get("kind") != "mtg_env.policy.v1":
                raise ValueError("not an mtg_env policy file")
            policy = _policy_class(saved.get("class"))(**saved["data"])
            policy.load_state_dict(
                {
                    k: (v.float() if v.is_floating_point() else v)
                    for k, v in saved["state_dict"].items()
                }
            )
        policy.set_training_mode(False)
    except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
        raise CheckpointError(
            f"{p}: not a readable policy checkpoint ({type(e).__name__}: {e})"
        ) from None
    _cache[key] = policy
    return policy


def _policy_class(name: str | None) -> Any:
    """Only the project's own policy classes may be named in a policy file."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if name in (None, f"{MaskableActorCriticPolicy.__module__}:MaskableActorCriticPolicy"):
        return MaskableActorCriticPolicy
    if name == "mtg_env.nets:SlotPolicy":
        from mtg_env.nets import SlotPolicy

        return SlotPolicy
    raise ValueError(f"unknown policy class {name!r}")


class _ObservingAgent(abc.ABC):
    """An agent that decides from the env's observation and mask (`act`); `choose` encodes
    them from an engine state and maps the chosen index back to an engine action."""

    needs_observation = True
    layout: Layout

    def reset(self) -> None:  # noqa: B027 - stateless between games; subclasses may override
        return None

    @abc.abstractmethod
    def act(self, observation: np.ndarray, mask: np.ndarray, info: Any = None) -> int: ...

    def choose(self, game: Game) -> Action:
        seat = game.current_player
        assert seat is not None
        obs = self.layout.observe(game, seat)
        mask, amap, _ = self.layout.mask_and_map(game, seat)
        return amap[self.act(obs, mask)]


class PolicyAgent(_ObservingAgent):
    """Acts with a trained policy: from the env's observation and mask (`act`) or from an
    engine state (`choose`, which encodes the observation itself)."""

    def __init__(
        self, model: Any, fmt: str = "classic", deterministic: bool = True, name: str = "policy"
    ) -> None:
        self.model = model
        self.deterministic = deterministic
        self.layout = Layout(load_cards(fmt))
        self.name = name
        n = model.observation_space.shape[0]
        if n != self.layout.n_obs:
            raise CheckpointError(
                f"{name}: the policy expects observations of size {n}, the "
                f"{fmt} format has {self.layout.n_obs}"
            )

    @classmethod
    def from_path(cls, path: str | Path, **kw: Any) -> PolicyAgent:
        return cls(load_model(path), name=str(path), **kw)

    def act(self, observation: np.ndarray, mask: np.ndarray, info: Any = None) -> int:
        a, _ = self.model.predict(
            observation, action_masks=mask.astype(bool), deterministic=self.deterministic
        )
        return int(a)


class RLlibPolicyAgent(_ObservingAgent):
    """Acts with the `main` module of an RLlib checkpoint (`scripts/train_rllib.py`):
    spec `policy:rllib:PATH`, PATH an algorithm checkpoint folder or one module's folder.
    Greedy: the most likely legal action."""

    def __init__(self, path: str | Path, fmt: str = "classic", module_id: str = "main") -> None:
        key = f"rllib:{Path(path).resolve()}:{module_id}"
        try:
            import torch

            from mtg_env.rllib import load_module
        except ImportError as e:
            raise CheckpointError(
                f"{path}: an RLlib policy needs the 'rllib' extra ({e})"
            ) from None
        if key not in _cache:
            try:
                _cache[key] = load_module(path, module_id)
            except Exception as e:  # noqa: BLE001 - any failure means an unreadable checkpoint
                raise CheckpointError(
                    f"{path}: not a readable RLlib checkpoint ({type(e).__name__}: {e})"
                ) from None
        self.module = _cache[key]
        self.module.eval()
        self._torch = torch
        self.layout = Layout(load_cards(fmt))
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
