"""The moves of Pirate King! and their exact text and JSON forms.

- pick a Pirate: ``pick gary`` / ``{"pick": "gary"}``
- a beat: ``reveal`` or ``stop``; Retrieve with no discard: ``reveal`` or ``pass`` /
  ``{"do": "reveal"}``
- Look, the cards looked at put back top first: ``stack a b`` / ``{"stack": ["a", "b"]}``
- Flip, Choose, Retrieve: ``flip cutlass-1`` / ``{"flip": "cutlass-1"}``, ``choose ...``,
  ``retrieve ...``
- Give: ``give 2`` / ``{"give": 2}``
- a tie, the Captain's order of the tied seats: ``order 2 0`` / ``{"order": [2, 0]}``
- take a Monster or Loot: ``take kraken`` / ``{"take": "kraken"}``; two players also drop
  one: ``take flintlock-1 drop parrot-2`` / ``{"take": "flintlock-1", "drop": "parrot-2"}``
- end of round, a card given away: ``reclaim wilson`` or ``leave wilson`` /
  ``{"reclaim": "wilson"}``
- a tie for the win: ``crown 1`` / ``{"crown": 1}``

Parsing checks shape and names only (MalformedMove); whether a move is allowed now is the
rules' business (IllegalMove).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import JSON, MalformedMove
from engines.pirate_king.cards import INDEX

MAX_SEAT = 4  # 5 players at most
WORDS = ("reveal", "stop", "pass")
MAX_STACK = 5  # a Look shows at most 3 cards; more is never a move


@dataclass(frozen=True, slots=True)
class Pick:
    card: str

    def to_json(self) -> dict[str, JSON]:
        return {"pick": self.card}

    def __str__(self) -> str:
        return f"pick {self.card}"


@dataclass(frozen=True, slots=True)
class Do:
    word: str  # reveal, stop or pass

    def to_json(self) -> dict[str, JSON]:
        return {"do": self.word}

    def __str__(self) -> str:
        return self.word


@dataclass(frozen=True, slots=True)
class Stack:
    cards: tuple[str, ...]  # top first

    def to_json(self) -> dict[str, JSON]:
        return {"stack": list(self.cards)}

    def __str__(self) -> str:
        return "stack " + " ".join(self.cards)


@dataclass(frozen=True, slots=True)
class CardMove:
    """flip / choose / retrieve / reclaim / leave a named card."""

    verb: str
    card: str

    def to_json(self) -> dict[str, JSON]:
        return {self.verb: self.card}

    def __str__(self) -> str:
        return f"{self.verb} {self.card}"


@dataclass(frozen=True, slots=True)
class SeatMove:
    """give / crown a seat."""

    verb: str
    seat: int

    def to_json(self) -> dict[str, JSON]:
        return {self.verb: self.seat}

    def __str__(self) -> str:
        return f"{self.verb} {self.seat}"


@dataclass(frozen=True, slots=True)
class Order:
    seats: tuple[int, ...]

    def to_json(self) -> dict[str, JSON]:
        return {"order": list(self.seats)}

    def __str__(self) -> str:
        return "order " + " ".join(map(str, self.seats))


@dataclass(frozen=True, slots=True)
class Take:
    card: str
    drop: str | None = None

    def to_json(self) -> dict[str, JSON]:
        if self.drop is None:
            return {"take": self.card}
        return {"take": self.card, "drop": self.drop}

    def __str__(self) -> str:
        return f"take {self.card}" if self.drop is None else f"take {self.card} drop {self.drop}"


Move = Pick | Do | Stack | CardMove | SeatMove | Order | Take

CARD_VERBS = ("flip", "choose", "retrieve", "reclaim", "leave")
SEAT_VERBS = ("give", "crown")


def _card(value: Any) -> str:
    if not isinstance(value, str) or value not in INDEX:
        raise MalformedMove(f"there is no card {value!r} in Pirate King!")
    return value


def _seat(value: Any) -> int:
    if type(value) is not int or not 0 <= value <= MAX_SEAT:
        raise MalformedMove(f"a seat is a whole number from 0 to {MAX_SEAT}")
    return value


def _seat_text(token: str) -> int:
    if not (token.isascii() and token.isdecimal()) or token != str(int(token)):
        raise MalformedMove(f"not a seat: {token!r}")
    return _seat(int(token))


def _stack(cards: Any) -> Stack:
    if not isinstance(cards, list | tuple) or not 2 <= len(cards) <= MAX_STACK:
        raise MalformedMove("stack names the cards looked at, top first")
    names = tuple(_card(c) for c in cards)
    if len(set(names)) != len(names):
        raise MalformedMove("stack names each card once")
    return Stack(names)


def _order(seats: Any) -> Order:
    if not isinstance(seats, list | tuple) or not 2 <= len(seats) <= MAX_SEAT + 1:
        raise MalformedMove("order lists the tied seats, first to choose first")
    out = tuple(_seat(s) for s in seats)
    if len(set(out)) != len(out):
        raise MalformedMove("order names each seat once")
    return Order(out)


def _take(card: Any, drop: Any) -> Take:
    name = _card(card)
    if drop is None:
        return Take(name)
    other = _card(drop)
    if other == name:
        raise MalformedMove("take one card and drop another")
    return Take(name, other)


def parse(text: Any) -> Move:
    """The move written as ``str(move)`` writes it, and nothing else."""
    if not isinstance(text, str):
        raise MalformedMove("a move is text")
    words = text.split(" ")
    head, rest = words[0], words[1:]
    if not rest and head in WORDS:
        return Do(head)
    if len(rest) == 1 and head == "pick":
        return Pick(_card(rest[0]))
    if len(rest) == 1 and head in CARD_VERBS:
        return CardMove(head, _card(rest[0]))
    if len(rest) == 1 and head in SEAT_VERBS:
        return SeatMove(head, _seat_text(rest[0]))
    if head == "stack" and rest:
        return _stack(rest)
    if head == "order" and rest:
        return _order([_seat_text(t) for t in rest])
    if head == "take" and len(rest) == 1:
        return _take(rest[0], None)
    if head == "take" and len(rest) == 3 and rest[1] == "drop":
        return _take(rest[0], rest[2])
    raise MalformedMove(f'not a move: {text!r} (try "reveal", "stop" or "take kraken")')


def decode(obj: JSON) -> Move:
    """A move from its JSON object; extra or missing keys are malformed."""
    if not isinstance(obj, dict):
        raise MalformedMove("a move is a JSON object")
    keys = set(obj)
    if keys == {"do"}:
        if obj["do"] not in WORDS:
            raise MalformedMove(f"do is one of {', '.join(WORDS)}")
        return Do(obj["do"])
    if keys == {"pick"}:
        return Pick(_card(obj["pick"]))
    if len(keys) == 1:
        (key,) = keys
        if key in CARD_VERBS:
            return CardMove(key, _card(obj[key]))
        if key in SEAT_VERBS:
            return SeatMove(key, _seat(obj[key]))
        if key == "stack":
            return _stack(_json_list(obj[key]))
        if key == "order":
            return _order(_json_list(obj[key]))
        if key == "take":
            return _take(obj["take"], None)
    if keys == {"take", "drop"} and obj["drop"] is not None:
        return _take(obj["take"], obj["drop"])
    raise MalformedMove("not a move of Pirate King!")


def _json_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedMove("a list is expected")
    return value
