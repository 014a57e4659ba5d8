"""Who sees what: the treasure, bids, hands, scored cards, and what a seat once saw.

The treasure is hidden except to whoever may look (the start player; Ruby Rum; Bread
Booty's added cards only to their adder; Egg Bag reveals to all); bids are face down (their
owner sees them; Infested Bread opens them); scored cards are public; hands hidden. What a
player once saw stays known to that player, and nobody else learns that they saw it beyond
what the table would show. (Bread Booty, Egg Bag and Infested Bread: see test_actions.py.)
"""

from __future__ import annotations

import json

from engines.pearates.cards import KINDS, NAMES
from engines.rng import Rng

from .helpers import G, do, names, sealed, sees, table

TREASURE = ["egg-bag-1", "egg-bag-2", "egg-bag-3", "egg-bag-4"]


def test_the_treasure_is_seen_by_the_start_player_only() -> None:
    """ "places them face down": the start player "orders them as they like"."""
    state = table(treasure=TREASURE, arrange=True)
    assert G.view(state, 0)["treasure"] == TREASURE
    assert G.view(state, 1)["treasure"] == [None] * 4
    assert G.view(state, None)["treasure"] == [None] * 4


def test_bids_are_face_down_and_hands_hidden() -> None:
    """ "Online, bids stay face down (their owner sees them)"."""
    state = table(hands={1: ["goldfish-1", "goldfish-2"], 2: ["ruby-rum-1"]}, treasure=TREASURE)
    state = do(state, 1, "bid goldfish-1", "stop")
    mine, theirs, spectator = G.view(state, 1), G.view(state, 2), G.view(state, None)
    assert mine["bids"][1] == {"size": 1, "known": ["goldfish-1"]}
    assert mine["hand"] == ["goldfish-2"]
    assert theirs["bids"][1] == {"size": 1, "known": []}
    assert theirs["hands"][1] == {"size": 1, "known": []}
    assert theirs["hand"] == ["ruby-rum-1"]
    assert spectator["hand"] is None and spectator["hands"][2] == {"size": 1, "known": []}
    assert "goldfish-1" not in json.dumps(theirs) and "goldfish-1" not in json.dumps(spectator)
    # the public log says a card was bid, not which kind
    assert {"seat": 1, "what": "bid", "kind": None, "n": None} in spectator["log"]
    assert "Goldfish" not in json.dumps(theirs) and "Goldfish" not in json.dumps(spectator)


def test_scored_cards_are_public() -> None:
    """ "Scoring a card simply means placing it faceup in front of you." (seed)"""
    state = table(scored={2: ["ruby-rum-1"]}, treasure=TREASURE)
    for seat in (None, 0, 1, 2):
        assert G.view(state, seat)["scored"][2] == [{"card": "ruby-rum-1", "stack": 4}]


def _ruby_rum_then_divide():  # type: ignore[no-untyped-def]
    state = table(hands={1: ["ruby-rum-1"], 2: ["goldfish-1", "goldfish-2"]}, treasure=TREASURE)
    state = do(state, 1, "play ruby-rum-1", "steal bottom", "put bottom")
    state = do(state, 2, "bid goldfish-1", "bid goldfish-2", "stop")
    state = do(state, 1, "pass")
    state = do(state, 2, "pass")
    return do(state, 2, "take top")


def test_what_a_seat_once_saw_stays_in_its_view() -> None:
    """Ruby Rum: "look at the treasure" -- seat 1 still knows where those cards went once
    seat 2 took them (the take was seen by all)."""
    state = _ruby_rum_then_divide()
    assert names(state.received[2]) == ["egg-bag-1", "egg-bag-2"]
    assert G.view(state, 1)["received"][2]["known"] == ["egg-bag-1", "egg-bag-2"]
    assert G.view(state, 0)["received"][2]["known"] == ["egg-bag-1", "egg-bag-2"]  # start
    assert G.view(state, None)["received"][2]["known"] == []
    # the leftovers were discarded face down; who knew them still does
    assert G.view(state, 1)["discard"]["known"] == ["egg-bag-3", "ruby-rum-1"]
    assert G.view(state, None)["discard"] == {"size": 2, "known": ["ruby-rum-1"]}


