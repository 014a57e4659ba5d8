"""`tortuga`: serve | migrate | verify | admin | bench | loadtest | games | bot."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from server.settings import Settings


def _resolve(settings: Settings, *, need_database: bool = True) -> Settings:
    """Fill in the embedded Redis / Postgres when no URL is configured."""
    from server.ops import embedded

    changes: dict[str, object] = {}
    if settings.redis_url is None:
        changes["redis_url"] = embedded.start_redis(settings.data_dir)
    if need_database and settings.database_url is None:
        changes["database_url"] = embedded.start_postgres(settings.data_dir)
    return settings.with_(**changes) if changes else settings


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (what ``kill``, ``timeout`` and systemd send) ends the process as Ctrl-C
    does: by an exception, so that ``finally`` blocks and atexit handlers run."""
    raise SystemExit(128 + signum)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server import workers
    from server.app import create_app, uvicorn_options
    from server.ops import embedded

    # uvicorn handles SIGTERM itself (a graceful shutdown), then raises it again with the
    # handler it found installed: with the default one the process would die there, before
    # anything could stop the embedded Redis and Postgres, and leave both running.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    settings = Settings.from_env()
    if args.port is not None:
        settings = settings.with_(port=args.port)
    if args.host is not None:
        settings = settings.with_(host=args.host)
    try:
        print("Tortuga: starting Redis and Postgres ...", flush=True)
        settings = _resolve(settings)
        url = f"{settings.base_url()}/"
        if args.workers > 1:
            print(f"Tortuga is up with {args.workers} workers: open {url}", flush=True)
            signum = workers.run(settings, args.workers)
            return 128 + signum if signum else 0
        app = create_app(settings)
        print(f"Tortuga is up: open {url}", flush=True)
        uvicorn.run(
            app,
            host=settings.host,
            port=settings.port,
            log_level="warning",
            **uvicorn_options(settings),
        )
    finally:
        embedded.stop()
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from server.archive.commands import migrate

    settings = _resolve(Settings.from_env())
    assert settings.database_url is not None
    asyncio.run(migrate(settings.database_url))
    print("database schema is up to date")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from server.archive.commands import verify

    settings = _resolve(Settings.from_env())
    assert settings.database_url is not None
    seen = None
    if args.heads is not None:
        from server.archive.commands import read_heads

        try:
            with open(args.heads, encoding="utf-8") as f:
                seen = read_heads(f.read(1 << 22))
        except (OSError, ValueError) as exc:
            print(f"tortuga verify: {exc}", file=sys.stderr)
            return 2
    report = asyncio.run(verify(settings.database_url, args.game_id, seen))
    print(report.message)
    return 0 if report.ok else 1


def _password(confirm: bool = True) -> str:
    """From the terminal (asked twice), else one line of standard input (scripts)."""
    import getpass

    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("password: ")
    if confirm and getpass.getpass("again: ") != first:
        raise ValueError("the two passwords differ")
    return first


