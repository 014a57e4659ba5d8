"""Cards an effect placed in a play zone without revealing them -- a retrieved card, a Loot
card drawn, a card another player gave -- against the seed's sentences on Copy, Give and
sinking (edition 2 of the rules: README.md, "Editions")."""

from __future__ import annotations

from engines.pirate_king.moves import SeatMove
from engines.pirate_king.state import REVEALING, STOPPED, SUNK
from engines.pirate_king.table import Table

from .helpers import GAME, arrange, beat, c, decide, names, zone


def test_a_given_card_stays_with_a_sunk_receiver_until_the_end_of_the_round() -> None:
    """Give: "Place this card in another pirate's play zone until the end of the round.
    Remember to retrieve it"; sinking: "All the cards revealed so far in your play zone
    are sent to your discard pile". Wilson was placed, not revealed, by the receiver: when
    it sinks its own cards go to its discard, Wilson stays in its zone, still the giver's,
    and goes back to the giver at the end of the round."""
    s = arrange(
        zones={1: ["cutlass-2", "gold-tooth-2"], 2: ["deckhand-3a"]},
        piles={0: ["wilson"], 1: [], 2: []},
        status=[REVEALING, STOPPED, STOPPED],
    )
    s = beat(s)
    s = decide(s, {0: SeatMove("give", 1)})
    assert s.status[1] == SUNK
    assert zone(s, 1) == ["wilson"] and s.zones[1][0].giver == 0
    assert "wilson" not in names(s.discards[1])
    assert c("wilson") in Table(s).owned(0) and c("wilson") not in Table(s).owned(1)
    assert GAME.view(s, None)["table"][1]["curses"] == 0  # sunk: nothing counts any more
    assert GAME.prompt(s).kind == "monster"  # nobody reveals any more: battle, loot
    while s.round == 1:
        (seat,) = GAME.prompt(s).seats
        s = decide(s, {seat: GAME.legal(s, seat)[0]})
    w = c("wilson")  # back in seat 0's discard, reshuffled into its empty pile, revealed
    assert w in s.discards[0] or w in s.piles[0] or w in [e.card for e in s.zones[0]]
    assert w not in s.discards[1] + s.piles[1] and w in Table(s).owned(0)


def test_a_copy_passes_over_a_retrieved_card() -> None:
    """Copy: "This card copies the previously revealed card"; Retrieve: "Place a card of
    your choice from your discard pile into your personal play zone" -- placed, not
    revealed. Gary retrieves Admiral Navy; the Parrot revealed next copies Gary (and
    retrieves in turn: the discard is empty, so it may reveal the top card), not Navy's 2
    swords."""
    s = arrange(piles={0: ["gary", "parrot-1", "deckhand-1a"]}, discards={0: ["navy"]})
    s = beat(s)
    assert zone(s, 0) == ["gary", "navy"] and s.zones[0][1].placed
    s = beat(s)
    assert zone(s, 0) == ["gary", "navy", "parrot-1"]
    assert s.zones[0][2].copy == c("gary")
    assert {str(m) for m in GAME.legal(s, 0)} == {"reveal", "pass"}
    assert GAME.view(s, 0)["table"][0]["zone"][1]["placed"] is True


def test_a_copy_passes_over_a_looted_card() -> None:
    """Copy: "This card copies the previously revealed card"; Loot: "Draw the top card of
    the Loot pile and place it face up in your play zone". Red's Flintlock was placed: the
    Parrot after it copies Red and draws another Loot card."""
    s = arrange(
        piles={0: ["red", "parrot-1", "deckhand-1a"]},
        loot_pile=["flintlock-1", "doubloons-1", "jewel-chest-1"],
    )
    s = beat(s)
    assert zone(s, 0) == ["red", "flintlock-1"]
    s = beat(s)
    assert zone(s, 0) == ["red", "flintlock-1", "parrot-1", "doubloons-1"]
    assert s.zones[0][2].copy == c("red")
    assert names(s.loot_pile) == ["jewel-chest-1"]


def test_a_copy_passes_over_a_given_card() -> None:
    """Copy: "This card copies the previously revealed card"; Give: "Place this card in
    another pirate's play zone". Wilson given to seat 1 was placed there: seat 1's Parrot
    copies the Deckhand seat 1 revealed before him -- so it gives nothing, and seat 1's own
    Loot card stays in seat 1's zone (copying Wilson, it would have gone to seat 0)."""
    s = arrange(2, piles={0: ["wilson", "deckhand-1a"], 1: ["deckhand-2a", "parrot-1"]})
    s = beat(s)
    assert zone(s, 1) == ["deckhand-2a", "wilson"] and s.zones[1][1].giver == 0
    s = beat(s)
    assert zone(s, 1) == ["deckhand-2a", "wilson", "parrot-1"]
    assert s.zones[1][2].copy == c("deckhand-2a") and s.zones[1][2].giver == -1
    assert zone(s, 0) == ["deckhand-1a"]
    assert Table(s).swords(1) == 2
