"""Skull King and Pirate Tricks: Bid & Make It -- one engine, two editions.

Rule decisions, each quoted from ../shared/rules/skull-king.md or the seed, are listed in
this folder's README.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

import msgspec

from engines.core import JSON, BadOptions, IllegalMove, MalformedMove
from engines.game import TableGame
from engines.rng import Rng
from engines.skull_king import bots, moves, trick, views
from engines.skull_king.cards import AS_CODES, AS_ESCAPE, AS_NONE, CHOICE, Deck, Edition
from engines.skull_king.moves import Bid, Move, Play
from engines.skull_king.state import BID, DECODER, ENCODER, PLAY, Round, State
from engines.skull_king.state import OVER as PHASE_OVER
from engines.skull_king.table import Table

MAX_ROUNDS = 10


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a host may choose. ``rounds``: play rounds 1..rounds (10 is the full game)."""

    rounds: int = MAX_ROUNDS


class SkullKing(TableGame[State, Move, Options, Table]):
    """The engine of both editions; an instance per edition is registered (the edition
    gives the id, the title, the seats and the deck)."""

    options_type = Options
    schema: ClassVar[Mapping[str, JSON]] = {
        "rounds": {"type": "int", "default": MAX_ROUNDS, "min": 1, "max": MAX_ROUNDS}
    }
    encoder = ENCODER
    decoder = DECODER
    views = views

    def __init__(self, edition: Edition) -> None:
        self.edition = edition
        self.cards = Deck.of(edition)
        table = Table(self.cards)
        super().__init__(table, {"random": bots.uniform, "heuristic": bots.heuristic(self.cards)})
        self._known = table.known
        self._suit = self.cards.suit
        # What a state says (whose move, the legal moves, the scores) is the table's to
        # answer; its methods are bound here rather than wrapped: they run on every turn.
        self.turn: Callable[[State], int | None] = table.turn
        self.cards_per_hand: Callable[[int, int], int] = table.cards_per_hand
        self.totals: Callable[[State], list[int]] = table.totals
        # Trick orders without the ghost, by player count and leader: clockwise from the
        # leader.
        self._clockwise = {
            players: tuple(
                tuple((leader + i) % players for i in range(players)) for leader in range(players)
            )
            for players in range(2, edition.max_players + 1)
        }
        self.id = edition.id
        self.title = edition.title
        self.seats = range(2, edition.max_players + 1)
        self.card_titles = edition.titles
        self.ghost_hand_at = (2,)  # "a ghost third hand joins" with two players

    # -- set-up ---------------------------------------------------------------
    def check_options(self, options: Options) -> None:
        if not 1 <= options.rounds <= MAX_ROUNDS:
            raise BadOptions(f"rounds is from 1 to {MAX_ROUNDS}")

    def dealer(self, state: State, round_: int | None = None) -> int:
        return self.table.dealer(state, round_)

    def first_state(self, options: Options, players: int, seed: bytes) -> State:
        # The first dealer is drawn; with two players only the two players deal.
        first = Rng(seed, "dealer").below(players)
        hands = players + 1 if players == 2 else players
        empty = tuple(0 for _ in range(hands))
        state = State(
            game=self.id,
            players=players,
            rounds=options.rounds,
            seed=bytes(seed),
            first_dealer=first,
            round=0,
            phase=BID,
            hands=(),
            stock=(),
            bids=(),
            order=(),
            trick=(),
            won=tuple(() for _ in range(hands)),
            tricks=empty,
            bonus=empty,
            last=(),
            last_winner=-1,
            sheet=(),
        )
        return self._deal(state, 1)

    def _deal(self, state: State, round_: int) -> State:
        """Shuffle the whole deck and deal. Hand h gets the h-th block of the shuffled deck."""
        n = self.cards_per_hand(state.players, round_)
        hands_count = len(state.won)
        order = Rng(state.seed, f"deal:{round_}").shuffled(range(len(self.cards.names)))
        hands = [tuple(sorted(order[h * n : (h + 1) * n])) for h in range(hands_count)]
        if hands_count > state.players:  # the ghost's pile keeps the dealt order
            hands[state.players] = tuple(order[state.players * n : (state.players + 1) * n])
        zero = (0,) * hands_count
        return msgspec.structs.replace(
            state,
            round=round_,
            phase=BID,
            hands=tuple(hands),
            stock=tuple(sorted(order[hands_count * n :])),
            bids=(-1,) * state.players,
            order=(),
            trick=(),
            won=((),) * hands_count,
            tricks=zero,
            bonus=zero,
            last=(),
            last_winner=-1,
        )

    # -- whose move ---------------------------------------------------------------
    def validate(self, state: State, seat: int, move: Move) -> None:
        self._checked(state, seat, move)

    def _checked(self, state: State, seat: int, move: Move) -> tuple[int, int]:
        """``validate``; for a play also its card and how it is played (AS_*), for a bid
        ``(-1, AS_NONE)``."""
        phase = state.phase
        if phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if not 0 <= seat < state.players:
            raise IllegalMove(f"there is no seat {seat}", "no-such-seat")
        if isinstance(move, Play):
            return self._checked_play(state, seat, move)
        if isinstance(move, Bid):
            if phase != BID:
                raise IllegalMove("bids are made before the first trick", "not-bidding")
            limit = len(state.hands[seat])
            if not 0 <= move.tricks <= limit:
                raise IllegalMove(
                    f"a bid is from 0 to the {limit} cards in hand", "bid-out-of-range"
                )
            return -1, AS_NONE
        raise MalformedMove("not a move of this game")

    def _checked_play(self, state: State, seat: int, move: Play) -> tuple[int, int]:
        """``_checked`` for a play by a real seat of a game not over."""
        try:
            known = self._known.get((move.card, move.as_))
        except TypeError:  # an unhashable card: _play below says what is wrong
            known = None
        if known is None:
            # A known card, "as" only for a choice card: MalformedMove otherwise.
            moves._play(self.cards, move.card, move.as_)
            known = (self.cards.index[move.card], AS_CODES[move.as_] if move.as_ else AS_NONE)
        if state.phase != PLAY:
            raise IllegalMove("everyone bids before the first card is played", "bidding")
        plays = state.trick
        if state.order[len(plays)] != seat:
            raise IllegalMove("it is not your turn", "not-your-turn")
        card = known[0]
        hand = state.hands[seat]
        if card not in hand:
            raise IllegalMove(f"{move.card} is not in your hand", "not-in-hand")
        # trick.follows, written out: special cards and the lead are always allowed; a
        # numbered card led sets the suit (else trick.suit_led decides); a card of another
        # suit only if the hand holds none of the suit led.
        suit = self._suit  # -1 for special cards
        if plays and suit[card] >= 0:
            lead = suit[plays[0][1]]
            if lead < 0:
                lead = trick.suit_led(self.cards, plays)
            if lead >= 0 and suit[card] != lead and lead in map(suit.__getitem__, hand):
                name = self.cards.edition.suits[lead]
                raise IllegalMove(
                    f"follow suit: you hold {name}, so play {name} or a special card",
                    "must-follow-suit",
                )
        return known

    # -- moves ------------------------------------------------------------------
    def step(self, state: State, moves_: Mapping[int, Move]) -> State:
        phase = state.phase
        if phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if phase == BID:
            if set(moves_) != set(range(state.players)):
                raise IllegalMove("the bids are revealed together: every seat bids", "sealed")
            for seat, move in moves_.items():
                self.validate(state, seat, move)
            bids = tuple(moves_[s].tricks for s in range(state.players))  # type: ignore[union-attr]
            leader = (self.dealer(state) + 1) % state.players
            state = msgspec.structs.replace(
                state, phase=PLAY, bids=bids, order=self._order(state.players, leader, ())
            )
            return self._ghost(state)
        if len(moves_) != 1:
            raise IllegalMove("one card is played at a time", "one-at-a-time")
        ((seat, move),) = moves_.items()
        if isinstance(move, Play) and 0 <= seat < state.players:
            card, as_ = self._checked_play(state, seat, move)
        else:
            card, as_ = self._checked(state, seat, move)
        state = self._play(state, seat, card, as_)
        return self._ghost(state) if state.players == 2 else state

    def _play(self, state: State, hand: int, card: int, as_: int) -> State:
        """``hand`` plays ``card`` (in its hand) as ``as_`` (AS_NONE, AS_PIRATE, AS_ESCAPE)."""
        hands = list(state.hands)
        held = hands[hand]
        at = held.index(card)  # every card is in the deck once
        hands[hand] = held[:at] + held[at + 1 :]
        plays = (*state.trick, (hand, card, as_))
        if len(plays) < len(state.order):
            return msgspec.structs.replace(state, hands=tuple(hands), trick=plays)
        # The trick is complete.
        win = trick.winner(self.cards, plays)
        taker = plays[win][0]
        won = list(state.won)
        won[taker] = won[taker] + tuple([c for _, c, _a in plays])
        tricks = list(state.tricks)
        tricks[taker] += 1
        bonus = list(state.bonus)
        bonus[taker] += trick.bonus(self.cards, plays, win)
        state = msgspec.structs.replace(
            state,
            hands=tuple(hands),
            trick=(),
            won=tuple(won),
            tricks=tuple(tricks),
            bonus=tuple(bonus),
            last=plays,
            last_winner=taker,
            order=self._order(state.players, taker, state.order),
        )
        if hands[0]:
            return state
        return self._end_round(state)

    def _order(self, players: int, leader: int, before: tuple[int, ...]) -> tuple[int, ...]:
        """The play order of a trick led by ``leader``; ``before`` is the order of the trick
        before (empty before a round's first trick).

        With two players the ghost "always plays second (or leads after winning a trick)".
        When the ghost leads, the players follow in the order they had (house): the player
        who came first in the trick before leads them.
        """
        if players != 2:
            clockwise = self._clockwise.get(players)
            if clockwise is not None and 0 <= leader < players:
                return clockwise[leader]
            return tuple((leader + i) % players for i in range(players))
        ghost = 2
        if leader != ghost:
            return (leader, ghost, 1 - leader)
        previous_leader = next(h for h in before if h < players)
        return (ghost, previous_leader, 1 - previous_leader)

    def _ghost(self, state: State) -> State:
        """The ghost "plays the top card of its pile without following suit, plays its Rogue
        as an Escape"."""
        while state.players == 2 and state.phase == PLAY and state.order[len(state.trick)] == 2:
            card = state.hands[2][0]
            as_ = AS_ESCAPE if self.cards.kind[card] == CHOICE else AS_NONE
            state = self._play(state, 2, card, as_)
        return state

    def _end_round(self, state: State) -> State:
        n = self.cards_per_hand(state.players, state.round)
        points = []
        for seat in range(state.players):
            bid, took = state.bids[seat], state.tricks[seat]
            if bid == 0:
                unit = n if self.edition.zero_bid_by_cards else state.round
                points.append(10 * unit if took == 0 else -10 * unit)
            elif took == bid:
                points.append(20 * bid + state.bonus[seat])
            else:
                points.append(-10 * abs(took - bid))
        row = Round(
            round=state.round,
            cards=n,
            bids=state.bids,
            tricks=state.tricks[: state.players],
            bonus=state.bonus[: state.players],
            points=tuple(points),
        )
        state = msgspec.structs.replace(state, sheet=(*state.sheet, row))
        if state.round >= state.rounds:
            return msgspec.structs.replace(
                state,
                phase=PHASE_OVER,
                order=(),
                stock=tuple(sorted(state.stock + tuple(c for w in state.won for c in w))),
                won=tuple(() for _ in state.won),
            )
        # Everything goes back into the deck, which is shuffled afresh for the next round;
        # the finished round stays visible as ``last`` until the first card of the next.
        last, last_winner = state.last, state.last_winner
        state = self._deal(state, state.round + 1)
        return msgspec.structs.replace(state, last=last, last_winner=last_winner)

    def default_rng(self, state: State, seat: int) -> Rng:
        return Rng(state.seed, f"default:{state.round}:{len(state.hands[seat])}:{seat}")

    # -- moves as text and JSON: the names are the edition's ----------------------
    def parse_move(self, text: str) -> Move:
        return moves.parse(self.cards, text)

    def decode_move(self, obj: JSON) -> Move:
        return moves.decode(self.cards, obj)

    # -- information sets ---------------------------------------------------------
    def deck(self, options: Options, players: int) -> list[str]:
        return list(self.cards.names)

    def zones(self, state: State) -> dict[str, list[str]]:
        names = self.cards.names
        out = {f"hand:{h}": [names[c] for c in cards] for h, cards in enumerate(state.hands)}
        out.update({f"won:{h}": [names[c] for c in cards] for h, cards in enumerate(state.won)})
        out["trick"] = [names[c] for _, c, _a in state.trick]
        out["stock"] = [names[c] for c in state.stock]
        return out

    def hidden(self, state: State, seat: int | None) -> frozenset[str]:
        names = self.cards.names
        cards = [c for h, hand in enumerate(state.hands) if h != seat for c in hand]
        return frozenset(names[c] for c in (*cards, *state.stock))

    def resample(self, state: State, seat: int | None, rng: Rng) -> State:
        unseen = [c for h, hand in enumerate(state.hands) if h != seat for c in hand]
        unseen += state.stock
        rng.shuffle(unseen)
        hands = []
        at = 0
        for h, hand in enumerate(state.hands):
            if h == seat:
                hands.append(hand)
                continue
            block = unseen[at : at + len(hand)]
            at += len(hand)
            hands.append(tuple(block) if h == state.players else tuple(sorted(block)))
        return msgspec.structs.replace(
            state, hands=tuple(hands), stock=tuple(sorted(unseen[at:])), seed=rng_seed(rng)
        )


def rng_seed(rng: Rng) -> bytes:
    """A fresh seed drawn from ``rng`` (a resampled state must not keep the real seed: the
    seed is the future deals)."""
    return b"".join(rng.next_u64().to_bytes(8, "big") for _ in range(4))
