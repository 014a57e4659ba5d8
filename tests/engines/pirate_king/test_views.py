"""Views: piles unknown (their owner knows only what it looked at), discards public, the
Loot and Monster piles hidden, private parallel decisions, resample."""

from __future__ import annotations

import json

from engines.pirate_king.moves import CardMove, Stack
from engines.rng import Rng

from .helpers import GAME, arrange, beat, c, decide, names, picked


def test_pile_order_and_the_loot_and_monster_piles_are_hidden() -> None:
    """FAQ 4: "Can I look at my discard pile and my personal pile? You can only look at
    your discard pile." The top of every pile is unknown to everyone, its own owner
    included; the Loot pile is face down; views show only their sizes. (Which Pirate each
    player picked is public history, shown beside the seat, not as a card of its pile.)"""
    s = picked(4)
    for seat in (None, 0, 1, 2, 3):
        view = GAME.view(s, seat)
        text = json.dumps({**view, "table": [{**t, "pirate": None} for t in view["table"]]})
        for owner, pile in enumerate(s.piles):
            looked = s.known[owner] if owner == seat else 0  # its own Look, if any
            for card in names(pile[looked:]):
                assert f'"{card}"' not in text
        for card in names(s.loot_pile) + names(s.monster_pile):
            assert f'"{card}"' not in text
        assert [p["pile"] for p in view["table"]] == [len(p) for p in s.piles]
        assert view["loot_pile"] == len(s.loot_pile)
        hidden = GAME.hidden(s, seat)
        assert {n for o, p in enumerate(s.piles) if o != seat for n in names(p)} <= hidden


def test_discards_and_zones_are_public() -> None:
    """ "Your discard pile must always be placed face up" -- everyone sees every discard
    and every play zone."""
    s = arrange(zones={1: ["grog-2"]}, discards={2: ["cutlass-3", "kraken"]})
    for seat in (None, 0, 1, 2):
        view = GAME.view(s, seat)
        assert view["table"][2]["discard"] == ["cutlass-3", "kraken"]
        assert view["table"][1]["zone"][0]["card"] == "grog-2"
        assert "cutlass-3" not in GAME.hidden(s, seat)


def test_look_is_known_to_its_owner_only() -> None:
    """Look shows the top cards "to its owner only, and only what was looked at": the
    owner's ``hidden`` set loses exactly those cards; a resample for the owner keeps them on
    top, one for anyone else may move them."""
    s = arrange(piles={0: ["spyglass-1", "cutlass-1", "grog-1", "deckhand-1a", "coin-purse-1a"]})
    s = beat(s)
    assert "cutlass-1" not in GAME.hidden(s, 0) and "grog-1" not in GAME.hidden(s, 0)
    assert "deckhand-1a" in GAME.hidden(s, 0)
    assert {"cutlass-1", "grog-1"} <= GAME.hidden(s, 1)
    moved = False
    for i in range(20):
        mine = GAME.resample(s, 0, Rng(b"r", str(i)))
        assert names(mine.piles[0][:2]) == ["cutlass-1", "grog-1"]
        assert GAME.view(mine, 0) == GAME.view(s, 0)
        theirs = GAME.resample(s, 1, Rng(b"r", str(i)))
        assert GAME.view(theirs, 1) == GAME.view(s, 1)
        moved |= names(theirs.piles[0][:2]) != ["cutlass-1", "grog-1"]
    assert moved
    s = decide(s, {0: Stack(("cutlass-1", "grog-1"))})
    assert GAME.view(s, 0)["known"] == ["cutlass-1", "grog-1"]
    assert GAME.view(s, 1)["known"] == []  # seat 1's own: it has looked at nothing
    assert "cutlass-1" not in json.dumps(GAME.view(s, 1))


def test_a_reshuffle_is_unknown_to_its_owner() -> None:
    """A new pile made from the discard: nobody knows its order, its owner included, even
    after a Look had shown the old top."""
    s = arrange(piles={0: []}, discards={0: ["grog-1", "deckhand-1a", "cutlass-1"]})
    s = beat(s)
    assert s.known[0] == 0
    assert set(names(s.piles[0])) <= GAME.hidden(s, 0)


def test_a_reshuffle_lets_nobody_infer_the_new_order() -> None:
    """A reshuffle lets nobody infer the new order. Mid-round, seat 0's
    pile runs out and its discard becomes a new pile; whatever order that pile really has,
    every seat's view (the owner's, the others', a spectator's) is the same: the views are
    identical for the real state and for states with the pile re-dealt -- and so are the
    legal moves -- while the re-dealt orders differ."""
    made_of = ["grog-1", "deckhand-1a", "cutlass-1", "coin-purse-1a", "deckhand-1b"]
    s = beat(arrange(piles={0: []}, discards={0: made_of}))
    assert len(s.piles[0]) == 4 and s.known[0] == 0
    for seat in (None, 0, 1, 2):
        orders = set()
        for i in range(12):
            other = GAME.resample(s, seat, Rng(b"reshuffle", f"{seat}:{i}"))
            orders.add(other.piles[0])
            assert GAME.view(other, seat) == GAME.view(s, seat), seat
            if seat is not None:
                assert GAME.legal(other, seat) == GAME.legal(s, seat)
        assert len(orders) > 1


