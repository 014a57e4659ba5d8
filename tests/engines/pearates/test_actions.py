"""Every action of the base set and of the "more actions" expansion, one test each.

Each quotes its row of the page's tables (shared/rules/pearates.md); house readings are
in engines/pearates/README.md."""

from __future__ import annotations

import pytest

from engines.core import IllegalMove
from engines.pearates.state import KEEP, TURN

from .helpers import G, do, legal, names, sealed, sees, table

MORE = {"more_actions": True}
TREASURE = ["egg-bag-1", "egg-bag-2", "egg-bag-3"]


def test_rotten_eggs_takes_one_card_from_every_bid() -> None:
    """Rotten Eggs: "take 1 card from every bid and add it to your own"."""
    state = table(
        players=4,
        hands={1: ["goldfish-1", "rotten-eggs-1"], 2: ["fish-skeleton-1"], 3: ["goldfish-2"]},
        treasure=TREASURE,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid fish-skeleton-1", "stop")
    state = do(state, 3, "bid goldfish-2", "stop")
    state = do(state, 1, "play rotten-eggs-1", "put top")
    assert sorted(names(state.bids[1])) == ["fish-skeleton-1", "goldfish-1", "goldfish-2"]
    assert state.bids[2] == () and state.bids[3] == ()
    # the taker sees what it took; the table only sees the sizes
    assert sees(state, 1, "fish-skeleton-1") and not sees(state, 0, "fish-skeleton-1")
    assert G.view(state, 0)["bids"][1] == {"size": 3, "known": []}


def test_infested_bread_opens_every_bid_this_round() -> None:
    """Infested Bread: "all bids this round are open"."""
    state = table(
        hands={1: ["goldfish-1", "goldfish-3"], 2: ["infested-bread-1"]}, treasure=TREASURE
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    assert G.view(state, None)["bids"][1] == {"size": 1, "known": []}
    state = do(state, 2, "play infested-bread-1", "put top")
    assert G.view(state, None)["bids"][1] == {"size": 1, "known": ["goldfish-1"]}
    state = do(state, 1, "bid goldfish-3", "stop")  # later bids are open too
    assert G.view(state, 2)["bids"][1]["known"] == ["goldfish-1", "goldfish-3"]
    log = G.view(state, None)["log"]
    assert log[-2] == {"seat": 1, "what": "bid", "kind": "Goldfish", "n": None}  # open now


def test_fish_skeleton_scores_the_minus_cards_in_every_bid() -> None:
    """Fish Skeleton: "each player must score all minus cards in their bid"."""
    state = table(
        hands={
            1: ["fish-skeleton-2", "goldfish-1", "pearl-pepper-1"],
            2: ["fish-skeleton-1", "empty-chest-1"],
        },
        treasure=TREASURE,
    )
    state = do(state, 1, "bid fish-skeleton-2", "bid goldfish-1", "bid pearl-pepper-1", "stop")
    state = do(state, 2, "bid empty-chest-1", "stop")
    state = do(state, 1, "pass")
    state = do(state, 2, "play fish-skeleton-1", "put top")
    assert names(state.scored[1]) == ["fish-skeleton-2"]
    assert names(state.scored[2]) == ["empty-chest-1"]
    # the log names what was scored, the first card kind (Empty Chest) too
    scored = [e for e in G.view(state, None)["log"] if e["what"] == "score"]
    assert [(e["seat"], e["kind"]) for e in scored] == [(1, "Fish Skeleton"), (2, "Empty Chest")]
    # a 0 is not a minus card: the Pearl Pepper stays in the bid with the Goldfish
    assert names(state.bids[1]) == ["pearl-pepper-1", "goldfish-1"]
    assert G.view(state, None)["scored"][1] == [{"card": "fish-skeleton-2", "stack": -1}]


def test_pearl_pepper_ends_the_round_in_a_mutiny_by_value() -> None:
    """Pearl Pepper: "the round ends at once in a Mutiny; highest bid is measured by total
    value"."""
    state = table(
        hands={1: ["goldfish-1", "goldfish-2", "pearl-pepper-1"], 2: ["egg-bag-4"]},
        treasure=["ruby-rum-1", "ruby-rum-2", "ruby-rum-3", "ruby-rum-4", "ruby-rum-5"],
    )
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop")  # 2 cards, value 2
    state = do(state, 2, "bid egg-bag-4", "stop")  # 1 card, value 3
    state = do(state, 1, "play pearl-pepper-1", "put top")  # 3 bid < 6 cards: still a Mutiny
    assert state.phase == KEEP
    assert len(state.received[2]) == 6  # the whole treasure, the Pepper on top of it
    assert names(state.received[0]) == ["egg-bag-4"]  # the start player: the highest bid
    assert names(state.received[1]) == ["goldfish-1", "goldfish-2"]  # their own back


def test_goldfish_the_next_player_must_bid_or_play() -> None:
    """Goldfish: "the next player must Bid or Play"."""
    state = table(
        players=4,
        hands={1: ["goldfish-1"], 2: ["goldfish-2"], 3: ["goldfish-3"]},
        treasure=TREASURE,
    )
    state = do(state, 1, "play goldfish-1", "put top")
    assert "pass" not in legal(state, 2)
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 2, G.parse_move("pass"))
    assert err.value.code == "must-bid-or-play"
    state = do(state, 2, "bid goldfish-2", "stop")
    assert "pass" in legal(state, 3)  # only the next player


def test_bread_booty_adds_two_cards_only_its_player_may_look_at() -> None:
    """Bread Booty: "add 2 cards to the treasure; only you may look at them" -- from the
    hand or the deck, onto the top or the bottom (seed)."""
    state = table(
        hands={1: ["bread-booty-1", "goldfish-1"]}, treasure=TREASURE, pile=["ruby-rum-1"]
    )
    state = do(state, 1, "play bread-booty-1")
    assert "add goldfish-1 top" in legal(state, 1) and "add deck bottom" in legal(state, 1)
    state = do(state, 1, "add goldfish-1 top", "add deck bottom", "put bottom")
    assert names(state.treasure) == ["goldfish-1", *TREASURE, "ruby-rum-1", "bread-booty-1"]
    assert G.view(state, 1)["treasure"] == [
        "goldfish-1",
        None,
        None,
        None,
        "ruby-rum-1",
        "bread-booty-1",
    ]
    assert G.view(state, 0)["treasure"] == [None, *TREASURE, None, "bread-booty-1"]
    assert G.view(state, 2)["treasure"] == [None, None, None, None, None, "bread-booty-1"]


def test_egg_bag_reveals_the_treasure_to_all() -> None:
    """Egg Bag: "reveal the treasure"."""
    state = table(hands={1: ["egg-bag-4"]}, treasure=TREASURE)
    state = do(state, 1, "play egg-bag-4", "put bottom")
    for seat in (None, 0, 1, 2):
        assert G.view(state, seat)["treasure"] == [*TREASURE, "egg-bag-4"]


def test_ruby_rum_looks_at_the_treasure_and_steals_a_card() -> None:
    """Ruby Rum: "look at the treasure; steal 1 card" (house: from the top or the bottom,
    as the seed says for removing cards; the card is received this round)."""
    state = table(hands={1: ["ruby-rum-1"]}, treasure=TREASURE)
    state = do(state, 1, "play ruby-rum-1")
    assert legal(state, 1) == ["steal top", "steal bottom"]
    assert G.view(state, 1)["treasure"] == TREASURE  # looked
    assert G.view(state, 2)["treasure"] == [None, None, None]
    state = do(state, 1, "steal bottom", "put top")
    assert names(state.received[1]) == ["egg-bag-3"]
    assert G.view(state, 1)["treasure"] == ["ruby-rum-1", "egg-bag-1", "egg-bag-2"]


def test_gold_pancake_the_next_player_must_pass() -> None:
    """Gold Pancake: "the next player must Pass"."""
    state = table(hands={1: ["gold-pancake-1"], 2: ["goldfish-2"]}, treasure=TREASURE)
    state = do(state, 1, "play gold-pancake-1", "put top")
    assert legal(state, 2) == ["pass"]
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 2, G.parse_move("bid goldfish-2"))
    assert err.value.code == "must-pass"


