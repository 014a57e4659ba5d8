"""What each seat may see, built by adding what it may know (allow-list).

Everyone sees the table: every play zone, every discard pile ("Your discard pile must
always be placed face up"), the rows, the Captain, pile sizes, the battle and loot order.
Nobody sees the order of a pile ("You can only look at your discard pile", FAQ 4) -- but a
player sees the top cards of its own pile it has looked at (Look, Choose), and only those.
The Monster and Loot piles are seen by nobody. Which cards are in a pile is public (every
card a player owns was seen when it was taken), so a pile's profile by curses is shown.
"""

from __future__ import annotations

from engines.core import JSON
from engines.pirate_king.cards import CURSES, NAMES, PIRATE_IDS
from engines.pirate_king.standing import ID, Standing
from engines.pirate_king.state import (
    DECISION_NAMES,
    PICK,
    SUNK,
    Entry,
    State,
)
from engines.pirate_king.table import ROUNDS, Table
from engines.shown import Shown

PHASES = ("pick", "play", "battle", "loot", "reclaim", "crown", "over")
STATUS = ("revealing", "stopped", "sunk")


def _entry(entry: Entry) -> dict[str, JSON]:
    return {
        "card": NAMES[entry.card],
        "up": entry.up,
        "copy": NAMES[entry.copy] if entry.copy >= 0 else None,
        "swords": entry.swords,
        "gold": entry.gold,
        "given_by": entry.giver if entry.giver >= 0 else None,
        "effect": entry.effect,  # placed by an effect: a column (FAQ 1)
        "placed": entry.placed,  # placed, not revealed: a Copy passes over it
    }


def _profile(pile: tuple[int, ...]) -> list[int]:
    """How many cards of the pile show 0, 1 and 2 curses (public: owned cards are known)."""
    out = [0, 0, 0]
    for card in pile:
        out[CURSES[card]] += 1
    return out


def _made(state: State, seat: int) -> JSON:
    """What anyone may check of the seat's current pile: the ``pile:<seat>:<n>`` stream
    shuffled ``from`` (the discard it was made of, in card order: it was face up; the first
    pile's are the starting deck and the Pirate, named by the client) and, for each position
    of that order, the card once it has left the pile (revealed, chosen, discarded: seen by
    all), else None. The cards still in the pile stay unnamed."""
    made = state.made[seat] if state.made else ()
    if not made:
        return None
    n = state.shuffles[seat] - 1
    inside = set(state.piles[seat])
    return {
        "n": n,
        "from": [NAMES[c] for c in sorted(made)] if n > 0 else None,
        "drawn": [None if c in inside else NAMES[c] for c in made],
    }


def seat_view(standing: Standing, state: State, seat: int | None) -> dict[str, JSON]:
    """The table as ``seat`` sees it; ``None`` is a spectator: what every viewer may see
    (``_public``), then what only ``seat`` may -- the top cards of its pile it has looked
    at, its decision and its legal moves."""
    view = _shown.view(standing, state, lambda: _public(standing, state))
    if seat is not None and 0 <= seat < state.players:
        decision = state.pending[seat]
        view["seat"] = seat
        view["known"] = [NAMES[c] for c in state.piles[seat][: state.known[seat]]]
        view["decision"] = (
            {
                "kind": DECISION_NAMES[decision.kind],
                "card": NAMES[decision.card],
                "n": decision.n,
            }
            if decision is not None
            else None
        )
        view["legal"] = [m.to_json() for m in standing.legal(state, seat)]
    return view


_shown = Shown()


def _public(standing: Standing, state: State) -> dict[str, JSON]:
    """What every viewer of ``state`` may see, seated or not (a spectator's view)."""
    players = state.players
    table = Table(state)
    outcome = standing.outcome(state)
    prompt = standing.prompt(state)
    tie = table.tie() if state.phase in (2, 3) else None
    seats: list[JSON] = []
    for s in range(players):
        seats.append(
            {
                "seat": s,
                "pirate": NAMES[state.pirates[s]] if state.pirates[s] >= 0 else None,
                "status": STATUS[state.status[s]],
                "pile": len(state.piles[s]),
                "pile_curses": _profile(state.piles[s]),
                "discard": [NAMES[c] for c in state.discards[s]],
                "zone": [_entry(e) for e in state.zones[s]],
                "swords": table.swords(s),
                "gold": table.gold(s),
                "curses": 0 if state.status[s] == SUNK else table.curses(s),
                "crowns": table.crowns(s) - (1 if state.captain == s else 0),
                "maps": table.maps(s),
                "made": _made(state, s),
            }
        )
    view: dict[str, JSON] = {
        "game": ID,
        "players": players,
        "seat": None,
        "round": state.round,
        "rounds": ROUNDS,
        "rules": state.rules,  # the edition of the rules (README.md, "Editions")
        "phase": PHASES[state.phase],
        "beat": state.beat,
        "captain": state.captain,
        "table": seats,
        "pirates": (
            [NAMES[c] for c in PIRATE_IDS if c not in state.pirates] if state.phase == PICK else []
        ),
        "monster_row": [NAMES[c] for c in state.monster_row],
        "loot_row": [NAMES[c] for c in state.loot_row],
        "loot_at": state.loot_at,  # the row's place in the Loot pile as first shuffled
        "monster_pile": len(state.monster_pile),
        "loot_pile": len(state.loot_pile),
        "box": [NAMES[c] for c in state.box],
        "others": [{"seat": o, "card": NAMES[c]} for o, c in state.others],
        "ranking": [list(g) for g in state.ranking],
        "picks": state.picks,
        "tie": sorted(tie) if tie is not None else None,
        # Only the seat's own (``seat_view``): the top cards it has looked at, its decision.
        "known": None,
        "decision": None,
        "winner": state.winner if state.winner >= 0 else None,
        # Each round's crowns per seat at its end (the game-over chart).
        "tallies": [list(t) for t in state.tallies],
        "prompt": prompt.to_json(),
        "legal": [],
        "outcome": outcome.to_json() if outcome else None,
    }
    return view


def full_view(standing: Standing, state: State) -> dict[str, JSON]:
    """Every pile in order, and the Monster and Loot piles: for replays once it is over."""
    view = seat_view(standing, state, None)
    view["piles"] = [[NAMES[c] for c in pile] for pile in state.piles]
    view["monster_pile_cards"] = [NAMES[c] for c in state.monster_pile]
    view["loot_pile_cards"] = [NAMES[c] for c in state.loot_pile]
    return view
