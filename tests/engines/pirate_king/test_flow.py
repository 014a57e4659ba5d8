"""Set-up, the beats, battle, loot, ties, the round's end, the 2-player variant."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from engines.core import BadOptions, IllegalMove
from engines.pirate_king.cards import CARDS, LOOT_IDS, MONSTER_IDS, NAMES, PIRATE_IDS
from engines.pirate_king.moves import Do, Order, Pick, SeatMove, Take
from engines.pirate_king.state import (
    BATTLE,
    LOOT,
    PICK,
    PLAY,
    STOPPED,
    SUNK,
    State,
)
from engines.pirate_king.table import Table
from engines.rng import Rng

from .helpers import GAME, SEED, arrange, beat, c, decide, names, picked, plain, zone

# -- the cards --------------------------------------------------------------------------


def test_house_card_list() -> None:
    """The page: "Starting deck (one per player, 8 cards) ... Monsters (14) ... Loot (45)";
    the seed: "10 Pirate cards, 45 Loot cards, 14 Monster cards, 5 starting decks (8 starting
    cards per deck)"."""
    deck = GAME.deck(GAME.options(), 5)
    assert len(deck) == len(set(deck)) == 5 * 8 + 10 + 14 + 45
    assert len(PIRATE_IDS) == 10 and len(MONSTER_IDS) == 14 and len(LOOT_IDS) == 45
    crowns = Counter(CARDS[m].crowns for m in MONSTER_IDS)
    assert crowns == {2: 4, 3: 4, 4: 3, 5: 2, 6: 1}
    assert sum(CARDS[x].map for x in LOOT_IDS) == 6
    start = [n for n in deck if n.endswith(("-1", "-1a", "-1b")) and c(n) < 8]
    assert sorted(start) == sorted(
        [
            "deckhand-1a",
            "deckhand-1b",
            "coin-purse-1a",
            "coin-purse-1b",
            "cutlass-1",
            "gold-tooth-1",
            "grog-1",
            "spyglass-1",
        ]
    )
    # "Put the unused ... starting decks back in the game box": 2 players, 2 decks.
    assert len(GAME.deck(GAME.options(), 2)) == 2 * 8 + 10 + 14 + 45


def test_player_counts_and_options() -> None:
    """ "2–5 players"; the game has no options."""
    assert GAME.seats == range(2, 6)
    for players in (1, 6):
        with pytest.raises(BadOptions):
            GAME.start(GAME.options(), players, SEED)
    with pytest.raises(BadOptions):
        GAME.options({"rounds": 3})


# -- set-up -------------------------------------------------------------------------------


def test_captain_is_drawn_and_picks_start_with_the_captain() -> None:
    """**house**: "The person who last touched water is the Captain" -- drawn from the seed
    (stream ``captain``). "Everyone chooses 1 Pirate card": one at a time, from the Captain
    clockwise, among those left."""
    state = GAME.start(GAME.options(), 4, SEED)
    captain = Rng(SEED, "captain").below(4)
    assert state.captain == captain and state.phase == PICK
    order = []
    while state.phase == PICK:
        (seat,) = GAME.prompt(state).seats
        order.append(seat)
        legal = GAME.legal(state, seat)
        assert len(legal) == 10 - len(order) + 1
        state = GAME.step(state, {seat: legal[-1]})
    assert order == [(captain + i) % 4 for i in range(4)]
    taken = GAME.legal(GAME.start(GAME.options(), 4, SEED), captain)[-1]
    # A Pirate already picked is refused.
    state = GAME.start(GAME.options(), 4, SEED)
    state = GAME.step(state, {captain: taken})
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, (captain + 1) % 4, taken)
    assert err.value.code == "pirate-taken"


