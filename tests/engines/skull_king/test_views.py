"""What each seat may see: its own hand, everything played, bids after the reveal, scores."""

from __future__ import annotations

import pytest

from engines.rng import Rng
from engines.skull_king import SkullKing
from engines.skull_king.state import BID, PLAY, State

from .helpers import GAMES, card_text, finish_round, first_legal, step_bids, table

IDS = ["skull-king", "bid-tricks"]
PERSONAL = ("seat", "hand", "legal")


def states(game: SkullKing, players: int, seed: bytes) -> list[State]:
    """Every state of a short game played with first legal moves."""
    state = game.start(game.options({"rounds": 4}), players, seed)
    out = [state]
    while not game.prompt(state).over:
        state = first_legal(game, state)
        out.append(state)
    return out


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_seat_sees_its_own_hand_only(game: SkullKing) -> None:
    """Seed 002: "The app only shows you your own hand, and hides other players' bids until
    everyone has bid." Seed 003: "Chia bài cho mỗi người một cách bí mật." (deal to each
    player in secret)."""
    names = game.cards.names
    for state in states(game, 4, b"own-hand")[::5]:
        for seat in range(4):
            view = game.view(state, seat)
            assert view["seat"] == seat
            assert view["hand"] == [names[c] for c in state.hands[seat]]
            assert view["hand_sizes"] == [len(h) for h in state.hands]
            text = card_text(view)
            for other in range(4):
                if other != seat:
                    for c in state.hands[other]:
                        assert f'"{names[c]}"' not in text
            for c in state.stock:
                assert f'"{names[c]}"' not in text


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_spectator_sees_no_hand(game: SkullKing) -> None:
    names = game.cards.names
    for state in states(game, 3, b"spectator")[::4]:
        view = game.view(state, None)
        assert view["seat"] is None and view["hand"] is None and view["legal"] == []
        text = card_text(view)
        for hand in state.hands:
            for c in hand:
                assert f'"{names[c]}"' not in text


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_table_is_the_same_for_everyone(game: SkullKing) -> None:
    """Seed 003: "The player who has won the trick places it, facing down, in front of them,
    each trick separate from other tricks (enabling everyone to see clearly how many tricks
    the respective player already has), and then plays the first card of the next round."
    Everything played (the trick, the last trick, tricks won), the bids after the reveal and
    the scores are public: every seat's view and the spectator's agree on them."""
    for state in states(game, 4, b"public"):
        public = {k: v for k, v in game.view(state, None).items() if k not in PERSONAL}
        for seat in range(4):
            mine = {k: v for k, v in game.view(state, seat).items() if k not in PERSONAL}
            assert mine == public
        if state.phase == PLAY:
            assert public["trick"] == [
                {
                    "seat": h,
                    "card": game.cards.names[c],
                    **({"as": ["", "pirate", "escape"][a]} if a else {}),
                }
                for h, c, a in state.trick
            ]
            assert public["bids"] == list(state.bids)
        if state.phase == BID:
            assert public["bids"] == [None] * 4
        assert public["scores"] == game.totals(state)
        assert public["tricks"] == list(state.tricks)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_views_do_not_depend_on_what_a_seat_cannot_see(game: SkullKing) -> None:
    """No leaks, as non-interference: re-deal every card a seat cannot see (other hands, the
    stock) and its view does not change. The view never carries the seed (the future deals)
    or the stock."""
    for players in (2, 4):
        for i, state in enumerate(states(game, players, b"non-interference")[::3]):
            for seat in (*range(players), None):
                other = game.resample(state, seat, Rng(b"redeal-%d" % i, str(seat)))
                assert game.view(other, seat) == game.view(state, seat)
            view = game.view(state, 0)
            assert "seed" not in view and "stock" not in view and "hands" not in view


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_bids_are_seen_only_after_the_reveal(game: SkullKing) -> None:
    """Page: "Bids are public after the reveal." The engine holds no bid before the reveal:
    the server keeps the sealed commitments."""
    state = game.start(game.options(), 3, b"reveal")
    state = finish_round(game, state)
    assert all(game.view(state, s)["bids"] == [None] * 3 for s in (0, 1, 2, None))
    assert game.view(state, 0)["legal"] == [{"bid": n} for n in range(3)]
    state = step_bids(game, state, 2, 1, 0)
    assert all(game.view(state, s)["bids"] == [2, 1, 0] for s in (0, 1, 2, None))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_scores_and_sheet_in_the_view(game: SkullKing) -> None:
    all_states = states(game, 3, b"sheet")
    final = all_states[-1]
    view = game.view(final, 1)
    assert view["phase"] == "over"
    assert len(view["sheet"]) == 4
    assert view["scores"] == [sum(r["points"][s] for r in view["sheet"]) for s in range(3)]
    outcome = game.outcome(final)
    assert outcome is not None
    assert view["outcome"] == outcome.to_json()
    assert view["prompt"] == {"seats": [], "kind": "over", "sealed": False, "private": False}


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_final_view_shows_every_hand(game: SkullKing) -> None:
    """``final_view`` (replays of a finished game) shows every hand, the ghost's pile too."""
    names = game.cards.names
    for players in (2, 4):
        state = game.start(game.options(), players, b"final")
        state = finish_round(game, finish_round(game, state))
        full = game.final_view(state)
        assert full["hands"] == [[names[c] for c in hand] for hand in state.hands]
        assert len(full["hands"]) == (3 if players == 2 else players)
        assert full["hand"] is None


@pytest.mark.parametrize(
    ("game_id", "trick", "led", "led_open"),
    [
        # Both editions: "Follow the suit led if you can."
        ("skull-king", (), None, True),
        ("skull-king", ("red-3",), "red", False),
        # Classic: "If a special card is led, the first numbered card played afterwards sets
        # the suit."
        ("skull-king", ("pirate-1",), None, True),
        ("skull-king", ("escape-1", "blue-5"), "blue", False),
        # Bid & Make It: "If a special card is led there is no suit to follow; after an
        # Escape the next numbered card sets the suit."
        ("bid-tricks", ("pirate-1",), None, False),
        ("bid-tricks", ("escape-1",), None, True),
        ("bid-tricks", ("escape-1", "green-5"), "green", False),
    ],
)
def test_the_view_names_the_suit_to_follow(
    game_id: str, trick: tuple[str, ...], led: str | None, led_open: bool
) -> None:
    """The client shows the suit to follow from the view, never deciding it."""
    game = next(g for g in GAMES if g.id == game_id)
    hands = [["yellow-2"], ["yellow-4"], ["yellow-6"], ["yellow-8"]]
    state = table(game, hands, bids=[0, 0, 0, 0], trick=trick)
    view = game.view(state, 0)
    assert (view["led"], view["led_open"]) == (led, led_open)
