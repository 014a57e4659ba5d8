"""The course of a game: deal, treasure, turns, split, hand or score, the end.

Quotes are from shared/rules/pearates.md ("the page") unless they say "seed"."""

from __future__ import annotations

import pytest

from engines.core import BadOptions, IllegalMove
from engines.pearates.cards import BASE, INDEX, MORE, SPECIAL, kind
from engines.pearates.flow import begin_round
from engines.pearates.state import KEEP, OVER, TAKE, TURN, WINNER, Table
from engines.rng import Rng

from .helpers import G, do, ids, legal, names, sealed, table


def test_deal_five_each_the_rest_is_the_draw_pile() -> None:
    """ "Deal 5 cards each; the rest is the draw pile." And the start player draws
    max(hand size, 2) = 5 cards as the treasure."""
    state = G.start(G.options(), 4, b"deal")
    assert [len(h) for h in state.hands] == [5, 5, 5, 5]
    assert G.view(state, None)["plays"] == [0, 0, 0, 0]
    assert len(state.treasure) == 5
    assert len(state.pile) == 60 - 20 - 5
    assert G.prompt(state).seats == (state.start,) and G.prompt(state).kind == "arrange"


@pytest.mark.parametrize(("hand", "drawn"), [(0, 2), (1, 2), (2, 2), (7, 7)])
def test_the_treasure_is_the_bigger_of_hand_size_and_two(hand: int, drawn: int) -> None:
    """ "Take the bigger number: your hand size or 2. Draw that many cards" (seed)."""
    state = table(hands={0: [f"goldfish-{i}" for i in range(1, hand + 1)]})
    t = Table.of(state)
    begin_round(t, 2, 0)
    assert len(t.treasure) == drawn


def test_a_short_pile_gives_a_short_treasure() -> None:
    state = table(hands={1: ["goldfish-1"] * 0}, pile=["egg-bag-1"], pile_rest=False)
    t = Table.of(state)
    begin_round(t, 2, 0)
    assert names(t.treasure) == ["egg-bag-1"] and t.pile == []


def test_the_deal_and_the_first_start_player_come_from_named_streams() -> None:
    """House (README, Set-up): "one shuffle ``Rng(seed, "deal")`` of the deck; seat ``s``
    gets cards ``5s .. 5s+4``; the rest is the pile" (the seed: "The remaining cards become
    a (shuffled) facedown deck"), and "Biggest food thief starts." is drawn by
    ``Rng(seed, "start").below(players)``. The browser's verified badge recomputes both."""
    opts = G.options({"more_actions": True})
    order = Rng(b"streams", "deal").shuffled([INDEX[n] for n in G.deck(opts, 4)])
    state = G.start(opts, 4, b"streams")
    for s in range(4):
        assert state.hands[s] == tuple(sorted(order[5 * s : 5 * s + 5]))
    assert state.start == Rng(b"streams", "start").below(4)
    assert tuple(order[20:]) == (*state.treasure, *state.pile)  # the treasure came off the top


def test_the_start_player_orders_the_treasure_then_hides_it() -> None:
    """ "Look at the treasure and arrange the cards any way you wish. Then place it facedown"
    (seed): cards are named from the top, then ``hide``."""
    state = table(treasure=["goldfish-1", "egg-bag-1", "ruby-rum-1"], arrange=True)
    assert legal(state, 1) == []
    assert legal(state, 0) == [
        "arrange goldfish-1",
        "arrange egg-bag-1",
        "arrange ruby-rum-1",
        "hide",
    ]
    state = do(state, 0, "arrange ruby-rum-1", "arrange goldfish-1")
    assert names(state.treasure) == ["ruby-rum-1", "goldfish-1", "egg-bag-1"]
    assert legal(state, 0) == ["hide"]  # the last card has no choice left
    state = do(state, 0, "hide")
    assert state.phase == TURN and state.turn == 1


