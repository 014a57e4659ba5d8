"""Pirate King! (seed 001): the ``Game`` contract.

The flow lives in ``table.py`` (reveals, sinking, battle, loot, rounds) over
``effects.py`` (what a revealed card does) and ``holdings.py`` (what each seat holds and
shows); who owes which move and the legal moves are ``standing.py``. This module checks
moves and says why one is refused, hands them to the table, and answers the
information-set questions.
Rule decisions, each quoted from ``shared/rules/pirate-king.md`` or the seed, are listed in
this folder's README.md.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engines.core import IllegalMove, MalformedMove, Prompt
from engines.game import TableGame
from engines.pirate_king import bots, moves, views
from engines.pirate_king.cards import (
    CARDS,
    INDEX,
    LOOT_IDS,
    MONSTER_IDS,
    NAMES,
    PIRATE_IDS,
    starting_deck,
)
from engines.pirate_king.moves import CardMove, Do, Move, Order, Pick, SeatMove, Stack, Take
from engines.pirate_king.standing import ID, Standing
from engines.pirate_king.state import (
    BATTLE,
    CHOOSE,
    CROWN,
    DECODER,
    ENCODER,
    FLIP,
    GIVE,
    LOOK,
    LOOT,
    PICK,
    PLAY,
    RECLAIM,
    RETRIEVE,
    STOPPED,
    State,
    encode,
)
from engines.pirate_king.state import OVER as PHASE_OVER
from engines.pirate_king.table import Table, new_state
from engines.rng import Rng

EDITION = 2
"""The current edition of the rules (README.md, "Editions")."""


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Pirate King! has no options a host sets: 7 rounds, the house card list. ``rules`` is
    the edition of the rules (``TableGame.edition``)."""

    rules: int = EDITION


