"""Bots: a function of the view of their own seat only (they never peek).

``uniform`` picks any legal move. ``heuristic`` reveals while the chance that the next card
sinks it is small (it counts the curses in its pile, which are public, or reads the top card
when it has looked at it), stops otherwise; takes the Monster or Loot worth most crowns (map
fragments by what they add to its set), leaves the 2-player rival the worst; flips and
discards curses, gives Wilson to whoever is closest to sinking and never takes him back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.core import JSON
from engines.pirate_king.cards import CARDS, INDEX, map_crowns
from engines.pirate_king.moves import CardMove, Do, Move, Order, Pick, SeatMove, Stack, Take
from engines.rng import Rng

SINK_AT = 3
RISK = 0.3  # stop when the next card sinks with at least this chance
PIRATE_TASTE = (
    "navy",
    "scarlette",
    "gary",
    "yellow",
    "red",
    "rossy",
    "violette",
    "blackbeard",
    "sea-witch",
    "wilson",
)


def uniform(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    return rng.choice(legal)


def _strength(name: str) -> float:
    """A card in the play zone: swords and gold are good, curses bad."""
    card = CARDS[INDEX[name]]
    return card.swords + card.gold - 2.5 * card.curses + (1.0 if card.effect else 0.0)


def _worth(name: str, maps: int) -> float:
    """A card to own: crowns at the end, and how it plays in later rounds."""
    card = CARDS[INDEX[name]]
    value = card.crowns + 0.5 * (card.swords + card.gold) - 0.7 * card.curses
    if card.map:
        value += 100.0 if maps + 1 >= 5 else map_crowns(maps + 1) - map_crowns(maps)
    if card.effect is not None:
        value += 0.5
    return value


def _keep_revealing(view: Mapping[str, JSON], me: Mapping[str, JSON]) -> bool:
    curses = int(me["curses"])
    margin = SINK_AT - curses  # a card with this many curses sinks
    known = view["known"] or []
    if known:
        return bool(CARDS[INDEX[str(known[0])]].curses < margin)
    profile: list[int] = [int(n) for n in me["pile_curses"]]
    if not sum(profile):
        profile = [0, 0, 0]
        for name in me["discard"]:
            profile[min(CARDS[INDEX[name]].curses, 2)] += 1
    total = sum(profile)
    if not total:
        return False
    sinking = sum(n for curses_, n in enumerate(profile) if curses_ >= margin)
    return bool(sinking / total < RISK)


def heuristic(view: Mapping[str, JSON], legal: Sequence[Move], rng: Rng) -> Move:
    if not legal:
        raise ValueError("no legal move to choose from")
    seat = view["seat"]
    assert isinstance(seat, int)
    me = view["table"][seat]
    first = legal[0]
    if isinstance(first, Pick):
        names = {m.card: m for m in legal if isinstance(m, Pick)}
        return next(names[n] for n in PIRATE_TASTE if n in names)
    if isinstance(first, Do):
        if view["decision"] is None:  # a beat
            return Do("reveal") if _keep_revealing(view, me) else Do("stop")
        return Do("reveal") if int(me["curses"]) < SINK_AT - 1 else Do("pass")
    if isinstance(first, Stack):
        # Safest cards on top.
        return max(
            legal, key=lambda m: [_strength(c) for c in m.cards] if isinstance(m, Stack) else []
        )
    if isinstance(first, Order):
        mine = [m for m in legal if isinstance(m, Order) and m.seats[0] == seat]
        return mine[0] if mine else first
    if isinstance(first, Take):
        maps = int(me["maps"])

        def score(m: Move) -> float:
            assert isinstance(m, Take)
            # Take the best; leave the rival the worst (drop the next best).
            return _worth(m.card, maps) + (0.5 * _worth(m.drop, 0) if m.drop else 0.0)

        return max(legal, key=score)
    if isinstance(first, SeatMove):
        if first.verb == "crown":
            return next((m for m in legal if isinstance(m, SeatMove) and m.seat == seat), first)
        table = view["table"]

        def danger(m: Move) -> tuple[int, int]:
            assert isinstance(m, SeatMove)
            other = table[m.seat]
            return (int(other["curses"]), int(other["crowns"]))

        return max(legal, key=danger)
    assert isinstance(first, CardMove)
    if first.verb in ("reclaim", "leave"):
        name = first.card
        keep = CARDS[INDEX[name]].curses == 0
        return CardMove("reclaim" if keep else "leave", name)
    if first.verb == "flip":
        return max(legal, key=lambda m: -_strength(m.card) if isinstance(m, CardMove) else 0)
    # choose / retrieve: the strongest card.
    return max(legal, key=lambda m: _strength(m.card) if isinstance(m, CardMove) else 0)


__all__: list[str] = ["heuristic", "uniform"]
