"""The part of the ``Game`` contract (engines/core.py) that every game answers the same way.

A game's engine subclasses ``TableGame`` and states what differs as class attributes -- its
id, title and player counts, its options type and schema, its state codec, its moves'
text and JSON forms, its views and its bots -- the way python-chess keeps each variant as
a subclass of one board with the variant's data as class attributes. What is left in the
subclass is the game itself: its first state, ``validate``, ``step`` and the information
sets.

Whose move it is, the legal moves and the outcome are the game's *table* to answer: an
object of questions about one state (the game's ``table.py`` or ``standing.py``), which
the rules and the views both read so that neither imports the other. Its methods are bound
to the engine as they are (no wrapper: they run on every turn).

The server knows none of this: it sees a ``Game`` (engines/core.py) through the registry.
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import msgspec

from engines.core import JSON, BadOptions, IllegalMove, Move, Outcome, Policy, Prompt
from engines.rng import Rng

S = TypeVar("S")
M = TypeVar("M", bound=Move)
Opt = TypeVar("Opt", bound=msgspec.Struct)
S_in = TypeVar("S_in", contravariant=True)
M_out = TypeVar("M_out", covariant=True)


class Table(Protocol[S_in, M]):
    """The questions about one state that the server asks through the engine."""

    def prompt(self, state: S_in, /) -> Prompt: ...

    def legal(self, state: S_in, seat: int, /) -> list[M]: ...

    def outcome(self, state: S_in, /) -> Outcome | None: ...


T = TypeVar("T", bound=Table[Any, Any])


class Forms(Protocol[M_out]):
    """A game's moves module: a move from its text and from its JSON form."""

    def parse(self, text: str, /) -> M_out: ...

    def decode(self, obj: JSON, /) -> M_out: ...


class Views(Protocol):
    """A game's views module: what a seat (None: a spectator) sees, and everything."""

    def seat_view(self, table: Any, state: Any, seat: int | None, /) -> dict[str, JSON]: ...

    def full_view(self, table: Any, state: Any, /) -> dict[str, JSON]: ...


class TableGame(abc.ABC, Generic[S, M, Opt, T]):
    """A game of the contract, its plumbing written once; the subclass gives the data."""

    id: str
    title: str
    seats: range
    bot_levels: tuple[str, ...] = ("random", "heuristic")
    card_titles: frozenset[str] = frozenset()
    """The names the game's cards are known by, as printed (the server names no bot so)."""
    ghost_hand_at: tuple[int, ...] = ()
    """The player counts at which a ghost hand joins (none: the game has no ghost)."""
    options_type: type[Opt]
    """A frozen msgspec struct that forbids unknown fields; its defaults are the game's."""
    rules_edition: ClassVar[int] = 0
    """The current edition of the game's rules; 0: its rules have no editions. A game with
    editions has the option ``rules`` (an int, not in the schema: a host plays the current
    edition), which its states keep: a game goes on, and its record replays, under the
    rules it began with (docs/ENGINES.md, "Editions of the rules")."""
    schema: ClassVar[Mapping[str, JSON]] = {}
    """What a host may set (``options_schema``), handed out as a fresh copy each time."""
    encoder: ClassVar[msgspec.msgpack.Encoder]
    decoder: msgspec.msgpack.Decoder[S]
    forms: Forms[M]
    views: Views

    def __init__(self, table: T, bots: Mapping[str, Policy[M]]) -> None:
        self.table = table
        self._bots = dict(bots)
        self.prompt: Callable[[S], Prompt] = table.prompt
        self.legal: Callable[[S, int], list[M]] = table.legal
        self.outcome: Callable[[S], Outcome | None] = table.outcome

    # -- set-up ---------------------------------------------------------------------
    def options(self, raw: Mapping[str, JSON] | None = None) -> Opt:
        """A host's options for a new game: always the current edition of the rules (a
        ``rules`` in ``raw``, as a room played again carries, is replaced)."""
        return self._options(raw, self.rules_edition or None)

    def recorded_options(self, raw: Mapping[str, JSON] | None = None) -> Opt:
        """Options as a room or a game's record stored them: the edition of the rules they
        name; none (stored before the game had editions): the first."""
        return self._options(raw, None)

    def _options(self, raw: Mapping[str, JSON] | None, edition: int | None) -> Opt:
        if raw is not None and not isinstance(raw, Mapping):
            raise BadOptions("options are a JSON object")
        data = dict(raw or {})
        if self.rules_edition:
            if edition is not None:
                data["rules"] = edition
            else:
                data.setdefault("rules", 1)
        try:
            opts = msgspec.convert(data, self.options_type)
        except msgspec.ValidationError as exc:
            raise BadOptions(str(exc)) from None
        if self.rules_edition and not 1 <= getattr(opts, "rules", 0) <= self.rules_edition:
            raise BadOptions(f"rules is an edition from 1 to {self.rules_edition}")
        self.check_options(opts)
        return opts

    def check_options(self, options: Opt) -> None:
        """Raise BadOptions for values the type allows but the game does not."""

    def options_schema(self) -> dict[str, JSON]:
        return copy.deepcopy(dict(self.schema))

    def start(self, options: Opt, players: int, seed: bytes) -> S:
        if players not in self.seats:
            raise BadOptions(
                f"{self.title} is for {self.seats.start} to {self.seats.stop - 1} players"
            )
        return self.first_state(options, players, seed)

    @abc.abstractmethod
    def first_state(self, options: Opt, players: int, seed: bytes) -> S:
        """The game as it starts, for a player count in ``seats``."""

    # -- play -----------------------------------------------------------------------
    def default(self, state: S, seat: int) -> M:
        """A timed-out seat gets what the heuristic bot would do (deterministic: its
        generator is labelled from the position)."""
        legal = self.legal(state, seat)
        if not legal:
            raise IllegalMove("this seat owes no move", "not-your-turn")
        rng = self.default_rng(state, seat)
        return self.bot("heuristic")(self.view(state, seat), legal, rng)

    @abc.abstractmethod
    def default_rng(self, state: S, seat: int) -> Rng:
        """The generator of ``default`` for ``seat`` at ``state``."""

    # -- what people see --------------------------------------------------------------
    def view(self, state: S, seat: int | None) -> dict[str, JSON]:
        return self.views.seat_view(self.table, state, seat)

    def final_view(self, state: S) -> dict[str, JSON]:
        return self.views.full_view(self.table, state)

    # -- moves as text and JSON -------------------------------------------------------
    def parse_move(self, text: str) -> M:
        return self.forms.parse(text)

    def decode_move(self, obj: JSON) -> M:
        return self.forms.decode(obj)

    # -- storage ----------------------------------------------------------------------
    def encode(self, state: S) -> bytes:
        return self.encoder.encode(state)

    def decode(self, blob: bytes) -> S:
        return self.decoder.decode(blob)

    # -- bots -------------------------------------------------------------------------
    def bot(self, level: str) -> Policy[M]:
        policy = self._bots.get(level)
        if policy is None:
            raise BadOptions(f"no bot level {level!r}; choose one of {', '.join(self.bot_levels)}")
        return policy
