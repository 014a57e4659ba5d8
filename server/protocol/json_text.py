"""JSON text in and out: decoding with a bound on nesting, and encoding frames.

Decoders recurse per level of nesting, so depth is checked before decoding."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from server.protocol.errors import BAD_JSON, ProtocolError

MAX_DEPTH = 32  # JSON nesting a client may send (a move is a few levels deep)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: fast on long text
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting(raw: bytes) -> int:
    """How deeply the arrays and objects of JSON text ``raw`` nest (strings skipped).

    Decoders recurse per level: text nested deeper than the interpreter's recursion limit
    raises RecursionError instead of a decode error, so depth is checked before decoding."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for b in brackets:
        if b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(raw: str | bytes, max_depth: int = MAX_DEPTH, what: str = "the frame") -> Any:
    """JSON text as Python values; ProtocolError ``bad-json`` if it is not JSON or nests
    deeper than ``max_depth``."""
    data = raw.encode() if isinstance(raw, str) else raw
    # Text with no more opening brackets in all than the limit (most frames) cannot nest
    # deeper than it: no scan.
    opened = data.count(b"[") + data.count(b"{")
    if opened > max_depth and nesting(data) > max_depth:
        raise ProtocolError(BAD_JSON, f"{what} nests deeper than {max_depth} levels")
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        raise ProtocolError(BAD_JSON, f"{what} is not JSON") from None


# -- outbound ----------------------------------------------------------------------------
_encoder = msgspec.json.Encoder()


def encode(message: dict[str, Any]) -> str:
    return _encoder.encode(message).decode()


def encode_bytes(message: dict[str, Any]) -> bytes:
    """``encode``, as the UTF-8 bytes a websocket frame carries."""
    return _encoder.encode(message)
