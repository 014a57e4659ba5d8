"""The card table against the page's three tables (shared/rules/pearates.md), row by row:
"Base set (60 cards)", "Expansion "more actions" (33 cards, option)", "Expansion "special
scoring" (40 cards, option; cannot be Played)"."""

from __future__ import annotations

import pytest

from engines.core import BadOptions
from engines.pearates.cards import BASE, KINDS, MORE, NAMES, SPECIAL, deck, value

from .helpers import G

# (title, value, copies) as printed on the page; None: "any".
PAGE = {
    BASE: [
        ("Empty Chest", -4, 2),
        ("Rotten Eggs", -3, 4),
        ("Infested Bread", -2, 6),
        ("Fish Skeleton", -1, 8),
        ("Pearl Pepper", 0, 4),
        ("Goldfish", 1, 8),
        ("Bread Booty", 2, 7),
        ("Egg Bag", 3, 6),
        ("Ruby Rum", 4, 5),
        ("Gold Pancake", 5, 4),
        ("Banana Box", 6, 3),
        ("Pirate Pizza", 7, 2),
        ("Filled Chest", 8, 1),
    ],
    MORE: [
        ("Locked Box", -4, 1),
        ("Rotten Apple", -3, 2),
        ("Poisoned Wine", -2, 3),
        ("Spoiled Cabbage", -1, 4),
        ("Scurvy Chicken", 0, 2),
        ("Pedestal Cabbage", 1, 4),
        ("Shiny Winy", 2, 4),
        ("Golden Apple", 3, 3),
        ("Pirate Pine", 4, 3),
        ("Grapecrown", 5, 2),
        ("Pearl Onion", 6, 2),
        ("Biscuit Booty", 7, 2),
        ("Overflown Chest", 8, 1),
    ],
    SPECIAL: [
        ("Banana Sabre", None, 5),
        ("Soupy Spyglass", -3, 3),
        ("Basic Barrel", 2, 3),
        ("Confused Compass", -1, 4),
        ("Pirate Pearl", 1, 4),
        ("Ship in a Bottle", 0, 3),
        ("Dazzling Diamond", -2, 3),
        ("Chewy Coin", 4, 5),
        ("Amulet Artefact", 5, 5),
        ("Hungry Hook", 6, 5),
    ],
}


def test_every_row_of_the_page() -> None:
    for set_, rows in PAGE.items():
        ours = [(k.title, k.value, k.copies) for k in KINDS if k.set == set_]
        assert ours == rows, set_


def test_set_sizes_and_unique_names() -> None:
    """60 + 33 + 40 cards, each with its own name."""
    assert len(deck(False, False, 0)) == 60
    assert len(deck(True, False, 0)) == 93
    assert len(deck(True, True, 0)) == 133
    assert len(set(NAMES)) == len(NAMES) == 133
    assert "goldfish-8" in NAMES and "filled-chest" in NAMES and "goldfish-9" not in NAMES


def test_only_cards_with_an_action_can_be_played() -> None:
    """The chests have no action; special-scoring cards "cannot be Played"."""
    playable = {k.title for k in KINDS if k.playable}
    assert "Filled Chest" not in playable and "Locked Box" not in playable
    assert not any(k.playable for k in KINDS if k.set == SPECIAL)
    assert len(playable) == 11 + 11


def test_removing_some_or_all_of_the_negative_cards() -> None:
    """Friendly: "Optional: remove some or all of the negative numbers." The host removes
    the lowest values first (**house**: which ones are "some"): 1 removes the -4s, 2 the
    -4s and -3s, ... 4 every negative card; ``no_negatives`` (rooms stored with it) is all
    of them."""
    assert len(deck(False, False, 4)) == 60 - 2 - 4 - 6 - 8
    assert len(deck(False, False, 1)) == 60 - 2
    assert len(deck(False, False, 2)) == 60 - 2 - 4
    assert len(deck(True, True, 3)) == 133 - (2 + 1 + 0) - (4 + 2 + 3) - (6 + 3 + 3)
    assert {value(c) for c in deck(True, True, 2)} == set(range(-2, 9))
    options = G.options({"negatives_removed": 2})
    names_ = G.deck(options, 3)
    assert "empty-chest-1" not in names_ and "rotten-eggs-1" not in names_
    assert "infested-bread-1" in names_ and "fish-skeleton-1" in names_
    assert G.deck(G.options({"no_negatives": True}), 3) == G.deck(
        G.options({"negatives_removed": 4}), 3
    )
    state = G.start(options, 3, b"negatives")
    assert not any(value(c) < -2 for h in state.hands for c in h)
    assert G.view(state, 0)["options"]["negatives_removed"] == 2
    assert "negatives_removed" in G.options_schema() and "no_negatives" not in G.options_schema()
    with pytest.raises(BadOptions):
        G.options({"negatives_removed": 5})