@pytest.mark.parametrize("card", ["gold-pancake-1", "goldfish-1"])
def test_with_nobody_else_still_in_there_is_no_next_player(card: str) -> None:
    """Gold Pancake: "the next player must Pass"; Goldfish: "the next player must Bid or
    Play"; the round goes on "until all players have Passed". The next player is another
    player: when every other player has Passed, the card applies to nobody -- its player,
    whose turn comes round again, may still Pass, Bid or Play (and the table never says
    "the next player must")."""
    state = table(
        hands={1: [card, "egg-bag-4", "ruby-rum-1"], 2: ["goldfish-2"]}, treasure=TREASURE
    )
    state = do(state, 1, "bid egg-bag-4", "stop")
    state = do(state, 2, "pass")
    state = do(state, 1, f"play {card}")
    assert G.view(state, 1)["forced"] is None
    state = do(state, 1, "put top")
    assert state.phase == TURN and state.turn == 1
    assert legal(state, 1) == ["pass", "bid ruby-rum-1", "play ruby-rum-1"]
    state = do(state, 1, "pass")
    assert state.phase != TURN  # all players have Passed: the split


@pytest.mark.parametrize("card", ["gold-pancake-1", "goldfish-1"])
def test_edition_one_applied_the_card_to_its_own_player(card: str) -> None:
    """Edition 1 (games begun under it): with nobody else in, the card bound its own player
    (Gold Pancake: must Pass; Goldfish: may not Pass)."""
    state = table(
        hands={1: [card, "egg-bag-4", "ruby-rum-1"], 2: ["goldfish-2"]},
        treasure=TREASURE,
        options={"rules": 1},
    )
    state = do(state, 1, "bid egg-bag-4", "stop")
    state = do(state, 2, "pass")
    state = do(state, 1, f"play {card}", "put top")
    assert state.turn == 1
    expected = (
        ["pass"] if card.startswith("gold-pancake") else ["bid ruby-rum-1", "play ruby-rum-1"]
    )
    assert legal(state, 1) == expected


