"""Multiplayer ratings with openskill: the full-pairing Bradley-Terry model, default parameters.

Why not Plackett-Luce, the library's default: in openskill 6.x it mishandles ties -- with
ranks [1, 1, 3, 4] the third player gains as much as the two tied winners and ends with a
higher ordinal than they do (openskill.py issues #155 and #173, fix pending in PR #176).
Equal scores are common in trick-taking games (every score is a multiple of 10), so that
would rank players wrongly. Full-pairing Bradley-Terry treats a game as every pair of players
compared (a tie is a draw); for two players it is the same as Plackett-Luce, and for the
2 to 8 players of our games its quadratic cost is nothing.

A rating is (mu, sigma); leaderboards sort by the ordinal ``mu - 3 sigma``, a conservative
estimate that starts at 0 and rises as a player wins and as their sigma shrinks. Only games
with at least two established human seats (users no bot played, not fresh: see
``write.RatingRules``) are rated, only among those users, by the ranks of the outcome
(equal ranks tie). A game a seated host ended under way is rated with the host ranked
last. A game where a stand-in (the grace-time bot, or the default of ``absent:
"default"``) made some of a player's moves while they were away is rated like any other:
the seat is still the user's, and the archive records which moves were not theirs
(``events.proxies``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import BradleyTerryFull

MODEL = BradleyTerryFull()


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


def initial() -> Skill:
    return Skill(MODEL.mu, MODEL.sigma)


def rate(before: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """New skills of players who finished with ``ranks`` (1 is best, equal ranks tie)."""
    if len(before) != len(ranks):
        raise ValueError("one rank per player")
    if len(before) < 2:
        return list(before)
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in before]
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in after]