def test_turns_go_round_from_the_player_after_the_start_player() -> None:
    """ "Clockwise, players take turns reacting to it: Pass, Bid, or Play" (seed); "This
    goes round until everyone has passed." A Pass is "doing nothing for the rest of this
    round". The start player takes no turn: the page, "the start player hides a treasure,
    the others bid cards for it, play actions on it, and split it"."""
    state = table(
        players=3,
        start=1,
        hands={0: ["goldfish-1"], 1: ["egg-bag-3"], 2: ["goldfish-2"]},
        treasure=["egg-bag-1", "egg-bag-2"],
    )
    assert state.turn == 2
    state = do(state, 2, "pass")
    assert state.turn == 0
    state = do(state, 0, "bid goldfish-1", "stop")
    assert state.turn == 0  # seat 2 passed and the start player (1) takes no turn
    assert legal(state, 1) == []
    state = do(state, 0, "pass")
    assert state.phase == TAKE and state.turn == 0


def test_a_bid_is_one_or_more_face_down_cards_and_can_grow_later() -> None:
    """ "Bids (puts one or more cards face down; each is worth 1; no need to outbid)" and
    "A player may bid again on a later turn." """
    state = table(
        players=2,
        hands={1: ["goldfish-1", "goldfish-2", "fish-skeleton-1"]},
        treasure=["egg-bag-1", "egg-bag-2", "egg-bag-3"],
    )
    state = do(state, 1, "bid goldfish-1")
    assert set(legal(state, 1)) == {"bid goldfish-2", "bid fish-skeleton-1", "stop"}
    state = do(state, 1, "bid goldfish-2", "stop")
    assert len(state.bids[1]) == 2
    state = do(state, 1, "bid fish-skeleton-1", "stop")
    assert len(state.bids[1]) == 3


def test_the_start_player_neither_bids_nor_plays() -> None:
    """The seed: "Clockwise, players take turns reacting to it: Pass, Bid, or Play. This
    continues until all players have Passed." -- the players reacting to the start
    player's treasure; the page: "the start player hides a treasure, the others bid cards
    for it, play actions on it, and split it". A start player's bid would be free ("The
    start player receives all the bids": README.md), so the start player owes no move while
    the others react, even with an action card in hand, and the round ends when all the
    others have Passed."""
    state = table(
        players=2,
        hands={0: ["goldfish-1", "egg-bag-1"], 1: ["goldfish-2"]},
        treasure=["egg-bag-2", "egg-bag-3"],
    )
    assert G.prompt(state).seats == (1,)
    assert legal(state, 0) == []
    for text in ("bid goldfish-1", "play egg-bag-1", "pass"):
        with pytest.raises(IllegalMove) as err:
            do(state, 0, text)
        assert err.value.code == "not-your-turn"
    state = do(state, 1, "pass")
    assert state.phase != TURN  # everyone who reacts has passed: the split


