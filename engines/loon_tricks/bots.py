"""Bots: a function of the view of their own seat only (they never peek).

``uniform`` picks any legal move. ``heuristic`` values a hand as the loon its two
recruitment cards pay plus a rough worth of its trick-taking power; it bids a little only
for the row it values most (never much: loon paid is loon lost), ditches the two cards that
make no recruitment set and take tricks least, predicts the tricks its cards should take,
and plays to take tricks (or to avoid them under Lie Low, or once its prediction is made),
winning as cheaply as it can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.core import JSON
from engines.loon_tricks import trick
from engines.loon_tricks.cards import INDEX, NAMES, RED, number, suit
from engines.loon_tricks.moves import Award, Bid, Ditch, Move, Pick, Play, Predict
from engines.loon_tricks.score_cards import CARDS
from engines.loon_tricks.score_cards import INDEX as SCORE_INDEX
from engines.loon_tricks.scoring import recruit
from engines.rng import Rng

MAX_BID = 3  # the heuristic never bids more than this for a row


def uniform(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    return rng.choice(legal)


def _cards(names: Sequence[JSON]) -> list[int]:
    return [INDEX[str(name)] for name in names]


def _current(view: Mapping[str, JSON]) -> Mapping[str, JSON]:
    rounds = view["score_cards"]
    assert isinstance(rounds, list) and rounds
    current = rounds[-1]
    assert isinstance(current, dict)
    return current


def win_chance(card: int) -> float:
    """A rough chance that a card takes a trick."""
    n = number(card)
    if suit(card) == RED:
        return 0.95 if n >= 17 else 0.7 if n >= 14 else 0.35 if n >= 10 else 0.15
    return 0.5 if n >= 19 else 0.25 if n >= 16 else 0.05


def _trick_worth(view: Mapping[str, JSON]) -> float:
    """About what one more trick is worth this round, in loon."""
    treasure = CARDS[SCORE_INDEX[str(_current(view)["treasure"])]]
    if treasure.kind == "fewest-tricks":
        return -1.0
    return 1.5


def value(view: Mapping[str, JSON], hand: Sequence[int]) -> float:
    """Recruitment loon for ``hand`` plus its trick power (for the best 10 of it)."""
    current = _current(view)
    recruitment = current["recruitment"]
    assert isinstance(recruitment, list)
    loon = sum(recruit(CARDS[SCORE_INDEX[str(card)]], hand)[1] for card in recruitment)
    chances = sorted((win_chance(c) for c in hand), reverse=True)[:10]
    return loon + _trick_worth(view) * sum(chances)


def _bid(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
    hand = _cards(view["hand"])
    rows = view["rows"]
    offer = view["offer"]
    assert isinstance(rows, list) and isinstance(offer, int)
    worth = {}
    for r, row in enumerate(rows):
        if row["owner"] is None:
            gain = value(view, hand + _cards(row["up"])) - value(view, hand)
            worth[r] = gain + row["loon"] + (0.5 if r == 0 else 0.0)
    best = max(worth.values())
    others = [w for r, w in worth.items() if r != offer]
    if worth[offer] < best or not others:
        want = 0
    else:
        want = min(MAX_BID, max(0, round((worth[offer] - max(others)) / 2)))
    bids = [m for m in legal if isinstance(m, Bid)]
    return min(bids, key=lambda m: abs(m.loon - want))


def _ditch(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
    """Keep the cards that make recruitment sets, then the strongest trick-takers."""
    hand = _cards(view["hand"])
    recruitment = _current(view)["recruitment"]
    assert isinstance(recruitment, list)
    used = {
        c
        for card in recruitment
        for group in recruit(CARDS[SCORE_INDEX[str(card)]], hand)[0]
        for c in group
    }
    worst = sorted(hand, key=lambda c: (c in used, win_chance(c), number(c), -suit(c)))[:2]
    a, b = sorted(worst)
    move = Ditch((NAMES[a], NAMES[b]))
    return move if move in legal else legal[0]


def _predict(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
    hand = _cards(view["hand"])
    players = int(view["players"])
    expected = sum(win_chance(c) for c in hand) * 4 / players
    want = max(0, min(10, round(expected)))
    options = [m for m in legal if isinstance(m, Predict)]
    return min(options, key=lambda m: abs(m.tricks - want))


def _power(card: int) -> tuple[int, int]:
    return (1 if suit(card) == RED else 0, number(card))


def _play(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
    seat = view["seat"]
    assert isinstance(seat, int)
    plays = [(int(p["seat"]), INDEX[p["card"]]) for p in view["trick"]]
    treasure = CARDS[SCORE_INDEX[str(_current(view)["treasure"])]]
    want = treasure.kind != "fewest-tricks"
    said = view["predictions"][seat]
    if treasure.kind in ("tempt", "loot") and said is not None:
        want = view["tricks"][seat] < said
    last = len(plays) == int(view["players"]) - 1
    scored = []
    for move in legal:
        assert isinstance(move, Play)
        card = INDEX[move.card]
        mine = [*plays, (seat, card)]
        scored.append((_power(card), trick.winner(mine) == len(plays), move))
    winners = [s for s in scored if s[1]]
    losers = [s for s in scored if not s[1]]
    if want and winners:
        pick = min(winners, key=_key) if last else max(winners, key=_key)
    elif want or not losers:
        pick = min(scored, key=_key)
    else:
        pick = max(losers, key=_key)
    return pick[2]


def _key(item: tuple[tuple[int, int], bool, Move]) -> tuple[int, int]:
    return item[0]


def heuristic(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    if not legal:
        raise ValueError("no legal move to choose from")
    first = legal[0]
    if isinstance(first, Bid):
        return _bid(view, legal)
    if isinstance(first, Pick):
        # A tie: the seat bid this much, so it wants the row (or the say over it).
        hand = _cards(view["hand"])
        best = max(hand, key=lambda c: number(c) * 3 + 2 - suit(c))
        return next(m for m in legal if isinstance(m, Pick) and INDEX[m.card] == best)
    if isinstance(first, Award):
        seat = view["seat"]
        return next((m for m in legal if isinstance(m, Award) and m.seat == seat), first)
    if isinstance(first, Ditch):
        return _ditch(view, legal)
    if isinstance(first, Predict):
        return _predict(view, legal)
    return _play(view, legal)


__all__ = ["heuristic", "uniform", "value", "win_chance"]
