"""Every effect of the seed, resolved from the card data ("Card Effects", seed page 7)."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from engines.pirate_king.moves import CardMove, Do, SeatMove, Stack
from engines.pirate_king.state import CHOOSE, GIVE, LOOK, REVEALING, STOPPED, SUNK
from engines.pirate_king.table import Table

from .helpers import GAME, arrange, beat, c, decide, names, plain, zone


def test_reveal_chains() -> None:
    """Reveal: "Reveal a card from your pile for each symbol you have revealed. These cards
    can chain and force you to keep revealing new cards." (Powder Keg: Reveal 1, Treasure
    Map: Reveal 2.)"""
    s = arrange(
        piles={0: ["powder-keg-1", "treasure-map-1", "deckhand-1a", "coin-purse-1a", "cutlass-1"]}
    )
    s = beat(s)
    assert zone(s, 0) == ["powder-keg-1", "treasure-map-1", "deckhand-1a", "coin-purse-1a"]
    assert names(s.piles[0]) == ["cutlass-1"]
    assert zone(s, 1) == ["deckhand-2a"]  # the others revealed one card


def test_copy_copies_the_previous_card_symbols_and_effect() -> None:
    """Copy: "This card copies the previously revealed card, including all its symbols and
    effects." A Parrot after a Cutlass shows 2 swords and 1 curse; after a Powder Keg it
    reveals another card."""
    s = arrange(zones={0: ["cutlass-1"]}, piles={0: ["parrot-1", "deckhand-1a"]})
    s = beat(s)
    t = Table(s)
    assert t.swords(0) == 4 and t.curses(0) == 2
    assert s.zones[0][1].copy == c("cutlass-1")
    s = arrange(zones={0: ["powder-keg-1"]}, piles={0: ["parrot-1", "deckhand-1a", "grog-1"]})
    s = beat(s)
    assert zone(s, 0) == ["powder-keg-1", "parrot-1", "deckhand-1a"]


def test_copy_of_a_face_down_card_copies_nothing() -> None:
    """Flip: a face-down card "loses ALL its properties" -- **house**: so a Copy after it
    copies nothing."""
    s = arrange(zones={0: ["cutlass-1 down"]}, piles={0: ["parrot-1"]})
    s = beat(s)
    assert s.zones[0][1].copy == -1
    assert Table(s).swords(0) == 0


def test_look_is_the_owners_decision_and_only_the_owner_sees() -> None:
    """Look: "Look at the top cards of your pile, equal to the number of symbols. Then put
    them back on top in the order of your choice." (Spyglass: Look 2.) One owner: an open
    prompt; its view shows the cards, nobody else's does."""
    s = arrange(piles={0: ["spyglass-1", "cutlass-1", "grog-1", "deckhand-1a"]})
    s = beat(s)
    prompt = GAME.prompt(s)
    assert prompt.seats == (0,) and prompt.kind == "look" and not prompt.sealed
    assert s.pending[0] is not None and s.pending[0].kind == LOOK
    assert GAME.view(s, 0)["known"] == ["cutlass-1", "grog-1"]
    for seat in (1, 2, None):
        text = str(GAME.view(s, seat))
        assert "cutlass-1" not in text and "grog-1" not in text
    assert set(map(str, GAME.legal(s, 0))) == {"stack cutlass-1 grog-1", "stack grog-1 cutlass-1"}
    s = decide(s, {0: Stack(("grog-1", "cutlass-1"))})
    assert names(s.piles[0]) == ["grog-1", "cutlass-1", "deckhand-1a"]
    assert GAME.view(s, 0)["known"] == ["grog-1", "cutlass-1"]
    s = beat(s)
    assert zone(s, 0)[-1] == "grog-1"
    assert GAME.view(s, 0)["known"] == ["cutlass-1"]  # only what it looked at, still on top


