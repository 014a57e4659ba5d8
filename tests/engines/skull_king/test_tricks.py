"""Who takes a trick, in both editions: every special-card combination the rules name.

``trick.winner`` returns the index of the winning play; ``plays(game, a, b, ...)`` builds
the plays in order (the i-th card by hand i).
"""

from __future__ import annotations

import itertools

import pytest

from engines.skull_king import BID_TRICKS, SKULL_KING, SkullKing
from engines.skull_king.cards import MERMAID
from engines.skull_king.trick import suit_led, winner

from .helpers import plays, step_play, table

SK = SKULL_KING
BT = BID_TRICKS


def win(game: SkullKing, *specs: str) -> int:
    return winner(game.cards, plays(game, *specs))


# -- classic (seed 003) ----------------------------------------------------------------


def test_seed_example_black_one_trumps_yellow() -> None:
    """Seed 003: "Example: A "Yellow 2" is played, followed by a "Yellow 12". Th e next two
    players don't have any yellow and play a "Blue 13" and a "Black 1". Th e "Black 1" wins
    the trick because black is always the highest suit. Without the black card the
    "Yellow 12" would have won the trick because it was the highest card in the suit
    (yellow) being played."

    The page: "Seed examples that must be tests: Yellow 2, Yellow 12, Blue 13, Black 1 →
    Black 1 wins (and without it Yellow 12)"."""
    assert win(SK, "yellow-2", "yellow-12", "blue-13", "black-1") == 3
    assert win(SK, "yellow-2", "yellow-12", "blue-13") == 1


def test_seed_example_played_out_at_the_table() -> None:
    """The same example through the engine: the last two players hold no yellow, so Blue 13
    and Black 1 are legal, and the Black 1's player takes the trick and leads next."""
    state = table(
        SK,
        [["yellow-2", "red-4"], ["yellow-12", "red-5"], ["blue-13", "red-6"], ["black-1", "red-7"]],
        bids=[0, 1, 0, 1],
    )
    state = step_play(SK, state, "yellow-2", "yellow-12", "blue-13", "black-1")
    assert state.last_winner == 3
    assert state.tricks == (0, 0, 0, 1)
    assert SK.turn(state) == 3


def test_highest_card_of_the_suit_led_wins() -> None:
    """Seed 003: "It is always the player who has played the highest card that wins the
    trick. It is always the highest card of the suit being played. If other cards from
    other suits are played than the first card played (because the player doesn't have the
    suit) their value is irrelevant." Page: "otherwise the highest card of the suit led"."""
    assert win(SK, "red-3", "blue-13", "red-5", "yellow-12") == 2
    assert win(SK, "red-3", "blue-13", "yellow-13") == 0


@pytest.mark.parametrize(
    ("led", "other"), list(itertools.permutations(["yellow", "red", "blue"], 2))
)
def test_non_trump_suits_rank_equal(led: str, other: str) -> None:
    """Seed 003: "All other suits rank equal to one another." (off-suit cards never win)"""
    assert win(SK, f"{led}-1", f"{other}-13") == 0
    assert win(SK, f"{other}-13", f"{led}-1") == 0


def test_black_trumps_all_other_suits() -> None:
    """Seed 003: "Exception: Th e skull and crossbones flag (black) is the highest suit and it
    trumps all other suits (irrespective of its numerical value)." Page: "otherwise the
    highest black"."""
    for suit in ("yellow", "red", "blue"):
        assert win(SK, f"{suit}-13", "black-1") == 1
    assert win(SK, "yellow-5", "black-2", "black-9", "black-3") == 2
    assert win(SK, "black-2", "yellow-13", "black-9") == 2


def test_escape_is_always_the_lowest_card() -> None:
    """Seed 003: "This card is worth "0" and is always the lowest card. It is played in order
    to not win a trick." Page: "Escapes never win"."""
    assert win(SK, "escape-1", "yellow-1") == 1
    assert win(SK, "escape-1", "escape-2", "blue-1", "escape-3") == 2
    assert win(SK, "yellow-3", "escape-4") == 0


