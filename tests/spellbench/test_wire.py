"""Strict reading of `spellbench/v2` message lines: each fault the spec's Section 9.8 lists
under `malformed_json` (and a non-object top level, `malformed_request`) is refused with
its code; valid lines read back as their objects."""

from __future__ import annotations

import io

import pytest

from mtg_env.spellbench.wire import (
    MAX_LINE,
    ProtocolError,
    canonical,
    error_response,
    parse_line,
    read_message,
)


def _code(line: bytes) -> str:
    with pytest.raises(ProtocolError) as e:
        parse_line(line)
    return e.value.code


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": 1, "a": 2}',  # duplicate key
        b'{"a": {"b": 1, "b": 1}}',  # duplicate key, nested
        b'{"a": 1.5}',  # fraction
        b'{"a": 1.0}',  # fraction, integral value
        b'{"a": 1e3}',  # exponent
        b'{"a": NaN}',
        b'{"a": Infinity}',
        b'{"a": 9007199254740992}',  # 2^53
        b'{"a": -9007199254740992}',
        b'{"a": "\\ud800"}',  # unpaired high surrogate
        b'{"a": "\\udc00x"}',  # unpaired low surrogate
        b'{"\\ud800": 1}',  # in a key
        b'{"a": "\xff"}',  # invalid UTF-8
        b"{'a': 1}",
        b'{"a": 1,}',
        b"",
        b'{"a": "tab\there"}',  # a raw control character in a string
        b"\xef\xbb\xbf{}",  # a byte-order mark
        b'{"a": ' + b"[" * 64 + b"]" * 64 + b"}",  # 65 levels
        b"[" * 100_000 + b"]" * 100_000,  # deep enough to exhaust the parser's recursion
    ],
)
def test_malformed_json(line: bytes) -> None:
    assert _code(line) == "malformed_json"


@pytest.mark.parametrize("line", [b"[]", b"1", b'"x"', b"null", b"true"])
def test_a_top_level_that_is_not_an_object_is_a_malformed_request(line: bytes) -> None:
    assert _code(line) == "malformed_request"


def test_valid_lines_read_back() -> None:
    assert parse_line(b'{"a": 9007199254740991, "b": -9007199254740991}\n') == {
        "a": 2**53 - 1,
        "b": -(2**53 - 1),
    }
    assert parse_line(b'{"a": "\\ud83d\\ude00"}\r\n') == {"a": "\U0001f600"}  # a paired escape
    assert parse_line(b'{"a": ' + b"[" * 63 + b"]" * 63 + b"}") is not None  # 64 levels
    assert parse_line('{"n": "Lim-D\u00fbl\'s Vault"}'.encode()) == {"n": "Lim-D\u00fbl's Vault"}


def test_line_limit() -> None:
    body = b'{"a": "' + b"x" * (MAX_LINE - 9) + b'"}'
    assert len(body) == MAX_LINE
    assert parse_line(body + b"\n") == {"a": "x" * (MAX_LINE - 9)}
    assert _code(body[:-2] + b'x"}') == "malformed_json"
    # A stream reader stops at the limit, skips the rest of the line, and reads on.
    long = body[:-2] + b"x" * (3 * MAX_LINE) + b'"}\n'
    stream = io.BytesIO(long + b'{"next": 1}\n' + body + b"\r\n")
    with pytest.raises(ProtocolError, match="malformed_json"):
        read_message(stream)
    assert read_message(stream) == {"next": 1}
    assert read_message(stream) == {"a": "x" * (MAX_LINE - 9)}
    assert read_message(stream) is None


def test_canonical_form() -> None:
    value = {"z": [1, -2, {"b": None, "a": True}], "a": '\u00e9\n\u0001"\\/', "m": 0}
    assert (
        canonical(value)
        == '{"a":"\u00e9\\n\\u0001\\"\\\\/","m":0,"z":[1,-2,{"a":true,"b":null}]}'.encode()
    )
    # Canonical bytes parse back strictly to the same value.
    assert parse_line(canonical(value)) == value


def test_error_response_shape() -> None:
    assert error_response("", "malformed_json", "x") == {
        "response_type": "error",
        "protocol": "spellbench/v2",
        "request_id": "",
        "error": {"code": "malformed_json", "message": "x"},
    }