def test_banana_box_draws_four_cards() -> None:
    """Banana Box: "draw 4 cards into your hand"."""
    pile = ["ruby-rum-1", "ruby-rum-2", "ruby-rum-3", "ruby-rum-4", "ruby-rum-5"]
    state = table(hands={1: ["banana-box-1"]}, treasure=TREASURE, pile=pile)
    state = do(state, 1, "play banana-box-1", "put top")
    assert names(state.hands[1]) == pile[:4]
    assert G.view(state, 2)["hands"][1] == {"size": 4, "known": []}
    # the pile's draws at their places, for the verified badge: named to the drawer only
    assert G.view(state, 1)["drawn"] == {"pile": "deal", "cards": pile[:4]}
    assert G.view(state, 2)["drawn"] == {"pile": "deal", "cards": [None] * 4}
    assert G.view(state, None)["drawn"]["cards"] == [None] * 4


def test_pirate_pizza_steals_the_treasure_and_the_start_player_scores_it() -> None:
    """Pirate Pizza: "steal the entire treasure; the start player scores this card"."""
    state = table(hands={1: ["pirate-pizza-1"]}, treasure=TREASURE)
    state = do(state, 1, "play pirate-pizza-1")
    assert state.phase == TURN and state.turn == 2  # no card to put
    assert names(state.received[1]) == TREASURE and state.treasure == ()
    assert names(state.scored[0]) == ["pirate-pizza-1"]


