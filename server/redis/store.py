"""The only module that knows Redis key names and Lua scripts.

Every key of one room carries the room's id as a hash tag, ``room:{ID}...``, so that a
Redis Cluster keeps a room on one shard and multi-key scripts stay legal. A prefix gives
tests (or several sites on one Redis) key spaces of their own.

Three kinds of write touch a room, each one atomic script:

- ``write_step``: a new game state. Compare-and-set on ``version`` (and, for the start, on
  the lobby revision ``rev``); writes the state, appends the log entry, clears the seal hash
  and publishes -- all or nothing. Two nodes can never both win a version.
- ``write_meta``: lobby changes (seats, ready flags). Compare-and-set on ``rev``; publishes.
- ``commit`` / ``reveal``: independent fields of the seal hash (no version bump); the commit
  that completes the set opens the phase, exactly once.

The clock (server/realtime/clock.py) lives in ``CLOCK_BUCKETS`` sorted sets, ``clock:{c<i>...}``:
members are deadlines (``kind|room|...``), each in the bucket of its room, scores are due
times in epoch milliseconds. ``claim`` takes the due members of one bucket atomically and
leases them (their score moves to the end of the lease), so exactly one node handles a
member at a time, and a member whose claimer died comes due again; every node claims from
every bucket. Nodes announce themselves in the sorted set ``nodes`` (score: when their
heartbeat expires); the same claim finds dead nodes, whose sockets then stop counting in
presence; what each node said in its last heartbeat (``node:<instance>:info``, indexed by
``nodes:seen``) outlives it for a while, for the console.

On a Redis Cluster (server/redis/pool.py) every script's keys share one slot: a room's keys
by its hash tag, a clock bucket or an archive stream by theirs. The clock's buckets and the
archive streams carry hash tags chosen so that their slots are spread evenly over the slot
space: no primary holds the whole clock or the whole archive traffic. Room channels are
then *sharded* channels (``SPUBLISH``, Redis 7): a publication goes to the room's primary
only, not to every node of the cluster; the scripts' ``PUBLISH`` becomes ``SPUBLISH``. The
site-wide channels (the room list, sign-outs) stay classic pub/sub.
"""

from __future__ import annotations

import asyncio
import secrets
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from redis.asyncio.cluster import RedisCluster
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from server.ops.metrics import NodeMetrics
from server.redis.pool import Client
from server.redis.wire import Script, Wire

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

    def user_chat(self, user_id: str) -> str:
        """Hash: the user's chat token bucket (``t`` tokens at ``at`` ms), on every node."""
        return f"{self.prefix}user:{{{user_id}}}:chat"

    def guests(self, address: str, hour: int) -> str:
        """String: guest identities issued to one client address in one clock hour."""
        return f"{self.prefix}guests:{{{address}}}:{hour}"

    def user_hosted(self, user_id: str) -> str:
        """Sorted set: the rooms a user created (score: when), for the open-rooms quota."""
        return f"{self.prefix}user:{{{user_id}}}:hosted"

    def user_gen(self, user_id: str) -> str:
        """String: the user's token generation (absent: 0). Signing out everywhere raises
        it, and tokens issued under a lower one are refused (server/identity/tokens.py)."""
        return f"{self.prefix}user:{{{user_id}}}:gen"

    def admin_logins(self, kind: str, who: str) -> str:
        """Hash: the token bucket of admin login attempts of one account (``kind`` "name")
        or one client address ("address"), shared by every node (server/admin/routes.py)."""
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
    def clock_legacy(self) -> str:
        """Sorted set: the one clock of older versions (members found there are moved to
        their buckets: see ``Store.adopt_legacy_clock``)."""
        return f"{self.prefix}clock"

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
        """Hash: node instances draining (server/realtime/drain.py) -> JSON ``{by, reason, at}``:
        asked by an admin (the node watches its field) or draining on SIGTERM."""
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

    @property
    def archive_legacy(self) -> str:
        """Stream: the one archive stream of older versions. The archivers still read it
        while it exists (records an older node left or still puts there)."""
        return f"{self.prefix}archive"

    def archive_dead(self, stream: str) -> str:
        """Stream: the records of archive stream ``stream`` that could not be archived, in
        that stream's slot (an entry moves from one to the other in one transaction): the
        stream's own hash tag, or for the legacy stream its whole name as the tag."""
        return f"{stream}:dead" if "{" in stream else f"{{{stream}}}:dead"

    archive_group: str = "archivers"


# KEYS: room, log, seal, presence, chat
# ARGV: expected version, expected rev ('' = any), channel, payload, log id, ttl (0 = none),
#       number of hash pairs, seats to look up ('0,2': is any taken over?),
#       hash pairs..., log pairs...
# Returns 0 (lost), 1 (won), 2 (won, and one of the seats looked up is taken over: away).
_WRITE_STEP = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return 0 end
local n = tonumber(ARGV[7])
local at = 9
local pairs = {}
for i = at, at + 2 * n - 1 do pairs[#pairs + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(pairs))
local fields = {}
for i = at + 2 * n, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('XADD', KEYS[2], ARGV[5], unpack(fields))
redis.call('DEL', KEYS[3])
local ttl = tonumber(ARGV[6])
if ttl > 0 then
  for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
else
  -- A game under way never expires (an idle lobby did: see _TOUCH_LOBBY).
  for i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
local result = 1
for seat in string.gmatch(ARGV[8], '[^,]+') do
  if redis.call('HEXISTS', KEYS[4], 'away:' .. seat) == 1 then result = 2 end
end
return result
"""

# KEYS: room ; ARGV: expected rev, channel, payload, expected status ('' = any), hash pairs...
_WRITE_META = """
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
if ARGV[4] ~= '' and redis.call('HGET', KEYS[1], 'status') ~= ARGV[4] then return 0 end
local pairs = {}
for i = 5, #ARGV do pairs[#pairs + 1] = ARGV[i] end
if #pairs > 0 then redis.call('HSET', KEYS[1], unpack(pairs)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
"""

# KEYS: room, seal, presence ; ARGV: version, phase, seat, digest, seats owed, channel,
#                         committed payload, open payload, open_by ('' = no reveal deadline),
#                         proxy ('1': a stand-in committed for the absent player: p:<seat>),
#                         nonce (of this call: its own repeat -- a retry after a lost reply --
#                         is answered as the first time, n:<seat>),
#                         the phase's seats to look up ('0,2')
# The commit that opens the phase answers 'open-stand-in' rather than 'open' when one of
# those seats is taken over (away:<seat> in presence) or a stand-in committed for it
# (p:<seat>): only then must the bots hear of the phase (no second look afterwards).
_COMMIT = """
local function opened()
  for seat in string.gmatch(ARGV[12], '[^,]+') do
    if redis.call('HEXISTS', KEYS[3], 'away:' .. seat) == 1
       or redis.call('HEXISTS', KEYS[2], 'p:' .. seat) == 1 then return 'open-stand-in' end
  end
  return 'open'
end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
   or redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 'wrong-phase' end
if redis.call('HGET', KEYS[2], 'phase') ~= ARGV[2] then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'phase', ARGV[2], 'commits', 0, 'reveals', 0)
end
if redis.call('HSETNX', KEYS[2], 'c:' .. ARGV[3], ARGV[4]) == 0 then
  if redis.call('HGET', KEYS[2], 'n:' .. ARGV[3]) == ARGV[11] then
    if redis.call('HGET', KEYS[2], 'open') == '1' then return opened() end
    return 'ok'
  end
  return 'already-committed'
