"""The 26 score cards, as data (the seed names 9 of them; the rest are **house** cards).

Each card is (id, title, kind, parameters, house?, text). ``scoring.py`` gives each kind its
meaning; nothing else about a card lives in code. Score cards never enter ``zones``: they
are public once drawn, and the undrawn ones are drawn from the seed when a round starts.
"""

from __future__ import annotations

from dataclasses import dataclass

RECRUITMENT = "recruitment"
CAPTURE = "capture"
TREASURE = "treasure"


@dataclass(frozen=True, slots=True)
class ScoreCard:
    id: str
    title: str
    deck: str  # recruitment, capture or treasure
    kind: str
    params: tuple[int, ...]
    house: bool
    text: str


def _r(
    id_: str, title: str, kind: str, params: tuple[int, ...], house: bool, text: str
) -> ScoreCard:
    return ScoreCard(id_, title, RECRUITMENT, kind, params, house, text)


def _c(
    id_: str, title: str, kind: str, params: tuple[int, ...], house: bool, text: str
) -> ScoreCard:
    return ScoreCard(id_, title, CAPTURE, kind, params, house, text)


def _t(
    id_: str, title: str, kind: str, params: tuple[int, ...], house: bool, text: str
) -> ScoreCard:
    return ScoreCard(id_, title, TREASURE, kind, params, house, text)


# Suits in params: 0 red, 1 green, 2 blue (cards.py).
CARDS: tuple[ScoreCard, ...] = (
    # Recruitment: scored on the 10-card hand; a crew card is used at most once per card.
    _r("beringa-backing", "Beringa Backing", "odd", (1, 1), False, "+1 per odd green card"),
    _r("mustel-backing", "Mustel Backing", "odd", (2, 1), True, "+1 per odd blue card"),
    _r("crimson-backing", "Crimson Backing", "odd", (0, 1), True, "+1 per odd red card"),
    _r(
        "gang-of-two",
        "Gang of Two",
        "run",
        (2, 1),
        False,
        "+1 per run of 2 consecutive numbers in one suit",
    ),
    _r(
        "gang-of-three",
        "Gang of Three",
        "run",
        (3, 3),
        False,
        "+3 per run of 3 consecutive numbers in one suit",
    ),
    _r(
        "partners-in-crime",
        "Partners in Crime",
        "same",
        (2, 2),
        False,
        "+2 per pair of equal numbers",
    ),
    _r("terrible-trio", "Terrible Trio", "same", (3, 5), True, "+5 per three cards of one number"),
    _r(
        "motley-crew",
        "Motley Crew",
        "motley",
        (1,),
        True,
        "+1 per set of one red, one green and one blue card",
    ),
    _r("old-salts", "Old Salts", "high", (17, 1), True, "+1 per card numbered 17-20"),
    _r(
        "lone-wolf",
        "Lone Wolf",
        "lone",
        (2,),
        True,
        "+2 per suit of which you hold exactly one card",
    ),
    # Capture: scored on the crew cards inside the tricks taken.
    _c("mustel-bounty", "Mustel Bounty", "suit", (2, 1), False, "+1 per blue card taken"),
    _c("beringa-bounty", "Beringa Bounty", "suit", (1, 1), True, "+1 per green card taken"),
    _c("crimson-bounty", "Crimson Bounty", "suit", (0, 1), True, "+1 per red card taken"),
    _c("big-fish", "Big Fish", "numbers", (16, 20, 1), True, "+1 per card numbered 16-20 taken"),
    _c("twenty-guns", "Twenty Guns", "numbers", (20, 20, 3), True, "+3 per 20 taken"),
    _c(
        "small-fry",
        "Small Fry",
        "numbers",
        (1, 12, 1),
        True,
        "+1 per card numbered 12 or lower taken",
    ),
    _c("most-wanted", "Most Wanted", "most-cards", (5, 2), True, "most cards taken +5, 2nd +2"),
    _c("blood-money", "Blood Money", "suit", (0, -1), True, "pay 1 per red card taken"),
    _c("unlucky-thirteen", "Unlucky Thirteen", "numbers", (13, 13, -2), True, "pay 2 per 13 taken"),
    # Treasure: scored on the tricks won.
    _t("rich-rewards", "Rich Rewards", "per-trick", (2, 0), False, "+2 per trick"),
    _t(
        "bountiful-booty",
        "Bountiful Booty",
        "most-tricks",
        (6, 4, 2),
        False,
        "most tricks +6, 2nd +4, 3rd +2",
    ),
    _t(
        "tempt-fortune",
        "Tempt Fortune",
        "tempt",
        (3, 5, 2),
        False,
        "prediction exact: +3 per predicted trick (exact 0: +5); missed: pay 2 per trick off",
    ),
    _t(
        "extra-loot",
        "Extra Loot",
        "loot",
        (8, 2),
        False,
        "prediction exact: +8; off by one: +2; else 0",
    ),
    _t(
        "first-and-last",
        "First and Last",
        "first-last",
        (3, 3),
        True,
        "+3 for taking trick 1, +3 for taking trick 10",
    ),
    _t(
        "lie-low",
        "Lie Low",
        "fewest-tricks",
        (6, 4, 2),
        True,
        "fewest tricks +6, 2nd fewest +4, 3rd fewest +2",
    ),
    _t("steady-hand", "Steady Hand", "per-trick", (1, 5), True, "+1 per trick; +5 for taking none"),
)

INDEX: dict[str, int] = {card.id: i for i, card in enumerate(CARDS)}
DECKS: dict[str, tuple[int, ...]] = {
    deck: tuple(i for i, card in enumerate(CARDS) if card.deck == deck)
    for deck in (RECRUITMENT, CAPTURE, TREASURE)
}
PREDICTING = frozenset({INDEX["tempt-fortune"], INDEX["extra-loot"]})
"""Treasure cards that make everyone predict their tricks before the first trick."""
