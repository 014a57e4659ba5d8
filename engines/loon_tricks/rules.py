"""Pirate Tricks: Loon & Score Cards (seed 000), game id ``loon-tricks``.

Rule decisions, each quoted from ../shared/rules/loon-tricks.md or the seed, are listed in
this folder's README.md. A round: score cards, deal, the row auction (sealed bids, sealed
tie-break picks, an award after a zero tie on a second offer), ditch two (sealed, private),
predictions (only with Tempt Fortune or Extra Loot), recruitment (automatic), ten tricks,
capture and treasure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import msgspec

from engines.core import JSON, BadOptions, IllegalMove, MalformedMove
from engines.game import TableGame
from engines.loon_tricks import bots, cards, information, moves, scoring, trick, views
from engines.loon_tricks.cards import INDEX, NAMES
from engines.loon_tricks.moves import Award, Bid, Ditch, Move, Pick, Play, Predict
from engines.loon_tricks.score_cards import CAPTURE, CARDS, DECKS, PREDICTING, RECRUITMENT, TREASURE
from engines.loon_tricks.state import (
    AWARD,
    BID,
    DECODER,
    DITCH,
    ENCODER,
    PICK,
    PLAY,
    PREDICT,
    Entry,
    Offer,
    Recruited,
    State,
    encode,
)
from engines.loon_tricks.state import OVER as PHASE_OVER
from engines.loon_tricks.table import ID, Table
from engines.rng import Rng

START_LOON = 12
TOP_UP = 5
HAND = 5
ROW_UP = 5
ROW_DOWN = 2
ZERO_TIE_LOON = 2
PENDING = -2  # an Offer's taker while the tie-break is still going on
MIN_ROUNDS, MAX_ROUNDS, DEFAULT_ROUNDS = 3, 5, 3
EDITION = 2
"""The current edition of the rules (README.md, "Editions")."""


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """ "3 rounds (option: 4 or 5)"; ``rules``: the edition of the rules
    (``TableGame.rules_edition``, not the host's to choose)."""

    rounds: int = DEFAULT_ROUNDS
    rules: int = EDITION


def _set(items: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _put(
    items: tuple[tuple[int, ...], ...], index: int, value: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    return (*items[:index], value, *items[index + 1 :])


class LoonTricks(TableGame[State, Move, Options, Table]):
    """The engine: the game's data as class attributes, the flow of a round as methods."""

    id = ID
    title = "Pirate Tricks: Loon & Score Cards"
    seats = range(3, 6)
    card_titles = frozenset(card.title for card in CARDS)  # the crew cards are numbers
    options_type = Options
    rules_edition = EDITION
    schema: ClassVar[Mapping[str, JSON]] = {
        "rounds": {"type": "int", "default": DEFAULT_ROUNDS, "min": MIN_ROUNDS, "max": MAX_ROUNDS}
    }
    encoder = ENCODER
    decoder = DECODER
    forms = moves
    views = views

    def __init__(self) -> None:
        super().__init__(Table(), {"random": bots.uniform, "heuristic": bots.heuristic})

    # -- set-up ---------------------------------------------------------------
    def check_options(self, options: Options) -> None:
        if not MIN_ROUNDS <= options.rounds <= MAX_ROUNDS:
            raise BadOptions(f"rounds is {MIN_ROUNDS}, 4 or {MAX_ROUNDS}")

    def first_state(self, options: Options, players: int, seed: bytes) -> State:
        none = tuple(() for _ in range(players))
        minus = tuple(-1 for _ in range(players))
        state = State(
            players=players,
            rounds=options.rounds,
            seed=bytes(seed),
            round=0,
            phase=BID,
            loon=tuple(START_LOON for _ in range(players)),
            scores=(),
            hands=none,
            row_up=none,
            row_down=none,
            row_owner=minus,
            row_loon=minus,
            row_offers=minus,
            offer=-1,
            tied=(),
            tie_bid=0,
            picker=-1,
            auction=(),
            go_first=-1,
            known=none,
            vague=none,
            ditched=none,
            predictions=minus,
            recruited=(),
            order=(),
            trick=(),
            won=none,
            takers=(),
            last=(),
            ledger=(),
            rules=options.rules,
        )
        return self._begin_round(state, 1)

    def _begin_round(self, state: State, round_: int) -> State:
        n = state.players
        # "At the start of a round, a player with less than 5 loon is topped up to 5."
        loon = list(state.loon)
        ledger = list(state.ledger)
        for seat in range(n):
            if loon[seat] < TOP_UP:
                ledger.append(Entry(round_, seat, TOP_UP - loon[seat], "top-up"))
                loon[seat] = TOP_UP
        # "each round draws 2 recruitment, 1 treasure, 1 capture (no card returns)".
        drawn = {card for row in state.scores for card in row}
        draw = Rng(state.seed, f"scores:{round_}")
        picked: list[int] = []
        for deck, count in ((RECRUITMENT, 2), (CAPTURE, 1), (TREASURE, 1)):
            left = [card for card in DECKS[deck] if card not in drawn]
            picked += draw.shuffled(left)[:count]
        # Deal: 5 cards to each hand, then a row of 5 face up and 2 face down per player.
        order = Rng(state.seed, f"deal:{round_}").shuffled(cards.deck(n))
        hands = tuple(tuple(sorted(order[h * HAND : (h + 1) * HAND])) for h in range(n))
        rows = [order[n * HAND + i * 7 : n * HAND + (i + 1) * 7] for i in range(n)]
        none = tuple(() for _ in range(n))
        zero = tuple(0 for _ in range(n))
        state = msgspec.structs.replace(
            state,
            round=round_,
            phase=BID,
            loon=tuple(loon),
            scores=(*state.scores, tuple(picked)),
            hands=hands,
            row_up=tuple(tuple(sorted(row[:ROW_UP])) for row in rows),
            row_down=tuple(tuple(sorted(row[ROW_UP:])) for row in rows),
            row_owner=tuple(-1 for _ in range(n)),
            row_loon=zero,
            row_offers=zero,
            offer=-1,
            tied=(),
            tie_bid=0,
            picker=-1,
            auction=(),
            go_first=-1,
            known=none,
            vague=none,
            ditched=none,
            predictions=tuple(-1 for _ in range(n)),
            recruited=(),
            order=(),
            trick=(),
            won=none,
            takers=(),
            ledger=tuple(ledger),
        )
        return self._next_offer(state)

    # -- the row auction --------------------------------------------------------
    def _next_offer(self, state: State) -> State:
        """Offer the next row, or end the auction. "Rows are offered from the top, one at a
        time ... After every row was offered once, rows still unclaimed are offered again
        from the top ... When one player and one row are left, that player takes it for
        free." """
        while True:
            bidders = self.table.bidders(state)
            if not bidders:
                return msgspec.structs.replace(
                    state, phase=DITCH, offer=-1, tied=(), tie_bid=0, picker=-1
                )
            open_rows = [r for r in range(state.players) if state.row_owner[r] < 0]
            if len(bidders) == 1:
                (row,) = open_rows
                record = self._record(state, row, 0)
                state = self._take(state, row, bidders[0], 0, record)
                continue
            fresh = [r for r in open_rows if state.row_offers[r] == 0]
            row = fresh[0] if fresh else open_rows[0]
            return msgspec.structs.replace(
                state,
                phase=BID,
                offer=row,
                row_offers=_set(state.row_offers, row, state.row_offers[row] + 1),
                tied=(),
                tie_bid=0,
                picker=-1,
            )

    def _record(self, state: State, row: int, offer: int, bids: tuple[int, ...] = ()) -> Offer:
        minus = tuple(-1 for _ in range(state.players))
        return Offer(row, offer, bids or minus, minus, PENDING, 0, -1)

    def _take(self, state: State, row: int, seat: int, paid: int, record: Offer) -> State:
        """``seat`` takes ``row``: "pays it to the bank and takes the 7 cards (and any loon
        lying on the row); the top row also brings the Go First marker"."""
        up, down, lying = state.row_up[row], state.row_down[row], state.row_loon[row]
        ledger = list(state.ledger)
        if paid:
            ledger.append(Entry(state.round, seat, -paid, "bid"))
        if lying:
            ledger.append(Entry(state.round, seat, lying, "row"))
        record = msgspec.structs.replace(record, taker=seat, paid=paid)
        auction = state.auction
        auction = (
            (*auction[:-1], record)
            if auction and auction[-1].taker == PENDING
            else (
                *auction,
                record,
            )
        )
        return msgspec.structs.replace(
            state,
            loon=_set(state.loon, seat, state.loon[seat] - paid + lying),
            hands=_put(state.hands, seat, tuple(sorted(state.hands[seat] + up + down))),
            known=_put(state.known, seat, tuple(sorted({*state.known[seat], *up}))),
            row_down=_put(state.row_down, row, ()),
            row_owner=_set(state.row_owner, row, seat),
            row_loon=_set(state.row_loon, row, 0),
            go_first=seat if row == 0 else state.go_first,
            auction=auction,
            ledger=tuple(ledger),
        )

    def _bids(self, state: State, moves_: Mapping[int, Move]) -> State:
        row, n = state.offer, state.players
        bids = tuple(moves_[s].loon if s in moves_ else -1 for s in range(n))  # type: ignore[union-attr]
        high = max(bids)
        top = tuple(s for s in range(n) if bids[s] == high)
        record = self._record(state, row, state.row_offers[row], bids)
        if len(top) == 1:
            # "One highest bid: that player pays it to the bank and takes the 7 cards".
            return self._next_offer(self._take(state, row, top[0], high, record))
        if high == 0 and state.row_offers[row] == 1:
            # "A tie at 0: 2 loon from the bank are put on the row, and the auction moves
            # to the next row."
            record = msgspec.structs.replace(record, taker=-1)
            state = msgspec.structs.replace(
                state,
                row_loon=_set(state.row_loon, row, state.row_loon[row] + ZERO_TIE_LOON),
                auction=(*state.auction, record),
            )
            return self._next_offer(state)
        # "A tie for the highest bid above 0: each tied player secretly picks a card from
        # their hand"; "on its second offer a tie at 0 is broken by the card pick".
        return msgspec.structs.replace(
            state, phase=PICK, tied=top, tie_bid=high, auction=(*state.auction, record)
        )

    def _picks(self, state: State, moves_: Mapping[int, Move]) -> State:
        n = state.players
        chosen = {s: INDEX[m.card] for s, m in moves_.items()}  # type: ignore[union-attr]
        picks = tuple(chosen.get(s, -1) for s in range(n))
        best = max(chosen, key=lambda s: cards.strength(chosen[s]))
        known = state.known
        for seat, card in chosen.items():  # "the picked cards go back to hands", seen by all
            known = _put(known, seat, tuple(sorted({*known[seat], card})))
        record = msgspec.structs.replace(state.auction[-1], picks=picks)
        state = msgspec.structs.replace(state, known=known, auction=(*state.auction[:-1], record))
        if state.tie_bid == 0:
            # "the winner of the pick chooses which of the tied players takes the row".
            return msgspec.structs.replace(state, phase=AWARD, picker=best)
        return self._next_offer(self._take(state, state.offer, best, state.tie_bid, record))

    def _award(self, state: State, seat: int) -> State:
        record = msgspec.structs.replace(state.auction[-1], awarded_by=state.picker)
        return self._next_offer(self._take(state, state.offer, seat, 0, record))

    # -- ditch, predictions, recruitment -------------------------------------------
    def _ditch(self, state: State, moves_: Mapping[int, Move]) -> State:
        hands, ditched, vague, known = state.hands, state.ditched, state.vague, state.known
        for seat, move in moves_.items():
            assert isinstance(move, Ditch)
            out = {INDEX[name] for name in move.cards}
            hands = _put(hands, seat, tuple(c for c in hands[seat] if c not in out))
            ditched = _put(ditched, seat, tuple(sorted(out)))
            # The others knew these cards were in the hand; now each may have been ditched.
            vague = _put(vague, seat, known[seat])
            known = _put(known, seat, ())
        state = msgspec.structs.replace(
            state, hands=hands, ditched=ditched, vague=vague, known=known
        )
        if self.table.treasure(state) in PREDICTING:
            return msgspec.structs.replace(state, phase=PREDICT)
        return self._start_tricks(state)

    def _start_tricks(self, state: State) -> State:
        """Recruitment, "scored automatically and optimally", then the first trick."""
        loon, known, vague = list(state.loon), list(state.known), list(state.vague)
        ledger, recruited = list(state.ledger), []
        for seat in range(state.players):
            shown: set[int] = set()
            for card in self.table.recruitment(state):
                sets, value = scoring.recruit(CARDS[card], state.hands[seat])
                recruited.append(Recruited(seat, card, tuple(sets), value))
                shown.update(c for group in sets for c in group)
                if value:
                    loon[seat] += value
                    ledger.append(Entry(state.round, seat, value, CARDS[card].id))
            # The sets were laid face up: those cards are known to be in the hand.
            known[seat] = tuple(sorted(shown))
            vague[seat] = tuple(c for c in vague[seat] if c not in shown)
        first = state.go_first
        return msgspec.structs.replace(
            state,
            phase=PLAY,
            loon=tuple(loon),
            known=tuple(known),
            vague=tuple(vague),
            ledger=tuple(ledger),
            recruited=tuple(recruited),
            order=tuple((first + i) % state.players for i in range(state.players)),
        )

    # -- tricks -------------------------------------------------------------------
    def _play(self, state: State, seat: int, card: int) -> State:
        def without(items: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
            return _put(items, seat, tuple(c for c in items[seat] if c != card))

        plays = (*state.trick, (seat, card))
        state = msgspec.structs.replace(
            state,
            hands=without(state.hands),
            known=without(state.known),
            vague=without(state.vague),
            trick=plays,
        )
        if len(plays) < state.players:
            return state
        taker = plays[trick.winner(plays)][0]
        state = msgspec.structs.replace(
            state,
            trick=(),
            last=plays,
            won=_put(
                state.won, taker, tuple(sorted(state.won[taker] + tuple(c for _, c in plays)))
            ),
            takers=(*state.takers, taker),
            order=tuple((taker + i) % state.players for i in range(state.players)),
        )
        if state.hands[0]:
            return state
        return self._end_round(state)

    def _end_round(self, state: State) -> State:
        """Capture and treasure are paid; "A player who owes more than they have pays all
        they have." **house**: a seat collects first and then pays (the two cards net)."""
        capture = CARDS[self.table.capture(state)]
        treasure = CARDS[self.table.treasure(state)]
        tricks, rules = self.table.tricks(state), state.rules
        owed = zip(
            scoring.capture(capture, state.won, rules),
            scoring.treasure(treasure, tricks, state.takers, state.predictions, rules),
            strict=True,
        )
        loon, ledger = list(state.loon), list(state.ledger)
        for seat, amounts in enumerate(owed):
            named = list(zip((capture.id, treasure.id), amounts, strict=True))
            for what, amount in sorted(named, key=lambda item: -item[1]):
                paid = amount if amount > 0 else -min(-amount, loon[seat])
                if paid:
                    loon[seat] += paid
                    ledger.append(Entry(state.round, seat, paid, what))
        state = msgspec.structs.replace(state, loon=tuple(loon), ledger=tuple(ledger))
        if state.round >= state.rounds:
            return msgspec.structs.replace(state, phase=PHASE_OVER, order=())
        return self._begin_round(state, state.round + 1)

    # -- whose move -----------------------------------------------------------------
    def validate(self, state: State, seat: int, move: Move) -> None:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if not 0 <= seat < state.players:
            raise IllegalMove(f"there is no seat {seat}", "no-such-seat")
        phase, hand = state.phase, state.hands[seat]
        if isinstance(move, Bid):
            if phase != BID:
                raise IllegalMove("no row is up for bids now", "not-bidding")
            if seat not in self.table.bidders(state):
                raise IllegalMove("you have your row already", "has-a-row")
            if move.loon > state.loon[seat]:
                raise IllegalMove(
                    f"a bid is from 0 to your loon ({state.loon[seat]})", "bid-over-loon"
                )
        elif isinstance(move, Pick):
            if phase != PICK:
                raise IllegalMove("only a tie calls for a picked card", "not-picking")
            if seat not in state.tied:
                raise IllegalMove("only the tied players pick a card", "not-tied")
            if INDEX[move.card] not in hand:
                raise IllegalMove(f"{move.card} is not in your hand", "not-in-hand")
        elif isinstance(move, Award):
            if phase != AWARD:
                raise IllegalMove("no row is to be awarded now", "not-awarding")
            if seat != state.picker:
                raise IllegalMove("the pick's winner awards the row", "not-your-choice")
            if move.seat not in state.tied:
                raise IllegalMove(
                    "the row goes to one of the players tied at zero", "not-tied-seat"
                )
        elif isinstance(move, Ditch):
            if phase != DITCH:
                raise IllegalMove("cards are ditched once the auction is over", "not-ditching")
            for name in move.cards:
                if INDEX[name] not in hand:
                    raise IllegalMove(f"{name} is not in your hand", "not-in-hand")
        elif isinstance(move, Predict):
            if phase != PREDICT:
                raise IllegalMove("no predictions are made now", "not-predicting")
            if seat != self.table.predictor(state):
                raise IllegalMove(
                    "predictions go in turn from the Go First marker", "not-your-turn"
                )
        elif isinstance(move, Play):
            if phase != PLAY:
                raise IllegalMove("cards are played once the tricks begin", "not-playing")
            if self.table.turn(state) != seat:
                raise IllegalMove("it is not your turn", "not-your-turn")
            card = INDEX[move.card]
            if card not in hand:
                raise IllegalMove(f"{move.card} is not in your hand", "not-in-hand")
            if card not in trick.playable(state.trick, hand):
                led = cards.SUITS[cards.suit(state.trick[0][1])]
                raise IllegalMove(f"follow suit: you hold {led}", "must-follow-suit")
        else:
            raise MalformedMove("not a move of this game")

    # -- moves ------------------------------------------------------------------------
    def step(self, state: State, moves_: Mapping[int, Move]) -> State:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        prompt = self.prompt(state)
        if prompt.sealed:
            if set(moves_) != set(prompt.seats):
                raise IllegalMove(
                    f"the {prompt.kind} moves are revealed together: seats "
                    f"{', '.join(map(str, prompt.seats))} move at once",
                    "sealed",
                )
        elif len(moves_) != 1:
            raise IllegalMove("one move at a time", "one-at-a-time")
        for seat, move in moves_.items():
            self.validate(state, seat, move)
        phase = state.phase
        if phase == BID:
            return self._bids(state, moves_)
        if phase == PICK:
            return self._picks(state, moves_)
        if phase == DITCH:
            return self._ditch(state, moves_)
        ((seat, move),) = moves_.items()
        if isinstance(move, Award):
            return self._award(state, move.seat)
        if isinstance(move, Predict):
            state = msgspec.structs.replace(
                state, predictions=_set(state.predictions, seat, move.tricks)
            )
            return state if self.table.predictor(state) >= 0 else self._start_tricks(state)
        assert isinstance(move, Play)
        return self._play(state, seat, INDEX[move.card])

    def encode(self, state: State) -> bytes:
        return encode(state)

    def default_rng(self, state: State, seat: int) -> Rng:
        label = (
            f"default:{state.round}:{state.phase}:{len(state.auction)}:{len(state.takers)}:"
            f"{len(state.trick)}:{seat}"
        )
        return Rng(state.seed, label)

    # -- information sets -------------------------------------------------------------
    def deck(self, options: Options, players: int) -> list[str]:
        return [NAMES[c] for c in cards.deck(players)]

    def zones(self, state: State) -> dict[str, list[str]]:
        return information.zones(state)

    def hidden(self, state: State, seat: int | None) -> frozenset[str]:
        return information.hidden(state, seat)

    def resample(self, state: State, seat: int | None, rng: Rng) -> State:
        return information.resample(state, seat, rng)
