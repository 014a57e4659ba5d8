"""JSON text in and out: decoding with a bound on nesting, and encoding frames."""

from __future__ import annotations

import functools
import re
from typing import Any

import msgspec

from server.protocol.errors import BAD_JSON, ProtocolError

MAX_DEPTH = 32  # JSON nesting a client may send (a move is a few levels deep)
_STRING = re.compile(rb'"[^"]*"')  # a string, once its escapes are gone
# Brackets only, every opening one as "[" and every closing one as "]".
_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


@functools.lru_cache(maxsize=8)
def _within(limit: int) -> re.Pattern[bytes]:
    """Brackets (each as "[" or "]") that pair up and nest at most ``limit`` deep.

    The pattern for depth k is any number of "[", the pattern for depth k - 1, "]".
    Possessive repeats never give back what they took, so a match is one pass over the
    text with no retries (a limit of 32 makes a pattern of about 600 bytes)."""
    pattern = b""
    for _ in range(limit):
        pattern = rb"(?:\[" + pattern + rb"\])*+"
    return re.compile(pattern)


def nests_deeper(raw: bytes, limit: int) -> bool:
    """Whether the arrays and objects of JSON text ``raw`` nest deeper than ``limit``.

    It runs before any quota, on text from anyone, so its cost must not depend on what the
    text holds: four passes in C, each linear in ``raw``. Escapes are dropped first (in
    JSON a backslash is only ever inside a string), so a string is a quote, no quote, a
    quote: a pattern for strings that allowed escapes would start again from every quote
    of a run of ``\\"`` and cost time quadratic in the text. The brackets outside strings
    are then matched in one pass against the pattern of pairs at most ``limit`` deep.
    Brackets that do not pair up (more of one kind than the other) are not JSON: that is
    left to the decoder, which refuses it and guards its own recursion."""
    # Escaped backslashes first, then escaped quotes: pairs taken from the left, as a JSON
    # decoder takes them, so every quote left opens or closes a string.
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = _STRING.sub(b"", unescaped).translate(_AS_BRACKETS, _NOT_BRACKETS)
    if brackets.count(b"[") * 2 != len(brackets):
        return False
    return _within(limit).fullmatch(brackets) is None


def parse_json(raw: str | bytes, max_depth: int = MAX_DEPTH, what: str = "the frame") -> Any:
    """JSON text as Python values; ProtocolError ``bad-json`` if it is not JSON or nests
    deeper than ``max_depth``.

    Decoders recurse per level of nesting, so the depth is checked before decoding, at a
    cost linear in the text (``nests_deeper``)."""
    data = raw.encode() if isinstance(raw, str) else raw
    # Text with no more opening brackets in all than the limit (most frames) cannot nest
    # deeper than it: no scan.
    opened = data.count(b"[") + data.count(b"{")
    if opened > max_depth and nests_deeper(data, max_depth):
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
