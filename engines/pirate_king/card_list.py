"""The house card list of Pirate King! (``shared/rules/pirate-king.md``, "House card list").

The seed gives the flow and every effect but no card contents; everything in this file is
**house** and lives here alone, as data, so that it can be corrected without touching code.

A card is a dict: ``name`` (unique per copy once numbered), ``title``, ``count`` (copies),
the symbols ``swords``, ``gold``, ``curses``, ``crowns``, ``map`` (the map-fragment set
symbol), and ``effect``: ``None`` or a dict with ``kind`` (one of ``reveal``, ``copy``,
``look``, ``flip``, ``gain``, ``captain``, ``choose``, ``retrieve``, ``give``, ``loot``),
``n`` (how many symbols), ``others`` (the "other players" icon), for ``gain`` what is
gained (``swords`` / ``gold``) ``per`` symbol (``curse`` / ``loot``), for ``flip`` the
``symbol`` the flipped card must show (``curse``).
"""

from __future__ import annotations

from typing import Any

Card = dict[str, Any]

# One per player, 8 cards; "Each player also picks one Pirate and shuffles it in (9 cards)."
STARTING_DECK: tuple[Card, ...] = (
    {"name": "deckhand", "title": "Deckhand", "count": 2, "swords": 1},
    {"name": "coin-purse", "title": "Coin Purse", "count": 2, "gold": 1},
    {"name": "cutlass", "title": "Cutlass", "swords": 2, "curses": 1},
    {"name": "gold-tooth", "title": "Gold Tooth", "gold": 2, "curses": 1},
    {"name": "grog", "title": "Grog", "swords": 1, "gold": 1, "curses": 1},
    {"name": "spyglass", "title": "Spyglass", "effect": {"kind": "look", "n": 2}},
)

STARTING_DECKS = 5  # "5 starting decks (8 starting cards per deck)"

PIRATES: tuple[Card, ...] = (
    {
        "name": "scarlette",
        "title": "Captain Scarlette",
        "swords": 1,
        "effect": {"kind": "captain"},
    },
    {
        "name": "yellow",
        "title": "Inquisitor Yellow",
        "swords": 1,
        "effect": {"kind": "flip", "symbol": "curse"},
    },
    {"name": "violette", "title": "Violette the Seer", "effect": {"kind": "choose"}},
    {
        "name": "rossy",
        "title": "Cook Rossy",
        "gold": 1,
        "effect": {"kind": "gain", "gain": "gold", "per": "curse"},
    },
    {
        "name": "wilson",
        "title": "Wilson the Castaway",
        "curses": 1,
        "effect": {"kind": "give"},
    },
    {"name": "gary", "title": "Gary the Immortal", "swords": 1, "effect": {"kind": "retrieve"}},
    {
        "name": "sea-witch",
        "title": "Shadow Sea Witch",
        "gold": 2,
        "curses": 1,
        "effect": {"kind": "reveal", "n": 1, "others": True},
    },
    {"name": "navy", "title": "Admiral Navy", "swords": 2},
    {"name": "red", "title": "Red the Adventurer", "effect": {"kind": "loot"}},
    {"name": "blackbeard", "title": "Blackbeard", "swords": 3, "curses": 1},
)

MONSTERS: tuple[Card, ...] = (
    {"name": "sea-serpent", "title": "Sea Serpent", "count": 4, "crowns": 2, "swords": 1},
    {
        "name": "giant-crab",
        "title": "Giant Crab",
        "count": 4,
        "crowns": 3,
        "swords": 1,
        "curses": 1,
    },
    {
        "name": "ghost-ship",
        "title": "Ghost Ship",
        "count": 3,
        "crowns": 4,
        "swords": 2,
        "curses": 1,
    },
    {
        "name": "leviathan",
        "title": "Leviathan",
        "count": 2,
        "crowns": 5,
        "swords": 2,
        "curses": 2,
    },
    {"name": "kraken", "title": "Kraken", "crowns": 6, "swords": 3, "curses": 2},
)

LOOT: tuple[Card, ...] = (
    {"name": "doubloons", "title": "Doubloons", "count": 6, "gold": 2},
    {"name": "flintlock", "title": "Flintlock", "count": 6, "swords": 2},
    {"name": "jewel-chest", "title": "Jewel Chest", "count": 4, "crowns": 2, "curses": 1},
    {
        "name": "golden-idol",
        "title": "Golden Idol",
        "count": 3,
        "crowns": 3,
        "gold": 1,
        "curses": 1,
    },
    {"name": "royal-crown", "title": "Royal Crown", "count": 2, "crowns": 4, "curses": 2},
    {"name": "map-fragment", "title": "Map Fragment", "count": 6, "map": True},
    {
        "name": "compass",
        "title": "Compass",
        "count": 3,
        "gold": 1,
        "effect": {"kind": "look", "n": 3},
    },
    {"name": "parrot", "title": "Parrot", "count": 3, "effect": {"kind": "copy"}},
    {
        "name": "lucky-charm",
        "title": "Lucky Charm",
        "count": 3,
        "effect": {"kind": "flip", "symbol": "curse"},
    },
    {
        "name": "powder-keg",
        "title": "Powder Keg",
        "count": 3,
        "swords": 1,
        "effect": {"kind": "reveal", "n": 1},
    },
    {
        "name": "treasure-map",
        "title": "Treasure Map",
        "count": 2,
        "effect": {"kind": "reveal", "n": 2},
    },
    {
        "name": "cannon",
        "title": "Cannon",
        "count": 2,
        "effect": {"kind": "gain", "gain": "swords", "per": "curse"},
    },
    {
        "name": "merchant-scales",
        "title": "Merchant Scales",
        "count": 2,
        "effect": {"kind": "gain", "gain": "gold", "per": "loot"},
    },
)

# "1, 2, 3, 4 cards: 1, 4, 8, 13 crowns; 5 cards: that player wins outright"
MAP_SET_CROWNS: tuple[int, ...] = (0, 1, 4, 8, 13)
MAP_SET_WINS = 5
