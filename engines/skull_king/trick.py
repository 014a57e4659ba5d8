"""Who wins a trick, which suit must be followed, and the bonus a trick carries.

A play is ``(hand, card, as_)`` with ``as_`` one of AS_NONE / AS_PIRATE / AS_ESCAPE.
The functions take the plays in the order they were made.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.skull_king.cards import (
    AS_ESCAPE,
    CHOICE,
    ESCAPE,
    KING,
    MERMAID,
    NUMBER,
    PIRATE,
    Deck,
)

Play = tuple[int, int, int]  # (hand, card, as_)


def role(deck: Deck, card: int, as_: int) -> int:
    """What a played card acts as: Scary Mary / the Rogue become a Pirate or an Escape."""
    kind = deck.kind[card]
    if kind == CHOICE:
        return ESCAPE if as_ == AS_ESCAPE else PIRATE
    return kind


def roles(deck: Deck, plays: Sequence[Play]) -> list[int]:
    """``role`` of each play, in order (written out: it runs for every finished trick)."""
    kind = deck.kind
    return [
        (ESCAPE if as_ == AS_ESCAPE else PIRATE) if kind[card] == CHOICE else kind[card]
        for _, card, as_ in plays
    ]


def suit_led(deck: Deck, plays: Sequence[Play]) -> int:
    """The suit to follow, or -1 for none.

    Classic: "If the first card played is a special card, the next suit card to be played
    determines the suit to be followed." Bid-and-make: "If a special card is led there is no
    suit to follow; after an Escape the next numbered card sets the suit."
    """
    kind = deck.kind
    for i, (_, card, as_) in enumerate(plays):
        k = kind[card]
        if k == NUMBER:
            return deck.suit[card]
        if k == ESCAPE or (k == CHOICE and as_ == AS_ESCAPE):  # role(...) == ESCAPE
            continue
        if i == 0 and deck.edition.character_lead_sets_no_suit:
            return -1
    return -1


def winner(deck: Deck, plays: Sequence[Play]) -> int:
    """The index (into ``plays``) of the play that takes the trick."""
    roles_ = roles(deck, plays)
    if KING in roles_:
        # Classic: "If the Mermaid is in the same trick as the Skull King, the Mermaid always
        # wins the trick". Bid-and-make: "a Mermaid captures the Captain: whenever both are in
        # a trick the first Mermaid wins, Pirates or not."
        if MERMAID in roles_:
            return roles_.index(MERMAID)
        return roles_.index(KING)
    if PIRATE in roles_:
        return roles_.index(PIRATE)  # "the card first played is higher"
    if MERMAID in roles_:
        return roles_.index(MERMAID)
    best = -1
    best_key = -1  # black beats the suit led beats the rest; then the higher rank (< 100)
    lead = suit_led(deck, plays)
    suits, ranks, black = deck.suit, deck.rank, deck.black
    for i, (_, card, _as) in enumerate(plays):
        if roles_[i] != NUMBER:
            continue
        suit = suits[card]
        if suit == black:
            key = 200 + ranks[card]
        elif suit == lead:
            key = 100 + ranks[card]
        else:
            continue
        if key > best_key:
            best, best_key = i, key
    if best >= 0:
        return best
    # "if all the players play an Escape card, the trick is won by the player who played the
    # first Escape card."
    return 0


def bonus(deck: Deck, plays: Sequence[Play], win: int) -> int:
    """Bonus points the trick's taker earns (counted only if their bid is exact)."""
    _, card, as_ = plays[win]
    taker = role(deck, card, as_)
    e = deck.edition
    if not e.character_lead_sets_no_suit:  # classic scoring
        if taker == KING:
            # "+30 for each Pirate card in the trick. The Scary Mary always counts as a pirate
            # even though she was played as the Escape."
            return 30 * sum(
                1
                for _, c, a in plays
                if deck.kind[c] == PIRATE
                or (deck.kind[c] == CHOICE and (e.choice_escape_counts_as_pirate or a != AS_ESCAPE))
            )
        if taker == MERMAID and any(deck.kind[c] == KING for _, c, _a in plays):
            return 50
        return 0
    points = 0
    top, ranks = e.top_rank, deck.rank  # special cards have rank 0: only numbers count here
    for _, c, _a in plays:
        if ranks[c] == top:
            points += 20 if deck.suit[c] == deck.black else 10
    if taker in (NUMBER, ESCAPE):
        return points
    roles_ = roles(deck, plays)
    if taker == PIRATE:
        points += 20 * roles_.count(MERMAID)
    elif taker == KING:
        points += 30 * roles_.count(PIRATE)  # the Rogue as an Escape is not a Pirate here
    elif taker == MERMAID and KING in roles_:
        points += 40
    return points


def follows(deck: Deck, plays: Sequence[Play], hand: Sequence[int], card: int) -> bool:
    """May ``card`` be played from ``hand`` onto ``plays``? (follow suit if you can; special
    cards may always be played.)"""
    suit = deck.suit  # -1 for special cards
    if suit[card] < 0 or not plays:
        return True
    lead = suit_led(deck, plays)
    if lead < 0 or suit[card] == lead:
        return True
    return lead not in [suit[c] for c in hand]
