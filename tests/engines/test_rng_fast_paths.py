"""``Rng.shuffle`` and ``Rng.choice`` take their integers straight from the block buffer
(shuffle takes all it needs at once) instead of calling ``below``: they must draw exactly
what the specification's ``below`` would, rejections included, and leave the stream where
``below`` would have left it. A rejection is too rare to meet with real blocks (about once
in 2**57 shuffles of a deck), so these tests script the blocks and put rejected integers
where they want them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engines.rng import Rng

TOP = 2**64 - 1  # rejected by below(n) for every n that is not a power of two


class Scripted(Rng):
    """An Rng whose blocks come from a script (then from a counter), not from HMAC."""

    __slots__ = ("_script",)

    def __init__(self, script: list[int]) -> None:
        super().__init__(b"scripted", "test")
        self._script: Iterator[int] = iter(script + list(range(1000, 2000)))

    def _blocks(self, count: int) -> list[int]:
        self._block += count
        return [next(self._script) for _ in range(4 * count)]


def reference_shuffle(rng: Rng, items: list[int]) -> list[int]:
    """The specification: for i from len-1 down to 1, j = below(i + 1), swap."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


SCRIPTS = {
    "no rejection": [7, 8, 9, 10, 11, 12, 13, 14] * 10,
    "rejected first draw": [TOP, 5, 6, 7, 8, 9, 10, 11] * 10,
    "rejected in the middle": [3, 4, 5, 6, TOP, TOP, 7, 8, 9] * 10,
    "rejected at the end of a block": [1, 2, 3, TOP] * 20,
}


@pytest.mark.parametrize("size", [2, 3, 10, 70, 300])
@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("already_drawn", [0, 1, 3])
def test_shuffle_draws_like_below(size: int, script: str, already_drawn: int) -> None:
    """ "shuffle(a): for i from len(a)-1 down to 1, j = below(i+1), swap a[i] and a[j]" --
    the same result and the same stream position afterwards, whatever was drawn before."""
    fast, slow = Scripted(SCRIPTS[script]), Scripted(SCRIPTS[script])
    for _ in range(already_drawn):
        assert fast.next_u64() == slow.next_u64()
    items = list(range(size))
    shuffled = list(items)
    fast.shuffle(shuffled)
    assert shuffled == reference_shuffle(slow, items)
    assert [fast.next_u64() for _ in range(9)] == [slow.next_u64() for _ in range(9)]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("size", [1, 3, 7, 255, 256, 300])
def test_choice_draws_like_below(script: str, size: int) -> None:
    """ "choice(a) is a[below(len(a))]", rejections included."""
    fast, slow = Scripted(SCRIPTS[script]), Scripted(SCRIPTS[script])
    items = list(range(size))
    for _ in range(12):
        assert fast.choice(items) == items[slow.below(size)]
    assert fast.next_u64() == slow.next_u64()


def test_the_scripted_rejections_are_rejections() -> None:
    """The scripts really exercise the rejection path: below(3) refuses TOP."""
    rng = Scripted([TOP, 5, 0, 0])
    assert rng.below(3) == 5 % 3
    assert rng.next_u64() == 0
