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
import hmac
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_U64 = 1 << 64


class Rng:
    """A stream of uniform 64-bit integers derived from (seed, label)."""

    __slots__ = ("_block", "_buffer", "_key", "_label")

    def __init__(self, seed: bytes, label: str) -> None:
        if not isinstance(seed, bytes | bytearray) or not seed:
            raise ValueError("a seed is a non-empty byte string")
        self._key = bytes(seed)
        self._label = label.encode("utf-8") + b"\x00"
        self._block = 0
        self._buffer: list[int] = []

    def next_u64(self) -> int:
        """The next unsigned 64-bit integer of the stream."""
        if not self._buffer:
            digest = hmac.new(
                self._key, self._label + self._block.to_bytes(8, "big"), hashlib.sha256
            ).digest()
            self._block += 1
            # Reversed so that pop() hands them out in stream order.
            self._buffer = [int.from_bytes(digest[k : k + 8], "big") for k in (24, 16, 8, 0)]
        return self._buffer.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, by rejection sampling."""
        if not 1 <= n <= _U64:
            raise ValueError("below(n) needs 1 <= n <= 2**64")
        limit = _U64 - (_U64 % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates, from the last position down)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy."""
        out = list(items)
        self.shuffle(out)
        return out

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly."""
        return items[self.below(len(items))]