def test_flip_turns_a_curse_card_face_down() -> None:
    """Flip: "Turn face down a card in your personal play zone that contains the symbol
    indicated" -- it "stays in your play zone, but loses ALL its properties". Several
    candidates: the owner chooses."""
    s = arrange(zones={0: ["cutlass-1", "grog-1"]}, piles={0: ["lucky-charm-1"]})
    s = beat(s)
    assert {str(m) for m in GAME.legal(s, 0)} == {"flip cutlass-1", "flip grog-1"}
    s = decide(s, {0: CardMove("flip", "grog-1")})
    t = Table(s)
    assert zone(s, 0) == ["cutlass-1", "grog-1", "lucky-charm-1"]
    assert t.curses(0) == 1 and t.swords(0) == 2 and t.gold(0) == 0


def test_flip_with_one_candidate_needs_no_decision() -> None:
    """A decision with one option is applied at once: Inquisitor Yellow flips the only
    curse card."""
    s = arrange(zones={0: ["gold-tooth-1"]}, piles={0: ["yellow"]})
    s = beat(s)
    assert GAME.prompt(s).kind == "reveal"
    assert not s.zones[0][0].up and Table(s).curses(0) == 0


def test_faq3_a_flip_saves_a_player() -> None:
    """FAQ 3: "If I reveal a third Curse that would make me "sink", but an effect lets me
    flip that same card face down, can I continue or have I "sunk"? You do not "sink" until
    all the card effects have been resolved." A Treasure Map reveals the third curse (Grog)
    and then a Lucky Charm, which flips the Grog."""
    s = arrange(
        zones={0: ["cutlass-1", "gold-tooth-1"]},
        piles={0: ["treasure-map-1", "grog-1", "lucky-charm-1", "deckhand-1a"]},
    )
    s = beat(s)
    assert GAME.prompt(s).kind == "flip"
    s = decide(s, {0: CardMove("flip", "grog-1")})
    assert s.status[0] == REVEALING
    assert Table(s).curses(0) == 2


def test_faq3_an_opponents_effect_sinks_a_player() -> None:
    """FAQ 3: "or that someone else can make you "sink" when you seemed to be safe." Seat 0
    reveals a Deckhand and stays at two curses; seat 1's Shadow Sea Witch ("other players:
    Reveal 1") then makes it reveal a Grog: it sinks, its zone goes to its discard."""
    s = arrange(
        zones={0: ["cutlass-1", "gold-tooth-1"]},
        piles={0: ["deckhand-1a", "grog-1"], 1: ["sea-witch", "deckhand-2a"]},
        status=[REVEALING, REVEALING, STOPPED],
    )
    s = beat(s)
    assert s.status[0] == SUNK
    assert zone(s, 0) == []
    assert sorted(names(s.discards[0])) == ["cutlass-1", "deckhand-1a", "gold-tooth-1", "grog-1"]
    assert Table(s).swords(0) == -1 and Table(s).gold(0) == -1


def test_an_other_players_reveal_spares_the_stopped() -> None:
    """FAQ 2: "if you have "decided to stop", you can no longer reveal other cards until the
    next round" -- the Witch's "other players: Reveal 1" makes only those still revealing
    reveal; seat 0, stopped at two curses, is safe (sinking them is Wilson's: "Place", not
    reveal -- test_give_can_sink_a_stopped_player)."""
    s = arrange(
        zones={0: ["cutlass-1", "gold-tooth-1"]},
        piles={0: ["grog-1"], 1: ["sea-witch", "deckhand-2a"], 2: plain(2)},
        status=[STOPPED, REVEALING, REVEALING],
    )
    s = beat(s)
    assert s.status[0] == STOPPED and zone(s, 0) == ["cutlass-1", "gold-tooth-1"]
    assert names(s.piles[0]) == ["grog-1"]
    assert zone(s, 2) == ["deckhand-3a", "coin-purse-3a"]  # its beat, then the Witch's


