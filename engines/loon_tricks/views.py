"""What each seat may see, built by adding what it may know (allow-list).

Everyone sees the score cards, the face-up row cards (also once taken, as history), how
many face-down cards lie on each row, every revealed bid and tie-break pick, who took which
row, the predictions, the recruitment sets laid face up, every card played, and every
payment and collection (the ledger). A seat also sees its own hand, its own ditched cards
and its own loon total. Nobody sees a face-down row card before it is taken, another hand,
another seat's ditched cards (never, not even at the end), the seed, or another seat's loon
total before the game is over.
"""

from __future__ import annotations

from engines.core import JSON
from engines.loon_tricks.cards import NAMES
from engines.loon_tricks.score_cards import CARDS
from engines.loon_tricks.state import (
    AWARD,
    BID,
    DITCH,
    OVER,
    PICK,
    PLAY,
    PREDICT,
    Offer,
    Played,
    State,
)
from engines.loon_tricks.table import ID, Table
from engines.loon_tricks.trick import winner
from engines.shown import Shown

PHASES = {
    BID: "bid",
    PICK: "pick",
    AWARD: "award",
    DITCH: "ditch",
    PREDICT: "predict",
    PLAY: "play",
    OVER: "over",
}


def _names(cards: tuple[int, ...]) -> list[JSON]:
    return [NAMES[c] for c in cards]


def _plays(plays: tuple[Played, ...]) -> list[JSON]:
    return [{"seat": seat, "card": NAMES[card]} for seat, card in plays]


def _offer(offer: Offer) -> dict[str, JSON]:
    return {
        "row": offer.row,
        "offer": offer.offer,
        "bids": [b if b >= 0 else None for b in offer.bids],
        "picks": [NAMES[c] if c >= 0 else None for c in offer.picks],
        "taker": offer.taker if offer.taker >= 0 else None,
        "pending": offer.taker == -2,
        "paid": offer.paid,
        "awarded_by": offer.awarded_by if offer.awarded_by >= 0 else None,
    }


def seat_view(table: Table, state: State, seat: int | None) -> dict[str, JSON]:
    """The table as ``seat`` sees it; ``None`` is a spectator: what every viewer may see
    (``_public``), then what only ``seat`` may -- its hand, its ditched cards, its own loon
    total and its legal moves."""
    view = _shown.view(table, state, lambda: _public(table, state))
    if seat is not None and 0 <= seat < state.players:
        view["seat"] = seat
        view["hand"] = _names(state.hands[seat])
        view["ditched"] = _names(state.ditched[seat])
        view["loon"] = state.loon[seat]
        view["legal"] = [m.to_json() for m in table.legal(state, seat)]
    return view


_shown = Shown()


def _public(table: Table, state: State) -> dict[str, JSON]:
    """What every viewer of ``state`` may see, seated or not (a spectator's view)."""
    n = state.players
    over = state.phase == OVER
    outcome = table.outcome(state)
    in_auction = state.phase in (BID, PICK, AWARD)
    view: dict[str, JSON] = {
        "game": ID,
        "players": n,
        "seat": None,
        "round": state.round,
        "rounds": state.rounds,
        "rules": state.rules,  # the edition of the rules (README.md, "Editions")
        "phase": PHASES[state.phase],
        "score_cards": [
            {
                "round": r + 1,
                "recruitment": [CARDS[row[0]].id, CARDS[row[1]].id],
                "capture": CARDS[row[2]].id,
                "treasure": CARDS[row[3]].id,
            }
            for r, row in enumerate(state.scores)
        ],
        "hand": None,
        "ditched": None,
        "hand_sizes": [len(h) for h in state.hands],
        "rows": [
            {
                "up": _names(state.row_up[r]),
                "down": len(state.row_down[r]),
                "owner": state.row_owner[r] if state.row_owner[r] >= 0 else None,
                "loon": state.row_loon[r],
                "offers": state.row_offers[r],
            }
            for r in range(n)
        ],
        "offer": state.offer if in_auction else None,
        "tied": list(state.tied),
        "tie_bid": state.tie_bid if state.phase in (PICK, AWARD) else None,
        "picker": state.picker if state.phase == AWARD else None,
        "auction": [_offer(o) for o in state.auction],
        "go_first": state.go_first if state.go_first >= 0 else None,
        "predictions": [p if p >= 0 else None for p in state.predictions],
        "recruited": [
            {
                "seat": r.seat,
                "card": CARDS[r.card].id,
                "sets": [_names(group) for group in r.sets],
                "loon": r.loon,
            }
            for r in state.recruited
        ],
        "order": list(state.order),
        "trick": _plays(state.trick),
        "turn": table.turn(state),
        "tricks": table.tricks(state),
        "taken": [_names(w) for w in state.won],
        "last_trick": (
            {"plays": _plays(state.last), "winner": _last_winner(state)} if state.last else None
        ),
        # "a player's total is shown to that player only ... and all totals are shown at
        # the end"; every payment and collection is public as it happens.
        "loon": None,
        "totals": list(state.loon) if over else None,
        "ledger": [
            {"round": e.round, "seat": e.seat, "amount": e.amount, "what": e.what}
            for e in state.ledger
        ],
        "prompt": table.prompt(state).to_json(),
        "legal": [],
        "outcome": outcome.to_json() if outcome else None,
    }
    return view


def _last_winner(state: State) -> int:
    return state.last[winner(state.last)][0]


def full_view(table: Table, state: State) -> dict[str, JSON]:
    """For replays of a finished game: the spectator's table with every loon total, and the
    hands once the round's cards are ditched. The ditched cards stay hidden for good (the
    rules page): a hand before the ditch holds them (with the cards played after, it would
    tell them), so it is not shown (``hands``: None)."""
    view = seat_view(table, state, None)
    view["totals"] = list(state.loon)
    ditched = state.phase in (PREDICT, PLAY, OVER)
    view["hands"] = [_names(h) for h in state.hands] if ditched else None
    return view
