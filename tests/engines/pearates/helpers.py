"""Tables set up card by card for the rule tests.

``table`` deals the named cards where a test wants them (every other card of the deck goes
to the draw pile after the named pile cards) and gives each seat the knowledge the rules
give: its own hand and bid, the start player's treasure. Moves are written as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engines.pearates import PEARATES
from engines.pearates.cards import INDEX, NAMES, value
from engines.pearates.state import ARRANGE, TURN, State

G = PEARATES


def ids(names: Sequence[str]) -> tuple[int, ...]:
    return tuple(INDEX[n] for n in names)


def names(cards: Sequence[int]) -> list[str]:
    return [NAMES[c] for c in cards]


def table(
    players: int = 3,
    hands: Mapping[int, Sequence[str]] | None = None,
    treasure: Sequence[str] = (),
    pile: Sequence[str] = (),
    bids: Mapping[int, Sequence[str]] | None = None,
    scored: Mapping[int, Sequence[str]] | None = None,
    discard: Sequence[str] = (),
    start: int = 0,
    turn: int | None = None,
    options: Mapping[str, Any] | None = None,
    arrange: bool = False,
    pile_rest: bool = True,
) -> State:
    """A round in progress: the treasure face down, ``turn`` to move (default: the seat
    after the start player); ``arrange``: the start player still orders the treasure.
    ``options`` may name the edition of the rules (``rules``; default: the current one)."""
    opts = G.recorded_options({"rules": G.rules_edition, **(options or {})})
    base = G.start(opts, players, b"pearates-test")
    hands = hands or {}
    bids = bids or {}
    scored = scored or {}
    placed = [*treasure, *pile, *discard]
    for zone in (hands, bids, scored):
        for cards in zone.values():
            placed += cards
    assert len(set(placed)) == len(placed), "a card is placed twice"
    deck = G.deck(opts, players)
    rest = [n for n in deck if n not in placed] if pile_rest else []
    hand = tuple(tuple(sorted(ids(hands.get(s, ())))) for s in range(players))
    bid = tuple(tuple(sorted(ids(bids.get(s, ())))) for s in range(players))
    sc = tuple(ids(scored.get(s, ())) for s in range(players))
    known = [set(hand[s]) | set(bid[s]) for s in range(players)]
    known[start] |= set(ids(treasure))
    everyone = {c for pile_ in sc for c in pile_}
    return msgspec.structs.replace(
        base,
        round=1,
        start=start,
        phase=ARRANGE if arrange else TURN,
        turn=start if arrange else ((start + 1) % players if turn is None else turn),
        pile=ids([*pile, *rest]),
        discard=tuple(sorted(ids(discard))),
        removed=(),
        treasure=ids(treasure),
        hands=hand,
        bids=bid,
        scored=sc,
        types=tuple(tuple(value(c) for c in pile_) for pile_ in sc),
        received=tuple(() for _ in range(players)),
        known=(*(tuple(sorted(k)) for k in known), tuple(sorted(everyone))),
        log=(),
        last_log=(),
        drawn=(),
        made=(),
    )


def do(state: State, seat: int, *texts: str) -> State:
    """Each move in turn by ``seat`` (checked by validate first, as the server does)."""
    for text in texts:
        move = G.parse_move(text)
        G.validate(state, seat, move)
        state = G.step(state, {seat: move})
    return state


def sealed(state: State, moves: Mapping[int, str]) -> State:
    return G.step(state, {s: G.parse_move(m) for s, m in moves.items()})


def sees(state: State, seat: int | None, name: str) -> bool:
    """The card's place is known to ``seat`` (None: a spectator)."""
    return name not in G.hidden(state, seat)


def legal(state: State, seat: int) -> list[str]:
    return [str(m) for m in G.legal(state, seat)]


def conserved(state: State) -> bool:
    zones = G.zones(state)
    held = sorted(c for cards in zones.values() for c in cards)
    return len(held) == len(set(held))