def test_sinking_is_judged_after_the_beat_and_costs_everything() -> None:
    """ "SINK: when you reveal a third Curse. ... All the cards revealed so far in your play
    zone are sent to your discard pile, and you lose all the swords and gold"."""
    s = arrange(zones={0: ["cutlass-1", "gold-tooth-1"]}, piles={0: ["grog-1", "deckhand-1a"]})
    s = beat(s)
    assert s.status[0] == SUNK
    assert names(s.discards[0]) == ["cutlass-1", "gold-tooth-1", "grog-1"]
    assert GAME.prompt(s).seats == (1, 2)  # a sunk player reveals no more


def test_gain_counts_symbols_in_the_zone() -> None:
    """Gain: "Obtain as many swords and/or gold as the effect indicates for each symbol
    present in your personal play zone." Cook Rossy: 1 gold per curse; Cannon: 1 sword per
    curse; Merchant Scales: 1 gold per Loot card (itself included)."""
    s = arrange(zones={0: ["cutlass-1", "gold-tooth-1"]}, piles={0: ["rossy"]})
    s = beat(s)
    assert Table(s).gold(0) == 2 + 1 + 2
    s = arrange(zones={0: ["cutlass-1", "gold-tooth-1 down"]}, piles={0: ["cannon-1"]})
    s = beat(s)
    assert Table(s).swords(0) == 2 + 1  # the face-down curse does not count
    s = arrange(zones={0: ["flintlock-1", "doubloons-1"]}, piles={0: ["merchant-scales-1"]})
    s = beat(s)
    assert Table(s).gold(0) == 2 + 3
    # Only face-up Loot cards: not a Deckhand, not a Loot card turned face down.
    s = arrange(
        zones={0: ["deckhand-1a", "doubloons-1", "flintlock-1 down"]},
        piles={0: ["merchant-scales-1"]},
    )
    s = beat(s)
    assert Table(s).gold(0) == 2 + 2  # the Doubloons, and Doubloons + Scales counted


def test_captain_effect_takes_the_token() -> None:
    """Captain: "Take the Captain token and place it in front of you. You are now
    Captain!" """
    s = arrange(piles={2: ["scarlette", "deckhand-3a"]}, captain=0)
    s = beat(s)
    assert s.captain == 2
    assert GAME.view(s, None)["captain"] == 2


def test_choose_reveals_one_and_discards_the_other() -> None:
    """Choose: "Look at the top two cards of your pile: reveal one in your personal play
    zone and discard the other." The revealed card resolves (a Powder Keg reveals on)."""
    s = arrange(piles={0: ["violette", "cutlass-1", "powder-keg-1", "coin-purse-1a"]})
    s = beat(s)
    assert s.pending[0] is not None and s.pending[0].kind == CHOOSE
    assert {str(m) for m in GAME.legal(s, 0)} == {"choose cutlass-1", "choose powder-keg-1"}
    assert GAME.view(s, 0)["known"] == ["cutlass-1", "powder-keg-1"]
    s = decide(s, {0: CardMove("choose", "powder-keg-1")})
    assert zone(s, 0) == ["violette", "powder-keg-1", "coin-purse-1a"]
    assert names(s.discards[0]) == ["cutlass-1"]


def test_retrieve_from_the_discard() -> None:
    """Retrieve: "Place a card of your choice from your discard pile into your personal play
    zone." """
    s = arrange(piles={0: ["gary"]}, discards={0: ["grog-1", "powder-keg-1"]})
    s = beat(s)
    assert {str(m) for m in GAME.legal(s, 0)} == {"retrieve grog-1", "retrieve powder-keg-1"}
    s = decide(s, {0: CardMove("retrieve", "grog-1")})
    assert zone(s, 0) == ["gary", "grog-1"]
    assert names(s.discards[0]) == ["powder-keg-1"]


