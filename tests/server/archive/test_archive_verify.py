"""Provable fairness: every state recomputed from the revealed seed and the logged moves.
Tampering with a stored event is caught, and the report names the version (and the deal)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from archive_helpers import encode, play_record, store
from sqlalchemy import text

from engines import registry
from server.archive import history
from server.archive.commands import verify
from server.archive.db import Database
from server.archive.record import decode_record
from server.archive.replay import log_of, replay_log, verify_log


def first(record: dict[str, Any], kind: str, after: int = 2) -> dict[str, Any]:
    """The first event from version ``after`` on whose moves are of ``kind`` (bid or play)."""
    return next(
        e
        for e in record["events"]
        if e["version"] >= after and any(kind in m for m in e["moves"].values())
    )


def first_deal_of_round(record: dict[str, Any], round_: int) -> int:
    """The version whose step dealt ``round_`` (the last card of the round before)."""
    game = registry.get(record["engine"])
    state = game.start(
        game.options(record["options"]), record["players"], bytes.fromhex(record["seed"])
    )
    for event in record["events"][1:]:
        moves = {int(s): game.decode_move(m) for s, m in event["moves"].items()}
        state = game.step(state, moves)
        if game.final_view(state)["round"] == round_:
            return int(event["version"])
    raise AssertionError("no such round")


async def execute(db: Database, sql: str, **params: Any) -> None:
    async with db.session() as s, s.begin():
        await s.execute(text(sql), params)


@pytest.mark.parametrize(
    ("engine", "players"),
    [
        ("skull-king", 2),
        ("skull-king", 6),
        ("bid-tricks", 8),
        ("loon-tricks", 5),
        ("pirate-king", 2),
        ("pirate-king", 5),
        ("pearates", 2),
        ("pearates", 7),
    ],
)
def test_a_record_verifies(engine: str, players: int) -> None:
    record = play_record(engine=engine, players=players, rounds=3)
    report = verify_log(log_of(decode_record(encode(record))))
    assert report.ok, report.message
    assert report.message.startswith("verified")
    assert report.checked == len(record["events"])


async def test_an_archived_game_verifies(archive_url: str, db: Database) -> None:
    record = play_record(players=4, rounds=3)
    await store(db, record)
    report = await verify(archive_url, record["game_id"])
    assert report.ok and report.message.startswith("verified"), report.message
    missing = await verify(archive_url, "no-such-game-1")
    assert not missing.ok and "no game" in missing.message


async def test_a_changed_bid_is_caught_at_its_version(db: Database) -> None:
    record = play_record(players=3, rounds=3)
    await store(db, record)
    event = first(record, "bid", after=first_deal_of_round(record, 2))
    moves = dict(event["moves"])
    moves["0"] = {"bid": 1 - moves["0"]["bid"] if moves["0"]["bid"] <= 1 else 0}
    await execute(
        db,
        "UPDATE events SET moves = CAST(:m AS jsonb) WHERE game_id = :g AND version = :v",
        m=encode(moves).decode(),
        g=record["game_id"],
        v=event["version"],
    )
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok
    assert report.version == event["version"] and report.round == 2
    assert f"version {event['version']} (round 2) differs" in report.message
    assert report.checked == event["version"] - 1


async def test_a_card_never_held_is_caught_at_its_version(db: Database) -> None:
    record = play_record(players=3, rounds=2)
    await store(db, record)
    event = first(record, "play")
    seat = next(iter(event["moves"]))
    game = registry.get("skull-king")
    held = {c for e in record["events"] for m in e["moves"].values() if (c := m.get("play"))}
    never = next(c for c in game.cards.names if c not in held)  # type: ignore[attr-defined]
    await execute(
        db,
        "UPDATE events SET moves = CAST(:m AS jsonb) WHERE game_id = :g AND version = :v",
        m=encode({seat: {"play": never}}).decode(),
        g=record["game_id"],
        v=event["version"],
    )
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok and report.version == event["version"]
    assert "refused" in report.message and never in report.message


async def test_a_changed_digest_names_the_deal(db: Database) -> None:
    record = play_record(players=4, rounds=3)
    await store(db, record)
    version = first_deal_of_round(record, 3)
    await execute(
        db,
        "UPDATE events SET digest = :d WHERE game_id = :g AND version = :v",
        d="0" * 64,
        g=record["game_id"],
        v=version,
    )
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok and report.version == version and report.round == 3
    assert f"version {version} (the deal of round 3) differs" in report.message

    await execute(
        db,
        "UPDATE events SET digest = :d WHERE game_id = :g AND version = 1",
        d="f" * 64,
        g=record["game_id"],
    )
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert report.version == 1 and "version 1 (the deal of round 1) differs" in report.message


async def test_a_wrong_seed_or_a_hole_in_the_log_is_caught(db: Database) -> None:
    record = play_record(players=3, rounds=2)
    await store(db, record)
    await execute(db, "DELETE FROM events WHERE game_id = :g AND version = 7", g=record["game_id"])
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok and report.version == 7 and "version 7 is missing" in report.message

    other = hashlib.sha256(b"another seed").hexdigest()
    await execute(db, "UPDATE games SET seed = :s WHERE id = :g", s=other, g=record["game_id"])
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok and "does not match the digest published" in report.message


async def test_a_replay_shows_every_version_with_hands_revealed(db: Database) -> None:
    record = play_record(players=3, rounds=2)
    await store(db, record)
    async with db.session() as s:
        replay = await history.replay_game(s, record["game_id"])
    assert replay["verified"] is True
    frames = replay["frames"]
    assert [f["version"] for f in frames] == [e["version"] for e in record["events"]]
    game = registry.get("skull-king")
    state = game.start(game.options({"rounds": 2}), 3, bytes.fromhex(record["seed"]))
    assert frames[0]["view"] == game.final_view(state)
    assert all(len(hand) == 1 for hand in frames[0]["view"]["hands"])  # round 1: one card each
    assert frames[-1]["view"]["phase"] == "over"
    assert frames[-1]["view"]["outcome"] == record["outcome"]
    assert frames[3]["moves"] == record["events"][3]["moves"]


async def test_no_replay_while_the_game_is_played(db: Database) -> None:
    record = play_record(players=3, rounds=2, stop_after=6)
    assert record["status"] == "playing"
    await store(db, record)
    async with db.session() as s:
        with pytest.raises(history.NotOver):
            await history.replay_game(s, record["game_id"])
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok and "not revealed" in report.message


def test_a_tampered_replay_stops_where_it_differs() -> None:
    record = play_record(players=3, rounds=2)
    record["events"][5]["digest"] = "1" * 64
    replay = replay_log(log_of(decode_record(encode(record))))
    assert not replay.report.ok and replay.report.version == 6
    assert len(replay.frames) == 5


def takeback_versions(record: dict[str, Any]) -> list[int]:
    return [e["version"] for e in record["events"] if e.get("takeback")]


async def test_a_game_with_take_backs_verifies_and_replays(archive_url: str, db: Database) -> None:
    """A take-back restores the state of the version before the move it undid: verify and
    the replay recompute it; its frame says whose move was taken back."""
    record = play_record(players=3, rounds=3, takebacks=3)
    tb = takeback_versions(record)
    assert len(tb) == 3
    for v in tb:  # as logged: the digest of the version before the undone move
        assert record["events"][v - 1]["digest"] == record["events"][v - 3]["digest"]
    await store(db, record)
    report = await verify(archive_url, record["game_id"])
    assert report.ok and report.checked == len(record["events"]), report.message
    async with db.session() as s:
        replay = await history.replay_game(s, record["game_id"])
        stored = await history.game_record(s, record["game_id"])
    assert replay["verified"] is True
    frame = replay["frames"][tb[0] - 1]
    undone = record["events"][tb[0] - 2]
    assert frame["takeback"] == tb[0] - 1 and frame["moves"] == {}
    assert frame["seats"] == [int(s) for s in undone["moves"]]
    assert frame["view"] == replay["frames"][tb[0] - 3]["view"]
    assert [e["takeback"] for e in stored["events"] if e["takeback"]] == [v - 1 for v in tb]
    assert all(e["proxies"] == [] for e in stored["events"])


async def test_a_forged_take_back_is_caught(db: Database) -> None:
    """A take-back that undoes anything but the move just before it, or whose state is not
    the one before that move, fails verification at its version."""
    record = play_record(players=3, rounds=2, takebacks=1)
    (v,) = takeback_versions(record)
    wrong = decode_record(encode(record))
    wrong.events[v - 1].takeback = v - 2
    report = verify_log(log_of(wrong))
    assert not report.ok and report.version == v and "not the move just before" in report.message
    await store(db, record)
    await execute(
        db,
        "UPDATE events SET digest = :d WHERE game_id = :g AND version = :v",
        d=record["events"][v - 2]["digest"],  # the undone move's state, not the one before
        g=record["game_id"],
        v=v,
    )
    async with db.session() as s:
        report = await history.verify_game(s, record["game_id"])
    assert not report.ok and report.version == v and "differs" in report.message
    with pytest.raises(Exception, match="take-back"):
        bad = dict(record, events=[dict(e) for e in record["events"]])
        bad["events"][v - 1]["moves"] = {"0": {"bid": 1}}
        decode_record(encode(bad))


def test_verify_recomputes_the_piles_reshuffled_during_play() -> None:
    """Pirate King!'s seed: "When you have no more cards to draw, shuffle your discard pile
    and use it as your new pile" -- the new pile is `pile:<seat>:<n>` of the seed
    (engines/pirate_king/README.md). `./tortuga verify` recomputes it: a log whose state
    after a reshuffle holds another order (a server that shuffled on its own) is caught at
    that very version."""
    import msgspec

    record = play_record(engine="pirate-king", players=3)
    assert verify_log(log_of(decode_record(encode(record)))).ok
    game = registry.get("pirate-king")
    state = game.start(game.options({}), 3, bytes.fromhex(record["seed"]))
    for event in record["events"][1:]:
        before = state
        moves = {int(s): game.decode_move(m) for s, m in event["moves"].items()}
        state = game.step(state, moves)
        grown = [s for s in range(3) if state.shuffles[s] > max(1, before.shuffles[s])]
        if grown and len(state.piles[grown[0]]) > 2:
            break
    else:
        raise AssertionError("no pile was made from a discard")
    seat = grown[0]
    forged = msgspec.structs.replace(
        state,
        piles=tuple(p[::-1] if s == seat else p for s, p in enumerate(state.piles)),
    )
    version = event["version"]
    event["digest"] = hashlib.sha256(game.encode(forged)).hexdigest()
    report = verify_log(log_of(decode_record(encode(record))))
    assert not report.ok and report.version == version, report
    assert f"version {version}" in report.message and "differs" in report.message
