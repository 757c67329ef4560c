"""Atomic file writes: every results file the project writes (replays, tournament CSVs,
checkpoints) goes to a temporary file in the same folder and is renamed into place, so an
interrupted run never leaves a half-written file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_append_line(path: str | Path, line: str) -> None:
    """Append one line (rewrite-and-rename, so a reader never sees a partial line)."""
    p = Path(path)
    old = p.read_bytes() if p.exists() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    atomic_write_bytes(p, old + line.rstrip("\n").encode("utf-8") + b"\n")


def load_config_yaml(path: str | Path | None, cls: Any) -> Any:
    """A config dataclass (pydantic) from a YAML mapping, or its defaults for None; every
    problem is one `error: FILE: ...` line (SystemExit), naming the field when it is one."""
    if path is None:
        return cls()
    import yaml
    from pydantic import ValidationError

    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text()) or {}
        if not isinstance(raw, dict):
            raise SystemExit(f"error: {p}: a config is a YAML mapping")
        return cls(**raw)
    except FileNotFoundError:
        raise SystemExit(f"error: {p}: config file not found") from None
    except yaml.YAMLError as e:
        raise SystemExit(f"error: {p}: not valid YAML: {e}") from None
    except ValidationError as e:
        errs = "; ".join(f"field {'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
        raise SystemExit(f"error: {p}: {errs}") from None