def test_piles_are_the_nine_cards_shuffled_by_their_own_stream() -> None:
    """ "shuffle your 9 cards to form your personal pile": the starting deck and the Pirate,
    in card order, shuffled by the stream ``pile:<seat>:0``; the Monster and Loot piles by
    ``monsters`` and ``loot``. Unpicked Pirates go to the box."""
    state = picked(3)
    for seat in range(3):
        cards = [*(e.card for e in state.zones[seat]), *state.piles[seat]]
        expected = Rng(SEED, f"pile:{seat}:0").shuffled(
            sorted([x for x in range(40) if CARDS[x].deck == seat] + [state.pirates[seat]])
        )
        assert cards == expected
    assert [m for m in Rng(SEED, "monsters").shuffled(MONSTER_IDS)][2:] == list(state.monster_pile)
    assert sorted(state.box) == sorted(set(PIRATE_IDS) - set(state.pirates))


def test_round_start_rows_and_the_first_beat() -> None:
    """ "Reveal 2 Monster cards and as many Loot cards as there are players" (2 players: "2
    Monster cards and 4 Loot cards"); then "ALL players must reveal the top card of their
    pile" -- the first beat asks nobody."""
    for players, loot in ((2, 4), (3, 3), (5, 5)):
        state = picked(players)
        assert state.round == 1 and state.phase == PLAY
        assert len(state.monster_row) == 2 and len(state.loot_row) == loot
        assert all(len(state.zones[s]) >= 1 for s in range(players))


# -- the beats ----------------------------------------------------------------------------


def test_beats_are_sealed_reveal_or_stop() -> None:
    """The page: "every player who has not stopped or sunk chooses, in secret, reveal or
    stop; the choices are revealed together and every reveal flips the top card of that
    player's pile at the same moment." """
    s = arrange()
    prompt = GAME.prompt(s)
    assert prompt.seats == (0, 1, 2) and prompt.sealed and prompt.kind == "reveal"
    assert not prompt.private  # the choices are public once revealed
    with pytest.raises(IllegalMove) as err:
        GAME.step(s, {0: Do("reveal"), 1: Do("stop")})
    assert err.value.code == "sealed"
    s = beat(s, stop=[1])
    assert zone(s, 0) == ["deckhand-1a"] and zone(s, 1) == [] and zone(s, 2) == ["deckhand-3a"]
    assert s.status[1] == STOPPED


def test_faq1_reveals_are_simultaneous() -> None:
    """FAQ 1: "You must always reveal cards simultaneously, but the effects that appear can
    sometimes lead players to reveal a different number of cards." Every seat flips before
    any effect resolves: seat 0's Wilson, given to seat 1, lies after seat 1's own card of
    the same beat."""
    s = arrange(piles={0: ["wilson", "deckhand-1a"]})
    s = beat(s)
    s = decide(s, {0: SeatMove("give", 1)})
    assert zone(s, 1) == ["deckhand-2a", "wilson"]


def test_faq2_stopped_players_reveal_no_more_others_go_on() -> None:
    """FAQ 2: "if you have "decided to stop", you can no longer reveal other cards until the
    next round. Yes, you can continue, as long as you have not previously "decided to stop"
    or "sunk"." Alone, the last player is prompted openly."""
    s = arrange()
    s = beat(s, stop=[0, 2])
    prompt = GAME.prompt(s)
    assert prompt.seats == (1,) and not prompt.sealed
    assert GAME.legal(s, 0) == []
    with pytest.raises(IllegalMove) as err:
        GAME.validate(s, 0, Do("reveal"))
    assert err.value.code == "not-your-turn"
    s = beat(s)
    assert zone(s, 1) == ["deckhand-2a", "coin-purse-2a"]


def test_reshuffle_when_the_pile_runs_out_with_a_fresh_stream() -> None:
    """ "When you have no more cards to draw, shuffle your discard pile and use it as your
    new pile." Each reshuffle has a stream of its own (``pile:<seat>:<n>``) over the
    discard in card order, so its order is not the discard's."""
    s = arrange(piles={0: []}, discards={0: ["grog-1", "deckhand-1a", "cutlass-1"]})
    n = s.shuffles[0]
    s = beat(s)
    expected = Rng(s.seed, f"pile:0:{n}").shuffled(
        sorted([c("grog-1"), c("deckhand-1a"), c("cutlass-1")])
    )
    assert [e.card for e in s.zones[0]] == expected[:1]
    assert list(s.piles[0]) == expected[1:]
    assert s.shuffles[0] == n + 1 and s.discards[0] == ()


