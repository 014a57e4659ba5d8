"""One websocket, from the handshake to the close: validation, rate limits and dispatch.

Every frame is checked before anything else happens (size, rate, JSON, type, fields); a
refused frame gets an ``error`` naming the rule, with the ``ref`` the client gave, and
changes nothing. A user's sockets on a node share one message budget (``Floodgate``); a
flooding socket is closed with 4008 (a frame too big to read, by uvicorn with 1009), and its
user may open no other socket on any node for ``flood_cooldown_seconds``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

import msgspec
from starlette.types import Receive
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from server import protocol as p
from server.identity.signing import parsed
from server.identity.text import BadText, clean_text
from server.identity.tokens import BadToken, Claims, Identity, Tokens, is_bot_account
from server.realtime.hub import Connection, Hub
from server.realtime.resume import entry_wait
from server.realtime.signed import DeviceKey, act_proof, checked
from server.redis.store import Store
from server.settings import Settings
from server.table import moderation
from server.table.reveal import Sealing, digest
from server.table.room import LOBBY, Room, RoomError, now_ms
from server.table.rooms import RoomService

# A player's move frames, by the name their step latency is measured under (server/ops/metrics.py).
MOVE_FRAMES: dict[type, str] = {
    p.Act: "act",
    p.Commit: "commit",
    p.Reveal: "reveal",
    p.Takeback: "takeback",
}

log = logging.getLogger("tortuga.session")

CLOSE_TOO_BIG = 1009  # RFC 6455 "message too big": uvicorn's close past ``ws_max_size``
REF_OF_REFUSED = 1024  # bytes: a rate-limited frame longer than this is answered without its ref


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up."""

    __slots__ = ("at", "burst", "rate", "tokens")  # one per user on a node

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Floodgate:
    """A node's message budget per user, and who is shut out for flooding.

    All the sockets of one user on this node draw on one ``TokenBucket`` (``rate`` a
    second, ``burst`` saved up): opening more sockets buys no more messages. A user whose
    socket was closed for flooding (``CLOSE_FLOOD``) may open none for ``cooldown``
    seconds, on this node or any other (``site``: an expiring key in Redis, written when
    the user is shut out here and read when a socket signs in): a flooder that reconnects
    at once, anywhere, is turned away after its ``auth``, before it costs anything more."""

    def __init__(self, rate: float, burst: int, cooldown: float, site: Store | None = None) -> None:
        self.rate = rate
        self.burst = burst
        self.cooldown = cooldown
        self.site = site  # None: this node only
        self._buckets: dict[str, tuple[TokenBucket, int]] = {}  # user -> (bucket, sockets)
        self._shut: dict[str, float] = {}  # user -> until (monotonic)
        self._writes: set[asyncio.Task[None]] = set()

    def bucket(self, user: str) -> TokenBucket:
        """The user's bucket, for one more of its sockets (``release`` when it closes)."""
        bucket, sockets = self._buckets.get(user) or (TokenBucket(self.rate, self.burst), 0)
        self._buckets[user] = (bucket, sockets + 1)
        return bucket

    def release(self, user: str) -> None:
        bucket, sockets = self._buckets[user]
        if sockets <= 1:
            del self._buckets[user]
        else:
            self._buckets[user] = (bucket, sockets - 1)

    def shut(self, user: str) -> None:
        now = time.monotonic()
        if len(self._shut) > 1000:  # forget the ones whose time is over
            self._shut = {u: t for u, t in self._shut.items() if t > now}
        self._shut[user] = now + self.cooldown
        if self.site is not None:  # the other nodes learn it from Redis
            task = asyncio.get_running_loop().create_task(self._tell_site(user))
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)

    async def _tell_site(self, user: str) -> None:
        assert self.site is not None
        try:
            await self.site.shut_flooder(user, self.cooldown)
        except Exception:  # this node still shuts them out; the others may not
            log.warning("could not tell the site a flooder is shut out", exc_info=True)

    async def shut_anywhere(self, user: str) -> float:
        """Seconds the user is still shut out for, here or by another node (0: not)."""
        here = self.shut_for(user)
        if here or self.site is None:
            return here
        return await self.site.flooder_left(user)

    def shut_for(self, user: str) -> float:
        """Seconds the user is still shut out for (0: not)."""
        until = self._shut.get(user)
        if until is None:
            return 0.0
        left = until - time.monotonic()
        if left <= 0:
            del self._shut[user]
            return 0.0
        return left