def test_a_retrieved_card_is_placed_not_revealed() -> None:
    """Step 2: "If a revealed card has an effect, resolve it"; Retrieve only says "Place a
    card ... into your personal play zone", while Loot says of its placed card "If this card
    has an effect, resolve it immediately". A retrieved Powder Keg (1 sword, Reveal 1)
    brings its sword, not its reveal."""
    s = arrange(piles={0: ["gary", "deckhand-1a"]}, discards={0: ["grog-1", "powder-keg-1"]})
    s = beat(s)
    s = decide(s, {0: CardMove("retrieve", "powder-keg-1")})
    assert zone(s, 0) == ["gary", "powder-keg-1"]
    assert names(s.piles[0]) == ["deckhand-1a"]
    assert Table(s).swords(0) == 2


def test_retrieve_without_a_discard_may_reveal() -> None:
    """ "If you have no discard pile, you may reveal the top card of your pile." -- reveal
    or pass."""
    s = arrange(piles={0: ["gary", "deckhand-1a", "coin-purse-1a"]})
    s = beat(s)
    assert {str(m) for m in GAME.legal(s, 0)} == {"reveal", "pass"}
    revealed = decide(s, {0: Do("reveal")})
    assert zone(revealed, 0) == ["gary", "deckhand-1a"]
    passed = decide(s, {0: Do("pass")})
    assert zone(passed, 0) == ["gary"]


def test_give_places_the_card_in_another_zone() -> None:
    """Give: "Place this card in another pirate's play zone until the end of the round."
    Wilson's curse leaves the giver and counts for the receiver."""
    s = arrange(piles={0: ["wilson", "deckhand-1a"]})
    s = beat(s)
    assert s.pending[0] is not None and s.pending[0].kind == GIVE
    assert {str(m) for m in GAME.legal(s, 0)} == {"give 1", "give 2"}
    s = decide(s, {0: SeatMove("give", 2)})
    assert zone(s, 0) == [] and zone(s, 2) == ["deckhand-3a", "wilson"]
    assert s.zones[2][1].giver == 0
    assert Table(s).curses(2) == 1 and Table(s).curses(0) == 0
    assert GAME.view(s, 1)["table"][2]["zone"][1]["given_by"] == 0


def test_give_can_sink_a_stopped_player() -> None:
    """FAQ 3, "someone else can make you sink": Wilson given to a stopped player with two
    curses sinks it once the beat has resolved."""
    s = arrange(
        zones={1: ["cutlass-2", "gold-tooth-2"]},
        piles={0: ["wilson", "deckhand-1a"]},
        status=[REVEALING, STOPPED, REVEALING],
    )
    s = beat(s)
    s = decide(s, {0: SeatMove("give", 1)})
    assert s.status[1] == SUNK
    assert names(s.discards[1]) == ["cutlass-2", "gold-tooth-2"]


def test_loot_draws_from_the_loot_pile_and_resolves() -> None:
    """Loot: "Draw the top card of the Loot pile and place it face up in your play zone. If
    this card has an effect, resolve it immediately. The card belongs to you for the rest of
    the game." """
    s = arrange(
        piles={0: ["red", "deckhand-1a", "coin-purse-1a"]},
        loot_pile=["powder-keg-1", "flintlock-1"],
    )
    s = beat(s)
    assert zone(s, 0) == ["red", "powder-keg-1", "deckhand-1a"]
    assert names(s.loot_pile) == ["flintlock-1"]


def test_other_players_effects_resolve_after_the_others() -> None:
    """ "If you see the "other players" icon next to an effect, it means the effect applies
    to the other players, but not to you. These effects are resolved after all other
    effects around the table." Seat 0's Powder Keg reveals before seat 1's Witch makes
    seat 0 reveal again; the Witch's owner reveals nothing more."""
    s = arrange(
        piles={
            0: ["powder-keg-1", "deckhand-1a", "coin-purse-1a", "grog-1"],
            1: ["sea-witch", "deckhand-2a"],
        }
    )
    s = beat(s)
    assert zone(s, 0) == ["powder-keg-1", "deckhand-1a", "coin-purse-1a"]
    assert zone(s, 1) == ["sea-witch"]
    assert zone(s, 2) == ["deckhand-3a", "coin-purse-3a"]