def test_nothing_left_to_reveal_stops() -> None:
    """The page: "A player whose pile and discard are both empty stops." """
    s = arrange(piles={0: ["deckhand-1a"]})
    s = beat(s)
    assert s.status[0] == STOPPED
    assert 0 not in GAME.prompt(s).seats


# -- battle and loot ------------------------------------------------------------------------


def test_battle_first_and_second_take_monsters() -> None:
    """ "ONLY the 1st and 2nd person with the most swords each take 1 Monster card among
    those revealed for the round, starting with the one who has the most swords. The chosen
    cards are added to their respective discard piles." """
    s = arrange(
        zones={0: ["deckhand-1a"], 1: ["cutlass-2", "deckhand-2a"], 2: []},
        piles={0: [], 1: [], 2: []},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
    )
    s = beat(s, stop=[0, 1, 2])
    assert s.phase == BATTLE and GAME.prompt(s).seats == (1,)
    assert {str(m) for m in GAME.legal(s, 1)} == {"take kraken", "take sea-serpent-1"}
    s = decide(s, {1: Take("kraken")})
    # Seat 0 (1 sword) takes the last Monster without a choice; seat 2 gets none.
    assert "kraken" in names(s.discards[1]) and "sea-serpent-1" in names(s.discards[0])
    assert s.phase == LOOT


def test_loot_in_order_of_gold_and_sunk_players_last() -> None:
    """ "Everyone takes 1 Loot card ... starting with the person who has the most gold." "If
    a pirate "sinks", they are considered to have -1 sword and -1 gold and will choose after
    those who have 0 swords and 0 gold." """
    s = arrange(
        zones={0: ["cutlass-1", "gold-tooth-1"], 1: ["deckhand-2a"], 2: ["coin-purse-3a"]},
        piles={0: ["grog-1"], 1: [], 2: []},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
    )
    s = beat(s, stop=[1, 2])  # seat 0 reveals its third curse and sinks
    assert s.status[0] == SUNK
    assert Table(s).swords(0) == -1 and Table(s).gold(0) == -1
    s = decide(s, {1: Take("kraken")})  # 1 sword
    assert s.phase == LOOT  # seat 2 (0 swords) took the serpent, sunk seat 0 nothing
    assert "sea-serpent-1" in names(s.discards[2])
    assert GAME.prompt(s).seats == (2,)  # 1 gold first
    s = decide(s, {2: Take("parrot-1")})
    assert GAME.prompt(s).seats == (1,)  # 0 gold before the sunk seat
    s = decide(s, {1: Take("flintlock-1")})
    # the last card, no choice (the round is over: it may already be in a new pile)
    assert c("doubloons-1") in Table(s).owned(0)


def test_ties_are_ordered_by_the_captain_and_the_last_takes_the_token() -> None:
    """ "Ties! In case of a tie, the person who holds the Captain token decides the order of
    selection. If you have to choose last in each tie, you receive the Captain token as
    compensation." """
    s = arrange(
        zones={0: ["deckhand-1a"], 1: ["deckhand-2a"], 2: ["deckhand-3a"]},
        piles={0: [], 1: [], 2: []},
        captain=0,
        monster_row=["kraken", "sea-serpent-1"],
    )
    s = beat(s, stop=[0, 1, 2])
    prompt = GAME.prompt(s)
    assert prompt.seats == (0,) and prompt.kind == "tie"
    assert len(GAME.legal(s, 0)) == 6  # every order of the three tied seats
    with pytest.raises(IllegalMove) as err:
        GAME.validate(s, 0, Order((1, 2)))
    assert err.value.code == "not-the-tie"
    s = decide(s, {0: Order((2, 0, 1))})
    assert s.captain == 1  # placed last
    assert GAME.prompt(s).seats == (2,) and GAME.prompt(s).kind == "monster"


