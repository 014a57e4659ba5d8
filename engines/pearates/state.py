"""The state of a game of Pearates (msgpack arrays via msgspec), and ``Table``, the mutable
working copy a step edits before it is frozen again.

Cards are numbers (``cards.NAMES``). Ordered zones keep their order (the draw ``pile`` and
the ``treasure``, top first); the other zones are kept sorted, so their order says nothing.

``known[s]`` holds the cards whose place seat ``s`` knows; ``known[players]`` those every
seat (and a spectator) knows. A seat always knows its own hand, bid and received cards;
scored, removed and played cards are known to all. Knowledge follows a card for as long as
its moves are seen (``Table.move``) and is dropped when a move it cannot see may have taken
it (``Table.forget``): what a seat once saw stays in its view while it still holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

# phases
ARRANGE = 0  # the start player orders the treasure
TURN = 1  # Pass, Bid or Play
BID = 2  # the bidder adds more cards, or stops
ACTION = 3  # a choice an action asks for
PUT = 4  # the played card goes onto the top or bottom of the treasure
WINNER = 5  # a Mutiny's tie, broken by the start player
TAKE = 6  # the divide: bidders take from the top or the bottom
KEEP = 7  # hand or score what was received (sealed, private)
SABRE = 8  # Banana Sabres are declared (sealed)
OVER = 9

# forced turns
FREE = 0
MUST_ACT = 1  # Goldfish
MUST_PASS = 2  # Gold Pancake

# round flags
OPEN_BIDS = 1
BY_VALUE = 2  # Pearl Pepper: the highest bid is measured by total value
NO_BIDS_FOR_START = 4  # Poisoned Wine
LOSERS_SCORE = 8  # Spoiled Cabbage
LOSERS_LOSE = 16  # Grapecrown
OUTBID = 32  # Pedestal Cabbage
PER_CARD = 64  # Biscuit Booty
ROUND_ENDS = 128  # Pearl Pepper, Golden Apple: after the card is put
SHUFFLE = 256  # Golden Apple: the treasure is shuffled before the split

UNSET = 99  # a Banana Sabre's type before it is declared

# A public event: (seat, what, card kind or -1, number or -1) -- see views.EVENTS. Events
# name kinds, never cards: a log entry must not say where a card is.
Event = tuple[int, int, int, int]


class State(msgspec.Struct, array_like=True, frozen=True):
    players: int
    seed: bytes  # replaced by resample: it only drives blind picks and reshuffles
    friendly: bool
    strict: bool
    more: bool
    special: bool
    no_negatives: bool
    reshuffles: int  # reshuffles of the discards left (a longer game)
    round: int  # 1-based
    start: int  # the start player
    phase: int
    turn: int  # the seat to move (turns, actions, takes)
    direction: int  # 1 clockwise, -1 after a Scurvy Chicken
    forced: int  # FREE, MUST_ACT or MUST_PASS for the next turn
    flags: int
    pile: tuple[int, ...]  # top first
    discard: tuple[int, ...]
    removed: tuple[int, ...]  # a shorter game's removed cards, open to all
    treasure: tuple[int, ...]  # top first
    arranged: int  # treasure cards placed by the start player so far
    action: tuple[int, ...]  # the card being played (at most one)
    effect: int  # the next effect of that card
    target: int  # Shiny Winy's bid, once chosen (-1)
    hands: tuple[tuple[int, ...], ...]
    bids: tuple[tuple[int, ...], ...]
    received: tuple[tuple[int, ...], ...]
    scored: tuple[tuple[int, ...], ...]  # in the order scored
    types: tuple[tuple[int, ...], ...]  # the stack of each scored card (a value, or UNSET)
    known: tuple[tuple[int, ...], ...]  # per seat, then everyone's
    passed: tuple[bool, ...]
    plays: tuple[int, ...]  # actions Played this round, per seat
    takers: tuple[int, ...]  # the divide: seats still to take, in turn order
    choices: tuple[tuple[int, ...], ...]  # Biscuit Booty: 1 keep / 0 score, per decided card
    log: tuple[Event, ...]  # this round's public events
    last_log: tuple[Event, ...]  # the previous round's
    # The current draw pile's cards drawn so far, in draw order (the verified badge checks
    # those a seat saw at their places), and each reshuffle's cards in card order.
    drawn: tuple[int, ...] = ()
    made: tuple[tuple[int, ...], ...] = ()
    # The edition of the rules the game is played under (README.md, "Editions"): a state
    # stored before editions existed has none and decodes as edition 1.
    rules: int = 1
    # "Optional: remove some or all of the negative numbers": the negative values removed,
    # from -4 up (4: all of them, as ``no_negatives``).
    negatives: int = 0


ENCODER = msgspec.msgpack.Encoder()
DECODER = msgspec.msgpack.Decoder(State)

_NEW = ("rules", "negatives")  # the fields added with editions, last
_OLD = len(State.__struct_fields__) - len(_NEW)
_DEFAULTS = tuple(State.__struct_defaults__[-len(_NEW) :])


def encode(state: State) -> bytes:
    """The state's bytes. With those fields at their defaults (edition 1, no negatives
    removed but as ``no_negatives`` says) it is written as it was before editions existed,
    so a game recorded then replays to the same digests."""
    fields = msgspec.structs.astuple(state)
    if fields[_OLD:] == _DEFAULTS:
        return ENCODER.encode(fields[:_OLD])
    return ENCODER.encode(state)


@dataclass
class Table:
    """A mutable copy of a State for one step (``of`` / ``freeze``)."""

    s: State
    round: int
    start: int
    phase: int
    turn: int
    direction: int
    forced: int
    flags: int
    reshuffles: int
    arranged: int
    effect: int
    target: int
    seed: bytes
    pile: list[int]
    discard: list[int]
    removed: list[int]
    treasure: list[int]
    action: list[int]
    hands: list[list[int]]
    bids: list[list[int]]
    received: list[list[int]]
    scored: list[list[int]]
    types: list[list[int]]
    known: list[set[int]]
    passed: list[bool]
    plays: list[int]
    takers: list[int]
    choices: list[list[int]]
    log: list[Event]
    last_log: list[Event]
    drawn: list[int]
    made: list[tuple[int, ...]]

    @classmethod
    def of(cls, s: State) -> Table:
        return cls(
            s=s,
            round=s.round,
            start=s.start,
            phase=s.phase,
            turn=s.turn,
            direction=s.direction,
            forced=s.forced,
            flags=s.flags,
            reshuffles=s.reshuffles,
            arranged=s.arranged,
            effect=s.effect,
            target=s.target,
            seed=s.seed,
            pile=list(s.pile),
            discard=list(s.discard),
            removed=list(s.removed),
            treasure=list(s.treasure),
            action=list(s.action),
            hands=[list(z) for z in s.hands],
            bids=[list(z) for z in s.bids],
            received=[list(z) for z in s.received],
            scored=[list(z) for z in s.scored],
            types=[list(z) for z in s.types],
            known=[set(z) for z in s.known],
            passed=list(s.passed),
            plays=list(s.plays),
            takers=list(s.takers),
            choices=[list(z) for z in s.choices],
            log=list(s.log),
            last_log=list(s.last_log),
            drawn=list(s.drawn),
            made=list(s.made),
        )

    def freeze(self) -> State:
        return msgspec.structs.replace(
            self.s,
            round=self.round,
            start=self.start,
            phase=self.phase,
            turn=self.turn,
            direction=self.direction,
            forced=self.forced,
            flags=self.flags,
            reshuffles=self.reshuffles,
            arranged=self.arranged,
            effect=self.effect,
            target=self.target,
            seed=self.seed,
            pile=tuple(self.pile),
            discard=tuple(sorted(self.discard)),
            removed=tuple(sorted(self.removed)),
            treasure=tuple(self.treasure),
            action=tuple(self.action),
            hands=tuple(tuple(sorted(z)) for z in self.hands),
            bids=tuple(tuple(sorted(z)) for z in self.bids),
            received=tuple(tuple(sorted(z)) for z in self.received),
            scored=tuple(tuple(z) for z in self.scored),
            types=tuple(tuple(z) for z in self.types),
            known=tuple(tuple(sorted(z)) for z in self.known),
            passed=tuple(self.passed),
            plays=tuple(self.plays),
            takers=tuple(self.takers),
            choices=tuple(tuple(z) for z in self.choices),
            log=tuple(self.log),
            last_log=tuple(self.last_log),
            drawn=tuple(self.drawn),
            made=tuple(self.made),
        )

    @property
    def players(self) -> int:
        return self.s.players

    # -- knowledge --------------------------------------------------------------------------
    def learn(self, seat: int, cards: list[int] | tuple[int, ...]) -> None:
        self.known[seat].update(cards)

    def reveal(self, cards: list[int] | tuple[int, ...]) -> None:
        """Every seat and the spectators now know where these cards are."""
        self.known[self.players].update(cards)

    def forget(self, zone: list[int], *keep: int) -> None:
        """A move only the ``keep`` seats saw may have taken any card of ``zone``: the
        others (and the common knowledge) no longer know where its cards are."""
        cards = set(zone)
        common = self.known[self.players] & cards
        for seat in keep:
            self.known[seat].update(common)
        for seat, known in enumerate(self.known):
            if seat not in keep:
                known.difference_update(cards)

    def event(self, seat: int, what: int, kind: int = -1, number: int = -1) -> None:
        self.log.append((seat, what, kind, number))


Board = State | Table
"""Either form, for the rules that only read (who may do what now)."""
