"""The state of a game of Skull King, small and fast to store (msgpack, as arrays).

Hands are indexed ``0 .. players-1``; with two players a ghost hand joins as index 2.
Sealed bids never live here: the engine only sees the bids once all are revealed.
"""

from __future__ import annotations

import msgspec

BID = 0
PLAY = 1
OVER = 2

# A play in a trick: (hand, card, as_) -- see trick.py.
Played = tuple[int, int, int]


class Round(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One finished round on the score sheet (players only, not the ghost)."""

    round: int
    cards: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    bonus: tuple[int, ...]  # bonuses earned (counted only where the bid was exact)
    points: tuple[int, ...]


class State(msgspec.Struct, array_like=True, frozen=True, gc=False):
    game: str  # the edition's game id
    players: int
    rounds: int
    seed: bytes
    first_dealer: int
    round: int  # 1-based
    phase: int  # BID, PLAY or OVER
    hands: tuple[tuple[int, ...], ...]  # per hand; the ghost's pile in dealt order, top first
    stock: tuple[int, ...]  # the cards not dealt this round
    bids: tuple[int, ...]  # -1 until revealed
    order: tuple[int, ...]  # the hands in the order they play the current trick
    trick: tuple[Played, ...]
    won: tuple[tuple[int, ...], ...]  # cards won this round, per hand
    tricks: tuple[int, ...]  # tricks won this round, per hand
    bonus: tuple[int, ...]  # bonus earned this round, per hand
    last: tuple[Played, ...]  # the last finished trick (empty at a round's start)
    last_winner: int  # its taker's hand, or -1
    sheet: tuple[Round, ...]


ENCODER = msgspec.msgpack.Encoder()
DECODER = msgspec.msgpack.Decoder(State)
