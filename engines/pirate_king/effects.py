"""What a revealed card does: a seat's pile, the reveal, and the card effects.

Effects are resolved from the card data (``cards.Effect``), never per card. An effect that
asks nothing is applied at once; one that needs a choice leaves a ``Decision`` pending
for the seat (the rules ask for it and hand the answer back here).
"""

from __future__ import annotations

import msgspec

from engines.pirate_king.cards import CARDS, LOOT, Effect
from engines.pirate_king.holdings import Holdings, entry_curses
from engines.pirate_king.state import CHOOSE, FLIP, GIVE, LOOK, RETRIEVE, SUNK, Decision, Entry
from engines.rng import Rng


class Effects(Holdings):
    """A thawed state that resolves what the cards revealed on it do."""

    # -- piles ---------------------------------------------------------------------------
    def top_up(self, seat: int, need: int) -> None:
        """ "When you have no more cards to draw, shuffle your discard pile and use it as your
        new pile." Each new pile is shuffled by a stream of its own, ``pile:<seat>:<n>``,
        from the discard in card order (its face-up order tells nothing about the pile)."""
        pile, discard = self.piles[seat], self.discards[seat]
        if len(pile) >= need or not discard:
            return
        order = Rng(self.seed, f"pile:{seat}:{self.shuffles[seat]}").shuffled(sorted(discard))
        self.shuffles[seat] += 1
        self.made[seat] = tuple(order)
        pile.extend(order)
        discard.clear()

    def reveal(self, seat: int, by_effect: bool = False) -> int | None:
        """The top card of the pile, face up into the zone (not resolved yet); ``by_effect``:
        an effect made the seat reveal it (FAQ 1: it goes in a column)."""
        self.top_up(seat, 1)
        if not self.piles[seat]:
            return None
        card = self.piles[seat].pop(0)
        self.known[seat] = max(0, self.known[seat] - 1)
        self.zones[seat].append(Entry(card, effect=by_effect))
        return card

    # -- effects ---------------------------------------------------------------------------
    def resolve(self, seat: int, card: int) -> None:
        """Resolve the effect of ``card``, just placed in ``seat``'s zone."""
        effect = CARDS[card].effect
        if effect is not None and effect.kind == "copy":
            # "This card copies the previously revealed card, including all its symbols
            # and effects."
            index = self.at(seat, card)
            before = self.previously_revealed(seat, index)
            if before is None or not before.up:
                return
            base = before.copy if before.copy >= 0 else before.card
            if (CARDS[base].effect or Effect("")).kind == "copy":
                return  # a Copy card that copied nothing shows nothing to copy
            self.zones[seat][index] = msgspec.structs.replace(self.zones[seat][index], copy=base)
            effect = CARDS[base].effect
            if effect is None:
                return
            self.apply(seat, card, base, effect)
            return
        if effect is not None:
            self.apply(seat, card, card, effect)

    def previously_revealed(self, seat: int, index: int) -> Entry | None:
        """What a Copy at ``index`` of the zone copies: "the previously revealed card" --
        the last card before it that was revealed, not placed (a retrieved card, a Loot card
        drawn, a card given by another player). Edition 1 took the card just before it."""
        before = self.zones[seat][:index]
        if self.rules > 1:
            before = [e for e in before if not e.placed]
        return before[-1] if before else None

    def apply(self, seat: int, card: int, base: int, effect: Effect) -> None:
        """``card`` (in ``seat``'s zone) resolves ``effect`` (``base``'s, which ``card``
        shows or copies)."""
        if effect.others:
            # "These effects are resolved after all other effects around the table."
            self.others.append((seat, base))
            return
        kind = effect.kind
        if kind == "reveal":
            self.draws[seat] += effect.n
        elif kind == "look":
            seen = min(effect.n, len(self.piles[seat]))
            self.known[seat] = max(self.known[seat], seen)
            if seen >= 2:  # one card has only one order
                self.pending[seat] = Decision(LOOK, card, seen)
        elif kind == "flip":
            options = self.flippable(seat)
            if len(options) == 1:
                self.flip(seat, options[0])
            elif options:
                self.pending[seat] = Decision(FLIP, card)
        elif kind == "gain":
            count = self.count(seat, effect.per) * effect.n
            index = self.at(seat, card)
            entry = self.zones[seat][index]
            if effect.gain == "swords":
                entry = msgspec.structs.replace(entry, swords=entry.swords + count)
            else:
                entry = msgspec.structs.replace(entry, gold=entry.gold + count)
            self.zones[seat][index] = entry
        elif kind == "captain":
            self.captain = seat
        elif kind == "choose":
            self.top_up(seat, 2)
            seen = min(2, len(self.piles[seat]))
            if seen == 1:
                self.resolve_reveal(seat)
            elif seen == 2:
                self.known[seat] = max(self.known[seat], 2)
                self.pending[seat] = Decision(CHOOSE, card)
        elif kind == "retrieve":
            discard = self.discards[seat]
            if len(discard) == 1:
                self.retrieve(seat, discard[0])
            elif discard or self.piles[seat]:
                self.pending[seat] = Decision(RETRIEVE, card)
        elif kind == "give":
            targets = self.targets(seat)
            if len(targets) == 1:
                self.give(seat, card, targets[0])
            elif targets:
                self.pending[seat] = Decision(GIVE, card)
        elif kind == "loot":
            # "Draw the top card of the Loot pile and place it face up in your play zone. If
            # this card has an effect, resolve it immediately."
            if self.loot_pile:
                drawn = self.loot_pile.pop(0)
                self.zones[seat].append(Entry(drawn, effect=True, placed=self.rules > 1))
                self.resolve(seat, drawn)
        else:  # pragma: no cover - cards.py checks the kinds
            raise AssertionError(kind)

    def count(self, seat: int, per: str) -> int:
        """Gain: the symbols "present in your personal play zone" (face up)."""
        if per == "curse":
            return self.curses(seat)
        return sum(1 for e in self.zones[seat] if e.up and CARDS[e.card].type == LOOT)

    def resolve_reveal(self, seat: int) -> None:
        """An effect makes the seat reveal its top card, and it is resolved."""
        card = self.reveal(seat, by_effect=True)
        if card is not None:
            self.resolve(seat, card)

    def flippable(self, seat: int) -> list[int]:
        """Flip: "a card in your personal play zone that contains the symbol" (a curse)."""
        return [e.card for e in self.zones[seat] if entry_curses(e) > 0]

    def flip(self, seat: int, card: int) -> None:
        index = self.at(seat, card)
        self.zones[seat][index] = msgspec.structs.replace(self.zones[seat][index], up=False)

    def retrieve(self, seat: int, card: int) -> None:
        """ "Place a card of your choice from your discard pile into your personal play
        zone" -- placed, not revealed: its symbols count, its effect does not resolve (the
        seed resolves "a revealed card", and says so of a placed one only for Loot: "If this
        card has an effect, resolve it immediately")."""
        self.discards[seat].remove(card)
        self.zones[seat].append(Entry(card, effect=True, placed=self.rules > 1))

    def targets(self, seat: int) -> list[int]:
        """Give: "another pirate's play zone" -- any other player who has not sunk."""
        return [t for t in self.clockwise() if t != seat and self.status[t] != SUNK]

    def give(self, seat: int, card: int, target: int) -> None:
        """ "Place this card in another pirate's play zone until the end of the round":
        placed there, not revealed; still the giver's."""
        entry = self.zones[seat].pop(self.at(seat, card))
        given = msgspec.structs.replace(entry, giver=seat, effect=True, placed=self.rules > 1)
        self.zones[target].append(given)

    def choose(self, seat: int, card: int) -> None:
        """ "Look at the top two cards of your pile: reveal one in your personal play zone
        and discard the other." """
        pile = self.piles[seat]
        top = pile[:2]
        del pile[:2]
        self.known[seat] = max(0, self.known[seat] - 2)
        other = top[1] if top[0] == card else top[0]
        self.discards[seat].append(other)
        self.zones[seat].append(Entry(card, effect=True))
        self.resolve(seat, card)

    def stack(self, seat: int, order: tuple[int, ...]) -> None:
        """Look: "put them back on top in the order of your choice"."""
        self.piles[seat][: len(order)] = order
