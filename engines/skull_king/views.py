"""What each seat may see, built by adding what it may know (allow-list).

A seat sees its own hand, every card played, the bids once revealed, tricks and scores. A
spectator sees the same table without any hand. Nobody sees the ghost's pile, the undealt
stock, the seed, or a bid before the reveal (the engine does not even hold those).
"""

from __future__ import annotations

from engines.core import JSON
from engines.shown import Shown
from engines.skull_king import trick
from engines.skull_king.cards import AS_NAMES, ESCAPE
from engines.skull_king.state import BID, OVER, PLAY, Played, State
from engines.skull_king.table import Table

PHASES = {BID: "bid", PLAY: "play", OVER: "over"}


def _plays(table: Table, plays: tuple[Played, ...]) -> list[JSON]:
    names = table.deck.names
    out: list[JSON] = []
    for hand, card, as_ in plays:
        item: dict[str, JSON] = {"seat": hand, "card": names[card]}
        if as_:
            item["as"] = AS_NAMES[as_]
        out.append(item)
    return out


def _led(table: Table, state: State) -> tuple[str | None, bool]:
    """The suit to follow in the trick on the table (None: none) and, when there is none,
    whether a later numbered card will still set one (the trick is empty, or only Escapes --
    or any special card in the classic edition -- were played)."""
    lead = trick.suit_led(table.deck, state.trick)
    if lead >= 0:
        return table.deck.edition.suits[lead], False
    if not state.trick or not table.deck.edition.character_lead_sets_no_suit:
        return None, True
    _, card, as_ = state.trick[0]
    return None, trick.role(table.deck, card, as_) == ESCAPE


def seat_view(table: Table, state: State, seat: int | None) -> dict[str, JSON]:
    """The table as ``seat`` sees it; ``None`` is a spectator: what every viewer may see
    (``_public``), then what only ``seat`` may -- its own hand and its legal moves."""
    view = _shown.view(table, state, lambda: _public(table, state))
    if seat is not None and 0 <= seat < state.players:
        names = table.deck.names
        view["seat"] = seat
        view["hand"] = [names[c] for c in state.hands[seat]]
        view["legal"] = [m.to_json() for m in table.legal(state, seat)]
    return view


_shown = Shown()


def _public(table: Table, state: State) -> dict[str, JSON]:
    """What every viewer of ``state`` may see, seated or not: no hand but as a count, no
    legal moves (they are the seat's own: a spectator has none)."""
    players = state.players
    outcome = table.outcome(state)
    led, led_open = _led(table, state) if state.phase == PLAY else (None, False)
    public: dict[str, JSON] = {
        "game": state.game,
        "players": players,
        "seat": None,
        "round": state.round,
        "rounds": state.rounds,
        "cards": table.cards_per_hand(players, state.round),
        "dealer": table.dealer(state),
        "phase": PHASES[state.phase],
        "hand": None,
        "hand_sizes": [len(state.hands[s]) for s in range(players)],
        "ghost": (
            {"seat": 2, "pile": len(state.hands[2]), "tricks": state.tricks[2]}
            if players == 2
            else None
        ),
        # Bids exist in the state only after the reveal.
        "bids": [b if b >= 0 else None for b in state.bids],
        "tricks": list(state.tricks[:players]),
        "order": list(state.order),
        "trick": _plays(table, state.trick),
        # The suit to follow (public: every card played is); led_open: none yet, a numbered
        # card played later will set it.
        "led": led,
        "led_open": led_open,
        "turn": table.turn(state),
        "last_trick": (
            {"plays": _plays(table, state.last), "winner": state.last_winner}
            if state.last
            else None
        ),
        "sheet": [
            {
                "round": r.round,
                "cards": r.cards,
                "bids": list(r.bids),
                "tricks": list(r.tricks),
                "bonus": list(r.bonus),
                "points": list(r.points),
            }
            for r in state.sheet
        ],
        "scores": table.totals(state),
        "prompt": table.prompt(state).to_json(),
        "legal": [],
        "outcome": outcome.to_json() if outcome else None,
    }
    return public


def full_view(table: Table, state: State) -> dict[str, JSON]:
    """Every hand and the ghost's pile: for replays once the game is over."""
    names = table.deck.names
    view = seat_view(table, state, None)
    view["hands"] = [[names[c] for c in hand] for hand in state.hands]
    return view
