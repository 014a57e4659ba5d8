"""`verify` checks how the seed was made, not only that it is derived from what the record
lists: the bytes the server supplies for a seat must be the ones its committed seed fixes (a
server that picks them once the players' bytes are known picks the deal); a record without a
commitment or without its deal data fails; a record from before the server's bytes were
fixed says so and is not passed when the server supplied any."""

from __future__ import annotations

import copy
import hashlib
import secrets
from typing import Any

from archive_helpers import encode, play_record

from engines import registry
from server.archive.record import decode_record
from server.archive.replay import log_of, verify_log
from server.table import seeding


def _verify(record: dict[str, Any]) -> Any:
    return verify_log(log_of(decode_record(encode(record))))


def _with_deal(
    server_seed: bytes, contributions: list[dict[str, Any]], seed: bytes
) -> dict[str, Any]:
    """A whole two-seat game (seat 1 a bot) played from ``seed``, its record keeping the
    deal as the room server would."""
    record = play_record(seed=seed, players=2, rounds=1, users=["u-ann", None])
    record["deal"] = {
        "commitment": seeding.commitment(server_seed),
        "server_seed": server_seed.hex(),
        "contributions": contributions,
    }
    return record


def test_bot_bytes_chosen_after_the_players_are_caught() -> None:
    """A patched server that waits for Ann's bytes, then tries bytes for its bot until Ann's
    hand holds the Skull King, gets the record it wants -- and `verify` refuses it."""
    game = registry.get("skull-king")
    server_seed, ann = secrets.token_bytes(32), secrets.token_bytes(32)
    for n in range(20_000):
        chosen = hashlib.sha256(b"try" + n.to_bytes(4, "big")).digest()
        seed = seeding.derive(server_seed, [ann, chosen])
        state = game.start(game.options({"rounds": 1}), 2, seed)
        if game.view(state, 0)["hand"] == ["skull-king"]:
            break
    else:
        raise AssertionError("no bytes gave seat 0 the Skull King")
    contributions = [
        {"seat": 0, "entropy": ann.hex(), "by": "player"},
        {"seat": 1, "entropy": chosen.hex(), "by": "server"},
    ]
    report = _verify(_with_deal(server_seed, contributions, seed))
    assert not report.ok, report.message
    assert "seat 1's bytes are marked the server's" in report.message
    assert seeding.server_bytes(server_seed, 1).hex() in report.message
    # The same game with the bytes the commitment fixes for the bot verifies.
    fixed = seeding.server_bytes(server_seed, 1)
    honest = seeding.derive(server_seed, [ann, fixed])
    contributions[1]["entropy"] = fixed.hex()
    report = _verify(_with_deal(server_seed, contributions, honest))
    assert report.ok, report.message
    assert "the server's bytes, fixed by its commitment, for seat 1" in report.message
    assert "player's seat" not in report.message  # seat 1 is a bot


def test_a_record_without_deal_data_or_commitment_fails() -> None:
    bare = play_record(players=3, rounds=1, seed=secrets.token_bytes(32))
    assert "deal" not in bare
    report = _verify(bare)
    assert not report.ok and "no deal data" in report.message, report.message
    record = play_record(players=3, rounds=1)
    assert _verify(record).ok
    for commitment in (None, "", "00" * 31):
        uncommitted = copy.deepcopy(record)
        uncommitted["deal"]["commitment"] = commitment
        report = _verify(uncommitted)
        assert not report.ok and "no server-seed commitment" in report.message, report.message
    unlisted = copy.deepcopy(record)
    unlisted["deal"]["contributions"] = []
    report = _verify(unlisted)
    assert not report.ok and "no contributions" in report.message, report.message


def test_a_contribution_missing_for_a_seat_fails() -> None:
    """One contribution per seat: a record that leaves a seat out lists a deal of fewer
    seats than the game has."""
    record = play_record(players=3, rounds=1)
    record["deal"]["contributions"] = record["deal"]["contributions"][:2]
    report = _verify(record)
    assert not report.ok and "one per seat" in report.message, report.message


def test_a_player_seat_with_the_servers_bytes_is_named() -> None:
    """Seat 1 is a player's, yet the deal has the server's bytes for it: its player sent none
    or the server dropped them -- the report says so, for that player to check."""
    record = play_record(players=3, rounds=1, users=["u-a", None, "u-c"], bots={1: "random"})
    report = _verify(record)
    assert report.ok and "for seat 1" in report.message, report.message
    assert "player's seat" not in report.message
    server_seed = bytes.fromhex(record["deal"]["server_seed"])
    contributions = copy.deepcopy(record["deal"]["contributions"])
    seed = seeding.derive(server_seed, [bytes.fromhex(c["entropy"]) for c in contributions])
    dropped = play_record(players=3, rounds=1, users=["u-a", "u-b", "u-c"], seed=seed)
    dropped["deal"] = copy.deepcopy(record["deal"])
    report = _verify(dropped)
    assert report.ok, report.message
    assert "seat 1 (a player's seat)" in report.message
    assert "the server dropped them" in report.message


def test_a_record_from_before_the_servers_bytes_were_fixed_says_so() -> None:
    """Older records derived the seed with ``tortuga-seed/1`` and the server drew a bot's
    bytes at the start: not proven, and `verify` says why; one where every seat's bytes are
    its player's still verifies, and says how it was derived."""
    server_seed = secrets.token_bytes(32)
    parts = [secrets.token_bytes(32), secrets.token_bytes(32)]
    seed = seeding.derive(server_seed, parts, label=seeding.LEGACY_LABEL)
    contributions = [
        {"seat": 0, "entropy": parts[0].hex(), "by": "player"},
        {"seat": 1, "entropy": parts[1].hex(), "by": "server"},
    ]
    report = _verify(_with_deal(server_seed, contributions, seed))
    assert not report.ok
    assert "a record from before the server's bytes were fixed" in report.message
    assert "seat(s) 1" in report.message
    contributions[1]["by"] = "player"
    report = _verify(_with_deal(server_seed, contributions, seed))
    assert report.ok and "tortuga-seed/1" in report.message, report.message