def test_faq5_each_tie_in_turn_the_token_moving_after_each() -> None:
    """FAQ 5: "Each tie is resolved individually, and the Captain token moves following the
    resolution of each tie." Four players, gold 2, 2, 0, 0: the Captain (seat 0) orders
    seats 1 and 2; the last of them is Captain and orders seats 0 and 3."""
    s = arrange(
        4,
        zones={0: [], 1: ["doubloons-1"], 2: ["doubloons-2"], 3: []},
        piles={0: [], 1: [], 2: [], 3: []},
        captain=0,
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["flintlock-1", "flintlock-2", "parrot-1", "parrot-2"],
    )
    s = beat(s, stop=[0, 1, 2, 3])
    # Battle: everyone 0 swords, one four-way tie.
    s = decide(s, {0: Order((0, 1, 2, 3))})
    assert s.captain == 3
    s = decide(s, {0: Take("kraken")})
    assert s.phase == LOOT
    assert GAME.prompt(s).seats == (3,) and GAME.prompt(s).kind == "tie"
    assert {m.seats for m in GAME.legal(s, 3)} == {(1, 2), (2, 1)}  # type: ignore[union-attr]
    s = decide(s, {3: Order((1, 2))})
    assert s.captain == 2
    assert GAME.prompt(s).seats == (2,) and GAME.prompt(s).kind == "tie"
    s = decide(s, {2: Order((3, 0))})
    assert s.captain == 0
    assert [g for g in s.ranking] == [(1,), (2,), (3,), (0,)]


def test_a_tie_that_decides_nothing_is_not_ordered() -> None:
    """Only the first two take Monsters: a tie behind them decides no selection, so the
    Captain is not asked (and the token does not move)."""
    s = arrange(
        4,
        zones={0: ["blackbeard"], 1: ["navy"], 2: [], 3: []},
        piles={0: [], 1: [], 2: [], 3: []},
        captain=2,
        monster_row=["kraken", "sea-serpent-1"],
    )
    s = beat(s, stop=[0, 1, 2, 3])
    assert GAME.prompt(s).kind == "monster" and s.captain == 2


def test_two_player_battle_and_loot() -> None:
    """2-Player Variant: "only the person with the most swords chooses 1 Monster card ...,
    discarding the other one into the box"; "when you choose a Loot card from the Loot
    zone, discard another card into the box"."""
    s = arrange(
        2,
        zones={0: ["deckhand-1a"], 1: ["coin-purse-2a"]},
        piles={0: [], 1: []},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1", "compass-1"],
    )
    s = beat(s, stop=[0, 1])
    s = decide(s, {0: Take("kraken")})
    assert "sea-serpent-1" in names(s.box) and "sea-serpent-1" not in names(s.discards[1])
    assert GAME.prompt(s).seats == (1,) and GAME.prompt(s).kind == "loot"
    assert len(GAME.legal(s, 1)) == 4 * 3
    for bad, code in ((Take("doubloons-1"), "must-drop"), (Take("kraken"), "not-in-row")):
        with pytest.raises(IllegalMove) as err:
            GAME.validate(s, 1, bad)
        assert err.value.code == code
    s = decide(s, {1: Take("doubloons-1", "compass-1")})
    assert {str(m) for m in GAME.legal(s, 0)} == {
        "take flintlock-1 drop parrot-1",
        "take parrot-1 drop flintlock-1",
    }
    s = decide(s, {0: Take("parrot-1", "flintlock-1")})
    assert "compass-1" in names(s.box) and "flintlock-1" in names(s.box)
    assert c("parrot-1") in Table(s).owned(0) and c("doubloons-1") in Table(s).owned(1)


