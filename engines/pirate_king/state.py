"""The state of a game of Pirate King!, small and fast to store (msgpack, as arrays).

Cards are numbers (``cards.CARDS``). Piles are stored top first. Nothing the engine is
waiting for lives here: a beat's reveal/stop choices arrive together in one ``step``.
"""

from __future__ import annotations

import msgspec

# Phases.
PICK = 0  # each player picks a Pirate, one at a time from the Captain
PLAY = 1  # "Accumulate swords and gold": beats and the effects' decisions
BATTLE = 2
LOOT = 3
RECLAIM = 4  # step 5: givers retrieve (or leave) the cards they gave
CROWN = 5  # a tie for the win: the Captain decides
OVER = 6

# A player's state in step 2.
REVEALING = 0
STOPPED = 1
SUNK = 2

# Decisions an effect (or the end of a round) asks of its owner.
LOOK = 0  # put the top ``n`` cards of the pile back in an order of the owner's choice
FLIP = 1  # turn face down a card of the zone that shows a curse
CHOOSE = 2  # of the top two cards of the pile, reveal one and discard the other
RETRIEVE = 3  # a card of the discard into the zone (no discard: reveal the top card or not)
GIVE = 4  # this card into another (unsunk) player's zone
RECLAIM_CARD = 5  # at the end of the round: take back a card given away, or leave it

DECISION_NAMES = ("look", "flip", "choose", "retrieve", "give", "reclaim")


class Entry(msgspec.Struct, array_like=True, frozen=True):
    """A card in a play zone."""

    card: int
    up: bool = True  # False: turned face down by a Flip, it has no symbols left
    copy: int = -1  # a Copy card: the card whose symbols and effect it copies
    swords: int = 0  # gained by its Gain effect
    gold: int = 0
    giver: int = -1  # given by this seat (Give); its owner until the end of the round
    # Placed by an effect (Reveal, Choose, Retrieve, Loot, Give, another's Reveal), not by
    # the beat's own reveal: the table stacks it in a column under the card before it
    # ("integrate them in columns, partially covering the others", seed FAQ 1).
    effect: bool = False
    # Placed, not revealed (edition 2): a retrieved card, a Loot card drawn, a given card.
    # A Copy "copies the previously revealed card": it passes over these.
    placed: bool = False


class Decision(msgspec.Struct, array_like=True, frozen=True):
    kind: int  # LOOK .. RECLAIM_CARD
    card: int  # the card whose effect asks (RECLAIM_CARD: the card given away)
    n: int = 0  # LOOK: how many cards are looked at


class State(msgspec.Struct, array_like=True, frozen=True):
    players: int
    seed: bytes
    round: int  # 0 while the Pirates are picked, then 1..7
    phase: int
    captain: int
    beat: int  # beats played in this round (the first is everyone's reveal)
    pirates: tuple[int, ...]  # the Pirate each seat picked, -1 until it has
    piles: tuple[tuple[int, ...], ...]  # per seat, top first
    known: tuple[int, ...]  # per seat: how many top cards of its pile it has looked at
    shuffles: tuple[int, ...]  # per seat: piles made so far (the Rng label of the next)
    discards: tuple[tuple[int, ...], ...]  # per seat, oldest first (face up: public)
    zones: tuple[tuple[Entry, ...], ...]  # play zones, left to right
    status: tuple[int, ...]  # REVEALING, STOPPED or SUNK
    draws: tuple[int, ...]  # per seat: cards a Reveal effect still makes it reveal
    pending: tuple[Decision | None, ...]  # per seat: the decision it owes
    others: tuple[tuple[int, int], ...]  # "other players" effects waiting: (owner, card)
    monster_pile: tuple[int, ...]
    monster_row: tuple[int, ...]
    loot_pile: tuple[int, ...]
    loot_row: tuple[int, ...]
    box: tuple[int, ...]  # out of the game: unpicked Pirates, the 2-player discards
    ranking: tuple[tuple[int, ...], ...]  # battle / loot order, tied seats grouped
    picks: int  # picks made in this battle / loot step
    winner: int  # the seat the Captain named in a tie for the win, or -1
    # Per seat: the current pile as it was shuffled (top first, without the cards that were
    # left on top of it), pile number ``shuffles - 1``. Hidden as a whole; a view shows
    # where each card that has left the pile was, so the browser can recompute the shuffle.
    made: tuple[tuple[int, ...], ...] = ()
    # Per round played: each seat's crowns at its end, the Captain token included (public:
    # every card a player owns was seen when it was taken). The game-over chart.
    tallies: tuple[tuple[int, ...], ...] = ()
    # Where this round's Loot row starts in the Loot pile as shuffled at the start: Red's
    # draws take Loot cards between the rows (public: every Loot card drawn was seen).
    loot_at: int = 0
    # The edition of the rules the game is played under (README.md, "Editions"). A state
    # stored before editions existed has none: it decodes as edition 1.
    rules: int = 1


ENCODER = msgspec.msgpack.Encoder()
DECODER = msgspec.msgpack.Decoder(State)

_FIELDS = len(State.__struct_fields__) - 1  # the fields before ``rules``
_ENTRY_FIELDS = len(Entry.__struct_fields__) - 1  # before ``placed``


def encode(state: State) -> bytes:
    """The state's bytes. Edition 1 is written as it was before editions existed (without
    ``rules``, and zone cards without ``placed``, which that edition never sets), so a
    game recorded then replays to the same digests."""
    if state.rules != 1:
        return ENCODER.encode(state)
    fields = list(msgspec.structs.astuple(state)[:_FIELDS])
    fields[State.__struct_fields__.index("zones")] = tuple(
        tuple(msgspec.structs.astuple(e)[:_ENTRY_FIELDS] for e in zone) for zone in state.zones
    )
    return ENCODER.encode(fields)
