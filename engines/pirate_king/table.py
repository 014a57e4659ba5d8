"""The table during one step: a mutable working copy of a ``State``.

``Table(state)`` thaws a state into lists, the rules mutate it, ``freeze()`` gives the next
state (states themselves are frozen values and never change). Everything the seed says
happens on its own -- reveals, the effects that ask nothing, sinking, reshuffles, the next
round -- happens here; ``advance`` runs the table until somebody owes a decision.

Effects are resolved from the card data (``cards.Effect``), never per card.
"""

from __future__ import annotations

import msgspec

from engines.pirate_king.cards import (
    CARDS,
    CROWNS,
    LOOT,
    LOOT_IDS,
    MAPS,
    MONSTER_IDS,
    Card,
    Effect,
    map_crowns,
    starting_deck,
)
from engines.pirate_king.state import (
    BATTLE,
    CHOOSE,
    CROWN,
    FLIP,
    GIVE,
    LOOK,
    OVER,
    PICK,
    PLAY,
    RECLAIM,
    RECLAIM_CARD,
    RETRIEVE,
    REVEALING,
    STOPPED,
    SUNK,
    Decision,
    Entry,
    State,
)
from engines.pirate_king.state import LOOT as LOOT_STEP
from engines.rng import Rng

ROUNDS = 7
SINK_AT = 3  # "SINK: when you reveal a third Curse"


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


class Table:
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
            before = self.zones[seat][index - 1] if index > 0 else None
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
                self.zones[seat].append(Entry(drawn, effect=True))
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
        self.zones[seat].append(Entry(card, effect=True))

    def targets(self, seat: int) -> list[int]:
        """Give: "another pirate's play zone" -- any other player who has not sunk."""
        return [t for t in self.clockwise() if t != seat and self.status[t] != SUNK]

    def give(self, seat: int, card: int, target: int) -> None:
        entry = self.zones[seat].pop(self.at(seat, card))
        self.zones[target].append(msgspec.structs.replace(entry, giver=seat, effect=True))

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
        sent to your discard pile" (a card given to you included: it is now yours)."""
        for seat in range(self.players):
            if self.status[seat] != SUNK and self.curses(seat) >= SINK_AT:
                self.status[seat] = SUNK
                self.discards[seat].extend(e.card for e in self.zones[seat])
                self.zones[seat].clear()

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
                self.ask_reclaims()
            if self.phase == RECLAIM:
                if any(p is not None for p in self.pending):
                    return
                self.end_round()
                if self.phase == PLAY:
                    continue
            return

    def ask_reclaims(self) -> None:
        """Give: "Remember to retrieve it, otherwise it is lost!" -- each giver decides, one
        given card at a time."""
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
        """ "Pick up and send to your discard pile all the revealed cards in your personal
        play zone." A player with an empty pile shuffles the discard into a new pile."""
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

    def end_game(self) -> None:
        self.phase = CROWN if self.tied_for_win() else OVER


def first_picker(state: State) -> int:
    """The seat that picks a Pirate now: from the Captain, clockwise."""
    picked = sum(1 for p in state.pirates if p >= 0)
    return (state.captain + picked) % state.players


def new_state(players: int, seed: bytes) -> State:
    """The game before anyone has picked a Pirate: the Monster and Loot piles shuffled,
    the Captain drawn (**house** for "the person who last touched water")."""
    from engines.pirate_king.cards import LOOT_IDS

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
    )
