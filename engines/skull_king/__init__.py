"""Skull King (seed 003) and Pirate Tricks: Bid & Make It (seed 002): one engine, two editions."""

from engines.skull_king.cards import BID_AND_MAKE, CLASSIC
from engines.skull_king.rules import Options, SkullKing

SKULL_KING = SkullKing(CLASSIC)
BID_TRICKS = SkullKing(BID_AND_MAKE)

__all__ = ["BID_TRICKS", "SKULL_KING", "Options", "SkullKing"]
