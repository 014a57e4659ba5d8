"""A room's home worker (server/realtime/homes.py): the hint a socket's request line gives, the home
it names, and how workers claim their index (the workers and a real handoff:
test_serve_workers.py)."""

from __future__ import annotations

import socket
from pathlib import Path

from server.realtime.homes import Homes, home_index, room_hint


def test_the_request_line_of_a_rooms_socket_names_its_room() -> None:
    head = b"GET /ws?room=7KQ2M9XH HTTP/1.1\r\nHost: x\r\n\r\n"
    assert room_hint(head) == "7KQ2M9XH"
    assert room_hint(b"GET /ws?v=2&room=ABC&x=1 HTTP/1.1\r\n") == "ABC"
    assert room_hint(b"GET /ws HTTP/1.1\r\n") is None  # the lobby's socket: no room
    assert room_hint(b"GET /api/rooms?room=ABC HTTP/1.1\r\n") is None  # not a socket
    assert room_hint(b"POST /ws?room=ABC HTTP/1.1\r\n") is None
    assert room_hint(b"GET /ws?room=../../x HTTP/1.1\r\n") is None  # not a room code
    assert room_hint(b"GET /ws?room=" + b"A" * 65 + b" HTTP/1.1\r\n") is None


def test_a_rooms_home_is_the_same_for_every_worker_and_rooms_spread() -> None:
    """ "worker crc32(room) % N": every worker computes the same home; rooms spread."""
    assert home_index("7KQ2M9XH", 2) == home_index("7KQ2M9XH", 2)
    homes = [home_index(f"R{n:05d}", 4) for n in range(2000)]
    assert {homes.count(i) for i in range(4)} <= set(range(400, 600))


async def test_workers_claim_distinct_indices_and_a_freed_one_is_taken(tmp_path: Path) -> None:
    """Each worker takes the first free index (its lock, held for its life) and listens as
    its home; a replacement started while every index is held gets one once freed."""
    first, second, late = (Homes(tmp_path, 2, server=None) for _ in range(3))
    await first.start()
    await second.start()
    await late.start()
    try:
        assert (first.index, second.index, late.index) == (0, 1, None)
        assert (tmp_path / "0.sock").exists() and (tmp_path / "1.sock").exists()
        await first.stop()  # its lock goes: the late one takes index 0 at its next try
        assert late._claiming is not None
        await late._claiming
        assert late.index == 0
    finally:
        for homes in (first, second, late):
            await homes.stop()


async def test_a_withdrawn_home_takes_no_connection(tmp_path: Path) -> None:
    """Draining, a worker withdraws: the others serve its rooms where they land; lifted,
    it is a home again."""
    one, other = Homes(tmp_path, 2, server=None), Homes(tmp_path, 2, server=None)
    await one.start()
    await other.start()
    left, right = socket.socketpair()
    try:
        other.withdraw()
        assert not one.hand_over(1, left, b"GET /ws?room=X HTTP/1.1\r\n")
        other.rejoin()
        assert (tmp_path / "1.sock").exists()
    finally:
        left.close()
        right.close()
        await one.stop()
        await other.stop()
