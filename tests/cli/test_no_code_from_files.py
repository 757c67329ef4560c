"""No file the project loads can run code: for every path that loads a policy or a
checkpoint, a malicious pickle (whose unpickling would create a marker file) is refused
with one line naming the file, and the marker is never written. Pickled files load only
where the user says they trust them (--trust-pickle / trust_pickle=True)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from evil_files import EVIL_FILES, evil_plain_pickle, evil_rllib_dir, evil_sb3_zip, evil_torch_pt

ROOT = Path(__file__).resolve().parents[2]
MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)


def _refused(r: subprocess.CompletedProcess[str], name: str, marker: Path) -> None:
    assert not marker.exists(), "the file's code ran"
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stdout + r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and name in err[0] and "--trust-pickle" in err[0], err


@pytest.mark.parametrize("kind", sorted(EVIL_FILES))
def test_match_refuses_a_malicious_policy_file(tmp_path: Path, kind: str) -> None:
    name, make = EVIL_FILES[kind]
    marker = tmp_path / "MARKER"
    f = make(tmp_path / name, marker)
    r = _run([MTG_ENV, "match", f"policy:{f}", "random", "--games", "1"], tmp_path)
    _refused(r, name, marker)


def test_an_rllib_checkpoint_is_refused_without_trust(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    d = evil_rllib_dir(tmp_path / "ckpt", marker)
    r = _run([MTG_ENV, "match", f"policy:rllib:{d}", "random", "--games", "1"], tmp_path)
    _refused(r, "ckpt", marker)


@pytest.mark.parametrize("kind", sorted(EVIL_FILES))
def test_policy_convert_refuses_without_trust(tmp_path: Path, kind: str) -> None:
    name, make = EVIL_FILES[kind]
    marker = tmp_path / "MARKER"
    f = make(tmp_path / name, marker)
    r = _run([MTG_ENV, "policy", "convert", str(f), str(tmp_path / "out.safetensors")], tmp_path)
    _refused(r, name, marker)
    assert not (tmp_path / "out.safetensors").exists()


def test_tournament_refuses_a_malicious_policy_file(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    f = evil_torch_pt(tmp_path / "evil.pt", marker)
    out = tmp_path / "t"
    args = ["tournament", "--agents", f"random,policy:{f}", "--out", str(out), "--jobs", "2"]
    r = _run([MTG_ENV, *args], tmp_path)
    _refused(r, "evil.pt", marker)
    assert not out.exists()


def test_average_policies_refuses_a_malicious_policy_file(tmp_path: Path) -> None:
    from agents.policy import DEFAULT

    marker = tmp_path / "MARKER"
    f = evil_torch_pt(tmp_path / "evil.pt", marker)
    out = tmp_path / "avg.safetensors"
    script = str(ROOT / "scripts" / "average_policies.py")
    r = _run([sys.executable, script, "--out", str(out), str(DEFAULT), str(f)], tmp_path)
    _refused(r, "evil.pt", marker)
    assert not out.exists()


def test_the_api_refuses_unless_trusted(tmp_path: Path) -> None:
    """`load_model` itself: pickled files are refused by default. Trusted, an old `.pt`
    policy file is still read as data only (its objects are inert stand-ins), while an
    sb3 `.zip` goes through sb3's own loader, which unpickles: proving that the refusal is
    what kept that code out."""
    from agents.policy import CheckpointError, load_model

    marker = tmp_path / "MARKER"
    for make, name in ((evil_plain_pickle, "evil.pt"), (evil_torch_pt, "evil2.pt")):
        f = make(tmp_path / name, marker)
        with pytest.raises(CheckpointError, match=r"\.pt: .*unpickles"):
            load_model(f)
        with pytest.raises(CheckpointError, match="not a readable policy checkpoint"):
            load_model(f, trust_pickle=True)
        assert not marker.exists(), name
    z = evil_sb3_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(CheckpointError, match=r"evil\.zip: .*unpickles"):
        load_model(z)
    assert not marker.exists()
    with pytest.raises(CheckpointError, match="not a readable policy checkpoint"):
        load_model(z, trust_pickle=True)
    assert marker.exists()


def test_a_policy_file_description_names_only_known_classes(tmp_path: Path) -> None:
    """The description in a safetensors policy is checked field by field: a class or an
    activation outside the fixed lists is refused, naming the field."""
    from safetensors.torch import load, save

    from agents.policy import DEFAULT, CheckpointError, load_model
    from mtg_env.io import read_bytes

    data = read_bytes(DEFAULT)
    n = int.from_bytes(data[:8], "little")
    meta = json.loads(data[8 : 8 + n])["__metadata__"]
    spec = json.loads(meta["mtg_env"])
    for field, value in (("activation", "os.system"), ("policy", "builtins:eval")):
        bad = tmp_path / f"bad_{field}.safetensors"
        bad.write_bytes(save(load(data), metadata={"mtg_env": json.dumps({**spec, field: value})}))
        with pytest.raises(CheckpointError, match=rf"bad_{field}.safetensors: .*field {field}"):
            load_model(bad)


def test_trusted_conversion_gives_a_data_only_file_that_plays_the_same(tmp_path: Path) -> None:
    """A pickled policy the user trusts converts to the data-only format, weights equal."""
    import torch

    from agents.policy import DEFAULT, load_model

    policy = load_model(DEFAULT)
    old = tmp_path / "old.pt"
    cls = type(policy)
    buf = io.BytesIO()
    torch.save(
        {
            "state_dict": {
                k: v.half() if v.is_floating_point() else v for k, v in policy.state_dict().items()
            },
            "data": policy._get_constructor_parameters(),
            "kind": "mtg_env.policy.v1",
            "class": f"{cls.__module__}:{cls.__qualname__}",
        },
        buf,
    )
    old.write_bytes(buf.getvalue())
    out = tmp_path / "new.safetensors"
    r = _run([MTG_ENV, "--trust-pickle", "policy", "convert", str(old), str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    a, b = policy.state_dict(), load_model(out).state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_distill_search_refuses_a_malicious_student(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    f = evil_torch_pt(tmp_path / "evil.pt", marker)
    script = str(ROOT / "scripts" / "distill_search.py")
    out = tmp_path / "d"
    r = _run([sys.executable, script, "--smoke", "--init", str(f), "--out", str(out)], tmp_path)
    _refused(r, "evil.pt", marker)
    assert not out.exists()


def test_export_policy_refuses_a_pickled_training_checkpoint(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    f = evil_torch_pt(tmp_path / "checkpoint.pt", marker)
    script = str(ROOT / "scripts" / "export_policy.py")
    out = tmp_path / "p.safetensors"
    r = _run([sys.executable, script, str(f), str(out)], tmp_path)
    assert not marker.exists(), "the file's code ran"
    assert r.returncode == 2 and "Traceback" not in r.stderr and "checkpoint.pt" in r.stderr
    assert not out.exists()


# ------------------------------------------------------------ plug-in specs inside files

# A plug-in file whose import creates the marker: naming it in a spec that gets loaded runs
# it. Files that name agents must refuse such a spec before anything is built.
EVIL_PLUGIN = """
open({marker!r}, "w").close()


