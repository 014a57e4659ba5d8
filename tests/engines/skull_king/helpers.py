"""Small tools to build exact table situations for the rule tests.

``table`` starts a real game and then replaces the parts of its state a test cares about:
the hands (card names), the bids, the play order, the trick so far and the tricks already
won. Every card not placed anywhere goes to the stock, so cards are conserved.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from engines.skull_king import BID_TRICKS, SKULL_KING, SkullKing
from engines.skull_king.cards import AS_CODES, AS_NONE
from engines.skull_king.moves import Bid, Play
from engines.skull_king.state import BID, PLAY, State
from engines.skull_king.trick import Play as TrickPlay

GAMES = (SKULL_KING, BID_TRICKS)
SEED = b"tortuga-rule-tests"


def card(game: SkullKing, name: str) -> int:
    return game.cards.index[name]


def plays(game: SkullKing, *specs: str) -> list[TrickPlay]:
    """Plays for ``trick.winner`` / ``trick.bonus``: ``"black-1"`` or ``"rogue as escape"``;
    the i-th card is played by hand i."""
    out: list[TrickPlay] = []
    for hand, spec in enumerate(specs):
        name, _, as_ = spec.partition(" as ")
        out.append((hand, card(game, name), AS_CODES[as_] if as_ else AS_NONE))
    return out


def move(spec: str) -> Play:
    """``"scary-mary as escape"`` -> Play("scary-mary", "escape")."""
    name, _, as_ = spec.partition(" as ")
    return Play(name, as_ or None)


def table(
    game: SkullKing,
    hands: Sequence[Sequence[str]],
    *,
    round_: int | None = None,
    rounds: int = 10,
    bids: Sequence[int] | None = None,
    order: Sequence[int] | None = None,
    trick: Sequence[str] = (),
    tricks: Sequence[int] | None = None,
    bonus: Sequence[int] | None = None,
    won: Sequence[Sequence[str]] | None = None,
    players: int | None = None,
    dealer: int | None = None,
) -> State:
    """A state in the play phase (or the bid phase when ``bids`` is None).

    ``hands`` has one entry per hand: with ``players=2``, the third is the ghost's pile (top
    first). ``dealer`` deals this round (default: the last seat, so that seat 0 leads after
    the bids). ``trick`` lists the cards already played this trick, by ``order[0]``,
    ``order[1]``, ... (those cards must not also be in ``hands``).
    """
    players = len(hands) if players is None else players
    assert len(hands) == (3 if players == 2 else players)
    count = len(hands)
    base = game.start(game.options({"rounds": rounds}), players, SEED)
    hand_ids = [tuple(card(game, n) for n in h) for h in hands]
    hand_ids = [h if i == players else tuple(sorted(h)) for i, h in enumerate(hand_ids)]
    won_ids = [tuple(card(game, n) for n in w) for w in (won or [() for _ in range(count)])]
    if order is None:
        order = tuple(range(players)) if players != 2 else (0, 2, 1)
    trick_plays = tuple((order[i], *plays(game, spec)[0][1:]) for i, spec in enumerate(trick))
    used = {c for h in hand_ids for c in h} | {c for w in won_ids for c in w}
    used |= {c for _, c, _a in trick_plays}
    placed = sum(len(h) for h in hand_ids) + sum(len(w) for w in won_ids) + len(trick_plays)
    assert len(used) == placed, "a card is placed twice"
    r = round_ if round_ is not None else max(map(len, hand_ids)) + sum(tricks or ())
    dealer = players - 1 if dealer is None else dealer
    state = msgspec.structs.replace(
        base,
        first_dealer=(dealer - r + 1) % players,
        round=r,
        phase=BID if bids is None else PLAY,
        hands=tuple(hand_ids),
        stock=tuple(c for c in range(len(game.cards.names)) if c not in used),
        bids=tuple(bids) if bids is not None else tuple(-1 for _ in range(players)),
        order=tuple(order) if bids is not None else (),
        trick=trick_plays,
        won=tuple(won_ids),
        tricks=tuple(tricks) if tricks is not None else tuple(0 for _ in range(count)),
        bonus=tuple(bonus) if bonus is not None else tuple(0 for _ in range(count)),
        last=(),
        last_winner=-1,
    )
    return state


def step_play(game: SkullKing, state: State, *specs: str) -> State:
    """Play cards one at a time, each by the hand whose turn it is."""
    for spec in specs:
        seat = game.turn(state)
        assert seat is not None, "nobody is to play"
        state = game.step(state, {seat: move(spec)})
    return state


def step_bids(game: SkullKing, state: State, *bids: int) -> State:
    return game.step(state, {seat: Bid(b) for seat, b in enumerate(bids)})


def first_legal(game: SkullKing, state: State) -> State:
    """One step with everyone owing a move making their first legal move (bids: 0)."""
    prompt = game.prompt(state)
    assert not prompt.over
    return game.step(state, {seat: game.legal(state, seat)[0] for seat in prompt.seats})


def finish_round(game: SkullKing, state: State) -> State:
    """Play to the start of the next round (or the end of the game) with first legal moves."""
    r = state.round
    while state.round == r and not game.prompt(state).over:
        state = first_legal(game, state)
    return state


def card_text(view: dict[str, Any]) -> str:
    """The view as JSON text, without the game id (``skull-king`` is also a card) and the
    last trick (public, and after a new deal it names cards that have been shuffled back)."""
    return json.dumps({k: v for k, v in view.items() if k not in ("game", "last_trick")})
