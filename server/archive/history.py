"""Reading the archive: what the history endpoints (``routes.py``) and ``tortuga verify`` ask.

Every function takes an ``AsyncSession`` and returns plain JSON-ready values (datetimes are
ISO 8601 strings), or raises ``NotFound`` / ``NotOver``.

The routes' functions take the ``reader`` (the asking user's id, or None) and show what the
reader may see, by allow-list:

- a private game exists only for the users who sat in it (``NotFound`` for anyone else);
- a user's game list shows someone else only their public games that are over (a game
  under way is nobody else's business; its room code is a way in);
- before a game is over, an event shows another seat's move only when its moves are public
  (a sealed phase's, once revealed) -- the rule of the frames (server/realtime/render.py);
  the moves of a prompt private for good (``moves_private``) are each their mover's alone, also
  once the game is over;
- a profile shows the name, the games above and the ratings; when they were first and last
  seen only to the user themself.

A game over that moved no rating says why (``unrated``: the rating rules of
``write.verdict``, the archiver's own), and each seat whether its player was still new to the
ratings then (``new``); the answers that speak of ratings carry the rules (``rating_rules``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from engines.core import JSON
from server.archive.models import FINAL, DeviceKey, Event, Game, Rating, Seat, User
from server.archive.replay import (
    GameLog,
    LoggedStep,
    Replay,
    VerifyReport,
    replay_log,
    verify_log,
)
from server.archive.write import RatingRules, Unrated, verdict
from server.table.record import SeatRecord

MAX_LIMIT = 200
EVERYONE = RatingRules()  # rules that rate every game of two people (the tests' default)


class NotFound(LookupError):
    """No such game (or user) in the archive."""


class NotOver(Exception):
    """The game is still being played: its replay would reveal hands."""


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _limit(limit: int) -> int:
    return max(1, min(MAX_LIMIT, limit))


def _game_json(game: Game) -> dict[str, JSON]:
    return {
        "id": game.id,
        "room": game.room,
        "engine": game.engine,
        "options": game.options,
        "players": game.players,
        "status": game.status,
        "public": game.public,
        "seed_digest": game.seed_digest,
        # Revealed once the game is over; never while it is played.
        "seed": game.seed if game.status in FINAL else None,
        "deal": (
            {
                **game.deal,
                "server_seed": game.deal.get("server_seed") if game.status in FINAL else None,
            }
            if game.deal is not None
            else None
        ),
        "created_at": _iso(game.created_at),
        "started_at": _iso(game.started_at),
        "ended_at": _iso(game.ended_at),
        "outcome": game.outcome,
        "versions": game.last_version,
        "rated": game.rated_at is not None,
        # Admins looked at its hidden state while it was played: {count, at} or None.
        "inspected": game.inspected,
    }


def _seat_json(seat: Seat, new: frozenset[int] = frozenset()) -> dict[str, JSON]:
    return {
        "seat": seat.seat,
        "user": seat.user_id,
        "bot": seat.bot,
        "name": seat.name,
        "score": seat.score,
        "rank": seat.rank,
        "rating_before": seat.ordinal_before,
        "rating_after": seat.ordinal_after,
        # A person still new to the ratings at this game: it did not move their rating.
        "new": seat.seat in new,
    }


def rules_json(rules: RatingRules, listed_after: int) -> dict[str, JSON]:
    """The rating rules as players are told them: a game is rated among the people who
    have ``min_games`` finished games and first played ``min_age_hours`` before it, when it
    has two; a leaderboard lists a player after ``listed_after`` rated games."""
    return {
        "min_games": rules.min_games,
        "min_age_hours": round(rules.min_age_seconds / 3600, 2),
        "listed_after": listed_after,
    }


async def _judged(
    session: AsyncSession, game: Game, seats: list[Seat], rules: RatingRules
) -> tuple[str | None, frozenset[int]]:
    """Why a game over moved no rating (None: it did, or it is not over) and the seats of
    people still new to the ratings at it -- the archiver's rules (``write.verdict``)."""
    if game.status not in FINAL:
        return None, frozenset()
    if game.ladder:
        return Unrated.LADDER, frozenset()
    if game.rated_at is not None:
        people = (s for s in seats if s.user_id is not None and s.bot is None)
        return None, frozenset(s.seat for s in people if s.ordinal_after is None)
    judged = await verdict(
        session,
        game_id=game.id,
        began=game.started_at or game.created_at,
        finished=game.outcome is not None,
        seats=[SeatRecord(seat=s.seat, user=s.user_id, bot=s.bot) for s in seats],
        rules=rules,
    )
    # Rated by today's rules, yet not rated: archived under other rules (or before any).
    return (judged.unrated or "not-rated"), judged.new


