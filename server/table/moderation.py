"""What the site's operators put on users and rooms (server/admin/ writes it; every node
obeys it, since it lives in Redis):

- a **site ban** (``Keys.site_bans``): every route refuses the user (403 ``banned``), every
  socket too (``banned``, closed 4010; sockets open at the time are closed on every node,
  through the users channel) -- ``server/identity/tokens.py``'s ``Identity`` looks with the token's
  generation, in the same round trip;
  A site ban may also cover the banned guest's **address** (``Keys.banned_addresses``): no
  new guest identity is made from it (403 ``banned``), every guest that was made from it
  (their tokens carry its mark) and every request and socket that comes from it are refused
  (``banned``, looked up with the generation, one ``HMGET``); the sockets of guests made
  there are closed at once. Addresses are never stored as such: a guest's is kept as a
  keyed hash (``address_mark``, HMAC with the site's secret) for ``ADDRESS_DAYS`` after the
  guest was made (and in its token), and only its mark goes on the list. People behind one
  address (a NAT, a campus, a mobile carrier) share its fate;
- a **room ban** (the room hash's field ``ban:<user>``): the user may not join, resume or sit
  in that room (``banned-from-room``); nor may anyone from the address the user's guest was
  made from (the field ``banmark:<mark>``, when the site knows it): a guest from there made
  afresh, or any guest whose token carries that mark, or whose socket comes from there, is
  refused ``banned-from-room`` in that room (and only there);
- a **mute**, site-wide (``Keys.site_mutes``) or in one room (``mute:<user>``), for good or
  until a time: the user's chat is refused (``muted``);
- the **standing announcement**, to every room (``Keys.site_announcement``) or to one room
  (the field ``announce``), until it expires or is cleared: snapshots and resumes carry it,
  so a player who reloads still sees it.

Each entry is a JSON object ``{by, reason, at, until?, name?}`` (``until``: epoch ms, or
null for good). No game is known here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from server import protocol as p
from server.identity.tokens import address_mark
from server.redis.store import Store
from server.table.room import Room, RoomError, now_ms

__all__ = ["ADDRESS_DAYS", "address_mark", "entry", "live", "room_refusal"]

ADDRESS_DAYS = 30  # how long a guest's address mark is kept after the guest was made


def entry(
    by: str,
    reason: str,
    *,
    until: int | None = None,
    name: str | None = None,
    address: bool = False,
    user: str | None = None,
) -> str:
    """A moderation entry as stored (``address``: a site ban that covers the address;
    ``user``: an address's room ban, the user it came with)."""
    data: dict[str, Any] = {"by": by, "reason": reason, "at": now_ms(), "until": until}
    if name:
        data["name"] = name
    if user:
        data["user"] = user
    if address:
        data["address"] = True
    return json.dumps(data, separators=(",", ":"))


def live(raw: str | None, now: int | None = None) -> dict[str, Any] | None:
    """A stored entry while it holds (None: absent, unreadable, or past its ``until``)."""
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    until = data.get("until")
    if isinstance(until, int) and until <= (now_ms() if now is None else now):
        return None
    return data


def room_refusal(room: Room, user_id: str, marks: Iterable[str] = ()) -> RoomError | None:
    """Why ``user_id`` may not follow ``room`` (an operator banned them, or one of the
    address ``marks`` -- their guest's, their socket's -- from it), or None."""
    if live(room.banned.get(user_id)) is not None:
        return RoomError(p.BANNED_FROM_ROOM, "an operator banned you from this room")
    if room.banned_marks and any(live(room.banned_marks.get(m)) for m in marks):
        return RoomError(p.BANNED_FROM_ROOM, "an operator banned your address from this room")
    return None


async def chat_refusal(store: Store, room: Room, user_id: str) -> RoomError | None:
    """Why ``user_id`` may not chat in ``room`` (muted here or site-wide), or None."""
    for where, raw in (
        ("in this room", room.muted.get(user_id)),
        ("on this site", await store.site_entry(store.keys.site_mutes, user_id)),
    ):
        mute = live(raw)
        if mute is not None:
            until = mute.get("until")
            more = ""
            if isinstance(until, int):  # minutes a player can read, not a timestamp
                minutes = max(1, -(-(until - now_ms()) // 60_000))
                more = f" for {minutes} more minute{'s' if minutes > 1 else ''}"
            return RoomError(p.MUTED, f"an operator muted you {where}{more}")
    return None


async def announcement(store: Store, room: Room) -> dict[str, Any] | None:
    """The operators' standing announcement a socket in ``room`` sees: the room's own or the
    site's, the more recent of those that have not expired (``{text, at, until}``)."""
    found = [a for a in (live(room.announcement), live(await store.announcement())) if a]
    if not found:
        return None
    latest = max(found, key=lambda a: str(a.get("at", "")))
    return {"text": latest.get("text"), "at": latest.get("at"), "until": latest.get("until")}
