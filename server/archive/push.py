"""Web Push: "your move", "a game starts", "a game ends" and "you are invited" on a player's
devices while no tab of theirs is open on the room (docs/PROTOCOL.md, "Web Push").

The node that wrote a step hears of it (``Hooks.on_written``, with its log entry) and hands
it to ``Pusher.written``: a bounded queue, so nothing of this runs on the step's path and a
full queue drops steps rather than piling up work. A few sender tasks take them off the
queue; for each step they

1. read the room with its presence (the seats' users; which seats have a socket open on any
   node -- presence is in Redis -- and which are taken over),
2. decide each seated player's push: ``end`` when the step ended the game, ``start`` at the
   deal, else ``turn`` when the player's turn begins at this version (the turn mark in
   Redis, ``ReachStore.push_turn``, says so to one caller only, and never twice for the
   same turn); ``start``, ``end`` and each turn are once-only keys (``SET NX``) -- so a
   step that several nodes look at is pushed once, cluster-wide,
3. skip players with a socket open to the room, seats taken over (a stand-in plays them
   now) and bots; then each device of the player that chose that kind and is not in its
   quiet hours gets one push: the room's code and the game's name, written in the device's
   language -- never a card, a score or anything hidden -- encrypted to the device's keys
   and signed with the site's VAPID key (server/identity/webpush.py), POSTed with a timeout.
   A turn that quiet hours kept from every device of its player is asked again when the
   first of them end (the clock's ``quiet|<room>|<seat>`` member, ``Hooks.on_quiet_over``):
   pushed then, once, if the seat still owes it and no tab of theirs is open on the room.

Two more kinds of job come off the same queue. A seat a slow game holds for its player past
the grace time (``Hooks.on_seat_held``, server/table/deadlines.py): "your move" if the
seat owes a move now and that turn was not pushed yet -- the player had the room open when
it began, so nothing was sent then (the turn's once-only key, shared with the steps' path).
And a new room's invitations (``Hooks.on_invited``: "Play again" invites the previous
game's players): ``invite`` to each invited player not seated in it yet, once per room.
``reachable`` answers the clock's question, whether a user has a device that wants "your
move" (then a slow game holds their seat rather than giving it to a stand-in).

A push service's 404 or 410 means the subscription is gone: its row is dropped. A
subscription made before its user signed out everywhere is dropped too.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import httpx

from engines.registry import GAMES
from server.archive import devices
from server.archive.db import Database
from server.archive.models import PushSubscription
from server.identity import webpush
from server.identity.push_transport import PrivateAddress, PublicTransport
from server.identity.webpush import BadSubscription, Subscription, VapidKey
from server.ops.metrics import PUSHES
from server.redis.store import member
from server.table.entry import ABANDON, START, Entry
from server.table.room import FINISHED, PLAYING, RoomError, RoomReader, phase_name

log = logging.getLogger("tortuga.push")

MARK_SECONDS = 30 * 24 * 3600  # a turn mark outlives any pause of a slow game
ONCE_SECONDS = 7 * 24 * 3600  # a start or end push's once-only key
GONE = (404, 410)  # the push service no longer knows the subscription
JOB_SECONDS = 30.0  # one step's pushes, every device included, at most
SEATED_ROOMS = 10_000  # rooms whose players this node keeps to sift its steps by
SEATED_SECONDS = 60.0  # ... for this long after it read them

Phrase = Callable[[str, str, dict[str, object]], str]  # (lang, key, params) -> text


@dataclass(frozen=True, slots=True)
class PushSettings:
    subject: str  # VAPID ``sub``: a mailto: or https URL
    hosts: tuple[str, ...]
    allow_private: bool
    timeout: float
    queue: int
    senders: int
    ttl: int


@dataclass(frozen=True, slots=True)
class Held:
    """A slow game waits for ``seat``'s player past the grace time (``after_quiet``: or a
    turn of theirs began in their device's quiet hours, which are over now)."""

    room: str
    seat: int
    after_quiet: bool = False


@dataclass(frozen=True, slots=True)
class Invited:
    """The new room ``room`` invites ``users``."""

    room: str
    users: tuple[str, ...]


Job = Entry | Held | Invited


