"""The table during one step: a mutable working copy of a ``State`` that runs the course of
a round.

``Table(state)`` thaws a state into lists, the rules mutate it, ``freeze()`` gives the next
state. Everything the seed says happens on its own -- reveals, the effects that ask
nothing (effects.py), sinking, reshuffles, the battle and the loot, the next round --
happens here; ``advance`` runs the table until somebody owes a decision. What each seat
holds and shows (swords, gold, crowns) is holdings.py.
"""

from __future__ import annotations

import msgspec

from engines.pirate_king.cards import CARDS, LOOT_IDS, MONSTER_IDS, starting_deck
from engines.pirate_king.effects import Effects
from engines.pirate_king.holdings import loot_row_size, monster_row_size
from engines.pirate_king.state import (
    BATTLE,
    CROWN,
    OVER,
    PICK,
    PLAY,
    RECLAIM,
    RECLAIM_CARD,
    REVEALING,
    STOPPED,
    SUNK,
    Decision,
    State,
)
from engines.pirate_king.state import LOOT as LOOT_STEP
from engines.rng import Rng

ROUNDS = 7
SINK_AT = 3  # "SINK: when you reveal a third Curse"


class Table(Effects):
    """A thawed state that plays on until a seat owes a decision."""

    # -- the beat ------------------------------------------------------------------------
    def flip_together(self, seats: list[int], by_effect: bool = False) -> None:
        """Every listed seat reveals its top card at the same moment; then the effects are
        resolved, seat by seat clockwise from the Captain (**house** order). ``by_effect``:
        another player's Reveal made them (FAQ 1: their cards go in columns)."""
        placed = [(seat, self.reveal(seat, by_effect)) for seat in seats]
        for seat, card in placed:
            if card is not None:
                self.resolve(seat, card)

    def settle(self) -> bool:
        """Resolve effects until a decision is owed (False) or the beat is over (True)."""
        while True:
            for seat in self.clockwise():
                while self.pending[seat] is None and self.draws[seat] > 0:
                    self.draws[seat] -= 1
                    self.resolve_reveal(seat)
            if any(p is not None for p in self.pending):
                return False
            if any(self.draws):
                continue  # pragma: no cover - every seat without a decision has drawn
            if not self.others:
                return True
            # "If, during a turn, several effects apply to other players, they are resolved
            # clockwise, starting with the pirate who holds the Captain token."
            at = min(
                range(len(self.others)),
                key=lambda i: ((self.others[i][0] - self.captain) % self.players, i),
            )
            owner, base = self.others.pop(at)
            effect = CARDS[base].effect
            assert effect is not None and effect.kind == "reveal"
            # The other players who still reveal: "if you have "decided to stop", you can no
            # longer reveal other cards until the next round" (FAQ 2).
            victims = [t for t in self.clockwise() if t != owner and self.status[t] == REVEALING]
            self.flip_together(victims, by_effect=True)
            for t in victims:
                self.draws[t] += effect.n - 1

    def sink(self) -> None:
        """ "You do not "sink" until all the card effects have been resolved" (FAQ 3): judged
        once the beat has resolved. "All the cards revealed so far in your play zone are
        sent to your discard pile" -- but a card another player gave stays where it was
        placed "until the end of the round" and goes back to its giver then (edition 1: it
        went to the discard with the rest, and was the receiver's from then on)."""
        for seat in range(self.players):
            if self.status[seat] != SUNK and self.curses(seat) >= SINK_AT:
                self.status[seat] = SUNK
                lent = [self.rules > 1 and e.giver >= 0 for e in self.zones[seat]]
                self.discards[seat].extend(
                    e.card for e, given in zip(self.zones[seat], lent, strict=True) if not given
                )
                self.zones[seat] = [
                    e for e, given in zip(self.zones[seat], lent, strict=True) if given
                ]

    def beat_over(self) -> None:
        """After a beat: sink, and a player with nothing left to reveal stops."""
        self.sink()
        for seat in range(self.players):
            if self.status[seat] == REVEALING and not self.piles[seat] and not self.discards[seat]:
                self.status[seat] = STOPPED

    # -- the round -----------------------------------------------------------------------
    def start_game(self) -> None:
        """Every Pirate is picked: each pile is the starting deck and the Pirate, shuffled."""
        for seat in range(self.players):
            self.discards[seat] = sorted((*starting_deck(seat), self.pirates[seat]))
            self.piles[seat] = []
            self.top_up(seat, 1)
        self.box.extend(
            sorted(c.id for c in CARDS if c.type == "pirate" and c.id not in self.pirates)
        )
        self.start_round(1)

    def start_round(self, round_: int) -> None:
        """ "Reveal 2 Monster cards and as many Loot cards as there are players"; then "ALL
        players must reveal the top card of their pile"."""
        self.round = round_
        self.phase = PLAY
        self.beat = 1
        self.status = [REVEALING] * self.players
        take = monster_row_size(self.players)
        self.monster_row, self.monster_pile = self.monster_pile[:take], self.monster_pile[take:]
        take = loot_row_size(self.players)
        self.loot_at = len(LOOT_IDS) - len(self.loot_pile)
        self.loot_row, self.loot_pile = self.loot_pile[:take], self.loot_pile[take:]
        self.ranking = []
        self.picks = 0
        self.flip_together(self.clockwise())

    def takers(self) -> int:
        """How many players choose in this step."""
        if self.phase == BATTLE:
            # "ONLY the 1st and 2nd person with the most swords" (2 players: "only the person
            # with the most swords")
            return min(1 if self.players == 2 else 2, self.picks + len(self.monster_row))
        row = len(self.loot_row)
        left = (row + 1) // 2 if self.players == 2 else row
        return min(self.players, self.picks + left)

    def rank(self, values: list[int]) -> None:
        """The order of selection, tied seats grouped (more first)."""
        groups: dict[int, list[int]] = {}
        for seat in self.clockwise():
            groups.setdefault(values[seat], []).append(seat)
        self.ranking = [tuple(groups[v]) for v in sorted(groups, reverse=True)]
        self.picks = 0

    def tie(self) -> tuple[int, ...] | None:
        """The first tie that decides who chooses or when, if any."""
        place = 0
        takers = self.takers()
        for group in self.ranking:
            if place >= takers:
                return None
            if len(group) > 1:
                return group
            place += len(group)
        return None

    def order_tie(self, order: tuple[int, ...]) -> None:
        """ "the person who holds the Captain token decides the order of selection. If you
        have to choose last in each tie, you receive the Captain token" (FAQ 5: each tie in
        turn, the token moving after each)."""
        group = self.tie()
        assert group is not None and sorted(group) == sorted(order)
        at = self.ranking.index(group)
        self.ranking[at : at + 1] = [(seat,) for seat in order]
        self.captain = order[-1]

    def chooser(self) -> int:
        return [seat for group in self.ranking for seat in group][self.picks]

    def take(self, card: int, drop: int | None) -> None:
        seat = self.chooser()
        row = self.monster_row if self.phase == BATTLE else self.loot_row
        row.remove(card)
        self.discards[seat].append(card)  # "added to their respective discard piles"
        if drop is not None:
            row.remove(drop)
            self.box.append(drop)
        self.picks += 1

    def options(self) -> list[tuple[int, int | None]]:
        """The (card, drop) choices of the player choosing now."""
        row = self.monster_row if self.phase == BATTLE else self.loot_row
        if self.phase == LOOT_STEP and self.players == 2 and len(row) > 1:
            # "when you choose a Loot card from the Loot zone, discard another card"
            return [(c, d) for c in row for d in row if c != d]
        return [(c, None) for c in row]

    def advance(self) -> None:
        """Run until a decision is owed or the game is over."""
        while True:
            if self.phase == PLAY:
                if not self.settle():
                    return
                self.beat_over()
                if REVEALING in self.status:
                    return
                self.phase = BATTLE
                self.rank([self.swords(s) for s in range(self.players)])
            if self.phase in (BATTLE, LOOT_STEP):
                if self.tie() is not None:
                    return
                if self.picks < self.takers():
                    options = self.options()
                    if len(options) > 1:
                        return
                    self.take(*options[0])
                    continue
                if self.phase == BATTLE:
                    # 2 players: "discarding the other one into the box"
                    self.box.extend(self.monster_row)
                    self.monster_row.clear()
                    self.phase = LOOT_STEP
                    self.rank([self.gold(s) for s in range(self.players)])
                    continue
                self.box.extend(self.loot_row)
                self.loot_row.clear()
                self.phase = RECLAIM
                if self.rules == 1:
                    self.ask_reclaims()
            if self.phase == RECLAIM:
                if any(p is not None for p in self.pending):
                    return
                self.end_round()
                if self.phase == PLAY:
                    continue
            return

    def ask_reclaims(self) -> None:
        """Edition 1: "Remember to retrieve it, otherwise it is lost!" -- each giver decides,
        one given card at a time, to take it back or leave it (edition 2: every given card
        goes back, ``end_round``)."""
        for seat in range(self.players):
            if self.pending[seat] is None:
                given = [e.card for z in self.zones for e in z if e.giver == seat]
                if given:
                    self.pending[seat] = Decision(RECLAIM_CARD, given[0])

    def reclaim(self, seat: int, card: int, keep: bool) -> None:
        holder = next(h for h, z in enumerate(self.zones) if any(e.card == card for e in z))
        index = self.at(holder, card)
        if keep:
            del self.zones[holder][index]
            self.discards[seat].append(card)
        else:
            # FAQ 6: "ends up in the discard pile of the person who had received him."
            entry = self.zones[holder][index]
            self.zones[holder][index] = msgspec.structs.replace(entry, giver=-1)
        self.ask_reclaims()

    def end_round(self) -> None:
        """A given card goes back to its giver: "Place this card in another pirate's play
        zone until the end of the round. Remember to retrieve it" (edition 1: the giver had
        decided already). Then "Pick up and send to your discard pile all the revealed cards
        in your personal play zone." A player with an empty pile shuffles the discard into
        a new pile."""
        for zone in self.zones:
            for entry in [e for e in zone if e.giver >= 0]:
                zone.remove(entry)
                self.discards[entry.giver].append(entry.card)
        for seat in range(self.players):
            self.discards[seat].extend(e.card for e in self.zones[seat])
            self.zones[seat].clear()
            self.top_up(seat, 1)
        self.status = [REVEALING] * self.players
        self.draws = [0] * self.players
        self.others = []
        self.ranking = []
        self.picks = 0
        self.tallies.append(tuple(self.crowns(s) for s in range(self.players)))
        if self.round < ROUNDS:
            self.start_round(self.round + 1)
            return
        self.end_game()

    # -- the end -------------------------------------------------------------------------
    def end_game(self) -> None:
        self.phase = CROWN if self.tied_for_win() else OVER