def test_several_decisions_are_sealed_and_private() -> None:
    """Effects that need a decision are "parallel private decisions of those players":
    seat 0's Spyglass and seat 1's Violette in the same beat make one sealed, private
    prompt; each seat sees only its own cards and its own decision."""
    s = arrange(
        piles={
            0: ["spyglass-1", "cutlass-1", "grog-1"],
            1: ["violette", "cutlass-2", "grog-2", "deckhand-2a"],
        }
    )
    s = beat(s)
    prompt = GAME.prompt(s)
    assert prompt.seats == (0, 1) and prompt.sealed and prompt.private
    assert prompt.kind == "effects"
    v0, v1 = GAME.view(s, 0), GAME.view(s, 1)
    assert v0["decision"]["kind"] == "look" and v1["decision"]["kind"] == "choose"
    assert "cutlass-2" not in json.dumps(v0) and "cutlass-1" not in json.dumps(v1)
    s = GAME.step(s, {0: Stack(("grog-1", "cutlass-1")), 1: CardMove("choose", "grog-2")})
    assert names(s.piles[0])[:2] == ["grog-1", "cutlass-1"]
    assert "cutlass-2" in names(s.discards[1])


def test_resample_re_deals_every_unknown_order() -> None:
    """Non-interference needs every order a seat cannot know re-dealt: each pile (its own
    too), the Monster and Loot piles; the cards stay in their piles."""
    s = picked(3)
    other = GAME.resample(s, 0, Rng(b"x", "y"))
    for seat in range(3):
        assert sorted(other.piles[seat]) == sorted(s.piles[seat])
    assert sorted(other.loot_pile) == sorted(s.loot_pile)
    assert other.loot_pile != s.loot_pile and other.seed != s.seed
    assert any(other.piles[seat] != s.piles[seat] for seat in range(3))
    assert GAME.view(other, 0) == GAME.view(s, 0)


def test_final_view_shows_every_pile() -> None:
    s = picked(2)
    view = GAME.final_view(s)
    assert view["piles"] == [names(p) for p in s.piles]
    assert view["loot_pile_cards"][0] == names(s.loot_pile)[0]
    assert c(view["loot_pile_cards"][0]) == s.loot_pile[0]


def test_the_table_line_of_each_seat() -> None:
    """What everyone sees of a seat: its zone (a Copy card names what it copies -- even the
    very first card of the list), its crowns so far (cards and map fragments; the Captain's
    crown is the token, shown as ``captain``)."""
    s = arrange(
        zones={0: ["deckhand-1a"]},
        piles={0: ["parrot-1", "parrot-2"]},
        discards={1: ["kraken", "map-fragment-1", "map-fragment-2"]},
        captain=1,
    )
    s = beat(s)
    line = GAME.view(s, 2)["table"][0]
    assert [e["copy"] for e in line["zone"]] == [None, "deckhand-1a"]
    s = beat(s)
    line = GAME.view(s, 2)["table"][0]
    assert [e["copy"] for e in line["zone"]] == [None, "deckhand-1a", "deckhand-1a"]
    assert line["swords"] == 3
    view = GAME.view(s, None)
    assert view["table"][1]["crowns"] == 6 + 4 and view["table"][1]["maps"] == 2
    assert view["captain"] == 1


def test_a_tie_is_shown_to_everyone() -> None:
    """The Captain's tie to order is public: the view names the tied seats."""
    s = arrange(
        zones={0: ["deckhand-1a"], 1: ["deckhand-2a"], 2: []},
        piles={0: [], 1: [], 2: []},
        monster_row=["kraken", "sea-serpent-1"],
    )
    s = beat(s, stop=[0, 1, 2])
    assert GAME.view(s, None)["tie"] == [0, 1] and GAME.view(s, 2)["tie"] == [0, 1]
    assert GAME.view(arrange(), None)["tie"] is None


def test_a_non_seat_sees_what_a_spectator_sees() -> None:
    s = picked(3)
    spectator = GAME.view(s, None)
    assert spectator["seat"] is None and spectator["known"] is None and spectator["legal"] == []
    for other in (3, 7, -1):
        assert GAME.view(s, other) == spectator


