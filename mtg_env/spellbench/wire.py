"""Reading and writing `spellbench/v2` messages.

Engines and hosts read strictly (the spec's Section 2 and the `malformed_json` row of its
Section 9.8): one UTF-8 JSON object per line, at most 8 MiB; no duplicate keys; numbers are
integer literals with |x| <= 2^53 - 1 (no fraction, no exponent, no NaN or Infinity);
nesting at most 64 levels; no unpaired surrogate escape. `read_message` returns the object
or raises `ProtocolError` with the code the spec pins for the fault.

`canonical` is RFC 8785 for the protocol's values (integer numbers, ASCII keys): keys
sorted by code point, no whitespace, strings with only `"`, `\\` and control characters
escaped, everything else raw UTF-8. The host forwards and digests this form.
"""

from __future__ import annotations

import json
from typing import Any

PROTOCOL = "spellbench/v2"
MAX_LINE = 8 * 2**20  # bytes of one message line, its terminator excluded
MAX_INT = 2**53 - 1
MAX_DEPTH = 64


class ProtocolError(Exception):
    """A message that breaks the protocol: `code` is one of the spec's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ProtocolError("malformed_json", f"duplicate key {k!r}")
        out[k] = v
    return out


def _int(text: str) -> int:
    value = int(text)
    if abs(value) > MAX_INT:
        raise ProtocolError("malformed_json", f"integer {text} is outside +-(2^53 - 1)")
    return value


def _no_fraction(text: str) -> Any:
    raise ProtocolError("malformed_json", f"number {text} has a fraction or an exponent")


def _no_constant(text: str) -> Any:
    raise ProtocolError("malformed_json", f"{text} is not JSON")


def _check_tree(value: Any, depth: int = 1) -> None:
    """Nesting depth (the top-level object is depth 1) and strings that are valid
    Unicode (an unpaired surrogate escape decodes to a lone surrogate)."""
    if depth > MAX_DEPTH:
        raise ProtocolError("malformed_json", f"nesting deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        _check_string(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_string(k)
            _check_tree(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check_tree(v, depth + 1)


def _check_string(s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise ProtocolError("malformed_json", "an unpaired surrogate escape") from None


def parse_line(line: bytes) -> dict[str, Any]:
    """One message line (its `\\n` or `\\r\\n` terminator optional) -> the message object."""
    if line.endswith(b"\n"):
        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
    if len(line) > MAX_LINE:
        raise ProtocolError("malformed_json", f"a line over {MAX_LINE} bytes")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProtocolError("malformed_json", f"invalid UTF-8 at byte {e.start}") from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=_int,
            parse_float=_no_fraction,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as e:
        raise ProtocolError("malformed_json", f"{e.msg} at column {e.colno}") from None
    except RecursionError:
        raise ProtocolError("malformed_json", f"nesting deeper than {MAX_DEPTH} levels") from None
    _check_tree(value)
    if not isinstance(value, dict):
        raise ProtocolError("malformed_request", "the top-level value is not an object")
    return value


def read_line(stream: Any) -> bytes | None:
    """The next line of a binary stream, or None at its end. A line over the limit is read
    no further than the limit before the error (its rest is skipped): one bad line costs
    one error, not the stream."""
    line: bytes = stream.readline(MAX_LINE + 3)
    if not line:
        return None
    if len(line) == MAX_LINE + 3 and not line.endswith(b"\n"):
        while (rest := stream.readline(1 << 20)) and not rest.endswith(b"\n"):
            pass
        raise ProtocolError("malformed_json", f"a line over {MAX_LINE} bytes")
    return line


def read_message(stream: Any) -> dict[str, Any] | None:
    """The next message of a binary stream, or None at its end."""
    line = read_line(stream)
    return None if line is None else parse_line(line)


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON of a protocol value (no floats), UTF-8 encoded."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def error_response(request_id: str, code: str, message: str) -> dict[str, Any]:
    """The `error` response of the spec's Section 9.8 (`request_id` "" when unreadable)."""
    return {
        "response_type": "error",
        "protocol": PROTOCOL,
        "request_id": request_id,
        "error": {"code": code, "message": message},
    }