# -- "more actions" -------------------------------------------------------------------------


def test_rotten_apple_discards_cards_from_other_bids_without_looking() -> None:
    """Rotten Apple: "discard any card(s) from any bid but yours, without looking"."""
    state = table(
        hands={1: ["goldfish-1", "rotten-apple-1"], 2: ["goldfish-2", "goldfish-3"]},
        treasure=TREASURE,
        options=MORE,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid goldfish-2", "bid goldfish-3", "stop")
    state = do(state, 1, "play rotten-apple-1")
    assert legal(state, 1) == ["discard 2"]  # not your own bid
    state = do(state, 1, "discard 2")
    assert len(state.bids[2]) == 1 and len(state.discard) == 1
    assert legal(state, 1) == ["discard 2", "stop"]
    state = do(state, 1, "stop", "put top")
    assert not sees(state, 1, names(state.discard)[0])  # without looking
    assert sees(state, 2, names(state.discard)[0])  # its owner knows what went


def test_poisoned_wine_the_start_player_receives_no_bids() -> None:
    """Poisoned Wine: "the start player receives no bids at the end" (house: discarded)."""
    state = table(hands={1: ["goldfish-1", "poisoned-wine-1"]}, treasure=TREASURE, options=MORE)
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "pass")
    state = do(state, 1, "play poisoned-wine-1", "put top", "pass")
    state = do(state, 1, "take top")
    assert state.received[0] == ()
    assert "goldfish-1" in names(state.discard)


def _mutiny_with(card: str):  # type: ignore[no-untyped-def]
    """Seat 1 plays ``card`` then bids two cards, seat 2 bids one, on a 2-card treasure
    (the played card is the second)."""
    state = table(
        hands={1: [card, "goldfish-1", "goldfish-2"], 2: ["goldfish-3"]},
        treasure=["egg-bag-1"],
        options=MORE,
    )
    state = do(state, 1, f"play {card}", "put bottom")
    state = do(state, 2, "bid goldfish-3", "stop")
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop")
    state = do(state, 2, "pass")
    return do(state, 1, "pass")


def test_spoiled_cabbage_losing_bids_are_scored_when_returned() -> None:
    """Spoiled Cabbage: "this round, losing bids must be scored when returned"."""
    state = _mutiny_with("spoiled-cabbage-1")
    assert names(state.scored[2]) == ["goldfish-3"] and state.received[2] == ()
    assert names(state.received[1]) == ["egg-bag-1", "spoiled-cabbage-1"]


def test_grapecrown_losing_bids_do_not_return() -> None:
    """Grapecrown: "this round, losing bids do not return to their owner"."""
    state = _mutiny_with("grapecrown-1")
    assert state.received[2] == () and state.scored[2] == ()
    assert "goldfish-3" in names(state.discard)


def test_scurvy_chicken_reverses_turn_order() -> None:
    """Scurvy Chicken: "reverse turn order"."""
    state = table(
        players=4, hands={2: ["scurvy-chicken-1"]}, treasure=TREASURE, options=MORE, turn=2
    )
    state = do(state, 2, "play scurvy-chicken-1", "put top")
    assert state.turn == 1 and state.direction == -1
    state = do(state, 1, "pass")
    assert state.turn == 3  # the start player (0) takes no turn: 1, then 3


