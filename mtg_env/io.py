"""Files in and out, in one place.

Writing: `write_bytes` is the one write helper every results file goes through (replays,
CSVs, JSON summaries, policies, checkpoints, pages). It is atomic for regular files (a
temporary file in the same folder, renamed into place, so an interrupted run never leaves
half a file); it refuses an existing path that is not a regular file (a directory, a
device, a FIFO, a socket) instead of replacing it; it follows a symlink and writes its
target rather than replacing the link; new files get the permissions the umask allows, and
a file that is replaced keeps its mode.

An output is never one of the command's inputs: `check_not_input` refuses an output path
that is the same file as an input (by its path, a symlink or a hard link), before any work.

Reading: `read_text`, `load_yaml` and `load_json` read a user's input file and turn every
way it can be unreadable (missing, a directory, no permission, not UTF-8, too large, nested
too deeply, malformed) into one `InputFileError` line that names the file. `read_lines`
reads a line-based file (a text deck list) with its line length and line count bounded as
it reads: a file past either bound is refused at the first line past it, without reading
the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .engine.files import (  # noqa: F401 - the readers, re-exported: one place for file I/O
    MAX_INPUT_BYTES,
    InputFileError,
    file_kind,
    load_json,
    load_yaml,
    parse_json,
    read_bytes,
    read_lines,
    read_text,
)


class OutputPathError(ValueError):
    """A results path that can't be written (or must not be replaced); one line naming it."""


# ---------------------------------------------------------------------------- writing


def _target(path: Path) -> Path:
    """The file a write to `path` lands in: the final target when `path` is a symlink."""
    if path.is_symlink():
        return Path(os.path.realpath(path))
    return path


def check_writable(path: str | Path) -> Path:
    """Refuse, before any work is done, a results path that `write_bytes` would refuse;
    returns the file that will be written."""
    p = Path(path)
    target = _target(p)
    try:
        st = target.stat()
    except FileNotFoundError:
        return target
    except OSError as e:
        raise OutputPathError(f"{p}: can't be written ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise OutputPathError(
            f"{p}: exists and is {file_kind(st.st_mode)}; results are written only to a regular "
            "file or a new path (nothing was written)"
        )
    return target


def check_not_input(out: str | Path, inputs: Iterable[str | Path], option: str = "--out") -> None:
    """Refuse, before any work is done, an output path that is the same file as one of the
    command's inputs (`os.path.samefile`: the same path, a symlink to it or a hard link), so
    that writing the result never replaces what it was made from. Paths that don't exist
    (yet) are not the same file as anything."""
    for src in inputs:
        try:
            same = os.path.samefile(out, src)
        except (OSError, ValueError):  # missing, unreadable, or a path with a NUL in it
            continue
        if same:
            raise OutputPathError(
                f"{out}: {option} is the input file {src} (the same file); give another path "
                "(nothing was written)"
            )


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically (see the module docstring for the rules)."""
    p = Path(path)
    target = check_writable(p)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputPathError(f"{p}: its folder {target.parent} is not a directory") from None
    except OSError as e:
        raise OutputPathError(f"{p}: can't create its folder ({e.strerror})") from None
    tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
    try:
        # 0o666 through os.open: the process umask applies, as for any new file.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        raise OutputPathError(f"{p}: can't be written ({e.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))  # a replaced file keeps its mode
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise OutputPathError(f"{p}: can't be written ({e.strerror})") from None
        raise


def remove_stale_temps(folder: str | Path, names: tuple[str, ...]) -> int:
    """Remove temporary files that `write_bytes` left for these file names when a process
    was killed mid-write (SIGKILL leaves no time to clean up); returns how many. Only this
    helper's own pattern is touched: `.NAME.<8 hex digits>.tmp`."""
    import re

    pattern = re.compile(r"^\.(" + "|".join(re.escape(n) for n in names) + r")\.[0-9a-f]{8}\.tmp$")
    removed = 0
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return 0
    for f in entries:
        if pattern.match(f.name) and f.is_file() and not f.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                f.unlink()
                removed += 1
    return removed


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=1) + "\n")


# The names the project used before the helper refused non-regular files; same behaviour.
atomic_write_bytes = write_bytes
atomic_write_text = write_text


def atomic_append_line(path: str | Path, line: str) -> None:
    """Append one line (rewrite-and-rename, so a reader never sees a partial line)."""
    target = check_writable(path)
    old = target.read_bytes() if target.exists() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    write_bytes(path, old + line.rstrip("\n").encode("utf-8") + b"\n")


def load_config_yaml(path: str | Path | None, cls: Any) -> Any:
    """A config dataclass (pydantic) from a YAML mapping, or its defaults for None; every
    problem is one `error: FILE: ...` line (SystemExit), naming the field when it is one."""
    if path is None:
        return cls()
    from pydantic import ValidationError

    p = Path(path)
    try:
        raw = load_yaml(p, "config file")
    except InputFileError as e:
        raise SystemExit(f"error: {e}") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise SystemExit(f"error: {p}: a config is a YAML mapping")
    bad = [k for k in raw if not isinstance(k, str)]
    if bad:
        raise SystemExit(f"error: {p}: field {bad[0]!r}: field names are strings")
    try:
        return cls(**raw)
    except ValidationError as e:
        errs = "; ".join(f"field {'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
        raise SystemExit(f"error: {p}: {errs}") from None