def test_a_trick_of_only_escapes_goes_to_the_first() -> None:
    """Seed 003: "However, if all the players play an "Escape" card, the trick is won by the player
    who played the first Escape card." Page: "Escapes never win, except that a trick of only Escapes
    goes to the first Escape played." Scary Mary played as an Escape is an Escape here."""
    assert win(SK, "escape-3", "escape-1", "escape-2") == 0
    assert win(SK, "escape-5", "escape-4", "escape-3", "escape-2", "escape-1") == 0
    assert win(SK, "scary-mary as escape", "escape-1") == 0
    assert win(SK, "escape-1", "scary-mary as escape") == 0


def test_mermaid_beats_every_number_but_not_a_pirate() -> None:
    """Seed 003: "The Mermaid is higher than all cards in the suits (also higher than the
    skull and crossbones flag), but is trumped by Pirate cards." """
    assert win(SK, "black-13", "mermaid-1", "yellow-13") == 1
    assert win(SK, "mermaid-1", "black-13") == 0
    assert win(SK, "mermaid-1", "pirate-1") == 1
    assert win(SK, "pirate-1", "mermaid-1") == 0
    assert win(SK, "mermaid-1", "scary-mary as pirate") == 1
    assert win(SK, "mermaid-1", "scary-mary as escape") == 0


@pytest.mark.parametrize(
    "specs",
    [
        ("skull-king", "mermaid-1"),
        ("mermaid-1", "skull-king"),
        ("skull-king", "pirate-1", "mermaid-1"),
        ("pirate-1", "skull-king", "pirate-2", "mermaid-2", "scary-mary as pirate"),
        ("black-13", "skull-king", "escape-1", "mermaid-1"),
        ("skull-king", "mermaid-2", "pirate-5", "mermaid-1"),
    ],
)
def test_mermaid_in_a_trick_with_the_skull_king_wins(specs: tuple[str, ...]) -> None:
    """Seed 003: "It is also higher than the Skull King because the latter lets himself be
    beguiled by her: If the Mermaid is in the same trick as the Skull King, the Mermaid always
    wins the trick (no matter which other cards are also in the trick) and the player
    receives an additional bonus." Page: "Skull King
    beats everything except that a Mermaid in the same trick as the Skull King wins the
    trick (whatever else is in it)". With two Mermaids the first one played takes it."""
    first_mermaid = next(
        i for i, s in enumerate(specs) if SK.cards.kind[SK.cards.index[s.split()[0]]] == MERMAID
    )
    assert win(SK, *specs) == first_mermaid


def test_pirate_beats_every_number_and_the_mermaid() -> None:
    """Seed 003: "These cards are higher than all the cards of a suit (irrespective of the
    suit or value) and the Mermaid." """
    assert win(SK, "black-13", "pirate-1") == 1
    assert win(SK, "yellow-1", "black-13", "pirate-3", "mermaid-1") == 2


def test_pirate_loses_only_three_ways() -> None:
    """Seed 003: "There are only 3 ways not to win any tricks with a Pirate card:
    • It is played after another Pirate card.
    • It is trumped by a Skull King played later, or it is played after the Skull King.
    • It is trumped by a Mermaid played in the same trick as the Skull King." """
    # After another Pirate (Scary Mary played as a Pirate is one).
    assert win(SK, "pirate-2", "pirate-1") == 0
    assert win(SK, "scary-mary as pirate", "pirate-1") == 0
    assert win(SK, "pirate-1", "scary-mary as pirate") == 0
    # The Skull King, later or earlier.
    assert win(SK, "pirate-1", "skull-king") == 1
    assert win(SK, "skull-king", "pirate-1") == 0
    # A Mermaid in the same trick as the Skull King.
    assert win(SK, "pirate-1", "skull-king", "mermaid-1") == 2
    # Any other company: the Pirate wins.
    assert win(SK, "escape-1", "black-13", "pirate-4", "mermaid-2", "escape-2") == 2


