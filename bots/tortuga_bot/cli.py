"""``tortuga-bot`` (also ``tortuga bot`` in the repository): run a bot against a site.

    tortuga-bot run FILE --url URL --room CODE [--seat N]
    tortuga-bot run FILE --url URL --games N [--game ID] [--players P] [--against LEVEL]
    tortuga-bot ladder FILE --url URL --token TOKEN [--game ID ...]
    (either: [--key FILE | --unsigned] [--heads-dir DIR])

The token is a bot account's (``--token`` or the ``TORTUGA_BOT_TOKEN`` variable); without one
the bot signs in as a guest named ``--name``.

Moves are signed with the bot's device key: ``--key FILE``, by default
``~/.config/tortuga-bot/<site>-<user>.key`` for a bot account (made on the first run, mode
0600, the same key on every run after it) and a key of the run for a guest; ``--unsigned``
plays without one (a site from before the move chain). ``--heads-dir DIR`` writes the move
chain's heads the bot was sent to ``DIR/<game_id>.json``, for ``tortuga verify GAME --heads``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from tortuga_bot.device import KeyFileError
from tortuga_bot.games import ladder, play_games, play_room
from tortuga_bot.loader import load
from tortuga_bot.player import Refused
from tortuga_bot.site import SiteError
from tortuga_bot.turn import Result


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Run a bot on a Tortuga site.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="play a room, or N games against the server's bots")
    run.add_argument("file", help="a Python file defining `bot(turn)` or a class `Bot`")
    run.add_argument("--url", default="http://127.0.0.1:8000")
    run.add_argument("--room", help="the room's code (play that room's game)")
    run.add_argument("--seat", type=int, help="the seat to take (default: the first free one)")
    run.add_argument("--games", type=int, default=0, help="play N games against server bots")
    run.add_argument("--game", help="the game of those games (default: the file's GAME)")
    run.add_argument("--players", type=int, default=3)
    run.add_argument("--against", default="heuristic", help="the server bots' level")
    run.add_argument("--deadline", type=float, help="seconds per move in those games")
    run.add_argument(
        "--options", type=json.loads, help="those games' options, JSON: '{\"rounds\": 2}'"
    )
    run.add_argument("--token", default=os.environ.get("TORTUGA_BOT_TOKEN"))
    run.add_argument("--name", default="Bot", help="a guest's name, without a token")
    _signing(run)
    run.add_argument("-v", "--verbose", action="store_true")
    lad = sub.add_parser("ladder", help="play the arena's ladder games, forever")
    lad.add_argument("file")
    lad.add_argument("--url", default="http://127.0.0.1:8000")
    lad.add_argument("--token", default=os.environ.get("TORTUGA_BOT_TOKEN"))
    lad.add_argument("--game", action="append", help="a game to play (default: the file's)")
    lad.add_argument("--count", type=int, help="stop after N games")
    _signing(lad)
    lad.add_argument("-v", "--verbose", action="store_true")
    return parser


def _signing(command: argparse.ArgumentParser) -> None:
    keys = command.add_mutually_exclusive_group()
    keys.add_argument(
        "--key",
        metavar="FILE",
        help="the device key's file (made if missing, mode 0600); default: "
        "~/.config/tortuga-bot/<site>-<user>.key for a token, a key of the run for a guest",
    )
    keys.add_argument(
        "--unsigned", action="store_true", help="sign no moves (a site without the move chain)"
    )
    command.add_argument(
        "--heads-dir",
        metavar="DIR",
        help="write each game's heads to DIR/<game_id>.json (tortuga verify GAME --heads FILE)",
    )


def _say(result: Result) -> None:
    rank = f"rank {result.rank} of {len(result.ranks)}" if result.ranks else result.status
    score = f", score {result.scores[result.seat]}" if result.scores else ""
    seed = "seed checked" if result.seed_check is None else f"SEED: {result.seed_check}"
    print(f"{result.game} {result.room}: seat {result.seat}, {rank}{score} ({seed})")


async def _main(args: argparse.Namespace) -> int:
    bot, game = load(args.file)
    if args.command == "ladder":
        if not args.token:
            print("the ladder needs a bot account's token (--token)", file=sys.stderr)
            return 2
        games = args.game or ([game] if game else [])
        if not games:
            print("which game? --game ID (or GAME in the file)", file=sys.stderr)
            return 2
        for result in await ladder(
            args.url, bot, args.token, games, count=args.count, **_keyed(args)
        ):
            _say(result)
        return 0
    if args.room:
        _say(
            await play_room(
                args.url,
                bot,
                args.room,
                token=args.token,
                name=args.name,
                seat=args.seat,
                **_keyed(args),
            )
        )
        return 0
    if args.games > 0:
        game = args.game or game
        if not game:
            print("which game? --game ID (or GAME in the file)", file=sys.stderr)
            return 2
        deadlines = (
            {}
            if args.deadline is None
            else {"move": args.deadline, "commit": args.deadline, "reveal": args.deadline}
        )
        results = await play_games(
            args.url,
            bot,
            game,
            args.games,
            players=args.players,
            against=args.against,
            deadlines=deadlines,
            options=args.options,
            token=args.token,
            name=args.name,
            **_keyed(args),
        )
        for result in results:
            _say(result)
        ranks = [r.rank for r in results if r.rank is not None]
        if ranks:
            print(f"{len(results)} games, mean rank {sum(ranks) / len(ranks):.2f}")
        return 0
    print("say --room CODE, or --games N", file=sys.stderr)
    return 2


def _keyed(args: argparse.Namespace) -> dict[str, Any]:
    return {"key": args.key, "unsigned": args.unsigned, "heads_dir": args.heads_dir}


def main(argv: Sequence[str] | None = None, prog: str = "tortuga-bot") -> int:
    args = _parser(prog).parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    try:
        return asyncio.run(_main(args))
    except Refused as exc:
        print(f"refused by the site: {exc}", file=sys.stderr)
        return 1
    except SiteError as exc:
        print(f"the site said {exc}", file=sys.stderr)
        return 1
    except KeyFileError as exc:
        print(f"the device key: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
