"""Who takes a trick, and which cards follow suit.

"You must follow suit if you have it ... Red always trumps green and blue ... If one or more
red cards were played, the player who played the highest red card always wins the trick."
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.loon_tricks.cards import RED, number, suit
from engines.loon_tricks.state import Played


def winner(plays: Sequence[Played]) -> int:
    """The index (in ``plays``) of the card that takes the trick."""
    reds = [i for i, (_, card) in enumerate(plays) if suit(card) == RED]
    if reds:
        return max(reds, key=lambda i: number(plays[i][1]))
    led = suit(plays[0][1])
    same = [i for i, (_, card) in enumerate(plays) if suit(card) == led]
    return max(same, key=lambda i: number(plays[i][1]))


def playable(plays: Sequence[Played], hand: Sequence[int]) -> list[int]:
    """The cards of ``hand`` that may go to the trick: the suit led if the hand holds it."""
    if not plays:
        return list(hand)
    led = suit(plays[0][1])
    follow = [c for c in hand if suit(c) == led]
    return follow or list(hand)
