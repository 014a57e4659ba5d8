"""The cards of Pearates as data: the base set and both expansions, in one table.

Every row is one kind of card, copied from ``shared/rules/pearates.md``: (name, value,
copies, set, behaviour). ``behaviour`` names either the effects a Played action performs, in
order (see ``actions.py``), or the special-scoring rule of an expansion card (see
``scoring.py``). Cards without an action cannot be Played.

Each physical card has a unique name: ``goldfish-1`` .. ``goldfish-8``; a kind with one copy
is just its slug (``filled-chest``). Card numbers index one global table over all 133 cards;
a game's deck is the part its options include.
"""

from __future__ import annotations

from dataclasses import dataclass

BASE = "base"
MORE = "more-actions"
SPECIAL = "special-scoring"

WILD = None
"""Banana Sabre's printed value: "any" (its value is chosen at the end)."""


@dataclass(frozen=True, slots=True)
class Kind:
    slug: str
    title: str
    value: int | None  # None: Banana Sabre ("any")
    copies: int
    set: str
    effects: tuple[str, ...] = ()  # a Played action's effects, in order (actions.py)
    scoring: str = ""  # a special-scoring rule (scoring.py)

    @property
    def playable(self) -> bool:
        return bool(self.effects)


KINDS: tuple[Kind, ...] = (
    # -- base set (60 cards) --------------------------------------------------------------
    Kind("empty-chest", "Empty Chest", -4, 2, BASE),
    Kind("rotten-eggs", "Rotten Eggs", -3, 4, BASE, ("take-one-from-each-bid",)),
    Kind("infested-bread", "Infested Bread", -2, 6, BASE, ("open-bids",)),
    Kind("fish-skeleton", "Fish Skeleton", -1, 8, BASE, ("score-minus-cards-in-bids",)),
    Kind("pearl-pepper", "Pearl Pepper", 0, 4, BASE, ("open-bids", "mutiny-by-value")),
    Kind("goldfish", "Goldfish", 1, 8, BASE, ("next-must-act",)),
    Kind("bread-booty", "Bread Booty", 2, 7, BASE, ("add-secretly", "add-secretly")),
    Kind("egg-bag", "Egg Bag", 3, 6, BASE, ("reveal-treasure",)),
    Kind("ruby-rum", "Ruby Rum", 4, 5, BASE, ("look-at-treasure", "steal-one")),
    Kind("gold-pancake", "Gold Pancake", 5, 4, BASE, ("next-must-pass",)),
    Kind("banana-box", "Banana Box", 6, 3, BASE, ("draw-four",)),
    Kind("pirate-pizza", "Pirate Pizza", 7, 2, BASE, ("steal-treasure", "start-scores-card")),
    Kind("filled-chest", "Filled Chest", 8, 1, BASE),
    # -- expansion "more actions" (33 cards) -------------------------------------------------
    Kind("locked-box", "Locked Box", -4, 1, MORE),
    Kind("rotten-apple", "Rotten Apple", -3, 2, MORE, ("discard-from-bids",)),
    Kind("poisoned-wine", "Poisoned Wine", -2, 3, MORE, ("start-gets-no-bids",)),
    Kind("spoiled-cabbage", "Spoiled Cabbage", -1, 4, MORE, ("losing-bids-scored",)),
    Kind("scurvy-chicken", "Scurvy Chicken", 0, 2, MORE, ("reverse-order",)),
    Kind("pedestal-cabbage", "Pedestal Cabbage", 1, 4, MORE, ("outbid-or-pass",)),
    Kind("shiny-winy", "Shiny Winy", 2, 4, MORE, ("give-to-a-bid", "give-to-a-bid")),
    Kind("golden-apple", "Golden Apple", 3, 3, MORE, ("shuffle-treasure", "round-ends")),
    Kind("pirate-pine", "Pirate Pine", 4, 3, MORE, ("bid-back-to-hand",)),
    Kind("grapecrown", "Grapecrown", 5, 2, MORE, ("losing-bids-lost",)),
    Kind("pearl-onion", "Pearl Onion", 6, 2, MORE, ("score-a-bid",)),
    Kind("biscuit-booty", "Biscuit Booty", 7, 2, MORE, ("per-card-choice",)),
    Kind("overflown-chest", "Overflown Chest", 8, 1, MORE),
    # -- expansion "special scoring" (40 cards; never Played) --------------------------------
    Kind("banana-sabre", "Banana Sabre", WILD, 5, SPECIAL, scoring="wild"),
    Kind("soupy-spyglass", "Soupy Spyglass", -3, 3, SPECIAL, scoring="must-score"),
    Kind("basic-barrel", "Basic Barrel", 2, 3, SPECIAL, scoring="as-lowest"),
    Kind("confused-compass", "Confused Compass", -1, 4, SPECIAL, scoring="wrong-stack"),
    Kind("pirate-pearl", "Pirate Pearl", 1, 4, SPECIAL, scoring="flip-a-stack"),
    Kind("ship-in-a-bottle", "Ship in a Bottle", 0, 3, SPECIAL, scoring="count-negatives"),
    Kind("dazzling-diamond", "Dazzling Diamond", -2, 3, SPECIAL, scoring="as-highest"),
    Kind("chewy-coin", "Chewy Coin", 4, 5, SPECIAL, scoring="count-coins"),
    Kind("amulet-artefact", "Amulet Artefact", 5, 5, SPECIAL, scoring="fewest-wins"),
    Kind("hungry-hook", "Hungry Hook", 6, 5, SPECIAL, scoring="three-or-more"),
)

VALUES: tuple[int, ...] = tuple(range(-4, 9))
"""Every printed value, -4 .. 8: the "types" a Banana Sabre may be declared as."""


def _names() -> tuple[tuple[str, ...], tuple[int, ...]]:
    names: list[str] = []
    kinds: list[int] = []
    for k, kind in enumerate(KINDS):
        for i in range(1, kind.copies + 1):
            names.append(kind.slug if kind.copies == 1 else f"{kind.slug}-{i}")
            kinds.append(k)
    return tuple(names), tuple(kinds)


NAMES, KIND_OF = _names()
INDEX: dict[str, int] = {name: card for card, name in enumerate(NAMES)}


def kind(card: int) -> Kind:
    return KINDS[KIND_OF[card]]


def value(card: int) -> int:
    """The printed value; Banana Sabre counts 0 wherever a bid's value is measured."""
    v = KINDS[KIND_OF[card]].value
    return 0 if v is None else v


NEGATIVE_VALUES = 4
"""The printed negative values, -4 .. -1."""


def removed_negatives(no_negatives: bool, negatives: int) -> int:
    """How many negative values a game removes, the lowest first: every one with the option
    ``no_negatives``, else the option ``negatives_removed``."""
    return NEGATIVE_VALUES if no_negatives else negatives


def deck(more_actions: bool, special_scoring: bool, negatives: int) -> tuple[int, ...]:
    """The card numbers of a game with these options (base set always), without the cards of
    the ``negatives`` lowest negative values ("Optional: remove some or all of the negative
    numbers": 1 removes the -4s, ..., 4 every negative card)."""
    sets = {BASE} | ({MORE} if more_actions else set()) | ({SPECIAL} if special_scoring else set())
    return tuple(
        card
        for card in range(len(NAMES))
        if kind(card).set in sets and not value(card) < negatives - NEGATIVE_VALUES
    )
