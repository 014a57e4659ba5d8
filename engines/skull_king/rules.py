"""Skull King and Pirate Tricks: Bid & Make It -- one engine, two editions.

Rule decisions, each quoted from ../shared/rules/skull-king.md or the seed, are listed in
this folder's README.md.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engines.core import (
    JSON,
    OVER,
    BadOptions,
    IllegalMove,
    MalformedMove,
    Outcome,
    Policy,
    Prompt,
)
from engines.rng import Rng
from engines.skull_king import bots, moves, trick, views
from engines.skull_king.cards import AS_CODES, AS_NONE, CHOICE, NUMBER, Deck, Edition
from engines.skull_king.moves import Bid, Move, Play
from engines.skull_king.state import BID, DECODER, ENCODER, PLAY, Round, State
from engines.skull_king.state import OVER as PHASE_OVER

MAX_ROUNDS = 10


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a host may choose. ``rounds``: play rounds 1..rounds (10 is the full game)."""

    rounds: int = MAX_ROUNDS


class SkullKing:
    """The engine of both editions; an instance per edition is registered."""

    bot_levels: tuple[str, ...] = ("random", "heuristic")

    def __init__(self, edition: Edition) -> None:
        self.edition = edition
        self.cards = Deck.of(edition)
        self.id = edition.id
        self.title = edition.title
        self.seats = range(2, edition.max_players + 1)
        self.Options = Options

    # -- set-up ---------------------------------------------------------------
    def options(self, raw: Mapping[str, JSON] | None = None) -> Options:
        if raw is not None and not isinstance(raw, Mapping):
            raise BadOptions("options are a JSON object")
        try:
            opts = msgspec.convert(dict(raw or {}), Options)
        except msgspec.ValidationError as exc:
            raise BadOptions(str(exc)) from None
        if not 1 <= opts.rounds <= MAX_ROUNDS:
            raise BadOptions(f"rounds is from 1 to {MAX_ROUNDS}")
        return opts

    def options_schema(self) -> dict[str, JSON]:
        return {"rounds": {"type": "int", "default": MAX_ROUNDS, "min": 1, "max": MAX_ROUNDS}}

    def start(self, options: Options, players: int, seed: bytes) -> State:
        if players not in self.seats:
            raise BadOptions(
                f"{self.title} is for {self.seats.start} to {self.seats.stop - 1} players"
            )
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

    def cards_per_hand(self, players: int, round_: int) -> int:
        """ "never more than floor(70 / players)" -- the ghost counts as a hand."""
        hands = players + 1 if players == 2 else players
        return min(round_, len(self.cards.names) // hands)

    def dealer(self, state: State, round_: int | None = None) -> int:
        r = state.round if round_ is None else round_
        return (state.first_dealer + r - 1) % state.players

    def _deal(self, state: State, round_: int) -> State:
        """Shuffle the whole deck and deal. Hand h gets the h-th block of the shuffled deck."""
        n = self.cards_per_hand(state.players, round_)
        hands_count = len(state.won)
        order = Rng(state.seed, f"deal:{round_}").shuffled(range(len(self.cards.names)))
        hands = []
        for h in range(hands_count):
            block = order[h * n : (h + 1) * n]
            hands.append(tuple(block) if h == state.players else tuple(sorted(block)))
        zero = tuple(0 for _ in range(hands_count))
        return msgspec.structs.replace(
            state,
            round=round_,
            phase=BID,
            hands=tuple(hands),
            stock=tuple(sorted(order[hands_count * n :])),
            bids=tuple(-1 for _ in range(state.players)),
            order=(),
            trick=(),
            won=tuple(() for _ in range(hands_count)),
            tricks=zero,
            bonus=zero,
            last=(),
            last_winner=-1,
        )

    # -- whose move ---------------------------------------------------------------
    def prompt(self, state: State) -> Prompt:
        if state.phase == BID:
            return Prompt(tuple(range(state.players)), "bid", sealed=True)
        if state.phase == PLAY:
            return Prompt((state.order[len(state.trick)],), "play")
        return OVER

    def turn(self, state: State) -> int | None:
        """The hand to play now (may be the ghost's index), or None outside play."""
        return state.order[len(state.trick)] if state.phase == PLAY else None

    def legal(self, state: State, seat: int) -> list[Move]:
        if state.phase == BID and 0 <= seat < state.players:
            return [Bid(n) for n in range(len(state.hands[seat]) + 1)]
        if state.phase != PLAY or self.turn(state) != seat:
            return []
        hand = state.hands[seat]
        kind, suit = self.cards.kind, self.cards.suit
        lead = trick.suit_led(self.cards, state.trick)
        # Follow suit if you can; special cards may always be played.
        must = lead >= 0 and any(kind[c] == NUMBER and suit[c] == lead for c in hand)
        out: list[Move] = []
        for card in hand:
            if must and kind[card] == NUMBER and suit[card] != lead:
                continue
            name = self.cards.names[card]
            if kind[card] == CHOICE:
                out.append(Play(name, "pirate"))
                out.append(Play(name, "escape"))
            else:
                out.append(Play(name))
        return out

    def validate(self, state: State, seat: int, move: Move) -> None:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if not 0 <= seat < state.players:
            raise IllegalMove(f"there is no seat {seat}", "no-such-seat")
        if isinstance(move, Bid):
            if state.phase != BID:
                raise IllegalMove("bids are made before the first trick", "not-bidding")
            limit = len(state.hands[seat])
            if not 0 <= move.tricks <= limit:
                raise IllegalMove(
                    f"a bid is from 0 to the {limit} cards in hand", "bid-out-of-range"
                )
            return
        if not isinstance(move, Play):
            raise MalformedMove("not a move of this game")
        moves._play(self.cards, move.card, move.as_)  # a known card, "as" only for a choice card
        if state.phase != PLAY:
            raise IllegalMove("everyone bids before the first card is played", "bidding")
        if self.turn(state) != seat:
            raise IllegalMove("it is not your turn", "not-your-turn")
        card = self.cards.index.get(move.card, -1)
        hand = state.hands[seat]
        if card not in hand:
            raise IllegalMove(f"{move.card} is not in your hand", "not-in-hand")
        if not trick.follows(self.cards, state.trick, hand, card):
            suit = self.cards.edition.suits[trick.suit_led(self.cards, state.trick)]
            raise IllegalMove(
                f"follow suit: you hold {suit}, so play {suit} or a special card",
                "must-follow-suit",
            )

    # -- moves ------------------------------------------------------------------
    def step(self, state: State, moves_: Mapping[int, Move]) -> State:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if state.phase == BID:
            if set(moves_) != set(range(state.players)):
                raise IllegalMove("the bids are revealed together: every seat bids", "sealed")
            for seat, move in moves_.items():
                self.validate(state, seat, move)
            bids = tuple(moves_[s].tricks for s in range(state.players))  # type: ignore[union-attr]
            leader = (self.dealer(state) + 1) % state.players
            state = msgspec.structs.replace(
                state, phase=PLAY, bids=bids, order=self._order(state, leader, -1)
            )
            return self._ghost(state)
        if len(moves_) != 1:
            raise IllegalMove("one card is played at a time", "one-at-a-time")
        ((seat, move),) = moves_.items()
        self.validate(state, seat, move)
        assert isinstance(move, Play)
        return self._ghost(self._play(state, seat, self.cards.index[move.card], move.as_))

    def _play(self, state: State, hand: int, card: int, as_name: str | None) -> State:
        as_ = AS_CODES[as_name] if as_name is not None else AS_NONE
        hands = list(state.hands)
        hands[hand] = tuple(c for c in hands[hand] if c != card)
        plays = (*state.trick, (hand, card, as_))
        if len(plays) < len(state.order):
            return msgspec.structs.replace(state, hands=tuple(hands), trick=plays)
        # The trick is complete.
        win = trick.winner(self.cards, plays)
        taker = plays[win][0]
        won = list(state.won)
        won[taker] = won[taker] + tuple(c for _, c, _a in plays)
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
            order=self._order(state, taker, next(h for h in state.order if h < state.players)),
        )
        if hands[0]:
            return state
        return self._end_round(state)

    def _order(self, state: State, leader: int, previous_leader: int) -> tuple[int, ...]:
        """The play order of a trick led by ``leader``.

        With two players the ghost "always plays second (or leads after winning a trick)".
        When the ghost leads, the players follow in the order they had (house):
        ``previous_leader`` is the player who came first in the trick before.
        """
        if state.players != 2:
            return tuple((leader + i) % state.players for i in range(state.players))
        ghost = 2
        if leader != ghost:
            return (leader, ghost, 1 - leader)
        return (ghost, previous_leader, 1 - previous_leader)

    def _ghost(self, state: State) -> State:
        """The ghost "plays the top card of its pile without following suit, plays its Rogue
        as an Escape"."""
        while state.phase == PLAY and state.players == 2 and state.order[len(state.trick)] == 2:
            card = state.hands[2][0]
            as_ = "escape" if self.cards.kind[card] == CHOICE else None
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

    def default(self, state: State, seat: int) -> Move:
        """A timed-out seat gets what the heuristic bot would do (deterministic)."""
        options = self.legal(state, seat)
        if not options:
            raise IllegalMove("this seat owes no move", "not-your-turn")
        rng = Rng(state.seed, f"default:{state.round}:{len(state.hands[seat])}:{seat}")
        return bots.heuristic(self.cards)(self.view(state, seat), options, rng)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != PHASE_OVER:
            return None
        return Outcome.from_scores(self.totals(state))

    def totals(self, state: State) -> list[int]:
        return [sum(r.points[s] for r in state.sheet) for s in range(state.players)]

    # -- views ------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        return views.seat_view(self, state, seat)

    def final_view(self, state: State) -> dict[str, JSON]:
        return views.full_view(self, state)

    # -- moves as text and JSON ---------------------------------------------------
    def parse_move(self, text: str) -> Move:
        return moves.parse(self.cards, text)

    def decode_move(self, obj: JSON) -> Move:
        return moves.decode(self.cards, obj)

    # -- storage --------------------------------------------------------------------
    def encode(self, state: State) -> bytes:
        return ENCODER.encode(state)

    def decode(self, blob: bytes) -> State:
        return DECODER.decode(blob)

    # -- bots -------------------------------------------------------------------
    def bot(self, level: str) -> Policy[Move]:
        if level == "random":
            return bots.uniform
        if level == "heuristic":
            return bots.heuristic(self.cards)
        raise BadOptions(f"no bot level {level!r}; choose one of {', '.join(self.bot_levels)}")

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
