"""Views: "face-down row cards hidden until taken (then only to the taker); hands; sealed
bids and tie-break picks hidden until revealed; ditched cards hidden for good; a player's
loon total visible to that player only until the end, while every payment and collection
is public as it happens." """

from __future__ import annotations

import json
from collections.abc import Callable

from engines.loon_tricks.cards import NAMES
from engines.loon_tricks.state import PLAY, State
from engines.rng import Rng

from .helpers import GAME, step, table

ROW0 = (["red-20", "red-19", "green-18", "blue-17", "green-9"], ["blue-9", "blue-10"])


def text(view: object) -> str:
    return json.dumps(view)


def test_face_down_row_cards_hidden_until_taken_then_only_to_the_taker() -> None:
    state = table(rows={0: ROW0})
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert '"blue-9"' not in text(view) and '"blue-10"' not in text(view)
        assert view["rows"][0]["up"] == sorted(ROW0[0], key=NAMES.index)
        assert view["rows"][0]["down"] == 2
    taken = step(state, {0: "bid 0", 1: "bid 1", 2: "bid 0"})
    assert {"blue-9", "blue-10"} <= set(GAME.view(taken, 1)["hand"])
    for seat in (None, 0, 2):
        assert '"blue-9"' not in text(GAME.view(taken, seat))
    assert GAME.view(taken, None)["rows"][0]["down"] == 0
    assert GAME.hidden(state, 1) >= {"blue-9", "blue-10"}
    assert not GAME.hidden(taken, 1) & {"blue-9", "blue-10"}
    assert GAME.hidden(taken, 0) >= {"blue-9", "blue-10"}


def test_hands_are_seen_by_their_owner_only() -> None:
    state = table()
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["loon"] is None and spectator["legal"] == []
    for seat in range(3):
        view = GAME.view(state, seat)
        assert view["hand"] == [NAMES[c] for c in state.hands[seat]]
        for other in range(3):
            if other != seat:
                assert not any(f'"{NAMES[c]}"' in text(view) for c in state.hands[other])


def test_bids_and_picks_appear_together_once_revealed() -> None:
    """The state holds no bid before the reveal (the server keeps sealed moves); once
    revealed, every viewer sees every bid, and then every pick."""
    state = table(hands={0: ["red-15", "green-10", "green-11", "blue-11", "blue-12"]})
    assert GAME.view(state, None)["auction"] == []
    tie = step(state, {0: "bid 2", 1: "bid 2", 2: "bid 0"})
    for seat in (None, 0, 1, 2):
        offer = GAME.view(tie, seat)["auction"][0]
        assert offer["bids"] == [2, 2, 0] and offer["pending"] and offer["picks"] == [None] * 3
    pick = NAMES[tie.hands[1][0]]
    done = step(tie, {0: "pick red-15", 1: f"pick {pick}"})
    for seat in (None, 2):
        assert GAME.view(done, seat)["auction"][0]["picks"] == ["red-15", pick, None]


def play_until(state: State, done: Callable[[State], bool]) -> State:
    while not done(state):
        prompt = GAME.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = GAME.step(state, {s: GAME.default(state, s) for s in seats})
    return state


def test_ditched_cards_are_hidden_for_good() -> None:
    """Only the ditching seat ever sees its ditched cards -- not at the end either (a
    ditched card may still be named as a face-up row card: that is public history)."""
    state = play_until(GAME.start(GAME.options(), 3, b"ditched"), lambda s: s.phase == PLAY)
    for final in (False, True):
        if final:
            state = play_until(state, lambda s: GAME.prompt(s).over)
        ditched = [[NAMES[c] for c in d] for d in state.ditched]
        assert all(len(d) == 2 for d in ditched)
        for seat in range(3):
            assert GAME.view(state, seat)["ditched"] == ditched[seat]
            assert set(ditched[seat]) <= GAME.hidden(state, (seat + 1) % 3)
            assert set(ditched[seat]) <= GAME.hidden(state, None)
        assert GAME.view(state, None)["ditched"] is None
        assert GAME.final_view(state)["ditched"] is None


def test_loon_totals_are_private_until_the_end_and_payments_public() -> None:
    """ "a player's total is shown to that player only; every payment and collection is
    public as it happens ... and all totals are shown at the end." """
    state = table()
    state = step(state, {0: "bid 3", 1: "bid 1", 2: "bid 0"})
    views = {seat: GAME.view(state, seat) for seat in (None, 0, 1, 2)}
    assert [views[s]["loon"] for s in (0, 1, 2)] == [9, 12, 12]
    assert views[None]["loon"] is None and all(v["totals"] is None for v in views.values())
    ledgers = [v["ledger"] for v in views.values()]
    assert ledgers[0] == [{"round": 1, "seat": 0, "amount": -3, "what": "bid"}]
    assert all(ledger == ledgers[0] for ledger in ledgers)
    state = play_until(state, lambda s: GAME.prompt(s).over)
    assert GAME.view(state, None)["totals"] == list(state.loon)
    assert GAME.final_view(state)["totals"] == list(state.loon)
    # The ledger adds up: 12 each, plus every public entry.
    totals = [12] * 3
    for entry in GAME.view(state, None)["ledger"]:
        totals[entry["seat"]] += entry["amount"]
    assert totals == list(state.loon)


def test_what_everyone_knows_of_a_hand_is_not_hidden_and_resample_keeps_it() -> None:
    """The face-up cards of a taken row are known to be in the taker's hand until the
    ditch; after it each may have been ditched, so they are hidden, yet a re-deal keeps
    them among the taker's hand and ditched cards; recruitment sets shown face up are
    known again."""
    state = table(rows={0: ROW0})
    state = step(state, {0: "bid 0", 1: "bid 1", 2: "bid 0"})
    up = set(ROW0[0])
    assert not up & GAME.hidden(state, 0)
    moved = GAME.resample(state, 0, Rng(b"r", "1"))
    assert set(ROW0[0]) <= {NAMES[c] for c in moved.hands[1]}
    state = play_until(state, lambda s: s.phase == PLAY)
    shown = {NAMES[c] for r in state.recruited if r.seat == 1 for g in r.sets for c in g}
    vague = up - shown
    assert vague and vague <= GAME.hidden(state, 0)
    assert not shown & GAME.hidden(state, 0)
    for i in range(20):
        other = GAME.resample(state, 0, Rng(b"r", str(i)))
        assert GAME.view(other, 0) == GAME.view(state, 0)
        assert vague <= {NAMES[c] for c in other.hands[1] + other.ditched[1]}
        assert shown <= {NAMES[c] for c in other.hands[1]}


def test_zones_hold_every_card_once_through_a_round() -> None:
    """Zones are cards only (loon is not a card): rows not yet taken, hands, ditched cards,
    won tricks and the trick hold the deck exactly once at every step."""
    state = GAME.start(GAME.options(), 4, b"zones")
    deck = sorted(GAME.deck(GAME.options(), 4))
    while state.round == 1:
        zones = GAME.zones(state)
        assert sorted(c for cards in zones.values() for c in cards) == deck
        prompt = GAME.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = GAME.step(state, {s: GAME.default(state, s) for s in seats})