@dataclass(frozen=True, slots=True)
class Push:
    """One push decided for one user: what happened, where."""

    user: str
    kind: str  # turn | start | end | invite
    room: str
    game: str
    seat: int | None = None  # a turn's seat


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def quiet_until(row: PushSubscription, now: dt.datetime) -> dt.datetime | None:
    """When the device's quiet hours around ``now`` end (UTC); None when ``now`` is not in
    them."""
    if not quiet(row, now) or row.quiet_to is None:
        return None
    local = now.astimezone(_zone(row.tz))
    hour, minute = divmod(row.quiet_to, 60)
    end = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if end <= local:
        end += dt.timedelta(days=1)
    return end.astimezone(dt.UTC)


def quiet(row: PushSubscription, now: dt.datetime) -> bool:
    """Whether ``now`` falls in the device's quiet hours (its own time zone)."""
    if row.quiet_from is None or row.quiet_to is None or row.quiet_from == row.quiet_to:
        return False
    local = now.astimezone(_zone(row.tz))
    minute = local.hour * 60 + local.minute
    if row.quiet_from < row.quiet_to:
        return row.quiet_from <= minute < row.quiet_to
    return minute >= row.quiet_from or minute < row.quiet_to


class Pusher:
    """This node's pushes (one per node; ``start`` / ``stop`` with the node)."""

    def __init__(
        self,
        reader: RoomReader,
        db: Database,
        key: VapidKey,
        settings: PushSettings,
        phrase: Phrase,
        node: str = "",
    ) -> None:
        self.reader = reader
        self.node = node  # the ``node`` label of its counts (``PUSHES``)
        self.store = reader.store
        self.db = db
        self.key = key
        self.settings = settings
        self.phrase = phrase
        self.queue: asyncio.Queue[Job] = asyncio.Queue(settings.queue)
        self.dropped = 0  # steps not looked at: the queue was full
        self.sent = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._client: httpx.AsyncClient | None = None
        # room -> (until when, its players as last read)
        self._seated: dict[str, tuple[float, tuple[str, ...]]] = {}

    # -- the node's side ------------------------------------------------------------------
    def written(self, room_id: str, version: int, entry: Entry | None) -> None:
        """``Hooks.on_written``: a step this node won goes on the queue (never waits)."""
        if entry is not None:
            self._put(entry)

    def held(self, room_id: str, seat: int) -> None:
        """``Hooks.on_seat_held``: the seat's player may owe a move (never waits)."""
        self._put(Held(room_id, seat))

    def quiet_over(self, room_id: str, seat: int) -> None:
        """``Hooks.on_quiet_over``: a turn kept from a device by its quiet hours may still
        be owed now that they are over (never waits)."""
        self._put(Held(room_id, seat, after_quiet=True))

    def invited(self, room_id: str, users: list[str]) -> None:
        """``Hooks.on_invited``: the room's invitations go on the queue (never waits)."""
        if users:
            self._put(Invited(room_id, tuple(users)))

    def _put(self, job: Job) -> None:
        try:
            self.queue.put_nowait(job)
        except asyncio.QueueFull:
            self.dropped += 1
            PUSHES.labels(node=self.node, outcome="dropped").inc()

    async def reachable(self, user_id: str) -> bool:
        """``Hooks.reachable``: a device of the user (of their current sign-in) wants "your
        move" pushes -- quiet hours or not: the table can wait for them to end."""
        rows = await devices.subscriptions_of(self.db, [user_id])
        if not any("turn" in row.kinds for row in rows):
            return False
        gen = await self.store.token_generation(user_id)
        return any("turn" in row.kinds and row.gen >= gen for row in rows)

    async def start(self) -> None:
        # Every user with a subscription, in the site-wide set the steps are sifted by (one
        # at a time they are added as they subscribe; this catches the ones kept before).
        users = await devices.subscribed_users(self.db)
        for i in range(0, len(users), 1000):
            await self.store.note_push_user(*users[i : i + 1000])
        # Only public addresses, checked at the connect itself (DNS rebinding), unless the
        # site allows private endpoints (tests, loopback setups).
        transport = None if self.settings.allow_private else PublicTransport()
        self._client = httpx.AsyncClient(
            timeout=self.settings.timeout,
            follow_redirects=False,
            trust_env=False,
            transport=transport,
        )
        self._tasks = [asyncio.create_task(self._serve()) for _ in range(self.settings.senders)]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        if self._client is not None:
            await self._client.aclose()

    async def _serve(self) -> None:
        while True:
            job = await self.queue.get()
            try:
                async with asyncio.timeout(JOB_SECONDS):  # no task of its own, as wait_for's
                    await self.step(job)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("push failed", extra={"room": job.room}, exc_info=True)
            finally:
                self.queue.task_done()

    # -- deciding -------------------------------------------------------------------------
    async def step(self, job: Job) -> int:
        """Decide and send the pushes of one job (a step, a held seat, a room's
        invitations); how many were delivered."""
        if isinstance(job, Held):
            return await self.send_all(await self.decide_held(job))
        if isinstance(job, Invited):
            return await self.send_all(await self.decide_invited(job))
        return await self.send_all(await self.decide(job))

    async def decide(self, entry: Entry) -> list[Push]:
        """Each seated player's push for the step ``entry`` (see the module's text)."""
        # Most tables have nobody a push can reach: one command says so, with the users
        # this node saw seated there (a game's seats keep their players), before the room
        # is read and its state decoded.
        now = time.monotonic()
        kept = self._seated.get(entry.room)
        seated = kept[1] if kept is not None and kept[0] > now else None  # a seat may change hands
        if seated is not None and not await self.store.push_users_among(list(seated)):
            return []
        try:
            room = await self.reader.get(entry.room, presence=True)
        except RoomError:
            return []
        users = tuple(i.user for i in room.seats if i.user is not None and i.bot is None)
        self._seated.pop(entry.room, None)
        self._seated[entry.room] = (now + SEATED_SECONDS, users)
        if len(self._seated) > SEATED_ROOMS:
            del self._seated[next(iter(self._seated))]  # the oldest first
        if seated is None and not await self.store.push_users_among(list(users)):
            return []
        game = GAMES.get(entry.engine)
        if game is None:
            return []
        owe: set[int] = set()
        over = entry.kind == ABANDON or entry.status == FINISHED
        if not over:
            prompt = game.prompt(game.decode(entry.state))
            owe = set() if prompt.over else set(prompt.seats)
        out = []
        for seat, info in enumerate(room.seats):
            user = info.user
            if user is None or info.bot is not None:
                continue
            if over or entry.kind == START:
                kind = "end" if over else "start"
                if seat in room.connected:
                    continue
                if await self.store.push_once(
                    room.id, user, f"{kind}:{entry.version}", ONCE_SECONDS
                ):
                    out.append(Push(user, kind, room.id, entry.engine))
                if over:
                    continue
            began, _ = await self.store.push_turn(
                room.id, user, entry.version, seat in owe, MARK_SECONDS
            )
            here = seat in room.connected or seat in room.away
            if (
                began
                and entry.kind != START
                and not here
                and await self.store.push_once(room.id, user, f"turn:{entry.version}", MARK_SECONDS)
            ):
                out.append(Push(user, "turn", room.id, entry.engine, seat))
        return out

    async def decide_held(self, job: Held) -> list[Push]:
        """ "Your move" for a held seat that owes one now, unless that turn was pushed."""
        try:
            room = await self.reader.get(job.room, presence=True)
        except RoomError:
            return []
        if room.status != PLAYING or room.state is None or not 0 <= job.seat < room.players:
            return []
        info = room.seats[job.seat]
        here = job.seat in room.connected or job.seat in room.away  # a stand-in plays it
        if info.user is None or info.bot is not None or here:
            return []
        prompt = room.game.prompt(room.game.decode(room.state))
        owes = not prompt.over and job.seat in prompt.seats
        if owes and prompt.sealed:  # a sealed phase: owed until the seat has committed
            seal = await self.store.load_seal(room.id)
            owes = seal.get("phase") != phase_name(prompt, room.version) or (
                f"c:{job.seat}" not in seal
            )
        if not owes:
            return []
        _, since = await self.store.push_turn(room.id, info.user, room.version, True, MARK_SECONDS)
        if since == 0:
            return []
        # A turn is pushed once, and once more when quiet hours kept it from every device.
        once = f"quiet:{since}" if job.after_quiet else f"turn:{since}"
        if not await self.store.push_once(room.id, info.user, once, MARK_SECONDS):
            return []
        return [Push(info.user, "turn", room.id, room.engine, job.seat)]

    async def decide_invited(self, job: Invited) -> list[Push]:
        """``invite`` to each invited player not seated in the room yet, once per room."""
        try:
            room = await self.reader.get(job.room)
        except RoomError:
            return []
        seated = room.users()
        out = []
        for user in job.users:
            if user in seated:
                continue  # they came already
            if await self.store.push_once(room.id, user, "invite", ONCE_SECONDS):
                out.append(Push(user, "invite", room.id, room.engine))
        return out

    # -- sending --------------------------------------------------------------------------
    def payload(self, push: Push, lang: str) -> bytes:
        """What a device is sent: the room and the game, in its language, nothing more."""
        game = self.phrase(lang, f"games.{push.game}.title", {})
        if game == f"games.{push.game}.title":
            known = GAMES.get(push.game)
            game = known.title if known is not None else push.game
        code = push.room if len(push.room) != 8 else f"{push.room[:4]}-{push.room[4:]}"
        data = {
            "kind": push.kind,
            "room": push.room,
            "game": push.game,
            "title": self.phrase(lang, f"push.{push.kind}.title", {}),
            "body": self.phrase(lang, "push.body", {"game": game, "code": code}),
            "url": f"/r/{push.room}",
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()

    async def send_all(self, pushes: list[Push]) -> int:
        if not pushes:
            return 0
        rows = await devices.subscriptions_of(self.db, sorted({p.user for p in pushes}))
        by_user: dict[str, list[PushSubscription]] = {}
        for row in rows:
            by_user.setdefault(row.user_id, []).append(row)
        now = dt.datetime.now(dt.UTC)
        done: list[int] = []
        gens: dict[str, int] = {}
        for push in pushes:
            took = False
            quiet_end: dt.datetime | None = None  # the first of its devices' quiet hours to end
            for row in by_user.get(push.user, []):
                if push.kind not in row.kinds:
                    continue
                if (until := quiet_until(row, now)) is not None:
                    quiet_end = until if quiet_end is None else min(quiet_end, until)
                    continue
                if push.user not in gens:
                    gens[push.user] = await self.store.token_generation(push.user)
                    if await devices.drop_signed_out(self.db, push.user, gens[push.user]):
                        log.info("push: signed-out devices dropped", extra={"kind": push.kind})
                if row.gen < gens[push.user]:
                    continue
                if await self.deliver(row, self.payload(push, row.lang)):
                    done.append(row.id)
                    took = True
            if not took and quiet_end is not None and push.kind == "turn" and push.seat is not None:
                # Kept from every device by quiet hours: asked again when the first ends.
                name = member("quiet", push.room, push.seat)
                await self.store.schedule(name, int(quiet_end.timestamp() * 1000))
        await devices.note_sent(self.db, done)
        self.sent += len(done)
        if done:
            PUSHES.labels(node=self.node, outcome="sent").inc(len(done))
        return len(done)

    async def deliver(self, row: PushSubscription, payload: bytes) -> bool:
        """One POST to one device's push service; True when it took the push."""
        client = self._client
        if client is None:
            return False
        sub = Subscription(row.endpoint, row.p256dh, row.auth)
        try:
            webpush.check_endpoint(row.endpoint, self.settings.hosts, self.settings.allow_private)
            body, headers = webpush.request(
                self.key, self.settings.subject, sub, payload, self.settings.ttl
            )
            response = await client.post(row.endpoint, content=body, headers=headers)
        except BadSubscription as exc:
            log.warning("push: endpoint refused", extra={"kind": str(exc)})
            await devices.drop_subscription(self.db, row.endpoint)
            return False
        except httpx.HTTPError as exc:
            if isinstance(exc.__cause__, PrivateAddress):  # checked at the connect
                log.warning("push: endpoint refused", extra={"kind": str(exc.__cause__)})
                await devices.drop_subscription(self.db, row.endpoint)
                return False
            log.info("push: not delivered", extra={"kind": type(exc).__name__})
            return False
        if response.status_code in GONE:
            await devices.drop_subscription(self.db, row.endpoint)
            return False
        if response.status_code >= 300:
            log.info("push: refused", extra={"kind": str(response.status_code)})
            return False
        return True


def settings_of(values: Any, base_url: str) -> PushSettings:
    """The pushes' settings from the node's (server/settings.py)."""
    subject = values.vapid_subject or (
        base_url if base_url.startswith("https://") else "mailto:operator@localhost"
    )
    return PushSettings(
        subject=subject,
        hosts=tuple(values.push_hosts),
        allow_private=bool(values.push_private_endpoints),
        timeout=float(values.push_timeout_seconds),
        queue=int(values.push_queue),
        senders=int(values.push_senders),
        ttl=int(values.push_ttl_seconds),
    )
