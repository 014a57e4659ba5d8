"""Pirate Tricks: Bid & Make It: Skull King's rules under other names (the captain, the
rogue), so the Skull King bot plays it as it is.

    ./tortuga bot run examples/bid_tricks.py --games 3
"""

from __future__ import annotations

from pathlib import Path

from tortuga_bot.loader import load_module

# The Skull King example beside this file, loaded by its path (as `tortuga bot run` loads a
# bot): a module of another name `skull_king` on the path cannot stand in for it.
bot = load_module(str(Path(__file__).with_name("skull_king.py"))).bot

GAME = "bid-tricks"

__all__ = ["GAME", "bot"]
