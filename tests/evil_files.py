"""Files that would run code if loaded: a pickle whose unpickling creates a marker file, in
every container the project could be handed (a torch checkpoint, a plain pickle, an sb3
zip, an RLlib module folder). The tests that check nothing loads them build them here."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path


class _Evil:
    """Unpickling this calls open(marker, "w"): the marker file appears."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple:
        return (open, (self.marker, "w"))


def evil_torch_pt(path: Path, marker: Path) -> Path:
    import torch

    torch.save({"kind": "mtg_env.policy.v1", "data": _Evil(marker)}, path)
    return path


def evil_plain_pickle(path: Path, marker: Path) -> Path:
    path.write_bytes(pickle.dumps(_Evil(marker)))
    return path


def evil_sb3_zip(path: Path, marker: Path) -> Path:
    """An sb3 checkpoint whose `data` holds a serialized (pickled) object, as sb3 writes
    the policy class: sb3's loader unpickles it."""
    blob = base64.b64encode(pickle.dumps(_Evil(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("_stable_baselines3_version", "2.9.2")
    return path


def evil_rllib_dir(path: Path, marker: Path) -> Path:
    path.mkdir()
    (path / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(_Evil(marker)))
    (path / "module_state.pt").write_bytes(pickle.dumps(_Evil(marker)))
    return path


EVIL_FILES = {
    "torch .pt": ("evil.pt", evil_torch_pt),
    "plain pickle renamed .pt": ("evil.pt", evil_plain_pickle),
    "sb3 .zip": ("evil.zip", evil_sb3_zip),
}
