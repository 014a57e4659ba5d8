"""Pirate Tricks: Bid & Make It: Skull King's rules under other names (the captain, the
rogue), so the Skull King bot plays it as it is.

    ./tortuga bot run examples/bid_tricks.py --games 3
"""

from __future__ import annotations

from skull_king import bot

GAME = "bid-tricks"

__all__ = ["GAME", "bot"]
