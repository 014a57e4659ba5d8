"""Two players: the ghost third hand (seed 002; **house** for classic).

Seed 002: "A third, ghost hand 👻 joins. It always plays second (or leads after winning a
trick), plays the top card of its pile without following suit, plays its Rogue as an Escape,
and never bids or scores. You two take turns leading each round."
"""

from __future__ import annotations

import pytest

from engines.core import IllegalMove
from engines.rng import Rng
from engines.skull_king import SkullKing
from engines.skull_king.cards import AS_ESCAPE
from engines.skull_king.moves import Bid
from engines.skull_king.state import PLAY

from .helpers import GAMES, card, card_text, finish_round, first_legal, step_bids, step_play, table

IDS = ["skull-king", "bid-tricks"]
GHOST = 2


def c(game: SkullKing, suit: int, rank: int) -> str:
    return f"{game.edition.suits[suit]}-{rank}"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_ghost_hand_joins(game: SkullKing) -> None:
    """Page: "2 players: a ghost third hand joins. It plays second (or leads after winning a
    trick), plays the top card of its pile without following suit, plays its Rogue as an
    Escape, and never bids or scores. The two players take turns leading each round." Seed
    002: "A third, ghost hand 👻 joins." Classic page: "2 players: the seed gives no rule; use
    the ghost hand of the second edition (house)." """
    state = game.start(game.options(), 2, b"ghost")
    assert len(state.hands) == 3
    assert [len(h) for h in state.hands] == [1, 1, 1]
    view = game.view(state, 0)
    assert view["ghost"] == {"seat": GHOST, "pile": 1, "tricks": 0}
    assert game.view(state, None)["ghost"] == {"seat": GHOST, "pile": 1, "tricks": 0}
    three = game.start(game.options(), 3, b"ghost")
    assert game.view(three, 0)["ghost"] is None


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_ghost_never_bids(game: SkullKing) -> None:
    """The ghost "never bids or scores": the sealed bid is the two players' only."""
    state = game.start(game.options(), 2, b"ghost")
    prompt = game.prompt(state)
    assert prompt.seats == (0, 1) and prompt.sealed
    assert game.legal(state, GHOST) == []
    with pytest.raises(IllegalMove) as info:
        game.validate(state, GHOST, Bid(0))
    assert info.value.code == "no-such-seat"
    with pytest.raises(IllegalMove):
        game.step(state, {0: Bid(0), 1: Bid(0), GHOST: Bid(0)})
    assert step_bids(game, state, 1, 0).bids == (1, 0)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_ghost_plays_second_its_top_card_without_following_suit(game: SkullKing) -> None:
    """The ghost "plays second" and "plays the top card of its pile without following
    suit"."""
    pile = [c(game, 1, 9), c(game, 0, 2), c(game, 0, 3)]  # top first; it holds the suit led
    state = table(
        game,
        [
            [c(game, 0, 5), c(game, 0, 6), c(game, 0, 7)],
            [c(game, 0, 8), "escape-1", "escape-2"],
            pile,
        ],
        players=2,
        bids=[1, 1],
        order=[0, GHOST, 1],
    )
    state = step_play(game, state, c(game, 0, 5))
    assert [(h, game.cards.names[x]) for h, x, _a in state.trick] == [
        (0, c(game, 0, 5)),
        (GHOST, c(game, 1, 9)),
    ]
    assert state.hands[GHOST] == (card(game, pile[1]), card(game, pile[2]))
    assert game.turn(state) == 1
    assert game.view(state, 1)["turn"] == 1


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_ghost_plays_its_choice_card_as_an_escape(game: SkullKing) -> None:
    """The ghost "plays its Rogue as an Escape" (and, in classic, Scary Mary)."""
    choice = game.edition.choice
    state = table(
        game,
        [[c(game, 0, 5)], [c(game, 0, 8)], [choice]],
        players=2,
        bids=[1, 1],
        order=[0, GHOST, 1],
    )
    state = step_play(game, state, c(game, 0, 5))
    assert state.trick[1] == (GHOST, card(game, choice), AS_ESCAPE)
    assert game.view(state, 0)["trick"][1] == {"seat": GHOST, "card": choice, "as": "escape"}
    state = step_play(game, state, c(game, 0, 8))
    assert state.sheet[-1].tricks == (0, 1)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_ghost_leads_after_winning_and_players_keep_their_order(game: SkullKing) -> None:
    """The ghost "leads after winning a trick". **house**: when it leads, the two players
    follow in the order they had in the trick before."""
    for first in (0, 1):
        other = 1 - first
        hands: list[list[str]] = [[], [], []]
        hands[first] = [c(game, 0, 2), c(game, 0, 3), c(game, 0, 4)]
        hands[other] = [c(game, 0, 5), c(game, 0, 6), c(game, 0, 7)]
        hands[GHOST] = ["black-5", "black-6", "escape-3"]
        state = table(game, hands, players=2, bids=[0, 0], order=[first, GHOST, other])
        state = step_play(game, state, c(game, 0, 2), c(game, 0, 5))
        assert state.last_winner == GHOST
        # The ghost has already led its next card; the player who came first still does.
        assert state.order == (GHOST, first, other)
        assert [(h, game.cards.names[x]) for h, x, _a in state.trick] == [(GHOST, "black-6")]
        assert game.turn(state) == first
        state = step_play(game, state, c(game, 0, 3), c(game, 0, 6))
        assert state.last_winner == GHOST
        assert state.order == (GHOST, first, other)
        # Last trick: the ghost leads an Escape and the other player's higher card takes it.
        state = step_play(game, state, c(game, 0, 4), c(game, 0, 7))
        assert state.sheet[-1].tricks[other] == 1
        view = game.view(state, first)
        assert view["last_trick"]["winner"] == other


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_player_winning_leads_with_the_ghost_second(game: SkullKing) -> None:
    """The winner leads the next trick and the ghost "always plays second"."""
    state = table(
        game,
        [[c(game, 0, 2), "black-1"], ["black-9", c(game, 1, 3)], [c(game, 1, 1), c(game, 1, 2)]],
        players=2,
        bids=[1, 1],
        order=[0, GHOST, 1],
    )
    state = step_play(game, state, c(game, 0, 2), "black-9")
    assert state.last_winner == 1
    assert state.order == (1, GHOST, 0)
    assert game.turn(state) == 1


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_two_players_take_turns_leading(game: SkullKing) -> None:
    """ "The two players take turns leading each round." (the dealer alternates between the
    two players, and the player after the dealer leads; the ghost never deals)"""
    for seed in (b"two-a", b"two-b", b"two-c"):
        state = game.start(game.options(), 2, seed)
        leaders = []
        while not game.prompt(state).over:
            assert game.view(state, 0)["dealer"] in (0, 1)
            state = step_bids(game, state, 0, 0)
            leaders.append(state.order[0])
            assert state.order[1] == GHOST
            state = finish_round(game, state)
        assert leaders[0] in (0, 1)
        assert leaders == [(leaders[0] + i) % 2 for i in range(10)]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_ghost_never_scores(game: SkullKing) -> None:
    """The ghost "never bids or scores": its tricks are shown, but the score sheet and the
    outcome hold the two players only."""
    state = game.start(game.options({"rounds": 5}), 2, b"score")
    ghost_tricks = 0
    while not game.prompt(state).over:
        before = state
        state = first_legal(game, state)
        if before.phase == PLAY and state.last_winner == GHOST and before.trick != state.trick:
            ghost_tricks += 1
        for row in state.sheet:
            assert len(row.points) == len(row.bids) == len(row.tricks) == 2
    outcome = game.outcome(state)
    assert outcome is not None
    assert len(outcome.scores) == 2 and len(outcome.ranks) == 2
    assert len(game.view(state, 0)["scores"]) == 2
    assert ghost_tricks > 0
    played = sum(r.cards for r in state.sheet)
    assert sum(sum(r.tricks) for r in state.sheet) < played  # the ghost took the rest


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_ghost_pile_is_hidden_from_everyone(game: SkullKing) -> None:
    """Seed 002: "The app only shows you your own hand" -- no player and no spectator sees the
    ghost's pile (only how many cards it holds); re-dealing the pile changes no view."""
    state = game.start(game.options(), 2, b"hidden")
    for _ in range(4):
        state = finish_round(game, state)
    state = step_bids(game, state, 1, 1)
    pile = [game.cards.names[x] for x in state.hands[GHOST]]
    assert pile
    for seat in (0, 1, None):
        text = card_text(game.view(state, seat))
        for name in pile:
            assert f'"{name}"' not in text
        assert game.cards.names[state.hands[GHOST][0]] in game.hidden(state, seat)
        other = game.resample(state, seat, Rng(b"resample", "ghost"))
        assert other.hands[GHOST] != state.hands[GHOST]
        assert game.view(other, seat) == game.view(state, seat)
    assert game.final_view(state)["hands"][GHOST] == pile