def test_a_copy_of_an_other_players_effect() -> None:
    """Copy copies "all its symbols and effects" -- the "other players" icon too: a Parrot
    after the Witch makes the other players reveal one more card."""
    s = arrange(zones={2: ["sea-witch"]}, piles={2: ["parrot-1", "deckhand-3a"]})
    s = beat(s)
    assert zone(s, 0) == ["deckhand-1a", "coin-purse-1a"]
    assert zone(s, 1) == ["deckhand-2a", "coin-purse-2a"]
    assert zone(s, 2) == ["sea-witch", "parrot-1"]


def test_other_players_effects_clockwise_from_the_captain() -> None:
    """ "If, during a turn, several effects apply to other players, they are resolved
    clockwise, starting with the pirate who holds the Captain token." Two such effects wait,
    seat 1's and seat 2's; the Captain is seat 2, so seat 2's goes first: seats 0 and 1
    reveal, seat 1 reveals Wilson and owes its Give decision before seat 1's effect has
    made seat 2 reveal anything. (The house card list has one Witch, so two owners' effects
    meet only in such a position: it is set on the table directly.)"""
    s = arrange(
        piles={1: ["wilson", "deckhand-2a"], 2: ["deckhand-3a"]},
        captain=2,
    )
    t = Table(s)
    t.others = [(1, c("sea-witch")), (2, c("sea-witch"))]
    assert t.settle() is False
    assert [e.card for e in t.zones[1]] == [c("wilson")]
    assert t.zones[2] == [] and len(t.zones[0]) == 1
    assert t.pending[1] is not None and t.pending[1].kind == GIVE
    t.pending[1] = None
    t.give(1, c("wilson"), 0)
    assert t.settle() is True
    assert [e.card for e in t.zones[2]] == [c("deckhand-3a")]
    assert [e.card for e in t.zones[0]] == [c("deckhand-1a"), c("wilson"), c("coin-purse-1a")]


def test_clockwise_means_increasing_seats_from_the_captain() -> None:
    """ "they are resolved clockwise, starting with the pirate who holds the Captain token",
    with four players so that clockwise and its reverse differ: the Captain is seat 1 and
    seats 0 and 2 each have an "other players" effect waiting. Clockwise from seat 1 comes
    seat 2 first (1, 2, 3, 0): seat 0 reveals Wilson and owes its Give while its own effect
    still waits -- seat 2 has revealed nothing yet."""
    s = arrange(4, piles={0: ["wilson", "deckhand-1a"], 2: ["deckhand-3a"]}, captain=1)
    t = Table(s)
    assert t.clockwise() == [1, 2, 3, 0]
    t.others = [(0, c("sea-witch")), (2, c("sea-witch"))]
    assert t.settle() is False
    assert [e.card for e in t.zones[0]] == [c("wilson")]
    assert t.pending[0] is not None and t.pending[0].kind == GIVE
    assert t.zones[2] == [] and len(t.zones[1]) == len(t.zones[3]) == 1


def test_a_copy_after_a_copy_copies_what_it_copied() -> None:
    """**house**: a Copy after a Copy copies "the previously revealed card, including all its
    symbols" -- the symbols it shows, those of the card it copied."""
    s = arrange(zones={0: ["navy", "parrot-1"]}, piles={0: ["parrot-2"]})
    copied = msgspec.structs.replace(s.zones[0][1], copy=c("navy"))
    s = msgspec.structs.replace(s, zones=((s.zones[0][0], copied), (), ()))
    s = beat(s)
    assert s.zones[0][2].copy == c("navy")
    assert GAME.view(s, 1)["table"][0]["zone"][2]["copy"] == "navy"
    assert Table(s).swords(0) == 6


