"""A table during one step, thawed: a mutable working copy of a ``State``, and what each
seat holds and shows on it.

``Holdings(state)`` thaws a state into lists and ``freeze()`` gives a state back (states
themselves are frozen values and never change). What it answers reads the table as it is:
the seats clockwise from the Captain, the swords, gold and curses a play zone shows, the
cards a seat owns and the crowns and map fragments they are worth. Card effects
(effects.py) and the course of a round (table.py) build on it.
"""

from __future__ import annotations

from engines.pirate_king.cards import CARDS, CROWNS, MAPS, Card, map_crowns
from engines.pirate_king.state import SUNK, Decision, Entry, State


def symbols(entry: Entry) -> Card | None:
    """The card whose symbols an entry shows: None when face down ("loses ALL its
    properties"), the copied card for a Copy card."""
    if not entry.up:
        return None
    return CARDS[entry.copy if entry.copy >= 0 else entry.card]


def entry_swords(entry: Entry) -> int:
    card = symbols(entry)
    return 0 if card is None else card.swords + entry.swords


def entry_gold(entry: Entry) -> int:
    card = symbols(entry)
    return 0 if card is None else card.gold + entry.gold


def entry_curses(entry: Entry) -> int:
    card = symbols(entry)
    return 0 if card is None else card.curses


def monster_row_size(players: int) -> int:
    return 2


def loot_row_size(players: int) -> int:
    """ "as many Loot cards as there are players" (2 players: "4 Loot cards")."""
    return 4 if players == 2 else players


class Holdings:
    """A thawed state: the same fields, as lists."""

    def __init__(self, s: State) -> None:
        self.players = s.players
        self.seed = s.seed
        self.round = s.round
        self.phase = s.phase
        self.captain = s.captain
        self.beat = s.beat
        self.pirates = list(s.pirates)
        self.piles = [list(p) for p in s.piles]
        self.known = list(s.known)
        self.shuffles = list(s.shuffles)
        self.discards = [list(d) for d in s.discards]
        self.zones = [list(z) for z in s.zones]
        self.status = list(s.status)
        self.draws = list(s.draws)
        self.pending: list[Decision | None] = list(s.pending)
        self.others = list(s.others)
        self.monster_pile = list(s.monster_pile)
        self.monster_row = list(s.monster_row)
        self.loot_pile = list(s.loot_pile)
        self.loot_row = list(s.loot_row)
        self.box = list(s.box)
        self.ranking = list(s.ranking)
        self.picks = s.picks
        self.winner = s.winner
        self.made: list[tuple[int, ...]] = list(s.made) or [() for _ in range(s.players)]
        self.tallies = list(s.tallies)
        self.loot_at = s.loot_at
        self.rules = s.rules

    def freeze(self) -> State:
        return State(
            players=self.players,
            seed=self.seed,
            round=self.round,
            phase=self.phase,
            captain=self.captain,
            beat=self.beat,
            pirates=tuple(self.pirates),
            piles=tuple(tuple(p) for p in self.piles),
            known=tuple(self.known),
            shuffles=tuple(self.shuffles),
            discards=tuple(tuple(d) for d in self.discards),
            zones=tuple(tuple(z) for z in self.zones),
            status=tuple(self.status),
            draws=tuple(self.draws),
            pending=tuple(self.pending),
            others=tuple(self.others),
            monster_pile=tuple(self.monster_pile),
            monster_row=tuple(self.monster_row),
            loot_pile=tuple(self.loot_pile),
            loot_row=tuple(self.loot_row),
            box=tuple(self.box),
            ranking=tuple(self.ranking),
            picks=self.picks,
            winner=self.winner,
            made=tuple(self.made),
            tallies=tuple(self.tallies),
            loot_at=self.loot_at,
            rules=self.rules,
        )

    # -- seats -------------------------------------------------------------------------
    def clockwise(self) -> list[int]:
        """Every seat, clockwise (increasing seat numbers) from the Captain."""
        return [(self.captain + i) % self.players for i in range(self.players)]

    def swords(self, seat: int) -> int:
        """Visible swords; a sunk player "is considered to have -1 sword"."""
        if self.status[seat] == SUNK:
            return -1
        return sum(entry_swords(e) for e in self.zones[seat])

    def gold(self, seat: int) -> int:
        if self.status[seat] == SUNK:
            return -1
        return sum(entry_gold(e) for e in self.zones[seat])

    def curses(self, seat: int) -> int:
        return sum(entry_curses(e) for e in self.zones[seat])

    def at(self, seat: int, card: int) -> int:
        """Where ``card`` is in ``seat``'s zone."""
        return next(i for i, e in enumerate(self.zones[seat]) if e.card == card)

    # -- what a seat owns ------------------------------------------------------------------
    def owned(self, seat: int) -> list[int]:
        cards = [*self.piles[seat], *self.discards[seat]]
        cards += [e.card for z in self.zones for e in z if e.giver == seat]
        cards += [e.card for e in self.zones[seat] if e.giver < 0]
        return cards

    def maps(self, seat: int) -> int:
        return sum(MAPS[c] for c in self.owned(seat))

    def crowns(self, seat: int) -> int:
        """Crowns on all the player's cards, the map-fragment set, and the Captain token
        ("worth 1 crown to its holder at the end of the game")."""
        cards = self.owned(seat)
        total = sum(CROWNS[c] for c in cards) + map_crowns(sum(MAPS[c] for c in cards))
        return total + (1 if self.captain == seat else 0)

    def tied_for_win(self) -> list[int]:
        """The players tied for the most crowns, when nobody wins outright (and the
        Captain must decide)."""
        if any(self.maps(s) >= 5 for s in range(self.players)):
            return []
        scores = [self.crowns(s) for s in range(self.players)]
        best = max(scores)
        tied = [s for s in range(self.players) if scores[s] == best]
        return tied if len(tied) > 1 else []
