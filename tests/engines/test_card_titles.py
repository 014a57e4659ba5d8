"""Each game names its cards (``Game.card_titles``, what the server names no bot after):
the names are the ones players read, the English titles of the game's catalogue
(web-client/js/games/<folder>/i18n/en.js), every one of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engines.registry import GAMES

GAMES_JS = Path(__file__).resolve().parents[2] / "web-client" / "js" / "games"

# A game's folder, the games it draws, and the keys of its catalogue that hold a card's name.
FOLDERS = {
    "skull-king": (("skull-king", "bid-tricks"), r"cards\.([a-z-]+)"),
    "loon-tricks": (("loon-tricks",), r"lt\.card\.([a-z-]+)\.title"),
    "pirate-king": (("pirate-king",), r"pk\.card\.([a-z-]+)"),
    "pearates": (("pearates",), r"pe\.card\.([a-z-]+)\.title"),
}
NOT_CARDS = {"cards.trump", "cards.as", "cards.number"}  # words about cards, not names


def english(folder: str) -> dict[str, str]:
    text = (GAMES_JS / folder / "i18n" / "en.js").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    data = json.loads(body.strip().removeprefix("export default").strip().removesuffix(";"))
    return {k: v for k, v in data.items() if isinstance(v, str)}


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_card_titles_are_the_names_players_read(folder: str) -> None:
    ids, pattern = FOLDERS[folder]
    shown = {
        text
        for key, text in english(folder).items()
        if re.fullmatch(pattern, key) and key not in NOT_CARDS
    }
    assert shown, "the scan finds the catalogue's card names"
    declared = set().union(*(GAMES[g].card_titles for g in ids))
    assert declared == shown


def test_every_game_names_its_cards_and_the_ghost_where_there_is_one() -> None:
    assert sorted(GAMES) == sorted(g for ids, _ in FOLDERS.values() for g in ids)
    for game in GAMES.values():
        assert game.card_titles, game.id
        assert all(n in game.seats for n in game.ghost_hand_at), game.id
    assert {g.id for g in GAMES.values() if g.ghost_hand_at} == {"skull-king", "bid-tricks"}