end
redis.call('HSET', KEYS[2], 'n:' .. ARGV[3], ARGV[11])
if ARGV[10] == '1' then redis.call('HSET', KEYS[2], 'p:' .. ARGV[3], '1') end
local count = redis.call('HINCRBY', KEYS[2], 'commits', 1)
redis.call('PUBLISH', ARGV[6], ARGV[7])
if count == tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[2], 'open', '1')
  if ARGV[9] ~= '' then redis.call('HSET', KEYS[2], 'open_by', ARGV[9]) end
  redis.call('PUBLISH', ARGV[6], ARGV[8])
  return opened()
end
return 'ok'
"""

# The store of one seat's opening, shared by the two scripts below. KEYS[1]: the room;
# ARGV[1..6]: version, phase, seat, opening, seats owed, nonce (m:<seat>: its own repeat --
# a retry after a lost reply -- is told 'repeat'). Returns 'stored', 'repeat', or a refusal
# ('wrong-phase', 'not-open', 'already-revealed'); ``complete`` says whether every seat owed
# has opened.
_OPENING = """
local function store_opening(seal)
  if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
     or redis.call('HGET', seal, 'phase') ~= ARGV[2] then return 'wrong-phase' end
  if redis.call('HGET', seal, 'open') ~= '1' then return 'not-open' end
  if redis.call('HSETNX', seal, 'r:' .. ARGV[3], ARGV[4]) == 0 then
    if redis.call('HGET', seal, 'm:' .. ARGV[3]) == ARGV[6] then return 'repeat' end
    return 'already-revealed'
  end
  redis.call('HSET', seal, 'm:' .. ARGV[3], ARGV[6])
  redis.call('HINCRBY', seal, 'reveals', 1)
  return 'stored'
end
local function complete(seal)
  return tonumber(redis.call('HGET', seal, 'reveals')) == tonumber(ARGV[5])
end
"""

# KEYS: room, seal ; ARGV: those of _OPENING.
# The reveal that completes the set gets {'all', the seal hash}: its caller resolves the
# phase from it without reading the seal again.
_REVEAL = (
    _OPENING
    + """
local result = store_opening(KEYS[2])
if result ~= 'stored' and result ~= 'repeat' then return result end
if complete(KEYS[2]) then return {'all', redis.call('HGETALL', KEYS[2])} end
return 'ok'
"""
)

# KEYS: room, log, seal, presence, chat (those of _WRITE_STEP)
# ARGV: those of _OPENING, then _WRITE_STEP's (read by it as STEP: the same script text).
# The reveal that its caller knows completes the set (every other seat's opening was in the
# seal it read), with the step that resolves the phase, computed from those openings: one
# round trip instead of a reveal, then a step. Returns the reveal's refusals as _REVEAL does,
# 'ok' if the set is not complete after all (nothing stepped: the seal was not as read), or
# {'stepped', _WRITE_STEP's result}. The room keeps the nonce of the reveal that resolved
# its last phase (``resolved_by``): a retry of this call after a lost reply, which finds the
# phase over, is answered as the first time.
_REVEAL_STEP = (
    _OPENING
    + """
if redis.call('HGET', KEYS[1], 'resolved_by') == ARGV[6]
   and redis.call('HGET', KEYS[1], 'version') == tostring(tonumber(ARGV[1]) + 1) then
  return {'stepped', 1}
end
local result = store_opening(KEYS[3])
if result ~= 'stored' and result ~= 'repeat' then return result end
if not complete(KEYS[3]) then return 'ok' end
local STEP = {}
for i = 7, #ARGV do STEP[#STEP + 1] = ARGV[i] end
local function step()
"""
    + _WRITE_STEP.replace("ARGV", "STEP")
    + """
end
local won = step()
if won ~= 0 then redis.call('HSET', KEYS[1], 'resolved_by', ARGV[6]) end
return {'stepped', won}
"""
)

# KEYS: room, chat ; ARGV: message (JSON), keep (how many), channel, payload, now (ms).
# Keep the message in the room's capped chat list and publish it; the list expires with
# the room (a finished room's keys have a TTL). The room's last activity is now.
_CHAT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'active_at', ARGV[5])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
"""

# KEYS: chat ; ARGV: message id, channel, payload. Take the message with that id out of the
# room's kept chat and publish the payload; the message as it was kept, or false.
_HIDE_CHAT = """
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, message = pcall(cjson.decode, raw)
  if ok and type(message) == 'table' and message['id'] == ARGV[1] then
    redis.call('LREM', KEYS[1], 1, raw)
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return raw
  end
end
return false
"""

# KEYS: room ; ARGV: field, value ('' = delete it), channel, payload ('' = none).
# One bookkeeping field of an existing room (a ban, a mute, its announcement), published;
# nothing for a room that is gone (so no stub hash without a TTL is left behind). 1 if done.
_ROOM_FIELD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1
"""

# KEYS: room, presence, chat ; ARGV: seconds. A room in the lobby lives that much longer.
_TOUCH_LOBBY = """
if redis.call('HGET', KEYS[1], 'status') ~= 'lobby' then return 0 end
for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[1])) end
return 1
"""

# KEYS: presence, room ; ARGV: conn id, seat ('-' for none), joining ('1') or leaving ('0'), now
# Returns how many sockets the seat still has (after the change); -1 when leaving with a
# socket that was not (or no longer) there -- a second reaper, a late close: nothing to do.
_PRESENCE = """
local function change()
  if ARGV[3] == '1' then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    if ARGV[2] ~= '-' then redis.call('HDEL', KEYS[1], 'drop:' .. ARGV[2], 'away:' .. ARGV[2]) end
  elseif redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then
    return -1
  end
  if ARGV[2] == '-' then return 0 end
  local count = 0
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local f = all[i]
    if string.sub(f, 1, 5) ~= 'drop:' and string.sub(f, 1, 5) ~= 'away:'
       and all[i + 1] == ARGV[2] then count = count + 1 end
  end
  if count == 0 and ARGV[3] == '0' then
    redis.call('HSET', KEYS[1], 'drop:' .. ARGV[2], ARGV[4])
  end
  return count
