"""Pearates (seed 004): the ``Game`` contract.

Rule decisions, each quoted from ``shared/rules/pearates.md`` or the seed, are listed in
this folder's README.md. The course of a round is ``flow.py``; Played actions are
``actions.py``; the end's scoring is ``scoring.py``; whose move it is, the legal moves and
what each seat can place are ``standing.py``. This module deals, checks moves and says why
one is refused, applies them, and answers the information-set questions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, NoReturn

import msgspec

from engines.core import JSON, BadOptions, IllegalMove, MalformedMove
from engines.game import TableGame
from engines.pearates import actions, bots, flow, moves, views
from engines.pearates.cards import (
    INDEX,
    KIND_OF,
    KINDS,
    NAMES,
    NEGATIVE_VALUES,
    deck,
    kind,
    removed_negatives,
)
from engines.pearates.moves import Move
from engines.pearates.standing import ID, Standing, zone_cards
from engines.pearates.state import (
    ACTION,
    ARRANGE,
    BID,
    DECODER,
    ENCODER,
    FREE,
    KEEP,
    MUST_ACT,
    MUST_PASS,
    OPEN_BIDS,
    PER_CARD,
    PUT,
    SABRE,
    TAKE,
    TURN,
    WINNER,
    State,
    Table,
    encode,
)
from engines.pearates.state import OVER as PHASE_OVER
from engines.rng import Rng

HAND = 5
MAX_RESHUFFLES = 3
MAX_REMOVED = 120
EDITION = 2
"""The current edition of the rules (README.md, "Editions")."""


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a host may choose (README.md: Variants); ``rules`` is the edition of the rules
    (``TableGame.rules_edition``, not the host's to choose)."""

    friendly: bool = False
    strict_ties: bool = False
    reshuffles: int = 0  # a longer game: reshuffle the discards this many times
    removed: int = 0  # a shorter game: remove this many cards (face up)
    more_actions: bool = False
    special_scoring: bool = False
    # "Optional: remove some or all of the negative numbers": every one (kept for rooms and
    # records stored with it; the lobby offers ``negatives_removed``) ...
    no_negatives: bool = False
    # ... or the lowest this many negative values (1: the -4s; 4: all).
    negatives_removed: int = 0
    rules: int = EDITION


def _negatives(options: Options) -> int:
    return removed_negatives(options.no_negatives, options.negatives_removed)


def _flag(what: str) -> dict[str, JSON]:
    return {"type": "bool", "default": False, "label": what}


