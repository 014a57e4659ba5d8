"""The table as it stands: whose move it is, what a seat may do now, the round's score
cards, the tricks taken and the outcome.

The rules (rules.py, which make the next state) and the views (views.py, which show a
state) both read the table through this module, so neither imports the other. Everything
here is a question about one state; nothing makes a new one.
"""

from __future__ import annotations

from itertools import combinations

from engines.core import OVER, Outcome, Prompt
from engines.loon_tricks import trick
from engines.loon_tricks.cards import NAMES
from engines.loon_tricks.moves import Award, Bid, Ditch, Move, Pick, Play, Predict
from engines.loon_tricks.state import AWARD, BID, DITCH, PICK, PLAY, PREDICT, State
from engines.loon_tricks.state import OVER as PHASE_OVER

ID = "loon-tricks"
TRICKS = 10


class Table:
    """Questions about a state of Loon & Score Cards."""

    def bidders(self, state: State) -> tuple[int, ...]:
        """The seats that have no row yet."""
        return tuple(s for s in range(state.players) if s not in state.row_owner)

    def predictor(self, state: State) -> int:
        """ "from the Go First holder, in turn, each player announces 0-10 tricks"."""
        for i in range(state.players):
            seat = (state.go_first + i) % state.players
            if state.predictions[seat] < 0:
                return seat
        return -1

    def recruitment(self, state: State) -> tuple[int, int]:
        rec = state.scores[-1]
        return rec[0], rec[1]

    def capture(self, state: State) -> int:
        return state.scores[-1][2]

    def treasure(self, state: State) -> int:
        return state.scores[-1][3]

    def turn(self, state: State) -> int | None:
        return state.order[len(state.trick)] if state.phase == PLAY else None

    def tricks(self, state: State) -> list[int]:
        return [state.takers.count(s) for s in range(state.players)]

    def prompt(self, state: State) -> Prompt:
        phase = state.phase
        if phase == BID:
            return Prompt(self.bidders(state), "bid", sealed=True)
        if phase == PICK:
            return Prompt(state.tied, "pick", sealed=True)
        if phase == AWARD:
            return Prompt((state.picker,), "award")
        if phase == DITCH:
            return Prompt(
                tuple(range(state.players)), "ditch", sealed=True, private=True, for_good=True
            )
        if phase == PREDICT:
            return Prompt((self.predictor(state),), "predict")
        if phase == PLAY:
            return Prompt((state.order[len(state.trick)],), "play")
        return OVER

    def legal(self, state: State, seat: int) -> list[Move]:
        if seat not in self.prompt(state).seats:
            return []
        phase, hand = state.phase, state.hands[seat]
        if phase == BID:
            return [Bid(n) for n in range(state.loon[seat] + 1)]
        if phase == PICK:
            return [Pick(NAMES[c]) for c in hand]
        if phase == AWARD:
            return [Award(s) for s in state.tied]
        if phase == DITCH:
            return [Ditch((NAMES[a], NAMES[b])) for a, b in combinations(hand, 2)]
        if phase == PREDICT:
            return [Predict(n) for n in range(TRICKS + 1)]
        return [Play(NAMES[c]) for c in trick.playable(state.trick, hand)]

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != PHASE_OVER:
            return None
        return Outcome.from_scores(state.loon)
