"""The course of a round on a ``Table``: the treasure, the turns, the split, hand or score,
and the end of the game. Each function leaves the table at the next choice somebody owes.

Rule quotes are from ``shared/rules/pearates.md`` (the page) and the seed; decisions marked
house are listed in README.md.
"""

from __future__ import annotations

from engines.pearates.cards import KIND_OF, kind, value
from engines.pearates.state import (
    ARRANGE,
    BY_VALUE,
    KEEP,
    LOSERS_LOSE,
    LOSERS_SCORE,
    NO_BIDS_FOR_START,
    OUTBID,
    OVER,
    PER_CARD,
    SABRE,
    TAKE,
    TURN,
    UNSET,
    WINNER,
    Board,
    Table,
)
from engines.rng import Rng

HAND_LIMIT = 8
TREASURE_AT_LEAST = 2

# events (views.EVENTS names them)
EV_PASS, EV_BID, EV_PLAY, EV_PUT, EV_ADD, EV_STEAL, EV_DISCARD, EV_GIVE = range(8)
EV_TARGET, EV_WINNER, EV_TAKE, EV_KEEP, EV_SCORE, EV_RESHUFFLE, EV_TREASURE = range(8, 15)
EV_MUTINY, EV_DIVIDE, EV_LEFTOVERS, EV_EGGS, EV_RETURNED, EV_DRAW, EV_STOP = range(15, 22)
EV_SABRE = 22
# The split, as the table sees it: a take from the bottom (EV_TAKE is from the top), a
# Mutiny winner's share, the bids the start player receives (or loses to Poisoned Wine).
EV_TAKE_BOTTOM, EV_SHARE, EV_COLLECT, EV_BIDS_LOST = range(23, 27)

TOP, BOTTOM = "top", "bottom"


def rng(t: Table, what: str) -> Rng:
    """A stream for a blind pick or a shuffle, named by the round and the log position."""
    return Rng(t.seed, f"{what}:{t.round}:{len(t.log)}")


# -- the draw pile -----------------------------------------------------------------------------
def can_draw(t: Board) -> bool:
    return bool(t.pile) or (t.reshuffles > 0 and bool(t.discard))


def reshuffle(t: Table) -> bool:
    """ "Longer game: when the draw pile is empty, shuffle the discarded cards and make it the
    new draw pile" (as many times as the option says)."""
    if t.pile or t.reshuffles <= 0 or not t.discard:
        return False
    cards = sorted(t.discard)
    t.forget(cards)
    t.made.append(tuple(cards))
    Rng(t.seed, f"reshuffle:{t.reshuffles}").shuffle(cards)
    t.pile, t.discard, t.drawn = cards, [], []
    t.reshuffles -= 1
    t.event(-1, EV_RESHUFFLE, -1, len(cards))
    return True


def draw(t: Table, n: int) -> list[int]:
    out: list[int] = []
    while len(out) < n and (t.pile or reshuffle(t)):
        out.append(t.pile.pop(0))
        t.drawn.append(out[-1])
    return out


# -- the round ---------------------------------------------------------------------------------
def begin_round(t: Table, round_: int, start: int) -> None:
    """ "The start player draws max(hand size, 2) cards as a secret treasure, orders them as
    they like, and places them face down." """
    t.round, t.start = round_, start
    t.last_log, t.log = t.log, []
    t.flags, t.direction, t.forced = 0, 1, 0
    t.passed = [False] * t.players
    t.plays = [0] * t.players
    t.takers, t.choices = [], [[] for _ in range(t.players)]
    t.effect, t.target, t.arranged = 0, -1, 0
    t.treasure = draw(t, max(len(t.hands[start]), TREASURE_AT_LEAST))
    t.learn(start, t.treasure)
    t.event(start, EV_TREASURE, -1, len(t.treasure))
    t.phase, t.turn = ARRANGE, start


def hide(t: Table) -> None:
    """The treasure is face down; the players after the start player take turns."""
    t.phase = TURN
    next_turn(t, t.start)


def next_turn(t: Table, after: int) -> None:
    """ "This goes round until everyone has passed." The start player hides the treasure
    and takes no turn: "the others bid cards for it, play actions on it, and split it"."""
    for k in range(1, t.players + 1):
        seat = (after + k * t.direction) % t.players
        if seat != t.start and not t.passed[seat]:
            t.phase, t.turn = TURN, seat
            return
    split(t)


def others_in(t: Board, seat: int) -> list[int]:
    """The players other than ``seat`` still taking turns this round (not Passed; the start
    player takes none)."""
    return [s for s in range(t.players) if s not in (seat, t.start) and not t.passed[s]]


def order_after_start(t: Board) -> list[int]:
    return [(t.start + k * t.direction) % t.players for k in range(1, t.players)]


def previous_player(t: Board, seat: int) -> int | None:
    """The player whose turn comes just before ``seat``'s in the current turn order (the
    start player takes no turn), or None when ``seat`` is the only one taking turns."""
    for k in range(1, t.players):
        other = (seat - k * t.direction) % t.players
        if other != t.start:
            return None if other == seat else other
    return None


