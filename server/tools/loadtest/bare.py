"""The bare fan-out server (``server.tools.bare``) in a child process, and its clients: the
same rooms, seats, pace and ramp as a load step, the same frames per move in size and
count as the step's game, no game.

A room of M sockets plays ``moves`` moves in turn: seat ``v % M`` sends move ``v`` once the
last frame of version ``v`` reached it (after ``pace`` seconds, give or take a quarter, as
the game's clients think), and the frames of version ``v + 1`` reach every socket. Its CPU
is read at the instant every client process starts (a wall-clock time set before they
connect) and when the last room is done, so the handshakes are not in it: what a move's own
I/O costs (``Bare.cpu_per_move_ms``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import msgspec

from server.tools.load_socket import LoadSocket
from server.tools.loadtest.nodes import (
    _free_port,
    _more_files,
    _stop,
    _wait_ready,
    cpu_seconds,
    redis_cpu_seconds,
)
from server.tools.loadtest.tally import Plan, Tally, percentile


@dataclass(frozen=True)
class Profile:
    """What one move of the game carried: frames in and out, and their mean sizes."""

    frames_in: float  # per move (the bare server takes one: a move is one frame in)
    frames_out: float  # per move, over the room's sockets
    bytes_in: int  # mean bytes of a frame in
    bytes_out: int  # mean bytes of a frame out

    @classmethod
    def of(cls, tally: Tally, seats: int) -> Profile:
        moves = max(1, tally.moves)
        return cls(
            tally.frames_in / moves,
            max(float(seats), tally.frames_out / moves),  # each step reaches every socket
            max(16, tally.bytes_in // max(1, tally.frames_in)),
            max(24, tally.bytes_out // max(1, tally.frames_out)),
        )


@dataclass
class Bare:
    """One step played against the bare server, and what it and Redis spent."""

    rooms: int
    seats: int
    profile: Profile
    moves: int = 0
    frames_in: int = 0
    frames_out: int = 0
    errors: int = 0  # sockets that failed, and stale-version answers
    seconds: float = 0.0
    cpu: float | None = None
    redis_cpu: float | None = None
    move_ms: list[float] = field(default_factory=list)

    @property
    def cpu_per_move_ms(self) -> float | None:
        return self.cpu * 1000 / self.moves if self.cpu is not None and self.moves else None

    @property
    def redis_per_move_ms(self) -> float | None:
        redis = self.redis_cpu
        return redis * 1000 / self.moves if redis is not None and self.moves else None

    def line(self) -> str:
        p = self.profile
        parts = [
            f"bare fan-out server (same uvicorn protocol and Redis; one frame in, one "
            f"compare-and-set and publish, {p.frames_out:.2f} frames of {p.bytes_out} B out "
            f"per move): {self.rooms} rooms x {self.seats}, {self.moves} moves in "
            f"{self.seconds:.1f} s ({self.moves / self.seconds if self.seconds else 0:.0f} "
            f"moves/s), frames {self.frames_in} in, {self.frames_out} out",
        ]
        if self.cpu_per_move_ms is not None:
            parts.append(f"CPU {self.cpu_per_move_ms:.3f} ms per move")
        if self.redis_per_move_ms is not None:
            parts.append(f"Redis CPU {self.redis_per_move_ms:.3f} ms per move")
        if self.move_ms:
            parts.append(
                f"move p50 {percentile(self.move_ms, 50):.1f} ms, "
                f"p99 {percentile(self.move_ms, 99):.1f} ms"
            )
        parts.append(f"errors {self.errors}")
        return ", ".join(parts)


@dataclass
class _Counts:
    moves: int = 0
    frames_in: int = 0
    frames_out: int = 0
    errors: int = 0
    move_ms: list[float] = field(default_factory=list)


_frame = msgspec.json.Decoder(dict[str, object])


class _Gate:
    """Where a client process's rooms wait, once their sockets are open, for every room of
    every process (``barrier``, with the parent: it reads the server's CPU then)."""

    def __init__(self, rooms: int, barrier: Any) -> None:
        self.waiting = rooms
        self.barrier = barrier
        self.opened: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    async def passed(self) -> float:
        """This room is ready (or failed): the wall-clock time every room may start."""
        self.waiting -= 1
        if self.waiting == 0:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, self.barrier.wait, 600)
            self.opened.set_result(time.time())
        return await self.opened


