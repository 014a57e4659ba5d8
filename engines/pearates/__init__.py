"""Pearates (seed 004): a treasure-bidding and bluffing game, with both expansions."""

from engines.pearates.rules import Options, Pearates

PEARATES = Pearates()

__all__ = ["PEARATES", "Options", "Pearates"]
