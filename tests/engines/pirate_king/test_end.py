"""The end: crowns on all cards, the map-fragment set table, the outright win on five, the
Captain token worth one crown and deciding ties."""

from __future__ import annotations

import msgspec
import pytest

from engines.core import IllegalMove
from engines.pirate_king.moves import SeatMove
from engines.pirate_king.state import CROWN, OVER, RECLAIM, State
from engines.pirate_king.table import Table

from .helpers import GAME, arrange

MAPS = [f"map-fragment-{i}" for i in range(1, 7)]


def final(discards: dict[int, list[str]], captain: int = 0, players: int = 3) -> State:
    """The game at the end of round 7, every card of each seat in its discard."""
    s = arrange(
        players,
        piles={s: [] for s in range(players)},
        discards=discards,
        captain=captain,
        monster_row=[],
        loot_row=[],
    )
    t = Table(s)
    t.round, t.phase = 7, RECLAIM
    t.advance()
    return t.freeze()


def test_crowns_on_all_cards_and_the_captain_token() -> None:
    """ "Each pirate counts the crowns accumulated on ALL their cards." "The Captain token is
    worth 1 crown to its holder at the end of the game." """
    s = final({0: ["kraken", "jewel-chest-1"], 1: ["giant-crab-1", "deckhand-2a"]}, captain=1)
    assert s.phase == OVER and GAME.prompt(s).over
    outcome = GAME.outcome(s)
    assert outcome is not None
    assert outcome.scores == (6 + 2, 3 + 1, 0)
    assert outcome.ranks == (1, 2, 3)


@pytest.mark.parametrize(("count", "crowns"), [(1, 1), (2, 4), (3, 8), (4, 13)])
def test_map_fragment_set_table(count: int, crowns: int) -> None:
    """ "Number of cards 1 2 3 4 5 / Crowns 1 4 8 13 You won!" """
    s = final({0: MAPS[:count]}, captain=2)
    assert Table(s).crowns(0) == crowns


def test_five_map_fragments_win_outright() -> None:
    """The page: "5 cards: that player wins outright" -- at the end, whatever the crowns
    ("At the end of the game, the number of cards with this symbol that you own ...")."""
    s = final(
        {
            0: MAPS[:5],
            1: ["kraken", "leviathan-1", "leviathan-2", "royal-crown-1", "royal-crown-2"],
        },
        captain=1,
    )
    outcome = GAME.outcome(s)
    assert outcome is not None
    assert outcome.scores[1] > outcome.scores[0]
    assert outcome.ranks == (1, 2, 3)


def test_a_tie_for_the_win_is_decided_by_the_captain() -> None:
    """ "The person with the Captain token also decides the winner in case of a tie." Seats 0
    and 1 have 6 crowns each; the Captain (seat 2) crowns one; the other comes second."""
    s = final({0: ["kraken"], 1: ["leviathan-1", "map-fragment-1"]}, captain=2)
    assert s.phase == CROWN
    prompt = GAME.prompt(s)
    assert prompt.seats == (2,) and prompt.kind == "crown"
    assert {str(m) for m in GAME.legal(s, 2)} == {"crown 0", "crown 1"}
    with pytest.raises(IllegalMove) as err:
        GAME.validate(s, 2, SeatMove("crown", 2))
    assert err.value.code == "not-tied"
    assert GAME.outcome(s) is None
    s = GAME.step(s, {2: SeatMove("crown", 1)})
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.ranks == (2, 1, 3)
    assert GAME.view(s, 0)["winner"] == 1
    # Seat 0 crowned: a winner numbered 0 is still named.
    s = GAME.step(
        final({0: ["kraken"], 1: ["leviathan-1", "map-fragment-1"]}, captain=2),
        {2: SeatMove("crown", 0)},
    )
    assert [GAME.view(s, x)["winner"] for x in (None, 0, 1, 2)] == [0, 0, 0, 0]


def test_the_captains_crown_counts_in_a_tie() -> None:
    """The token is worth a crown: 6 + 1 beats 6, no tie to decide."""
    s = final({0: ["kraken"], 1: ["leviathan-1", "map-fragment-1"]}, captain=0)
    assert s.phase == OVER
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.ranks == (1, 2, 3)


def test_the_end_is_reached_after_round_seven_only() -> None:
    """ "The game ends after 7 rounds": a round before the seventh starts the next."""
    s = arrange(piles={0: [], 1: [], 2: []}, monster_row=[], loot_row=[])
    t = Table(msgspec.structs.replace(s, round=6))
    t.phase = RECLAIM
    t.advance()
    assert t.round == 7 and t.phase != OVER


def test_five_map_fragments_leave_no_tie_to_decide() -> None:
    """With an outright winner there is no tie for the win, even when two players have the
    most crowns: the Captain is not asked."""
    s = final({0: MAPS[:5], 1: ["kraken", "leviathan-1", "sea-serpent-1"]}, captain=2)
    outcome = GAME.outcome(s)
    assert s.phase == OVER and outcome is not None
    assert outcome.scores[0] == outcome.scores[1] == 13
    assert outcome.ranks == (1, 2, 3)


def test_each_rounds_crowns_are_kept_for_the_chart() -> None:
    """Crowns are counted "on ALL their cards" and "The Captain token is worth 1 crown": the
    view keeps each seat's total at the end of every round (public: every card owned was
    seen), the last one being the final score."""
    from .helpers import picked, play_out

    s = picked(3)
    assert GAME.view(s, None)["tallies"] == []
    end = play_out(s)
    tallies = GAME.view(end, 0)["tallies"]
    assert len(tallies) == 7 and all(len(row) == 3 for row in tallies)
    outcome = GAME.outcome(end)
    assert outcome is not None and tallies[-1] == list(outcome.scores)
    assert tallies != [[0, 0, 0]] * 7  # Monsters were taken
