"""The two decks: data, not code.

Cards are small integers inside states (compact and fast); names like ``black-14`` or
``scary-mary`` are what moves, views and logs carry. Identical cards (the five Escapes)
get unique names (``escape-1`` .. ``escape-5``) so that every card can be accounted for.
"""

from __future__ import annotations

from dataclasses import dataclass

# Card kinds, as the trick resolution sees them.
NUMBER = 0
ESCAPE = 1
PIRATE = 2
MERMAID = 3
KING = 4  # Skull King (classic) / Captain (bid-and-make)
CHOICE = 5  # Scary Mary (classic) / Rogue (bid-and-make): played as a Pirate or an Escape

# How a CHOICE card was played (stored with each play of a trick).
AS_NONE = 0
AS_PIRATE = 1
AS_ESCAPE = 2
AS_NAMES = {AS_PIRATE: "pirate", AS_ESCAPE: "escape"}
AS_CODES = {"pirate": AS_PIRATE, "escape": AS_ESCAPE}

TRUMP = "black"

# The printed names of the special cards, by the name moves give them (without the copy's
# number): what the bots are never named after.
TITLES = {
    "escape": "Escape",
    "pirate": "Pirate",
    "mermaid": "Mermaid",
    "skull-king": "Skull King",
    "scary-mary": "Scary Mary",
    "captain": "Captain",
    "rogue": "Rogue",
}


@dataclass(frozen=True, slots=True)
class Edition:
    """One printing of the game: its deck and the rules that differ between printings."""

    id: str
    title: str
    seed_file: str
    suits: tuple[str, ...]  # the last one is black, the trump
    symbols: dict[str, str]  # suit -> symbol shown beside the colour (colour is not the only cue)
    top_rank: int  # 13 (classic) or 14 (bid-and-make)
    escapes: int
    pirates: int
    mermaids: int
    king: str  # "skull-king" or "captain"
    choice: str  # "scary-mary" or "rogue"
    max_players: int
    # Rules that differ:
    character_lead_sets_no_suit: bool  # bid-and-make: a led Pirate/Mermaid/Captain means no suit
    choice_escape_counts_as_pirate: bool  # classic: Scary Mary counts for the bonus as an Escape
    zero_bid_by_cards: bool  # bid-and-make: a zero bid scores 10 x cards dealt, classic 10 x round

    @property
    def names(self) -> tuple[str, ...]:
        return _names(self)

    @property
    def titles(self) -> frozenset[str]:
        """The printed names of the edition's cards (the numbered ones have none)."""
        return frozenset(
            TITLES[kind] for kind in ("escape", "pirate", "mermaid", self.king, self.choice)
        )

    @property
    def size(self) -> int:
        return len(self.names)


def _names(e: Edition) -> tuple[str, ...]:
    out = [f"{suit}-{rank}" for suit in e.suits for rank in range(1, e.top_rank + 1)]
    out += [f"escape-{i}" for i in range(1, e.escapes + 1)]
    out += [f"pirate-{i}" for i in range(1, e.pirates + 1)]
    out += [f"mermaid-{i}" for i in range(1, e.mermaids + 1)]
    out += [e.king, e.choice]
    return tuple(out)


CLASSIC = Edition(
    id="skull-king",
    title="Skull King",
    seed_file="003_781ea4e8180d3350.txt",
    suits=("yellow", "red", "blue", "black"),
    symbols={"yellow": "★", "red": "♥", "blue": "◆", "black": "☠"},
    top_rank=13,
    escapes=5,
    pirates=5,
    mermaids=2,
    king="skull-king",
    choice="scary-mary",
    max_players=6,
    character_lead_sets_no_suit=False,
    choice_escape_counts_as_pirate=True,
    zero_bid_by_cards=False,
)

BID_AND_MAKE = Edition(
    id="bid-tricks",
    title="Pirate Tricks: Bid & Make It",
    seed_file="002_a60b485a85bffb3a.txt",
    suits=("green", "purple", "yellow", "black"),
    symbols={"green": "♣", "purple": "♦", "yellow": "★", "black": "⚓"},
    top_rank=14,
    escapes=5,
    pirates=5,
    mermaids=2,
    king="captain",
    choice="rogue",
    max_players=8,
    character_lead_sets_no_suit=True,
    choice_escape_counts_as_pirate=False,
    zero_bid_by_cards=True,
)


@dataclass(frozen=True, slots=True)
class Deck:
    """Per-card lookup tables of one edition, indexed by card number."""

    edition: Edition
    names: tuple[str, ...]
    index: dict[str, int]
    kind: tuple[int, ...]
    suit: tuple[int, ...]  # suit index, -1 for specials
    rank: tuple[int, ...]  # 1..top for numbers, 0 for specials
    black: int  # the trump suit's index

    @classmethod
    def of(cls, edition: Edition) -> Deck:
        names = edition.names
        kinds: list[int] = []
        suits: list[int] = []
        ranks: list[int] = []
        for name in names:
            head, _, tail = name.rpartition("-")
            if head in edition.suits:
                kinds.append(NUMBER)
                suits.append(edition.suits.index(head))
                ranks.append(int(tail))
                continue
            kinds.append(
                {"escape": ESCAPE, "pirate": PIRATE, "mermaid": MERMAID}.get(
                    head, KING if name == edition.king else CHOICE
                )
            )
            suits.append(-1)
            ranks.append(0)
        return cls(
            edition=edition,
            names=names,
            index={n: i for i, n in enumerate(names)},
            kind=tuple(kinds),
            suit=tuple(suits),
            rank=tuple(ranks),
            black=edition.suits.index(TRUMP),
        )

    def describe(self, card: int) -> dict[str, object]:
        """A card as the client draws it (name, kind, suit, rank, symbol)."""
        name = self.names[card]
        kind = self.kind[card]
        if kind == NUMBER:
            suit = self.edition.suits[self.suit[card]]
            return {
                "card": name,
                "kind": "number",
                "suit": suit,
                "rank": self.rank[card],
                "symbol": self.edition.symbols[suit],
                "trump": suit == TRUMP,
            }
        return {"card": name, "kind": _KIND_NAMES[kind]}


_KIND_NAMES = {
    ESCAPE: "escape",
    PIRATE: "pirate",
    MERMAID: "mermaid",
    KING: "king",
    CHOICE: "choice",
}
