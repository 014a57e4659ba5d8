"""Set-up and the shape of a round: deck, deal, score cards, ditch, predictions, top-up."""

from __future__ import annotations

import msgspec
import pytest

from engines.core import BadOptions, IllegalMove
from engines.loon_tricks.cards import NAMES, deck
from engines.loon_tricks.moves import Ditch, Predict
from engines.loon_tricks.score_cards import DECKS, PREDICTING
from engines.loon_tricks.score_cards import INDEX as SCORE
from engines.loon_tricks.state import DITCH, PLAY, PREDICT, State
from engines.rng import Rng

from .helpers import GAME, SEED, scores, step, table


@pytest.mark.parametrize(("players", "size", "lowest"), [(3, 36, 9), (4, 48, 5), (5, 60, 1)])
def test_deck_by_player_count(players: int, size: int, lowest: int) -> None:
    """ "With 4 players remove 1-4 of each suit (48); with 3 players remove 1-8 (36)." """
    names = GAME.deck(GAME.options(), players)
    assert len(names) == size and f"red-{lowest}" in names and f"blue-{lowest - 1}" not in names
    assert {n.split("-")[0] for n in names} == {"red", "green", "blue"}


def test_deal_is_blocks_of_the_shuffled_deck() -> None:
    """ "Deal 5 cards to each hand (secret) and lay out one row per player: 5 cards face up
    and 2 face down." **house**: the order of round r is
    ``Rng(seed, "deal:<r>").shuffled(deck)``; hands, then rows of 7 (5 up, 2 down)."""
    state = GAME.start(GAME.options(), 4, SEED)
    order = Rng(SEED, "deal:1").shuffled(deck(4))
    assert state.hands == tuple(tuple(sorted(order[5 * h : 5 * h + 5])) for h in range(4))
    for row in range(4):
        block = order[20 + 7 * row : 27 + 7 * row]
        assert state.row_up[row] == tuple(sorted(block[:5]))
        assert state.row_down[row] == tuple(sorted(block[5:]))


def test_score_cards_never_return() -> None:
    """ "each round draws 2 recruitment, 1 treasure, 1 capture (no card returns, so 5 rounds
    use every recruitment card)." """
    state = GAME.start(GAME.options({"rounds": 5}), 3, SEED)
    for round_ in range(2, 6):
        state = msgspec.structs.replace(state, round=round_ - 1)
        state = GAME._begin_round(state, round_)
    drawn = [card for row in state.scores for card in row]
    assert len(state.scores) == 5 and len(drawn) == len(set(drawn)) == 20
    assert sorted(c for row in state.scores for c in row[:2]) == list(DECKS["recruitment"])
    assert all(row[2] in DECKS["capture"] and row[3] in DECKS["treasure"] for row in state.scores)


def test_three_to_five_players() -> None:
    """ "3-5 players" """
    assert GAME.seats == range(3, 6)
    for players in (2, 6):
        with pytest.raises(BadOptions):
            GAME.start(GAME.options(), players, SEED)


def test_rounds_option() -> None:
    """ "3 rounds (option: 4 or 5)" """
    assert GAME.options().rounds == 3 and GAME.options({"rounds": 5}).rounds == 5
    for bad in (2, 6, "4"):
        with pytest.raises(ValueError):
            GAME.options({"rounds": bad})


def test_top_up_to_five_at_the_start_of_a_round() -> None:
    """ "At the start of a round, a player with less than 5 loon is topped up to 5." """
    state = GAME.start(GAME.options(), 3, SEED)
    assert state.loon == (12, 12, 12) and state.ledger == ()  # "starts with 12 loon"
    state = GAME.start(GAME.options(), 4, SEED)
    state = msgspec.structs.replace(state, loon=(0, 4, 5, 6))
    state = GAME._begin_round(state, 2)
    assert state.loon == (5, 5, 5, 6)
    assert [(e.round, e.seat, e.amount, e.what) for e in state.ledger] == [
        (2, 0, 5, "top-up"),
        (2, 1, 1, "top-up"),
    ]  # a seat with exactly 5 is not "less than 5"


