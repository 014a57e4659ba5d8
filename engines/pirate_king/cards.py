"""Cards as numbers: the house card list (``card_list.py``) numbered once.

Cards are small integers inside states; names are what moves, views and logs carry.
Identical cards get unique names: ``doubloons-1`` .. ``doubloons-6``; a starting deck's
cards carry the deck's number (``cutlass-2``, ``deckhand-2a``, ``deckhand-2b``): deck
``d`` belongs to seat ``d - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.pirate_king import card_list

START = "start"
PIRATE = "pirate"
MONSTER = "monster"
LOOT = "loot"

EFFECT_KINDS = (
    "reveal",
    "copy",
    "look",
    "flip",
    "gain",
    "captain",
    "choose",
    "retrieve",
    "give",
    "loot",
)


@dataclass(frozen=True, slots=True)
class Effect:
    kind: str
    n: int = 1
    others: bool = False  # the "other players" icon
    gain: str = ""  # gain: "swords" or "gold"
    per: str = ""  # gain: per "curse" or per "loot" card in the zone
    symbol: str = ""  # flip: the symbol the flipped card must show


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    name: str
    title: str
    type: str  # START, PIRATE, MONSTER or LOOT
    deck: int  # the starting deck (0-based seat) for START cards, else -1
    swords: int
    gold: int
    curses: int
    crowns: int
    map: bool
    effect: Effect | None


def _effect(raw: dict[str, Any] | None) -> Effect | None:
    if raw is None:
        return None
    effect = Effect(**raw)
    assert effect.kind in EFFECT_KINDS, effect
    # "Other players" effects: only Reveal is on a card, and only Reveal is resolved for
    # the other players (table.py).
    assert not effect.others or effect.kind == "reveal", effect
    return effect


def _cards() -> tuple[Card, ...]:
    out: list[Card] = []

    def add(raw: dict[str, Any], name: str, type_: str, deck: int) -> None:
        out.append(
            Card(
                id=len(out),
                name=name,
                title=raw["title"],
                type=type_,
                deck=deck,
                swords=raw.get("swords", 0),
                gold=raw.get("gold", 0),
                curses=raw.get("curses", 0),
                crowns=raw.get("crowns", 0),
                map=raw.get("map", False),
                effect=_effect(raw.get("effect")),
            )
        )

    for deck in range(card_list.STARTING_DECKS):
        for raw in card_list.STARTING_DECK:
            count = raw.get("count", 1)
            for copy in range(count):
                suffix = f"{deck + 1}{'ab'[copy]}" if count > 1 else f"{deck + 1}"
                add(raw, f"{raw['name']}-{suffix}", START, deck)
    for raw in card_list.PIRATES:
        add(raw, raw["name"], PIRATE, -1)
    for type_, table in ((MONSTER, card_list.MONSTERS), (LOOT, card_list.LOOT)):
        for raw in table:
            count = raw.get("count", 1)
            for copy in range(count):
                add(raw, f"{raw['name']}-{copy + 1}" if count > 1 else raw["name"], type_, -1)
    return tuple(out)


CARDS: tuple[Card, ...] = _cards()
NAMES: tuple[str, ...] = tuple(c.name for c in CARDS)
INDEX: dict[str, int] = {c.name: c.id for c in CARDS}
PIRATE_IDS: tuple[int, ...] = tuple(c.id for c in CARDS if c.type == PIRATE)
MONSTER_IDS: tuple[int, ...] = tuple(c.id for c in CARDS if c.type == MONSTER)
LOOT_IDS: tuple[int, ...] = tuple(c.id for c in CARDS if c.type == LOOT)
CURSES: tuple[int, ...] = tuple(c.curses for c in CARDS)
CROWNS: tuple[int, ...] = tuple(c.crowns for c in CARDS)
MAPS: tuple[int, ...] = tuple(int(c.map) for c in CARDS)


def starting_deck(seat: int) -> tuple[int, ...]:
    """The starting cards of ``seat`` (its deck is number ``seat + 1``)."""
    return tuple(c.id for c in CARDS if c.type == START and c.deck == seat)


def map_crowns(fragments: int) -> int:
    """Crowns of the map-fragment set table (five or more: the outright win, counted as the
    table's highest value)."""
    table = card_list.MAP_SET_CROWNS
    return table[min(fragments, len(table) - 1)]