async def _room(
    urls: list[str],
    plan: Plan,
    profile: Profile,
    room: str,
    moves: int,
    gate: _Gate,
    offset: float,
) -> _Counts:
    counts = _Counts()
    seats = plan.players
    url = urls[zlib.crc32(room.encode()) % len(urls)]
    query = f"room={room}&seats={seats}&out={profile.frames_out:.4f}&size={profile.bytes_out}"
    sockets: list[LoadSocket] = []
    try:
        for seat in range(seats):
            sockets.append(await LoadSocket.open(f"{url}/ws?{query}&seat={seat}"))
    except Exception:
        counts.errors += 1
        for ws in sockets:
            await ws.close()
        await gate.passed()
        return counts
    start = await gate.passed() + offset
    pad = "x" * max(0, profile.bytes_in - 16)

    def move(ws: LoadSocket, version: int) -> None:
        counts.frames_in += 1
        ws.send(b'{"v":%d,"p":"%s"}' % (version, pad.encode()))

    rng = random.Random(zlib.crc32(room.encode()))  # each room its own: not in step

    async def think(seat: int, version: int) -> None:
        if plan.pace > 0:
            # pace, give or take a quarter, as the game's clients (players.py: ``think``)
            await asyncio.sleep(plan.pace * (0.75 + rng.random() / 2))

    sent_at: dict[int, float] = {}  # version -> when the move that makes it was sent

    async def seat_loop(seat: int) -> None:
        ws = sockets[seat]
        while True:
            frame = _frame.decode(await ws.recv())
            counts.frames_out += 1
            if "error" in frame:
                counts.errors += 1
                continue
            version, left = int(frame["v"]), int(frame["n"])  # type: ignore[call-overload]
            if left:
                continue
            sent = sent_at.pop(version, None) if (version - 1) % seats == seat else None
            if sent is not None:  # the mover has its move's last frame
                counts.move_ms.append((time.perf_counter() - sent) * 1000)
                counts.moves += 1
            if version >= moves:
                return
            if version % seats == seat:
                await think(seat, version)
                sent_at[version + 1] = time.perf_counter()
                move(ws, version)

    try:
        await asyncio.sleep(max(0.0, start - time.time()))
        tasks = [asyncio.create_task(seat_loop(s)) for s in range(seats)]
        await think(0, 0)
        sent_at[1] = time.perf_counter()
        move(sockets[0], 0)
        async with asyncio.timeout(plan.timeout):
            await asyncio.gather(*tasks)
    except Exception:
        counts.errors += 1
    finally:
        for ws in sockets:
            with contextlib.suppress(Exception):
                await ws.close()
    return counts


def _worker(
    urls: list[str],
    plan: Plan,
    profile: Profile,
    rooms: list[tuple[str, int]],
    moves: int,
    barrier: Any,
) -> tuple[_Counts, float]:
    """One client process's rooms (name, index); its counts and when its last room ended."""
    _more_files()

    async def main() -> tuple[_Counts, float]:
        total = _Counts()
        gate = _Gate(len(rooms), barrier)
        done = await asyncio.gather(
            *(
                _room(urls, plan, profile, name, moves, gate, plan.ramp * i / max(1, plan.rooms))
                for name, i in rooms
            )
        )
        for c in done:
            total.moves += c.moves
            total.frames_in += c.frames_in
            total.frames_out += c.frames_out
            total.errors += c.errors
            total.move_ms += c.move_ms
        return total, time.time()

    return asyncio.run(main())


class BareServer:
    """``server.tools.bare`` in a child process, ``workers`` processes of it (a port each),
    on ``env``'s Redis; started at once, waited for when first measured."""

    def __init__(self, env: dict[str, str], workers: int | None) -> None:
        self.ports = [_free_port() for _ in range(workers or os.cpu_count() or 1)]
        self.data = Path(tempfile.mkdtemp(prefix="tortuga-bare-"))
        self.env = env
        command = [sys.executable, "-m", "server.tools.bare"]
        command += ["--ports", ",".join(str(p) for p in self.ports)]
        self.log = (self.data / "bare.log").open("wb")
        self.process = subprocess.Popen(
            command,
            env={**os.environ, **env},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=_more_files,
        )
        self.step = 0

    def ready(self) -> None:
        for port in self.ports:
            url = f"http://127.0.0.1:{port}/"
            _wait_ready(self.process, url, self.data / "bare.log", 180)

    def measure(
        self,
        plan: Plan,
        profile: Profile,
        moves: int,
        pool: ProcessPoolExecutor,
        processes: int,
        redis_url: str | None,
    ) -> Bare:
        """``plan.rooms`` rooms of ``plan.players`` sockets, ``moves`` moves each, at its
        pace and ramp, over ``processes`` client processes."""
        self.ready()
        self.step += 1
        tag = f"{os.getpid()}s{self.step}r"
        names = [(f"{tag}{i}", i) for i in range(plan.rooms)]
        count = max(1, min(processes, plan.rooms))
        chunks = [names[k::count] for k in range(count)]
        urls = [f"ws://127.0.0.1:{port}" for port in self.ports]
        with get_context("spawn").Manager() as manager:
            # Every socket of every process open (the handshakes are not in the CPU read),
            # this process among the parties: the CPU is read as the rooms start.
            barrier = manager.Barrier(count + 1)
            futures = [pool.submit(_worker, urls, plan, profile, c, moves, barrier) for c in chunks]
            barrier.wait(600)
            result = self._collect(plan, profile, futures, redis_url)
        return result

    def _collect(
        self, plan: Plan, profile: Profile, futures: list[Any], redis_url: str | None
    ) -> Bare:
        at = time.time()
        cpu = cpu_seconds(self.process.pid)
        redis_cpu = redis_cpu_seconds(redis_url) if redis_url else None
        result = Bare(plan.rooms, plan.players, profile)
        last = at
        for future in futures:
            part, ended = future.result()
            result.moves += part.moves
            result.frames_in += part.frames_in
            result.frames_out += part.frames_out
            result.errors += part.errors
            result.move_ms += part.move_ms
            last = max(last, ended)
        result.cpu = cpu_seconds(self.process.pid) - cpu
        redis_after = redis_cpu_seconds(redis_url) if redis_url else None
        if redis_after is not None and redis_cpu is not None:
            result.redis_cpu = redis_after - redis_cpu
        result.seconds = last - at
        return result

    def stop(self) -> None:
        _stop(self.process)
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)
