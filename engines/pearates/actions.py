"""What Played actions do: every effect named in ``cards.KINDS`` as behaviour.

An action card's effects run in order. Most happen at once (``NOW``); some ask the player a
choice first (``CHOICES``: the legal moves, and what a move does -- True when the effect is
done). An effect with no possible choice is skipped. Then the card goes onto the top or
bottom of the treasure (``put``), except Pirate Pizza, which the start player scores.

Whenever an action allows you to add/remove cards, "you may do so from the top OR the bottom
of the treasure" and "take them from your hand or from the deck" (seed).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.pearates import flow
from engines.pearates.cards import INDEX, KIND_OF, NAMES, kind, value
from engines.pearates.moves import DECK, ENDS, Move
from engines.pearates.state import (
    ACTION,
    BY_VALUE,
    LOSERS_LOSE,
    LOSERS_SCORE,
    MUST_ACT,
    MUST_PASS,
    NO_BIDS_FOR_START,
    OPEN_BIDS,
    OUTBID,
    PER_CARD,
    PUT,
    ROUND_ENDS,
    SHUFFLE,
    Board,
    Table,
)


def into_bid(t: Table, seat: int, card: int) -> None:
    """A card joins a face-down bid: its owner sees it; everyone, once bids are open."""
    t.bids[seat].append(card)
    t.learn(seat, [card])
    if t.flags & OPEN_BIDS:
        t.reveal([card])


def from_hand(t: Table, seat: int, card: int) -> None:
    """A card leaves a hand face down: the others no longer know what stays in it."""
    t.forget(t.hands[seat], seat)
    t.hands[seat].remove(card)


def blind_pick(t: Table, owner: int, *keep: int) -> int:
    """A card taken from a face-down bid without looking (only its owner sees which)."""
    bid = t.bids[owner]
    card = bid[flow.rng(t, "blind").below(len(bid))]
    if not t.flags & OPEN_BIDS:
        t.forget(bid, owner, *keep)
    bid.remove(card)
    return card


def insert(t: Table, card: int, end: str) -> None:
    if end == flow.TOP:
        t.treasure.insert(0, card)
    else:
        t.treasure.append(card)


# -- effects that happen at once ---------------------------------------------------------------
def _take_one_from_each_bid(t: Table, seat: int) -> None:
    """Rotten Eggs: "take 1 card from every bid and add it to your own"."""
    for other in range(t.players):
        if other != seat and t.bids[other]:
            t.event(seat, flow.EV_EGGS, -1, other)
            into_bid(t, seat, blind_pick(t, other, seat))


def _open_bids(t: Table, seat: int) -> None:
    """Infested Bread: "all bids this round are open"."""
    t.flags |= OPEN_BIDS
    for bid in t.bids:
        t.reveal(bid)


def _score_minus_cards(t: Table, seat: int) -> None:
    """Fish Skeleton: "each player must score all minus cards in their bid"."""
    for s in range(t.players):
        minus = [c for c in t.bids[s] if value(c) < 0]
        if minus:
            t.bids[s] = [c for c in t.bids[s] if c not in minus]
            flow.score_cards(t, s, minus)


def _mutiny_by_value(t: Table, seat: int) -> None:
    """Pearl Pepper: "the round ends at once in a Mutiny; highest bid is measured by total
    value" (the bids are opened to measure them)."""
    t.flags |= BY_VALUE | ROUND_ENDS


def _reveal_treasure(t: Table, seat: int) -> None:
    """Egg Bag: "reveal the treasure"."""
    t.reveal(t.treasure)


def _look_at_treasure(t: Table, seat: int) -> None:
    """Ruby Rum: "look at the treasure"."""
    t.learn(seat, t.treasure)


def _draw_four(t: Table, seat: int) -> None:
    """Banana Box: "draw 4 cards into your hand"."""
    got = flow.draw(t, 4)
    t.hands[seat].extend(got)
    t.learn(seat, got)
    t.event(seat, flow.EV_DRAW, -1, len(got))


def _steal_treasure(t: Table, seat: int) -> None:
    """Pirate Pizza: "steal the entire treasure" (house: received, like every card taken
    this round)."""
    got, t.treasure = t.treasure, []
    t.event(seat, flow.EV_STEAL, -1, len(got))
    flow.receive(t, seat, got)