class Pearates(TableGame[State, Move, Options, Standing]):
    """The engine: the game's data as class attributes; the course of a round is
    ``flow.py`` and ``actions.py``, the questions about a state ``standing.py``."""

    id = ID
    title = "Pearates"
    seats = range(2, 8)
    card_titles = frozenset(k.title for k in KINDS)
    options_type = Options
    rules_edition = EDITION
    schema: ClassVar[Mapping[str, JSON]] = {
        "friendly": _flag("Friendly variant"),
        "strict_ties": _flag("Strict ties"),
        "reshuffles": {
            "type": "int",
            "default": 0,
            "min": 0,
            "max": MAX_RESHUFFLES,
            "label": "Longer game: reshuffles of the discards",
        },
        "removed": {
            "type": "int",
            "default": 0,
            "min": 0,
            "max": MAX_REMOVED,
            "label": "Shorter game: cards removed (open to all)",
        },
        "more_actions": _flag('Expansion "more actions"'),
        "special_scoring": _flag('Expansion "special scoring"'),
        "negatives_removed": {
            "type": "int",
            "default": 0,
            "min": 0,
            "max": NEGATIVE_VALUES,
            "label": "Remove negative cards: how many values, from -4 up (4: all)",
        },
    }
    encoder = ENCODER
    decoder = DECODER
    forms = moves
    views = views

    def __init__(self) -> None:
        super().__init__(Standing(), {"random": bots.uniform, "heuristic": bots.heuristic})

    # -- set-up ---------------------------------------------------------------
    def check_options(self, options: Options) -> None:
        if not 0 <= options.reshuffles <= MAX_RESHUFFLES:
            raise BadOptions(f"reshuffles is from 0 to {MAX_RESHUFFLES}")
        if not 0 <= options.removed <= MAX_REMOVED:
            raise BadOptions(f"removed is from 0 to {MAX_REMOVED}")
        if not 0 <= options.negatives_removed <= NEGATIVE_VALUES:
            raise BadOptions(f"negatives_removed is from 0 to {NEGATIVE_VALUES}")

    def first_state(self, options: Options, players: int, seed: bytes) -> State:
        cards = deck(options.more_actions, options.special_scoring, _negatives(options))
        order = Rng(seed, "deal").shuffled(cards)
        hands = [sorted(order[s * HAND : (s + 1) * HAND]) for s in range(players)]
        pile = order[players * HAND :]
        cut = max(0, min(options.removed, len(pile) - 2))
        removed, pile = sorted(pile[:cut]), pile[cut:]
        empty: tuple[tuple[int, ...], ...] = tuple(() for _ in range(players))
        state = State(
            players=players,
            seed=bytes(seed),
            friendly=options.friendly,
            strict=options.strict_ties,
            more=options.more_actions,
            special=options.special_scoring,
            no_negatives=options.no_negatives,
            reshuffles=options.reshuffles,
            round=0,
            start=0,
            phase=ARRANGE,
            turn=-1,
            direction=1,
            forced=FREE,
            flags=0,
            pile=tuple(pile),
            discard=(),
            removed=tuple(removed),
            treasure=(),
            arranged=0,
            action=(),
            effect=0,
            target=-1,
            hands=tuple(tuple(h) for h in hands),
            bids=empty,
            received=empty,
            scored=empty,
            types=empty,
            known=(*(tuple(h) for h in hands), tuple(removed)),
            passed=tuple(False for _ in range(players)),
            plays=tuple(0 for _ in range(players)),
            takers=(),
            choices=empty,
            log=(),
            last_log=(),
            rules=options.rules,
            negatives=0 if options.no_negatives else options.negatives_removed,
        )
        t = Table.of(state)
        # "Biggest food thief starts." (house: drawn from the seed)
        flow.begin_round(t, 1, Rng(seed, "start").below(players))
        return t.freeze()

    # -- whose move ---------------------------------------------------------------
    def validate(self, state: State, seat: int, move: Move) -> None:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if not 0 <= seat < state.players:
            raise IllegalMove(f"there is no seat {seat}", "no-such-seat")
        if not isinstance(move, Move):
            raise MalformedMove("not a move of Pearates")
        if seat not in self.prompt(state).seats:
            raise IllegalMove("it is not your turn", "not-your-turn")
        legal = self.legal(state, seat)
        if move in legal:
            return
        self._refuse(state, seat, move, legal)

    def _refuse(self, state: State, seat: int, move: Move, legal: list[Move]) -> NoReturn:
        """Raise IllegalMove with the specific reason a well-formed move is refused now."""
        verbs = {m.verb for m in legal}
        card = INDEX.get(move.card or "", -1)
        phase = state.phase
        if move.verb not in verbs:
            if phase == TURN and move.verb == "pass" and state.forced == MUST_ACT:
                raise IllegalMove("a Goldfish was played: Bid or Play", "must-bid-or-play")
            if phase == TURN and state.forced == MUST_PASS:
                raise IllegalMove("a Gold Pancake was played: Pass", "must-pass")
            if (move.verb == "bid" and phase in (TURN, BID)) or (
                move.verb == "stop" and phase == BID
            ):
                raise IllegalMove(
                    "Pedestal Cabbage: bid more than the previous player", "must-outbid"
                )
            if move.verb == "play" and phase == TURN:
                if card not in state.hands[seat]:
                    raise IllegalMove(f"{move.card} is not in your hand", "not-in-hand")
                if not kind(card).playable:
                    raise IllegalMove(f"{move.card} has no action to Play", "no-action")
                raise IllegalMove("Pedestal Cabbage: bid more or pass", "must-outbid")
            if move.verb == "keep" and phase == KEEP:
                raise IllegalMove(f"{flow.HAND_LIMIT} cards at most in hand", "hand-limit")
            raise IllegalMove(f"now you may: {', '.join(sorted(verbs))}", "not-now")
        if move.verb in ("bid", "play", "add", "give") and card >= 0:
            if card not in state.hands[seat]:
                raise IllegalMove(f"{move.card} is not in your hand", "not-in-hand")
            if move.verb == "play":
                raise IllegalMove(f"{move.card} has no action to Play", "no-action")
        if move.verb == "arrange":
            raise IllegalMove(f"{move.card} is not left to arrange", "not-in-treasure")
        if move.verb in ("keep", "score"):
            raise IllegalMove("decide the cards in the order shown", "not-next-card")
        if move.verb in ("discard", "give", "target"):
            raise IllegalMove("choose a player with a bid", "no-such-bid")
        if move.verb == "winner":
            raise IllegalMove("choose one of the tied highest bids", "not-a-tied-bid")
        if move.card == moves.DECK:
            raise IllegalMove("the draw pile is empty", "deck-empty")
        raise IllegalMove(f"now you may: {', '.join(sorted(verbs))}", "not-allowed")

    # -- moves ------------------------------------------------------------------
    def step(self, state: State, moves_: Mapping[int, Move]) -> State:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        prompt = self.prompt(state)
        if state.phase in (KEEP, SABRE):
            if prompt.sealed and set(moves_) != set(prompt.seats):
                raise IllegalMove("everyone decides at once: one move per seat", "sealed")
            if not prompt.sealed and len(moves_) != 1:
                raise IllegalMove("one move at a time", "one-at-a-time")
            for seat, move in moves_.items():
                self.validate(state, seat, move)
            t = Table.of(state)
            if state.phase == KEEP:
                decisions = {s: m.verb == "keep" for s, m in moves_.items()}
                if state.flags & PER_CARD:
                    flow.keep_each(t, decisions)
                else:
                    flow.keep_all(t, decisions)
            else:
                flow.declare(t, {s: int(str(m.value)) for s, m in moves_.items()})
            return t.freeze()
        if len(moves_) != 1:
            raise IllegalMove("one move at a time", "one-at-a-time")
        ((seat, move),) = moves_.items()
        self.validate(state, seat, move)
        t = Table.of(state)
        self._apply(t, seat, move)
        return t.freeze()

    def _apply(self, t: Table, seat: int, move: Move) -> None:
        phase, verb = t.phase, move.verb
        card = INDEX.get(move.card or "", -1)
        if phase == ARRANGE:
            if verb == "hide":
                flow.hide(t)
            else:  # the next card from the top
                t.treasure.remove(card)
                t.treasure.insert(t.arranged, card)
                t.arranged += 1
        elif phase in (TURN, BID) and verb == "bid":
            t.forced = FREE
            self._bid(t, seat, card)
            t.phase = BID
        elif phase == BID:  # stop
            t.event(seat, flow.EV_STOP, -1, len(t.bids[seat]))
            flow.next_turn(t, seat)
        elif phase == TURN and verb == "pass":
            t.passed[seat] = True
            t.forced = FREE
            t.event(seat, flow.EV_PASS)
            flow.next_turn(t, seat)
        elif phase == TURN:  # play
            actions.play(t, seat, card)
        elif phase == ACTION:
            actions.choose(t, seat, move)
        elif phase == PUT:
            actions.put(t, seat, str(move.end))
        elif phase == WINNER:
            t.event(seat, flow.EV_WINNER, -1, int(str(move.seat)))
            flow.mutiny(t, [int(str(move.seat))])
        elif phase == TAKE:
            flow.take(t, seat, str(move.end))

    def _bid(self, t: Table, seat: int, card: int) -> None:
        """A card goes face down into the bid (shown to all once bids are open)."""
        if t.flags & OPEN_BIDS:
            actions.from_hand_public(t, seat, card)
            t.event(seat, flow.EV_BID, KIND_OF[card])
        else:
            actions.from_hand(t, seat, card)
            t.event(seat, flow.EV_BID)
        actions.into_bid(t, seat, card)

    def encode(self, state: State) -> bytes:
        return encode(state)

    def default_rng(self, state: State, seat: int) -> Rng:
        return Rng(state.seed, f"default:{state.round}:{len(state.log)}:{seat}")

    # -- information sets ---------------------------------------------------------
    def deck(self, options: Options, players: int) -> list[str]:
        cards = deck(options.more_actions, options.special_scoring, _negatives(options))
        return [NAMES[c] for c in cards]

    def zones(self, state: State) -> dict[str, list[str]]:
        return self.table.zones(state)

    def hidden(self, state: State, seat: int | None) -> frozenset[str]:
        """Once the game is over nothing is hidden (the seed is out; the view shows each
        reshuffle's cards for the verified badge)."""
        if state.phase == PHASE_OVER:
            return frozenset()
        seen = self.table.seen(state, seat)
        return frozenset(
            NAMES[c] for cards in zone_cards(state).values() for c in cards if c not in seen
        )

    def resample(self, state: State, seat: int | None, rng: Rng) -> State:
        """Every card ``seat`` cannot place is re-dealt over the places such cards hold;
        the other seats' knowledge follows the places (who knew the card there now knows
        the card put there)."""
        seen = self.table.seen(state, seat)
        t = Table.of(state)
        places = [
            t.pile,
            t.discard,
            t.treasure,
            *t.hands,
            *t.bids,
            *t.received,
        ]
        slots = [(zone, i) for zone in places for i, c in enumerate(zone) if c not in seen]
        old = [zone[i] for zone, i in slots]
        new = rng.shuffled(old)
        for (zone, i), card in zip(slots, new, strict=True):
            zone[i] = card
        moved = dict(zip(old, new, strict=True))
        for s in range(state.players):
            if s != seat:
                t.known[s] = {moved.get(c, c) for c in t.known[s]}
        t.seed = b"".join(rng.next_u64().to_bytes(8, "big") for _ in range(4))
        return t.freeze()