# -- the end of a round: a given card goes back ----------------------------------------


def wilson_given(rules: int = 2) -> State:
    """Seat 0 gives Wilson to seat 2 in round 1; everyone has stopped: the battle is next."""
    s = arrange(
        zones={0: ["deckhand-1a"], 2: ["deckhand-3a"]},
        piles={0: ["wilson"], 1: [], 2: []},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
        rules=rules,
    )
    s = beat(s, stop=[1, 2])
    return decide(s, {0: SeatMove("give", 2)})


def test_a_given_card_goes_back_to_its_giver_at_the_end_of_the_round() -> None:
    """Give: "Place this card in another pirate's play zone until the end of the round.
    Remember to retrieve it, otherwise it is lost!" The table remembers: nobody is asked,
    every given card goes back to its giver's discard when the round ends (FAQ 6's
    forgotten Wilson cannot happen here: README.md)."""
    s = wilson_given()
    kinds = set()
    while s.round == 1:
        prompt = GAME.prompt(s)
        kinds.add(prompt.kind)
        (seat,) = prompt.seats
        s = decide(s, {seat: GAME.legal(s, seat)[0]})
    assert "reclaim" not in kinds and kinds <= {"monster", "loot", "tie"}
    w = c("wilson")
    assert w in s.discards[0] or w in s.piles[0] or w in [e.card for e in s.zones[0]]
    assert w not in s.discards[2] + s.piles[2] + tuple(e.card for e in s.zones[2])
    assert w in Table(s).owned(0) and w not in Table(s).owned(2)


def test_round_end_play_zones_go_to_the_discards() -> None:
    """ "Pick up and send to your discard pile all the revealed cards in your personal play
    zone. Then return to step "1. Start"" -- a face-down card too."""
    s = arrange(
        zones={0: ["cutlass-1 down", "deckhand-1a"], 1: [], 2: []},
        piles={0: ["coin-purse-1a"], 1: ["deckhand-2a"], 2: ["deckhand-3a"]},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
    )
    s = beat(s, stop=[0, 1, 2])
    while s.round == 1:
        (seat,) = GAME.prompt(s).seats
        s = decide(s, {seat: GAME.legal(s, seat)[0]})
    assert {"cutlass-1", "deckhand-1a"} <= set(names(s.discards[0])) | set(names(s.piles[0])) | set(
        zone(s, 0)
    )
    assert all(e.up for e in s.zones[0])
    assert len(s.monster_row) == 2 and s.round == 2


def test_seven_rounds_and_every_monster() -> None:
    """ "A game consists of 7 rounds" -- "The game ends after 7 rounds, when there are no more
    Monster cards to reveal." Every round reveals 2 of the 14 Monsters."""
    from .helpers import play_out

    for players in (2, 5):
        state = picked(players)
        rounds = set()
        while not GAME.prompt(state).over:
            rounds.add(state.round)
            prompt = GAME.prompt(state)
            seats = prompt.seats if prompt.sealed else prompt.seats[:1]
            state = GAME.step(state, {s: GAME.legal(state, s)[-1] for s in seats})
        assert rounds == set(range(1, 8))
        assert state.monster_pile == () and state.monster_row == ()
        assert play_out(state) == state
        with pytest.raises(IllegalMove) as err:
            GAME.validate(state, 0, Do("reveal"))
        assert err.value.code == "game-over"


def test_state_round_trips_and_is_deterministic() -> None:
    """Same seed, same moves, same game; ``decode(encode(s)) == s``."""
    a = picked(4)
    b = picked(4)
    assert GAME.encode(a) == GAME.encode(b)
    assert GAME.decode(GAME.encode(a)) == a
    assert msgspec.structs.replace(a, captain=a.captain) == a
    assert NAMES[a.pirates[a.captain]] == "scarlette"  # the first left is picked first
    assert GAME.legal(GAME.start(GAME.options(), 4, SEED), a.captain)[0] == Pick("scarlette")