def outbid_needed(t: Board, seat: int) -> int:
    """Pedestal Cabbage: "from now on, bid more than the previous player or pass" -- the
    bid size a Bid must end above (0 with no previous player), or -1 without the card."""
    if not t.flags & OUTBID:
        return -1
    prev = previous_player(t, seat)
    return 0 if prev is None else len(t.bids[prev])


# -- the split ---------------------------------------------------------------------------------
def measure(t: Board, seat: int) -> int:
    """A bid's size; after a Pearl Pepper, its total value."""
    if t.flags & BY_VALUE:
        return sum(value(c) for c in t.bids[seat])
    return len(t.bids[seat])


def tied_highest(t: Board) -> list[int]:
    bidders = [s for s in order_after_start(t) if t.bids[s]]
    if not bidders:
        return []
    best = max(measure(t, s) for s in bidders)
    return [s for s in bidders if measure(t, s) == best]


def split(t: Table) -> None:
    """ "Split: if the total bid exceeds the treasure size (a Mutiny), the highest bid takes
    the whole treasure ... Otherwise, in turn order, each bidder takes as many cards as they
    bid, all from the top or all from the bottom". Pearl Pepper: always a Mutiny."""
    t.turn = -1
    total = sum(len(b) for b in t.bids)
    tied = tied_highest(t)
    if tied and (t.flags & BY_VALUE or total > len(t.treasure)):
        t.event(-1, EV_MUTINY, -1, total)
        if len(tied) > 1 and t.s.strict:
            # Strict ties: "the cards are revealed and scored. Highest score wins. If still
            # equal, divide the treasure between the tied players".
            for s in tied:
                t.reveal(t.bids[s])
            best = max(sum(value(c) for c in t.bids[s]) for s in tied)
            tied = [s for s in tied if sum(value(c) for c in t.bids[s]) == best]
            mutiny(t, tied)
        elif len(tied) > 1:
            t.phase, t.turn = WINNER, t.start  # "the start player breaks ties"
        else:
            mutiny(t, tied)
        return
    t.event(-1, EV_DIVIDE, -1, total)
    t.takers = [s for s in order_after_start(t) if t.bids[s]]
    next_taker(t)


def mutiny(t: Table, winners: list[int]) -> None:
    """The winner(s) take the treasure (several: shared as fairly as possible from the top,
    in turn order, the rest discarded); "the start player receives the highest bid,
    everyone else takes their own bid back"."""
    share = len(t.treasure) // len(winners)
    for w in winners:
        got, t.treasure = t.treasure[:share], t.treasure[share:]
        t.event(w, EV_SHARE, -1, len(got))
        receive(t, w, got)
    leftovers(t)
    to_start(t, [b for s, b in enumerate(t.bids) if s in winners])
    for s in range(t.players):
        bid, t.bids[s] = t.bids[s], []
        if not bid or s in winners:
            continue
        if t.flags & LOSERS_LOSE:  # Grapecrown: "losing bids do not return"
            discard(t, bid)
        elif t.flags & LOSERS_SCORE:  # Spoiled Cabbage: "must be scored when returned"
            score_cards(t, s, bid)
        else:
            t.event(s, EV_RETURNED, -1, len(bid))
            receive(t, s, bid)
    begin_keep(t)


def next_taker(t: Table) -> None:
    if t.takers and t.treasure:
        t.phase, t.turn = TAKE, t.takers[0]
        return
    # "the start player receives all bids; leftovers are discarded"
    to_start(t, t.bids)
    t.bids = [[] for _ in range(t.players)]
    t.takers = []
    if (
        t.s.friendly and t.treasure and not any(e[1] == EV_BID for e in t.log)
    ):  # "If nobody bids on a treasure, the start player receives it."
        got, t.treasure = t.treasure, []
        receive(t, t.start, got)
    leftovers(t)
    begin_keep(t)


def take(t: Table, seat: int, end: str) -> None:
    n = len(t.bids[seat])
    if end == TOP:
        got, t.treasure = t.treasure[:n], t.treasure[n:]
    else:
        cut = max(len(t.treasure) - n, 0)
        got, t.treasure = t.treasure[cut:], t.treasure[:cut]
    t.event(seat, EV_TAKE if end == TOP else EV_TAKE_BOTTOM, -1, len(got))
    receive(t, seat, got)
    t.takers.pop(0)
    next_taker(t)


def to_start(t: Table, bids: list[list[int]]) -> None:
    """The bids that go to the start player, in seat order (one event for all of them)."""
    cards = [c for bid in bids for c in bid]
    if not cards:
        return
    if t.flags & NO_BIDS_FOR_START:  # Poisoned Wine: "the start player receives no bids"
        t.event(t.start, EV_BIDS_LOST, -1, len(cards))
        discard(t, cards)
    else:
        t.event(t.start, EV_COLLECT, -1, len(cards))
        receive(t, t.start, cards)


def receive(t: Table, seat: int, cards: list[int]) -> None:
    """Cards received this round (their moves are seen: whoever knew them still does)."""
    t.received[seat].extend(cards)
    t.learn(seat, cards)


