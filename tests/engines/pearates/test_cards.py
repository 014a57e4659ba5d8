"""The card table against the page's three tables (shared/rules/pearates.md), row by row:
"Base set (60 cards)", "Expansion "more actions" (33 cards, option)", "Expansion "special
scoring" (40 cards, option; cannot be Played)"."""

from __future__ import annotations

from engines.pearates.cards import BASE, KINDS, MORE, NAMES, SPECIAL, deck

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
    assert len(deck(False, False, False)) == 60
    assert len(deck(True, False, False)) == 93
    assert len(deck(True, True, False)) == 133
    assert len(set(NAMES)) == len(NAMES) == 133
    assert "goldfish-8" in NAMES and "filled-chest" in NAMES and "goldfish-9" not in NAMES


def test_only_cards_with_an_action_can_be_played() -> None:
    """The chests have no action; special-scoring cards "cannot be Played"."""
    playable = {k.title for k in KINDS if k.playable}
    assert "Filled Chest" not in playable and "Locked Box" not in playable
    assert not any(k.playable for k in KINDS if k.set == SPECIAL)
    assert len(playable) == 11 + 11


def test_removing_the_negative_cards() -> None:
    """Friendly, optional: "remove some or all of the negative numbers"."""
    assert len(deck(False, False, True)) == 60 - 2 - 4 - 6 - 8
