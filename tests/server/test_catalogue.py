"""server/http/catalogue.py: the client's catalogues read on the server, and a request's language
("chosen from the browser's language ... with a switch in the header")."""

from __future__ import annotations

from server.http.catalogue import Catalogues
from server.http.web import default_root

TEXTS = Catalogues(default_root() / "js" / "i18n")


def test_the_language_of_a_request() -> None:
    assert set(TEXTS.texts) == {"en", "vi"}
    # The switch (?lang= on a rules page, else the cookie) beats the browser's languages.
    assert TEXTS.choose("en", "vi", "vi-VN") == "en"
    assert TEXTS.choose(None, "vi", "en-US") == "vi"
    # Accept-Language by its q-values, then by order; region tags count as their language.
    assert TEXTS.choose(None, None, "fr-FR, en;q=0.5, vi;q=0.9") == "vi"
    assert TEXTS.choose(None, None, "vi-VN, en;q=0.9") == "vi"
    assert TEXTS.choose(None, None, "de, fr;q=0.8") == "en"
    assert TEXTS.choose("xx", "yy", "vi;q=x") == "vi"
    assert TEXTS.choose(None, None, None) == "en"


def test_texts_fill_placeholders_and_plurals() -> None:
    assert TEXTS.text("en", "og.lobby", count=1, players=4).startswith("1 seat of 4 free")
    assert TEXTS.text("en", "og.lobby", count=3, players=4).startswith("3 seats of 4 free")
    assert TEXTS.text("vi", "og.lobby", count=1, players=4).startswith("Còn 1/4 ghế trống")
    # An unknown key shows itself (the catalogue test keeps the client from using one).
    assert TEXTS.text("vi", "no.such.key") == "no.such.key"


def test_a_games_texts_come_from_its_folder() -> None:
    # The preview card names a game by its title, kept beside the game's client module.
    assert TEXTS.text("vi", "games.pirate-king.title") == "Pirate King!"
    assert TEXTS.has("en", "games.pearates.title") and TEXTS.has("vi", "pe.card.goldfish.title")
