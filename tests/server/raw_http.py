"""A request sent over a raw socket, so that the test decides how much of its body is ever
sent: the head and a little of a body the server must refuse before reading it all."""

from __future__ import annotations

import asyncio

MORE = 64 * 1024  # what is offered after the refusal, a piece at a time
MOST = 64 * 1024 * 1024  # offered at most: a node that takes all of it still reads the body


async def refused_unread(port: int, head: str, body_parts: list[bytes]) -> tuple[bytes, bool]:
    """Send ``head`` and ``body_parts`` (never a whole body), read the status line of the
    answer (b"" if none comes in 10 s), then go on sending the body: the second value says
    whether the node stopped taking it (it closed the connection) before ``MOST`` bytes,
    rather than read on to throw it away."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.encode())
        for part in body_parts:
            writer.write(part)
        await writer.drain()
        try:
            status = await asyncio.wait_for(reader.readline(), 10)
        except TimeoutError:
            return b"", False
        piece = b"x" * MORE
        try:
            for _ in range(MOST // MORE):
                writer.write(piece)
                await asyncio.wait_for(writer.drain(), 10)
        except (ConnectionError, TimeoutError):
            return status, True
        return status, False
    finally:
        writer.close()