class X:
    def choose(self, game):
        return game.legal_actions()[0]
"""


def evil_plugin(tmp_path: Path, marker: Path) -> str:
    """The spec `EVIL.py:X` of a real plug-in file that creates `marker` when imported."""
    (tmp_path / "EVIL.py").write_text(EVIL_PLUGIN.format(marker=str(marker)))
    return "EVIL.py:X"


def _refused_spec(r: subprocess.CompletedProcess[str], marker: Path, *names: str) -> None:
    assert not marker.exists(), "the plug-in named in a file ran"
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stdout + r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    for n in (*names, "EVIL.py:X", "plug-in spec"):
        assert n in err[0], (n, err[0])


@pytest.mark.parametrize("deck_set", ["classic", "core-heldout"])
def test_evaluate_refuses_a_plugin_anchor(tmp_path: Path, deck_set: str) -> None:
    """An anchor in any deck set's entry of the anchors file (the one evaluated or not)."""
    marker = tmp_path / "MARKER"
    spec = evil_plugin(tmp_path, marker)
    anchors = tmp_path / "anchors.yaml"
    other = "core-heldout" if deck_set == "classic" else "classic"
    anchors.write_text(
        f"{deck_set}:\n  anchors:\n    - {{spec: random, rating: 1000}}\n"
        f"    - {{spec: '{spec}', rating: 1400}}\n"
        f"{other}:\n  anchors:\n    - {{spec: random, rating: 1000}}\n"
    )
    out = tmp_path / "r.json"
    args = ["evaluate", "random", "--games", "2", "--anchors", str(anchors), "--out", str(out)]
    r = _run([MTG_ENV, *args], tmp_path)
    _refused_spec(r, marker, "anchors.yaml", f"{deck_set}.anchors[1].spec")
    assert not out.exists() and not (tmp_path / "r.json.games.jsonl").exists()


