"""The deterministic generator (engines/rng.py): fixed vectors and boundary behaviour.

The vectors are computed twice -- by ``engines.rng.Rng`` and by an independent
re-implementation of the docstring's specification below (hmac/hashlib directly) -- and
pinned as literal constants, so that any change of the generator fails here. They are also
written to ``rng_vectors.json`` for the web client's JavaScript re-implementation; the test
asserts that file matches the generator. Regenerate it (only after a deliberate change of
the specification) with ``uv run python tests/engines/test_rng.py``.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from engines.rng import Rng

VECTORS_FILE = Path(__file__).with_name("rng_vectors.json")

# -- an independent re-implementation of the specification ------------------------------------


def ref_stream(seed: bytes, label: str) -> Iterator[int]:
    """Block i = HMAC-SHA256(seed, utf8(label) || 0x00 || u64be(i)), read as four u64be."""
    for i in itertools.count():
        block = hmac.new(
            seed, label.encode("utf-8") + b"\x00" + i.to_bytes(8, "big"), hashlib.sha256
        ).digest()
        for k in range(4):
            yield int.from_bytes(block[8 * k : 8 * k + 8], "big")


def ref_below(stream: Iterator[int], n: int) -> tuple[int, int]:
    """(value, integers drawn): reject x >= 2**64 - (2**64 mod n), return x mod n."""
    limit = 2**64 - (2**64 % n)
    drawn = 0
    while True:
        x = next(stream)
        drawn += 1
        if x < limit:
            return x % n, drawn


def ref_shuffled(stream: Iterator[int], items: Sequence[int]) -> list[int]:
    """Fisher-Yates from the last position down: j = below(i + 1), swap a[i] and a[j]."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, _ = ref_below(stream, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


# -- the vectors ------------------------------------------------------------------------------