async def _game(session: AsyncSession, game_id: str) -> Game:
    game = await session.get(Game, game_id)
    if game is None:
        raise NotFound(f"no game {game_id!r} in the archive")
    return game


async def _seats(session: AsyncSession, game_ids: list[str]) -> dict[str, list[Seat]]:
    out: dict[str, list[Seat]] = {g: [] for g in game_ids}
    if game_ids:
        rows = await session.scalars(
            select(Seat).where(Seat.game_id.in_(game_ids)).order_by(Seat.game_id, Seat.seat)
        )
        for seat in rows:
            out[seat.game_id].append(seat)
    return out


async def _players(session: AsyncSession, game_id: str) -> set[str]:
    rows = await session.scalars(
        select(Seat.user_id).where(Seat.game_id == game_id, Seat.user_id.is_not(None))
    )
    return {str(u) for u in rows}


async def _visible(session: AsyncSession, game_id: str, reader: str | None) -> Game:
    """The game, if ``reader`` may see it: a public game, or one they sat in. Anyone else
    is told there is no such game (its existence is private too)."""
    game = await _game(session, game_id)
    if not game.public and (reader is None or reader not in await _players(session, game_id)):
        raise NotFound(f"no game {game_id!r} in the archive")
    return game


async def _ratings(session: AsyncSession, user_id: str) -> list[JSON]:
    rows = await session.scalars(
        select(Rating).where(Rating.user_id == user_id).order_by(Rating.engine)
    )
    return [{"engine": r.engine, "rating": r.ordinal, "games": r.games} for r in rows]


async def user_games(
    session: AsyncSession,
    user_id: str,
    reader: str | None = None,
    *,
    limit: int = 50,
    offset: int = 0,
    rules: RatingRules = EVERYONE,
    listed_after: int = 1,
) -> dict[str, JSON]:
    """A user's games, most recent first: their seat, score, rank and rating change, and
    who else sat at the table; and their ratings. The user themself sees every game of
    theirs; anyone else only the public ones that are over."""
    user = await session.get(User, user_id)
    if user is None:
        raise NotFound(f"no user {user_id!r} in the archive")
    own = reader == user_id
    recent = func.coalesce(Game.ended_at, Game.started_at, Game.created_at)
    shown = Seat.user_id == user_id
    if not own:
        shown = shown & Game.public.is_(True) & Game.status.in_(sorted(FINAL))
    rows = (
        await session.execute(
            select(Game, Seat)
            .join(Seat, Seat.game_id == Game.id)
            .where(shown)
            .order_by(recent.desc(), Game.id.desc(), Seat.seat)
            .limit(_limit(limit))
            .offset(max(0, offset))
        )
    ).all()
    seats = await _seats(session, sorted({game.id for game, _seat in rows}))
    games: list[JSON] = []
    for game, seat in rows:
        unrated, new = await _judged(session, game, seats[game.id], rules)
        item = _game_json(game)
        item["unrated"] = unrated
        item["seat"] = _seat_json(seat, new)
        item["seats"] = [_seat_json(s, new) for s in seats[game.id]]
        games.append(item)
    profile: dict[str, JSON] = {"id": user.id, "name": user.name}
    if own:
        profile["created_at"] = _iso(user.created_at)
        profile["last_seen_at"] = _iso(user.last_seen_at)
    return {
        "user": profile,
        "ratings": await _ratings(session, user_id),
        "rating_rules": rules_json(rules, listed_after),
        "games": games,
        "limit": _limit(limit),
        "offset": max(0, offset),
    }