@dataclass
class Services:
    settings: Settings
    tokens: Tokens
    rooms: RoomService
    sealing: Sealing
    hub: Hub
    identity: Identity
    gate: Floodgate


class _Auth(msgspec.Struct, tag_field="type", tag="auth", forbid_unknown_fields=True):
    token: str
    ref: p.Ref = None
    key: str | None = None  # the kid of the device key this socket signs its moves with


class UnknownKey(BadToken):
    """``auth`` named a device key its user has not registered (register it, then again)."""

    code = p.UNKNOWN_KEY
    close = p.CLOSE_UNKNOWN_KEY


async def authenticate(socket: WebSocket, services: Services) -> tuple[Claims, DeviceKey | None]:
    """The first frame must be ``auth {token, key?}`` (never the URL: it ends up in logs);
    BadToken otherwise, or if it does not come within ``auth_timeout_seconds``; with the
    device key it names (``UnknownKey``: not one its user registered)."""
    if "token" in socket.query_params:
        raise BadToken("send the token in the first frame (auth), never in the URL")
    try:
        message = await asyncio.wait_for(socket.receive(), services.settings.auth_timeout_seconds)
    except TimeoutError:
        raise BadToken("no auth frame") from None
    if message["type"] == "websocket.disconnect":  # it left: nothing to refuse
        raise WebSocketDisconnect(message.get("code", 1000))
    frame = message.get("text") or message.get("bytes") or b""
    if message["type"] != "websocket.receive" or len(frame) > 4096:
        raise BadToken("the first frame is auth {token}")
    try:
        auth = msgspec.json.decode(frame, type=_Auth)
    except msgspec.DecodeError:
        raise BadToken("the first frame is auth {token}") from None
    claims = services.tokens.claims(auth.token)
    shut = await services.gate.shut_anywhere(claims.user.id)
    if shut:  # before anything that costs more
        raise ShutOut(shut)
    client = socket.client
    claims = await services.identity.current(claims, client.host if client is not None else None)
    if auth.key is None:
        return claims, None
    public = await services.rooms.store.device_key(claims.user.id, auth.key[:64])
    if public is None:
        raise UnknownKey("no such device key is registered for this user: register it first")
    return claims, (auth.key, parsed(public))


