"""What a bot is: something that is given its seat's view and prompt and returns a move.

A bot is either a function ``def bot(turn: Turn) -> move`` or an object with a method
``move(turn) -> move`` (and, if it likes, ``started(turn)`` / ``finished(result)``). It may be
``async``. The move is the JSON form of one of ``turn.legal`` (e.g. ``{"bid": 2}``,
``{"play": "black-14"}``); everything else -- the socket, the lobby, commit and reveal, limits,
reconnections -- is the library's.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Prompt:
    """Who owes a move now (the view's ``prompt``). ``sealed``: a simultaneous reveal, the
    library commits the move and reveals it once everyone has committed."""

    kind: str
    seats: tuple[int, ...]
    sealed: bool = False
    private: bool = False

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Prompt:
        return cls(
            kind=str(raw.get("kind", "")),
            seats=tuple(int(s) for s in raw.get("seats", ())),
            sealed=bool(raw.get("sealed", False)),
            private=bool(raw.get("private", False)),
        )


@dataclass(frozen=True, slots=True)
class Turn:
    """One decision: the seat's own view (exactly what a person in that seat sees), its
    prompt and its legal moves (JSON), at one version of the room."""

    game: str  # the game's id: skull-king, bid-tricks, loon-tricks, pirate-king, pearates
    room: str
    seat: int
    version: int
    view: dict[str, Any]
    prompt: Prompt
    legal: list[Any]
    phase: str | None = None  # a sealed phase's name ("bid@7"), else None
    deadline: int | None = None  # epoch ms when the server plays the default instead


@dataclass(frozen=True, slots=True)
class Result:
    """A game over, as the bot's seat saw it."""

    room: str
    game: str
    game_id: str | None
    seat: int
    status: str  # finished or abandoned
    scores: list[int] | None
    ranks: list[int] | None
    view: dict[str, Any] | None
    seed_check: str | None  # None: the seed was made from this bot's bytes as promised
    defaults: int = 0  # moves the server made for this seat (missed deadlines)
    # The move chain's heads the site sent while the bot played, version -> head (the first
    # one sent for each): what `tortuga verify GAME --heads FILE` compares the archive with.
    heads: dict[int, str] = field(default_factory=dict)

    @property
    def rank(self) -> int | None:
        return self.ranks[self.seat] if self.ranks else None


@runtime_checkable
class BotObject(Protocol):
    def move(self, turn: Turn) -> Any: ...


BotFunction = Callable[[Turn], Any]
Bot = BotFunction | BotObject


async def ask(bot: Bot, turn: Turn) -> Any:
    """The bot's move for ``turn`` (a blocking bot runs in a thread: the socket's pings are
    still answered while it thinks)."""
    choose: Callable[[Turn], Any] = bot.move if isinstance(bot, BotObject) else bot
    if inspect.iscoroutinefunction(choose):
        return await choose(turn)
    import asyncio

    move = await asyncio.to_thread(choose, turn)
    if inspect.isawaitable(move):
        return await move
    return move


async def tell(bot: Bot, hook: str, value: Any) -> None:
    """Call the bot's optional hook (``started``, ``finished``) if it has one."""
    method = getattr(bot, hook, None)
    if method is None:
        return
    out = method(value)
    if isinstance(out, Awaitable):
        await out
