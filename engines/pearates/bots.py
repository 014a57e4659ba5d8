"""Bots: a function of the view of their own seat only (they never peek).

``uniform`` picks any legal move. ``heuristic`` plays the bluffing game plainly:

- On its turn it Plays an action card when the card's effects are worth it now: each
  effect named in ``cards.KINDS`` has an estimate in ``EFFECT_GAINS`` from what the view
  shows (the treasure's known cards, the bids' sizes, who still takes turns); a card's worth
  is the sum over its effects, so a new card made of known effects needs no new code. Else
  it bids its worst cards (a bid goes to the start player, so negative cards are good bids)
  while the bids still fit the treasure, else it passes.
- A Played card goes onto the end of the treasure the bot means to take when it is worth
  having, onto the other end when it is not; the bot takes the better end (an unseen card
  counts as the deck's average), steals the better end, adds and gives its worst cards.
- It scores what it received only when that raises its score against the piles on the
  table (majorities included) and keeps the rest in hand (cards in hand cost nothing and
  break ties), and declares Banana Sabres where it already holds the most cards of a value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache

from engines.core import JSON
from engines.pearates import scoring
from engines.pearates.cards import INDEX, deck, kind, removed_negatives, value
from engines.pearates.moves import DECK, Move
from engines.rng import Rng

CHEAP = 4  # cards worth at most this are bid away
PLAY_WORTH = 1.0  # a Play is made when its effects are estimated at least this many points
MAX_DISCARDS = 3  # Rotten Apple: blind discards before stopping


def uniform(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    return rng.choice(legal)


def _value(name: str | None) -> int:
    return value(INDEX[name]) if name in INDEX else 0


def _find(legal: Sequence[Move], verb: str) -> list[Move]:
    return [m for m in legal if m.verb == verb]


@cache
def _average(more: bool, special: bool, negatives: int) -> float:
    """The mean printed value of the game's deck: what an unseen card is worth."""
    cards = deck(more, special, negatives)
    return sum(value(c) for c in cards) / len(cards)


class _Table:
    """What the heuristic reads off its view, once per decision."""

    def __init__(self, view: Mapping[str, JSON]) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.players: int = view["players"]
        self.start: int = view["start"]
        self.direction: int = view["direction"]
        opts = view["options"]
        negatives = removed_negatives(bool(opts["no_negatives"]), opts["negatives_removed"])
        more, special = bool(opts["more_actions"]), bool(opts["special_scoring"])
        self.average = _average(more, special, negatives)
        self.treasure: list[str | None] = list(view["treasure"])
        self.bids: list[int] = [b["size"] for b in view["bids"]]
        self.passed: list[bool] = list(view["passed"])

    def worth(self, name: str | None) -> float:
        return self.average if name is None or name == DECK else float(_value(name))

    def ends(self, n: int) -> tuple[float, float]:
        """The estimated worth of ``n`` cards from the top and from the bottom."""
        if n <= 0:
            return 0.0, 0.0
        slots = self.treasure
        return sum(map(self.worth, slots[:n])), sum(map(self.worth, slots[-n:]))

    def mine(self) -> int:
        return self.bids[self.me]

    def others_bids(self) -> list[int]:
        return [n for s, n in enumerate(self.bids) if s != self.me and n]

    def next_seat(self) -> int | None:
        """The seat whose turn comes after this one's, if anybody still takes turns."""
        for k in range(1, self.players):
            seat = (self.me + k * self.direction) % self.players
            if seat != self.start and not self.passed[seat]:
                return seat
        return None

    def wanted_end(self) -> str:
        top, bottom = self.ends(max(self.mine(), 1))
        return "top" if top >= bottom else "bottom"

    def other_end(self) -> str:
        return "bottom" if self.wanted_end() == "top" else "top"


# -- what a Played effect is worth now (points, estimated) -------------------------------------
Gain = Callable[[_Table], float]


def _treasure_worth(t: _Table) -> float:
    return sum(map(t.worth, t.treasure))


def _steal_one(t: _Table) -> float:
    """Ruby Rum: the better end, seen first."""
    if not t.treasure:
        return 0.0
    return max(t.worth(t.treasure[0]), t.worth(t.treasure[-1]), t.average + 1)


def _steal_treasure(t: _Table) -> float:
    """Pirate Pizza: the whole treasure, less what the bot's bid would have taken anyway
    (that bid still goes to the start player)."""
    return _treasure_worth(t) - max(t.ends(t.mine()))


def _take_from_bids(t: _Table) -> float:
    """Rotten Eggs: a bigger bid (more cards at the split), the others' smaller."""
    return 1.5 * len(t.others_bids())