def test_knowledge_ends_when_a_hidden_move_may_have_taken_the_card() -> None:
    """Seat 1 knows seat 2 kept two egg bags; once seat 2 bids a card face down, seat 1
    cannot tell which: it no longer knows where either is."""
    state = _ruby_rum_then_divide()
    state = sealed(state, {0: "keep", 1: "keep", 2: "keep"})
    assert sees(state, 1, "egg-bag-1") and sees(state, 1, "egg-bag-2")
    assert G.view(state, 1)["hands"][2]["known"] == ["egg-bag-1", "egg-bag-2"]
    # round 2: seat 1 is the start player; seat 2 moves first after hiding
    state = do(state, 1, "hide")
    state = do(state, 2, "bid egg-bag-1", "stop")
    assert not sees(state, 1, "egg-bag-1") and not sees(state, 1, "egg-bag-2")
    assert G.view(state, 1)["hands"][2]["known"] == []


def test_nobody_learns_that_another_seat_looked() -> None:
    """A look changes no other seat's view of the cards (only the public log says a Ruby
    Rum was Played)."""
    state = table(hands={1: ["ruby-rum-1"]}, treasure=TREASURE)
    before = G.hidden(state, 2)
    state = do(state, 1, "play ruby-rum-1")
    assert G.hidden(state, 2) == before - {"ruby-rum-1"}  # the Played card is shown
    assert G.view(state, 2)["treasure"] == [None] * 4


def test_resample_keeps_what_a_seat_saw_in_the_treasure() -> None:
    """The harness's non-interference: cards a seat has seen in the treasure stay where
    they are in its resample, and the view is the same."""
    state = table(hands={1: ["ruby-rum-1", "goldfish-1"], 2: ["goldfish-2"]}, treasure=TREASURE)
    state = do(state, 1, "play ruby-rum-1", "steal top", "put bottom")
    for k in range(5):
        other = G.resample(state, 1, Rng(b"resample", str(k)))
        assert other.treasure == state.treasure
        assert G.view(other, 1) == G.view(state, 1)
        spectator = G.resample(state, None, Rng(b"resample", f"s{k}"))
        assert G.view(spectator, None) == G.view(state, None)
    moved = {G.resample(state, 2, Rng(b"resample", f"t{k}")).treasure for k in range(5)}
    assert len(moved) > 1  # seat 2 knows only the Ruby Rum in it


def test_the_log_names_kinds_never_cards() -> None:
    """The public log says what happened without saying where a card is."""
    state = table(hands={1: ["egg-bag-5", "goldfish-1"]}, treasure=TREASURE)
    state = do(state, 1, "play egg-bag-5", "put top")
    log = G.view(state, 2)["log"]
    assert {"seat": 1, "what": "play", "kind": "Egg Bag", "n": None} in log
    titles = {k.title for k in KINDS}
    for entry in log:
        assert entry["kind"] is None or entry["kind"] in titles
        assert entry["kind"] not in NAMES


def test_resample_moves_the_other_seats_knowledge_with_the_cards() -> None:
    """A resampled state is a real state: every seat still knows its own cards."""
    state = _ruby_rum_then_divide()
    for seat in (None, 0, 1, 2):
        for k in range(3):
            other = G.resample(state, seat, Rng(b"knowledge", f"{seat}:{k}"))
            for s in range(3):
                own = {*other.hands[s], *other.bids[s], *other.received[s]}
                assert own <= set(other.known[s]), (seat, s)


def test_the_log_names_seat_zero() -> None:
    state = table(players=3, start=1, hands={0: ["goldfish-1"]}, treasure=TREASURE, turn=0)
    assert G.view(state, None)["turn"] == 0  # seat 0 to move is seat 0, not nobody
    state = do(state, 0, "pass")
    assert G.view(state, None)["log"][-1] == {"seat": 0, "what": "pass", "kind": None, "n": None}