def _to_ditch(treasure: str) -> State:
    state = table(score_cards=(("old-salts", "lone-wolf"), "mustel-bounty", treasure))
    state = step(state, {0: "bid 0", 1: "bid 2", 2: "bid 0"})  # seat 1: top row, Go First
    state = step(state, {0: "bid 1", 2: "bid 0"})
    assert state.phase == DITCH
    return state


def test_ditch_two_is_a_sealed_private_decision() -> None:
    """ "Ditch two: each player puts 2 cards out of play (private, in parallel). Hands are
    now 10 cards." """
    state = _to_ditch("rich-rewards")
    prompt = GAME.prompt(state)
    assert prompt.kind == "ditch" and prompt.sealed and prompt.private
    assert prompt.seats == (0, 1, 2)
    assert len(GAME.legal(state, 0)) == 66  # two of twelve
    other = NAMES[state.hands[1][0]]
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 0, Ditch((other, "blue-20")))
    assert err.value.code == "not-in-hand"
    moves = {s: GAME.legal(state, s)[0] for s in range(3)}
    after = GAME.step(state, moves)
    assert all(len(h) == 10 for h in after.hands) and all(len(d) == 2 for d in after.ditched)
    assert after.phase == PLAY  # Rich Rewards: no predictions


@pytest.mark.parametrize("treasure", ["tempt-fortune", "extra-loot"])
def test_predictions_in_turn_from_the_go_first_holder(treasure: str) -> None:
    """ "Predictions (only if Tempt Fortune or Extra Loot is out): from the Go First holder,
    in turn, each player announces 0-10 tricks (public)." """
    assert SCORE[treasure] in PREDICTING
    state = _to_ditch(treasure)
    state = GAME.step(state, {s: GAME.legal(state, s)[0] for s in range(3)})
    assert state.phase == PREDICT and state.go_first == 1
    said = []
    for expected in (1, 2, 0):
        prompt = GAME.prompt(state)
        assert prompt.seats == (expected,) and prompt.kind == "predict" and not prompt.sealed
        assert GAME.legal(state, expected) == [Predict(n) for n in range(11)]
        with pytest.raises(IllegalMove) as err:
            GAME.validate(state, (expected + 1) % 3, Predict(2))
        assert err.value.code == "not-your-turn"
        state = step(state, {expected: f"predict {expected + 3}"})
        said.append(GAME.view(state, None)["predictions"])
    assert said[0] == [None, 4, None] and said[-1] == [3, 4, 5]
    # Then recruitment, and the Go First holder leads.
    assert state.phase == PLAY and state.recruited and GAME.prompt(state).seats == (1,)


def test_no_predictions_without_tempt_fortune_or_extra_loot() -> None:
    state = _to_ditch("bountiful-booty")
    state = GAME.step(state, {s: GAME.legal(state, s)[0] for s in range(3)})
    assert state.phase == PLAY and state.predictions == (-1, -1, -1)


def test_a_whole_game_reaches_every_phase() -> None:
    """Three rounds of heuristic play: bids, ditches, tricks; it ends with an outcome."""
    state = GAME.start(GAME.options(), 4, b"whole-game")
    state = msgspec.structs.replace(
        state, scores=(scores(("gang-of-two", "old-salts"), "big-fish", "extra-loot"),)
    )
    kinds = []
    while not (prompt := GAME.prompt(state)).over:
        kinds.append(prompt.kind)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = GAME.step(state, {s: GAME.default(state, s) for s in seats})
    assert {"bid", "ditch", "predict", "play"} <= set(kinds)
    assert kinds.count("play") == 3 * 40 and state.round == 3
    assert GAME.outcome(state) is not None