def discard(t: Table, cards: list[int]) -> None:
    t.discard.extend(cards)


def leftovers(t: Table) -> None:
    if t.treasure:
        t.event(-1, EV_LEFTOVERS, -1, len(t.treasure))
        discard(t, t.treasure)
        t.treasure = []


# -- scoring a card ----------------------------------------------------------------------------
def score_cards(t: Table, seat: int, cards: list[int]) -> None:
    """ "Scoring a card simply means placing it faceup in front of you." Confused Compass:
    "whenever you score, one card goes on a wrong stack" (house: the highest card of the
    batch goes on the seat's lowest other stack, when it has one)."""
    if not cards:
        return
    had_compass = any(kind(c).scoring == "wrong-stack" for c in t.scored[seat])
    stacks = [UNSET if kind(c).value is None else value(c) for c in cards]
    if had_compass:
        candidates = [i for i, st in enumerate(stacks) if st != UNSET]
        if candidates:
            i = max(candidates, key=lambda k: (stacks[k], -k))
            others = [st for st in t.types[seat] if st not in (UNSET, stacks[i])]
            if others:
                stacks[i] = min(others)
    for card, stack in zip(cards, stacks, strict=True):
        t.scored[seat].append(card)
        t.types[seat].append(stack)
        t.event(seat, EV_SCORE, KIND_OF[card], stack)
    t.reveal(cards)


# -- hand or score -----------------------------------------------------------------------------
def last_round(t: Board) -> bool:
    return not t.pile and not (t.reshuffles > 0 and t.discard)


def begin_keep(t: Table) -> None:
    """ "Each player takes all cards received this round into their hand, or scores all of
    them (face up)." Soupy Spyglass: "when received, you must score it". Friendly: "In the
    final round, you automatically score all cards received." """
    for s in range(t.players):
        spy = [c for c in t.received[s] if kind(c).scoring == "must-score"]
        if spy:
            t.received[s] = [c for c in t.received[s] if c not in spy]
            score_cards(t, s, spy)
        if t.s.friendly and last_round(t) and t.received[s]:
            got, t.received[s] = t.received[s], []
            score_cards(t, s, got)
    t.choices = [[] for _ in range(t.players)]
    t.phase, t.turn = KEEP, -1
    if not keepers(t):
        end_round(t)


def keepers(t: Board) -> list[int]:
    """Seats that still owe a hand-or-score choice."""
    if t.flags & PER_CARD:
        return [s for s in range(t.players) if len(t.choices[s]) < len(t.received[s])]
    return [s for s in range(t.players) if t.received[s]]


def can_keep(t: Board, seat: int) -> bool:
    """ "Hand limit 8: what does not fit must be scored." """
    if t.flags & PER_CARD:
        return len(t.hands[seat]) + sum(t.choices[seat]) + 1 <= HAND_LIMIT
    return len(t.hands[seat]) + len(t.received[seat]) <= HAND_LIMIT


def keep_all(t: Table, decisions: dict[int, bool]) -> None:
    """Everyone's choice at once (a sealed prompt): all to hand, or all scored."""
    for s in sorted(decisions):
        got, t.received[s] = t.received[s], []
        if decisions[s]:
            t.hands[s].extend(got)
            t.event(s, EV_KEEP, -1, len(got))
        else:
            score_cards(t, s, got)
    end_round(t)


def keep_each(t: Table, decisions: dict[int, bool]) -> None:
    """Biscuit Booty: "decide per card whether it goes to hand or is scored" -- one card
    per seat per sealed step, applied when everybody has decided every card."""
    for s, keep in decisions.items():
        t.choices[s].append(1 if keep else 0)
    if keepers(t):
        return
    for s in range(t.players):
        got, t.received[s] = t.received[s], []
        kept = [c for c, k in zip(got, t.choices[s], strict=True) if k]
        if kept:
            t.hands[s].extend(kept)
            t.event(s, EV_KEEP, -1, len(kept))
        score_cards(t, s, [c for c, k in zip(got, t.choices[s], strict=True) if not k])
    t.choices = [[] for _ in range(t.players)]
    end_round(t)


# -- the end -----------------------------------------------------------------------------------
def end_round(t: Table) -> None:
    """ "The game ends after the round in which the draw pile runs out." """
    if not t.pile and not reshuffle(t):
        finish(t)
        return
    begin_round(t, t.round + 1, (t.start + 1) % t.players)


def finish(t: Table) -> None:
    t.turn = -1
    t.phase = SABRE if sabre_seats(t) else OVER


def sabre_seats(t: Board) -> list[int]:
    return [s for s in range(t.players) if UNSET in t.types[s]]


def declare(t: Table, values: dict[int, int]) -> None:
    """ "Banana Sabre: wildcard: counts as any value you choose" -- one Sabre per seat per
    sealed step, in the order scored."""
    for s, v in values.items():
        i = t.types[s].index(UNSET)
        t.types[s][i] = v
        t.event(s, EV_SABRE, -1, v)
    if not sabre_seats(t):
        t.phase = OVER