class ShutOut(Exception):
    """The user was closed for flooding a moment ago, here or elsewhere (``Floodgate``)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"closed for flooding: no new socket for {math.ceil(seconds)} s")
        self.seconds = seconds


async def serve(socket: WebSocket, services: Services, receive: Receive | None = None) -> None:
    """The life of one websocket (``/ws``): the Origin is checked before the upgrade is
    accepted, then the first frame authenticates it, then its frames are read and answered
    until it closes.

    ``receive``: the ASGI ``receive`` under ``socket`` (the node's ``__call__`` passes it).
    Past the handshake frames are read from it directly rather than through Starlette's
    ``WebSocket.receive``, which is one more coroutine suspended for the socket's life
    (memory per idle socket); its state is kept as Starlette keeps it."""
    origin = socket.headers.get("origin")
    if origin is not None and origin.rstrip("/") not in services.settings.origins():
        log.warning("websocket from a foreign origin", extra={"kind": origin[:100]})
        await _refuse(socket, None, p.CLOSE_FORBIDDEN_ORIGIN, "")  # before accept: HTTP 403
        return
    try:
        await socket.accept()
    except _GONE:
        log.debug("socket left before it was accepted")
        return
    # Past the Origin check no header is read again: let them go rather than keep them for
    # the socket's life (a browser's, cookies included, are 1-2 KB).
    socket.scope["headers"].clear()
    socket.scope.pop("extensions", None)  # only for a refusal before the accept
    try:
        claims, device_key = await authenticate(socket, services)
    except BadToken as exc:  # Banned too: ``banned``, closed with 4010
        services.rooms.store.metrics.error_sent(exc.code)
        await _refuse(socket, p.error(exc.code, str(exc)), exc.close, exc.code)
        return
    except ShutOut as exc:
        services.rooms.store.metrics.error_sent(p.RATE_LIMITED)
        # When to try again: a client waits that long instead of knocking every second.
        refusal = {
            **p.error(p.RATE_LIMITED, str(exc)),
            "retry_after_ms": math.ceil(exc.seconds * 1000),
        }
        await _refuse(socket, refusal, p.CLOSE_FLOOD, "flooding")
        return
    except WebSocketDisconnect:
        log.debug("socket left before signing in")
        return
    user = claims.user
    if not services.hub.admit(user):
        limit = services.settings.max_sockets_per_user
        message = f"at most {limit} open sockets per user on a node"
        services.rooms.store.metrics.error_sent(p.TOO_MANY_SOCKETS)
        await _refuse(
            socket, p.error(p.TOO_MANY_SOCKETS, message), p.CLOSE_TOO_MANY, "too many sockets"
        )
        return
    # Everything below is one coroutine, not a chain of them: an idle socket keeps each
    # frame of its chain alive (memory per idle socket).
    try:
        conn = services.hub.connection(user, socket, claims.gen)
        conn.mark = claims.mark  # an address ban reaches the sockets of guests made there
        conn.key = device_key  # its moves are signed with it (server/realtime/signed.py)
        session = Session(conn, services)
        conn.send(_hello(services, claims))  # no local: this coroutine lasts as long as the socket
        try:
            # The reading loop, here rather than in a method of its own: an idle socket
            # keeps every coroutine of its chain alive (memory per idle socket).
            read = receive or socket.receive
            while True:
                try:
                    inbound = await read()
                except (WebSocketDisconnect, RuntimeError):
                    break
                kind = inbound["type"]
                if kind == "websocket.disconnect":
                    socket.client_state = WebSocketState.DISCONNECTED  # as Starlette's receive
                    if inbound.get("code") == CLOSE_TOO_BIG:
                        # A frame past ``ws_max_size`` (uvicorn closed the socket): no client
                        # of ours sends one. Its user is shut out as a flooder is.
                        log.warning("frame too big", extra={"conn": conn.id})
                        services.gate.shut(user.id)
                    break
                if kind != "websocket.receive" or not await session.answer(inbound):
                    break
                del inbound  # an idle socket keeps none of its last frame (memory per idle socket)
        finally:
            services.gate.release(user.id)
            await session.leave_room()
            services.hub.watchers.discard(conn)
            services.hub.forget(conn)
            conn.close(1000, "bye")
            writer = conn.writer
            if writer is not None:
                # Let the writer flush what is queued (an error, a flood close) and close.
                try:
                    await asyncio.wait_for(writer, 2.0)
                except (TimeoutError, asyncio.CancelledError):
                    writer.cancel()
    finally:
        services.hub.release(user)


# A socket whose peer is gone: Starlette turns a failed send into WebSocketDisconnect, and a
# send after the close into RuntimeError; uvicorn's ClientDisconnected is an OSError.
_GONE = (WebSocketDisconnect, RuntimeError, OSError)


async def _refuse(socket: WebSocket, frame: dict[str, Any] | None, code: int, reason: str) -> None:
    """Tell a socket why it is refused (``frame``, if any) and close it. A peer that left
    first is no error of the server's: it is let go with a debug line, not a traceback."""
    try:
        if frame is not None:
            await socket.send_text(p.encode(frame))
        await socket.close(code, reason)
    except _GONE:
        log.debug("socket left before its refusal", extra={"code": code})


def _hello(services: Services, claims: Claims) -> dict[str, Any]:
    hello: dict[str, Any] = {
        "type": "hello",
        "user": claims.user.to_json(),
        "node": services.settings.node_id,
    }
    fresh = services.identity.fresh(claims)
    if fresh is not None:
        hello["token"] = fresh
    return hello


class Session:
    __slots__ = ("bucket", "conn", "s", "strikes")  # one per socket (memory per socket)

    def __init__(self, conn: Connection, services: Services) -> None:
        self.conn = conn
        self.s = services
        self.bucket = services.gate.bucket(conn.user.id)  # shared by the user's sockets
        self.strikes = 0

    def error(self, code: str, message: str, ref: p.Ref = None) -> None:
        self.conn.send(p.error(code, message, ref))

    async def answer(self, message: Any) -> bool:
        """Check one frame and act on it; False when the socket is closed for flooding."""
        settings = self.s.settings
        frame: str | bytes = message.get("text") or message.get("bytes") or b""
        if not self.bucket.take():
            self.strikes += 1
            # The ref of a small frame only: a refused frame costs no parsing to speak of.
            self.error(p.RATE_LIMITED, "slow down", p.ref_of(frame, REF_OF_REFUSED))
            if self.strikes >= settings.flood_strikes:
                log.warning("flood", extra={"conn": self.conn.id, "user": self.conn.user.id})
                self.s.gate.shut(self.conn.user.id)
                self.conn.close(p.CLOSE_FLOOD, "flooding")
                return False
            return True
        try:
            inbound = p.decode(frame, settings.max_frame_bytes, settings.max_json_depth)
        except p.ProtocolError as exc:
            self.error(exc.code, exc.message, exc.ref)
            return True
        started = time.perf_counter()
        try:
            await self.dispatch(inbound)
        except RoomError as exc:
            self.error(exc.code, exc.message, inbound.ref)
        except Exception:
            log.exception("message failed", extra={"conn": self.conn.id})
            self.error("server-error", "something went wrong", inbound.ref)
        frame_type = MOVE_FRAMES.get(type(inbound))
        if frame_type is not None:
            elapsed = time.perf_counter() - started
            self.s.rooms.store.metrics.step_answered(frame_type, elapsed)
        return True

    # -- the room this socket follows -----------------------------------------------------
    def room_id(self) -> str:
        if self.conn.room_id is None:
            raise RoomError(p.NOT_IN_ROOM, "join a room first")
        return self.conn.room_id

    async def enter(self, room: Room, role: str, version: int | None) -> None:
        if self.conn.room_id is not None and self.conn.room_id != room.id:
            await self.leave_room()
        refusal = moderation.room_refusal(room, self.conn.user.id, self.marks(room))
        if refusal is not None:
            raise refusal
        if role == "spectator" and not room.spectators:
            raise RoomError(p.NO_SPECTATORS, "this room has no spectators")
        if not room.spectators and room.status != LOBBY and room.seat_of(self.conn.user.id) is None:
            raise RoomError(p.NO_SPECTATORS, "the game has started: this room has no spectators")
        conn = self.conn
        conn.room_id = room.id
        conn.role = role
        conn.seat = room.seat_of(conn.user.id) if role == "player" else None
        await self.s.hub.follow(conn, room.id)
        conn.sync(room.id, version)
        await self.s.rooms.presence.arrive(room.id, conn.id, conn.seat)
        # A safety net: if a bot owes a move here or a deadline is missing from the clock
        # (their trigger was lost with a node), the bot moves now, the deadline is re-armed.
        self.s.rooms.hooks.visit(room.id)

    def marks(self, room: Room) -> tuple[str, ...]:
        """The address marks a room ban may name for this socket: its guest's (the token's)
        and its own address's (reckoned only for a room with an address ban)."""
        if not room.banned_marks:
            return ()
        client = self.conn.socket.client
        own = self.s.tokens.mark(client.host) if client is not None else None
        return tuple(m for m in (self.conn.mark, own) if m)

    async def leave_room(self) -> None:
        conn = self.conn
        room_id = conn.room_id
        if room_id is None:
            return
        conn.room_id = None
        conn.synced = False
        await self.s.hub.unfollow(conn, room_id)
        try:
            await self.s.rooms.presence.depart(room_id, conn.id, conn.seat)
        except Exception:
            log.exception("depart failed", extra={"room": room_id})

    async def my_seat(self, claimed: int | None) -> tuple[str, int]:
        """The room and the sender's own seat (players only)."""
        room, seat = await self.my_room(claimed)
        return room.id, seat

    async def my_room(self, claimed: int | None, room: Room | None = None) -> tuple[Room, int]:
        """The room as just read (or ``room``, read by the caller) and the sender's own
        seat (players only). The move's handler goes by this read: one per move."""
        room_id = self.room_id()
        if self.conn.role != "player":
            raise RoomError(p.NOT_A_PLAYER, "spectators do not play")
        if room is None:
            room = await self.s.rooms.get(room_id)
        seat = room.seat_of(self.conn.user.id)
        if seat is None:
            raise RoomError(p.NOT_SEATED, "you have no seat here")
        if claimed is not None and claimed != seat:
            raise RoomError(p.NOT_YOUR_SEAT, f"your seat is {seat}")
        return room, seat

    async def recalled_act(self, m: p.Act) -> int | None:
        """The move made against the room as this node's own last step of it left it
        (``Steps.written``: no read for a move at a table whose sockets are all here), or
        None when that memory is missing or of no use; then the move goes by a read."""
        steps = self.s.rooms.steps
        recalled = steps.written(self.room_id())
        if recalled is None or recalled.version < self.conn.version:
            return None  # none, or behind what this socket was sent: another node wrote since
        try:
            room, seat = await self.my_room(m.seat, recalled)
        except RoomError:
            return None
        proof = act_proof(self.conn.key, m, room.id, seat)
        return await steps.act_recalled(room, seat, m.move, m.version, proof)

    async def entry_refused(self, room_id: str, ref: p.Ref) -> bool:
        """A join or a resume is priced (``resume.entry_wait``): over the user's or the
        address's budget it is refused with ``rate-limited {retry_after_ms}`` before the
        room is read, and True is returned."""
        client = self.conn.socket.scope.get("client")  # a trusted proxy's X-Forwarded-For applied
        mark = moderation.address_mark(self.s.settings.secret, client[0]) if client else None
        wait = await entry_wait(self.s.rooms.store, self.s.settings, self.conn.user.id, mark)
        if not wait:
            return False
        refusal = p.error(p.RATE_LIMITED, "too many joins and resumes: wait a moment", ref)
        self.conn.send({**refusal, "room": room_id, "retry_after_ms": wait})
        return True

    # -- dispatch -------------------------------------------------------------------------
    async def dispatch(self, m: p.Inbound) -> None:
        rooms = self.s.rooms
        user = self.conn.user
        match m:
            case p.Ping():
                self.conn.send({"type": "pong", "t": m.t})
            case p.Join():
                if await self.entry_refused(m.room, m.ref):
                    return
                await self.enter(await rooms.get(m.room), m.as_, None)
            case p.Resume():
                if self.conn.room_id is not None and self.conn.room_id != m.room:
                    raise RoomError(p.WRONG_ROOM, "this socket follows another room; leave it")
                if await self.entry_refused(m.room, m.ref):
                    return
                room = await rooms.get(m.room)
                role = m.as_ or ("player" if room.seat_of(user.id) is not None else "spectator")
                await self.enter(room, role, m.version)
            case p.Leave():
                room_id = self.room_id()
                room = await rooms.get(room_id)
                if room.status == LOBBY and room.seat_of(user.id) is not None:
                    await rooms.seats.stand(room_id, user.id)
                await self.leave_room()
                self.conn.send({"type": "left", "room": room_id})
            case p.Sit():
                if self.conn.role != "player":
                    raise RoomError(p.NOT_A_PLAYER, "join as a player to sit")
                owner = await self.owner_of_bot(user.id)
                await rooms.seats.sit(self.room_id(), user.id, user.name, m.seat, owner)
            case p.Stand():
                await rooms.seats.stand(self.room_id(), user.id)
            case p.Ready():
                await self.ready(m)
            case p.Start():
                await rooms.seats.start(self.room_id(), user.id)
            case p.AddBot():
                await rooms.seats.add_bot(self.room_id(), user.id, m.seat, m.level)
            case p.RemoveBot():
                await rooms.seats.remove_bot(self.room_id(), user.id, m.seat)
            case p.Kick():
                await rooms.seats.kick(self.room_id(), user.id, m.seat)
            case p.StandIn():
                await rooms.presence.stand_in(await rooms.get(self.room_id()), user.id, m.seat)
            case p.Act():
                if await self.recalled_act(m) is None:
                    room, seat = await self.my_room(m.seat)
                    proof = act_proof(self.conn.key, m, room.id, seat)
                    await rooms.steps.act(room.id, seat, m.move, m.version, room=room, proof=proof)
            case p.Takeback():
                room_id, seat = await self.my_seat(None)
                await rooms.steps.takeback(room_id, seat, m.version)
            case p.Abandon():
                await rooms.ending.abandon(self.room_id(), user.id, "host")
            case p.Commit():
                room, seat = await self.my_room(m.seat)
                signed = checked(
                    self.conn.key, m.sig, kind="commit", room=room.id, version=room.version,
                    seat=seat, c=m.digest,
                )  # fmt: skip
                await self.s.sealing.commit(
                    room.id, seat, m.phase, m.digest, room=room, signed=signed
                )
            case p.Reveal():
                room, seal = await rooms.get_with_seal(self.room_id())
                room, seat = await self.my_room(m.seat, room)
                signed = checked(
                    self.conn.key, m.sig, kind="reveal", room=room.id, version=room.version,
                    seat=seat, c=digest(m.phase, seat, m.move, m.salt),
                )  # fmt: skip
                await self.s.sealing.reveal(
                    room.id, seat, m.phase, m.move, m.salt, read=(room, seal), signed=signed
                )
            case p.Chat():
                await self.chat(m)
            case p.WatchRooms():
                await self.watch(m.watch)

    async def ready(self, m: p.Ready) -> None:
        """Ready (or not), with the seat's seed contribution, device-signed (``entropy``)."""
        room_id = self.room_id()
        signed = None
        if m.entropy is not None:
            seat = (await self.s.rooms.get(room_id)).seat_of(self.conn.user.id)
            signed = checked(
                self.conn.key, m.sig, kind="entropy", room=room_id, version=0,
                seat=-1 if seat is None else seat, c=m.entropy,
            )  # fmt: skip
        await self.s.rooms.seats.ready(room_id, self.conn.user.id, m.ready, m.entropy, signed)

    async def owner_of_bot(self, user_id: str) -> tuple[str, str] | None:
        """The owner (id, name) of this bot account (None: no bot); revoked: refused."""
        if not is_bot_account(user_id):
            return None
        account = await self.s.rooms.store.bot_account(user_id)
        if account is None or account.get("revoked"):
            raise RoomError(p.BAD_TOKEN, "this bot account was revoked")
        return str(account["owner"]), str(account["owner_name"])

    async def chat(self, m: p.Chat) -> None:
        room_id = self.room_id()
        try:
            text = clean_text(m.text, self.s.settings.chat_max_chars, "a chat message")
        except BadText as exc:
            code = {"empty": p.BAD_MESSAGE, "too-long": p.CHAT_TOO_LONG}.get(exc.reason)
            raise RoomError(code or p.BAD_TEXT, exc.message) from None
        room = await self.s.rooms.get(room_id)
        if not room.spectators and room.status != LOBBY and room.seat_of(self.conn.user.id) is None:
            raise RoomError(p.NO_SPECTATORS, "this room has no spectators: only its players chat")
        refusal = await moderation.chat_refusal(self.s.rooms.store, room, self.conn.user.id)
        if refusal is not None:
            raise refusal
        # One bucket per user, in Redis: every socket of the user, on every node, draws on it.
        settings, store = self.s.settings, self.s.rooms.store
        key = store.keys.user_chat(self.conn.user.id)
        if not await store.take_token(key, now_ms(), settings.chat_per_second, settings.chat_burst):
            raise RoomError(p.RATE_LIMITED, "one chat message at a time")
        await self.s.rooms.chat.say(room_id, self.conn.user.id, self.conn.user.name, text)

    async def watch(self, on: bool) -> None:
        hub = self.s.hub
        if not on:
            self.conn.watching = False
            hub.watchers.discard(self.conn)
            return
        self.conn.watching = True
        hub.watchers.add(self.conn)
        listed: list[Any] = await self.s.rooms.listing.list_public(self.s.settings.rooms_listed)
        self.conn.send({"type": "rooms", "full": True, "rooms": listed})
