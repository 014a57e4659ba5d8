"""Whole sessions of play: one room, N games against the server's bots, or the ladder.

Each signs its moves with a device key (``key``, below) unless ``unsigned``, and with
``heads_dir`` writes each game's heads there (``<game_id>.json``) for ``tortuga verify``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from tortuga_bot.device import DeviceKey, KeyFileError, key_path
from tortuga_bot.player import Host, Player, Refused
from tortuga_bot.site import Site
from tortuga_bot.turn import Bot, Result

log = logging.getLogger("tortuga_bot")

LADDER_BEAT = 10.0  # seconds between two "ready for the ladder" notes (the site keeps 30)

# The key a bot signs with: a key, the file it is kept in, or None (the default file of a
# bot account's user; a key made for the run for a guest).
KeyChoice = DeviceKey | str | os.PathLike[str] | None


def device_key(site: Site, key: KeyChoice = None, *, guest: bool = False) -> DeviceKey:
    """The key a bot signs with on ``site``: ``key`` itself, or the one kept in the file
    ``key`` (made there first); by default the one kept in ``key_path(site, user)`` -- or,
    for a ``guest`` (a user made for this run alone), a key made for the run."""
    if isinstance(key, DeviceKey):
        return key
    if key is not None:
        return DeviceKey.load(key)
    if guest:
        return DeviceKey.generate()
    user = site.user_id
    if user is None:
        raise KeyFileError("this token names no user: say which key file to use (--key FILE)")
    return DeviceKey.load(key_path(site.url, user))


async def signed_in(
    url: str,
    token: str | None,
    name: str | None,
    *,
    key: KeyChoice = None,
    unsigned: bool = False,
) -> Site:
    """A site with the bot account's token, or a new guest called ``name``; with its device
    key (``device_key``) unless ``unsigned``."""
    site = Site(url, token)
    if token is None:
        await site.guest(name or "Bot")
    if not unsigned:
        site.key = device_key(site, key, guest=token is None)
    return site


async def play_room(
    url: str,
    bot: Bot,
    room: str,
    *,
    token: str | None = None,
    name: str | None = None,
    seat: int | None = None,
    site: Site | None = None,
    key: KeyChoice = None,
    unsigned: bool = False,
    heads_dir: str | os.PathLike[str] | None = None,
) -> Result:
    """Join ``room`` (its code), sit, get ready and play its game to the end. A ``site``
    given plays with its own key (``Site.key``; None: unsigned)."""
    site = site or await signed_in(url, token, name, key=key, unsigned=unsigned)
    player = Player(site, bot, heads_dir=heads_dir)
    return await player.play(room.replace("-", "").upper(), seat=seat)


async def play_games(
    url: str,
    bot: Bot,
    game: str,
    count: int = 1,
    *,
    players: int = 3,
    against: str = "heuristic",
    options: dict[str, Any] | None = None,
    deadlines: dict[str, float] | None = None,
    token: str | None = None,
    name: str | None = None,
    site: Site | None = None,
    record: list[dict[str, Any]] | None = None,
    key: KeyChoice = None,
    unsigned: bool = False,
    heads_dir: str | os.PathLike[str] | None = None,
) -> list[Result]:
    """``count`` games one after the other, each in a new room this bot hosts with the
    server's bots (``against``) in the other seats."""
    site = site or await signed_in(url, token, name, key=key, unsigned=unsigned)
    results = []
    for _ in range(count):
        body: dict[str, Any] = {"public": False, "deadlines": deadlines or {}}
        if options is not None:
            body["options"] = options
        room = await site.create_room(game, players, **body)
        host = Host(bots={s: against for s in range(1, players)})
        player = Player(site, bot, record=record, heads_dir=heads_dir)
        results.append(await player.play(room["id"], seat=0, host=host))
    return results


async def ladder(
    url: str,
    bot: Bot,
    token: str,
    games: list[str],
    *,
    count: int | None = None,
    tables: int = 2,
    poll: float = 2.0,
    site: Site | None = None,
    key: KeyChoice = None,
    unsigned: bool = False,
    heads_dir: str | os.PathLike[str] | None = None,
) -> list[Result]:
    """Play the arena's games: tell the site this bot is ready for the ladder of ``games``,
    and play every room the arena seats it in (at most ``tables`` at once) -- forever, or
    until ``count`` games are over."""
    site = site or await signed_in(url, token, None, key=key, unsigned=unsigned)
    results: list[Result] = []
    playing: dict[str, asyncio.Task[Result]] = {}
    done: set[str] = set()
    last_beat = 0.0
    loop = asyncio.get_running_loop()
    try:
        while count is None or len(results) < count:
            if loop.time() - last_beat >= LADDER_BEAT:
                await site.ladder_ready(games)
                last_beat = loop.time()
            for room in await site.my_rooms():
                code = room["id"]
                if code not in playing and code not in done and len(playing) < tables:
                    player = Player(site, bot, heads_dir=heads_dir)
                    playing[code] = asyncio.create_task(player.play(code))
            for code, task in list(playing.items()):
                if task.done():
                    del playing[code]
                    done.add(code)
                    try:
                        results.append(task.result())
                    except Refused as exc:
                        if exc.code != "stood-up":  # a table the arena gave up: next one
                            raise
                    except Exception:
                        log.exception("a ladder game failed: %s", code)
            await asyncio.sleep(poll)
    finally:
        for task in playing.values():
            task.cancel()
    return results