end
local result = change()
-- The presence hash lives as long as its room (an idle lobby or a finished room expires).
local ttl = redis.call('TTL', KEYS[2])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
elseif ttl == -2 then
  redis.call('DEL', KEYS[1])
end
return result
"""

# KEYS: presence ; ARGV: seat, drop stamp, now. The grace time of a seat is over: mark it
# taken over, unless its player came back (the drop stamp changed or went away).
_AWAY = """
if redis.call('HGET', KEYS[1], 'drop:' .. ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'away:' .. ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'away:' .. ARGV[1], ARGV[3])
return 1
"""

# KEYS: a sorted set (clock or nodes) ; ARGV: now, lease end, limit (all epoch ms).
# The due members, each leased to the caller: its score moves to the lease end, so no other
# node sees it due before then. One script: exactly one claimer per member and lease.
_EXTEND = """
-- KEYS: room, seal. ARGV: version, stage ('move'|'commit'|'reveal'), old due, new due,
-- channel, payload. Moves the due time of the version's current stage from old to new,
-- if nothing moved on since it was read; publishes the notice. 1 if done.
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
local key, field = KEYS[1], 'deadline'
if ARGV[2] == 'reveal' then
  key, field = KEYS[2], 'open_by'
elseif ARGV[2] == 'commit' and redis.call('HGET', KEYS[2], 'open') == '1' then
  return 0
end
if redis.call('HGET', key, field) ~= ARGV[3] then return 0 end
redis.call('HSET', key, field, ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
"""

_PAUSE = """
-- KEYS: room. ARGV: paused_at, by, channel, payload. 1 if the playing room was not paused.
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HSETNX', KEYS[1], 'paused_at', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'paused_by', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
"""

_UNPAUSE = """
-- KEYS: room, seal. ARGV: paused_at, version, stage, old due, new due, channel, payload.
-- Ends the pause begun at paused_at and moves the current stage's due time (unless there
-- is none: old due ''), if the version did not move on since it was read. 1 if done.
if redis.call('HGET', KEYS[1], 'paused_at') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
if ARGV[4] ~= '' then
  local key, field = KEYS[1], 'deadline'
  if ARGV[3] == 'reveal' then key, field = KEYS[2], 'open_by' end
  if redis.call('HGET', key, field) ~= ARGV[4] then return 0 end
  redis.call('HSET', key, field, ARGV[5])
end
redis.call('HDEL', KEYS[1], 'paused_at', 'paused_by')
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1
"""

_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due
"""

# KEYS: clock buckets ; ARGV: now, lease end, limit (all epoch ms).
# ``_CLAIM`` on each bucket in turn, then the earliest score left on any of them ('' if they
# are all empty): when to look again. One call per look, whatever the number of buckets
# (on a cluster: one call per bucket, each bucket in its own slot).
_CLAIM_CLOCK = """
local out = {}
local earliest, text = nil, ''
for k = 1, #KEYS do
  local due = redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
  for _, member in ipairs(due) do redis.call('ZADD', KEYS[k], 'XX', ARGV[2], member) end
  out[#out + 1] = due
  local first = redis.call('ZRANGE', KEYS[k], 0, 0, 'WITHSCORES')
  if first[2] and (earliest == nil or tonumber(first[2]) < earliest) then
    earliest, text = tonumber(first[2]), first[2]
  end
end
out[#out + 1] = text
return out
"""

# KEYS: a sorted set ; ARGV: member, the lease end it was claimed with.
# Done with a claimed member: remove it, unless it was claimed again or re-armed since.
_DONE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

# KEYS: a sorted set ; ARGV: member, latest score, lease end.
# Lease one member to the caller before it is due -- unless its score is past ``latest``
# (a claimer leased it already: it is theirs) or it is gone. 1 if taken.
_TAKE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
  return 1
