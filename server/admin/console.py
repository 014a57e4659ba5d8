"""What the admin console shows: every room in Redis (whatever node its players are on)
and the live nodes, read through server/redis/store.py. Admins see who sits where and who is
connected -- never a hand: a room's hidden state is not part of these views."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from server import protocol as p
from server.realtime import drain
from server.table import moderation, room_codes
from server.table.room import PLAYING, Room, RoomError, is_socket, parse_room
from server.table.rooms import RoomService

MAX_ROOMS = 2000  # rooms one listing scans at most
LOAD_BATCH = 200  # rooms read in one pipelined round trip


def _listed(entries: dict[str, str]) -> list[dict[str, Any]]:
    """The bans or mutes of a room that hold, by user: ``[{user, by, reason, at, until}]``."""
    out = []
    for user, raw in sorted(entries.items()):
        found = moderation.live(raw)
        if found is not None:
            out.append({"user": user, **found})
    return out


def _takeover(presence: dict[str, str], seat: int, grace_ms: int) -> int | None:
    """When the stand-in takes the dropped ``seat`` over (epoch ms), or None."""
    raw = presence.get(f"drop:{seat}")
    try:
        return int(float(raw) * 1000) + grace_ms if raw else None
    except ValueError:
        return None


def room_view(
    room: Room,
    presence: dict[str, str],
    turn: dict[str, Any] | None = None,
    grace_ms: int = 0,
) -> dict[str, Any]:
    """One room as the console lists it (allow-listed: no state, no seeds, no hands).
    ``turn``: what the game waits for now (server/table/turns.py), for its pending deadline."""
    spectators = sum(1 for k, v in presence.items() if is_socket(k) and v == "-")
    pending = None
    if turn is not None:
        pending = {"stage": turn["stage"], "owe": turn["owe"], "deadline": turn["deadline"]}
    return {
        "id": room.id,
        "game": room.engine,
        "title": room.game.title,
        "status": room.status,
        "public": room.public,
        "version": room.version,
        "game_id": room.game_id,
        "host": room.host,
        "host_name": room.host_name,
        "created_at": room.created_at,
        "started_at": room.started_at,
        "ended_at": room.ended_at,
        "reason": room.ended_reason,
        "deadline": room.deadline,
        "paused_at": room.paused_at,
        # The last step, lobby change or chat message (epoch ms; the start or the creation
        # for a room older than the field).
        "last_activity": room.active_at,
        "pending": pending,  # {stage, owe, deadline}: what a game under way waits for
        "spectators": spectators,
        "banned": _listed(room.banned),
        "muted": _listed(room.muted),
        "announcement": moderation.live(room.announcement),
        "seats": [
            {
                "seat": i,
                "user": s.user,
                "name": s.name,
                "bot": s.bot,
                "connected": i in room.connected,
                "stand_in": i in room.away,
                # A slow game waits for this seat's player (told by a push): no stand-in.
                "held": i in room.held,
                # A human seat without a socket: when its stand-in takes over (epoch ms).
                "takeover_at": None
                if s.bot is not None or i in room.connected | room.away | room.held
                else _takeover(presence, i, grace_ms),
            }
            for i, s in enumerate(room.seats)
        ],
    }


async def one_room(rooms: RoomService, room_id: str, grace_ms: int = 0) -> dict[str, Any]:
    raw, presence = await rooms.store.load_room_and_presence(room_id)
    return await _room_view(rooms, raw, presence, grace_ms)


async def _room_view(
    rooms: RoomService, raw: dict[str, bytes] | None, presence: dict[str, str], grace_ms: int
) -> dict[str, Any]:
    if raw is None or "engine" not in raw:
        raise RoomError(p.NO_SUCH_ROOM, "there is no such room")
    room = parse_room(raw, presence)
    turn = None
    if room.status == PLAYING and room.state is not None:
        turn = await rooms.turns.turn_of(room)
    return room_view(room, presence, turn, grace_ms)


def _matches(view: dict[str, Any], status: str | None, game: str | None, q: str | None) -> bool:
    if status and view["status"] != status:
        return False
    if game and view["game"] != game:
        return False
    if q:
        words = [view["id"], view["host_name"], *(s["name"] or "" for s in view["seats"])]
        words += [s["user"] or "" for s in view["seats"]]  # a user id (from the audit, a chat)
        return any(q.lower() in w.lower() for w in words) or _code_in(q, view["id"])
    return True


_ALPHABET = frozenset(room_codes.ALPHABET)


def _code_in(q: str, room_id: str) -> bool:
    """Whether ``q`` is (part of) the room's code as a player reads it out: in groups,
    spaced or in lower case (``k7qx-mh4p``, ``K7QX MH4P``: ``K7QXMH4P``)."""
    spoken = re.sub(r"[\s-]+", "", q).upper()
    return len(spoken) >= 2 and set(spoken) <= _ALPHABET and spoken in room_id


async def all_rooms(
    rooms: RoomService,
    *,
    status: str | None = None,
    game: str | None = None,
    q: str | None = None,
    grace_ms: int = 0,
) -> list[dict[str, Any]]:
    """Every room, newest first, filtered by status, game and a search in the room id, the
    host's and the seats' names and user ids."""
    out = []
    room_ids = await rooms.store.all_room_ids(MAX_ROOMS)
    for start in range(0, len(room_ids), LOAD_BATCH):  # a round trip per batch, not per room
        batch = await rooms.store.load_rooms_and_presence(room_ids[start : start + LOAD_BATCH])
        for raw, presence in batch:
            try:
                view = await _room_view(rooms, raw, presence, grace_ms)
            except RoomError:
                continue  # gone since the scan
            if _matches(view, status, game, q):
                out.append(view)
    out.sort(key=lambda v: str(v["created_at"]), reverse=True)
    return out


def _json(raw: str | None) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return {"by": "?", "reason": raw}


def _draining(raw: str | None) -> Any:
    """A node's ``nodes:draining`` entry, saying its ``kind`` (admin: it can be lifted)."""
    info = _json(raw)
    if isinstance(info, dict):
        info["kind"] = drain.kind_of(info)
    return info


def _int(value: str | None) -> int | None:
    return int(value) if value and value.lstrip("-").isdigit() else None


async def nodes(rooms: RoomService) -> list[dict[str, Any]]:
    """Every node instance heard from in the last hour: alive while its heartbeat has not
    expired, dead after (a reaped node stays listed until its info expires). Alive ones
    first, then by name."""
    now = int(time.time() * 1000)
    draining = await rooms.store.draining_nodes()
    out = []
    for name, expires, count, info in await rooms.store.live_nodes():
        started, beat = _int(info.get("started_ms")), _int(info.get("beat_ms"))
        alive = expires is not None and expires > now
        until = now if alive else beat
        out.append(
            {
                "instance": name,
                "node": info.get("node"),
                "alive": alive,
                "heartbeat_expires": expires,
                "last_beat": beat,
                "version": info.get("version"),
                "started_at": started,
                "uptime_seconds": None
                if started is None or until is None
                else max(0, (until - started) // 1000),
                "sockets": _int(info.get("sockets")),
                # Rooms with a socket on it now (the heartbeat), else its room index's size.
                "rooms": _int(info.get("rooms")) if "rooms" in info else count,
                # Draining (SIGTERM, or an admin asked): {by, reason, at}, else null.
                "draining": _draining(draining.get(name)),
            }
        )
    out.sort(key=lambda n: (not n["alive"], n["instance"]))
    return out
