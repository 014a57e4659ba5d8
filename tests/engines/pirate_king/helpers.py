"""Exact table situations for the rule tests.

``arrange`` starts a real game, has every seat pick a Pirate, and then replaces the parts
of the state a test cares about (piles top first, play zones, discards, statuses, rows) --
cards named. Cards not placed anywhere stay where the real start put them, minus those
placed, so each card is in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engines.pirate_king import PIRATE_KING
from engines.pirate_king.cards import INDEX, NAMES
from engines.pirate_king.moves import Do, Move
from engines.pirate_king.state import PLAY, REVEALING, Entry, State

GAME = PIRATE_KING
SEED = b"pirate-king-rule-tests"


def c(name: str) -> int:
    return INDEX[name]


def names(cards: Sequence[int]) -> list[str]:
    return [NAMES[x] for x in cards]


def zone(state: State, seat: int) -> list[str]:
    return [NAMES[e.card] for e in state.zones[seat]]


def picked(players: int, seed: bytes = SEED) -> State:
    """A real game once everyone has picked (the first Pirate left each time)."""
    state = GAME.start(GAME.options(), players, seed)
    while GAME.prompt(state).kind == "pick":
        (seat,) = GAME.prompt(state).seats
        state = GAME.step(state, {seat: GAME.legal(state, seat)[0]})
    return state


def entry(spec: str) -> Entry:
    """``"cutlass-1"``, ``"cutlass-1 down"`` (face down), ``"grog-1 placed"`` (placed by an
    effect, not revealed), ``"wilson from 2"`` (given by 2: placed too)."""
    words = spec.split(" ")
    card = c(words[0])
    up = "down" not in words
    giver = int(words[words.index("from") + 1]) if "from" in words else -1
    placed = "placed" in words or giver >= 0
    return Entry(card, up=up, giver=giver, effect=placed, placed=placed)


def plain(seat: int) -> list[str]:
    """Four cards of a seat's starting deck without effect or curse."""
    d = seat + 1
    return [f"deckhand-{d}a", f"coin-purse-{d}a", f"deckhand-{d}b", f"coin-purse-{d}b"]


def arrange(
    players: int = 3,
    *,
    piles: Mapping[int, Sequence[str]] | None = None,
    zones: Mapping[int, Sequence[str]] | None = None,
    discards: Mapping[int, Sequence[str]] | None = None,
    status: Sequence[int] | None = None,
    captain: int = 0,
    monster_row: Sequence[str] | None = None,
    loot_row: Sequence[str] | None = None,
    loot_pile: Sequence[str] | None = None,
    round_: int = 1,
    **fields: Any,
) -> State:
    """A state in step 2 (PLAY), every seat revealing unless ``status`` says otherwise,
    nobody owing a decision: the next move is a beat.

    A seat without a given pile gets ``plain(seat)``; discards are empty unless given; every
    card placed nowhere is in the box (out of the game), so each card is in one place.
    """
    base = picked(players)
    piles = {s: (piles or {}).get(s, plain(s)) for s in range(players)}
    pile_ids = [tuple(c(x) for x in piles[s]) for s in range(players)]
    zone_ids = [tuple(entry(x) for x in (zones or {}).get(s, ())) for s in range(players)]
    discard_ids = [tuple(c(x) for x in (discards or {}).get(s, ())) for s in range(players)]
    monsters = tuple(c(x) for x in monster_row) if monster_row is not None else base.monster_row
    row = tuple(c(x) for x in loot_row) if loot_row is not None else base.loot_row
    loot = tuple(c(x) for x in loot_pile) if loot_pile is not None else base.loot_pile
    placed = {x for p in pile_ids for x in p} | {e.card for z in zone_ids for e in z}
    placed |= {x for d in discard_ids for x in d} | set(monsters) | set(row) | set(loot)
    monster_pile = tuple(x for x in base.monster_pile if x not in placed)
    placed |= set(monster_pile)
    box = tuple(x for x in range(len(NAMES)) if x not in placed)
    fields.setdefault("made", tuple(() for _ in range(players)))  # piles as placed here
    return msgspec.structs.replace(
        base,
        round=round_,
        phase=PLAY,
        captain=captain,
        beat=2,
        piles=tuple(pile_ids),
        zones=tuple(zone_ids),
        discards=tuple(discard_ids),
        known=tuple(0 for _ in range(players)),
        status=tuple(status) if status is not None else tuple(REVEALING for _ in range(players)),
        draws=tuple(0 for _ in range(players)),
        pending=tuple(None for _ in range(players)),
        others=(),
        monster_row=monsters,
        loot_row=row,
        loot_pile=loot,
        monster_pile=monster_pile,
        box=box,
        **fields,
    )


def beat(state: State, stop: Sequence[int] = ()) -> State:
    """One beat: every prompted seat reveals, but those in ``stop``."""
    prompt = GAME.prompt(state)
    assert prompt.kind == "reveal", prompt
    moves: dict[int, Move] = {s: Do("stop") if s in stop else Do("reveal") for s in prompt.seats}
    return GAME.step(state, moves)


def decide(state: State, moves: Mapping[int, Move]) -> State:
    return GAME.step(state, moves)


def play_out(state: State) -> State:
    """To the end of the game, every seat making its first legal move."""
    while not GAME.prompt(state).over:
        prompt = GAME.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = GAME.step(state, {s: GAME.legal(state, s)[0] for s in seats})
    return state