def test_two_pirates_the_first_wins() -> None:
    """Seed 003: "If 2 Pirate cards are played in a round, the card first played is higher
    and wins the trick." Page: "Otherwise the first Pirate wins"."""
    assert win(SK, "yellow-3", "pirate-5", "pirate-1", "black-13") == 1


def test_two_mermaids_the_first_wins() -> None:
    """Seed 003: "If 2 Mermaid cards are played in a round, the card first played is higher
    and wins the trick." Page: "otherwise the first Mermaid"."""
    assert win(SK, "black-13", "mermaid-2", "mermaid-1") == 1
    assert win(SK, "mermaid-1", "mermaid-2") == 0


def test_scary_mary_is_a_pirate_or_an_escape() -> None:
    """Seed 003: "The Scary Mary can be played either as a Pirate card or as an Escape card.
    When playing this card the player says in which function he wishes to use the Scary
    Mary." Page: "Scary Mary: the player says "pirate" or "escape" when playing it." """
    assert win(SK, "black-13", "scary-mary as pirate") == 1
    assert win(SK, "black-13", "scary-mary as escape") == 0
    assert win(SK, "scary-mary as escape", "yellow-1") == 1
    assert win(SK, "scary-mary as pirate", "skull-king") == 1


def test_skull_king_only_trumped_by_a_mermaid() -> None:
    """Seed 003: "The Skull King can only be trumped by a Mermaid. All other cards are lower
    than the Skull King." """
    for name in SK.cards.names:
        if name == "skull-king" or SK.cards.kind[SK.cards.index[name]] == MERMAID:
            continue
        specs = [f"{name} as pirate"] if name == "scary-mary" else [name]
        for spec in specs:
            assert win(SK, spec, "skull-king") == 1, spec
            assert win(SK, "skull-king", spec) == 0, spec


def test_classic_special_led_then_first_number_sets_the_suit() -> None:
    """Seed 003: "If the first card played is a special card, the next suit card to be played
    determines the suit to be followed for the further round." Page: "If a special card is
    led, the first numbered card played afterwards sets the suit." """
    deck = SK.cards
    assert (
        suit_led(deck, plays(SK, "escape-1", "red-3", "yellow-12"))
        == deck.suit[deck.index["red-3"]]
    )
    assert win(SK, "escape-1", "red-3", "yellow-12") == 1
    assert win(SK, "escape-1", "escape-2", "blue-2", "red-13", "blue-9") == 4
    # A character led does not stop the next number from setting the suit in this edition.
    assert suit_led(deck, plays(SK, "pirate-1", "red-3")) == deck.suit[deck.index["red-3"]]
    assert suit_led(deck, plays(SK, "escape-1", "pirate-1")) == -1


# -- bid-tricks (seed 002) -------------------------------------------------------------


def test_captain_beats_pirates() -> None:
    """Page: "the Captain beats Pirates". Seed 002: "The Captain 👑 beats Pirates." """
    assert win(BT, "pirate-1", "captain") == 1
    assert win(BT, "captain", "pirate-1", "rogue as pirate") == 0
    assert win(BT, "black-14", "pirate-2", "captain", "escape-1") == 2


def test_pirates_beat_mermaids_and_numbers() -> None:
    """Page: "Pirates beat Mermaids and numbers". Seed 002: "A Pirate ⚔️ beats Mermaids and
    numbers." """
    assert win(BT, "mermaid-1", "pirate-1") == 1
    assert win(BT, "black-14", "pirate-3") == 1
    assert win(BT, "mermaid-2", "black-14", "rogue as pirate") == 2


