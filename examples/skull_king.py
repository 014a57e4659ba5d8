"""Skull King (and Pirate Tricks: Bid & Make It, the same rules with other names): a bot that
bids the tricks its hand should win and then plays to make exactly that bid.

It reads only its own view: ``hand``, ``bids``, ``tricks``, ``trick`` (the cards on the table,
in order), ``order`` (who plays this trick) and ``players``.

    ./tortuga bot run examples/skull_king.py --games 3
"""

from __future__ import annotations

from typing import Any

from tortuga_bot import Turn

GAME = "skull-king"

KINGS = {"skull-king", "captain"}
CHOICES = {"scary-mary", "rogue"}  # played as a pirate or as an escape


def power(card: str, as_: str | None = None, led: str | None = None) -> float:
    """How strong a card is in a trick (-1: a colour that can win nothing here)."""
    if card in KINGS:
        return 60
    if card in CHOICES:
        return 50 if as_ == "pirate" else 0
    kind, _, number = card.rpartition("-")
    if kind in ("pirate",):
        return 50
    if kind == "mermaid":
        return 40
    if kind == "escape":
        return 0
    rank = int(number)
    if kind == "black":
        return 20 + rank
    if led is not None and kind != led:
        return -1
    return rank


def win_chance(card: str, players: int, in_hand: int) -> float:
    top = power(card, "pirate")
    if top >= 60:
        return 0.9
    if top >= 50:
        return 0.7 if card in CHOICES else 0.75
    if top >= 40:
        return 0.45
    if top <= 0:
        return 0.0
    crowd = (4 / max(players, 2)) ** 0.5
    share = (top - 20) / 14 if top > 20 else top / 14
    if top > 20:
        return float(min(0.85, share**1.5 * crowd))
    return float(min(0.6, share**4 * crowd * (1.0 if in_hand <= 5 else 0.7)))


def led_suit(trick: list[dict[str, Any]]) -> str | None:
    for play in trick:
        kind = play["card"].rpartition("-")[0]
        if kind in ("yellow", "red", "blue", "green", "black"):
            return str(kind)
        if power(play["card"], play.get("as"), None) > 0:
            return None  # a character led: no colour to follow
    return None


def bot(turn: Turn) -> Any:
    view = turn.view
    if turn.prompt.kind == "bid":
        hand = view["hand"]
        want = round(sum(win_chance(c, view["players"], len(hand)) for c in hand))
        return min(turn.legal, key=lambda m: abs(m["bid"] - want))
    need = view["bids"][turn.seat] - view["tricks"][turn.seat]
    trick = view["trick"]
    led = led_suit(trick)
    best = max((power(p["card"], p.get("as"), led) for p in trick), default=-1)
    last = len(trick) == len(view["order"]) - 1

    def strength(move: dict[str, Any]) -> float:
        return power(move["play"], move.get("as"), led)

    winners = [m for m in turn.legal if strength(m) > best]
    losers = [m for m in turn.legal if strength(m) <= best]
    if need > 0 and winners:
        # The cheapest winner when nobody comes after; else the strongest.
        return min(winners, key=strength) if last else max(winners, key=strength)
    if need > 0:
        return min(turn.legal, key=strength)  # cannot win this one: keep the good cards
    if losers:
        return max(losers, key=strength)  # enough tricks: get rid of danger, still losing
    return min(turn.legal, key=strength)
