"""Pirate King! (seed 001): deck-building push-your-luck for 2-5 players, 7 rounds."""

from engines.pirate_king.rules import Options, PirateKing

PIRATE_KING = PirateKing()

__all__ = ["PIRATE_KING", "Options", "PirateKing"]
