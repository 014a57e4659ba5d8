"""Decks, deals, dealers, who leads, the sealed bid, options and the end of the game."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec
import pytest

from engines.core import BadOptions, IllegalMove, Outcome
from engines.rng import Rng
from engines.skull_king import BID_TRICKS, SKULL_KING, SkullKing
from engines.skull_king.moves import Bid
from engines.skull_king.state import OVER, PLAY, Round

from .helpers import GAMES, finish_round, first_legal, step_bids

SK = SKULL_KING
BT = BID_TRICKS
IDS = ["skull-king", "bid-tricks"]


# -- decks -----------------------------------------------------------------------------


def test_classic_deck() -> None:
    """Page: "66 cards: four suits numbered 1–13 — yellow, red, blue and black; black (the
    skull-and-crossbones flag) is trump — plus 5 Escape, 5 Pirate, 2 Mermaid, 1 Scary Mary,
    1 Skull King. 2–6 players (6 × 10 = 60 ≤ 66)." Seed 003: "66 Thẻ chơi: • 52 thẻ màu (4
    màu khác nhau) • 5 Thẻ thoát hiểm • 5 Thẻ cướp biển • 2 Thẻ người cá • 1 Thẻ Scary Mary
    • 1 Thẻ Skull King" (66 cards: 52 coloured cards in 4 colours, 5 Escape, 5 Pirate,
    2 Mermaid, 1 Scary Mary, 1 Skull King)."""
    names = SK.deck(SK.options(), 4)
    assert len(names) == len(set(names)) == 66
    numbers = [n for n in names if n.rsplit("-", 1)[0] in ("yellow", "red", "blue", "black")]
    assert len(numbers) == 52
    assert Counter(n.rsplit("-", 1)[0] for n in numbers) == {
        "yellow": 13,
        "red": 13,
        "blue": 13,
        "black": 13,
    }
    assert {int(n.rsplit("-", 1)[1]) for n in numbers} == set(range(1, 14))
    kinds = Counter(n.rstrip("0123456789").rstrip("-") for n in names if n not in numbers)
    assert kinds == {"escape": 5, "pirate": 5, "mermaid": 2, "scary-mary": 1, "skull-king": 1}
    assert SK.edition.suits[SK.cards.black] == "black"
    assert SK.seats == range(2, 7)
    assert max(SK.cards_per_hand(p, r) * p for p in SK.seats for r in range(1, 11)) <= 66


def test_bid_tricks_deck() -> None:
    """Page: "70 cards: four suits numbered 1–14 (three colours and black ⚓, which is
    trump), 5 Escape 🏳️, 5 Pirate ⚔️, 2 Mermaid 🧜, 1 Captain 👑, 1 Rogue 🎭 (played as a
    Pirate or as an Escape — the player chooses). 2–8 players." Seed 002: "The whole deck of
    70 cards is shuffled every round." and "2–8 players · bid your tricks, then win exactly
    that many". Page: "This matches the 70-card 2021 edition of the published game, with
    renamed cards." The three colours are green, purple and yellow
    (**house**: the seed does not name them)."""
    names = BT.deck(BT.options(), 8)
    assert len(names) == len(set(names)) == 70
    suits = ("green", "purple", "yellow", "black")
    numbers = [n for n in names if n.rsplit("-", 1)[0] in suits]
    assert Counter(n.rsplit("-", 1)[0] for n in numbers) == dict.fromkeys(suits, 14)
    assert {int(n.rsplit("-", 1)[1]) for n in numbers} == set(range(1, 15))
    kinds = Counter(n.rstrip("0123456789").rstrip("-") for n in names if n not in numbers)
    assert kinds == {"escape": 5, "pirate": 5, "mermaid": 2, "captain": 1, "rogue": 1}
    assert BT.edition.suits[BT.cards.black] == "black"
    assert BT.seats == range(2, 9)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_identical_cards_have_unique_names(game: SkullKing) -> None:
    """**house**: the five Escapes (and Pirates, Mermaids) are ``escape-1`` .. ``escape-5``,
    so every card can be accounted for in zones and logs."""
    names = game.cards.names
    assert [n for n in names if n.startswith("escape-")] == [f"escape-{i}" for i in range(1, 6)]
    assert [n for n in names if n.startswith("pirate-")] == [f"pirate-{i}" for i in range(1, 6)]
    assert [n for n in names if n.startswith("mermaid-")] == ["mermaid-1", "mermaid-2"]


# -- deals -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_round_r_deals_r_cards(game: SkullKing) -> None:
    """Page: "Both: 10 rounds; in round r each player is dealt r cards (capped, see below)". Seed
    003: "Trong ván bài đầu tiên, mỗi người chơi sẽ chỉ có một lá bài tuỳ ý; Từng ván sau đó sẽ tăng
    lên một lá bài mỗi ván." (in the first round each player has one card; each later round one
    more), "Số lượng bài sẽ thay đổi sau mỗi ván." (the number of cards changes every round),
    "Trong ván đầu tiên, mỗi người có một lá. Tiếp tục tới ván thứ 2, mỗi người sẽ có 2 lá..
    cho đến ván thứ 10, mỗi người sẽ có 10 lá. Tóm lại, đó là ván bài thứ mấy thì người chơi sẽ có
    bấy nhiêu lá bài." (round 1: one card, round 2: two ... round 10: ten; the round number is the
    number of cards) and "The number of cards increases by one from one hand to the next." Seed 002:
    "In round 1 everyone gets 1 card, in round 2 2 cards, and so on up to 10." """
    for players in (p for p in game.seats if p < 8):  # 8 players: the next test
        state = game.start(game.options(), players, b"deal-%d" % players)
        for r in range(1, 11):
            assert state.round == r
            hands = len(state.hands)
            assert [len(h) for h in state.hands] == [r] * hands
            assert game.view(state, 0)["cards"] == r
            state = finish_round(game, state)
        assert game.prompt(state).over
        assert [row.cards for row in state.sheet] == list(range(1, 11))


def test_eight_players_rounds_eight_to_ten_deal_eight() -> None:
    """Page: "Cards per round: the round number, except that with 8 players rounds 8, 9 and
    10 all deal 8 (so everyone gets the same number). In general: never more than
    floor(70 / players)." Seed 002: "(8 players: rounds 8, 9 and 10 all deal 8 cards, so
    everyone gets the same number.)" """
    state = BT.start(BT.options(), 8, b"eight")
    sizes = []
    for _ in range(10):
        sizes.append({len(h) for h in state.hands})
        state = finish_round(BT, state)
    assert sizes == [{1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {8}, {8}]
    assert [row.cards for row in state.sheet] == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    for players in BT.seats:
        for r in range(1, 11):
            n = BT.cards_per_hand(players, r)
            assert n <= 70 // players
            assert n == min(r, 70 // (3 if players == 2 else players))
            assert n * (3 if players == 2 else players) <= 70


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("players", [2, 3, 5])
def test_deal_is_blocks_of_the_shuffled_deck(game: SkullKing, players: int) -> None:
    """Page: "The whole deck is shuffled every round." Seed 003: "Xào bài kỹ như xào mì gói.
    Chia bài cho mỗi người một cách bí mật." (shuffle well; deal to each player in secret)
    and "After a hand has been played and the scores written down, all the cards are shuffled
    again and dealt again for the next hand." **house**: the deck order of round r is
    ``Rng(seed, f"deal:{r}")`` shuffling the card numbers; hand h gets the h-th block of n
    cards; players' hands are sorted, the ghost keeps the dealt order (top first); the rest
    is the stock."""
    seed = b"blocks"
    state = game.start(game.options({"rounds": 3}), players, seed)
    size = len(game.cards.names)
    for r in (1, 2, 3):
        order = Rng(seed, f"deal:{r}").shuffled(range(size))
        n = game.cards_per_hand(players, r)
        hands = 3 if players == 2 else players
        for h in range(hands):
            block = order[h * n : (h + 1) * n]
            expected = tuple(block) if h == players else tuple(sorted(block))
            assert state.hands[h] == expected
        assert state.stock == tuple(sorted(order[hands * n :]))
        # The whole deck, every round: nothing is kept from the round before.
        assert sorted([*(c for h in state.hands for c in h), *state.stock]) == list(range(size))
        assert all(w == () for w in state.won)
        state = finish_round(game, state)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_first_dealer_is_drawn_from_the_seed_and_moves_one_seat(game: SkullKing) -> None:
    """Page: "the dealer moves one seat each round" and "the player after the dealer leads
    the first trick". Seed 003: "The player to the left of the dealer begins the round by
    playing the first card." **house**: the first dealer is ``Rng(seed, "dealer")
    .below(players)``."""
    for players in (3, 4, 6):
        seed = b"dealer-%d" % players
        first = Rng(seed, "dealer").below(players)
        state = game.start(game.options(), players, seed)
        assert state.first_dealer == first
        for r in range(1, 11):
            dealer = (first + r - 1) % players
            assert game.view(state, None)["dealer"] == dealer
            state = step_bids(game, state, *([0] * players))
            assert state.order == tuple((dealer + 1 + i) % players for i in range(players))
            assert game.prompt(state).seats == ((dealer + 1) % players,)
            state = finish_round(game, state)
    dealers = {game.start(game.options(), 4, b"%d" % i).first_dealer for i in range(40)}
    assert dealers == {0, 1, 2, 3}


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_tricks_winner_leads_the_next(game: SkullKing) -> None:
    """Page: "the trick's winner leads the next". Seed 003: "The player who has won the trick
    places it, facing down, in front of them, ... and then plays the first card of the next
    round." Seed 002: "The trick's winner leads the next one." and "Each trick, everyone
    plays one card in turn." Seed 003: "When all the players have played a card they can see
    who gets the "trick"." Play goes clockwise (seat order)."""
    for players in (3, 4, 5):
        state = game.start(game.options({"rounds": 6}), players, b"lead-%d" % players)
        checked = 0
        while not game.prompt(state).over:
            before = state
            state = first_legal(game, state)
            closes = before.phase == PLAY and len(before.trick) == players - 1
            if closes and state.round == before.round and state.phase == PLAY:
                w = state.last_winner
                assert state.order == tuple((w + i) % players for i in range(players))
                assert game.turn(state) == w
                checked += 1
        assert checked > 10


# -- the sealed bid --------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_bids_are_sealed_and_revealed_together(game: SkullKing) -> None:
    """Page: "everyone bids at once;" and "Everyone chooses a bid from 0 to the number of cards in
    hand, in secret, and all bids appear together ("YO-HO-HO" — the fist bid). This is the commit /
    reveal phase of the protocol. Bids are public after the reveal." Seed 003: "With the second "HO"
    the players all open their fists at the same time and stretch out as many fingers as the tricks
    they want to win in that round." and "After dealing, each player looks at their card(s) and
    thinks about how many tricks they will win with this/these cards." and "As a sign that a player
    has decided on the number of tricks, they stretch a fist out towards the centre of the table.
    When all the players are holding up their fists towards the middle of the table, they utter the
    pirates' battle cry "YO - HO - HO"." and "The bids for each player are noted down in the narrow
    column on the notepad." Seed 002: "Bids are sealed: the others only see that you have bid. All
    bids are shown together once everyone has bid." """
    state = game.start(game.options(), 4, b"sealed")
    state = finish_round(game, state)  # round 2: two cards each
    prompt = game.prompt(state)
    assert prompt.seats == (0, 1, 2, 3) and prompt.sealed and prompt.kind == "bid"
    assert state.bids == (-1, -1, -1, -1)
    # Each seat's bid is checked alone: validation never needs another seat's bid.
    for seat in range(4):
        game.validate(state, seat, Bid(2))
    for partial in ({0: Bid(1)}, {0: Bid(1), 1: Bid(0), 2: Bid(2)}, {}):
        with pytest.raises(IllegalMove) as info:
            game.step(state, partial)
        assert info.value.code == "sealed"
    for seat in (0, 1, 2, 3, None):
        assert game.view(state, seat)["bids"] == [None, None, None, None]
    revealed = step_bids(game, state, 1, 0, 2, 1)
    assert revealed.bids == (1, 0, 2, 1)
    for seat in (0, 1, 2, 3, None):
        assert game.view(revealed, seat)["bids"] == [1, 0, 2, 1]
    play = game.prompt(revealed)
    assert len(play.seats) == 1 and not play.sealed and play.kind == "play"


# -- options and the end -----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_options(game: SkullKing) -> None:
    """The host may play fewer rounds: ``rounds`` from 1 to 10 (default 10, the full game:
    "Both: 10 rounds")."""
    assert game.options().rounds == 10
    assert game.options(None).rounds == 10
    assert game.options({}).rounds == 10
    for r in range(1, 11):
        assert game.options({"rounds": r}).rounds == r
    schema = game.options_schema()["rounds"]
    assert schema == {"type": "int", "default": 10, "min": 1, "max": 10}


BAD_OPTIONS: list[Any] = [
    {"rounds": 0},
    {"rounds": 11},
    {"rounds": -3},
    {"rounds": "3"},
    {"rounds": 2.5},
    {"rounds": True},
    {"rounds": None},
    {"round": 3},
    {"rounds": 3, "edition": "classic"},
]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("raw", BAD_OPTIONS, ids=repr)
def test_bad_options(game: SkullKing, raw: Any) -> None:
    with pytest.raises(BadOptions):
        game.options(raw)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_player_counts(game: SkullKing) -> None:
    """Page: classic "2–6 players", bid-tricks "2–8 players"."""
    for players in game.seats:
        game.start(game.options(), players, b"count")
    for players in (0, 1, game.seats.stop):
        with pytest.raises(BadOptions):
            game.start(game.options(), players, b"count")
    with pytest.raises(BadOptions):
        game.bot("grandmaster")


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_game_ends_after_the_last_round(game: SkullKing) -> None:
    """Page: "Highest total after round 10 wins". Seed 003: "The game ends after 10 hands. The
    player with the highest score has bid cleverly, trumped success- fully and won the
    battle." and "Cuộc chiến của cướp biển kéo dài 10 ván bài." (the battle lasts 10
    rounds) and "Trong mỗi ván bài, người chơi sẽ cố gắng có được càng nhiều điểm càng tốt."
    (each round players try to score as many points as they can). With ``rounds`` = 3 the
    game ends after round 3."""
    for rounds in (10, 3):
        state = game.start(game.options({"rounds": rounds}), 3, b"end")
        while not game.prompt(state).over:
            assert game.outcome(state) is None
            state = first_legal(game, state)
        assert state.phase == OVER and state.round == rounds
        assert len(state.sheet) == rounds
        outcome = game.outcome(state)
        assert outcome is not None
        totals = [sum(row.points[s] for row in state.sheet) for s in range(3)]
        assert list(outcome.scores) == totals
        best = max(totals)
        assert [r == 1 for r in outcome.ranks] == [t == best for t in totals]
        for seat in range(3):
            assert game.legal(state, seat) == []


@pytest.mark.parametrize(
    ("totals", "ranks"),
    [
        ((120, 80, 120, -30), (1, 3, 1, 4)),
        ((50, 50, 50), (1, 1, 1)),
        ((10, 40, 40, 40, 0), (4, 1, 1, 1, 5)),
        ((-10, 20), (2, 1)),
    ],
)
def test_equal_totals_share_the_win(totals: tuple[int, ...], ranks: tuple[int, ...]) -> None:
    """Page: "Highest total after round 10 wins; equal totals share the win." Seed 002:
    "Highest total after round 10 wins; equal totals share the win." Seed 003: "Người nào có
    được nhiều điểm nhất sau 10 ván bài sẽ là người chiến thắng." (whoever has the most
    points after 10 rounds wins)."""
    for game in GAMES:
        players = len(totals)
        state = game.start(game.options({"rounds": 1}), players, b"ties")
        zeros = tuple(0 for _ in totals)
        row = Round(round=1, cards=1, bids=zeros, tricks=zeros, bonus=zeros, points=totals)
        over = msgspec.structs.replace(state, phase=OVER, sheet=(row,), hands=(), order=())
        assert game.outcome(over) == Outcome(totals, ranks)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_same_seed_same_game_and_state_round_trip(game: SkullKing) -> None:
    """A game is a pure function of (options, players, seed, moves), and every state survives
    ``encode`` / ``decode``."""
    runs = []
    for _ in range(2):
        state = game.start(game.options({"rounds": 4}), 4, b"same")
        blobs = [game.encode(state)]
        while not game.prompt(state).over:
            state = first_legal(game, state)
            blob = game.encode(state)
            assert game.decode(blob) == state
            blobs.append(blob)
        runs.append(blobs)
    assert runs[0] == runs[1]
    other = game.start(game.options({"rounds": 4}), 4, b"different")
    assert game.encode(other) != runs[0][0]
