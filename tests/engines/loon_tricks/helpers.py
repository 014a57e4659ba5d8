"""Small tools to build exact table situations for the rule tests.

``table`` starts a real game (round 1, the first row on offer) and then replaces the parts
of its state a test cares about: hands, rows, loon, score cards. Cards not placed by the
test fill the remaining places in card order, so every card is still held exactly once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from engines.loon_tricks import LOON_TRICKS
from engines.loon_tricks.cards import INDEX, NAMES, deck
from engines.loon_tricks.moves import Move
from engines.loon_tricks.score_cards import INDEX as SCORE
from engines.loon_tricks.state import PLAY, State

GAME = LOON_TRICKS
SEED = b"loon-rule-tests"


def cards(*names: str) -> tuple[int, ...]:
    return tuple(sorted(INDEX[n] for n in names))


def names(items: Sequence[int]) -> list[str]:
    return [NAMES[c] for c in items]


def scores(recruitment: Sequence[str], capture: str, treasure: str) -> tuple[int, ...]:
    return (SCORE[recruitment[0]], SCORE[recruitment[1]], SCORE[capture], SCORE[treasure])


def table(
    players: int = 3,
    *,
    hands: Mapping[int, Sequence[str]] | None = None,
    rows: Mapping[int, tuple[Sequence[str], Sequence[str]]] | None = None,
    loon: Sequence[int] | None = None,
    score_cards: tuple[Sequence[str], str, str] | None = None,
) -> State:
    """Round 1 of a game at its first sealed bid (row 0 on offer), with the given cards
    placed: ``hands`` seat -> 5 names, ``rows`` row -> (5 face-up names, 2 face-down)."""
    state = GAME.start(GAME.options(), players, SEED)
    hands = hands or {}
    rows = rows or {}
    placed = {INDEX[n] for h in hands.values() for n in h}
    placed |= {INDEX[n] for up, down in rows.values() for n in (*up, *down)}
    rest = iter(c for c in deck(players) if c not in placed)
    new_hands = []
    for seat in range(players):
        given = cards(*hands[seat]) if seat in hands else ()
        new_hands.append(tuple(sorted(given + tuple(next(rest) for _ in range(5 - len(given))))))
    ups, downs = [], []
    for row in range(players):
        up, down = rows.get(row, ((), ()))
        ups.append(tuple(sorted(cards(*up) + tuple(next(rest) for _ in range(5 - len(up))))))
        downs.append(tuple(sorted(cards(*down) + tuple(next(rest) for _ in range(2 - len(down))))))
    assert next(rest, None) is None
    state = msgspec.structs.replace(
        state, hands=tuple(new_hands), row_up=tuple(ups), row_down=tuple(downs)
    )
    if loon is not None:
        state = msgspec.structs.replace(state, loon=tuple(loon))
    if score_cards is not None:
        state = msgspec.structs.replace(state, scores=(scores(*score_cards),))
    return state


def trick_table(
    hands: Sequence[Sequence[str]],
    *,
    leader: int = 0,
    treasure: str = "rich-rewards",
    capture: str = "mustel-bounty",
    loon: Sequence[int] | None = None,
    predictions: Sequence[int] | None = None,
    rounds: int = 3,
) -> State:
    """A round at its first trick (``leader`` holds the Go First marker), the given hands
    (the other cards of the deck are ditched by seat 0, so they are still held once)."""
    players = len(hands)
    state = GAME.start(GAME.options({"rounds": rounds}), players, SEED)
    held = {INDEX[n] for h in hands for n in h}
    rest = tuple(c for c in deck(players) if c not in held)
    none = tuple(() for _ in range(players))
    return msgspec.structs.replace(
        state,
        phase=PLAY,
        hands=tuple(cards(*h) for h in hands),
        ditched=(rest, *none[1:]),
        row_down=none,
        row_owner=tuple(range(players)),
        row_offers=tuple(1 for _ in range(players)),
        offer=-1,
        go_first=leader,
        scores=(scores(("old-salts", "lone-wolf"), capture, treasure),),
        order=tuple((leader + i) % players for i in range(players)),
        loon=tuple(loon) if loon is not None else state.loon,
        predictions=tuple(predictions) if predictions is not None else state.predictions,
    )


def step(state: State, moves: Mapping[int, str]) -> State:
    """Apply moves written as text: ``{0: "bid 3", 1: "bid 0"}``."""
    parsed: dict[int, Move] = {seat: GAME.parse_move(text) for seat, text in moves.items()}
    return GAME.step(state, parsed)


def play_out(state: State, *texts: str) -> State:
    """Play cards in turn order (open prompts, one move each)."""
    for text in texts:
        (seat,) = GAME.prompt(state).seats
        state = step(state, {seat: text})
    return state
