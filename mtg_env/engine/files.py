"""Reading a user's input files (cards, decks, scenarios, configs, replays): every way a file
can be unreadable (missing, a directory or device, no permission, not UTF-8, too large,
nested too deeply, malformed) is one `InputFileError` line that names the file. Part of the
engine so that it reads its own data files the same way and imports nothing outside itself;
`mtg_env.io` re-exports these.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any, Final

import yaml

# Input files are small (cards, decks, scenarios, configs, replays); anything bigger is
# not one of them, and reading it whole would only use up memory.
MAX_INPUT_BYTES: Final = 64 * 1024 * 1024

# libyaml's parser (PyYAML's C extension, in PyYAML's wheels) builds the same nodes as the
# pure-Python one eight times faster: the card set and the decks load in 0.4 s instead of
# 3.3 s, at the start of every command and every worker process. It bounds the nesting depth
# itself (1,000 levels, an error rather than a deep recursion). The pure-Python parser is
# the fallback for a PyYAML built without libyaml.
_YAML_LOADER: Final[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class InputFileError(ValueError):
    """An input file that can't be read or parsed; the message is one line naming it."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: str | Path, what: str = "file", max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    p = Path(path)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{p}: is a directory, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{p}: is {file_kind(st.st_mode)}, not a {what}")
        if st.st_size > max_bytes:
            raise InputFileError(
                f"{p}: {st.st_size:,} bytes is too large for a {what} (at most {max_bytes:,}; "
                "nothing was read)"
            )
        return p.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"{p}: {what} not found") from None
    except PermissionError:
        raise InputFileError(f"{p}: permission denied (can't read the {what})") from None
    except OSError as e:
        raise InputFileError(f"{p}: can't read the {what} ({e.strerror})") from None


def read_text(path: str | Path, what: str = "file", max_bytes: int = MAX_INPUT_BYTES) -> str:
    data = read_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{path}: not UTF-8 text (byte {e.start})") from None


# YAML aliases (`*a`) reuse a node: a few lines of them can stand for billions of values (an
# "alias bomb"), which every reader that walks the data (validation, error messages) expands.
# Input files need no more than this many values beyond their own nodes, and never an alias
# inside the node it names.
MAX_ALIAS_EXPANSION: Final = 100_000


def _check_aliases(root: yaml.Node) -> str | None:
    """Why the node graph can't be read as a tree (a recursive alias, or too many values once
    aliases are expanded), or None. One pass over the distinct nodes."""
    size: dict[int, int] = {}  # node id -> values in its expanded tree
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1
            for child in _children(node):
                total += size[id(child)]
            size[key] = total
            continue
        if key in size:
            continue
        if key in on_path:
            return "an alias inside the node it refers to (a recursive structure)"
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                return "an alias inside the node it refers to (a recursive structure)"
            if id(child) not in size:
                stack.append((child, False))
    expanded, distinct = size[id(root)], len(size)
    if expanded - distinct > MAX_ALIAS_EXPANSION:
        return (
            f"its aliases stand for {expanded:,} values (at most {MAX_ALIAS_EXPANSION:,} more "
            f"than the file's {distinct:,} nodes)"
        )
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def safe_load_text(text: str, path: str | Path = "<text>", what: str = "YAML file") -> Any:
    """`yaml.safe_load` with the alias bound above (plain data only; no tags that build
    objects). Errors are `InputFileError` naming `path`."""
    try:
        loader = _YAML_LOADER(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            why = _check_aliases(node)
            if why is not None:
                raise InputFileError(f"{path}: not a {what}: {why}")
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply to be a {what}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        if "maximum nesting depth" in problem:  # libyaml's own bound on nesting
            raise InputFileError(f"{path}: nested too deeply to be a {what}") from None
        raise InputFileError(f"{path}: not valid YAML{where}: {problem}") from None


def load_yaml(path: str | Path, what: str = "YAML file", max_bytes: int = MAX_INPUT_BYTES) -> Any:
    """A YAML file, parsed safely (plain data only; no tags that build objects; aliases
    bounded, see MAX_ALIAS_EXPANSION); a file over `max_bytes` is refused unread."""
    return safe_load_text(read_text(path, what, max_bytes), path, what)


# How surrogateescape decodes a byte that is not UTF-8 (U+DC80..U+DCFF), written with chr():
# the compiled build takes no surrogate in a string literal.
_BAD_BYTE: Final = re.compile(f"[{chr(0xDC80)}-{chr(0xDCFF)}]")


def read_lines(path: str | Path, what: str, max_lines: int, max_line_chars: int) -> str:
    """A line-based text file (UTF-8; any line ending), read one bounded line at a time:
    a line longer than `max_line_chars` characters or a line past `max_lines` is one
    `InputFileError` naming the file and the line, and the file is not read past it (a
    60 MB file of one line costs one line's bound, not 60 MB and what parsing it builds).
    Every other way the file can't be read is the same one line as `read_text`'s."""
    p = Path(path)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{p}: is a directory, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{p}: is {file_kind(st.st_mode)}, not a {what}")
        lines: list[str] = []
        # newline=None: "\r\n" and "\r" end a line as "\n" does, so no line ending hides a
        # long line from the bound. surrogateescape: a byte that is not UTF-8 is found in
        # its own line (a strict decoder fails on the whole chunk it reads ahead).
        with p.open(encoding="utf-8", errors="surrogateescape", newline=None) as fh:
            while True:
                lineno = len(lines) + 1
                line = fh.readline(max_line_chars + 2)  # the line, its "\n" and one more
                if not line:
                    return "".join(lines)
                bad = _BAD_BYTE.search(line)
                if bad is not None:
                    raise InputFileError(f"{p}:{lineno}: not UTF-8 text (column {bad.start() + 1})")
                if len(line.rstrip("\n")) > max_line_chars:
                    raise InputFileError(
                        f"{p}:{lineno}: line longer than {max_line_chars:,} characters; a "
                        f"{what} has short lines (nothing past it was read)"
                    )
                if lineno > max_lines:
                    raise InputFileError(
                        f"{p}:{lineno}: more than {max_lines:,} lines; too long for a {what} "
                        "(nothing past it was read)"
                    )
                lines.append(line)
    except FileNotFoundError:
        raise InputFileError(f"{p}: {what} not found") from None
    except PermissionError:
        raise InputFileError(f"{p}: permission denied (can't read the {what})") from None
    except IsADirectoryError:
        raise InputFileError(f"{p}: is a directory, not a {what}") from None
    except OSError as e:
        raise InputFileError(f"{p}: can't read the {what} ({e.strerror})") from None


def load_json(path: str | Path, what: str = "JSON file") -> Any:
    return parse_json(read_text(path, what), path, what)


def parse_json(text: str, path: str | Path, what: str = "JSON file") -> Any:
    """The JSON text read from `path` (a file already read, or unpacked), every way it can
    be malformed one `InputFileError` line."""
    try:
        return json.loads(text)
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply to be a {what}") from None
    except json.JSONDecodeError as e:
        raise InputFileError(
            f"{path}: not valid JSON (line {e.lineno}, column {e.colno}): {e.msg}"
        ) from None
