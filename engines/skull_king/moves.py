"""The two moves of the game, and their exact text and JSON forms.

Text:  ``bid 3`` · ``play black-14`` · ``play scary-mary as escape``
JSON:  ``{"bid": 3}`` · ``{"play": "black-14"}`` · ``{"play": "scary-mary", "as": "escape"}``

Parsing checks the shape and the card names (MalformedMove); whether the move is allowed
now is the rules' business (IllegalMove).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import JSON, MalformedMove
from engines.skull_king.cards import AS_CODES, CHOICE, Deck

MAX_BID = 14  # nobody ever holds more cards than this (10 per round at most; 14 is generous)


@dataclass(frozen=True, slots=True)
class Bid:
    tricks: int

    def to_json(self) -> dict[str, JSON]:
        return {"bid": self.tricks}

    def __str__(self) -> str:
        return f"bid {self.tricks}"


@dataclass(frozen=True, slots=True)
class Play:
    card: str
    as_: str | None = None  # "pirate" or "escape" for Scary Mary / the Rogue

    def to_json(self) -> dict[str, JSON]:
        if self.as_ is None:
            return {"play": self.card}
        return {"play": self.card, "as": self.as_}

    def __str__(self) -> str:
        return f"play {self.card}" if self.as_ is None else f"play {self.card} as {self.as_}"


Move = Bid | Play


def _bid(value: Any) -> Bid:
    if type(value) is not int or not 0 <= value <= MAX_BID:
        raise MalformedMove(f"a bid is a whole number from 0 to {MAX_BID}")
    return Bid(value)


def _play(deck: Deck, card: Any, as_: Any) -> Play:
    if not isinstance(card, str) or card not in deck.index:
        raise MalformedMove(f"there is no card {card!r} in {deck.edition.title}")
    is_choice = deck.kind[deck.index[card]] == CHOICE
    if is_choice and (not isinstance(as_, str) or as_ not in AS_CODES):
        raise MalformedMove(f'{card} is played "as pirate" or "as escape"')
    if not is_choice and as_ is not None:
        raise MalformedMove(f"only {deck.edition.choice} is played as something")
    return Play(card, as_)


def parse(deck: Deck, text: str) -> Move:
    """The move written as ``str(move)`` writes it, and nothing else."""
    if not isinstance(text, str):
        raise MalformedMove("a move is text")
    words = text.split(" ")
    if len(words) == 2 and words[0] == "bid" and words[1].isdigit() and words[1].isascii():
        if words[1] != str(int(words[1])):
            raise MalformedMove(f"not a move: {text!r}")
        return _bid(int(words[1]))
    if len(words) == 2 and words[0] == "play":
        return _play(deck, words[1], None)
    if len(words) == 4 and words[0] == "play" and words[2] == "as":
        return _play(deck, words[1], words[3])
    raise MalformedMove(f'not a move: {text!r} (try "bid 2" or "play black-7")')


def decode(deck: Deck, obj: JSON) -> Move:
    """A move from its JSON object; extra or missing keys are malformed."""
    if not isinstance(obj, dict):
        raise MalformedMove("a move is a JSON object")
    keys = set(obj)
    if keys == {"bid"}:
        return _bid(obj["bid"])
    if keys == {"play"} or (keys == {"play", "as"} and obj["as"] is not None):
        return _play(deck, obj["play"], obj.get("as"))
    raise MalformedMove('a move is {"bid": n} or {"play": card} (with "as" for a choice card)')