def test_pedestal_cabbage_bid_more_than_the_previous_player_or_pass() -> None:
    """Pedestal Cabbage: "from now on, bid more than the previous player or pass" -- the
    previous player is the one whose turn comes just before yours, and a Play is no longer
    one of the choices."""
    state = table(
        players=4,
        hands={
            1: ["pedestal-cabbage-1", "goldfish-1", "egg-bag-4"],
            2: ["goldfish-4", "goldfish-5", "goldfish-6", "egg-bag-5"],
            3: ["goldfish-7", "egg-bag-6"],
        },
        treasure=TREASURE,
        options=MORE,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid goldfish-4", "bid goldfish-5", "stop")
    state = do(state, 3, "play egg-bag-6", "put top")  # before the Cabbage: Plays allowed
    state = do(state, 1, "play pedestal-cabbage-1", "put top")
    # seat 2's previous player is seat 1 (one card): seat 2's bid of two is already above
    assert legal(state, 2) == ["pass", *(f"bid {c}" for c in ("goldfish-6", "egg-bag-5"))]
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 2, G.parse_move("play egg-bag-5"))
    assert err.value.code == "must-outbid"
    state = do(state, 2, "bid goldfish-6", "stop")  # 3 cards
    # seat 3 has no bid and one card left: one card cannot get above seat 2's three
    assert legal(state, 3) == ["pass"]
    state = do(state, 3, "pass")
    # seat 1's previous player is seat 3 (the start player 0 takes no turn), who has no bid:
    # any Bid will do, and still no Play
    assert legal(state, 1) == ["pass", "bid egg-bag-4"]
    state = do(state, 1, "bid egg-bag-4")
    assert "stop" in legal(state, 1)


def test_pedestal_cabbage_a_bid_must_end_above_the_previous_player() -> None:
    state = table(
        players=3,
        hands={
            1: ["pedestal-cabbage-1", "goldfish-1", "goldfish-2", "goldfish-3"],
            2: ["goldfish-4", "goldfish-5"],
        },
        treasure=TREASURE,
        options=MORE,
        turn=2,
    )
    state = do(state, 2, "bid goldfish-4", "bid goldfish-5", "stop")
    state = do(state, 1, "play pedestal-cabbage-1", "put top")
    state = do(state, 2, "pass")
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2")
    assert "stop" not in legal(state, 1)  # 2 is not more than seat 2's 2
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 1, G.parse_move("stop"))
    assert err.value.code == "must-outbid"
    state = do(state, 1, "bid goldfish-3", "stop")
    assert len(state.bids[1]) == 3


def test_shiny_winy_adds_two_cards_to_another_bid() -> None:
    """Shiny Winy: "add 2 cards to any bid but yours" (house: both to one bid; a deck card
    goes on unseen by the giver)."""
    state = table(
        hands={1: ["shiny-winy-1", "fish-skeleton-1"], 2: ["goldfish-2"]},
        treasure=TREASURE,
        pile=["ruby-rum-1"],
        options=MORE,
        turn=2,
    )
    state = do(state, 2, "bid goldfish-2", "stop")
    state = do(state, 1, "play shiny-winy-1")
    assert "give 1 deck" not in legal(state, 1)  # not your own bid
    state = do(state, 1, "give 2 fish-skeleton-1")
    assert all(m.startswith("give 2 ") for m in legal(state, 1))
    state = do(state, 1, "give 2 deck", "put top")
    assert sorted(names(state.bids[2])) == ["fish-skeleton-1", "goldfish-2", "ruby-rum-1"]
    assert sees(state, 1, "fish-skeleton-1") and not sees(state, 1, "ruby-rum-1")
    assert G.view(state, 2)["bids"][2]["size"] == 3


def test_golden_apple_ends_the_round_and_shuffles_the_treasure() -> None:
    """Golden Apple: "the round ends; shuffle the treasure before splitting"."""
    state = table(hands={1: ["golden-apple-1", "goldfish-1"]}, treasure=TREASURE, options=MORE)
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "pass")
    state = do(state, 1, "play golden-apple-1", "put top")
    assert G.prompt(state).kind == "take"
    assert sorted(names(state.treasure)) == sorted([*TREASURE, "golden-apple-1"])
    # nobody knows the order any more, not even the start player
    assert G.view(state, 0)["treasure"] == [None] * 4


def test_pirate_pine_takes_your_bid_back() -> None:
    """Pirate Pine: "take your bid back into your hand"."""
    state = table(
        hands={1: ["goldfish-1", "goldfish-2", "pirate-pine-1"]}, treasure=TREASURE, options=MORE
    )
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop")
    state = do(state, 2, "pass")
    state = do(state, 1, "play pirate-pine-1", "put top")
    assert state.bids[1] == () and names(state.hands[1]) == ["goldfish-1", "goldfish-2"]