# The page's "House card list", symbol by symbol: (swords, gold, curses, crowns, map).
PAGE_SYMBOLS = {
    "deckhand-1a": (1, 0, 0, 0, False),
    "coin-purse-1a": (0, 1, 0, 0, False),
    "cutlass-1": (2, 0, 1, 0, False),
    "gold-tooth-1": (0, 2, 1, 0, False),
    "grog-1": (1, 1, 1, 0, False),
    "spyglass-1": (0, 0, 0, 0, False),
    "scarlette": (1, 0, 0, 0, False),
    "yellow": (1, 0, 0, 0, False),
    "violette": (0, 0, 0, 0, False),
    "rossy": (0, 1, 0, 0, False),
    "wilson": (0, 0, 1, 0, False),
    "gary": (1, 0, 0, 0, False),
    "sea-witch": (0, 2, 1, 0, False),
    "navy": (2, 0, 0, 0, False),
    "red": (0, 0, 0, 0, False),
    "blackbeard": (3, 0, 1, 0, False),
    "sea-serpent-1": (1, 0, 0, 2, False),
    "giant-crab-1": (1, 0, 1, 3, False),
    "ghost-ship-1": (2, 0, 1, 4, False),
    "leviathan-1": (2, 0, 2, 5, False),
    "kraken": (3, 0, 2, 6, False),
    "doubloons-1": (0, 2, 0, 0, False),
    "flintlock-1": (2, 0, 0, 0, False),
    "jewel-chest-1": (0, 0, 1, 2, False),
    "golden-idol-1": (0, 1, 1, 3, False),
    "royal-crown-1": (0, 0, 2, 4, False),
    "map-fragment-1": (0, 0, 0, 0, True),
    "compass-1": (0, 1, 0, 0, False),
    "parrot-1": (0, 0, 0, 0, False),
    "lucky-charm-1": (0, 0, 0, 0, False),
    "powder-keg-1": (1, 0, 0, 0, False),
    "treasure-map-1": (0, 0, 0, 0, False),
    "cannon-1": (0, 0, 0, 0, False),
    "merchant-scales-1": (0, 0, 0, 0, False),
}
PAGE_EFFECTS = {
    "spyglass-1": ("look", 2),
    "scarlette": ("captain", 1),
    "yellow": ("flip", 1),
    "violette": ("choose", 1),
    "rossy": ("gain", 1),
    "wilson": ("give", 1),
    "gary": ("retrieve", 1),
    "sea-witch": ("reveal", 1),
    "red": ("loot", 1),
    "compass-1": ("look", 3),
    "parrot-1": ("copy", 1),
    "lucky-charm-1": ("flip", 1),
    "powder-keg-1": ("reveal", 1),
    "treasure-map-1": ("reveal", 2),
    "cannon-1": ("gain", 1),
    "merchant-scales-1": ("gain", 1),
}


@pytest.mark.parametrize("name", sorted(PAGE_SYMBOLS))
def test_card_symbols_are_the_pages(name: str) -> None:
    """Each card of the page's "House card list" (e.g. "Cutlass (2 swords, 1 curse)",
    "Shadow Sea Witch | 2 gold, 1 curse | other players: Reveal 1", "Powder Keg (1 sword,
    Reveal 1)") has exactly its symbols and effect."""
    card = CARDS[c(name)]
    assert (card.swords, card.gold, card.curses, card.crowns, card.map) == PAGE_SYMBOLS[name]
    effect = card.effect
    assert (None if effect is None else (effect.kind, effect.n)) == PAGE_EFFECTS.get(name)
    assert (effect is not None and effect.others) == (name == "sea-witch")


