"""Bots: a function of the view of their own seat only (they never peek).

``uniform`` picks any legal move. ``heuristic`` bids the tricks it expects its cards to win
and then plays to make exactly that bid: when it still needs tricks it wins as cheaply as it
can (the weakest winning card when it plays last, its strongest winner otherwise); when it
has enough it ducks under the trick with its most dangerous card that still loses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.core import JSON, Policy
from engines.rng import Rng
from engines.skull_king import trick
from engines.skull_king.cards import (
    AS_CODES,
    AS_NONE,
    CHOICE,
    ESCAPE,
    KING,
    MERMAID,
    NUMBER,
    PIRATE,
    Deck,
)
from engines.skull_king.moves import Bid, Move, Play


def uniform(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    return rng.choice(legal)


def _power(deck: Deck, card: int, as_: int) -> float:
    """How hard a played card is to beat (for ordering, not for deciding winners)."""
    role = trick.role(deck, card, as_)
    if role == ESCAPE:
        return 0.0
    if role == NUMBER:
        return deck.rank[card] + (20 if deck.suit[card] == deck.black else 0)
    return {MERMAID: 40.0, PIRATE: 50.0, KING: 60.0}[role]


def _win_chance(deck: Deck, card: int, players: int, in_hand: int) -> float:
    """A rough chance that ``card`` takes a trick, for bidding."""
    kind = deck.kind[card]
    crowd = float((4 / max(players, 2)) ** 0.5)
    if kind == KING:
        return 0.9
    if kind == PIRATE:
        return 0.75
    if kind == CHOICE:
        return 0.55
    if kind == MERMAID:
        return 0.45
    if kind == ESCAPE:
        return 0.0
    top = deck.edition.top_rank
    share = deck.rank[card] / top
    if deck.suit[card] == deck.black:
        return min(0.85, float(share**1.5) * crowd)
    # A high card of a colour wins mostly in short rounds, before players run out of it.
    return min(0.6, float(share**4) * crowd * (1.0 if in_hand <= 5 else 0.7))


def heuristic(deck: Deck) -> Policy[Move]:
    """The heuristic policy for one edition's deck."""

    def bid(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
        hand = [deck.index[name] for name in view["hand"]]
        players = int(view["players"])
        expected = sum(_win_chance(deck, c, players, len(hand)) for c in hand)
        want = max(0, min(len(hand), round(expected)))
        options = [m for m in legal if isinstance(m, Bid)]
        return min(options, key=lambda m: abs(m.tricks - want))

    def play(view: Mapping[str, JSON], legal: Sequence[Move]) -> Move:
        seat = view["seat"]
        assert isinstance(seat, int)
        need = view["bids"][seat] - view["tricks"][seat]
        plays: list[trick.Play] = [
            (p["seat"], deck.index[p["card"]], AS_CODES.get(p.get("as", ""), AS_NONE))
            for p in view["trick"]
        ]
        last = len(plays) == len(view["order"]) - 1
        scored: list[tuple[float, bool, Move]] = []
        for move in legal:
            assert isinstance(move, Play)
            card = deck.index[move.card]
            as_ = AS_CODES[move.as_] if move.as_ else AS_NONE
            mine = [*plays, (seat, card, as_)]
            wins = trick.winner(deck, mine) == len(plays)
            scored.append((_power(deck, card, as_), wins, move))
        winners = [s for s in scored if s[1]]
        losers = [s for s in scored if not s[1]]
        if need > 0 and winners:
            pick = min(winners, key=_key) if last else max(winners, key=_key)
        elif need > 0:
            pick = min(scored, key=_key)
        elif losers:
            pick = max(losers, key=_key)
        else:
            pick = min(scored, key=_key)
        return pick[2]

    def policy(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
        if not legal:
            raise ValueError("no legal move to choose from")
        if isinstance(legal[0], Bid):
            return bid(view, legal)
        return play(view, legal)

    return policy


def _key(item: tuple[float, bool, Move]) -> float:
    return item[0]


__all__: list[str] = ["heuristic", "uniform"]
