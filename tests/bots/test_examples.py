"""Every example bot plays better than random moves: the same deals, offline on the rules
library (tests/bots/offline.py), its seat's mean rank against random opponents."""

from __future__ import annotations

import pytest
from offline import example, mean_rank, random_bot

GAMES = 24


@pytest.mark.parametrize(
    ("file", "game_id", "options"),
    [
        ("skull_king.py", "skull-king", {"rounds": 5}),
        ("bid_tricks.py", "bid-tricks", {"rounds": 5}),
        ("loon_tricks.py", "loon-tricks", None),
        ("pirate_king.py", "pirate-king", None),
        ("pearates.py", "pearates", {"removed": 40}),
    ],
)
def test_an_example_beats_random_moves(file: str, game_id: str, options: object) -> None:
    """ "At least one better than random in each" game: over the same deals, seat 0 played by
    the example ranks better on average than seat 0 played at random, by half a place."""
    bot = example(file)
    ours = mean_rank(game_id, bot, 3, GAMES, options)
    chance = mean_rank(game_id, random_bot(7), 3, GAMES, options)
    assert ours + 0.5 <= chance, (ours, chance)


def test_the_random_example_plays_only_legal_moves() -> None:
    ranks = mean_rank("pirate-king", example("random_bot.py"), 2, 2)
    assert 1 <= ranks <= 2
