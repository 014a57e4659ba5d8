"""Where the cards are, which of them a seat cannot place, and re-deals of those.

What everyone knows about another seat's hand (kept in the state):

- ``known``: cards known to be in the hand -- the five face-up cards of the row it took
  and the cards it showed in a tie-break pick, until the ditch (after it, each of them may
  have been ditched); then the cards it showed for recruitment;
- ``vague``: cards known to be in the hand *or* among its two ditched cards.

Hidden from a seat: the face-down cards of rows not yet taken, the other hands except
their ``known`` cards, and the other seats' ditched cards. ``resample`` re-deals exactly
those, keeping every zone's size, every ``vague`` card inside its seat's hand and ditched
cards, and replaces the seed (the seed is the future deals and score cards).
"""

from __future__ import annotations

import msgspec

from engines.loon_tricks.cards import NAMES
from engines.loon_tricks.state import State
from engines.rng import Rng


def zones(state: State) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row, owner in enumerate(state.row_owner):
        live = state.row_up[row] + state.row_down[row] if owner < 0 else ()
        out[f"row:{row}"] = [NAMES[c] for c in live]
    for seat in range(state.players):
        out[f"hand:{seat}"] = [NAMES[c] for c in state.hands[seat]]
        out[f"ditched:{seat}"] = [NAMES[c] for c in state.ditched[seat]]
        out[f"won:{seat}"] = [NAMES[c] for c in state.won[seat]]
    out["trick"] = [NAMES[c] for _, c in state.trick]
    return out


def _hidden_cards(state: State, seat: int | None) -> list[int]:
    out = [c for row, owner in enumerate(state.row_owner) if owner < 0 for c in state.row_down[row]]
    for other in range(state.players):
        if other == seat:
            continue
        known = set(state.known[other])
        out += [c for c in state.hands[other] if c not in known]
        out += state.ditched[other]
    return out


def hidden(state: State, seat: int | None) -> frozenset[str]:
    return frozenset(NAMES[c] for c in _hidden_cards(state, seat))


def resample(state: State, seat: int | None, rng: Rng) -> State:
    n = state.players
    # Slots that hold a hidden card: ("down", row), ("hand", seat), ("ditched", seat).
    fill: dict[tuple[str, int], list[int]] = {}
    free_slots: list[tuple[str, int]] = []
    for row, owner in enumerate(state.row_owner):
        if owner < 0:
            fill[("down", row)] = []
            free_slots += [("down", row)] * len(state.row_down[row])
    bound: set[int] = set()
    for other in range(n):
        if other == seat:
            continue
        fill[("hand", other)] = list(state.known[other])
        fill[("ditched", other)] = []
        slots = [("hand", other)] * (len(state.hands[other]) - len(state.known[other]))
        slots += [("ditched", other)] * len(state.ditched[other])
        rng.shuffle(slots)
        vague = state.vague[other]
        for card, slot in zip(vague, slots, strict=False):
            fill[slot].append(card)
        bound.update(vague)
        free_slots += slots[len(vague) :]
    free = [c for c in _hidden_cards(state, seat) if c not in bound]
    rng.shuffle(free)
    for card, slot in zip(free, free_slots, strict=True):
        fill[slot].append(card)
    hands, ditched, down = list(state.hands), list(state.ditched), list(state.row_down)
    for (where, index), cards in fill.items():
        if where == "down":
            down[index] = tuple(sorted(cards))
        elif where == "hand":
            hands[index] = tuple(sorted(cards))
        else:
            ditched[index] = tuple(sorted(cards))
    seed = b"".join(rng.next_u64().to_bytes(8, "big") for _ in range(4))
    return msgspec.structs.replace(
        state, hands=tuple(hands), ditched=tuple(ditched), row_down=tuple(down), seed=seed
    )
