"""Edition 1 of the rules, kept for the games begun under it (README.md, "Editions"): a game
stored before editions existed goes on, and its record replays, as it was played. Each test
here is the old behaviour edition 2 changed."""

from __future__ import annotations

import msgspec

from engines.pirate_king.moves import CardMove, Do, SeatMove
from engines.pirate_king.state import GIVE, RECLAIM, REVEALING, STOPPED, SUNK, Entry, State
from engines.pirate_king.table import Table

from .helpers import GAME, arrange, beat, c, decide, names, zone


def test_a_room_stored_before_editions_plays_edition_one() -> None:
    """Options stored without ``rules`` are edition 1; a host's new game is the current
    edition, whatever ``rules`` its options carry (a room played again)."""
    assert GAME.recorded_options({}).rules == 1
    assert GAME.recorded_options({"rules": 2}).rules == 2
    assert GAME.options({}).rules == GAME.options({"rules": 1}).rules == 2
    assert GAME.start(GAME.recorded_options({}), 3, b"s").rules == 1


def test_edition_one_copies_the_card_just_before() -> None:
    """Edition 1: a Copy copied the card just before it, placed or revealed (a retrieved
    Admiral Navy: 2 swords)."""
    s = arrange(piles={0: ["gary", "parrot-1", "deckhand-1a"]}, discards={0: ["navy"]}, rules=1)
    s = beat(s)
    s = beat(s)
    assert zone(s, 0) == ["gary", "navy", "parrot-1"]
    assert s.zones[0][2].copy == c("navy") and not s.zones[0][1].placed


def test_edition_one_a_sunk_receiver_discards_the_given_card() -> None:
    """Edition 1: a card given to a player who sinks went to that player's discard."""
    s = arrange(
        zones={1: ["cutlass-2", "gold-tooth-2"]},
        piles={0: ["wilson", "deckhand-1a"]},
        status=[REVEALING, STOPPED, REVEALING],
        rules=1,
    )
    s = beat(s)
    s = decide(s, {0: SeatMove("give", 1)})
    assert s.status[1] == SUNK and zone(s, 1) == []
    assert "wilson" in names(s.discards[1])


def wilson_given() -> State:
    s = arrange(
        zones={0: ["deckhand-1a"], 2: ["deckhand-3a"]},
        piles={0: ["wilson"], 1: [], 2: []},
        monster_row=["kraken", "sea-serpent-1"],
        loot_row=["doubloons-1", "flintlock-1", "parrot-1"],
        rules=1,
    )
    s = beat(s, stop=[1, 2])
    s = decide(s, {0: SeatMove("give", 2)})
    while s.phase != RECLAIM:
        (seat,) = GAME.prompt(s).seats
        s = decide(s, {seat: GAME.legal(s, seat)[0]})
    return s


def test_edition_one_faq6_wilson_left_with_the_receiver() -> None:
    """Edition 1: at the end of the round the giver decided, ``reclaim`` or ``leave``; left,
    Wilson "ends up in the discard pile of the person who had received him" (FAQ 6)."""
    s = wilson_given()
    assert GAME.prompt(s).seats == (0,) and GAME.prompt(s).kind == "reclaim"
    assert {str(m) for m in GAME.legal(s, 0)} == {"reclaim wilson", "leave wilson"}
    s = decide(s, {0: CardMove("leave", "wilson")})
    owned = Table(s).owned(2)
    assert c("wilson") in owned and c("wilson") not in Table(s).owned(0)
    assert s.round == 2


def test_edition_one_faq6_the_receiver_uses_wilson_in_the_following_rounds() -> None:
    """Edition 1, FAQ 6: "That person will be able to use him when he is revealed in the
    following rounds from their pile." Left with seat 2, seat 2 reveals and gives him, and
    at that round's end seat 2 is the one asked to retrieve him."""
    s = decide(wilson_given(), {0: CardMove("leave", "wilson")})
    w = c("wilson")
    assert w in s.discards[2] or w in s.piles[2]
    assert all(w not in s.discards[x] and w not in s.piles[x] for x in (0, 1))
    while w not in [e.card for e in s.zones[2]]:  # seat 2 reveals until Wilson shows
        prompt = GAME.prompt(s)
        assert prompt.kind == "reveal" and 2 in prompt.seats, (prompt, zone(s, 2))
        s = GAME.step(s, {x: Do("reveal" if x == 2 else "stop") for x in prompt.seats})
    assert s.round == 2 and s.pending[2] is not None and s.pending[2].kind == GIVE
    s = decide(s, {2: SeatMove("give", 1)})
    while GAME.prompt(s).kind != "reclaim":
        prompt = GAME.prompt(s)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        moves = {x: Do("stop") if prompt.kind == "reveal" else GAME.legal(s, x)[0] for x in seats}
        s = GAME.step(s, moves)
    assert GAME.prompt(s).seats == (2,)
    assert {str(m) for m in GAME.legal(s, 2)} == {"reclaim wilson", "leave wilson"}


def test_edition_one_wilson_reclaimed_goes_back_to_the_giver() -> None:
    s = decide(wilson_given(), {0: CardMove("reclaim", "wilson")})
    assert c("wilson") in Table(s).owned(0) and c("wilson") not in Table(s).owned(2)


def test_edition_one_is_stored_as_before_editions() -> None:
    """An edition-1 state is written without ``rules`` and without the zone cards'
    ``placed`` (the bytes of a game recorded before editions existed), and reads back
    equal; an edition-2 state carries both."""
    old = beat(arrange(piles={0: ["gary", "deckhand-1a"]}, discards={0: ["navy"]}, rules=1))
    new = beat(arrange(piles={0: ["gary", "deckhand-1a"]}, discards={0: ["navy"]}))
    assert GAME.decode(GAME.encode(old)) == old and GAME.decode(GAME.encode(new)) == new
    assert len(GAME.encode(new)) > len(GAME.encode(old))
    fields = type(old).__struct_fields__
    raw = msgspec.msgpack.decode(GAME.encode(old))
    assert len(raw) == len(fields) - 1
    zones = raw[fields.index("zones")]
    assert zones[0] and all(len(e) == len(Entry.__struct_fields__) - 1 for z in zones for e in z)
