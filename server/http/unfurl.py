"""An invite link's preview card: Open Graph and Twitter-card tags for ``/r/{code}`` (and the
site's own card for its other pages).

A link pasted into a chat app is fetched by the app's crawler, which reads these tags from
the page's head. They say only what anyone holding the link may see by opening it: the
game's title, the host's name, how many seats are free, whether the game is under way or
over -- nothing from inside the game, no other player's name. Every value is HTML-escaped.
"""

from __future__ import annotations

import html

from server.http.catalogue import Catalogues
from server.table.room import FINISHED, LOBBY, PLAYING, Room


def tags(room: Room, url: str, texts: Catalogues, lang: str) -> str:
    """The ``<title>`` and ``<meta>`` lines for a room's page, in ``lang``."""
    key = f"games.{room.engine}.title"
    game = texts.text(lang, key) if texts.has(lang, key) else room.game.title
    host = room.host_name or texts.text(lang, "og.someone")
    title = texts.text(lang, "og.title", game=game, host=host)
    if room.status == LOBBY:
        free = sum(1 for s in room.seats if s.user is None and s.bot is None)
        which = "og.lobby" if free else "og.lobby_full"
        description = texts.text(lang, which, count=free, players=room.players)
    elif room.status == PLAYING:
        description = texts.text(lang, "og.playing" if room.spectators else "og.playing_closed")
    elif room.status == FINISHED:
        description = texts.text(lang, "og.finished")
    else:
        description = texts.text(lang, "og.abandoned")
    return _card(title, description, url, texts, lang)


def site(url: str, texts: Catalogues, lang: str) -> str:
    """The site's own card (the landing page and every other app page): what Tortuga is."""
    return _card(texts.text(lang, "site.title"), texts.text(lang, "landing.lead"), url, texts, lang)


def _card(title: str, description: str, url: str, texts: Catalogues, lang: str) -> str:
    site_title = texts.text(lang, "site.title")
    pairs = [
        ("property", "og:type", "website"),
        ("property", "og:site_name", texts.text(lang, "site.name")),
        ("property", "og:title", title),
        ("property", "og:description", description),
        ("property", "og:url", url),
        ("property", "og:locale", {"vi": "vi_VN"}.get(lang, "en_GB")),
        ("name", "twitter:card", "summary"),
        ("name", "twitter:title", title),
        ("name", "twitter:description", description),
        ("name", "description", description),
    ]
    full = title if title == site_title else f"{title} — {site_title}"
    lines = [f"<title>{html.escape(full)}</title>"]
    lines += [
        f'<meta {attr}="{name}" content="{html.escape(value, quote=True)}">'
        for attr, name, value in pairs
    ]
    return "\n".join(lines)