def test_pearl_onion_scores_the_bid_of_any_player() -> None:
    """Pearl Onion: "score the current bid of any player"."""
    state = table(
        hands={1: ["pearl-onion-1"], 2: ["goldfish-2"]}, treasure=TREASURE, options=MORE, turn=2
    )
    state = do(state, 2, "bid goldfish-2", "stop")
    state = do(state, 1, "play pearl-onion-1")
    assert legal(state, 1) == ["target 2"]
    state = do(state, 1, "target 2", "put top")
    assert names(state.scored[2]) == ["goldfish-2"] and state.bids[2] == ()


def test_biscuit_booty_decides_per_card() -> None:
    """Biscuit Booty: "this round, decide per card whether it goes to hand or is scored"."""
    state = table(
        hands={1: ["biscuit-booty-1", "goldfish-1", "goldfish-2"]}, treasure=TREASURE, options=MORE
    )
    state = do(state, 1, "play biscuit-booty-1", "put top")
    state = do(state, 2, "pass")
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop", "pass")
    state = do(state, 1, "take top")  # biscuit-booty-1 and egg-bag-1
    prompt = G.prompt(state)
    assert prompt.seats == (0, 1) and prompt.sealed and prompt.private
    first = names(state.received[1])[0]
    assert legal(state, 1) == [f"keep {first}", f"score {first}"]
    with pytest.raises(IllegalMove) as err:  # one card at a time, in the order shown
        sealed(state, {0: "keep goldfish-1", 1: f"keep {names(state.received[1])[1]}"})
    assert err.value.code == "not-next-card"
    state = sealed(state, {0: "keep goldfish-1", 1: f"keep {first}"})
    second = names(state.received[1])[1]
    assert G.prompt(state).seats == (0, 1)
    state = sealed(state, {0: "score goldfish-2", 1: f"score {second}"})
    assert names(state.scored[1]) == [second] and first in names(state.hands[1])
    assert names(state.scored[0]) == ["goldfish-2"]


def test_shiny_winy_second_card_goes_to_the_same_bid_even_seat_zero() -> None:
    state = table(
        players=4,
        start=1,
        hands={
            0: ["goldfish-1"],
            2: ["shiny-winy-1", "fish-skeleton-1", "fish-skeleton-2"],
            3: ["goldfish-3"],
        },
        treasure=TREASURE,
        options=MORE,
        turn=3,
    )
    state = do(state, 3, "bid goldfish-3", "stop")
    state = do(state, 0, "bid goldfish-1", "stop")
    state = do(state, 2, "play shiny-winy-1")
    assert {m.split()[1] for m in legal(state, 2)} == {"0", "3"}
    state = do(state, 2, "give 0 fish-skeleton-1")
    assert legal(state, 2) == ["give 0 fish-skeleton-2", "give 0 deck"]


def test_biscuit_booty_keeps_the_hand_limit_card_by_card() -> None:
    """ "Hand limit 8" holds for the per-card choice too."""
    hand = [f"fish-skeleton-{i}" for i in range(1, 8)]
    state = table(
        players=2,
        hands={1: ["biscuit-booty-1", "goldfish-1", "goldfish-2", *hand]},
        treasure=["egg-bag-1"],
        options=MORE,
    )
    state = do(state, 1, "play biscuit-booty-1", "put top")
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop", "pass")
    state = do(state, 1, "take top")  # two cards for 7 in hand: one fits
    first, second = names(state.received[1])
    assert legal(state, 1) == [f"keep {first}", f"score {first}"]
    state = sealed(state, {0: "keep goldfish-1", 1: f"keep {first}"})
    assert legal(state, 1) == [f"score {second}"]


