"""The store: everything the server keeps in Redis, one part per kind of data.

The key names live in server/redis/keys.py, the Lua scripts in server/redis/scripts/ (read
once at import, server/redis/lua.py), and the reads and writes of each kind of data in a
module of its own:

- rooms.py: a room's hash, its steps (``write_step``: compare-and-set on ``version``, one
  script that writes the state, appends the log entry, clears the seal and publishes -- all
  or nothing) and lobby changes (``write_meta``: compare-and-set on ``rev``), its log;
- seals.py: ``commit`` / ``reveal``, independent fields of the seal hash (no version bump);
  the commit that completes the set opens the phase, exactly once;
- presence.py: sockets in a room, seats dropped and taken over;
- chat.py: a room's kept chat;
- users.py: token generations, "my rooms", quotas, rate-limit buckets, moderation;
- clock.py: the clock's buckets, claimed under leases by every node;
- nodes.py: node heartbeats, their rooms, their drains;
- lists.py: the public room list, the lobby lock, the console's every room;
- archive.py: the archive queue;
- reach.py: pushes' turn marks, one-time sign-in links, WebAuthn challenges.

``Store`` is all of them in one object, so that callers hold one store and call its
methods directly (no hop through a part on the step path). On a Redis Cluster the scripts'
room publications are *sharded* (``SPUBLISH``, Redis 7): a publication goes to the room's
primary only, not to every node of the cluster. The site-wide channels (the room list,
sign-outs) stay classic pub/sub.
"""

from __future__ import annotations

from server.redis.archive import ArchiveStore
from server.redis.bot_accounts import BotAccountStore
from server.redis.chat import ChatStore
from server.redis.clock import ClockStore
from server.redis.keys import ARCHIVE_STREAMS, CLOCK_BUCKETS, Keys, member, spread_tags
from server.redis.lists import ListStore
from server.redis.nodes import NodeStore
from server.redis.presence import PresenceStore, stamp
from server.redis.reach import ReachStore
from server.redis.rooms import RoomStore
from server.redis.seals import Opening, RevealRefused, SealStore
from server.redis.users import UserStore

__all__ = [
    "ARCHIVE_STREAMS",
    "CLOCK_BUCKETS",
    "Keys",
    "Opening",
    "RevealRefused",
    "Store",
    "member",
    "spread_tags",
    "stamp",
]


class Store(
    RoomStore,
    SealStore,
    PresenceStore,
    ChatStore,
    UserStore,
    ClockStore,
    NodeStore,
    ListStore,
    ArchiveStore,
    BotAccountStore,
    ReachStore,
):
    """Every part of the store over one Redis (``StorePart``, server/redis/part.py): the
    object the server's layers above Redis are given."""