def test_retrieve_with_one_card_in_the_discard_takes_it() -> None:
    """A decision with one option is applied at once: Gary retrieves the only discarded
    card."""
    s = arrange(piles={0: ["gary"]}, discards={0: ["cutlass-1"]})
    s = beat(s)
    assert zone(s, 0) == ["gary", "cutlass-1"] and s.discards[0] == ()
    assert GAME.prompt(s).kind == "reveal"


def test_give_with_one_other_player_needs_no_decision() -> None:
    """Two players: Wilson goes to the only other pirate without a question."""
    s = arrange(2, piles={0: ["wilson", "deckhand-1a"]})
    s = beat(s)
    assert zone(s, 1) == ["deckhand-2a", "wilson"] and s.zones[1][1].giver == 0
    assert GAME.prompt(s).kind == "reveal"


def test_a_given_card_still_belongs_to_its_giver_during_the_round() -> None:
    """Give: "until the end of the round" -- until then Wilson is the giver's card, not the
    receiver's."""
    s = arrange(2, piles={0: ["wilson", "deckhand-1a"]})
    s = beat(s)
    assert c("wilson") in Table(s).owned(0) and c("wilson") not in Table(s).owned(1)


def test_after_choose_nothing_on_top_is_known() -> None:
    """Choose takes both looked-at cards off the pile: the owner knows nothing of the new
    top."""
    s = arrange(piles={0: ["violette", "cutlass-1", "grog-1", "deckhand-1a"]})
    s = beat(s)
    s = decide(s, {0: CardMove("choose", "cutlass-1")})
    assert s.known[0] == 0 and GAME.view(s, 0)["known"] == []
    assert "deckhand-1a" in GAME.hidden(s, 0)


def test_a_sunk_player_shows_no_curses_and_minus_one() -> None:
    """A sunk player "will choose after those who have 0 swords and 0 gold": its view
    line shows -1 / -1 and an empty zone."""
    s = arrange(zones={0: ["cutlass-1", "gold-tooth-1"]}, piles={0: ["grog-1", "deckhand-1a"]})
    s = beat(s)
    line = GAME.view(s, None)["table"][0]
    assert (line["swords"], line["gold"], line["curses"], line["zone"]) == (-1, -1, 0, [])
    assert line["status"] == "sunk"
    # The others' lines count their visible curses (the table warns at two).
    line = GAME.view(s, None)["table"][1]
    assert line["status"] == "revealing" and line["curses"] == Table(s).curses(1)
    s = beat(arrange(zones={1: ["cutlass-2", "gold-tooth-2"]}), stop=[1])
    assert [GAME.view(s, x)["table"][1]["curses"] for x in (None, 0, 1)] == [2, 2, 2]


def test_look_at_a_short_pile_looks_at_what_is_there() -> None:
    """**house**: Look "at the top cards of your pile, equal to the number of symbols" with
    fewer cards in the pile looks at those only -- looking is not drawing ("When you have no
    more cards to draw"), so nothing is reshuffled; one card has one order, so no question."""
    s = arrange(
        zones={0: ["deckhand-1a"]},
        piles={0: ["compass-1", "grog-1", "cutlass-1"]},
        discards={0: ["coin-purse-1a"]},
    )
    made = s.shuffles[0]
    s = beat(s)  # Compass: Look 3, two cards left
    assert s.pending[0] is not None and s.pending[0].n == 2
    assert set(map(str, GAME.legal(s, 0))) == {"stack grog-1 cutlass-1", "stack cutlass-1 grog-1"}
    assert names(s.discards[0]) == ["coin-purse-1a"] and s.shuffles[0] == made
    s = arrange(piles={0: ["compass-1", "grog-1"]}, discards={0: ["coin-purse-1a"]})
    s = beat(s)
    assert s.pending[0] is None and GAME.view(s, 0)["known"] == ["grog-1"]
    assert names(s.discards[0]) == ["coin-purse-1a"]