def _start_scores_card(t: Table, seat: int) -> None:
    """Pirate Pizza: "the start player scores this card"."""
    card, t.action = t.action, []
    flow.score_cards(t, t.start, card)


def _flag(bit: int) -> Callable[[Table, int], None]:
    def effect(t: Table, seat: int) -> None:
        t.flags |= bit

    return effect


def _next_must(forced: int) -> Callable[[Table, int], None]:
    def effect(t: Table, seat: int) -> None:
        # "The next player" is another player: with nobody else still in (every other
        # player has Passed) the card does nothing. (Edition 1 applied it to the player
        # who played it, the only one left to take a turn.)
        if t.s.rules > 1 and not flow.others_in(t, seat):
            return
        t.forced = forced

    return effect


def _reverse(t: Table, seat: int) -> None:
    """Scurvy Chicken: "reverse turn order"."""
    t.direction = -t.direction


def _bid_back(t: Table, seat: int) -> None:
    """Pirate Pine: "take your bid back into your hand"."""
    bid, t.bids[seat] = t.bids[seat], []
    t.hands[seat].extend(bid)


NOW: dict[str, Callable[[Table, int], None]] = {
    "take-one-from-each-bid": _take_one_from_each_bid,
    "open-bids": _open_bids,
    "score-minus-cards-in-bids": _score_minus_cards,
    "mutiny-by-value": _mutiny_by_value,
    "next-must-act": _next_must(MUST_ACT),  # Goldfish: "the next player must Bid or Play"
    "next-must-pass": _next_must(MUST_PASS),  # Gold Pancake: "the next player must Pass"
    "reveal-treasure": _reveal_treasure,
    "look-at-treasure": _look_at_treasure,
    "draw-four": _draw_four,
    "steal-treasure": _steal_treasure,
    "start-scores-card": _start_scores_card,
    "start-gets-no-bids": _flag(NO_BIDS_FOR_START),  # Poisoned Wine
    "losing-bids-scored": _flag(LOSERS_SCORE),  # Spoiled Cabbage
    "losing-bids-lost": _flag(LOSERS_LOSE),  # Grapecrown
    "outbid-or-pass": _flag(OUTBID),  # Pedestal Cabbage
    "per-card-choice": _flag(PER_CARD),  # Biscuit Booty
    "reverse-order": _reverse,
    "shuffle-treasure": _flag(SHUFFLE),  # Golden Apple: after the card is put
    "round-ends": _flag(ROUND_ENDS),
    "bid-back-to-hand": _bid_back,
}


# -- effects that ask a choice ------------------------------------------------------------------
def _sources(t: Board, seat: int) -> list[str]:
    out = [NAMES[c] for c in sorted(t.hands[seat])]
    if flow.can_draw(t):
        out.append(DECK)
    return out


def _take_source(t: Table, seat: int, source: str | None) -> tuple[int, bool]:
    """The card a move names, out of the hand (True) or off the draw pile (False)."""
    if source == DECK:
        return flow.draw(t, 1)[0], False
    card = INDEX[str(source)]
    from_hand(t, seat, card)
    return card, True


def _add_legal(t: Board, seat: int) -> list[Move]:
    return [Move("add", card=src, end=end) for src in _sources(t, seat) for end in ENDS]


def _add(t: Table, seat: int, move: Move) -> bool:
    """Bread Booty: "add 2 cards to the treasure; only you may look at them"."""
    card, _ = _take_source(t, seat, move.card)
    t.learn(seat, [card])
    insert(t, card, str(move.end))
    t.event(seat, flow.EV_ADD, -1, ENDS.index(str(move.end)))
    return True


def _steal_legal(t: Board, seat: int) -> list[Move]:
    return [Move("steal", end=end) for end in ENDS] if t.treasure else []


def _steal(t: Table, seat: int, move: Move) -> bool:
    """Ruby Rum: "steal 1 card" (house: received, from the top or the bottom)."""
    card = t.treasure.pop(0 if move.end == flow.TOP else -1)
    t.event(seat, flow.EV_STEAL, -1, 1)
    flow.receive(t, seat, [card])
    return True


def _others_with_bids(t: Board, seat: int) -> list[int]:
    return [s for s in range(t.players) if s != seat and t.bids[s]]


def _discard_legal(t: Board, seat: int) -> list[Move]:
    out = [Move("discard", seat=s) for s in _others_with_bids(t, seat)]
    if t.target >= 0 and out:
        out.append(Move("stop"))
    return out


