"""``parse_room``: a room hash read back as a ``Room``. Moderation fields are found among
the fields not of fixed name (``_PLAIN_FIELDS``), so a ban or mute is never missed and a
field of fixed name is never taken for one."""

from __future__ import annotations

import json

from server.table.room import _PLAIN_FIELDS, parse_room


def _hash(**extra: bytes) -> dict[str, bytes]:
    seats = [{"user": "u1", "name": "Anne", "bot": None, "ready": False, "entropy": None}]
    return {
        "id": b"ROOM",
        "engine": b"skull-king",
        "options": b"{}",
        "players": b"2",
        "seats": json.dumps(seats).encode(),
        "status": b"lobby",
        "resolved_by": b"nonce",
        **extra,
    }


def test_bans_and_mutes_are_read_by_user_id_in_the_hash_order() -> None:
    """A ban is ``ban:<user id>`` and a mute ``mute:<user id>`` in the room hash
    (server/table/room.py, BAN_FIELD and MUTE_FIELD), the value its reason."""
    raw = _hash(**{"ban:u9": b"spam", "mute:u7": b"shouting", "ban:u2": b"rude"})
    room = parse_room(raw)
    assert list(room.banned.items()) == [("u9", "spam"), ("u2", "rude")]
    assert room.muted == {"u7": "shouting"}


def test_a_room_without_moderation_has_no_bans_or_mutes() -> None:
    room = parse_room(_hash())
    assert room.banned == {} and room.muted == {}
    assert (room.id, room.players, room.seats[0].name) == ("ROOM", 2, "Anne")


def test_no_field_of_fixed_name_looks_like_a_moderation_field() -> None:
    assert not any(name.startswith(("ban:", "mute:")) for name in _PLAIN_FIELDS)
