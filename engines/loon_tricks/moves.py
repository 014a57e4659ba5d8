"""The moves of the game, and their exact text and JSON forms.

=================  ======================  =====================================
text               JSON                    when
=================  ======================  =====================================
``bid 3``          ``{"bid": 3}``          a sealed bid for the row on offer
``pick red-15``    ``{"pick": "red-15"}``  a sealed tie-break card from the hand
``award 2``        ``{"award": 2}``        the pick's winner gives the row to a tied seat
``ditch a b``      ``{"ditch": [a, b]}``   two cards out of play (card order, distinct)
``predict 4``      ``{"predict": 4}``      tricks predicted (0-10)
``play red-15``    ``{"play": "red-15"}``  a card to the trick
=================  ======================  =====================================

Parsing checks the shape and the card names (MalformedMove); whether the move is allowed
now is the rules' business (IllegalMove). One move, one spelling: the two ditched cards are
written in card order (red 1-20, green 1-20, blue 1-20).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import JSON, MalformedMove
from engines.loon_tricks.cards import INDEX

MAX_BID = 9999  # far above any loon total; the rules cap a bid at the bidder's loon
MAX_SEAT = 4
TRICKS = 10


@dataclass(frozen=True, slots=True)
class Bid:
    loon: int

    def to_json(self) -> dict[str, JSON]:
        return {"bid": self.loon}

    def __str__(self) -> str:
        return f"bid {self.loon}"


@dataclass(frozen=True, slots=True)
class Pick:
    card: str

    def to_json(self) -> dict[str, JSON]:
        return {"pick": self.card}

    def __str__(self) -> str:
        return f"pick {self.card}"


@dataclass(frozen=True, slots=True)
class Award:
    seat: int

    def to_json(self) -> dict[str, JSON]:
        return {"award": self.seat}

    def __str__(self) -> str:
        return f"award {self.seat}"


@dataclass(frozen=True, slots=True)
class Ditch:
    cards: tuple[str, str]

    def to_json(self) -> dict[str, JSON]:
        return {"ditch": list(self.cards)}

    def __str__(self) -> str:
        return f"ditch {self.cards[0]} {self.cards[1]}"


@dataclass(frozen=True, slots=True)
class Predict:
    tricks: int

    def to_json(self) -> dict[str, JSON]:
        return {"predict": self.tricks}

    def __str__(self) -> str:
        return f"predict {self.tricks}"


@dataclass(frozen=True, slots=True)
class Play:
    card: str

    def to_json(self) -> dict[str, JSON]:
        return {"play": self.card}

    def __str__(self) -> str:
        return f"play {self.card}"


Move = Bid | Pick | Award | Ditch | Predict | Play


def _number(value: Any, top: int, what: str) -> int:
    if type(value) is not int or not 0 <= value <= top:
        raise MalformedMove(f"{what} is a whole number from 0 to {top}")
    return value


def _card(value: Any) -> str:
    if not isinstance(value, str) or value not in INDEX:
        raise MalformedMove(f"there is no crew card {value!r} (cards are like red-15)")
    return value


def _ditch(first: Any, second: Any) -> Ditch:
    a, b = _card(first), _card(second)
    if INDEX[a] >= INDEX[b]:
        raise MalformedMove("ditch two different cards, in card order (red, green, blue; 1-20)")
    return Ditch((a, b))


def _digits(word: str) -> int:
    if not (word.isascii() and word.isdigit()) or word != str(int(word)):
        raise MalformedMove(f"not a number: {word!r}")
    return int(word)


def parse(text: str) -> Move:
    """The move written as ``str(move)`` writes it, and nothing else."""
    if not isinstance(text, str):
        raise MalformedMove("a move is text")
    words = text.split(" ")
    verb = words[0]
    if len(words) == 2 and verb == "bid":
        return Bid(_number(_digits(words[1]), MAX_BID, "a bid"))
    if len(words) == 2 and verb == "pick":
        return Pick(_card(words[1]))
    if len(words) == 2 and verb == "award":
        return Award(_number(_digits(words[1]), MAX_SEAT, "a seat"))
    if len(words) == 3 and verb == "ditch":
        return _ditch(words[1], words[2])
    if len(words) == 2 and verb == "predict":
        return Predict(_number(_digits(words[1]), TRICKS, "a prediction"))
    if len(words) == 2 and verb == "play":
        return Play(_card(words[1]))
    raise MalformedMove(
        f"not a move: {text!r} (try bid 2, pick red-15, award 1, ditch red-1 blue-3, "
        "predict 4 or play green-12)"
    )


def decode(obj: JSON) -> Move:
    """A move from its JSON object; extra or missing keys are malformed."""
    if not isinstance(obj, dict) or len(obj) != 1:
        raise MalformedMove("a move is a JSON object with one key")
    ((key, value),) = obj.items()
    if key == "bid":
        return Bid(_number(value, MAX_BID, "a bid"))
    if key == "pick":
        return Pick(_card(value))
    if key == "award":
        return Award(_number(value, MAX_SEAT, "a seat"))
    if key == "ditch":
        if not isinstance(value, list) or len(value) != 2:
            raise MalformedMove('ditch two cards: {"ditch": [card, card]}')
        return _ditch(value[0], value[1])
    if key == "predict":
        return Predict(_number(value, TRICKS, "a prediction"))
    if key == "play":
        return Play(_card(value))
    raise MalformedMove(f"no move {key!r} in this game")
