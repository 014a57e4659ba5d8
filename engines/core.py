"""The contract every game implements (see docs/ENGINES.md).

A game is a pure, deterministic state machine. The server knows nothing about any game
beyond this module: it asks whose move it is (``prompt``), checks and applies moves
(``validate``, ``step``), shows each seat what it may see (``view``) and reads the result
(``outcome``). Nothing here does I/O or touches global randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from engines.rng import Rng

JSON = Any
"""A value that serializes to JSON: dict, list, str, int, bool or None."""


class MoveError(ValueError):
    """A move the engine refuses. ``code`` is stable and machine-readable."""

    code = "bad-move"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class MalformedMove(MoveError):
    """Not a move of this game at all (wrong shape, unknown card, bad text)."""

    code = "malformed-move"


class IllegalMove(MoveError):
    """A well-formed move that the rules forbid now (out of turn, must follow suit, ...).

    ``code`` names the rule broken, e.g. ``not-your-turn`` or ``must-follow-suit``.
    """

    code = "illegal-move"


class BadOptions(ValueError):
    """Room options that this game does not accept."""


@runtime_checkable
class Move(Protocol):
    """A small typed value. ``str(move)`` and ``game.parse_move`` are an exact pair,
    and so are ``move.to_json()`` and ``game.decode_move``."""

    def to_json(self) -> dict[str, JSON]: ...


@dataclass(frozen=True, slots=True)
class Prompt:
    """Who owes a move now.

    ``seats`` each owe exactly one move. ``sealed`` means a simultaneous reveal: the
    server collects every seat's move (commit/reveal) and calls ``step`` once with all of
    them. Open prompts with several seats take their moves one at a time. No seats: over.

    ``private`` means the moves that answer this prompt are the movers' own business: the
    server never shows a seat's move to anyone else (another seat, a spectator, a history
    reader) before the game is over; what the others may learn comes through their views.
    Open moves are already shown only to their mover; ``private`` matters for a sealed
    prompt (parallel private decisions, e.g. ditching cards), whose opened moves would
    otherwise be shown to all once revealed. The commitments (digests) stay public.

    ``for_good`` (with ``private``): the moves stay their movers' even once the game is
    over -- in the history and the replays too (Loon's ditched cards are "never shown to
    anyone else, not even at the end"); without it a private move is shown with the rest
    of the game when it is over.
    """

    seats: tuple[int, ...]
    kind: str
    sealed: bool = False
    private: bool = False
    for_good: bool = False

    @property
    def over(self) -> bool:
        return not self.seats

    def to_json(self) -> dict[str, JSON]:
        return {
            "seats": list(self.seats),
            "kind": self.kind,
            "sealed": self.sealed,
            "private": self.private,
        }


OVER = Prompt((), "over", False)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Final scores and ranks per seat. Rank 1 is best; equal scores share a rank."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]

    @classmethod
    def from_scores(cls, scores: Sequence[int]) -> Outcome:
        """Standard competition ranking (1, 1, 3): equal totals share the place."""
        ranks = tuple(1 + sum(1 for other in scores if other > s) for s in scores)
        return cls(tuple(scores), ranks)

    def to_json(self) -> dict[str, JSON]:
        return {"scores": list(self.scores), "ranks": list(self.ranks)}


S = TypeVar("S")
M = TypeVar("M", bound=Move)
Opt = TypeVar("Opt")

Policy = Callable[[Mapping[str, JSON], Sequence[M], Rng], M]
"""A bot: (the view of its own seat, its legal moves, a generator) -> one of those moves."""


class Game(Protocol[S, M, Opt]):
    """What every game answers. ``S`` is its state, ``M`` its move, ``O`` its options."""

    id: str
    title: str
    seats: range
    bot_levels: tuple[str, ...]
    card_titles: frozenset[str]
    """The names the game's cards are known by, as printed ("Blackbeard", "Scary Mary"):
    the server names no bot after one of them."""
    ghost_hand_at: tuple[int, ...]
    """The player counts at which a ghost hand joins (a hand dealt and played by the rules,
    nobody's seat): the lobby says so beside the seats."""

    # -- set-up ---------------------------------------------------------------
    def options(self, raw: Mapping[str, JSON] | None = None) -> Opt:
        """Typed options from a host's JSON options for a new game (defaults filled, the
        current edition of the rules); BadOptions if wrong."""
        ...

    def recorded_options(self, raw: Mapping[str, JSON] | None = None) -> Opt:
        """Typed options as a room or a game's record stored them: the edition of the rules
        they name (none named: the first); BadOptions if wrong."""
        ...

    def options_schema(self) -> dict[str, JSON]:
        """The options a host may set, with their defaults and allowed values."""
        ...

    def start(self, options: Opt, players: int, seed: bytes) -> S: ...

    # -- play -----------------------------------------------------------------
    def prompt(self, state: S) -> Prompt: ...

    def legal(self, state: S, seat: int) -> list[M]:
        """Every legal move of ``seat`` now; empty when it owes none."""
        ...

    def validate(self, state: S, seat: int, move: M) -> None:
        """Raise IllegalMove unless ``seat`` may make ``move`` now. Never needs another
        seat's sealed move."""
        ...

    def step(self, state: S, moves: Mapping[int, M]) -> S:
        """The next state. Never mutates ``state``. A sealed prompt takes every seat's
        move at once; an open prompt takes one."""
        ...

    def default(self, state: S, seat: int) -> M:
        """The move made for a seat whose time ran out (deterministic)."""
        ...

    def outcome(self, state: S) -> Outcome | None: ...

    # -- what people see --------------------------------------------------------
    def view(self, state: S, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` (None: a spectator) may see, built by allow-list."""
        ...

    def final_view(self, state: S) -> dict[str, JSON]:
        """Everything, for replays of a finished game."""
        ...

    # -- moves as text and JSON -------------------------------------------------
    def parse_move(self, text: str) -> M: ...

    def decode_move(self, obj: JSON) -> M: ...

    # -- storage ------------------------------------------------------------------
    def encode(self, state: S) -> bytes: ...

    def decode(self, blob: bytes) -> S: ...

    # -- bots -----------------------------------------------------------------
    def bot(self, level: str) -> Policy[M]: ...

    # -- information sets (tests, tools, bots that search) -------------------------
    def deck(self, options: Opt, players: int) -> list[str]:
        """Every card of a game with these options, by unique name."""
        ...

    def zones(self, state: S) -> dict[str, list[str]]:
        """Where every card is now; together they hold ``deck`` exactly once."""
        ...

    def hidden(self, state: S, seat: int | None) -> frozenset[str]:
        """Names of the cards whose place ``seat`` may not know."""
        ...

    def resample(self, state: S, seat: int | None, rng: Rng) -> S:
        """A state ``seat`` cannot tell apart from ``state``: what it cannot see is re-dealt."""
        ...