def test_divide_each_bidder_takes_from_the_top_or_the_bottom() -> None:
    """ "Otherwise, in turn order, each bidder takes as many cards as they bid, all from
    the top or all from the bottom; the start player receives all bids; leftovers are
    discarded." """
    state = table(
        players=3,
        hands={1: ["goldfish-1"], 2: ["goldfish-2", "goldfish-3"]},
        treasure=["egg-bag-1", "egg-bag-2", "egg-bag-3", "egg-bag-4"],
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid goldfish-2", "bid goldfish-3", "stop")
    state = do(state, 1, "pass")
    state = do(state, 2, "pass")
    assert state.phase == TAKE and state.turn == 1
    state = do(state, 1, "take bottom")
    assert state.turn == 2
    state = do(state, 2, "take top")
    assert names(state.received[1]) == ["egg-bag-4"]
    assert names(state.received[2]) == ["egg-bag-1", "egg-bag-2"]
    assert names(state.received[0]) == ["goldfish-1", "goldfish-2", "goldfish-3"]
    assert names(state.discard) == ["egg-bag-3"]
    assert state.phase == KEEP
    # The table saw it all: who took how many from which end, the bids to the start
    # player, the leftovers (the public log the held split is drawn from).
    split = [e for e in G.view(state, None)["log"] if e["what"] not in ("bid", "stop", "pass")]
    assert [(e["seat"], e["what"], e["n"]) for e in split] == [
        (None, "divide", 3),
        (1, "take-bottom", 1),
        (2, "take", 2),
        (0, "collect", 3),
        (None, "leftovers", 1),
    ]


def _all_pass(state, seats):  # type: ignore[no-untyped-def]
    for seat in seats:
        state = do(state, seat, "pass")
    return state


def test_a_mutiny_gives_the_whole_treasure_to_the_highest_bid() -> None:
    """ "if the total bid exceeds the treasure size (a Mutiny), the highest bid takes the
    whole treasure ..., the start player receives the highest bid, everyone else takes
    their own bid back." """
    state = table(
        players=3,
        hands={1: ["goldfish-1", "goldfish-2"], 2: ["goldfish-3"]},
        treasure=["egg-bag-1", "egg-bag-2"],
    )
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop")
    state = do(state, 2, "bid goldfish-3", "stop")
    state = _all_pass(state, [1, 2])
    assert names(state.received[1]) == ["egg-bag-1", "egg-bag-2"]
    assert names(state.received[0]) == ["goldfish-1", "goldfish-2"]
    assert names(state.received[2]) == ["goldfish-3"]
    split = [e for e in G.view(state, None)["log"] if e["what"] not in ("bid", "stop", "pass")]
    assert [(e["seat"], e["what"], e["n"]) for e in split] == [
        (None, "mutiny", 3),
        (1, "share", 2),
        (0, "collect", 2),
        (2, "returned", 1),
    ]


@pytest.mark.parametrize("players", [1, 8])
def test_two_to_seven_players(players: int) -> None:
    """ "2–7 players": one or eight seats are refused."""
    with pytest.raises(BadOptions):
        G.start(G.options(), players, b"seats")
    assert list(G.seats) == [2, 3, 4, 5, 6, 7]


def test_strict_ties_reveal_only_tied_bids() -> None:
    """Strict ties: "tied highest bids are revealed" -- only tied ones: a lone highest bid
    wins its Mutiny face down, seen by the start player who receives it, by nobody else."""
    state = table(
        players=3,
        hands={1: ["goldfish-1", "egg-bag-6"], 2: ["ruby-rum-2"]},
        treasure=["ruby-rum-1"],
        options={"strict_ties": True},
    )
    state = do(state, 1, "bid goldfish-1", "bid egg-bag-6", "stop")
    state = do(state, 2, "bid ruby-rum-2", "stop")
    state = _all_pass(state, [1, 2])
    assert names(state.received[1]) == ["ruby-rum-1"]  # 2 cards beat 1: no tie
    assert sorted(names(state.received[0])) == ["egg-bag-6", "goldfish-1"]
    assert G.view(state, 0)["received"][0]["known"] == ["egg-bag-6", "goldfish-1"]
    assert G.view(state, 2)["received"][0]["known"] == []
    assert G.view(state, None)["received"][0]["known"] == []


def test_a_tied_mutiny_is_broken_by_the_start_player() -> None:
    """ "the highest bid takes the whole treasure (the start player breaks ties)"."""
    state = table(
        players=3,
        hands={1: ["goldfish-1"], 2: ["goldfish-3"]},
        treasure=["egg-bag-1"],
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid goldfish-3", "stop")
    state = _all_pass(state, [1, 2])
    assert state.phase == WINNER and G.prompt(state).seats == (0,)
    assert legal(state, 0) == ["winner 1", "winner 2"]
    state = do(state, 0, "winner 2")
    assert names(state.received[2]) == ["egg-bag-1"]
    assert names(state.received[0]) == ["goldfish-3"]
    assert names(state.received[1]) == ["goldfish-1"]


def test_strict_ties_compare_values_then_share() -> None:
    """Strict ties: "tied highest bids are revealed and the higher total value wins; still
    tied: split as fairly as possible"."""
    opts = {"strict_ties": True}
    state = table(
        players=3,
        hands={1: ["goldfish-1"], 2: ["egg-bag-6"]},
        treasure=["ruby-rum-1"],
        options=opts,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid egg-bag-6", "stop")
    state = _all_pass(state, [1, 2])
    assert names(state.received[2]) == ["ruby-rum-1"]  # 3 beats 1
    state = table(
        players=4,
        hands={1: ["goldfish-1"], 2: ["goldfish-2"], 3: ["goldfish-3"]},
        treasure=["ruby-rum-1", "ruby-rum-2"],
        options=opts,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid goldfish-2", "stop")
    state = do(state, 3, "bid goldfish-3", "stop")
    state = _all_pass(state, [1, 2, 3])
    # three tied on value too: two cards shared as fairly as possible -- none each (house:
    # equal shares from the top), the rest discarded; the start player gets the three bids
    assert [len(r) for r in state.received[1:]] == [0, 0, 0]
    assert names(state.discard) == ["ruby-rum-1", "ruby-rum-2"]
    assert sorted(names(state.received[0])) == ["goldfish-1", "goldfish-2", "goldfish-3"]


def _round_to_keep(players: int = 3, **kw):  # type: ignore[no-untyped-def]
    """Seat 1 bids one card, seat 2 two; everyone passes; both take from the top."""
    state = table(
        players=players,
        hands={1: ["goldfish-1", *kw.pop("hand1", [])], 2: ["goldfish-2", "goldfish-3"]},
        treasure=["egg-bag-1", "egg-bag-2", "egg-bag-3", "egg-bag-4"],
        **kw,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 2, "bid goldfish-2", "bid goldfish-3", "stop")
    state = _all_pass(state, [1, 2])
    state = do(state, 1, "take top")
    return do(state, 2, "take top")


def test_hand_or_score_is_decided_by_all_at_once_in_private() -> None:
    """ "Each player takes all cards received this round into their hand, or scores all of
    them (face up)" -- everybody at once: a sealed prompt whose moves stay private."""
    state = _round_to_keep()
    prompt = G.prompt(state)
    assert prompt.kind == "keep" and prompt.sealed and prompt.private
    assert prompt.seats == (0, 1, 2)
    assert legal(state, 1) == ["keep", "score"]
    with pytest.raises(IllegalMove) as err:
        G.step(state, {1: G.parse_move("keep")})
    assert err.value.code == "sealed"
    state = sealed(state, {0: "keep", 1: "score", 2: "keep"})
    assert names(state.hands[0]) == ["goldfish-1", "goldfish-2", "goldfish-3"]
    assert names(state.scored[1]) == ["egg-bag-1"]
    assert names(state.hands[2]) == ["egg-bag-2", "egg-bag-3"]
    assert state.round == 2 and state.start == 1  # "Start player advances clockwise" (seed)


def test_the_hand_limit_is_eight() -> None:
    """ "Hand limit 8: what does not fit must be scored." """
    full = [f"fish-skeleton-{i}" for i in range(1, 8)]  # 7 more in hand after the bid
    state = _round_to_keep(hand1=full)
    assert len(state.hands[1]) == 7 and len(state.received[1]) == 1
    assert legal(state, 1) == ["keep", "score"]  # 7 + 1 fits
    state = _round_to_keep(hand1=[*full, "fish-skeleton-8"])
    assert legal(state, 1) == ["score"]
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 1, G.parse_move("keep"))
    assert err.value.code == "hand-limit"


def test_the_game_ends_after_the_round_in_which_the_pile_runs_out() -> None:
    """ "The game ends after the round when the draw pile runs out." (seed)"""
    state = _round_to_keep(pile=[], pile_rest=False)
    state = sealed(state, {0: "keep", 1: "keep", 2: "keep"})
    assert state.phase == OVER and G.prompt(state).over
    outcome = G.outcome(state)
    assert outcome is not None and len(outcome.scores) == 3


def test_a_longer_game_reshuffles_the_discards() -> None:
    """ "Longer game: When the draw pile is empty, shuffle the discarded cards and make it
    the new draw pile. You can do this once, or twice" (seed)."""
    state = _round_to_keep(
        pile=[], pile_rest=False, discard=["ruby-rum-1", "ruby-rum-2"], options={"reshuffles": 1}
    )
    state = sealed(state, {0: "keep", 1: "keep", 2: "keep"})
    assert state.round == 2 and state.reshuffles == 0
    assert state.discard == ()
    # the old discards and the round's leftover, reshuffled: the treasure drew from them
    assert sorted(names([*state.pile, *state.treasure])) == [
        "egg-bag-4",
        "ruby-rum-1",
        "ruby-rum-2",
    ]
    # House (README, Randomness): the new pile is ``Rng(seed, "reshuffle:<left>")``'s
    # shuffle of the discards in card order, and the views name that stream for the
    # verified badge.
    order = Rng(state.seed, "reshuffle:1").shuffled(
        sorted(ids(["egg-bag-4", "ruby-rum-1", "ruby-rum-2"]))
    )
    assert (*state.treasure, *state.pile) == tuple(order)
    assert G.view(state, None)["drawn"]["pile"] == "reshuffle:1"


def test_a_shorter_game_removes_cards_anybody_may_look_at() -> None:
    """ "For a shorter game, simply remove any number of cards from the deck. (Anybody may
    look at the cards removed.)" (seed)"""
    state = G.start(G.options({"removed": 10}), 3, b"short")
    assert len(state.removed) == 10
    assert len(state.pile) + len(state.treasure) == 60 - 15 - 10
    spectator = G.view(state, None)
    assert spectator["removed"] == names(state.removed)
    assert not set(spectator["removed"]) & G.hidden(state, None)
    # house: at least 2 cards stay in the pile (the first treasure is drawn from it)
    state = G.start(G.options({"removed": 120}), 3, b"short")
    assert len(state.pile) + len(state.treasure) == 2 and len(state.removed) == 60 - 15 - 2


def test_friendly_an_unbid_treasure_goes_to_the_start_player() -> None:
    """Friendly: "an unbid treasure goes to the start player"; without it, it is
    discarded."""
    for friendly, expect in ((True, ["egg-bag-1", "egg-bag-2"]), (False, [])):
        state = table(treasure=["egg-bag-1", "egg-bag-2"], options={"friendly": friendly})
        state = _all_pass(state, [1, 2])
        assert names(state.received[0]) == expect


def test_friendly_the_last_round_scores_everything_received() -> None:
    """Friendly: "the last round scores everything received"."""
    state = _round_to_keep(pile=[], pile_rest=False, options={"friendly": True})
    assert state.phase == OVER
    assert names(state.scored[1]) == ["egg-bag-1"]
    assert names(state.scored[0]) == ["goldfish-1", "goldfish-2", "goldfish-3"]


def test_plays_have_no_cap_and_every_round_ends() -> None:
    """No cap on Plays: the page's turns go "round until everyone has passed". A Play puts
    its card into the treasure (or the Pizza into a score pile), so each Play uses up a card
    for the round and every round ends (the conformance harness plays whole games)."""
    goldfish = [f"goldfish-{i}" for i in range(1, 6)]
    state = table(players=2, hands={1: goldfish}, treasure=["egg-bag-1", "egg-bag-2"])
    for i in range(1, 6):
        assert f"play goldfish-{i}" in legal(state, 1)
        assert G.view(state, None)["plays"] == [0, i - 1]  # the table counts them
        state = do(state, 1, f"play goldfish-{i}", "put top")
    assert state.hands[1] == () and len(state.treasure) == 7
    assert legal(state, 1) == ["pass"]


def test_a_played_card_goes_onto_the_top_or_bottom_of_the_treasure() -> None:
    """ "Plays an action card (does the action, then adds the card to the treasure, top or
    bottom)" -- and everyone saw which card it was."""
    state = table(
        players=2, hands={1: ["goldfish-1", "goldfish-2"]}, treasure=["egg-bag-1", "egg-bag-2"]
    )
    state = do(state, 1, "play goldfish-1")
    assert legal(state, 1) == ["put top", "put bottom"]
    state = do(state, 1, "put bottom")
    assert names(state.treasure) == ["egg-bag-1", "egg-bag-2", "goldfish-1"]
    assert G.view(state, 0)["treasure"] == ["egg-bag-1", "egg-bag-2", "goldfish-1"]
    assert G.view(state, None)["treasure"] == [None, None, "goldfish-1"]


def test_cards_without_an_action_cannot_be_played() -> None:
    """ "you can play a card from your hand with an action" (seed): chests have none."""
    state = table(
        players=2, hands={1: ["filled-chest", "empty-chest-1"]}, treasure=["egg-bag-1", "egg-bag-2"]
    )
    assert legal(state, 1) == ["pass", "bid empty-chest-1", "bid filled-chest"]
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 1, G.parse_move("play filled-chest"))
    assert err.value.code == "no-action"
    assert ids(["filled-chest"])[0] in state.hands[1]


def test_one_seat_alone_decides_in_the_open() -> None:
    """With one seat to decide, the choice is an ordinary turn (no commit/reveal)."""
    state = table(treasure=["egg-bag-1", "egg-bag-2"], options={"friendly": True})
    state = _all_pass(state, [1, 2])
    prompt = G.prompt(state)
    assert prompt.seats == (0,) and not prompt.sealed and not prompt.private
    state = do(state, 0, "keep")
    assert names(state.hands[0]) == ["egg-bag-1", "egg-bag-2"]


def test_a_card_not_in_hand_is_refused() -> None:
    state = table(players=2, hands={1: ["goldfish-1"]}, treasure=["egg-bag-1", "egg-bag-2"])
    for text in ("bid empty-chest-1", "play egg-bag-3"):
        with pytest.raises(IllegalMove) as err:
            G.validate(state, 1, G.parse_move(text))
        assert err.value.code == "not-in-hand"


@pytest.mark.parametrize(
    ("more", "special", "size"),
    [(False, False, 60), (True, False, 93), (False, True, 100), (True, True, 133)],
)
def test_each_expansion_is_on_or_off(more: bool, special: bool, size: int) -> None:
    """ "Expansion "more actions" (33 cards, option)" and "Expansion "special scoring" (40
    cards, option; cannot be Played)": a game holds a set's cards exactly when its option is
    on (the base set always), every card somewhere once."""
    options = G.options({"more_actions": more, "special_scoring": special})
    state = G.start(options, 4, b"sets")
    cards = [c for zone in G.zones(state).values() for c in zone]
    assert len(cards) == len(set(cards)) == size
    sets = {kind(INDEX[c]).set for c in cards}
    assert sets == {BASE} | ({MORE} if more else set()) | ({SPECIAL} if special else set())


def test_special_scoring_cards_are_bid_never_played() -> None:
    """ "Their action isn't relevant while playing the game and cannot be used with the
    "Play" action" (seed): a special-scoring card in hand may be bid, not Played."""
    state = table(
        players=2,
        hands={1: ["hungry-hook-1", "banana-sabre-1"]},
        treasure=["egg-bag-1", "egg-bag-2"],
        options={"special_scoring": True},
    )
    assert legal(state, 1) == ["pass", "bid banana-sabre-1", "bid hungry-hook-1"]
    with pytest.raises(IllegalMove) as err:
        G.validate(state, 1, G.parse_move("play hungry-hook-1"))
    assert err.value.code == "no-action"


def test_the_options_schema_states_the_real_defaults() -> None:
    """What the lobby shows as the default is what a room without options plays."""
    defaults = G.options()
    for name, spec in G.options_schema().items():
        assert getattr(defaults, name) == spec["default"], name
    assert G.options({"removed": 120, "reshuffles": 3}).removed == 120
    for bad in ({"removed": 121}, {"reshuffles": -1}, {"friendly": 1}, {"expansion": True}):
        with pytest.raises(BadOptions):
            G.options(bad)
