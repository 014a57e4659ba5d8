"""Bots: a function of the view of their own seat only (they never peek).

``uniform`` picks any legal move. ``heuristic`` plays the bluffing game plainly: it bids
its worst cards (a bid goes to the start player, so negative cards are good bids) while
the bids still fit the treasure, never Plays, takes the end of the treasure it knows to be
better, scores what it received only when that raises its score against the piles on the table
(majorities included) and keeps the rest in hand (cards in hand cost nothing and break
ties), and declares Banana Sabres where it already
holds the most cards of a value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from engines.core import JSON
from engines.pearates import scoring
from engines.pearates.cards import INDEX, kind, value
from engines.pearates.moves import Move
from engines.rng import Rng

CHEAP = 4  # cards worth at most this are bid away


def uniform(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    return rng.choice(legal)


def _value(name: str | None) -> int:
    return value(INDEX[name]) if name in INDEX else 0


def _find(legal: Sequence[Move], verb: str) -> list[Move]:
    return [m for m in legal if m.verb == verb]


def heuristic(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    verbs = {m.verb for m in legal}
    seat = view["seat"]
    if "hide" in verbs:
        return _find(legal, "hide")[0]
    if verbs & {"keep", "score"}:
        return _keep(view, legal)
    if "sabre" in verbs:
        return _sabre(view, legal, seat)
    if "take" in verbs:
        return _take(view, legal, seat)
    if "bid" in verbs or "stop" in verbs or "pass" in verbs:
        return _bid(view, legal, seat)
    if "put" in verbs:
        return _find(legal, "put")[0]
    # an action's choice: cheapest card or the first choice
    return min(legal, key=lambda m: _value(m.card))


def _bid(view: Mapping[str, JSON], legal: Sequence[Move], seat: int) -> Move:
    treasure = len(view["treasure"])
    total = sum(b["size"] for b in view["bids"])
    bids = sorted(_find(legal, "bid"), key=lambda m: _value(m.card))
    if bids and total < treasure and _value(bids[0].card) <= CHEAP:
        return bids[0]
    for verb in ("stop", "pass"):
        if verb in {m.verb for m in legal}:
            return _find(legal, verb)[0]
    return bids[0] if bids else legal[0]


def _take(view: Mapping[str, JSON], legal: Sequence[Move], seat: int) -> Move:
    n = view["bids"][seat]["size"]
    slots = view["treasure"]
    top = sum(_value(c) for c in slots[:n])
    bottom = sum(_value(c) for c in slots[-n:]) if n else 0
    want = "top" if top >= bottom else "bottom"
    return next(m for m in legal if m.end == want)


def _gain(view: Mapping[str, JSON], cards: Sequence[str]) -> int:
    """What scoring ``cards`` now would change in this seat's score, against the score
    piles on the table (majorities included)."""
    seat = view["seat"]
    piles = []
    for s, pile in enumerate(view["scored"]):
        names = [e["card"] for e in pile if e["stack"] is not None]
        stacks = [e["stack"] for e in pile if e["stack"] is not None]
        if s == seat:
            extra = [c for c in cards if kind(INDEX[c]).value is not None]
            names += extra
            stacks += [value(INDEX[c]) for c in extra]
        piles.append(scoring.Pile(tuple(INDEX[c] for c in names), tuple(stacks)))
    before = int(view["scores"][seat])
    return scoring.totals(piles, bool(view["options"]["friendly"]))[seat] - before


def _keep(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
    card = legal[-1].card
    cards = [card] if card is not None else view["received"][view["seat"]]["known"]
    keep = [m for m in legal if m.verb == "keep"]
    if not keep or _gain(view, cards) > 0:
        return _find(legal, "score")[0]
    return keep[0]


def _sabre(view: Mapping[str, JSON], legal: Sequence[Move], seat: int) -> Move:
    stacks = Counter(s["stack"] for s in view["scored"][seat] if s["stack"] is not None)
    positive = [(n, v) for v, n in stacks.items() if v > 0]
    best = max(positive)[1] if positive else 8
    return next((m for m in legal if m.value == best), legal[-1])