def test_a_reshuffled_pile_can_be_checked_by_everyone_and_names_nothing_inside() -> None:
    """The seed: "shuffle your discard pile and use it as your new pile" and "Your discard
    pile must always be placed face up": what the new pile was made of is public, its order
    is not. Each seat's view (a spectator's too) shows the pile's stream number `n`, the
    discard it was made `from` in card order, and each card that has left it at its place in
    the shuffle -- so the verified badge can recompute `pile:<seat>:<n>` -- while no card
    still in the pile is named."""
    made_of = ["grog-1", "deckhand-1a", "cutlass-1", "coin-purse-1a", "deckhand-1b"]
    s = arrange(piles={0: []}, discards={0: made_of})
    n = s.shuffles[0]
    s = beat(s)
    order = names(Rng(s.seed, f"pile:0:{n}").shuffled(sorted(c(x) for x in made_of)))
    for seat in (None, 0, 1, 2):
        made = GAME.view(s, seat)["table"][0]["made"]
        assert made == {"n": n, "from": sorted(made_of, key=c), "drawn": [order[0]] + [None] * 4}
    s = beat(s)
    made = GAME.view(s, 1)["table"][0]["made"]
    assert made["drawn"] == order[:2] + [None] * 3
    assert [e["card"] for e in GAME.view(s, 1)["table"][0]["zone"]] == order[:2]


def test_the_first_pile_names_no_starting_card_before_it_is_seen() -> None:
    """The first pile is the starting deck and the Pirate ("shuffle your 9 cards"): the
    view leaves `from` to the client (it knows the deck) and names only the card revealed."""
    s = picked(3)
    for seat in range(3):
        made = GAME.view(s, None)["table"][seat]["made"]
        assert made["n"] == 0 and made["from"] is None
        first = names([s.zones[seat][0].card])[0]
        assert made["drawn"] == [first] + [None] * len(s.piles[seat])


def test_the_loot_row_says_where_it_starts_in_the_loot_pile() -> None:
    """Round start: "Reveal 2 Monster cards and as many Loot cards as there are players";
    Red's "Draw the top card of the Loot pile" takes Loot cards between two rows. The view
    says where the row starts in the Loot pile as shuffled at the start (`loot_at`), so the
    badge finds it in `Rng(seed, "loot")` whatever Red drew. (A 5-player game of random
    moves in which Red draws.)"""
    from engines.pirate_king.cards import LOOT_IDS

    seed = bytes([7]) * 32
    rng = Rng(seed, "stress")
    s = GAME.start(GAME.options({}), 5, seed)
    order = names(Rng(seed, "loot").shuffled(LOOT_IDS))
    shifted = False
    while GAME.outcome(s) is None:
        prompt = GAME.prompt(s)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        s = GAME.step(s, {x: rng.choice(GAME.legal(s, x)) for x in seats})
        view = GAME.view(s, None)
        if view["phase"] == "play" and view["beat"] == 1:
            at = view["loot_at"]
            assert view["loot_row"] == order[at : at + 5]
            assert at >= (s.round - 1) * 5
            shifted = shifted or at > (s.round - 1) * 5
    assert shifted  # Red drew before a later row was dealt


def test_the_pirates_left_show_while_picking_and_no_winner_before_the_end() -> None:
    """ "Everyone chooses 1 Pirate card" (**house**: one at a time, in the open): while the
    Pirates are picked every view lists those left, and no more once the round starts; no
    view names a winner before the game is over."""
    state = GAME.start(GAME.options(), 3, b"pirates-left")
    left = 10
    while GAME.prompt(state).kind == "pick":
        for seat in (None, 0, 1, 2):
            view = GAME.view(state, seat)
            assert len(view["pirates"]) == left and view["winner"] is None
            # Each seat's own legal moves (the picker's Pirates), none for a spectator.
            own = [m.to_json() for m in GAME.legal(state, seat)] if seat is not None else []
            assert view["legal"] == own
        (seat,) = GAME.prompt(state).seats
        move = GAME.legal(state, seat)[0]
        state = GAME.step(state, {seat: move})
        left -= 1
        assert move.card not in GAME.view(state, None)["pirates"]
    view = GAME.view(state, None)
    assert view["pirates"] == [] and view["winner"] is None and view["round"] == 1


def test_each_piles_curse_profile_is_public_and_exact() -> None:
    """ "Which cards are in a pile is public (every card a player owns was seen when it was
    taken), so a pile's profile by curses is shown": how many of its cards show 0, 1 and 2
    curses -- never which card is where."""
    s = arrange(piles={0: ["kraken", "grog-1", "deckhand-1a", "leviathan-1", "cutlass-1"]})
    for seat in (None, 0, 1):
        line = GAME.view(s, seat)["table"][0]
        assert line["pile"] == 5 and line["pile_curses"] == [1, 2, 2]
        assert GAME.view(s, seat)["table"][1]["pile_curses"] == [4, 0, 0]  # plain(1)