def first_picker(state: State) -> int:
    """The seat that picks a Pirate now: from the Captain, clockwise."""
    picked = sum(1 for p in state.pirates if p >= 0)
    return (state.captain + picked) % state.players


def new_state(players: int, seed: bytes, rules: int) -> State:
    """The game before anyone has picked a Pirate, under edition ``rules`` of the rules: the
    Monster and Loot piles shuffled, the Captain drawn (**house** for "the person who last
    touched water")."""
    empty: tuple[tuple[int, ...], ...] = tuple(() for _ in range(players))
    zero = tuple(0 for _ in range(players))
    return State(
        players=players,
        seed=bytes(seed),
        round=0,
        phase=PICK,
        captain=Rng(seed, "captain").below(players),
        beat=0,
        pirates=tuple(-1 for _ in range(players)),
        piles=tuple(starting_deck(s) for s in range(players)),
        known=zero,
        shuffles=zero,
        discards=empty,
        zones=tuple(() for _ in range(players)),
        status=zero,
        draws=zero,
        pending=tuple(None for _ in range(players)),
        others=(),
        monster_pile=tuple(Rng(seed, "monsters").shuffled(MONSTER_IDS)),
        monster_row=(),
        loot_pile=tuple(Rng(seed, "loot").shuffled(LOOT_IDS)),
        loot_row=(),
        box=(),
        ranking=(),
        picks=0,
        winner=-1,
        made=empty,
        tallies=(),
        rules=rules,
    )
