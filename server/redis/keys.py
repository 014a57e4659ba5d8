"""Every Redis key name of the site, and the names of clock members.

Every key of one room carries the room's id as a hash tag, ``room:{ID}...``, so that a
Redis Cluster keeps a room on one shard and multi-key scripts stay legal. A prefix gives
tests (or several sites on one Redis) key spaces of their own.

The clock (server/table/deadlines.py) lives in ``CLOCK_BUCKETS`` sorted sets, ``clock:{c<i>...}``:
members are deadlines (``kind|room|...``), each in the bucket of its room, scores are due
times in epoch milliseconds. Nodes announce themselves in the sorted set ``nodes`` (score:
when their heartbeat expires); what each node said in its last heartbeat
(``node:<instance>:info``, indexed by ``nodes:seen``) outlives it for a while, for the console.

On a Redis Cluster (server/redis/pool.py) every script's keys share one slot: a room's keys
by its hash tag, a clock bucket or an archive stream by theirs. The clock's buckets and the
archive streams carry hash tags chosen so that their slots are spread evenly over the slot
space: no primary holds the whole clock or the whole archive traffic.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cache

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

CLOCK_BUCKETS = 8
"""Sorted sets the clock is spread over. Every node claims from all of them; a deadline
goes to the bucket of its room. Changing it strands the members of the buckets that go."""

ARCHIVE_STREAMS = 8
"""Streams the archive records are spread over. Every node's archiver reads all of them; a
room's records go to the stream of its room. Changing it strands the records of the streams
that go."""


@cache
def spread_tags(stem: str, count: int) -> tuple[str, ...]:
    """``count`` hash tags ``<stem><i>.<j>``, the i-th with its slot in the i-th of
    ``count`` equal ranges of the slot space (the smallest such j): keys tagged with them
    land on different primaries of a cluster whose slots are split evenly."""
    width = REDIS_CLUSTER_HASH_SLOTS // count
    tags = []
    for i in range(count):
        j = 0
        while key_slot(f"{stem}{i}.{j}".encode()) // width != i:
            j += 1
        tags.append(f"{stem}{i}.{j}")
    return tuple(tags)


@dataclass(frozen=True, slots=True)
class Keys:
    """The key and channel names of one site: every name starts with ``prefix``."""

    prefix: str = ""

    def __post_init__(self) -> None:
        if "{" in self.prefix or "}" in self.prefix:
            # The prefix's braces would be every key's hash tag: the whole site in one slot.
            raise ValueError(f"a key prefix has no braces: {self.prefix!r}")

    def room(self, room_id: str) -> str:
        """Hash: version, engine id, options, seats, host, status, the state blob."""
        return f"{self.prefix}room:{{{room_id}}}"

    def log(self, room_id: str) -> str:
        """Stream: one entry per accepted step (replay and resume). Entry id = ``<version>-0``."""
        return f"{self.prefix}room:{{{room_id}}}:log"

    def seal(self, room_id: str) -> str:
        """Hash: digests and openings of the sealed phase in progress."""
        return f"{self.prefix}room:{{{room_id}}}:seal"

    def presence(self, room_id: str) -> str:
        """Hash: one field per open socket in the room (``conn id`` -> seat or ``-``),
        ``drop:<seat>`` -> when the last socket of a seat went away (grace time), and
        ``away:<seat>`` -> when a bot (or the default move) took the seat over."""
        return f"{self.prefix}room:{{{room_id}}}:presence"

    def chat(self, room_id: str) -> str:
        """List: the room's recent chat messages (JSON), oldest first, capped."""
        return f"{self.prefix}room:{{{room_id}}}:chat"

    def channel(self, room_id: str) -> str:
        """Pub/sub channel: "version N is out", lobby changes, commits, chat."""
        return f"{self.prefix}room:{{{room_id}}}"

    def user_rooms(self, user_id: str) -> str:
        """Sorted set: the rooms a user sits in (score: the room's last activity, epoch
        ms), for "my rooms" on any browser of theirs. Hash-tagged by the user."""
        return f"{self.prefix}user:{{{user_id}}}:rooms"

    def user_keys(self, user_id: str) -> str:
        """The user's registered device keys: a hash, kid -> public key (base64url)."""
        return f"{self.prefix}user:{{{user_id}}}:keys"

    def user_chat(self, user_id: str) -> str:
        """Hash: the user's chat token bucket (``t`` tokens at ``at`` ms), on every node."""
        return f"{self.prefix}user:{{{user_id}}}:chat"

    def guests(self, address: str, hour: int) -> str:
        """String: guest identities issued to one client address in one clock hour."""
        return f"{self.prefix}guests:{{{address}}}:{hour}"

    def user_hosted(self, user_id: str) -> str:
        """Sorted set: the rooms a user created (score: when), for the open-rooms quota."""
        return f"{self.prefix}user:{{{user_id}}}:hosted"

    def user_bot_games(self, user_id: str) -> str:
        """Sorted set: the user's games of bots only under way (score: when started)."""
        return f"{self.prefix}user:{{{user_id}}}:bot-games"

    def address_public(self, mark: str) -> str:
        """Sorted set: the public rooms made from one client address (its keyed hash,
        ``moderation.address_mark``; score: when), for the public rooms per address."""
        return f"{self.prefix}address:{{{mark}}}:public"

    def resumes(self, kind: str, who: str) -> str:
        """Hash: the token bucket of joins and resumes of one user (``kind`` "user") or one
        client address ("address", its keyed hash), shared by every node."""
        return f"{self.prefix}resumes:{kind}:{{{who}}}"

    def user_bots(self, user_id: str) -> str:
        """Hash: a player's bot accounts, bot id -> JSON ``{id, name, created_at, revoked}``."""
        return f"{self.prefix}user:{{{user_id}}}:bots"

    def bot_account(self, bot_id: str) -> str:
        """String: one bot account (JSON ``{id, name, owner, owner_name, created_at,
        revoked}``): who owns the bot seated at a table (server/http/bots.py)."""
        return f"{self.prefix}bot:{{{bot_id}}}"

    def ladder_ready(self, engine: str) -> str:
        """Sorted set: bot accounts ready for the ladder's games of one game (score: until
        when, epoch ms), renewed by the bots (server/ladder/arena.py)."""
        return f"{self.prefix}ladder:{{{engine}}}:ready"

    @property
    def ladder_tables(self) -> str:
        """Sorted set: the arena's rooms not over (score: when made, epoch ms)."""
        return f"{self.prefix}ladder:tables"

    @property
    def ladder_lease(self) -> str:
        """String: the node whose arena makes the ladder's matches now (expiring)."""
        return f"{self.prefix}ladder:lease"

    def user_gen(self, user_id: str) -> str:
        """String: the user's token generation (absent: 0). Signing out everywhere raises
        it, and tokens issued under a lower one are refused (server/identity/tokens.py)."""
        return f"{self.prefix}user:{{{user_id}}}:gen"

    def admin_logins(self, kind: str, who: str) -> str:
        """Hash: the token bucket of admin login attempts of one (name, client address)
        (``kind`` "pair", ``who`` a digest of both) or one client address ("address"),
        shared by every node (server/admin/logins.py)."""
        return f"{self.prefix}admin:logins:{kind}:{{{who}}}"

    @property
    def lobby_lock(self) -> str:
        """String: present while an admin has locked the lobby (no new rooms); its value
        is the admin's reason (server/admin/routes.py)."""
        return f"{self.prefix}admin:lobby-lock"

    @property
    def site_bans(self) -> str:
        """Hash: users banned from the site (user id -> JSON ``{by, reason, at, name}``):
        every route and socket refuses them (server/table/moderation.py)."""
        return f"{self.prefix}moderation:bans"

    def guest_address(self, user_id: str) -> str:
        """String, expiring: the keyed hash of the address a guest was made from
        (``moderation.address_mark``), for a site ban that covers the address."""
        return f"{self.prefix}guest-address:{user_id}"

    @property
    def banned_addresses(self) -> str:
        """Hash: address mark -> the banned user it came with (no new guest from it)."""
        return f"{self.prefix}moderation:banned-addresses"

    def flooder(self, user_id: str) -> str:
        """String, expiring: the user was closed for flooding on some node; every node turns
        their new sockets away until it expires (``session.Floodgate``)."""
        return f"{self.prefix}flood:{user_id}"

    @property
    def site_mutes(self) -> str:
        """Hash: users muted on the whole site (user id -> JSON ``{by, reason, at, until,
        name}``; ``until`` epoch ms or null): their chat is refused in every room."""
        return f"{self.prefix}moderation:mutes"

    @property
    def site_announcement(self) -> str:
        """String: the operators' current announcement to every room (JSON ``{text, at,
        until}``), expiring with it: snapshots carry it, so a reload still shows it."""
        return f"{self.prefix}admin:announcement"

    @property
    def users_channel(self) -> str:
        """Pub/sub channel: a user signed out everywhere (``{user, gen}``): every node
        closes that user's sockets opened with an older token."""
        return f"{self.prefix}users"

    @property
    def rooms_channel(self) -> str:
        """Pub/sub channel: changes of the public room list."""
        return f"{self.prefix}rooms"

    @property
    def clock_buckets(self) -> tuple[str, ...]:
        """Sorted sets: deadlines, grace expiries and bot moves due (score: epoch ms),
        spread by room over ``CLOCK_BUCKETS`` slots (see ``spread_tags``)."""
        return tuple(f"{self.prefix}clock:{{{tag}}}" for tag in spread_tags("c", CLOCK_BUCKETS))

    def clock_of(self, name: str) -> str:
        """The bucket of a clock member ``kind|room|...``: its room's."""
        room_id = name.split("|")[1]
        return self.clock_buckets[zlib.crc32(room_id.encode()) % CLOCK_BUCKETS]

    @property
    def nodes(self) -> str:
        """Sorted set: live node instances (score: when their heartbeat expires, epoch ms)."""
        return f"{self.prefix}nodes"

    @property
    def nodes_seen(self) -> str:
        """Sorted set: node instances heard from lately, alive or dead (score: their last
        heartbeat, epoch ms), so the console can show a dead node for a while."""
        return f"{self.prefix}nodes:seen"

    def node_info(self, instance: str) -> str:
        """Hash: what a node instance said in its last heartbeat (sockets, rooms, version,
        when it started)."""
        return f"{self.prefix}node:{instance}:info"

    def node_rooms(self, instance: str) -> str:
        """Set: the rooms a node instance has (or had) sockets in, for reaping it."""
        return f"{self.prefix}node:{instance}:rooms"

    @property
    def draining(self) -> str:
        """Hash: node instances draining (server/realtime/drain.py) -> JSON ``{by, kind,
        reason, at}``: asked by an admin (the node watches its field) or draining on SIGTERM."""
        return f"{self.prefix}nodes:draining"

    @property
    def rooms_open(self) -> str:
        """Sorted set: public rooms not finished (score: creation time)."""
        return f"{self.prefix}rooms:open"

    @property
    def archive_streams(self) -> tuple[str, ...]:
        """Streams (each with the consumer group ``archive_group``): game records waiting
        for Postgres, spread by room over ``ARCHIVE_STREAMS`` slots (``spread_tags``), so
        that no primary of a cluster carries the whole site's archive traffic."""
        tags = spread_tags("a", ARCHIVE_STREAMS)
        return tuple(f"{self.prefix}archive:{{{tag}}}" for tag in tags)

    def archive_of(self, room_id: str) -> str:
        """The archive stream of a room's records (all of one room in one stream, in order)."""
        return self.archive_streams[zlib.crc32(room_id.encode()) % ARCHIVE_STREAMS]

    def archive_dead(self, stream: str) -> str:
        """Stream: the records of archive stream ``stream`` that could not be archived, in
        that stream's slot (its hash tag: an entry moves from one to the other in one
        transaction)."""
        return f"{stream}:dead"

    archive_group: str = "archivers"


def member(kind: str, *parts: object) -> str:
    """A clock member: ``kind|part|part...`` (room ids never contain ``|``)."""
    return "|".join([kind, *(str(x) for x in parts)])
