"""The table as it stands: how many cards a hand gets, who deals, whose turn it is, what a
seat may do now and the scores so far.

The rules (rules.py, which make the next state) and the views (views.py, which show a
state) both read the table through this module, so neither imports the other. Everything
here is a question about one state; nothing makes a new one.

The moves and prompts are built once per edition and handed out again (they are frozen
values): listing the legal moves happens on every turn of every game, and building a fresh
``Play`` for every card each time was a fifth of an engine step.
"""

from __future__ import annotations

from engines.core import OVER, Outcome, Prompt
from engines.skull_king import trick
from engines.skull_king.cards import AS_CODES, AS_NONE, CHOICE, Deck
from engines.skull_king.moves import Bid, Move, Play
from engines.skull_king.state import BID, PLAY, State
from engines.skull_king.state import OVER as PHASE_OVER


class Table:
    """Questions about a state of one edition's game, with that edition's moves prebuilt."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        names = deck.names
        # The ways to play each card: one, or two for the choice card (as pirate / escape).
        self.plays: tuple[tuple[Play, ...], ...] = tuple(
            (Play(name, "pirate"), Play(name, "escape"))
            if deck.kind[card] == CHOICE
            else (Play(name),)
            for card, name in enumerate(names)
        )
        # (card name, as) of every well-formed play -> (card, as code): a move checked by
        # shape in one look-up.
        self.known: dict[tuple[str, str | None], tuple[int, int]] = {
            (move.card, move.as_): (card, AS_CODES[move.as_] if move.as_ else AS_NONE)
            for card, ways in enumerate(self.plays)
            for move in ways
        }
        # The first way to play each card; the choice card's second way comes right after it.
        self._first = tuple(ways[0] for ways in self.plays)
        self._choice = deck.index[deck.edition.choice]
        self._choice_second = self.plays[self._choice][1]
        self.bids: tuple[Bid, ...] = tuple(Bid(n) for n in range(len(names) + 1))
        most = deck.edition.max_players + 1  # the ghost is a hand of its own
        self._turns = tuple(Prompt((hand,), "play") for hand in range(most))
        self._biddings = tuple(
            Prompt(tuple(range(players)), "bid", sealed=True) for players in range(most)
        )

    def cards_per_hand(self, players: int, round_: int) -> int:
        """ "never more than floor(70 / players)" -- the ghost counts as a hand."""
        hands = players + 1 if players == 2 else players
        return min(round_, len(self.deck.names) // hands)

    def dealer(self, state: State, round_: int | None = None) -> int:
        r = state.round if round_ is None else round_
        return (state.first_dealer + r - 1) % state.players

    def turn(self, state: State) -> int | None:
        """The hand to play now (may be the ghost's index), or None outside play."""
        return state.order[len(state.trick)] if state.phase == PLAY else None

    def prompt(self, state: State) -> Prompt:
        phase = state.phase
        if phase == BID:
            players = state.players
            if 0 <= players < len(self._biddings):
                return self._biddings[players]
            return Prompt(tuple(range(players)), "bid", sealed=True)
        if phase == PLAY:
            hand = state.order[len(state.trick)]
            if 0 <= hand < len(self._turns):
                return self._turns[hand]
            return Prompt((hand,), "play")
        return OVER

    def legal(self, state: State, seat: int) -> list[Move]:
        """Every move ``seat`` may make now, in hand order (a choice card as pirate, then as
        escape); bids from 0 up."""
        phase = state.phase
        if phase == BID and 0 <= seat < state.players:
            count = len(state.hands[seat]) + 1
            if count <= len(self.bids):
                return list(self.bids[:count])
            return [Bid(n) for n in range(count)]
        if phase != PLAY or state.order[len(state.trick)] != seat:
            return []
        cards: tuple[int, ...] | list[int] = state.hands[seat]
        plays = state.trick
        suit = self.deck.suit  # -1 for special cards
        if plays:
            # A numbered card led sets the suit (the usual case, answered here); after a
            # special card trick.suit_led decides.
            lead = suit[plays[0][1]]
            if lead < 0:
                lead = trick.suit_led(self.deck, plays)
            # Follow suit if you can; special cards may always be played.
            if lead >= 0 and lead in map(suit.__getitem__, cards):
                cards = [c for c in cards if suit[c] < 0 or suit[c] == lead]
        out: list[Move] = list(map(self._first.__getitem__, cards))
        if self._choice in cards:
            out.insert(cards.index(self._choice) + 1, self._choice_second)
        return out

    def totals(self, state: State) -> list[int]:
        return [sum(r.points[s] for r in state.sheet) for s in range(state.players)]

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != PHASE_OVER:
            return None
        return Outcome.from_scores(self.totals(state))
