"""Idle sockets held on a node by holder processes: the node's memory per socket, and a
small game played meanwhile as a latency probe."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing import get_context
from multiprocessing.connection import Connection

import httpx

from engines.registry import GAMES
from server.tools.load_socket import LoadSocket
from server.tools.loadtest.nodes import Node, _more_files, memory
from server.tools.loadtest.play import run
from server.tools.loadtest.players import _decode, _encode
from server.tools.loadtest.raw import _ECHOED
from server.tools.loadtest.tally import Plan, Report

PER_GUEST = 8  # sockets one guest opens (the node's default cap per user)
PER_ROOM = 20  # idle spectators per lobby room


async def _hold(url: str, count: int, pipe: Connection, raw: bool = False) -> None:
    """Open ``count`` sockets that sign in and watch a lobby (``raw``: that echo one frame
    of the raw-limit server, compression included when it is on), report, hold them until
    told, close them."""
    sockets: list[LoadSocket] = []
    failed = 0
    gate = asyncio.Semaphore(64)
    if raw:

        async def open_raw() -> None:
            nonlocal failed
            async with gate:
                try:
                    ws = await LoadSocket.open(url.replace("http", "ws", 1) + "/")
                    ws.send(_ECHOED)
                    await ws.recv()
                    sockets.append(ws)
                except Exception:
                    failed += 1

        await asyncio.gather(*(open_raw() for _ in range(count)))
        await _held(sockets, failed, pipe, gate)
        return
    async with httpx.AsyncClient(timeout=60) as http:
        tokens: list[str] = []
        for k in range(-(-count // PER_GUEST)):
            r = await http.post(f"{url}/api/guest", json={"name": f"idle {os.getpid()}.{k}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
        rooms: list[str] = []
        for k in range(-(-count // PER_ROOM)):
            r = await http.post(
                f"{url}/api/rooms",
                json={"game": next(iter(GAMES)), "seats": 4, "public": False},
                headers={"Authorization": f"Bearer {tokens[k % len(tokens)]}"},
            )
            r.raise_for_status()
            rooms.append(r.json()["id"])
    ws_url = url.replace("http", "ws", 1) + "/ws"

    async def open_one(i: int) -> None:
        nonlocal failed
        async with gate:
            try:
                ws = await LoadSocket.open(ws_url)
                ws.send(_encode({"type": "auth", "token": tokens[i // PER_GUEST]}))
                while _decode(await ws.recv())["type"] != "hello":
                    pass
                ws.send(_encode({"type": "join", "room": rooms[i // PER_ROOM]}))
                while _decode(await ws.recv())["type"] != "snapshot":
                    pass
                sockets.append(ws)
            except Exception:
                failed += 1

    await asyncio.gather(*(open_one(i) for i in range(count)))
    await _held(sockets, failed, pipe, gate)


async def _held(
    sockets: list[LoadSocket], failed: int, pipe: Connection, gate: asyncio.Semaphore
) -> None:
    """Report the sockets opened, hold them until told, then close them."""
    pipe.send((len(sockets), failed))
    await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    closed = sum(ws.closed for ws in sockets)  # closed by the node meanwhile

    async def close(ws: LoadSocket) -> None:
        async with gate:
            with contextlib.suppress(Exception):
                await ws.close()

    await asyncio.gather(*(close(ws) for ws in sockets))
    pipe.send(closed)


def _holder(url: str, count: int, pipe: Connection, raw: bool = False) -> None:
    _more_files()
    asyncio.run(_hold(url, count, pipe, raw))


@dataclass(frozen=True)
class Idle:
    """Idle sockets held on a node: its memory before and after, and a small game played
    meanwhile (the latency probe)."""

    sockets: int
    failed: int
    closed_by_node: int
    rss_before: int | None
    rss_after: int | None
    probe: Report | None

    @property
    def bytes_per_socket(self) -> float | None:
        if self.rss_before is None or self.rss_after is None or not self.sockets:
            return None
        return (self.rss_after - self.rss_before) / self.sockets


def hold_idle(
    node: Node,
    count: int,
    probe: Plan | None,
    processes: int,
    pool: ProcessPoolExecutor | None,
    raw: bool = False,
) -> Idle:
    """``count`` idle sockets over ``processes`` holder processes; while they are all open,
    the node's memory, then the ``probe`` plan played against it (if any). ``raw``: the
    node is the raw-limit server (each socket echoes one frame, no sign-in)."""
    context = get_context("spawn")
    rss_before = memory(node.pid) if node.pid else None
    count_p = max(1, min(processes, count))
    holders = []
    for k in range(count_p):
        mine, theirs = context.Pipe()
        share = count // count_p + (1 if k < count % count_p else 0)
        process = context.Process(target=_holder, args=(node.url, share, theirs, raw), daemon=True)
        process.start()
        holders.append((process, mine))
    try:
        opened = failed = 0
        for _, pipe in holders:
            ok, lost = pipe.recv()
            opened += ok
            failed += lost
        time.sleep(2.0)  # let the node settle (its writers, its presence notices)
        rss_after = memory(node.pid) if node.pid else None
        report = None
        if probe is not None:
            report = run(replace(probe, urls=(node.url,)), processes, pool=pool)
        for _, pipe in holders:
            pipe.send("release")
        closed = sum(int(pipe.recv()) for _, pipe in holders)
    finally:
        for process, _ in holders:
            process.join(60)
            if process.is_alive():
                process.kill()
    return Idle(opened, failed, closed, rss_before, rss_after, report)