def _discard(t: Table, seat: int, move: Move) -> bool:
    """Rotten Apple: "discard any card(s) from any bid but yours, without looking"."""
    if move.verb == "stop":
        return True
    victim = int(str(move.seat))
    t.event(seat, flow.EV_DISCARD, -1, victim)
    flow.discard(t, [blind_pick(t, victim)])
    t.target = victim
    return not _others_with_bids(t, seat)


def _give_legal(t: Board, seat: int) -> list[Move]:
    targets = [t.target] if t.target >= 0 else _others_with_bids(t, seat)
    return [Move("give", seat=s, card=src) for s in targets for src in _sources(t, seat)]


def _give(t: Table, seat: int, move: Move) -> bool:
    """Shiny Winy: "add 2 cards to any bid but yours" (house: both to the same bid; a card
    off the deck goes on unseen by the giver)."""
    target = int(str(move.seat))
    card, _ = _take_source(t, seat, move.card)
    into_bid(t, target, card)
    t.event(seat, flow.EV_GIVE, -1, target)
    t.target = target  # the second card goes to the same bid
    return True


def _score_bid_legal(t: Board, seat: int) -> list[Move]:
    return [Move("target", seat=s) for s in range(t.players) if t.bids[s]]


def _score_bid(t: Table, seat: int, move: Move) -> bool:
    """Pearl Onion: "score the current bid of any player"."""
    target = int(str(move.seat))
    bid, t.bids[target] = t.bids[target], []
    t.event(seat, flow.EV_TARGET, -1, target)
    flow.score_cards(t, target, bid)
    return True


Choice = tuple[Callable[[Board, int], list[Move]], Callable[[Table, int, Move], bool]]

CHOICES: dict[str, Choice] = {
    "add-secretly": (_add_legal, _add),
    "steal-one": (_steal_legal, _steal),
    "discard-from-bids": (_discard_legal, _discard),
    "give-to-a-bid": (_give_legal, _give),
    "score-a-bid": (_score_bid_legal, _score_bid),
}


# -- running a card ------------------------------------------------------------------------------
def effects(t: Board) -> tuple[str, ...]:
    return kind(t.action[0]).effects if t.action else ()


def choice_moves(t: Board, seat: int) -> list[Move]:
    name = effects(t)[t.effect]
    return CHOICES[name][0](t, seat)


def play(t: Table, seat: int, card: int) -> None:
    """ "Plays an action card (does the action, then adds the card to the treasure, top or
    bottom)"."""
    from_hand_public(t, seat, card)
    t.plays[seat] += 1
    t.forced = 0
    t.action = [card]
    t.reveal([card])
    t.effect, t.target = 0, -1
    t.event(seat, flow.EV_PLAY, _kind_index(card))
    run(t)


def from_hand_public(t: Table, seat: int, card: int) -> None:
    """A card shown as it leaves a hand: the rest of the hand is unchanged."""
    t.hands[seat].remove(card)


def _kind_index(card: int) -> int:
    return KIND_OF[card]


def choose(t: Table, seat: int, move: Move) -> None:
    name = effects(t)[t.effect]
    if CHOICES[name][1](t, seat, move):
        t.effect += 1
    run(t)


def run(t: Table) -> None:
    """Apply effects until one asks a choice, then the card is put (or the Pizza scored)."""
    seat = t.turn
    names = effects(t)
    while t.effect < len(names):
        name = names[t.effect]
        if name in CHOICES:
            if CHOICES[name][0](t, seat):
                t.phase = ACTION
                return
        else:
            NOW[name](t, seat)
        t.effect += 1
    if t.action:
        t.phase = PUT
    else:
        after_play(t, seat)


def put(t: Table, seat: int, end: str) -> None:
    card, t.action = t.action[0], []
    insert(t, card, end)
    t.event(seat, flow.EV_PUT, _kind_index(card), ENDS.index(end))
    after_play(t, seat)


def after_play(t: Table, seat: int) -> None:
    if t.flags & SHUFFLE:
        # Golden Apple: "the round ends; shuffle the treasure before splitting".
        t.forget(t.treasure)
        flow.rng(t, "shuffle").shuffle(t.treasure)
    if t.flags & ROUND_ENDS:
        flow.split(t)
        return
    flow.next_turn(t, seat)
