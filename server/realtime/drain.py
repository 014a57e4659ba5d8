"""Graceful drain: a node hands its sockets to the other nodes before it stops (SIGTERM),
or when an admin asks it to (then it stays up but takes no new sockets).

Draining, a node

1. says it is not ready (``/readyz`` answers 503) and marks itself in Redis
   (``Keys.draining``; the admin console's nodes list shows it);
2. turns every new websocket away with a ``reconnect`` frame, then closes it (1012); under
   ``serve --workers N`` it also stops accepting on the shared port, so the kernel hands new
   connections to the other workers;
3. sends every socket it holds ``reconnect {reason, within_ms}``. The client closes the
   socket itself and connects again -- to another node, this one is not ready -- after a
   random part of ``within_ms``, then resumes from the last version it saw. The client
   closes, not the server: every frame it sent before is read and handled here first, so
   no move is lost in flight.

An admin's drain can be lifted (``POST /admin/api/nodes/{instance}/undrain``): its field
of ``nodes:draining`` goes, the node sees that within a heartbeat and serves again (ready,
new sockets welcome; the sockets it sent away stay where they went). A drain on SIGTERM
cannot be lifted: the node is stopping.

On SIGTERM the node then waits until its sockets are gone (at most ``drain_seconds``)
before it lets uvicorn shut down: sockets still open get uvicorn's 1012, messages being
handled finish, the bot runs under way finish and those asked for later are handed to any
node's clock (``BotDriver.settle``), the clock and the archiver finish what they claimed,
and the node signs off. A second SIGTERM stops it at once. Ctrl-C (SIGINT) does not drain.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from starlette.websockets import WebSocket

from server import protocol
from server.realtime import homes
from server.realtime.hub import Hub
from server.redis.store import Store
from server.settings import Settings

log = logging.getLogger("tortuga.drain")

CLOSE_SERVICE_RESTART = 1012  # what a turned-away socket is closed with (as uvicorn does)
SHUTDOWN, ADMIN = "shutdown", "admin"  # why a node drains: SIGTERM, or an admin asked
TICK = 0.05  # seconds between looks at the sockets left


def kind_of(info: dict[str, Any]) -> str:
    """Why a node drains, from its ``nodes:draining`` entry (its ``kind``): ``ADMIN`` (it
    can be lifted) or ``SHUTDOWN`` (it is stopping). An entry that says none (unreadable)
    is taken as an admin's, so that it can be lifted."""
    return str(info.get("kind", ADMIN))