def test_rotten_apple_may_stop_after_discarding_from_seat_zero() -> None:
    """Rotten Apple: "discard any card(s) from any bid but yours" -- one card or more, from
    any bid: after a card of seat 0's bid, the player may stop or go on."""
    state = table(
        players=3,
        start=2,
        hands={0: ["goldfish-1", "goldfish-2"], 1: ["rotten-apple-1"]},
        treasure=TREASURE,
        options=MORE,
        turn=0,
    )
    state = do(state, 0, "bid goldfish-1", "bid goldfish-2", "stop")
    state = do(state, 1, "play rotten-apple-1")
    assert legal(state, 1) == ["discard 0"]  # at least one card
    state = do(state, 1, "discard 0")
    assert legal(state, 1) == ["discard 0", "stop"]
    state = do(state, 1, "stop", "put top")
    assert len(state.bids[0]) == 1 and len(state.discard) == 1


def test_biscuit_booty_counts_each_kept_card_once_against_the_hand_limit() -> None:
    """Biscuit Booty's per-card choice under "Hand limit 8": 5 in hand and 3 received, each
    kept card counts one -- all three fit (5 + 3 = 8)."""
    hand = [f"fish-skeleton-{i}" for i in range(1, 6)]
    state = table(
        players=2,
        hands={1: ["biscuit-booty-1", "goldfish-1", "goldfish-2", "goldfish-3", *hand]},
        treasure=["egg-bag-1", "egg-bag-2"],
        options=MORE,
    )
    state = do(state, 1, "play biscuit-booty-1", "put top")
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "bid goldfish-3", "stop", "pass")
    state = do(state, 1, "take top")  # the three cards of the treasure
    first, second, third = names(state.received[1])
    state = sealed(state, {0: "keep goldfish-1", 1: f"keep {first}"})
    state = sealed(state, {0: "keep goldfish-2", 1: f"keep {second}"})
    assert legal(state, 1) == [f"keep {third}", f"score {third}"]
    state = sealed(state, {0: "keep goldfish-3", 1: f"keep {third}"})
    assert len(state.hands[1]) == 8 and state.scored[1] == ()


def test_goldfish_a_player_with_only_chests_must_bid() -> None:
    """Goldfish: "the next player must Bid or Play" -- with no action card to Play, the
    next player must Bid (a Pass is left only to a player who can do neither)."""
    state = table(
        players=4,
        hands={1: ["goldfish-1"], 2: ["filled-chest", "empty-chest-1"], 3: []},
        treasure=TREASURE,
    )
    state = do(state, 1, "play goldfish-1", "put top")
    assert legal(state, 2) == ["bid empty-chest-1", "bid filled-chest"]


def test_bread_booty_draws_from_a_reshuffle_when_the_pile_is_empty() -> None:
    """Bread Booty adds cards "from your hand or from the deck" (seed): in a longer game an
    empty pile with a reshuffle left still offers the deck (the discards, reshuffled)."""
    state = table(
        hands={1: ["bread-booty-1", "goldfish-1"]},
        treasure=TREASURE,
        pile=[],
        pile_rest=False,
        discard=["ruby-rum-1", "ruby-rum-2"],
        options={"reshuffles": 1},
    )
    state = do(state, 1, "play bread-booty-1")
    assert "add deck top" in legal(state, 1)
    state = do(state, 1, "add deck top")
    assert names(state.treasure)[0] in ("ruby-rum-1", "ruby-rum-2")
    assert state.reshuffles == 0 and len(state.pile) == 1
    no_reshuffle = table(
        hands={1: ["bread-booty-1", "goldfish-1"]},
        treasure=TREASURE,
        pile=[],
        pile_rest=False,
        discard=["ruby-rum-1", "ruby-rum-2"],
    )
    no_reshuffle = do(no_reshuffle, 1, "play bread-booty-1")
    assert legal(no_reshuffle, 1) == ["add goldfish-1 top", "add goldfish-1 bottom"]