def _moves_shown(event: Event, over: bool, own: set[str]) -> dict[str, Any]:
    """An event's moves as a reader sees them: a private prompt's only to their movers, for
    good; others all once the game is over or when they are public; else only the reader's
    own seats' moves."""
    if event.moves_private:
        return {s: m for s, m in event.moves.items() if s in own}
    if over or event.moves_public:
        return event.moves
    return {s: m for s, m in event.moves.items() if s in own}


def _chain_shown(event: Event, over: bool, own: set[str]) -> dict[str, Any] | None:
    """An event's proofs as a reader sees them: each proof whole (its commitment and
    signatures tell nothing of the move), the salt that opens it only with a move the reader
    is shown (``_moves_shown``): a hidden move's commitment stays closed."""
    if event.chain is None:
        return None
    shown = _moves_shown(event, over, own)
    moves = {
        s: {k: v for k, v in proof.items() if k != "salt" or s in shown}
        for s, proof in (event.chain.get("moves") or {}).items()
        if isinstance(proof, dict)
    }
    return {**event.chain, "moves": moves}


async def game_record(
    session: AsyncSession,
    game_id: str,
    reader: str | None = None,
    *,
    rules: RatingRules = EVERYONE,
    listed_after: int = 1,
) -> dict[str, JSON]:
    """One game: its row, its seats and its move log, as ``reader`` may see them."""
    game = await _visible(session, game_id, reader)
    seats = (await _seats(session, [game_id]))[game_id]
    unrated, new = await _judged(session, game, seats, rules)
    events = list(
        await session.scalars(select(Event).where(Event.game_id == game_id).order_by(Event.version))
    )
    over = game.status in FINAL
    own = {str(s.seat) for s in seats if reader is not None and s.user_id == reader}
    record = _game_json(game)
    record["unrated"] = unrated
    record["rating_rules"] = rules_json(rules, listed_after)
    record["seats"] = [_seat_json(s, new) for s in seats]
    record["events"] = [
        {
            "version": e.version,
            "moves": _moves_shown(e, over, own),
            "moves_public": e.moves_public,
            "moves_private": e.moves_private,
            "defaults": e.defaults,
            "proxies": e.proxies,
            "takeback": e.takeback,
            "at": _iso(e.at),
            "digest": e.digest,
            "head": e.head,
            "chain": _chain_shown(e, over, own),
        }
        for e in events
    ]
    record["keys"] = await _keys(session, events)
    return record


async def game_log(session: AsyncSession, game_id: str) -> GameLog:
    """What ``replay.py`` needs to recompute the game."""
    game = await _game(session, game_id)
    events = list(
        await session.scalars(select(Event).where(Event.game_id == game_id).order_by(Event.version))
    )
    seats = (await _seats(session, [game_id]))[game_id]
    return GameLog(
        game_id=game.id,
        engine=game.engine,
        options=game.options,
        players=game.players,
        seed=game.seed,
        seed_digest=game.seed_digest,
        status=game.status,
        outcome=game.outcome,
        deal=game.deal,
        seats=[{"seat": s.seat, "user": s.user_id, "bot": s.bot} for s in seats],
        steps=[
            LoggedStep(
                e.version,
                e.moves,
                e.defaults,
                e.at,
                e.digest,
                e.proxies,
                e.takeback,
                e.head,
                e.chain,
            )
            for e in events
        ],
        room=game.room,
        keys=await _keys(session, events),
    )


