"""tortuga-bot: bots that play on a Tortuga site over the table protocol (docs/BOTS.md).

A bot is a file with a function (or a class ``Bot`` with ``move``) that gets the seat's turn
and returns one of its legal moves; ``tortuga bot run FILE`` (or ``play_games`` / ``play_room``)
does the rest::

    from tortuga_bot import Turn

    def bot(turn: Turn):
        return turn.legal[0]
"""

from tortuga_bot.device import DeviceKey, KeyFileError, key_path
from tortuga_bot.games import ladder, play_games, play_room
from tortuga_bot.player import Host, Player, Refused, Signer
from tortuga_bot.site import Site, SiteError
from tortuga_bot.turn import Bot, Prompt, Result, Turn

__all__ = [
    "Bot",
    "DeviceKey",
    "Host",
    "KeyFileError",
    "Player",
    "Prompt",
    "Refused",
    "Result",
    "Signer",
    "Site",
    "SiteError",
    "Turn",
    "key_path",
    "ladder",
    "play_games",
    "play_room",
]