end
return 0
"""


# KEYS: a bucket hash ; ARGV: now (ms), tokens per second, burst, ttl (s).
# A token bucket shared by every node: take one token if there is one. 1 if taken.
_BUCKET = """
local now = tonumber(ARGV[1])
local burst = tonumber(ARGV[3])
local saved = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(saved[1]) or burst
local at = tonumber(saved[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) / 1000 * tonumber(ARGV[2])) end
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return taken
"""


def stamp(at: float) -> str:
    """A time as stored in presence (``drop:<seat>``) and named in grace members."""
    return f"{at:.3f}"


def member(kind: str, *parts: object) -> str:
    """A clock member: ``kind|part|part...`` (room ids never contain ``|``)."""
    return "|".join([kind, *(str(x) for x in parts)])


def _pairs(reply: Any) -> dict[str, bytes]:
    """A raw ``HGETALL`` reply (field, value, field, value, ...) as a dict."""
    it = iter(reply)
    return {k.decode(): v for k, v in zip(it, it, strict=True)}


def _text_pairs(reply: Any) -> dict[str, str]:
    it = iter(reply)
    return {k.decode(): v.decode() for k, v in zip(it, it, strict=True)}


class _Run:
    """One of the store's scripts, run over the wire: ``await script(keys=..., args=...)``."""

    __slots__ = ("script", "wire")

    def __init__(self, wire: Wire, text: str) -> None:
        self.wire = wire
        self.script = Script.of(text)

    async def __call__(self, *, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        return await self.wire.run(self.script, keys, args)


def _flat(fields: Mapping[str, Any]) -> list[Any]:
    """A mapping as the field, value, field, value ... of ``HSET``."""
    return [x for item in fields.items() for x in item]


def _s(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class Opening:
    """A seat's opening to store (``Store.reveal``), or to store with the step that it
    completes (``Store.write_step``)."""

    version: int
    phase: str
    seat: int
    opening: str  # JSON
    owed: int
    nonce: str

    def args(self) -> list[str]:
        """The script arguments of ``_OPENING``."""
        return [
            str(self.version),
            self.phase,
            str(self.seat),
            self.opening,
            str(self.owed),
            self.nonce,
        ]


class RevealRefused(Exception):
    """``write_step`` with an ``Opening`` stored nothing, or only the opening: its result
    as ``Store.reveal`` gives it ('ok': stored, but the set is not complete)."""

    def __init__(self, result: str) -> None:
        super().__init__(result)
        self.result = result


class Store:
    """Room reads and the atomic writes above, over the ``wire`` (server/redis/wire.py:
    pipelined, one connection per Redis server, routed by key on a cluster). redis-py's
    client (``redis``, server/redis/pool.py) names the same Redis for what the wire does
    not do: the admin's ``SCAN`` of every room. (The archiver's blocking stream reads and
    transactions and the hub's pub/sub use it too, outside the store.)"""

    def __init__(
        self, redis: Client, wire: Wire, keys: Keys, metrics: NodeMetrics | None = None
    ) -> None:
        self.redis = redis
        self.wire = wire
        self.keys = keys
        # This node's series (server/ops/metrics.py): every module that counts reaches it here.
        self.metrics = metrics if metrics is not None else NodeMetrics("")
        self.sharded = isinstance(redis, RedisCluster)
        self._step = self._script(_WRITE_STEP)
        self._meta = self._script(_WRITE_META)
        self._commit = self._script(_COMMIT)
        self._reveal = self._script(_REVEAL)
        self._reveal_step = self._script(_REVEAL_STEP)
        self._presence = self._script(_PRESENCE)
        self._away = self._script(_AWAY)
        self._claim = self._script(_CLAIM)
        self._claim_clock = self._script(_CLAIM_CLOCK)
        self._done = self._script(_DONE)
        self._take = self._script(_TAKE)
        self._chat = self._script(_CHAT)
        self._bucket = self._script(_BUCKET)
        self._touch = self._script(_TOUCH_LOBBY)
        self._extend = self._script(_EXTEND)
        self._pause = self._script(_PAUSE)
        self._unpause = self._script(_UNPAUSE)
        self._hide_chat = self._script(_HIDE_CHAT)
        self._room_field = self._script(_ROOM_FIELD)

    async def _do(self, *command: Any) -> Any:
        """One command over the wire, routed by its key (its first argument)."""
        return await self.wire.call(*command)

    def _script(self, text: str) -> _Run:
        """A script of this store; a room's publication in it is sharded on a cluster."""
        if self.sharded:
            text = text.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',")
        return _Run(self.wire, text)

    # -- rooms ------------------------------------------------------------------------
    async def create_room(self, room_id: str, fields: Mapping[str, bytes | str]) -> bool:
        """Create the room hash; False if the id is taken (HSETNX on ``id``)."""
        key = self.keys.room(room_id)
        if not await self._do("HSETNX", key, "id", room_id):
            return False
        await self._do("HSET", key, *_flat(fields))
        return True

    async def load_room(self, room_id: str) -> dict[str, bytes] | None:
        key = self.keys.room(room_id)
        raw: Any = await self.wire.call("HGETALL", key, key=key)
        return _pairs(raw) if raw else None

    async def load_room_and_presence(
        self, room_id: str
    ) -> tuple[dict[str, bytes] | None, dict[str, str]]:
        """The room hash and its presence hash in one round trip."""
        key = self.keys.room(room_id)
        raw, seen = await self.wire.many(
            ("HGETALL", key), ("HGETALL", self.keys.presence(room_id)), key=key
        )
        return (_pairs(raw) if raw else None), _text_pairs(seen)

    async def load_rooms_and_presence(
        self, room_ids: list[str]
    ) -> list[tuple[dict[str, bytes] | None, dict[str, str]]]:
        """``load_room_and_presence`` for many rooms, in one round trip (the console's list)."""
        if not room_ids:
            return []
        commands: list[tuple[str, ...]] = []
        for room_id in room_ids:
            commands.append(("HGETALL", self.keys.room(room_id)))
            commands.append(("HGETALL", self.keys.presence(room_id)))
        replies = await self.wire.many(*commands)
        return [
            ((_pairs(raw) if raw else None), _text_pairs(seen))
            for raw, seen in zip(replies[::2], replies[1::2], strict=True)
        ]

    async def load_room_and_seal(
        self, room_id: str
    ) -> tuple[dict[str, bytes] | None, dict[str, str]]:
        """The room hash and its seal hash (the sealed phase under way) in one round trip."""
        key = self.keys.room(room_id)
        raw, seal = await self.wire.many(
            ("HGETALL", key), ("HGETALL", self.keys.seal(room_id)), key=key
        )
        return (_pairs(raw) if raw else None), _text_pairs(seal)

    async def write_step(
        self,
        room_id: str,
        *,
        expected_version: int,
        expected_rev: int | None,
        fields: Mapping[str, bytes | str],
        log_fields: Mapping[str, bytes | str],
        new_version: int,
        payload: bytes,
        ttl: int = 0,
        away_seats: Sequence[int] = (),
        reveal: Opening | None = None,
    ) -> int:
        """Compare-and-set a new state: 0 if this call lost ``new_version``, 1 if it won it,
        2 if it won and one of ``away_seats`` is taken over (a stand-in plays it).
        ``reveal``: the opening that completes a sealed phase, stored in the same script
        (``_REVEAL_STEP``); ``RevealRefused`` if it is refused or does not complete it."""
        k = self.keys
        pairs: list[bytes | str] = [x for item in fields.items() for x in item]
        log_pairs: list[bytes | str] = [x for item in log_fields.items() for x in item]
        args: list[bytes | str | int] = [
            str(expected_version),
            "" if expected_rev is None else str(expected_rev),
            k.channel(room_id),
            payload,
            f"{new_version}-0",
            str(ttl),
            str(len(fields)),
            ",".join(str(seat) for seat in away_seats),
            *pairs,
            *log_pairs,
        ]
        keys = [
            k.room(room_id),
            k.log(room_id),
            k.seal(room_id),
            k.presence(room_id),
            k.chat(room_id),
        ]
        if reveal is None:
            won = int(await self._step(keys=keys, args=args))
        else:
            result = await self._reveal_step(keys=keys, args=[*reveal.args(), *args])
            if not isinstance(result, list):
                raise RevealRefused(cast(str, _s(result)))
            won = int(result[1])
        if won:
            self.metrics.step_written(log_fields)
        else:
            self.metrics.step_lost()
        return won

    async def write_meta(
        self,
        room_id: str,
        *,
        expected_rev: int,
        fields: Mapping[str, str],
        payload: bytes,
        status: str = "",
    ) -> bool:
        """Compare-and-set seat fields on the room's revision (and its ``status`` when one is
        given); True if this call won."""
        pairs = [x for item in fields.items() for x in item]
        args: list[bytes | str] = [
            str(expected_rev),
            self.keys.channel(room_id),
            payload,
            status,
            *pairs,
        ]
        return bool(await self._meta(keys=[self.keys.room(room_id)], args=args))

    async def touch_lobby(self, room_id: str, seconds: int) -> bool:
        """If the room is in the lobby, its keys expire ``seconds`` from now. True if so."""
        k = self.keys
        keys = [k.room(room_id), k.presence(room_id), k.chat(room_id)]
        return bool(await self._touch(keys=keys, args=[seconds]))

    async def set_fields(self, room_id: str, fields: Mapping[str, str]) -> None:
        """Plain writes of bookkeeping fields that no compare-and-set depends on."""
        await self._do("HSET", self.keys.room(room_id), *_flat(fields))

    async def extend_deadline(
        self, room_id: str, version: int, stage: str, old_ms: int, new_ms: int, payload: bytes
    ) -> bool:
        """Compare-and-set the due time of ``version``'s ``stage`` (``deadline`` of the room,
        or the seal's ``open_by`` for ``reveal``) from ``old_ms`` to ``new_ms`` and publish
        ``payload``; False if the room moved on (or the stage changed) since it was read."""
        k = self.keys
        args: list[bytes | str] = [
            str(version),
            stage,
            str(old_ms),
            str(new_ms),
            k.channel(room_id),
            payload,
        ]
        return bool(await self._extend(keys=[k.room(room_id), k.seal(room_id)], args=args))

    async def pause(self, room_id: str, at_ms: int, by: str, payload: bytes) -> bool:
        """Mark the playing room paused since ``at_ms`` (fields ``paused_at``, ``paused_by``
        of the room hash: they survive any node) and publish; False if it was paused already
        or is not playing."""
        args: list[bytes | str] = [str(at_ms), by, self.keys.channel(room_id), payload]
        return bool(await self._pause(keys=[self.keys.room(room_id)], args=args))

    async def unpause(
        self,
        room_id: str,
        paused_at: int,
        version: int,
        stage: str,
        old_ms: int | None,
        new_ms: int | None,
        payload: bytes,
    ) -> bool:
        """End the pause begun at ``paused_at``, moving the due time of ``version``'s
        ``stage`` from ``old_ms`` to ``new_ms``; False if anything moved meanwhile."""
        k = self.keys
        args: list[bytes | str] = [
            str(paused_at),
            str(version),
            stage,
            "" if old_ms is None else str(old_ms),
            "" if new_ms is None else str(new_ms),
            k.channel(room_id),
            payload,
        ]
        return bool(await self._unpause(keys=[k.room(room_id), k.seal(room_id)], args=args))

    # -- the log ----------------------------------------------------------------------
    async def log_range(
        self, room_id: str, first: int, last: int | str = "+"
    ) -> list[tuple[int, dict[str, bytes]]]:
        """Log entries with versions ``first .. last`` (inclusive), in order."""
        end = last if isinstance(last, str) else f"{last}-0"
        key = self.keys.log(room_id)
        raw: Any = await self.wire.call("XRANGE", key, f"{first}-0", end, key=key)
        return [(int(entry_id.split(b"-", 1)[0]), _pairs(data)) for entry_id, data in raw]

    # -- sealed phases ----------------------------------------------------------------
    async def load_seal(self, room_id: str) -> dict[str, str]:
        key = self.keys.seal(room_id)
        return _text_pairs(await self.wire.call("HGETALL", key, key=key))

    async def commit(
        self,
        room_id: str,
        *,
        version: int,
        phase: str,
        seat: int,
        digest: str,
        owed: int,
        committed: bytes,
        opened: bytes,
        open_by: int | None = None,
        proxy: bool = False,
        nonce: str | None = None,
        seats: Sequence[int] = (),
    ) -> str:
        """Store one seat's digest: 'ok', 'open' (this commit completed the set; the seal
        records ``open_by``, the reveal deadline), 'open-stand-in' (the same, and one of
        ``seats`` is taken over or was committed for by a stand-in), 'already-committed' or
        'wrong-phase'.
        ``proxy``: a stand-in commits for an absent player (the seal notes ``p:<seat>``).
        ``nonce`` names this call (a fresh one by default): redis-py runs the script again
        when a connection error lost its reply, and that repeat gets this call's answer."""
        k = self.keys
        args = [str(version), phase, str(seat), digest, str(owed), k.channel(room_id)]
        by = "" if open_by is None else str(open_by)
        result = await self._commit(
            keys=[k.room(room_id), k.seal(room_id), k.presence(room_id)],
            args=[
                *args,
                committed,
                opened,
                by,
                "1" if proxy else "",
                nonce or secrets.token_hex(8),
                ",".join(str(seat) for seat in seats),
            ],
        )
        return cast(str, _s(result))

    async def reveal(
        self,
        room_id: str,
        *,
        version: int,
        phase: str,
        seat: int,
        opening: str,
        owed: int,
        nonce: str | None = None,
    ) -> tuple[str, dict[str, str] | None]:
        """Store one seat's opening: 'ok', 'all' (the set is complete: with the seal hash as
        it is now, every opening in it), 'not-open', 'already-revealed' or 'wrong-phase'.
        ``nonce``: as for ``commit``."""
        k = self.keys
        args = Opening(version, phase, seat, opening, owed, nonce or secrets.token_hex(8)).args()
        result = await self._reveal(keys=[k.room(room_id), k.seal(room_id)], args=args)
        if isinstance(result, list):
            return cast(str, _s(result[0])), _text_pairs(result[1])
        return cast(str, _s(result)), None

    # -- presence -----------------------------------------------------------------------
    async def presence(
        self, room_id: str, conn_id: str, seat: int | None, joining: bool, at: float
    ) -> int:
        """Record a socket arriving or leaving; how many sockets the seat has now (-1: the
        socket was not there). A seat left without sockets records ``drop:<seat>`` = ``at``.
        Arriving also notes the room under the socket's node instance, for reaping."""
        if joining:
            instance = conn_id.rsplit(":", 1)[0]
            index = self.keys.node_rooms(instance)
            await self.wire.call("SADD", index, room_id, key=index)
        args = [conn_id, "-" if seat is None else str(seat), "1" if joining else "0", stamp(at)]
        result = await self._presence(
            keys=[self.keys.presence(room_id), self.keys.room(room_id)], args=args
        )
        return int(result)

    async def mark_away(self, room_id: str, seat: int, drop_stamp: str, at: float) -> bool:
        """The seat's grace time is over: True if this call marked it taken over."""
        args = [str(seat), drop_stamp, stamp(at)]
        return bool(await self._away(keys=[self.keys.presence(room_id)], args=args))

    async def load_presence(self, room_id: str) -> dict[str, str]:
        key = self.keys.presence(room_id)
        return _text_pairs(await self.wire.call("HGETALL", key, key=key))

    # -- chat ---------------------------------------------------------------------------
    async def chat(
        self, room_id: str, message: bytes, keep: int, payload: bytes, at_ms: int = 0
    ) -> bool:
        """Keep ``message`` among the room's last ``keep`` and publish ``payload`` (the
        room's last activity: ``at_ms``); False if the room is gone."""
        k = self.keys
        args: list[bytes | str] = [message, str(keep), k.channel(room_id), payload, str(at_ms)]
        return bool(await self._chat(keys=[k.room(room_id), k.chat(room_id)], args=args))

    async def take_token(self, key: str, now_ms: int, rate: float, burst: int) -> bool:
        """Take one token from the shared bucket ``key`` (``rate`` per second, at most
        ``burst`` saved); False if it is empty. The bucket expires once it would be full."""
        ttl = max(1, int(burst / rate) + 1) if rate > 0 else 24 * 3600
        args: list[int | str] = [now_ms, repr(float(rate)), burst, min(ttl, 24 * 3600)]
        return bool(await self._bucket(keys=[key], args=args))

    async def hide_chat(self, room_id: str, message_id: str, payload: bytes) -> bytes | None:
        """Take the message ``message_id`` out of the room's kept chat and publish
        ``payload``; the message as it was kept, or None if it is not (or no longer) there."""
        k = self.keys
        args: list[bytes | str] = [message_id, k.channel(room_id), payload]
        raw: Any = await self._hide_chat(keys=[k.chat(room_id)], args=args)
        return raw if isinstance(raw, bytes) else (raw.encode() if raw else None)

    async def room_field(
        self, room_id: str, field: str, value: str | None, payload: bytes = b""
    ) -> bool:
        """Set (or with None delete) one bookkeeping field of an existing room and publish
        ``payload`` on its channel (none if empty); False if the room is gone."""
        k = self.keys
        args: list[bytes | str] = [field, value or "", k.channel(room_id), payload]
        return bool(await self._room_field(keys=[k.room(room_id)], args=args))

    async def clear_seat_presence(self, room_id: str, seat: int) -> None:
        """Forget that ``seat`` was dropped or taken over (it is a bot's now)."""
        await self._do("HDEL", self.keys.presence(room_id), f"drop:{seat}", f"away:{seat}")

    # -- moderation (server/table/moderation.py) -------------------------------------------------
    async def user_standing(self, user_id: str) -> tuple[int, str | None]:
        """The user's token generation and their site ban (JSON) if any, in one round trip
        (two commands at once; on a cluster each to its own slot's primary)."""
        gen_key, bans = self.keys.user_gen(user_id), self.keys.site_bans
        gen, ban = await asyncio.gather(
            self.wire.call("GET", gen_key, key=gen_key),
            self.wire.call("HGET", bans, user_id, key=bans),
        )
        return (int(gen) if gen is not None else 0), _s(ban)

    async def note_guest_address(self, user_id: str, mark: str, seconds: int) -> None:
        await self._do("SET", self.keys.guest_address(user_id), mark, "EX", seconds)

    async def guest_address_of(self, user_id: str) -> str | None:
        return _s(await self._do("GET", self.keys.guest_address(user_id)))

    async def address_banned(self, mark: str) -> bool:
        return bool(await self._do("HEXISTS", self.keys.banned_addresses, mark))

    async def ban_address(self, mark: str, user_id: str) -> None:
        await self._do("HSET", self.keys.banned_addresses, mark, user_id)

    async def unban_addresses_of(self, user_id: str) -> int:
        """Lift the address bans that came with ``user_id``'s; how many."""
        raw = _text_pairs(await self._do("HGETALL", self.keys.banned_addresses))
        marks = [k for k, v in raw.items() if v == user_id]
        return int(await self._do("HDEL", self.keys.banned_addresses, *marks)) if marks else 0

    async def shut_flooder(self, user_id: str, seconds: float) -> None:
        """Every node turns the user's new sockets away for ``seconds`` (flooding)."""
        await self._do("SET", self.keys.flooder(user_id), "1", "PX", max(1, int(seconds * 1000)))

    async def flooder_left(self, user_id: str) -> float:
        """Seconds the user is still shut out for flooding on the site (0: not)."""
        key = self.keys.flooder(user_id)
        ms = await self.wire.call("PTTL", key, key=key)
        return max(0, int(ms)) / 1000

    async def site_list(self, key: str) -> dict[str, str]:
        """A site-wide moderation hash (``Keys.site_bans`` or ``site_mutes``): user -> JSON."""
        return _text_pairs(await self._do("HGETALL", key))

    async def site_entry(self, key: str, user_id: str) -> str | None:
        return _s(await self._do("HGET", key, user_id))

    async def set_site_entry(self, key: str, user_id: str, value: str | None) -> bool:
        """Set (or with None remove) a user's entry; True if it changed the hash's members."""
        if value is None:
            return bool(await self._do("HDEL", key, user_id))
        return bool(await self._do("HSET", key, user_id, value))

    async def publish_users(self, payload: bytes) -> None:
        """A publication to every node about users (sign-outs, bans)."""
        await self._do("PUBLISH", self.keys.users_channel, payload)

    async def announcement(self) -> str | None:
        return _s(await self._do("GET", self.keys.site_announcement))

    async def set_announcement(self, value: str | None, ttl_ms: int = 0) -> None:
        if value is None:
            await self._do("DEL", self.keys.site_announcement)
        else:
            await self._do("SET", self.keys.site_announcement, value, "PX", max(1, ttl_ms))

    async def chat_history(self, room_id: str) -> list[bytes]:
        """The room's recent chat messages, oldest first."""
        key = self.keys.chat(room_id)
        return list(await self.wire.call("LRANGE", key, 0, -1, key=key))

    # -- "my rooms" ---------------------------------------------------------------------
    async def seat_users(self, room_id: str, users: Mapping[str, bool], at_ms: int) -> None:
        """Note (True: score ``at_ms``) or forget (False) ``room_id`` in each user's set."""
        if not users:
            return
        writes = []
        for user_id, seated in users.items():
            key = self.keys.user_rooms(user_id)
            if seated:
                writes.append(self.wire.call("ZADD", key, at_ms, room_id, key=key))
            else:
                writes.append(self.wire.call("ZREM", key, room_id, key=key))
        await asyncio.gather(*writes)  # at once: one round trip (each user's key its own slot)

    async def user_room_ids(self, user_id: str, limit: int) -> list[str]:
        """The rooms a user sits in, most recent activity first."""
        raw = await self._do("ZREVRANGE", self.keys.user_rooms(user_id), 0, limit - 1)
        return [x.decode() for x in raw]

    async def forget_user_room(self, user_id: str, room_id: str) -> None:
        await self._do("ZREM", self.keys.user_rooms(user_id), room_id)

    # -- tokens -------------------------------------------------------------------------
    async def token_generation(self, user_id: str) -> int:
        raw = await self._do("GET", self.keys.user_gen(user_id))
        return int(raw) if raw is not None else 0

    async def sign_out(self, user_id: str, payload: Callable[[int], bytes]) -> int:
        """Raise the user's token generation: every token issued before dies; publish
        ``payload(new generation)`` so that every node closes the user's open sockets. The
        new generation."""
        gen = int(await self._do("INCR", self.keys.user_gen(user_id)))
        await self._do("PUBLISH", self.keys.users_channel, payload(gen))
        return gen

    # -- quotas (server/table/quotas.py) --------------------------------------------------------
    async def note_hosted(self, user_id: str, room_id: str, at: float) -> None:
        await self._do("ZADD", self.keys.user_hosted(user_id), repr(float(at)), room_id)

    async def hosted_rooms(self, user_id: str) -> list[tuple[str, bytes | None, bytes | None]]:
        """The rooms a user created, each with its ``status`` and ``seats`` (None: gone)."""
        raw = await self._do("ZRANGE", self.keys.user_hosted(user_id), 0, -1)
        ids = [x.decode() for x in raw]
        if not ids:
            return []
        rows = await self.wire.many(
            *(("HMGET", self.keys.room(room_id), "status", "seats") for room_id in ids)
        )
        return [(room_id, row[0], row[1]) for room_id, row in zip(ids, rows, strict=True)]

    async def forget_hosted(self, user_id: str, room_ids: Sequence[str]) -> None:
        await self._do("ZREM", self.keys.user_hosted(user_id), *room_ids)

    async def count_guest(self, address: str, hour: int) -> int:
        """One more guest for ``address`` in ``hour``; how many there are now."""
        key = self.keys.guests(address, hour)
        count, _ = await self.wire.many(("INCR", key), ("EXPIRE", key, 3700), key=key)
        return int(count)

    # -- the public room list ---------------------------------------------------------
    async def list_open(self, limit: int) -> list[str]:
        raw = await self._do("ZREVRANGE", self.keys.rooms_open, 0, limit - 1)
        return [x.decode() for x in raw]

    async def set_open(self, room_id: str, score: float | None) -> None:
        if score is None:
            await self._do("ZREM", self.keys.rooms_open, room_id)
        else:
            await self._do("ZADD", self.keys.rooms_open, repr(float(score)), room_id)

    async def publish(self, channel: str, payload: bytes) -> None:
        """Publish on a room's channel (sharded on a cluster) or a site-wide one."""
        if self.sharded and channel not in (self.keys.rooms_channel, self.keys.users_channel):
            await self.wire.call("SPUBLISH", channel, payload, key=channel)
        else:
            await self.wire.call("PUBLISH", channel, payload, key=channel)

    # -- the clock and the nodes ------------------------------------------------------
    async def schedule(self, name: str, due_ms: int, *, key: str | None = None) -> bool:
        """Add a clock member due at ``due_ms``, unless it is there already (then its
        time stays: a deadline is set once). True if added."""
        return bool(await self._do("ZADD", key or self.keys.clock_of(name), "NX", due_ms, name))

    async def schedule_many(self, members: Sequence[tuple[str, int]]) -> None:
        """Add several clock members (each unless there already), one command per bucket
        (the members of one room: one command)."""
        by_bucket: dict[str, list[str | int]] = {}
        for name, due in members:
            by_bucket.setdefault(self.keys.clock_of(name), []).extend((due, name))
        for key, pairs in by_bucket.items():
            await self.wire.call("ZADD", key, "NX", *pairs, key=key)

    async def reschedule(self, name: str, due_ms: int) -> None:
        """Move a member (claimed or not) to ``due_ms``; nothing if it is gone."""
        await self._do("ZADD", self.keys.clock_of(name), "XX", due_ms, name)

    async def unschedule(self, name: str) -> None:
        await self._do("ZREM", self.keys.clock_of(name), name)

    async def claim(self, key: str, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """Due members of ``key`` (clock or nodes), leased to the caller until
        ``now_ms + lease_ms``."""
        raw: Any = await self._claim(keys=[key], args=[now_ms, now_ms + lease_ms, limit])
        return [cast(str, _s(x)) for x in raw]

    async def claim_clock(
        self, now_ms: int, lease_ms: int, limit: int
    ) -> tuple[list[tuple[str, str]], bool, int | None]:
        """The due members of every clock bucket, each leased to the caller until
        ``now_ms + lease_ms`` (as ``claim``), as (bucket, member); whether some bucket had
        more than ``limit`` due (look again at once); and when the earliest member left is
        due (epoch ms; None: the clock is empty). One round trip on one Redis; on a cluster
        one per bucket, all at once (each on its own primary's connection)."""
        buckets = self.keys.clock_buckets
        args = [now_ms, now_ms + lease_ms, limit]
        if self.sharded:
            parts: list[Any] = await asyncio.gather(
                *(self._claim_clock(keys=[key], args=args) for key in buckets)
            )
            claimed = [part[0] for part in parts]
            firsts = [part[1] for part in parts]
        else:
            reply: Any = await self._claim_clock(keys=list(buckets), args=args)
            claimed, firsts = reply[:-1], [reply[-1]]
        names = [[cast(str, _s(x)) for x in part] for part in claimed]
        found = [(key, name) for key, part in zip(buckets, names, strict=True) for name in part]
        dues = [int(float(cast(str, _s(x)))) for x in firsts if _s(x)]
        return found, any(len(part) >= limit for part in names), min(dues, default=None)

    async def take(self, name: str, latest_ms: int, lease_end: int) -> bool:
        """Lease the clock member ``name`` to the caller until ``lease_end`` if its score is
        still at most ``latest_ms`` (nobody claimed it). True if taken; ``done`` removes it."""
        key = self.keys.clock_of(name)
        return bool(await self._take(keys=[key], args=[name, latest_ms, lease_end]))

    async def done(self, key: str, name: str, lease_end: int) -> None:
        """Remove a claimed member (unless re-armed or claimed again since)."""
        await self._done(keys=[key], args=[name, lease_end])

    async def adopt_legacy_clock(self, limit: int = 100) -> int:
        """Move members that a node of an older version put on its one ``clock`` key to
        their buckets (their scores, leases included, kept); how many. A member moved while
        an old node handles it may fire twice: every member's handler is idempotent."""
        raw = await self._do("ZRANGE", self.keys.clock_legacy, 0, limit - 1, "WITHSCORES")
        for name, score in zip(raw[::2], raw[1::2], strict=True):
            member_name = name.decode()
            await self._do("ZADD", self.keys.clock_of(member_name), "NX", score, member_name)
            await self._do("ZREM", self.keys.clock_legacy, member_name)
        return len(raw) // 2

    async def heartbeat(
        self,
        instance: str,
        expires_ms: int,
        keep_seconds: int,
        info: Mapping[str, str] | None = None,
        *,
        now_ms: int = 0,
        shown_seconds: int = 3600,
    ) -> bool:
        """This node instance is alive until ``expires_ms``. False if it was missing from
        ``nodes`` (first beat, or it was reaped as dead while alive: re-announce sockets).

        ``info`` (what the node says of itself) is kept ``shown_seconds`` after the last
        beat, with the instance in ``nodes_seen``: the console shows it dead until then."""
        commands: list[tuple[Any, ...]] = [
            ("ZADD", self.keys.nodes, expires_ms, instance),
            ("EXPIRE", self.keys.node_rooms(instance), keep_seconds),
        ]
        if info is not None:
            commands += [
                ("HSET", self.keys.node_info(instance), *_flat(info)),
                ("EXPIRE", self.keys.node_info(instance), shown_seconds),
                ("ZADD", self.keys.nodes_seen, now_ms, instance),
                ("ZREMRANGEBYSCORE", self.keys.nodes_seen, 0, now_ms - shown_seconds * 1000),
            ]
        added, *_ = await self.wire.many(*commands)
        return not added

    async def node_room_ids(self, instance: str) -> list[str]:
        raw = await self._do("SMEMBERS", self.keys.node_rooms(instance))
        return sorted(x.decode() for x in raw)

    async def forget_node(self, instance: str, lease_end: int | None = None) -> None:
        """A node instance reaped (claimed until ``lease_end``) or stopped (None): its room
        index and its heartbeat go -- unless a reaped one beat again meanwhile. A stopped
        node's heartbeat info goes too; a reaped one's stays (the console shows it dead)."""
        await self._do("DEL", self.keys.node_rooms(instance))
        await self._do("HDEL", self.keys.draining, instance)
        if lease_end is None:
            await self.wire.many(
                ("ZREM", self.keys.nodes, instance),
                ("ZREM", self.keys.nodes_seen, instance),
                ("DEL", self.keys.node_info(instance)),
            )
        else:
            await self.done(self.keys.nodes, instance, lease_end)

    # -- the admin console's reads (server/admin/) ------------------------------------
    async def all_room_ids(self, limit: int) -> list[str]:
        """Every room with a hash in Redis (private ones too), at most ``limit``, by a
        SCAN: the admin console's list, not a hot path."""
        pattern = f"{self.keys.prefix}room:{{*}}"
        found: set[str] = set()
        async for raw in self.redis.scan_iter(match=pattern, count=500):
            name = cast(str, _s(raw))
            if name.endswith("}"):  # the room hash, not its log, seal, presence or chat
                found.add(name[name.index("{") + 1 : -1])
                if len(found) >= limit:
                    break
        return sorted(found)

    async def room_statuses(self, limit: int) -> dict[str, int]:
        """How many rooms are in each status (lobby, playing, finished, abandoned), over
        every room with a hash in Redis (at most ``limit``): ``/metrics``, once a scrape."""
        ids = await self.all_room_ids(limit)
        counts: dict[str, int] = {}
        replies = await self.wire.many(*(("HGET", self.keys.room(i), "status") for i in ids))
        for status in replies:
            if status is not None:
                name = cast(str, _s(status))
                counts[name] = counts.get(name, 0) + 1
        return counts

    async def archive_backlog(self) -> tuple[int, int | None, int]:
        """The records not yet in Postgres, over every archive stream and the legacy one
        (the archivers delete each once written), when the oldest of them was added (epoch
        ms, None if none), and the records in the streams' dead letters."""
        streams = (*self.keys.archive_streams, self.keys.archive_legacy)
        commands: list[tuple[Any, ...]] = []
        for stream in streams:
            commands.append(("XLEN", stream))
            commands.append(("XRANGE", stream, "-", "+", "COUNT", 1))
            commands.append(("XLEN", self.keys.archive_dead(stream)))
        replies = await self.wire.many(*commands)
        length = sum(int(n) for n in replies[0::3])
        firsts = [int(f[0][0].split(b"-")[0]) for f in replies[1::3] if f]
        dead = sum(int(n) for n in replies[2::3])
        return length, (min(firsts) if firsts else None), dead

    async def lobby_locked(self) -> str | None:
        """The reason the lobby is locked, or None when rooms may be created."""
        return _s(await self._do("GET", self.keys.lobby_lock))

    async def lock_lobby(self, reason: str | None) -> None:
        """Lock the lobby (``reason``) or unlock it (None)."""
        if reason is None:
            await self._do("DEL", self.keys.lobby_lock)
        else:
            await self._do("SET", self.keys.lobby_lock, reason)

    async def live_nodes(self) -> list[tuple[str, int | None, int, dict[str, str]]]:
        """Node instances in ``nodes`` or heard from lately (``nodes_seen``): (instance,
        heartbeat expiry in epoch ms or None once reaped, rooms it has sockets in, what its
        last heartbeat said)."""
        beating = await self._do("ZRANGE", self.keys.nodes, 0, -1, "WITHSCORES")
        seen = await self._do("ZRANGE", self.keys.nodes_seen, 0, -1)
        expiry = {
            name.decode(): int(float(score))
            for name, score in zip(beating[::2], beating[1::2], strict=True)
        }
        names = sorted({*expiry, *(name.decode() for name in seen)})
        commands: list[tuple[Any, ...]] = []
        for name in names:
            commands.append(("SCARD", self.keys.node_rooms(name)))
            commands.append(("HGETALL", self.keys.node_info(name)))
        replies = await self.wire.many(*commands) if commands else []
        out = []
        for i, name in enumerate(names):
            count, raw = replies[2 * i], replies[2 * i + 1]
            out.append((name, expiry.get(name), int(count), _text_pairs(raw)))
        return out

    async def mark_draining(self, instance: str, info: str) -> None:
        """``instance`` drains (or is asked to): ``info`` is its JSON ``{by, reason, at}``."""
        await self._do("HSET", self.keys.draining, instance, info)

    async def lift_draining(self, instance: str) -> None:
        """An admin's drain of ``instance`` is lifted: the node sees its field gone within a
        heartbeat and serves again (server/realtime/drain.py)."""
        await self._do("HDEL", self.keys.draining, instance)

    async def draining_of(self, instance: str) -> str | None:
        """Why ``instance`` drains (its JSON), or None if nobody asked it to."""
        return _s(await self._do("HGET", self.keys.draining, instance))

    async def draining_nodes(self) -> dict[str, str]:
        """Every instance draining or asked to: instance -> its JSON ``{by, reason, at}``."""
        return _text_pairs(await self._do("HGETALL", self.keys.draining))

    # -- the archive stream -----------------------------------------------------------
    async def archive(self, room_id: str, record: bytes) -> None:
        """A record of the room's game onto the room's archive stream."""
        await self._do("XADD", self.keys.archive_of(room_id), "*", "record", record)

    async def all_room_keys(self, room_id: str) -> Sequence[Any]:
        """Every key of one room (tests and tools)."""
        return [k async for k in self.redis.scan_iter(match=f"{self.keys.room(room_id)}*")]
