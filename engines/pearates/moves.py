"""The moves of Pearates and their exact text and JSON forms.

Every move is a verb and at most two arguments, in a fixed order; the JSON object holds
the verb as ``move`` and the arguments by name (``card``, ``end``, ``seat``, ``value``):

- ``pass`` · ``stop`` · ``hide`` · ``keep`` · ``score``  ->  ``{"move": "pass"}``
- ``bid goldfish-3`` · ``play egg-bag-1`` · ``arrange ruby-rum-2`` · ``keep goldfish-3``
  (Biscuit Booty: per card)  ->  ``{"move": "bid", "card": "goldfish-3"}``
- ``put top`` · ``steal bottom`` · ``take top``  ->  ``{"move": "put", "end": "top"}``
- ``add bread-booty-2 top`` · ``add deck bottom``  ->
  ``{"move": "add", "card": "deck", "end": "bottom"}``
- ``give 2 goldfish-1`` · ``give 2 deck``  ->  ``{"move": "give", "seat": 2, "card": "deck"}``
- ``discard 1`` · ``target 3`` · ``winner 0``  ->  ``{"move": "discard", "seat": 1}``
- ``sabre -4`` .. ``sabre 8``  ->  ``{"move": "sabre", "value": -4}``

Parsing checks shape and names only (MalformedMove); whether a move is allowed now is the
rules' business (IllegalMove).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import JSON, MalformedMove
from engines.pearates.cards import INDEX, VALUES

DECK = "deck"
ENDS = ("top", "bottom")
MAX_SEAT = 6

# verb -> the argument lists it accepts (each a tuple of argument names, in text order).
FORMS: dict[str, tuple[tuple[str, ...], ...]] = {
    "pass": ((),),
    "stop": ((),),
    "hide": ((),),
    "keep": ((), ("card",)),
    "score": ((), ("card",)),
    "bid": (("card",),),
    "play": (("card",),),
    "arrange": (("card",),),
    "put": (("end",),),
    "steal": (("end",),),
    "take": (("end",),),
    "add": (("source", "end"),),
    "give": (("seat", "source"),),
    "discard": (("seat",),),
    "target": (("seat",),),
    "winner": (("seat",),),
    "sabre": (("value",),),
}
JSON_KEY = {"card": "card", "source": "card", "end": "end", "seat": "seat", "value": "value"}


@dataclass(frozen=True, slots=True)
class Move:
    verb: str
    card: str | None = None  # a card name, or "deck" for add / give
    end: str | None = None
    seat: int | None = None
    value: int | None = None

    def args(self) -> tuple[str, ...]:
        if self.verb in ("add", "give"):
            return ("source", "end") if self.verb == "add" else ("seat", "source")
        out = []
        for name, v in (("card", self.card), ("end", self.end), ("seat", self.seat)):
            if v is not None:
                out.append(name)
        if self.value is not None:
            out.append("value")
        return tuple(out)

    def _arg(self, name: str) -> Any:
        return {
            "card": self.card,
            "source": self.card,
            "end": self.end,
            "seat": self.seat,
            "value": self.value,
        }[name]

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"move": self.verb}
        for name in self.args():
            out[JSON_KEY[name]] = self._arg(name)
        return out

    def __str__(self) -> str:
        return " ".join([self.verb, *(str(self._arg(name)) for name in self.args())])


def _card(value: Any, deck_ok: bool) -> str:
    if isinstance(value, str) and (value in INDEX or (deck_ok and value == DECK)):
        return value
    raise MalformedMove(f"there is no card {value!r} in Pearates")


def _end(value: Any) -> str:
    if isinstance(value, str) and value in ENDS:
        return value
    raise MalformedMove('an end of the treasure is "top" or "bottom"')


def _seat(value: Any) -> int:
    if type(value) is int and 0 <= value <= MAX_SEAT:
        return value
    raise MalformedMove(f"a seat is a whole number from 0 to {MAX_SEAT}")


def _value(value: Any) -> int:
    if type(value) is int and value in VALUES:
        return value
    raise MalformedMove(f"a value is a whole number from {VALUES[0]} to {VALUES[-1]}")


def _int(word: str) -> int:
    body = word[1:] if word.startswith("-") else word
    if not (body.isascii() and body.isdecimal()) or str(int(word)) != word:
        raise MalformedMove(f"not a whole number: {word!r}")
    return int(word)


def _build(verb: str, form: tuple[str, ...], values: dict[str, Any]) -> Move:
    kwargs: dict[str, Any] = {}
    for name in form:
        raw = values[name]
        if name == "card":
            kwargs["card"] = _card(raw, False)
        elif name == "source":
            kwargs["card"] = _card(raw, True)
        elif name == "end":
            kwargs["end"] = _end(raw)
        elif name == "seat":
            kwargs["seat"] = _seat(raw)
        else:
            kwargs["value"] = _value(raw)
    return Move(verb, **kwargs)


def parse(text: Any) -> Move:
    """The move written as ``str(move)`` writes it, and nothing else."""
    if not isinstance(text, str):
        raise MalformedMove("a move is text")
    words = text.split(" ")
    verb, rest = words[0], words[1:]
    for form in FORMS.get(verb, ()):
        if len(form) != len(rest):
            continue
        values: dict[str, Any] = {}
        for name, word in zip(form, rest, strict=True):
            values[name] = _int(word) if name in ("seat", "value") else word
        return _build(verb, form, values)
    raise MalformedMove(f'not a move: {text!r} (try "pass", "bid goldfish-3" or "play egg-bag-1")')


def decode(obj: JSON) -> Move:
    """A move from its JSON object; extra or missing keys are malformed."""
    if not isinstance(obj, dict) or not isinstance(obj.get("move"), str):
        raise MalformedMove('a move is a JSON object {"move": verb, ...}')
    verb = obj["move"]
    keys = set(obj) - {"move"}
    for form in FORMS.get(verb, ()):
        if keys != {JSON_KEY[name] for name in form}:
            continue
        return _build(verb, form, {name: obj[JSON_KEY[name]] for name in form})
    raise MalformedMove(f"not a move of Pearates: {obj!r}")
