"""The state of a game of Loon & Score Cards, small and fast to store (msgpack, as arrays).

Cards are numbers (cards.py), score cards indexes into score_cards.CARDS. Sealed bids and
tie-break picks never live here before they are revealed: the engine sees them only once
every prompted seat has moved. The loon totals are here; views show a seat only its own.
"""

from __future__ import annotations

import msgspec

# Phases.
BID = 0  # a row is on offer: sealed bids of the seats without a row
PICK = 1  # a tie: the tied seats each pick a card (sealed)
AWARD = 2  # a zero tie on a second offer: the pick's winner gives the row to a tied seat
DITCH = 3  # everyone puts two cards out of play (sealed, private)
PREDICT = 4  # in turn from the Go First holder, each predicts their tricks
PLAY = 5  # ten tricks
OVER = 6

Played = tuple[int, int]  # (seat, card)


class Offer(msgspec.Struct, array_like=True, frozen=True):
    """One offer of a row, as revealed to everyone."""

    row: int
    offer: int  # 1 or 2: the row's first or second offer; 0: taken free by the last seat
    bids: tuple[int, ...]  # per seat; -1 for a seat that did not bid
    picks: tuple[int, ...]  # per seat: the tie-break card, -1 when none
    taker: int  # -1: a tie at zero (2 loon put on the row)
    paid: int
    awarded_by: int  # the pick's winner who chose the taker, or -1


class Entry(msgspec.Struct, array_like=True, frozen=True):
    """One payment (negative) or collection (positive) of loon, public as it happens."""

    round: int
    seat: int
    amount: int
    what: str  # "top-up", "bid", "row", or a score card's id


class Recruited(msgspec.Struct, array_like=True, frozen=True):
    """The sets a seat showed for one recruitment card, and what they paid."""

    seat: int
    card: int  # score card index
    sets: tuple[tuple[int, ...], ...]
    loon: int


class State(msgspec.Struct, array_like=True, frozen=True):
    players: int
    rounds: int
    seed: bytes
    round: int  # 1-based
    phase: int
    loon: tuple[int, ...]
    scores: tuple[tuple[int, ...], ...]  # per round: (recruitment, recruitment, capture, treasure)
    hands: tuple[tuple[int, ...], ...]  # sorted
    row_up: tuple[tuple[int, ...], ...]  # the 5 face-up cards; kept as public history once taken
    row_down: tuple[tuple[int, ...], ...]  # the 2 face-down cards; () once taken
    row_owner: tuple[int, ...]  # -1 until taken
    row_loon: tuple[int, ...]
    row_offers: tuple[int, ...]
    offer: int  # the row on offer (BID, PICK, AWARD), else -1
    tied: tuple[int, ...]  # PICK: the seats picking; AWARD: the seats the row may go to
    tie_bid: int
    picker: int  # AWARD: the seat who chooses
    auction: tuple[Offer, ...]  # this round's offers, in order
    go_first: int  # the Go First marker's holder, -1 until the top row is taken
    known: tuple[tuple[int, ...], ...]  # per seat: cards everyone knows are in that hand
    vague: tuple[tuple[int, ...], ...]  # per seat: cards known to be in that hand or ditched
    ditched: tuple[tuple[int, ...], ...]
    predictions: tuple[int, ...]  # -1: none
    recruited: tuple[Recruited, ...]
    order: tuple[int, ...]  # the seats in the order they play the current trick
    trick: tuple[Played, ...]
    won: tuple[tuple[int, ...], ...]  # crew cards in the tricks each seat took this round
    takers: tuple[int, ...]  # who took each trick this round, in order
    last: tuple[Played, ...]  # the last finished trick
    ledger: tuple[Entry, ...]
    # The edition of the rules the game is played under (README.md, "Editions"): a state
    # stored before editions existed has none and decodes as edition 1.
    rules: int = 1


ENCODER = msgspec.msgpack.Encoder()
DECODER = msgspec.msgpack.Decoder(State)


def encode(state: State) -> bytes:
    """The state's bytes. Edition 1 is written as it was before editions existed (without
    ``rules``), so a game recorded then replays to the same digests."""
    if state.rules != 1:
        return ENCODER.encode(state)
    return ENCODER.encode(msgspec.structs.astuple(state)[:-1])