class Drain:
    """This node's drain: off until ``start``; ``hook_sigterm`` makes SIGTERM start it."""

    def __init__(self, hub: Hub, store: Store, settings: Settings) -> None:
        self.hub = hub
        self.store = store
        self.instance = hub.instance
        self.seconds = settings.drain_seconds
        self.spread_ms = settings.reconnect_spread_ms
        self.watch_every = settings.heartbeat_seconds
        self.reason: str | None = None  # None: serving; SHUTDOWN or ADMIN
        self._told: set[str] = set()  # sockets sent ``reconnect``
        self._tasks: set[asyncio.Task[Any]] = set()
        self._previous: Any = None  # the SIGTERM handler found (uvicorn's), while hooked
        self._hook: Any = None  # ours

    @property
    def active(self) -> bool:
        return self.reason is not None

    def frame(self) -> dict[str, Any]:
        return {"type": "reconnect", "reason": "draining", "within_ms": self.spread_ms}

    async def start(self, by: str, reason: str = "") -> None:
        """Drain (once): not ready, no new sockets, every socket told to reconnect."""
        if self.reason is not None:
            return
        self.reason = by
        log.warning("draining", extra={"conn": self.instance, "kind": by})
        here = homes.current()
        if here is not None:
            here.withdraw()  # the other workers serve this one's rooms meanwhile
        self.tell_all()
        if by != ADMIN:  # an admin's request is in Redis already, with who and why
            info = {"by": by, "kind": by, "reason": reason, "at": int(time.time() * 1000)}
            try:
                await self.store.mark_draining(self.instance, json.dumps(info))
            except Exception:
                log.exception("could not mark the node draining")

    def tell_all(self) -> int:
        """Send ``reconnect`` to every socket of this node not yet told; how many."""
        told = 0
        for conns in list(self.hub.conns_of.values()):
            for conn in list(conns):
                if conn.id not in self._told:
                    self._told.add(conn.id)
                    conn.send(self.frame())
                    told += 1
        return told

    def sockets(self) -> int:
        return sum(len(conns) for conns in self.hub.conns_of.values())

    async def emptied(self, timeout: float, stop: Callable[[], bool] = lambda: False) -> bool:
        """Wait until this node holds no socket (True), ``timeout`` passed or ``stop()``.
        A socket that signed in meanwhile (it was accepted before the drain) is told too."""
        end = asyncio.get_running_loop().time() + timeout
        while self.hub.conns_of:
            if stop() or asyncio.get_running_loop().time() >= end:
                return False
            self.tell_all()
            await asyncio.sleep(TICK)
        return True

    async def turn_away(self, socket: WebSocket) -> None:
        """A websocket that reaches a draining node: told to reconnect elsewhere, closed."""
        await socket.accept()
        with contextlib.suppress(Exception):
            await socket.send_text(protocol.encode(self.frame()))
            await socket.close(CLOSE_SERVICE_RESTART, "draining")

    # -- an admin's request: a field of ``Keys.draining`` the node looks for ----------------
    def watch(self) -> None:
        """Look for an admin's request to drain every ``heartbeat_seconds``."""
        self._spawn(self._watch())

    async def _watch(self) -> None:
        """Serving: start an admin's drain when its field appears. Draining for an admin:
        serve again when the field is gone (lifted). Stopping (SIGTERM): nothing more."""
        while self.reason != SHUTDOWN:
            try:
                asked = await self.store.draining_of(self.instance) is not None
                if self.reason is None and asked:
                    await self.start(ADMIN)
                elif self.reason == ADMIN and not asked:
                    self.lift()
            except Exception:
                log.exception("could not look for a drain request")
            await asyncio.sleep(self.watch_every)

    def lift(self) -> None:
        """An admin's drain is over: ready again, new sockets welcome."""
        self.reason = None
        self._told.clear()
        here = homes.current()
        if here is not None:
            here.rejoin()
        log.warning("drain lifted", extra={"conn": self.instance})

    async def close(self) -> None:
        """Stop watching (the node is stopping); restore the SIGTERM handler found."""
        self.unhook()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=1)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- SIGTERM ------------------------------------------------------------------------------
    def hook_sigterm(self) -> None:
        """Put the drain before the handler serving uvicorn installed for SIGTERM (it calls
        it once the node is drained). Only in the main thread (where signals are handled)
        and under uvicorn (a callable handler is there); else nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGTERM)
        if not callable(previous):
            return
        loop = asyncio.get_running_loop()
        # uvicorn's handler is a method of its Server: its listening sockets, its config.
        server = getattr(previous, "__self__", None)

        def on_sigterm(sig: int, frame: FrameType | None) -> None:
            if self.reason == SHUTDOWN:  # a second SIGTERM: stop now
                previous(sig, frame)
                return
            loop.call_soon_threadsafe(
                self._spawn, self._then_stop(lambda: previous(sig, frame), server)
            )

        self._previous, self._hook = previous, on_sigterm
        signal.signal(signal.SIGTERM, on_sigterm)

    def unhook(self) -> None:
        """Put back the handler found, unless another has replaced ours since."""
        if self._hook is not None and signal.getsignal(signal.SIGTERM) is self._hook:
            with contextlib.suppress(ValueError):  # not the main thread any more
                signal.signal(signal.SIGTERM, self._previous)
        self._previous = self._hook = None

    async def _then_stop(self, stop: Callable[[], None], server: Any) -> None:
        self.reason = None  # an admin's drain becomes a shutdown's
        await self.start(SHUTDOWN)
        config = getattr(server, "config", None)
        if getattr(config, "workers", 1) > 1:
            # Workers share the port: stop accepting here, the others take new connections.
            for listener in getattr(server, "servers", []):
                listener.close()
        left = self.sockets()
        gone = await self.emptied(self.seconds, lambda: bool(getattr(server, "force_exit", False)))
        log.warning(
            "drained" if gone else f"drain time over: {self.sockets()} sockets left",
            extra={"conn": self.instance, "kind": f"{left} sockets at the start"},
        )
        stop()
