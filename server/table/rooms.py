"""The room service: the parts of a room's life, each in a module of its own, wired
together once per node (server/app.py builds one ``RoomService``).

- reading a room, its shape and statuses: server/table/room.py (``RoomService`` is a
  ``RoomReader``: ``get``, ``find``);
- the lobby's seats and the start: ``seats`` (server/table/seats.py);
- the step and its compare-and-set: ``steps`` (server/table/steps.py) -- the path of a move is
  socket -> session -> ``steps.act`` -> ``steps.advance`` -> ``Store.write_step`` -> hub;
- the end of a game and its archive record: ``ending`` (server/table/game_end.py);
- presence, grace times and take-overs: ``presence`` (server/table/presence.py);
- chat: ``chat`` (server/table/chat.py);
- whose move and "my rooms": ``turns`` (server/table/turns.py);
- the public room list: ``listing`` (server/table/room_list.py);
- who hears of it all (bots, the clock): ``hooks`` (``Hooks``, server/table/room.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from server.identity.signing import ServerKey
from server.redis.store import Store
from server.table.chat import Chat
from server.table.game_end import GameEnd
from server.table.presence import Presence
from server.table.quotas import Quotas
from server.table.room import Hooks, RoomReader
from server.table.room_list import PublicList
from server.table.seats import Seats
from server.table.steps import Steps
from server.table.turns import Turns


class RoomService(RoomReader):
    """Every room operation, on top of the store, by part (see the module's docstring)."""

    def __init__(
        self,
        store: Store,
        *,
        base_url: str = "",
        room_ttl: int = 0,
        chat_keep: int,
        archive_every: int,
        archive_rescue: float,
        lease: float,
        lobby_idle: int = 0,
        host_away: float = 0.0,
        quotas: Quotas | None = None,
        pace: Callable[[], Awaitable[None]] | None = None,
        server_key: ServerKey | None = None,
    ) -> None:
        super().__init__(store, base_url)
        self.quotas = quotas
        self.hooks = Hooks()
        self.listing = PublicList(self, host_away=host_away)
        self.ending = GameEnd(self, archive_rescue=archive_rescue, lease=lease, pace=pace)
        self.steps = Steps(
            self,
            self.hooks,
            self.listing,
            self.ending,
            room_ttl=room_ttl,
            archive_every=archive_every,
            server_key=server_key,
        )
        self.seats = Seats(
            self, self.hooks, self.listing, self.steps, lobby_idle=lobby_idle, quotas=quotas
        )
        self.presence = Presence(store, self.hooks)
        self.chat = Chat(store, chat_keep=chat_keep)
        self.turns = Turns(self)