def test_loot_from_an_empty_loot_pile_gives_nothing() -> None:
    """**house**: Red's "Draw the top card of the Loot pile" with the Loot pile used up draws
    nothing (the seed has no more Loot to give)."""
    s = arrange(piles={0: ["red", "deckhand-1a"]}, loot_pile=[])
    s = beat(s)
    assert zone(s, 0) == ["red"] and s.loot_pile == ()


def test_effects_flipped_together_resolve_alike_in_any_order() -> None:
    """**house**: the effects of cards flipped at the same moment resolve seat by seat
    clockwise from the Captain (the seed only says "resolve it before anyone reveals another
    card"). With the house card list no two of them act on the same thing -- Red alone draws
    Loot, Scarlette alone takes the token, a placed card resolves nothing -- so whoever is
    Captain, the beat ends the same: here Scarlette's seat takes the token either way."""
    ends = []
    for captain in (0, 1, 2):
        s = arrange(
            piles={
                0: ["red", "deckhand-1a"],
                1: ["scarlette", "powder-keg-2", "deckhand-2a"],
                2: ["treasure-map-1", "deckhand-3a", "coin-purse-3a"],
            },
            loot_pile=["flintlock-1", "doubloons-1"],
            captain=captain,
        )
        s = beat(s)
        ends.append((s.zones, s.loot_pile, s.captain))
    assert ends[0] == ends[1] == ends[2]
    assert ends[0][2] == 1