def test_cards_are_conserved_while_pirates_are_picked() -> None:
    """Before the piles are made, each picked Pirate waits beside its seat, the others in
    the middle: every card in one place."""
    state = GAME.start(GAME.options(), 3, SEED)
    state = GAME.step(state, {state.captain: Pick("gary")})
    zones = GAME.zones(state)
    assert zones[f"pirate:{state.captain}"] == ["gary"]
    assert "gary" not in zones["pirates"] and len(zones["pirates"]) == 9
    cards = [card for cards in zones.values() for card in cards]
    assert sorted(cards) == sorted(GAME.deck(GAME.options(), 3))


def test_the_next_round_starts_with_one_card_each_and_keeps_a_short_pile() -> None:
    """Round 2 starts like round 1: one card each ("ALL players must reveal the top card").
    Only an empty pile is made anew from the discard: a pile of one card is kept."""
    s = arrange(
        zones={0: ["cutlass-1"], 1: [], 2: []},
        piles={0: ["coin-purse-1a", "deckhand-1b"], 1: plain(1), 2: plain(2)},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
    )
    s = beat(s, stop=[1, 2])  # seat 0 reveals coin-purse-1a
    s = beat(s, stop=[0])  # seat 0 stops with one card left in its pile
    while s.round == 1:
        (seat,) = GAME.prompt(s).seats
        s = decide(s, {seat: GAME.legal(s, seat)[0]})
    assert zone(s, 0) == ["deckhand-1b"]  # the kept pile's card, first of round 2
    assert "cutlass-1" in names(s.discards[0])  # not reshuffled into the pile
    assert all(len(s.zones[seat]) == 1 for seat in (1, 2))


def test_two_players_an_odd_loot_row() -> None:
    """2 players with only three Loot cards left (the Loot pile ran short): the first takes
    one and drops one, the second takes the last without a drop."""
    s = arrange(
        2,
        zones={0: ["deckhand-1a", "coin-purse-1a"], 1: []},
        piles={0: [], 1: []},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
    )
    s = beat(s, stop=[0, 1])
    s = decide(s, {0: Take("kraken")})
    assert GAME.prompt(s).seats == (0,) and len(GAME.legal(s, 0)) == 3 * 2
    s = decide(s, {0: Take("doubloons-1", "flintlock-1")})
    # Seat 1 took the last card without a choice; the round is over.
    assert s.round == 2
    assert c("parrot-1") in Table(s).owned(1)
    assert "flintlock-1" in names(s.box)


def test_bot_levels() -> None:
    """Bots: ``random`` and ``heuristic``; another level is refused."""
    assert GAME.bot_levels == ("random", "heuristic")
    assert GAME.bot("heuristic") is not GAME.bot("random")
    with pytest.raises(BadOptions):
        GAME.bot("genius")


def test_ties_for_the_last_places_that_choose() -> None:
    """A tie for the second Monster is ordered by the Captain (only one of the tied takes
    it); in the loot, where everyone chooses, so is a tie for the last places."""
    s = arrange(
        zones={0: ["navy", "coin-purse-1a"], 1: ["deckhand-2a"], 2: ["deckhand-3a"]},
        piles={0: [], 1: [], 2: []},
        captain=0,
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
    )
    s = beat(s, stop=[0, 1, 2])
    # The order of selection is settled first (ties included), then the Monsters chosen.
    assert GAME.prompt(s).kind == "tie" and GAME.view(s, None)["tie"] == [1, 2]
    s = decide(s, {0: Order((2, 1))})
    assert s.captain == 1
    assert GAME.prompt(s).kind == "monster" and GAME.prompt(s).seats == (0,)
    s = decide(s, {0: Take("kraken")})
    assert c("sea-serpent-1") in s.discards[2]
    assert s.phase == LOOT  # 1 gold (seat 0), then a tie at 0 gold
    assert GAME.prompt(s).kind == "tie" and GAME.prompt(s).seats == (1,)
    assert GAME.view(s, 2)["tie"] == [1, 2]
    s = decide(s, {1: Order((1, 2))})
    assert s.captain == 2
    assert GAME.prompt(s).kind == "loot" and GAME.prompt(s).seats == (0,)
