"""`verify` covers who did what, not only the states: an event's
defaults, stand-ins (proxies), movers and times are checked too; changing any of them in a
record is caught, with the version named."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from archive_helpers import encode, play_record

from engines import registry
from server.archive.record import decode_record
from server.archive.replay import log_of, verify_log


def _verify(record: dict[str, Any]) -> Any:
    return verify_log(log_of(decode_record(encode(record))))


def _open(record: dict[str, Any], defaulted: bool = False) -> dict[str, Any]:
    """The first open move (flagged a default, or not)."""
    return next(
        e
        for e in record["events"][1:]
        if len(e["moves"]) == 1 and bool(e["defaults"]) == defaulted and "play" in str(e["moves"])
    )


def _sealed(record: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in record["events"][1:] if len(e["moves"]) > 1)


def _flag_plain_move_as_default(r: dict[str, Any]) -> int:
    """A chosen card flagged as the timeout default, where the default is another card."""
    game = registry.get(r["engine"])
    state = game.start(game.options(r["options"]), r["players"], bytes.fromhex(r["seed"]))
    states = {1: state}
    for event in r["events"][1:]:
        moves = {int(k): game.decode_move(m) for k, m in event["moves"].items()}
        if event.get("takeback"):
            state = states[event["takeback"] - 1]
        if len(moves) == 1 and not event["defaults"] and not event.get("takeback"):
            ((seat, move),) = moves.items()
            if move.to_json() != game.default(state, seat).to_json():
                event["defaults"] = [seat]
                return int(event["version"])
        if moves:
            state = game.step(state, moves)
        states[event["version"]] = state
    raise AssertionError("every move was the default")


def _proxy_for_a_seat_that_did_not_move(r: dict[str, Any]) -> int:
    event = _open(r)
    mover = int(next(iter(event["moves"])))
    event["proxies"] = [(mover + 1) % r["players"]]
    return int(event["version"])


def _default_flag_dropped_moved_to_another_seat(r: dict[str, Any]) -> int:
    event = _sealed(r)
    event["defaults"] = [0, 0]
    return int(event["version"])


def _time_going_backwards(r: dict[str, Any]) -> int:
    event = r["events"][5]
    event["at"] = r["events"][2]["at"]  # before version 5's time
    return int(event["version"])


def _takeback_with_a_stand_in(r: dict[str, Any]) -> int:
    event = next(e for e in r["events"] if e.get("takeback"))
    event["proxies"] = [0]
    return int(event["version"])


@pytest.mark.parametrize(
    "forge",
    [
        _flag_plain_move_as_default,
        _proxy_for_a_seat_that_did_not_move,
        _default_flag_dropped_moved_to_another_seat,
        _time_going_backwards,
        _takeback_with_a_stand_in,
    ],
)
def test_forged_who_did_what_is_caught(forge: Callable[[dict[str, Any]], int]) -> None:
    record = play_record(players=3, rounds=3, defaults=2, takebacks=1)
    assert _verify(record).ok, _verify(record).message
    assert _open(record, defaulted=True)  # a genuine default verifies
    forged = copy.deepcopy(record)
    version = forge(forged)
    report = _verify(forged)
    assert not report.ok and report.version == version, report.message
