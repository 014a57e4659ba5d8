"""What each seat may see, built by adding what it may know (allow-list).

Public to all: sizes of every zone, the removed cards, scored cards, the card being
Played, the public events, whose turn it is and the round's effects. A seat adds the cards
whose place it knows (``Standing.seen``): its own hand, bid and received cards, the
treasure cards it arranged, looked at or added, and whatever was revealed. A spectator
sees what every seat knows. The log names kinds of cards, never a card, so it never tells
where a card is.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.core import JSON
from engines.pearates.cards import KINDS, NAMES
from engines.pearates.standing import ID, KINDS_OF_PROMPT, Standing
from engines.pearates.state import (
    BY_VALUE,
    KEEP,
    LOSERS_LOSE,
    LOSERS_SCORE,
    MUST_ACT,
    MUST_PASS,
    NO_BIDS_FOR_START,
    OPEN_BIDS,
    OUTBID,
    OVER,
    PER_CARD,
    ROUND_ENDS,
    SABRE,
    SHUFFLE,
    UNSET,
    Event,
    State,
)

# A phase's name: its prompt's kind, and the phases whose prompts are named otherwise.
PHASES = {**KINDS_OF_PROMPT, KEEP: "keep", SABRE: "sabre", OVER: "over"}
FLAGS = {
    OPEN_BIDS: "open-bids",
    BY_VALUE: "mutiny-by-value",
    NO_BIDS_FOR_START: "start-gets-no-bids",
    LOSERS_SCORE: "losing-bids-scored",
    LOSERS_LOSE: "losing-bids-lost",
    OUTBID: "outbid-or-pass",
    PER_CARD: "per-card-choice",
    ROUND_ENDS: "round-ends",
    SHUFFLE: "shuffle-treasure",
}
FORCED = {MUST_ACT: "must-bid-or-play", MUST_PASS: "must-pass"}
EVENTS = (
    "pass",
    "bid",
    "play",
    "put",
    "add",
    "steal",
    "discard",
    "give",
    "target",
    "winner",
    "take",
    "keep",
    "score",
    "reshuffle",
    "treasure",
    "mutiny",
    "divide",
    "leftovers",
    "eggs",
    "returned",
    "draw",
    "stop",
    "sabre",
    "take-bottom",
    "share",
    "collect",
    "bids-lost",
)


def _events(log: Sequence[Event]) -> list[JSON]:
    return [
        {
            "seat": seat if seat >= 0 else None,
            "what": EVENTS[what],
            "kind": KINDS[kind].title if kind >= 0 else None,
            "n": number if number != -1 else None,
        }
        for seat, what, kind, number in log
    ]


def _names(cards: Sequence[int], seen: frozenset[int]) -> list[JSON]:
    return sorted(NAMES[c] for c in cards if c in seen)


def _zone(cards: Sequence[int], seen: frozenset[int]) -> dict[str, JSON]:
    return {"size": len(cards), "known": _names(cards, seen)}


def pile_stream(state: State, k: int) -> str:
    """The Rng stream that ordered pile ``k`` (0: the deal's; k: the k-th reshuffle's, made
    while ``reshuffles`` counted down from the option's number)."""
    return "deal" if k == 0 else f"reshuffle:{state.reshuffles + len(state.made) - k + 1}"


def _draws(state: State, seen: frozenset[int]) -> dict[str, JSON]:
    """The current pile's cards drawn so far, at their places; a card the viewer cannot
    place is null. Once the game is over, each reshuffle's cards (in card order): what the
    verified badge needs to recompute a reshuffled pile."""
    out: dict[str, JSON] = {
        "pile": pile_stream(state, len(state.made)),
        "cards": [NAMES[c] if c in seen else None for c in state.drawn],
    }
    if state.phase == OVER:
        out["reshuffled"] = {
            pile_stream(state, k + 1): [NAMES[c] for c in cards]
            for k, cards in enumerate(state.made)
        }
    return out


def seat_view(table: Standing, state: State, seat: int | None) -> dict[str, JSON]:
    """The table as ``seat`` sees it; ``None`` (or a non-seat) is a spectator."""
    players = state.players
    me = seat if seat is not None and 0 <= seat < players else None
    seen = table.seen(state, me)
    outcome = table.outcome(state)
    prompt = table.prompt(state)
    return {
        "game": ID,
        "players": players,
        "seat": me,
        "round": state.round,
        "start": state.start,
        "phase": PHASES[state.phase],
        "turn": state.turn if state.turn >= 0 else None,
        "direction": state.direction,
        "forced": FORCED.get(state.forced),
        "effects": [name for bit, name in FLAGS.items() if state.flags & bit],
        "options": {
            "friendly": state.friendly,
            "strict_ties": state.strict,
            "more_actions": state.more,
            "special_scoring": state.special,
            "no_negatives": state.no_negatives,
            "negatives_removed": state.negatives,
        },
        "rules": state.rules,  # the edition of the rules (README.md, "Editions")
        "reshuffles": state.reshuffles,
        "pile": len(state.pile),
        "drawn": _draws(state, seen),
        "removed": [NAMES[c] for c in state.removed],
        "discard": _zone(state.discard, seen),
        # Top first; a card the viewer cannot place is null.
        "treasure": [NAMES[c] if c in seen else None for c in state.treasure],
        "arranged": state.arranged,
        "action": NAMES[state.action[0]] if state.action else None,
        "hand": [NAMES[c] for c in state.hands[me]] if me is not None else None,
        "hands": [_zone(state.hands[s], seen) for s in range(players)],
        "bids": [_zone(state.bids[s], seen) for s in range(players)],
        "received": [_zone(state.received[s], seen) for s in range(players)],
        "my_choices": (
            [bool(k) for k in state.choices[me]] if me is not None and state.choices else []
        ),
        "scored": [
            [
                {"card": NAMES[c], "stack": t if t != UNSET else None}
                for c, t in zip(state.scored[s], state.types[s], strict=True)
            ]
            for s in range(players)
        ],
        "passed": list(state.passed),
        "plays": list(state.plays),
        "scores": table.totals(state),
        "log": _events(state.log),
        "last_log": _events(state.last_log),
        "prompt": prompt.to_json(),
        "legal": [m.to_json() for m in table.legal(state, me)] if me is not None else [],
        "outcome": outcome.to_json() if outcome else None,
    }


def full_view(table: Standing, state: State) -> dict[str, JSON]:
    """Every card where it is: for replays once the game is over."""
    view = seat_view(table, state, None)
    view["zones"] = table.zones(state)
    return view
