"""Pearates as it stands: whose move it is, what a seat may do now, which cards each seat
can place, where every card is, the scores and the outcome.

The rules (rules.py, which make the next state) and the views (views.py, which show a
state) both read these questions through this module, so neither imports the other.
Everything here reads one state; nothing makes a new one. (``state.Table`` is something
else: the mutable copy of a state that one step works on.)
"""

from __future__ import annotations

import functools

from engines.core import OVER, Outcome, Prompt
from engines.pearates import actions, flow, scoring
from engines.pearates.cards import NAMES, VALUES, kind
from engines.pearates.moves import ENDS, Move
from engines.pearates.state import (
    ACTION,
    ARRANGE,
    BID,
    KEEP,
    MUST_ACT,
    MUST_PASS,
    PER_CARD,
    PUT,
    SABRE,
    TAKE,
    TURN,
    UNSET,
    WINNER,
    State,
)
from engines.pearates.state import OVER as PHASE_OVER

ID = "pearates"
KINDS_OF_PROMPT = {
    ARRANGE: "arrange",
    TURN: "turn",
    BID: "bid",
    ACTION: "action",
    PUT: "put",
    WINNER: "winner",
    TAKE: "take",
}


class Standing:
    """Questions about a state of Pearates."""

    def prompt(self, state: State) -> Prompt:
        phase = state.phase
        if phase == PHASE_OVER:
            return OVER
        # Everyone decides at once: a sealed prompt (private: a seat's choice is its own
        # business until the views show it). One seat alone has an ordinary open turn.
        if phase == KEEP:
            seats = tuple(self.keepers(state))
            return Prompt(seats, "keep", sealed=len(seats) > 1, private=len(seats) > 1)
        if phase == SABRE:
            seats = tuple(s for s in range(state.players) if UNSET in state.types[s])
            return Prompt(seats, "sabre", sealed=len(seats) > 1)
        seat = state.start if phase in (ARRANGE, WINNER) else state.turn
        return Prompt((seat,), KINDS_OF_PROMPT[phase])

    def keepers(self, state: State) -> list[int]:
        return flow.keepers(state)

    def legal(self, state: State, seat: int) -> list[Move]:
        if not 0 <= seat < state.players or seat not in self.prompt(state).seats:
            return []
        phase = state.phase
        if phase == ARRANGE:
            rest = state.treasure[state.arranged :]
            out = [Move("arrange", card=NAMES[c]) for c in rest] if len(rest) > 1 else []
            return [*out, Move("hide")]
        if phase == TURN:
            return self._turn_moves(state, seat)
        if phase == BID:
            out = [Move("bid", card=NAMES[c]) for c in state.hands[seat]]
            need = flow.outbid_needed(state, seat)
            if len(state.bids[seat]) > need or not state.hands[seat]:
                out.append(Move("stop"))
            return out
        if phase == ACTION:
            return actions.choice_moves(state, seat)
        if phase in (PUT, TAKE):
            verb = "put" if phase == PUT else "take"
            return [Move(verb, end=end) for end in ENDS]
        if phase == WINNER:
            return [Move("winner", seat=s) for s in flow.tied_highest(state)]
        if phase == KEEP:
            keep = flow.can_keep(state, seat)
            if state.flags & PER_CARD:
                card = NAMES[state.received[seat][len(state.choices[seat])]]
                return [*([Move("keep", card=card)] if keep else []), Move("score", card=card)]
            return [*([Move("keep")] if keep else []), Move("score")]
        if phase == SABRE:
            return [Move("sabre", value=v) for v in VALUES]
        return []

    def _turn_moves(self, state: State, seat: int) -> list[Move]:
        """ "each player Passes (out for the round), Bids (puts one or more cards face down;
        each is worth 1; no need to outbid) or Plays an action card"."""
        if state.forced == MUST_PASS:
            return [Move("pass")]
        hand = state.hands[seat]
        bids: list[Move] = []
        need = flow.outbid_needed(state, seat)
        if len(hand) + len(state.bids[seat]) > need:
            bids = [Move("bid", card=NAMES[c]) for c in hand]
        plays: list[Move] = []
        if need < 0:  # Pedestal Cabbage: "from now on, bid more than the previous player or pass"
            plays = [Move("play", card=NAMES[c]) for c in hand if kind(c).playable]
        passes = [] if state.forced == MUST_ACT and (bids or plays) else [Move("pass")]
        return [*passes, *bids, *plays]

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != PHASE_OVER:
            return None
        scores = self.totals(state)
        hands = [len(h) for h in state.hands]
        return Outcome(tuple(scores), scoring.ranks(scores, hands))

    def totals(self, state: State) -> list[int]:
        return list(_totals(state.scored, state.types, state.friendly, state.rules))

    def seen(self, state: State, seat: int | None) -> frozenset[int]:
        """The cards whose place ``seat`` knows (None: what every seat knows)."""
        common = set(state.known[state.players])
        if seat is not None and 0 <= seat < state.players:
            common.update(state.known[seat])
        return frozenset(common)

    def zones(self, state: State) -> dict[str, list[str]]:
        return {name: [NAMES[c] for c in cards] for name, cards in zone_cards(state).items()}


@functools.lru_cache(maxsize=256)
def _totals(
    scored: tuple[tuple[int, ...], ...],
    types: tuple[tuple[int, ...], ...],
    friendly: bool,
    rules: int,
) -> tuple[int, ...]:
    """Scores change only when a card is scored or a Sabre declared: cached by the piles."""
    piles = [scoring.Pile(cards, stacks) for cards, stacks in zip(scored, types, strict=True)]
    return tuple(scoring.totals(piles, friendly, rules))


def zone_cards(state: State) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {
        "pile": state.pile,
        "discard": state.discard,
        "removed": state.removed,
        "treasure": state.treasure,
        "action": state.action,
    }
    for s in range(state.players):
        out[f"hand:{s}"] = state.hands[s]
        out[f"bid:{s}"] = state.bids[s]
        out[f"received:{s}"] = state.received[s]
        out[f"scored:{s}"] = state.scored[s]
    return out