def _minus_in_bids(t: _Table) -> float:
    """Fish Skeleton: the others may hold minus cards in their bids; the bot's own cost."""
    own = [c for c in t.view["bids"][t.me]["known"] if _value(c) < 0]
    return 0.3 * sum(t.others_bids()) + sum(_value(c) for c in own)


def _mutiny_by_value(t: _Table) -> float:
    """Pearl Pepper: the whole treasure if the bot's bid is worth clearly the most."""
    mine = sum(_value(c) for c in t.view["bids"][t.me]["known"])
    best_other = max((n * t.average for n in t.others_bids()), default=0.0)
    return _treasure_worth(t) if t.mine() and mine > best_other + 2 else -2.0


EFFECT_GAINS: dict[str, Gain] = {
    "steal-treasure": _steal_treasure,
    "start-scores-card": lambda t: -3.0,  # an opponent scores the Pizza
    "steal-one": _steal_one,
    "look-at-treasure": lambda t: 0.5 if None in t.treasure else 0.0,
    "take-one-from-each-bid": _take_from_bids,
    "score-minus-cards-in-bids": _minus_in_bids,
    "next-must-pass": lambda t: 1.0 if t.next_seat() is not None else 0.0,
    "draw-four": lambda t: 1.0 if t.view["pile"] else 0.0,
    "mutiny-by-value": _mutiny_by_value,
    "per-card-choice": lambda t: 2.0,  # Biscuit Booty: hand what costs, score what pays
    "start-gets-no-bids": lambda t: 0.3 * (sum(t.others_bids()) - t.mine()),
}
"""Effects not listed are worth nothing to this bot (it does not Play for them)."""


def play_gain(view: Mapping[str, JSON], card: str) -> float:
    """What Playing ``card`` is estimated to be worth now: the sum over its effects."""
    t = _Table(view)
    return sum(EFFECT_GAINS[e](t) for e in kind(INDEX[card]).effects if e in EFFECT_GAINS)


def heuristic(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    verbs = {m.verb for m in legal}
    if "hide" in verbs:
        return _find(legal, "hide")[0]
    if verbs & {"keep", "score"}:
        return _keep(view, legal)
    if "sabre" in verbs:
        return _sabre(view, legal, view["seat"])
    t = _Table(view)
    if "take" in verbs:
        return next(m for m in legal if m.end == t.wanted_end())
    if "play" in verbs:
        gain, best = max(
            ((play_gain(view, str(m.card)), m) for m in _find(legal, "play")),
            key=lambda p: p[0],
        )
        if gain >= PLAY_WORTH:
            return best
    if verbs & {"bid", "stop", "pass"}:
        return _bid(view, legal)
    return _choice(t, legal, verbs)


def _choice(t: _Table, legal: Sequence[Move], verbs: set[str]) -> Move:
    """A Played card's put, or a choice its effects ask."""
    view = t.view
    if "put" in verbs:
        card = view["action"]
        good = isinstance(card, str) and t.worth(card) >= t.average and t.mine() > 0
        want = t.wanted_end() if good else t.other_end()
        return next(m for m in legal if m.end == want)
    if "steal" in verbs:
        top, bottom = t.worth(t.treasure[0]), t.worth(t.treasure[-1])
        return next(m for m in legal if m.end == ("top" if top >= bottom else "bottom"))
    if "add" in verbs:  # the worst card onto the end the bot will not take
        adds = [m for m in legal if m.end == t.other_end()]
        return min(adds, key=lambda m: t.worth(m.card))
    if "give" in verbs:
        return min(legal, key=lambda m: t.worth(m.card))
    if "discard" in verbs:  # blind discards from the biggest other bid
        done = sum(1 for e in view["log"] if e["what"] == "discard" and e["seat"] == t.me)
        if "stop" in verbs and done >= MAX_DISCARDS:
            return _find(legal, "stop")[0]
        return max(_find(legal, "discard"), key=lambda m: t.bids[int(str(m.seat))])
    if "target" in verbs:  # Pearl Onion: its own bid when that pays, else the biggest other
        own = sum(_value(c) for c in view["bids"][t.me]["known"])
        return max(
            legal,
            key=lambda m: (own if m.seat == t.me else 0, m.seat != t.me, t.bids[int(str(m.seat))]),
        )
    return legal[0]


def _bid(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
    treasure = len(view["treasure"])
    total = sum(b["size"] for b in view["bids"])
    bids = sorted(_find(legal, "bid"), key=lambda m: _value(m.card))
    if bids and total < treasure and _value(bids[0].card) <= CHEAP:
        return bids[0]
    for verb in ("stop", "pass"):
        if verb in {m.verb for m in legal}:
            return _find(legal, verb)[0]
    return bids[0] if bids else legal[0]


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
    friendly, rules = bool(view["options"]["friendly"]), int(view["rules"])
    return scoring.totals(piles, friendly, rules)[seat] - before


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