def test_leaderboard_refuses_a_plugin_anchor(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    spec = evil_plugin(tmp_path, marker)
    anchors = tmp_path / "anchors.yaml"
    anchors.write_text(
        "classic:\n  anchors:\n    - {spec: random, rating: 1000}\n"
        f"core-heldout:\n  anchors:\n    - {{spec: random, rating: 1000}}\n"
        f"    - {{spec: '{spec}', rating: 1400}}\n"
    )
    out = tmp_path / "lb"
    script = [sys.executable, str(ROOT / "scripts" / "leaderboard.py"), "--smoke"]
    r = _run([*script, "--out", str(out), "--anchors-file", str(anchors)], tmp_path)
    _refused_spec(r, marker, "anchors.yaml", "core-heldout.anchors[1].spec")
    assert not out.exists()  # refused before the first row played


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("teacher: 'EVIL.py:X'\n", "field teacher"),
        ("opponents: {heuristic: 1.0, 'EVIL.py:X': 1.0}\n", "field opponents"),
    ],
    ids=["teacher", "opponents"],
)
def test_distill_search_refuses_plugin_specs_in_its_config(
    tmp_path: Path, body: str, field: str
) -> None:
    marker = tmp_path / "MARKER"
    evil_plugin(tmp_path, marker)
    config = tmp_path / "distill.yaml"
    config.write_text(body)
    script = str(ROOT / "scripts" / "distill_search.py")
    out = tmp_path / "d"
    args = [sys.executable, script, "--config", str(config), "--init", "p.safetensors"]
    r = _run([*args, "--out", str(out)], tmp_path)
    _refused_spec(r, marker, "distill.yaml", field)
    assert not out.exists()


def test_resumed_run_files_naming_a_plugin_never_run_it(tmp_path: Path) -> None:
    """A tournament's config.json and an evaluation's progress file are read as JSON: the
    plug-in spec stored there is compared as text with the command line's, never loaded."""
    marker = tmp_path / "MARKER"
    spec = evil_plugin(tmp_path, marker)
    t = tmp_path / "t"
    t.mkdir()
    (t / "config.json").write_text(json.dumps({"kind": "mtg_env.tournament.v1", "agents": [spec]}))
    args = ["tournament", "--agents", "random,heuristic", "--out", str(t), "--games", "2"]
    r = _run([MTG_ENV, *args], tmp_path)
    assert r.returncode == 2 and "another configuration" in r.stderr, r.stderr
    prog = tmp_path / "r.json.games.jsonl"
    prog.write_text(json.dumps({"config": {"kind": "mtg_env.evaluate.v1", "agent": spec}}) + "\n")
    r = _run([MTG_ENV, "evaluate", "random", "--games", "2", "--out", "r.json"], tmp_path)
    assert r.returncode == 2 and "another configuration" in r.stderr, r.stderr
    assert not marker.exists()
