"""The one write helper and the input reader (mtg_env.io)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mtg_env.io import (
    InputFileError,
    OutputPathError,
    atomic_append_line,
    load_json,
    load_yaml,
    read_text,
    write_bytes,
    write_text,
)


def test_write_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "out.json"
    write_text(p, "one")
    write_text(p, "two")
    assert p.read_text() == "two"
    assert sorted(x.name for x in p.parent.iterdir()) == ["out.json"]


def test_a_new_file_honours_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "a.txt", "x")
        os.umask(0o077)
        write_text(tmp_path / "b.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o600


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    p = tmp_path / "r.csv"
    p.write_text("old")
    p.chmod(0o640)
    write_text(p, "new")
    assert p.read_text() == "new" and stat.S_IMODE(p.stat().st_mode) == 0o640


def test_a_symlink_is_followed_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    # A dangling link: its target is created, the link stays.
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "made.txt")
    write_text(dangling, "x")
    assert dangling.is_symlink() and (tmp_path / "made.txt").read_text() == "x"


def test_a_directory_is_refused_and_kept(tmp_path: Path) -> None:
    d = tmp_path / "adir"
    d.mkdir()
    (d / "inside").write_text("keep")
    with pytest.raises(OutputPathError, match=r"adir: exists and is a directory"):
        write_text(d, "x")
    assert (d / "inside").read_text() == "keep"


def test_a_fifo_is_refused_and_kept(tmp_path: Path) -> None:
    f = tmp_path / "fifo"
    os.mkfifo(f)
    with pytest.raises(OutputPathError, match=r"fifo: exists and is a FIFO"):
        write_bytes(f, b"x")
    assert stat.S_ISFIFO(f.stat().st_mode)


def test_a_device_is_refused_and_kept() -> None:
    # /dev/null is a character device on every POSIX system; the check comes before any
    # write, so nothing is written to it either way.
    with pytest.raises(OutputPathError, match=r"/dev/null: exists and is a device"):
        write_text("/dev/null", "x")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    with pytest.raises(OutputPathError, match="is a device"):
        write_text(link, "x")
    assert link.is_symlink()


def test_a_folder_nobody_may_write_is_one_line() -> None:
    # /proc refuses new files even to root, so this runs as any user.
    with pytest.raises(OutputPathError, match=r"/proc/mtg_env_results.txt: can't be written"):
        write_text("/proc/mtg_env_results.txt", "x")


def test_a_folder_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputPathError, match=r"f/x.txt: can't be written \(Not a directory"):
        write_text(tmp_path / "f" / "x.txt", "x")


def test_append_line_keeps_what_was_there(tmp_path: Path) -> None:
    p = tmp_path / "g.csv"
    atomic_append_line(p, "a")
    atomic_append_line(p, "b\n")
    assert p.read_text() == "a\nb\n"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.yaml", "missing.yaml: thing not found"),
        (lambda d: d, "is a directory, not a thing"),
        (lambda d: _write(d / "latin1.yaml", b"name: caf\xe9\n"), "latin1.yaml: not UTF-8"),
    ],
)
def test_unreadable_input_is_one_line_naming_the_file(
    tmp_path: Path, make: object, message: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(InputFileError, match=message):
        read_text(path, "thing")


def test_deeply_nested_yaml_and_json_are_one_line(tmp_path: Path) -> None:
    y = _write(tmp_path / "deep.yaml", b"[" * 100_000 + b"]" * 100_000)
    j = _write(tmp_path / "deep.json", b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(InputFileError, match=r"deep.yaml: nested too deeply"):
        load_yaml(y)
    with pytest.raises(InputFileError, match=r"deep.json: nested too deeply"):
        load_json(j)


def test_yaml_that_would_build_objects_is_refused(tmp_path: Path) -> None:
    evil = _write(tmp_path / "evil.yaml", b"!!python/object/apply:os.system ['true']\n")
    with pytest.raises(InputFileError, match="evil.yaml: not valid YAML"):
        load_yaml(evil)


def test_malformed_yaml_and_json_name_file_and_line(tmp_path: Path) -> None:
    y = _write(tmp_path / "bad.yaml", b"a: [1, 2\nb: 3\n")
    j = _write(tmp_path / "bad.json", b'{"a": 1,,}')
    with pytest.raises(InputFileError, match=r"bad.yaml: not valid YAML \(line \d+"):
        load_yaml(y)
    with pytest.raises(InputFileError, match=r"bad.json: not valid JSON \(line 1, column 9\)"):
        load_json(j)


def _write(p: Path, data: bytes) -> Path:
    p.write_bytes(data)
    return p


def test_stale_temporary_files_of_the_helper_are_removed_and_nothing_else(tmp_path: Path) -> None:
    from mtg_env.io import remove_stale_temps

    stale = tmp_path / ".games.csv.0a1b2c3d.tmp"
    stale.write_text("half")
    keep = [tmp_path / ".games.csv.notours.tmp", tmp_path / "games.csv", tmp_path / ".x.tmp"]
    for k in keep:
        k.write_text("keep")
    assert remove_stale_temps(tmp_path, ("games.csv",)) == 1
    assert not stale.exists() and all(k.read_text() == "keep" for k in keep)