class PirateKing(TableGame[State, Move, Options, Standing]):
    """The engine: the game's data as class attributes; the course of a round is
    ``table.py``, the questions about a state ``standing.py``."""

    id = ID
    title = "Pirate King!"
    seats = range(2, 6)
    card_titles = frozenset(card.title for card in CARDS)
    options_type = Options
    rules_edition = EDITION
    encoder = ENCODER
    decoder = DECODER
    forms = moves
    views = views

    def __init__(self) -> None:
        super().__init__(Standing(), {"random": bots.uniform, "heuristic": bots.heuristic})

    # -- set-up ---------------------------------------------------------------------
    def first_state(self, options: Options, players: int, seed: bytes) -> State:
        return new_state(players, seed, options.rules)

    def encode(self, state: State) -> bytes:
        return encode(state)

    # -- whose move -------------------------------------------------------------------
    def validate(self, state: State, seat: int, move: Move) -> None:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        if not 0 <= seat < state.players:
            raise IllegalMove(f"there is no seat {seat}", "no-such-seat")
        if not isinstance(move, Pick | Do | Stack | CardMove | SeatMove | Order | Take):
            raise MalformedMove("not a move of Pirate King!")
        prompt, legal, allowed = self.table.legal_now(state, seat)
        if move in allowed:
            return
        if not legal:
            raise IllegalMove("you owe no move now", "not-your-turn")
        raise self._why(state, seat, move, legal, prompt)

    def _why(
        self, state: State, seat: int, move: Move, legal: list[Move], prompt: Prompt
    ) -> IllegalMove:
        """A specific reason for a move that is not in ``legal`` (which is not empty)."""
        wanted = legal[0]
        if type(move) is not type(wanted) or (
            isinstance(move, CardMove | SeatMove)
            and isinstance(wanted, CardMove | SeatMove)
            and move.verb != wanted.verb
            and not {move.verb, wanted.verb} <= {"reclaim", "leave"}
        ):
            return IllegalMove(
                f"not now: you owe a {prompt.kind} move, e.g. {wanted}", "wrong-move"
            )
        if isinstance(move, Do):
            if state.phase == PLAY and state.pending[seat] is None:
                return IllegalMove('a beat is "reveal" or "stop"', "wrong-move")
            if state.discards[seat]:
                return IllegalMove(
                    "your discard pile is not empty: retrieve a card from it",
                    "discard-not-empty",
                )
            return IllegalMove('you may "reveal" your top card or "pass"', "wrong-move")
        if isinstance(move, Pick):
            return IllegalMove(f"{move.card} is not a Pirate left to pick", "pirate-taken")
        if isinstance(move, Stack):
            return IllegalMove(
                "stack the cards you looked at, each once, top first", "not-looked-at"
            )
        if isinstance(move, Order):
            return IllegalMove("order lists exactly the tied seats", "not-the-tie")
        if isinstance(move, Take):
            return self._why_take(state, move)
        if isinstance(move, SeatMove):
            if move.verb == "give":
                return IllegalMove(
                    "give this card to another player who has not sunk", "cannot-give"
                )
            return IllegalMove("the Captain crowns one of the tied players", "not-tied")
        assert isinstance(move, CardMove)
        codes = {
            "flip": ("flip a card of your play zone that shows a curse", "cannot-flip"),
            "choose": ("choose one of the top two cards of your pile", "not-on-top"),
            "retrieve": ("retrieve a card of your discard pile", "not-in-discard"),
            "reclaim": ("that card is not the one you gave away", "not-given"),
            "leave": ("that card is not the one you gave away", "not-given"),
        }
        message, code = codes[move.verb]
        return IllegalMove(message, code)

    def _why_take(self, state: State, move: Take) -> IllegalMove:
        row = state.monster_row if state.phase == BATTLE else state.loot_row
        names = {NAMES[c] for c in row}
        if move.card not in names or (move.drop is not None and move.drop not in names):
            return IllegalMove(f"{move.card} is not in the row", "not-in-row")
        if move.drop is None:
            return IllegalMove(
                "2 players: when you choose a Loot card, discard another", "must-drop"
            )
        return IllegalMove("drop a card only when two players share the Loot", "no-drop")

    # -- moves ------------------------------------------------------------------------
    def step(self, state: State, moves_: Mapping[int, Move]) -> State:
        if state.phase == PHASE_OVER:
            raise IllegalMove("the game is over", "game-over")
        prompt = self.prompt(state)
        if prompt.sealed:
            if set(moves_) != set(prompt.seats):
                raise IllegalMove(
                    "every prompted seat moves at once: " + ", ".join(map(str, prompt.seats)),
                    "sealed",
                )
        elif len(moves_) != 1:
            raise IllegalMove("one move at a time", "one-at-a-time")
        for seat, move in moves_.items():
            self.validate(state, seat, move)
        table = Table(state)
        order = [s for s in table.clockwise() if s in moves_]
        if state.phase == PICK:
            ((seat, move),) = moves_.items()
            assert isinstance(move, Pick)
            table.pirates[seat] = INDEX[move.card]
            if -1 not in table.pirates:
                table.start_game()
        elif state.phase in (PLAY, RECLAIM) and any(state.pending):
            for seat in order:
                self._decide(table, seat, moves_[seat])
        elif state.phase == PLAY:
            for seat in order:
                if moves_[seat] == Do("stop"):
                    table.status[seat] = STOPPED  # "DECIDE TO STOP"
            table.beat += 1
            table.flip_together([s for s in order if moves_[s] == Do("reveal")])
        elif state.phase in (BATTLE, LOOT):
            ((seat, move),) = moves_.items()
            if isinstance(move, Order):
                table.order_tie(move.seats)
            else:
                assert isinstance(move, Take)
                table.take(INDEX[move.card], None if move.drop is None else INDEX[move.drop])
        else:
            ((seat, move),) = moves_.items()
            assert state.phase == CROWN and isinstance(move, SeatMove)
            table.winner = move.seat
            table.phase = PHASE_OVER
        table.advance()
        return table.freeze()

    def _decide(self, table: Table, seat: int, move: Move) -> None:
        decision = table.pending[seat]
        assert decision is not None
        table.pending[seat] = None
        kind = decision.kind
        if kind == LOOK:
            assert isinstance(move, Stack)
            table.stack(seat, tuple(INDEX[c] for c in move.cards))
        elif kind == FLIP:
            assert isinstance(move, CardMove)
            table.flip(seat, INDEX[move.card])
        elif kind == CHOOSE:
            assert isinstance(move, CardMove)
            table.choose(seat, INDEX[move.card])
        elif kind == RETRIEVE:
            if isinstance(move, CardMove):
                table.retrieve(seat, INDEX[move.card])
            elif move == Do("reveal"):
                # "If you have no discard pile, you may reveal the top card of your pile."
                table.resolve_reveal(seat)
        elif kind == GIVE:
            assert isinstance(move, SeatMove)
            table.give(seat, decision.card, move.seat)
        else:
            assert isinstance(move, CardMove)
            table.reclaim(seat, decision.card, move.verb == "reclaim")

    def default_rng(self, state: State, seat: int) -> Rng:
        return Rng(state.seed, f"default:{state.round}:{state.beat}:{state.picks}:{seat}")

    # -- information sets ---------------------------------------------------------------
    def deck(self, options: Options, players: int) -> list[str]:
        cards = [c for s in range(players) for c in starting_deck(s)]
        cards += [*PIRATE_IDS, *MONSTER_IDS, *LOOT_IDS]
        return [NAMES[c] for c in cards]

    def zones(self, state: State) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for s in range(state.players):
            out[f"pile:{s}"] = [NAMES[c] for c in state.piles[s]]
            out[f"zone:{s}"] = [NAMES[e.card] for e in state.zones[s]]
            out[f"discard:{s}"] = [NAMES[c] for c in state.discards[s]]
        if state.phase == PICK:
            picked = [p for p in state.pirates if p >= 0]
            for s, p in enumerate(state.pirates):
                out[f"pirate:{s}"] = [NAMES[p]] if p >= 0 else []
            out["pirates"] = [NAMES[c] for c in PIRATE_IDS if c not in picked]
        out["monster-pile"] = [NAMES[c] for c in state.monster_pile]
        out["monster-row"] = [NAMES[c] for c in state.monster_row]
        out["loot-pile"] = [NAMES[c] for c in state.loot_pile]
        out["loot-row"] = [NAMES[c] for c in state.loot_row]
        out["box"] = [NAMES[c] for c in state.box]
        return out

    def hidden(self, state: State, seat: int | None) -> frozenset[str]:
        """Every pile's order is unknown -- a player's own pile too, but for the top cards it
        has looked at (Look, Choose) -- and so are the Monster and Loot piles."""
        cards = [*state.monster_pile, *state.loot_pile]
        for s, pile in enumerate(state.piles):
            cards += pile[state.known[s] :] if s == seat else pile
        return frozenset(NAMES[c] for c in cards)

    def resample(self, state: State, seat: int | None, rng: Rng) -> State:
        """Re-deal every order ``seat`` cannot know: each pile (its own but the top cards
        it has looked at) and the Monster and Loot piles; the seed too (it is every future
        reshuffle). Which cards are in a pile is public (owned cards are seen when taken),
        so each pile keeps its cards."""
        piles = []
        for s, pile in enumerate(state.piles):
            keep = state.known[s] if s == seat else 0
            rest = list(pile[keep:])
            rng.shuffle(rest)
            piles.append((*pile[:keep], *rest))
        return msgspec.structs.replace(
            state,
            piles=tuple(piles),
            monster_pile=tuple(rng.shuffled(state.monster_pile)),
            loot_pile=tuple(rng.shuffled(state.loot_pile)),
            seed=b"".join(rng.next_u64().to_bytes(8, "big") for _ in range(4)),
        )
