"""The archive record: what the archiver accepts, normalizes and refuses."""

from __future__ import annotations

from datetime import UTC

import pytest
from archive_helpers import encode, play_record

from server.archive.ratings import Skill, initial, rate
from server.archive.record import RecordError, decode_record


def test_a_played_record_decodes() -> None:
    raw = play_record(players=3, rounds=1)
    record = decode_record(encode(raw))
    assert record.status == "finished" and record.final
    assert record.last_version == len(raw["events"])
    assert record.created_at.tzinfo is UTC and all(e.at.tzinfo is UTC for e in record.events)
    assert [s.human for s in record.seats] == [True, True, True]


def test_naive_times_are_utc_and_names_are_cut_to_size() -> None:
    raw = play_record(players=2, rounds=1)
    raw["created_at"] = "2025-03-01T10:00:00"
    raw["seats"][0]["name"] = "A\x00" + "n" * 300
    record = decode_record(encode(raw))
    assert record.created_at.tzinfo is UTC and record.created_at.hour == 10
    assert record.seats[0].name == "A" + "n" * 99


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"seed_digest": "abc"}, "seed_digest"),
        ({"seed": None}, "reveals its seed"),
        ({"outcome": None}, "has an outcome"),
        ({"seed": "zz"}, "hex"),
        ({"players": 0}, "players"),
        ({"game_id": ""}, "game_id"),
        ({"status": "lost"}, "not an archive record"),
        ({"created_at": "yesterday"}, "not an archive record"),
    ],
)
def test_records_that_make_no_sense_are_refused(change: dict[str, object], why: str) -> None:
    raw = {**play_record(players=2, rounds=1), **change}
    with pytest.raises(RecordError, match=why):
        decode_record(encode(raw))


def test_bad_seats_and_events_are_refused() -> None:
    raw = play_record(players=2, rounds=1)
    raw["seats"][1]["seat"] = 0
    with pytest.raises(RecordError, match="distinct seats"):
        decode_record(encode(raw))
    raw = play_record(players=2, rounds=1)
    raw["events"][2]["version"] = 2
    with pytest.raises(RecordError, match="distinct"):
        decode_record(encode(raw))
    raw = play_record(players=2, rounds=1)
    raw["events"][1]["moves"] = {"north": {"bid": 0}}
    with pytest.raises(RecordError, match="keyed by seat"):
        decode_record(encode(raw))


def test_ratings_follow_ranks_and_ties() -> None:
    after = rate([initial(), initial(), initial()], [2, 1, 2])
    assert after[1].ordinal > 0 > after[0].ordinal
    assert after[0] == after[2]
    assert rate([Skill(30.0, 2.0)], [1]) == [Skill(30.0, 2.0)]


def test_ratings_never_rank_a_worse_finish_above_a_better_one() -> None:
    """Ties are common (scores are multiples of 10): from equal ratings, a better rank never
    ends below a worse one, and equal ranks end equal."""
    import itertools

    for players in range(2, 6):
        for ranks in itertools.product(range(1, players + 1), repeat=players):
            if 1 not in ranks:
                continue
            after = [s.ordinal for s in rate([initial()] * players, list(ranks))]
            for (ra, a), (rb, b) in itertools.combinations(zip(ranks, after, strict=True), 2):
                if ra < rb:
                    assert a > b, (ranks, after)
                elif ra == rb:
                    assert a == pytest.approx(b), (ranks, after)