def test_mermaids_beat_every_number() -> None:
    """Page: "Mermaids beat every number". Seed 002: "A Mermaid 🧜 beats every number." """
    assert win(BT, "black-14", "mermaid-1") == 1
    assert win(BT, "green-14", "black-14", "purple-14", "mermaid-2") == 3


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (("captain", "mermaid-1"), 1),
        (("mermaid-1", "captain"), 0),
        (("pirate-1", "captain", "mermaid-1"), 2),
        (("captain", "pirate-1", "rogue as pirate", "mermaid-2", "mermaid-1"), 3),
        (("mermaid-2", "pirate-1", "captain", "mermaid-1"), 0),
    ],
)
def test_mermaid_captures_the_captain(specs: tuple[str, ...], expected: int) -> None:
    """Page: "a Mermaid captures the Captain: whenever both are in a trick the first Mermaid
    wins, Pirates or not." Seed 002: "A Mermaid captures the Captain: if a Pirate, the
    Captain and a Mermaid are all in a trick, the (first) Mermaid wins." """
    assert win(BT, *specs) == expected


def test_equal_specials_the_first_played_wins() -> None:
    """Page: "Equal specials: the first played wins." Seed 002: "Equal specials: the first one
    played wins." """
    assert win(BT, "pirate-3", "pirate-1") == 0
    assert win(BT, "rogue as pirate", "pirate-1") == 0
    assert win(BT, "pirate-5", "rogue as pirate") == 0
    assert win(BT, "green-2", "mermaid-2", "mermaid-1") == 1


def test_escapes_never_win_unless_all_are_escapes() -> None:
    """Seed 002: "An Escape 🏳️ never wins (all Escapes: the first one wins)." """
    assert win(BT, "escape-1", "green-1") == 1
    assert win(BT, "escape-2", "escape-1", "rogue as escape") == 0
    assert win(BT, "rogue as escape", "escape-1") == 0


def test_rogue_is_a_pirate_or_an_escape() -> None:
    """Page: "1 Rogue 🎭 (played as a Pirate or as an Escape — the player chooses)". Seed 002:
    "The Rogue 🎭 is played as a Pirate or as an Escape — you choose when you play it." """
    assert win(BT, "mermaid-1", "rogue as pirate") == 1
    assert win(BT, "mermaid-1", "rogue as escape") == 0
    assert win(BT, "green-1", "rogue as escape") == 0


def test_highest_black_beats_the_suit_led() -> None:
    """Page: "Highest black beats the suit led." Seed 002: "The highest card of the suit led
    wins, unless a black card was played (highest black wins)." and "Black ⚓ is trump." """
    assert win(BT, "green-14", "black-1") == 1
    assert win(BT, "green-3", "black-2", "green-14", "black-11", "purple-14") == 3
    assert win(BT, "purple-3", "green-14", "purple-9", "yellow-14") == 2


def test_character_led_means_no_suit() -> None:
    """Page: "If a special card is led there is no suit to follow; after an Escape the next
    numbered card sets the suit." Seed 002: "If a special card is led, there is no suit to
    follow; after an Escape, the next numbered card sets the suit." """
    deck = BT.cards
    green = deck.suit[deck.index["green-3"]]
    for lead in ("pirate-1", "mermaid-1", "captain", "rogue as pirate"):
        assert suit_led(deck, plays(BT, lead, "green-3", "purple-9")) == -1, lead
    for lead in ("escape-1", "rogue as escape"):
        assert suit_led(deck, plays(BT, lead, "green-3", "purple-9")) == green, lead
        assert win(BT, lead, "green-3", "purple-9") == 1
    assert suit_led(deck, plays(BT, "escape-1", "escape-2", "green-3")) == green
    # Our reading of "after an Escape the next numbered card sets the suit": a character
    # played after a led Escape does not cancel the suit; the next number still sets it.
    assert suit_led(deck, plays(BT, "escape-1", "pirate-1", "green-3")) == green
    assert suit_led(deck, plays(BT, "green-3", "pirate-1")) == green


@pytest.mark.parametrize("game", [SK, BT], ids=["skull-king", "bid-tricks"])
def test_off_suit_numbers_never_win(game: SkullKing) -> None:
    """Page: "otherwise the highest card of the suit led" -- a number of another colour (not
    black) never takes a trick, whatever its value."""
    top = game.edition.top_rank
    suits = game.edition.suits
    for led in suits[:3]:
        for other in suits[:3]:
            if other != led:
                assert win(game, f"{led}-1", f"{other}-{top}", f"{other}-{top - 1}") == 0
