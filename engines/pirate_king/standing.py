"""Pirate King! as it stands: whose move it is, what a seat may do now and the outcome.

The rules (rules.py, which make the next state) and the views (views.py, which show a
state) both read these questions through this module, so neither imports the other.
Everything here reads one state; nothing makes a new one. (``table.Table`` is something
else: the mutable copy of a state that one step works on; the questions that need the
seats' swords, gold or crowns read a thawed copy and drop it.)
"""

from __future__ import annotations

from itertools import permutations

from engines.core import OVER, Outcome, Prompt
from engines.pirate_king.cards import NAMES, PIRATE_IDS
from engines.pirate_king.moves import CardMove, Do, Move, Order, Pick, SeatMove, Stack, Take
from engines.pirate_king.state import (
    BATTLE,
    CHOOSE,
    CROWN,
    DECISION_NAMES,
    FLIP,
    GIVE,
    LOOK,
    LOOT,
    PICK,
    PLAY,
    RECLAIM,
    RECLAIM_CARD,
    RETRIEVE,
    REVEALING,
    State,
)
from engines.pirate_king.state import OVER as PHASE_OVER
from engines.pirate_king.table import Table, first_picker

ID = "pirate-king"


class Standing:
    """Questions about a state of Pirate King!, with the last seat's legal moves kept."""

    def __init__(self) -> None:
        self._memo: tuple[State, int, Prompt, list[Move], frozenset[Move]] | None = None

    def prompt(self, state: State) -> Prompt:
        phase = state.phase
        if phase == PICK:
            return Prompt((first_picker(state),), "pick")
        if phase in (PLAY, RECLAIM):
            owing = tuple(s for s, d in enumerate(state.pending) if d is not None)
            if owing:
                kinds = {DECISION_NAMES[d.kind] for d in state.pending if d is not None}
                kind = kinds.pop() if len(kinds) == 1 else "effects"
                several = len(owing) > 1
                return Prompt(owing, kind, sealed=several, private=several)
            if phase == PLAY:
                revealing = tuple(s for s, st in enumerate(state.status) if st == REVEALING)
                # Several players choose in secret and reveal together; the last one
                # still revealing has nobody to hide from.
                return Prompt(revealing, "reveal", sealed=len(revealing) > 1)
        if phase in (BATTLE, LOOT):
            table = Table(state)
            if table.tie() is not None:
                return Prompt((state.captain,), "tie")
            return Prompt((table.chooser(),), "monster" if phase == BATTLE else "loot")
        if phase == CROWN:
            return Prompt((state.captain,), "crown")
        return OVER

    def legal(self, state: State, seat: int) -> list[Move]:
        if seat not in self.prompt(state).seats:
            return []
        phase = state.phase
        if phase == PICK:
            taken = set(state.pirates)
            return [Pick(NAMES[c]) for c in PIRATE_IDS if c not in taken]
        decision = state.pending[seat] if phase in (PLAY, RECLAIM) else None
        if decision is not None:
            return self._decision_moves(state, seat, decision.kind, decision.card, decision.n)
        if phase == PLAY:
            return [Do("reveal"), Do("stop")]
        if phase in (BATTLE, LOOT):
            table = Table(state)
            tie = table.tie()
            if tie is not None:
                return [Order(p) for p in permutations(sorted(tie))]
            return [Take(NAMES[c], None if d is None else NAMES[d]) for c, d in table.options()]
        if phase == CROWN:
            return [SeatMove("crown", s) for s in Table(state).tied_for_win()]
        return []  # pragma: no cover - every prompted phase is above

    def _decision_moves(self, state: State, seat: int, kind: int, card: int, n: int) -> list[Move]:
        pile = state.piles[seat]
        if kind == LOOK:
            return [Stack(tuple(NAMES[c] for c in p)) for p in permutations(pile[:n])]
        if kind == FLIP:
            return [CardMove("flip", NAMES[c]) for c in Table(state).flippable(seat)]
        if kind == CHOOSE:
            return [CardMove("choose", NAMES[c]) for c in pile[:2]]
        if kind == RETRIEVE:
            if state.discards[seat]:
                return [CardMove("retrieve", NAMES[c]) for c in state.discards[seat]]
            return [Do("reveal"), Do("pass")]
        if kind == GIVE:
            return [SeatMove("give", t) for t in Table(state).targets(seat)]
        assert kind == RECLAIM_CARD
        return [CardMove("reclaim", NAMES[card]), CardMove("leave", NAMES[card])]

    def legal_now(self, state: State, seat: int) -> tuple[Prompt, list[Move], frozenset[Move]]:
        """The prompt and ``seat``'s legal moves, remembered for the last state asked about
        (states are immutable values, so the same object always has the same answer)."""
        memo = self._memo
        if memo is not None and memo[0] is state and memo[1] == seat:
            return memo[2], memo[3], memo[4]
        prompt = self.prompt(state)
        legal = self.legal(state, seat)
        allowed = frozenset(legal)
        self._memo = (state, seat, prompt, legal, allowed)
        return prompt, legal, allowed

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != PHASE_OVER:
            return None
        table = Table(state)
        scores = [table.crowns(s) for s in range(state.players)]
        # Five map fragments: "You won!"; a tie for the most crowns: the Captain decides.
        keys = [(table.maps(s) >= 5, scores[s], s == state.winner) for s in range(state.players)]
        ranks = [1 + sum(other > mine for other in keys) for mine in keys]
        return Outcome(tuple(scores), tuple(ranks))
