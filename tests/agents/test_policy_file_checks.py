"""A policy file's description is checked before any network is built: every size field is
bounded, the format is one of the package's, and the description must name the tensors in
the file with their shapes (read from the safetensors header). A description edited alone
is one `CheckpointError` naming the file and the field, and nothing is built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from policy_files import (
    SMALL_SPECS,
    edited_copy,
    policy_description,
    small_spec,
    write_small_policy,
)

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The networks `load_model` builds (by policy class), with the builders still working:
    an entry means a network was built."""
    import agents.policy as policy

    made: list[str] = []
    real = policy.build

    def counting(spec: Any) -> Any:
        made.append(spec.policy)
        return real(spec)

    monkeypatch.setattr(policy, "build", counting)
    return made


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small policy file of each class, and the shipped default."""
    from agents.policy import DEFAULT

    d = tmp_path_factory.mktemp("policies")
    out = {k: write_small_policy(d / f"{k}.safetensors", k) for k in SMALL_SPECS}
    return {**out, "default": DEFAULT}


@pytest.mark.parametrize("kind", sorted(SMALL_SPECS))
def test_the_expected_weights_are_the_built_networks_weights(kind: str) -> None:
    """`expected_weights` works the shapes out without building: it must stay what the
    network classes build (names, and every dimension)."""
    from agents.policy import build, expected_weights

    for spec in (small_spec(kind), small_spec(kind).model_copy(update={"hidden": None})):
        built = {k: tuple(v.shape) for k, v in build(spec).state_dict().items()}
        want = {k: tuple(n for n, _ in dims) for k, dims in expected_weights(spec).items()}
        assert want == built


def _edit(description: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    out = dict(description)
    for k, v in change.items():
        if k.startswith("extractor."):
            out["extractor"] = {**out["extractor"], k.split(".", 1)[1]: v}
        else:
            out[k] = v
    return out


# (file, the edit to its description, the field the error names)
EDITS = [
    # Sizes within the bounds but not the weights': refused by the weights' shapes.
    ("default", {"hidden": 4096}, "hidden"),
    ("default", {"extractor.entity_dim": 1024}, "extractor.entity_dim"),
    ("default", {"extractor.global_dim": 4096}, "extractor.global_dim"),
    ("default", {"extractor.race_features": False}, "extractor.race_features"),
    ("default", {"policy": "mlp", "net_arch": [4096, 4096]}, "policy"),
    ("default", {"observation_size": 99}, "observation_size"),
    ("default", {"action_size": 4096}, "action_size"),
    ("mlp", {"net_arch": [4096, 4096]}, "net_arch"),
    ("mlp", {"net_arch": {"pi": [16, 8], "vf": [4096]}}, "net_arch"),
    ("mlp", {"net_arch": [16]}, "net_arch"),
    ("mlp", {"observation_size": 100_000}, "observation_size"),
    ("mlp", {"action_size": 60_000}, "action_size"),
    ("mlp_entity", {"extractor.entity_dim": 1024}, "extractor.entity_dim"),
    ("mlp_entity", {"extractor.kind": "flatten"}, "extractor.kind"),
    ("candidate", {"hidden": 4096}, "hidden"),
    ("candidate", {"extractor.entity_dim": 1024}, "extractor.entity_dim"),
    ("candidate", {"extractor.card_embedding": 256}, "extractor.card_embedding"),
    ("candidate", {"extractor.card_embedding": 0}, "extractor.card_embedding"),
    # Out of bounds: refused by the description's own check.
    ("default", {"net_arch": [8192, 8192]}, "net_arch"),
    ("default", {"net_arch": [64] * 17}, "net_arch"),
    ("default", {"hidden": 100_000}, "hidden"),
    ("default", {"extractor.entity_dim": 4096}, "extractor.entity_dim"),
    ("default", {"extractor.global_dim": 65536}, "extractor.global_dim"),
    ("default", {"observation_size": 10**9}, "observation_size"),
    ("default", {"action_size": 10**7}, "action_size"),
    ("default", {"observation_high": float("inf")}, "observation_high"),
    ("default", {"optimizer_kwargs": {f"k{i}": 1.0 for i in range(100)}}, "optimizer_kwargs"),
    ("candidate", {"extractor.card_embedding": 4096}, "extractor.card_embedding"),
]


@pytest.mark.parametrize(
    ("kind", "change", "field"), EDITS, ids=[f"{k}-{'+'.join(c)}" for k, c, _ in EDITS]
)
def test_an_edited_description_is_refused_before_any_network_is_built(
    tmp_path: Path,
    files: dict[str, Path],
    builds: list[str],
    kind: str,
    change: dict[str, Any],
    field: str,
) -> None:
    from agents.policy import CheckpointError, load_model

    src = files[kind]
    bad = edited_copy(src, tmp_path / "edited.safetensors", _edit(policy_description(src), change))
    with pytest.raises(CheckpointError, match=rf"edited\.safetensors: .*field {field}\b") as e:
        load_model(bad)
    assert "\n" not in str(e.value)
    assert builds == [], "a network was built from the edited description"


@pytest.mark.parametrize("kind", ["mlp", "candidate"])
def test_an_unedited_copy_loads(
    tmp_path: Path, files: dict[str, Path], builds: list[str], kind: str
) -> None:
    """The other side of the test above: the same copy, description unchanged, loads (and
    is built once), so the refusals come from the edits."""
    from agents.policy import load_model

    src = files[kind]
    same = edited_copy(src, tmp_path / "same.safetensors", policy_description(src))
    assert load_model(same).mtg_spec.policy == small_spec(kind).policy
    assert builds == [small_spec(kind).policy]


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("game_format", "../../tmp/x"),
        ("game_format", "/etc/passwd"),
        ("game_format", "modern"),
        ("extractor.format", "../../tmp/x"),
    ],
)
def test_a_game_format_outside_the_package_is_refused(
    tmp_path: Path, files: dict[str, Path], builds: list[str], where: str, value: str
) -> None:
    """The format is a name from the package's formats, never a path: checked in the
    description, before any card file is looked for."""
    from agents.policy import CheckpointError, load_model

    src = files["default"]
    bad = edited_copy(
        src, tmp_path / "fmt.safetensors", _edit(policy_description(src), {where: value})
    )
    with pytest.raises(CheckpointError, match=rf"fmt\.safetensors: .*field {where}:") as e:
        load_model(bad)
    assert "is not a rules format" in str(e.value)
    assert builds == []


def test_weights_that_are_not_numbers_or_a_changed_index_table_are_refused(
    tmp_path: Path, files: dict[str, Path]
) -> None:
    """Weights of the right shapes still have to be usable: no NaN or infinity, and the
    slot head's index table is the one the format gives (other values index outside the
    logits)."""
    import torch
    from safetensors.torch import load, save

    from agents.policy import CheckpointError, load_model

    src = files["slot"]
    meta = {"mtg_env": json.dumps(policy_description(src))}
    for name, edit, msg in (
        ("nan", lambda t: t["value_net.weight"].fill_(float("nan")), "not finite"),
        ("index", lambda t: t["action_net.flat_idx"].add_(10**6), "action_net.flat_idx"),
    ):
        tensors = load(src.read_bytes())
        edit(tensors)
        bad = tmp_path / f"{name}.safetensors"
        bad.write_bytes(save(tensors, metadata=meta))
        with pytest.raises(CheckpointError, match=rf"{name}\.safetensors: .*{msg}"):
            load_model(bad)
    assert torch.equal(
        load(src.read_bytes())["action_net.flat_idx"], load_model(src).action_net.flat_idx
    )


def test_the_command_line_refuses_an_edited_policy_in_one_line(
    tmp_path: Path, files: dict[str, Path]
) -> None:
    src = files["default"]
    edited = _edit(policy_description(src), {"hidden": 4096})
    bad = edited_copy(src, tmp_path / "big.safetensors", edited)
    r = subprocess.run(
        [MTG_ENV, "match", f"policy:{bad}", "random", "--games", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stdout + r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:"), err
    assert "big.safetensors" in err[0] and "field hidden" in err[0], err


def test_a_policy_in_another_format_is_refused_from_its_header(
    tmp_path: Path, builds: list[str]
) -> None:
    """The file's header says which format it plays, so a spec in the wrong format is one
    line before any network is built; a file that is not a policy says nothing here and is
    left to `load_model`'s own error."""
    from agents import make_agent
    from agents.policy import DEFAULT, CheckpointError, file_format

    assert file_format(DEFAULT) == "classic"
    for junk in (b"", b"\x00" * 8, b"not a policy file at all"):
        (tmp_path / "junk.safetensors").write_bytes(junk)
        assert file_format(tmp_path / "junk.safetensors") is None
    assert file_format(tmp_path / "missing.safetensors") is None
    with pytest.raises(CheckpointError, match="plays the classic format, not pocket"):
        make_agent("policy:default", fmt="pocket")
    with pytest.raises(CheckpointError, match="plays the classic format, not adventure"):
        make_agent(f"policy:{DEFAULT}", fmt="adventure")
    assert builds == []