def test_gain_the_seeds_example_two_gold_per_skull(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seed's Gain example: "Obtain as many swords and/or gold as the effect indicates
    for each symbol present in your personal play zone. (Example icons show: a skull symbol
    = 2 gold ...)". No house card carries that one, so Cook Rossy's data is changed to it
    (``{"kind": "gain", "gain": "gold", "per": "curse", "n": 2}``): the same code resolves
    it from the data -- two curses in the zone, four gold -- and Cannon's "1 sword per
    curse" is the seed's "1 sword" icon read per curse."""
    from engines.pirate_king import cards, effects, holdings, table

    rossy = cards.CARDS[c("rossy")]
    example = cards._effect({"kind": "gain", "gain": "gold", "per": "curse", "n": 2})
    patched = list(cards.CARDS)
    patched[rossy.id] = dataclasses.replace(rossy, effect=example)
    for module in (holdings, effects, table):  # every module that reads the card data
        monkeypatch.setattr(module, "CARDS", tuple(patched))
    s = arrange(zones={0: ["cutlass-1", "gold-tooth-1"]}, piles={0: ["rossy"]})
    s = beat(s)
    assert Table(s).gold(0) == 2 + (1 + 2 * 2)  # Gold Tooth, Rossy's own gold, 2 x 2 curses
    s = arrange(zones={0: ["cutlass-1", "grog-1"]}, piles={0: ["cannon-1"]})
    s = beat(s)
    assert Table(s).swords(0) == 2 + 1 + 2  # Cutlass, Grog, 1 per curse


def test_a_looted_card_stays_its_drawers_for_the_rest_of_the_game() -> None:
    """Loot: "The card belongs to you for the rest of the game": once the round is over,
    the Powder Keg Red drew is in seat 0's discard with the rest of its zone (owned, counted
    at the end), not back in the Loot pile or the row."""
    s = arrange(
        piles={0: ["red", "deckhand-1a"], 1: [], 2: []},
        loot_pile=["powder-keg-1", "flintlock-1"],
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-2", "parrot-1"],
    )
    s = beat(s, stop=[1, 2])
    assert "powder-keg-1" in zone(s, 0)
    while s.round == 1:
        prompt = GAME.prompt(s)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        moves = {x: Do("stop") if prompt.kind == "reveal" else GAME.legal(s, x)[0] for x in seats}
        s = GAME.step(s, moves)
    keg = c("powder-keg-1")
    assert keg in Table(s).owned(0)
    assert keg not in s.loot_pile and keg not in s.loot_row
    assert all(keg not in Table(s).owned(x) for x in (1, 2))


def test_starred_effects_are_only_on_pirates() -> None:
    """The seed: "The symbols marked with a star icon are only present on Pirate cards" --
    the page marks Captain, Choose, Give, Retrieve and Loot with a star: no other card of the
    house list carries one of them."""
    from engines.pirate_king.cards import CARDS, PIRATE

    starred = {"captain", "choose", "give", "retrieve", "loot"}
    on = {c.effect.kind: set() for c in CARDS if c.effect} | {k: set() for k in starred}
    for card in CARDS:
        if card.effect:
            on[card.effect.kind].add(card.type)
    for kind in starred:
        assert on[kind] == {PIRATE}, (kind, on[kind])
    assert {"reveal", "copy", "look", "flip", "gain"} <= {k for k, t in on.items() if t - {PIRATE}}


def _effects(s: object, seat: int) -> list[bool]:
    return [e.effect for e in s.zones[seat]]  # type: ignore[attr-defined]


def test_cards_an_effect_placed_are_marked_for_their_column() -> None:
    """FAQ 1: "place the simultaneously revealed cards in a row going from left to right.
    But when an effect forces you to reveal or place new cards in your personal play zone,
    integrate them in columns, partially covering the others." Each card in a zone says
    whether an effect put it there (the table stacks those under the card before them):
    a Reveal's cards, another player's Reveal, Choose, Loot, Retrieve and a given card --
    and every view shows it."""
    s = arrange(
        zones={0: ["cutlass-1"]},
        piles={0: ["powder-keg-1", "treasure-map-1", "deckhand-1a", "coin-purse-1a", "grog-1"]},
    )
    s = beat(s)
    assert zone(s, 0) == [
        "cutlass-1",
        "powder-keg-1",
        "treasure-map-1",
        "deckhand-1a",
        "coin-purse-1a",
    ]
    assert _effects(s, 0) == [False, False, True, True, True]  # the beat's card, then Reveals
    assert _effects(s, 1) == [False]  # the others' beat cards: a row
    assert [e["effect"] for e in GAME.view(s, 2)["table"][0]["zone"]] == _effects(s, 0)
    # Another player's Reveal ("other players: Reveal 1"): the victim's card is in a column.
    s = arrange(piles={1: ["sea-witch", "deckhand-2a"], 2: plain(2)})
    s = beat(s)
    assert _effects(s, 2) == [False, True]
    # Choose, Loot, Retrieve: placed by the effect.
    s = arrange(piles={0: ["violette", "cutlass-1", "powder-keg-1", "coin-purse-1a"]})
    s = decide(beat(s), {0: CardMove("choose", "powder-keg-1")})
    assert _effects(s, 0) == [False, True, True]  # Violette, her choice, its Reveal
    s = arrange(
        piles={0: ["red", "deckhand-1a", "coin-purse-1a"]},
        loot_pile=["powder-keg-1", "flintlock-1"],
    )
    assert _effects(beat(s), 0) == [False, True, True]  # Red, the Loot card, its Reveal
    s = arrange(piles={0: ["gary"]}, discards={0: ["grog-1", "powder-keg-1"]})
    s = decide(beat(s), {0: CardMove("retrieve", "grog-1")})
    assert zone(s, 0) == ["gary", "grog-1"] and _effects(s, 0) == [False, True]
    # A given card lands in another zone as placed, not as that zone's beat card.
    s = arrange(piles={0: ["wilson", "deckhand-1a"]})
    s = decide(beat(s), {0: SeatMove("give", 2)})
    assert zone(s, 2) == ["deckhand-3a", "wilson"] and _effects(s, 2) == [False, True]