def _audit(url: str, args: argparse.Namespace) -> int:
    """``tortuga admin audit``: the latest entries; with ``--verify``, the chain checked
    (exit 1 at the first entry that does not match). Reads only: no migration."""
    from server.admin import audit
    from server.archive.commands import check_schema
    from server.archive.db import Database

    async def run() -> tuple[bool, str]:
        problem = await check_schema(url)
        if problem is not None:
            return False, problem
        db = await Database.connect(url)
        try:
            if args.verify:
                report = await audit.verify_chain(db)
                return report.ok, report.message
            entries = await audit.search(db, limit=args.limit)
            return True, "\n".join(audit.lines(entries)) or "the audit is empty"
        finally:
            await db.close()

    ok, message = asyncio.run(run())
    print(message, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def cmd_admin(args: argparse.Namespace) -> int:
    from server.admin import accounts
    from server.archive.commands import migrate
    from server.archive.db import Database

    if args.action not in ("list", "audit") and not args.name:
        print(f"tortuga admin {args.action} NAME", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    if settings.database_url is None:  # the embedded Postgres; no Redis needed here
        from server.ops import embedded

        settings = settings.with_(database_url=embedded.start_postgres(settings.data_dir))
    url = settings.database_url or ""
    if args.action == "audit":
        return _audit(url, args)

    async def run() -> str:
        await migrate(url)
        db = await Database.connect(url)
        try:
            if args.action == "create":
                await accounts.create(db, args.name, _password())
                return f"admin {args.name} created"
            if args.action == "passwd":
                await accounts.set_password(db, args.name, _password())
                return f"admin {args.name}: new password, every session of it revoked"
            if args.action == "disable":
                await accounts.disable(db, args.name)
                return f"admin {args.name} disabled, every session of it revoked"
            return "\n".join(
                f"{n}{' (disabled)' if d else ''}" for n, d in await accounts.names(db)
            )
        finally:
            await db.close()

    try:
        print(asyncio.run(run()))
    except (accounts.AdminError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from engines.registry import GAMES
    from server.tools import bench

    ids = args.games or sorted(GAMES)
    for game_id in ids:
        if game_id not in GAMES:
            print(f"no game {game_id!r}; known: {', '.join(sorted(GAMES))}", file=sys.stderr)
            return 2
    if args.against is None:
        for game_id in ids:
            result = bench.run(game_id, players=args.players, games=args.count, rounds=args.rounds)
            print(result.line(), flush=True)
        return 0
    try:
        name = bench.revision_name(args.against)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    with bench.engines_at(name) as theirs:
        for game_id in ids:
            if game_id not in theirs.games:
                print(f"{game_id}: not in {name}'s engines, nothing to compare", flush=True)
                continue
            comparison = bench.compare(
                game_id,
                theirs,
                players=args.players,
                games=args.count,
                rounds=args.rounds,
            )
            print("\n".join(comparison.lines()), flush=True)
    return 0


def cmd_loadtest(args: argparse.Namespace) -> int:
    from pathlib import Path

    from server.tools import loadtest

    if args.model:
        from server.tools.loadtest import model

        figures = model.Figures.load(Path(args.model))
        counts = [int(x) for x in args.model_players.split(",")]
        print("\n".join(model.lines(figures, counts)), flush=True)
        return 0
    steps = tuple(int(x) for x in args.steps.split(",")) if args.steps else ()
    plan = loadtest.Plan(
        urls=tuple(u.rstrip("/") for u in args.url),
        rooms=args.rooms,
        players=args.players,
        game=args.game or loadtest.Plan.game,
        rounds=args.rounds,
        pace=loadtest.HUMAN_PACE if args.human else args.pace,
        timeout=args.timeout,
        # At human pace the tables start over one pace, as real ones do not all start in
        # the same instant; as fast as possible, all at once (``--ramp`` says otherwise).
        ramp=args.ramp if args.ramp is not None else (loadtest.HUMAN_PACE if args.human else 0),
        games=args.games,
    )
    options = loadtest.Options(
        steps=steps,
        raw_seconds=args.raw_seconds,
        raw_sockets=args.raw_sockets,
        idle=args.idle,
        probe_rooms=args.probe_rooms,
        workers=args.workers,
        processes=args.processes,
        report=Path(args.report) if args.report else None,
        against=args.against,
        against_workers=args.against_workers,
        idle_deflate=args.idle_deflate,
        bare=not args.no_bare,
        nodes=args.nodes,
    )
    try:
        result = loadtest.campaign(plan, options)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    print("\n".join(result.lines()), flush=True)
    if options.report is not None:
        print(f"report: {options.report}", flush=True)
    return 0 if result.finished else 1


def cmd_games(args: argparse.Namespace) -> int:
    from engines.registry import GAMES

    for game in GAMES.values():
        print(f"{game.id:12} {game.title} ({game.seats.start}-{game.seats.stop - 1} players)")
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return value


def _audit_limit(text: str) -> int:
    value = _positive(text)
    if value > 10_000:
        raise argparse.ArgumentTypeError("at most 10000")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["bot"]:
        # A player's bot against a site: the bot library's own command (bots/, docs/BOTS.md).
        from tortuga_bot.cli import main as bot_main

        return bot_main(args_in[1:], prog="tortuga bot")
    parser = argparse.ArgumentParser(prog="tortuga", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run a server node (embedded Redis/Postgres if unset)")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument(
        "--workers",
        type=_positive,
        default=os.cpu_count() or 1,
        help="node processes sharing the port (default: the number of cores)",
    )
    serve.set_defaults(func=cmd_serve)

    migrate = sub.add_parser("migrate", help="upgrade the Postgres schema to the latest")
    migrate.set_defaults(func=cmd_migrate)

    verify = sub.add_parser("verify", help="recompute a finished game's deals from its seed")
    verify.add_argument("game_id")
    verify.add_argument(
        "--heads",
        metavar="FILE",
        help="the heads a device saw while it played (the file its browser saves): the "
        "archive must hold the same ones",
    )
    verify.set_defaults(func=cmd_verify)

    admin = sub.add_parser(
        "admin", help="admin accounts: create | passwd | disable | list; the audit: audit"
    )
    admin.add_argument("action", choices=["create", "passwd", "disable", "list", "audit"])
    admin.add_argument("name", nargs="?", default="")
    admin.add_argument(
        "--verify",
        action="store_true",
        help="audit: check the whole hash chain (exit 1 at the first entry that does not match)",
    )
    admin.add_argument(
        "--limit",
        type=_audit_limit,
        default=50,
        help="audit: how many of the latest entries (up to 10000)",
    )
    admin.set_defaults(func=cmd_admin)

    bench = sub.add_parser("bench", help="random full games per second on one core")
    bench.add_argument("games", nargs="*", help="game ids (default: all)")
    bench.add_argument("--players", type=int, default=4)
    bench.add_argument("--count", type=int, default=200, help="games per game id")
    bench.add_argument(
        "--rounds", type=int, default=None, help="rounds per game (default: the full game)"
    )
    bench.add_argument(
        "--against",
        metavar="REV",
        default=None,
        help="also run REV's engines/ (a git revision) in the same run, alternating, and compare",
    )
    bench.set_defaults(func=cmd_bench)

    load = sub.add_parser(
        "loadtest", help="rooms of websocket clients playing whole games against a node"
    )
    load.add_argument("--rooms", type=int, default=10)
    load.add_argument("--players", type=int, default=4, help="clients (seats) per room")
    load.add_argument("--game", default=None, help="a game id (default: the first registered)")
    load.add_argument("--rounds", type=int, default=None, help="default: the full game")
    load.add_argument("--pace", type=float, default=0.0, help="seconds a client thinks per move")
    load.add_argument(
        "--ramp",
        type=float,
        default=None,
        help="seconds over which the games start once every room is set up "
        "(default: 2 with --human, else 0: all at once)",
    )
    load.add_argument(
        "--games",
        type=int,
        default=1,
        help="games each room plays one after the other, each in a new room; with --ramp "
        "about a game's length, the report adds the figures of the time every room played",
    )
    load.add_argument(
        "--url",
        action="append",
        default=[],
        help="a node to play against (repeat for several; default: start one here)",
    )
    load.add_argument("--processes", type=int, default=None, help="client processes")
    load.add_argument("--timeout", type=float, default=300.0, help="seconds per room")
    load.add_argument(
        "--human",
        action="store_true",
        help="human pace: each seat acts about 2 s after its turn comes (--pace 2)",
    )
    load.add_argument(
        "--steps", default="", help="load steps in one run, rooms each: 10,50,200 (not --rooms)"
    )
    load.add_argument(
        "--workers", type=int, default=None, help="processes of the node started here"
    )
    load.add_argument(
        "--raw-seconds",
        type=float,
        default=5.0,
        help="how long the raw limit (echo + compare-and-set) is measured; 0: not at all",
    )
    load.add_argument(
        "--raw-sockets", type=int, default=0, help="raw-limit clients (default: as the load)"
    )
    load.add_argument(
        "--idle",
        type=int,
        default=0,
        help="idle sockets to hold: memory per socket, with a latency probe meanwhile",
    )
    load.add_argument("--probe-rooms", type=int, default=4, help="rooms of the idle probe")
    load.add_argument(
        "--against-workers",
        type=int,
        default=None,
        help="processes of REV's node (a revision whose serve has --workers; default: its own)",
    )
    load.add_argument(
        "--idle-deflate",
        type=int,
        default=0,
        metavar="K",
        help="K idle sockets on the raw-limit server with per-message deflate on, then off: "
        "what compression costs per socket",
    )
    load.add_argument(
        "--against",
        default=None,
        metavar="REV",
        help="also start a node of REV (a git revision, or a folder with its checkout, run "
        "on its own .venv if it has one) and play every step against both, alternately: "
        "before/after in one run",
    )
    load.add_argument(
        "--model",
        default=None,
        metavar="FIGURES",
        help="play nothing: print the capacity model's predictions (docs/SCALE.md) from a "
        "figures file (docs/scale-figures.json)",
    )
    load.add_argument(
        "--model-players",
        default="10000,100000,1000000",
        help="concurrent players the model predicts for (with --model)",
    )
    load.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="nodes started here (each with --workers processes), a room's sockets all on one "
        "of them (as nginx routes them); CPU and memory summed over them",
    )
    load.add_argument(
        "--no-bare",
        action="store_true",
        help="do not play each step against the bare fan-out server too (server/tools/bare.py: "
        "one frame in, one compare-and-set and publish, the game's frames out; its CPU per "
        "move is set against the node's)",
    )
    load.add_argument(
        "--report", default="loadtest-report.html", help="the HTML report ('' for none)"
    )
    load.set_defaults(func=cmd_loadtest)

    games = sub.add_parser("games", help="list the registered games")
    games.set_defaults(func=cmd_games)

    sub.add_parser("bot", help="run a player's bot on a site: `tortuga bot run --help`")

    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
