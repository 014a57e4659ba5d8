"""The deterministic generator every deal comes from.

Specification (the README repeats it; a browser re-implements it to verify deals):

- A stream is named by a secret ``seed`` (bytes) and a public ``label`` (text).
- Block ``i`` of the stream is ``HMAC-SHA256(key=seed, msg=utf8(label) || 0x00 || u64be(i))``,
  for i = 0, 1, 2, ...; each 32-byte block is read as four unsigned 64-bit big-endian integers,
  and the stream is those integers in order.
- ``below(n)``: take the next integer ``x``; while ``x >= 2**64 - (2**64 mod n)`` take another;
  return ``x mod n`` (rejection sampling: exactly uniform).
- ``shuffle(a)``: for ``i`` from ``len(a) - 1`` down to 1: ``j = below(i + 1)``; swap ``a[i]``
  and ``a[j]`` (Fisher-Yates).

Engines never touch global randomness: every shuffle is ``Rng(seed, label)``.
"""

from __future__ import annotations

import hashlib
import operator
import struct
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_U64 = 1 << 64

# HMAC (RFC 2104) by hand, so that the two padded-key hashes are computed once per stream and
# each block costs two hash copies: the same bytes as ``hmac.new(seed, msg, sha256)``, about
# three times faster (shuffling a deck for a deal is the engine's hottest loop).
_BLOCK_SIZE = 64
_XOR_INNER = bytes(b ^ 0x36 for b in range(256))
_XOR_OUTER = bytes(b ^ 0x5C for b in range(256))
_FOUR_U64 = struct.Struct(">4Q").unpack
# below(n)'s rejection limit 2**64 - (2**64 mod n), precomputed for the small n of decks and
# move lists.
_LIMITS = tuple(_U64 - (_U64 % n) if n else 0 for n in range(256))
# The limits a shuffle of 256 items meets, in order (n = 256, 255, ..., 2); a shuffle of
# ``count`` items meets the last ``count - 1`` of them.
_SHUFFLE_LIMITS = tuple(_U64 - (_U64 % n) for n in range(256, 1, -1))


class Rng:
    """A stream of uniform 64-bit integers derived from (seed, label)."""

    __slots__ = ("_block", "_buffer", "_inner", "_label", "_outer")

    def __init__(self, seed: bytes, label: str) -> None:
        if not isinstance(seed, bytes | bytearray) or not seed:
            raise ValueError("a seed is a non-empty byte string")
        key = bytes(seed)
        if len(key) > _BLOCK_SIZE:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_BLOCK_SIZE, b"\x00")
        self._inner = hashlib.sha256(key.translate(_XOR_INNER))
        self._outer = hashlib.sha256(key.translate(_XOR_OUTER))
        self._label = label.encode("utf-8") + b"\x00"
        self._block = 0
        self._buffer: list[int] = []

    def _blocks(self, count: int) -> list[int]:
        """The integers of the next ``count`` blocks, in stream order."""
        inner_copy, outer_copy, label = self._inner.copy, self._outer.copy, self._label
        first = self._block
        out: list[int] = []
        for block in range(first, first + count):
            inner = inner_copy()
            inner.update(label + block.to_bytes(8, "big"))
            outer = outer_copy()
            outer.update(inner.digest())
            out += _FOUR_U64(outer.digest())
        self._block = first + count
        return out

    def _refill(self) -> list[int]:
        """Make the next block the buffer: its integers reversed, so that pop() hands them
        out in stream order."""
        buffer = self._blocks(1)
        buffer.reverse()
        self._buffer = buffer
        return buffer

    def next_u64(self) -> int:
        """The next unsigned 64-bit integer of the stream."""
        return (self._buffer or self._refill()).pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, by rejection sampling."""
        if not 1 <= n <= _U64:
            raise ValueError("below(n) needs 1 <= n <= 2**64")
        limit = _LIMITS[n] if n < 256 else _U64 - (_U64 % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates, from the last position down).

        ``j = below(i + 1)`` written out inline (it reads the block buffer directly rather
        than calling ``next_u64``): the same draws, without two calls per card. The integers
        a shuffle needs when none is rejected are taken at once; only if one would be (for a
        deck, about once in 2**57 shuffles) it goes back to drawing one at a time.
        """
        count = len(items)
        if 2 <= count <= 256:
            need = count - 1
            draws = self._buffer[::-1]  # what is left of the current block, in stream order
            missing = need - len(draws)
            if missing > 0:
                draws += self._blocks((missing + 3) // 4)
            if not any(map(operator.ge, draws, _SHUFFLE_LIMITS[256 - count :])):
                rest = draws[need:]
                rest.reverse()
                self._buffer = rest
                for i, x in zip(range(need, 0, -1), draws, strict=False):
                    j = x % (i + 1)
                    items[i], items[j] = items[j], items[i]
                return
            draws.reverse()
            self._buffer = draws
        buffer = self._buffer
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < 256 else _U64 - (_U64 % n)
            while True:
                if not buffer:
                    buffer = self._refill()
                x = buffer.pop()
                if x < limit:
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy."""
        out = list(items)
        self.shuffle(out)
        return out

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly: ``items[below(len(items))]``, written out inline like
        ``shuffle`` (bots and the benchmark choose a move this way at every turn)."""
        n = len(items)
        if not 1 <= n < 256:
            return items[self.below(n)]
        limit = _LIMITS[n]
        buffer = self._buffer
        while True:
            if not buffer:
                buffer = self._refill()
            x = buffer.pop()
            if x < limit:
                return items[x % n]