# (seed, label): a short ASCII seed; a 32-byte seed (what the server draws) with a non-ASCII
# label (UTF-8 encoding); a 100-byte seed, longer than SHA-256's 64-byte block, which HMAC
# hashes first.
CASES: list[tuple[bytes, str]] = [
    (b"tortuga", "deal:1"),
    (
        bytes.fromhex("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
        "deal:2 ☠ übung",
    ),
    (bytes(range(100)), "dealer"),
]

# below(n) is called with these n, in this order, on one fresh stream. 3 * 2**62 and
# 2**63 + 1 reject a quarter and almost half of all integers, so the rejection path is used.
BELOW_NS = [1, 2, 3, 6, 7, 10, 52, 70, 1000, 2**32, 3 * 2**62, 2**63 + 1, 2**64 - 1, 2**64]


def reference_vectors() -> dict[str, Any]:
    """The vectors as the JSON file holds them, computed by the re-implementation above.

    Integers that may exceed 2**53 are strings (hex for raw outputs, decimal for below) so
    that JavaScript reads them exactly with BigInt.
    """
    out = []
    for seed, label in CASES:
        raw = ref_stream(seed, label)
        stream = ref_stream(seed, label)
        below = []
        for n in BELOW_NS:
            value, drawn = ref_below(stream, n)
            below.append({"n": str(n), "value": str(value), "drawn": drawn})
        out.append(
            {
                "seed_hex": seed.hex(),
                "label": label,
                "next_u64_hex": [f"{next(raw):016x}" for _ in range(8)],
                "below": below,
                "shuffled_10": ref_shuffled(ref_stream(seed, label), range(10)),
                "shuffled_70": ref_shuffled(ref_stream(seed, label), range(70)),
            }
        )
    return {
        "spec": (
            "engines/rng.py: block i = HMAC-SHA256(key=seed, msg=utf8(label) || 0x00 || "
            "u64be(i)), read as four u64 big-endian; below(n): draw x, reject while "
            "x >= 2**64 - (2**64 mod n), return x mod n; shuffle: for i = len-1 down to 1, "
            "j = below(i + 1), swap a[i], a[j]. Each list (next_u64_hex, below in order, "
            "shuffled_10, shuffled_70) starts from a fresh stream; 'drawn' counts the "
            "integers a below() call consumed (more than 1: a rejection)."
        ),
        "vectors": out,
    }


def generator_vectors() -> dict[str, Any]:
    """The same vectors, computed by engines.rng.Rng."""
    out = []
    for seed, label in CASES:
        raw = Rng(seed, label)
        rng = _Counting(seed, label)
        below = []
        for n in BELOW_NS:
            value = rng.below(n)
            below.append({"n": str(n), "value": str(value), "drawn": rng.drawn})
        out.append(
            {
                "seed_hex": seed.hex(),
                "label": label,
                "next_u64_hex": [f"{raw.next_u64():016x}" for _ in range(8)],
                "below": below,
                "shuffled_10": Rng(seed, label).shuffled(range(10)),
                "shuffled_70": Rng(seed, label).shuffled(range(70)),
            }
        )
    return {"spec": reference_vectors()["spec"], "vectors": out}


class _TooManyDraws(Exception):
    pass


class _Counting(Rng):
    """An Rng that counts the integers each below() draws, and may refuse to go on forever."""

    __slots__ = ("drawn", "limit")

    def __init__(self, seed: bytes, label: str, limit: int | None = None) -> None:
        super().__init__(seed, label)
        self.drawn = 0
        self.limit = limit

    def next_u64(self) -> int:
        self.drawn += 1
        if self.limit is not None and self.drawn > self.limit:
            raise _TooManyDraws(self.drawn)
        return super().next_u64()

    def below(self, n: int) -> int:
        self.drawn = 0
        return super().below(n)


# -- pinned constants: a change of the generator fails here ------------------------------------

TORTUGA = (b"tortuga", "deal:1")
SECOND = CASES[1]

PINNED_U64_HEX = {
    TORTUGA: [
        "2327748a3004ac88",
        "9326d55fbb26e42b",
        "b262abda8680f8fb",
        "c071d2c7298c2399",
        "a36c4691a0b5e5a2",
        "ae15049f337ca514",
        "a9b49b37b4d31afb",
        "7b3b9c80babc8994",
    ],
    SECOND: [
        "b0843967d8d35960",
        "1c3462479bfa9e88",
        "b1eb9f10f66bce21",
        "795d4b0f5eb9aa34",
        "ef7ae71101537190",
        "d0fcfd61b565acee",
        "9405711779d05b2b",
        "73c49024fa3050e2",
    ],
}
# below(n) for n in BELOW_NS, in order, on one fresh stream.
PINNED_BELOW = {
    TORTUGA: [
        0,
        1,
        1,
        3,
        0,
        8,
        7,
        50,
        138,
        2099463331,
        8185990444595156167,
        8409021603162172872,  # after two rejections (n = 2**63 + 1)
        5004746254580014793,
        8742709718858764727,
    ],
    SECOND: [
        0,
        0,
        0,
        4,
        5,
        2,
        19,
        20,
        10,
        3808022300,
        8105593627638950820,
        2980209953992146351,
        14046569359279797316,
        12099255354293726036,
    ],
}
PINNED_SHUFFLED_10 = {
    TORTUGA: [1, 6, 5, 4, 7, 0, 2, 3, 9, 8],
    SECOND: [7, 4, 8, 3, 5, 6, 2, 1, 9, 0],
    CASES[2]: [3, 5, 0, 2, 4, 8, 7, 9, 6, 1],
}
# sha256 of json.dumps(vectors, sort_keys=True, ensure_ascii=False): everything, incl. the
# 70-card shuffles and the third case.
PINNED_VECTORS_SHA256 = "72b46dd928f2dc65f9cef0574f2813b96fb89033da771145b1735a3f0d3eeb8d"


def _vectors_digest(vectors: list[dict[str, Any]]) -> str:
    text = json.dumps(vectors, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- the vectors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [TORTUGA, SECOND], ids=["tortuga", "second"])
def test_next_u64_vectors(case: tuple[bytes, str]) -> None:
    rng = Rng(*case)
    got = [f"{rng.next_u64():016x}" for _ in range(8)]
    ref = ref_stream(*case)
    assert got == [f"{next(ref):016x}" for _ in range(8)]
    assert got == PINNED_U64_HEX[case]


@pytest.mark.parametrize("case", [TORTUGA, SECOND], ids=["tortuga", "second"])
def test_below_vectors(case: tuple[bytes, str]) -> None:
    rng = Rng(*case)
    got = [rng.below(n) for n in BELOW_NS]
    ref = ref_stream(*case)
    assert got == [ref_below(ref, n)[0] for n in BELOW_NS]
    assert got == PINNED_BELOW[case]


@pytest.mark.parametrize("case", CASES, ids=["tortuga", "second", "long-seed"])
def test_shuffled_vectors(case: tuple[bytes, str]) -> None:
    got = Rng(*case).shuffled(range(10))
    assert got == ref_shuffled(ref_stream(*case), range(10))
    assert got == PINNED_SHUFFLED_10[case]
    assert sorted(got) == list(range(10))
    # shuffle() in place draws the same permutation as shuffled().
    items = list(range(10))
    Rng(*case).shuffle(items)
    assert items == got


def test_all_vectors_match_the_reimplementation_and_the_pin() -> None:
    ref = reference_vectors()
    assert generator_vectors() == ref
    assert _vectors_digest(ref["vectors"]) == PINNED_VECTORS_SHA256
    # The rejection path is exercised: some below() call drew more than one integer.
    assert any(b["drawn"] > 1 for v in ref["vectors"] for b in v["below"])


def test_vectors_file_matches_the_generator() -> None:
    on_disk = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
    assert on_disk == generator_vectors(), (
        "rng_vectors.json is stale: run `uv run python tests/engines/test_rng.py`"
    )


def test_choice_is_below_of_the_length() -> None:
    items = ["a", "b", "c", "d", "e", "f", "g"]
    rng, ref = Rng(*TORTUGA), ref_stream(*TORTUGA)
    for _ in range(50):
        assert rng.choice(items) == items[ref_below(ref, len(items))[0]]


# -- boundaries ------------------------------------------------------------------------------


def test_below_one_is_zero_and_draws_one_integer() -> None:
    rng = _Counting(*TORTUGA)
    for _ in range(100):
        assert rng.below(1) == 0
        assert rng.drawn == 1


@pytest.mark.parametrize("n", [0, -1, -(2**64)])
def test_below_needs_a_positive_bound(n: int) -> None:
    with pytest.raises(ValueError):
        Rng(*TORTUGA).below(n)


def test_below_rejects_exactly_the_top_of_the_range() -> None:
    """For n = 2**63 + 1 the limit is n itself: x < n is kept, x >= n is drawn again."""
    n = 2**63 + 1
    ref = ref_stream(*TORTUGA)
    raw = [next(ref) for _ in range(64)]
    rng = Rng(*TORTUGA)
    at = 0
    for _ in range(20):
        value = rng.below(n)
        while raw[at] >= n:  # rejected
            at += 1
        assert value == raw[at]
        at += 1
    assert any(x >= n for x in raw[:at])  # some were rejected


def test_below_full_range_returns_the_integer_itself() -> None:
    rng, ref = Rng(*SECOND), ref_stream(*SECOND)
    for _ in range(20):
        assert rng.below(2**64) == next(ref)


def test_below_beyond_64_bits_fails_instead_of_hanging() -> None:
    """below(n) for n > 2**64: the spec's limit 2**64 - (2**64 mod n) is <= 0, so no integer
    is ever accepted. The generator must refuse such n (ValueError), not loop forever."""
    rng = _Counting(*TORTUGA, limit=10_000)
    try:
        rng.below(2**64 + 1)
    except ValueError:
        return
    except _TooManyDraws:
        pytest.fail(
            "ENGINE BUG (engines/rng.py Rng.below): below(2**64 + 1) never returns -- "
            "limit = 2**64 - (2**64 % n) is 0 for n > 2**64, so every draw is rejected; "
            "it should raise ValueError for n > 2**64"
        )
    pytest.fail("below(2**64 + 1) returned a value")


def test_below_is_uniform_chi_square() -> None:
    """A deterministic sanity check: 6000 draws of below(6), 6 cells of ~1000."""
    rng = Rng(b"chi-square", "below:6")
    counts = Counter(rng.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 20.52, counts  # p = 0.001 for 5 degrees of freedom


def test_below_large_bound_is_uniform() -> None:
    """n = 3 * 2**62 rejects a quarter of the integers; the kept ones stay uniform."""
    n = 3 * 2**62
    rng = Rng(b"chi-square", "below:big")
    counts = Counter(rng.below(n) * 3 // n for _ in range(3000))  # thirds of the range
    chi2 = sum((counts[k] - 1000) ** 2 / 1000 for k in range(3))
    assert chi2 < 13.82, counts  # p = 0.001 for 2 degrees of freedom


def test_shuffle_is_uniform_over_permutations() -> None:
    """2400 shuffles of 4 items: each of the 24 permutations ~100 times."""
    rng = Rng(b"chi-square", "shuffle:4")
    counts = Counter(tuple(rng.shuffled(range(4))) for _ in range(2400))
    assert len(counts) == 24
    chi2 = sum((c - 100) ** 2 / 100 for c in counts.values())
    assert chi2 < 49.73, counts  # p = 0.001 for 23 degrees of freedom


# -- streams -------------------------------------------------------------------------------


def _head(rng: Rng, k: int = 8) -> list[int]:
    return [rng.next_u64() for _ in range(k)]


def test_different_labels_give_different_streams() -> None:
    labels = ["deal:1", "deal:2", "deal:10", "deal:1 ", "Deal:1", "dealer", "", "deal:1\x00"]
    heads = [tuple(_head(Rng(b"tortuga", label))) for label in labels]
    assert len(set(heads)) == len(labels)
    # No integer is shared between the first blocks of any two streams.
    flat = [x for head in heads for x in head]
    assert len(set(flat)) == len(flat)


def test_different_seeds_give_different_streams() -> None:
    seeds = [b"tortuga", b"Tortuga", b"tortuga!", b"t", bytes(32), bytes(range(100))]
    heads = {tuple(_head(Rng(seed, "deal:1"))) for seed in seeds}
    assert len(heads) == len(seeds)


def test_same_seed_and_label_give_the_same_stream() -> None:
    assert _head(Rng(b"tortuga", "deal:1"), 40) == _head(Rng(b"tortuga", "deal:1"), 40)
    assert _head(Rng(bytearray(b"tortuga"), "deal:1")) == _head(Rng(b"tortuga", "deal:1"))


def test_seed_is_copied_not_referenced() -> None:
    seed = bytearray(b"tortuga")
    rng = Rng(seed, "deal:1")
    seed[0] ^= 0xFF
    assert _head(rng) == [int(h, 16) for h in PINNED_U64_HEX[TORTUGA]]


def test_hmac_key_padding_is_part_of_the_spec() -> None:
    """HMAC pads keys shorter than 64 bytes with zeros, so trailing zero bytes of a short
    seed do not change the stream (WebCrypto does the same). Server seeds are 32 random
    bytes, so this never matters; it is pinned so that a re-implementation is not surprised.
    """
    assert _head(Rng(b"tortuga\x00", "deal:1")) == _head(Rng(b"tortuga", "deal:1"))


@pytest.mark.parametrize("seed", [b"", bytearray(), "tortuga", "", None, 7, [1, 2]])
def test_seed_must_be_non_empty_bytes(seed: Any) -> None:
    with pytest.raises(ValueError):
        Rng(seed, "deal:1")


if __name__ == "__main__":
    VECTORS_FILE.write_text(
        json.dumps(reference_vectors(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {VECTORS_FILE}")
