"""Pirate Tricks: Loon & Score Cards (seed 000), game id ``loon-tricks``."""

from engines.loon_tricks.rules import LoonTricks, Options

LOON_TRICKS = LoonTricks()

__all__ = ["LOON_TRICKS", "LoonTricks", "Options"]