async def _keys(session: AsyncSession, events: Sequence[Event]) -> dict[str, dict[str, Any]]:
    """The registered public keys the events' proofs name (server/archive/models.py,
    ``DeviceKey``): kid -> {user, key}."""
    kids: set[str] = set()
    for e in events:
        for proof in ((e.chain or {}).get("moves") or {}).values():
            if isinstance(proof, dict) and isinstance(proof.get("key"), str):
                kids.add(proof["key"])
        for c in ((e.chain or {}).get("game") or {}).get("contributions") or []:
            if isinstance(c, dict) and isinstance(c.get("key"), str):
                kids.add(c["key"])
    if not kids:
        return {}
    rows = await session.scalars(select(DeviceKey).where(DeviceKey.kid.in_(sorted(kids))))
    return {r.kid: {"user": r.user_id, "key": r.public_key} for r in rows}


async def verify_game(
    session: AsyncSession, game_id: str, seen: Mapping[int, str] | None = None
) -> VerifyReport:
    """``verified`` or exactly which version (and deal) differs; a missing game is a failed
    report, not an exception (the CLI prints it either way). ``seen``: the heads a device
    was sent while it played (version -> head), compared with the archive's first."""
    try:
        log = await game_log(session, game_id)
    except NotFound as exc:
        return VerifyReport(game_id, False, str(exc))
    return verify_log(log, seen)


async def verify_game_for(
    session: AsyncSession, game_id: str, reader: str | None
) -> dict[str, JSON]:
    """The verification report of a game ``reader`` may see."""
    await _visible(session, game_id, reader)
    return verify_log(await game_log(session, game_id)).to_json()


async def replay_game(
    session: AsyncSession,
    game_id: str,
    reader: str | None = None,
    *,
    fields: tuple[str, ...] | None = None,
) -> dict[str, JSON]:
    """Every version as a spectator sees it after the game (hands revealed), with the
    verification report. Refused (NotOver) while the game is being played. With ``fields``
    each frame's view holds only those top-level fields (a page that needs the scores of
    every version, not every card: a few kilobytes instead of a megabyte)."""
    await _visible(session, game_id, reader)
    log = await game_log(session, game_id)
    if log.status not in FINAL:
        raise NotOver(f"game {game_id} is still being played: its replay opens when it ends")
    replay: Replay = replay_log(log)
    if fields is not None:
        for frame in replay.frames:
            view = frame["view"]
            frame["view"] = {k: view[k] for k in fields if k in view}
    return {
        "game": game_id,
        "engine": log.engine,
        "status": log.status,
        "verified": replay.report.ok,
        "report": replay.report.to_json(),
        "frames": replay.frames,
    }


async def leaderboard(
    session: AsyncSession,
    engine: str,
    *,
    limit: int = 50,
    offset: int = 0,
    min_games: int = 1,
    rules: RatingRules = EVERYONE,
    reader: str | None = None,
) -> dict[str, JSON]:
    """The rated users of one game with at least ``min_games`` rated games, best ordinal
    (mu - 3 sigma) first, and the rating rules (``rules``, ``min_games``); for a reader,
    their own rating in the game (``you``: null without one), listed or not yet."""
    rows = (
        await session.execute(
            select(Rating, User.name)
            .join(User, User.id == Rating.user_id)
            .where(Rating.engine == engine, Rating.games >= min_games)
            .order_by(Rating.ordinal.desc(), Rating.games.desc(), Rating.user_id)
            .limit(_limit(limit))
            .offset(max(0, offset))
        )
    ).all()
    entries: list[Any] = [
        {
            "rank": max(0, offset) + i + 1,
            "user": rating.user_id,
            "name": name,
            "rating": rating.ordinal,
            "mu": rating.mu,
            "sigma": rating.sigma,
            "games": rating.games,
        }
        for i, (rating, name) in enumerate(rows)
    ]
    you: JSON = None
    if reader is not None:
        mine = await session.get(Rating, (reader, engine))
        you = {"rating": mine.ordinal, "games": mine.games} if mine is not None else None
    return {
        "engine": engine,
        "min_games": min_games,
        "rating_rules": rules_json(rules, min_games),
        "you": you,
        "entries": entries,
        "limit": _limit(limit),
        "offset": max(0, offset),
    }
