"""The bot ladder: games a player's bot sat in are rated here, never on people's ratings.

An entrant is a player's bot account (its user id, ``b_...``) or the server's bots of one
level (``server:<level>``: every server bot of that level in every game is one entrant). A
finished game (or one a seated player abandoned) with at least one bot account is rated among
its bots -- bot accounts and server bots -- by the outcome's ranks, with the same model as
people's ratings (server/archive/ratings.py); people at the same table are left out, and
their own ratings do not move (``write._rate`` sends such a game here instead). Two seats of
one entrant in a game (two server bots of a level) are rated as two players; the entrant
keeps the first one's new rating.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert

from server.archive import ratings
from server.archive.models import Game, LadderRating, Seat
from server.archive.record import ArchiveRecord
from server.identity.tokens import is_bot_account
from server.table.record import SeatRecord

SERVER = "server:"


def entrant(seat: SeatRecord) -> str | None:
    """Who a seat is on the ladder (None: a person)."""
    if is_bot_account(seat.user):
        return str(seat.user)
    if seat.user is None and seat.bot is not None:
        return f"{SERVER}{seat.bot}"
    return None


def is_ladder_game(record: ArchiveRecord) -> bool:
    return any(is_bot_account(s.user) for s in record.seats)


async def rate_ladder(session: Any, record: ArchiveRecord, now: datetime) -> bool:
    """Rate a game a player's bot sat in on the ladder (False: not rated: no outcome, or
    fewer than two bots)."""
    await session.execute(update(Game).where(Game.id == record.game_id).values(ladder=True))
    if record.outcome is None:
        return False
    seats = [(s, who) for s in record.seats if (who := entrant(s)) is not None]
    if len(seats) < 2:
        return False
    names = sorted({who for _, who in seats})
    rows = await session.execute(
        select(LadderRating.entrant, LadderRating.mu, LadderRating.sigma)
        .where(LadderRating.engine == record.engine, LadderRating.entrant.in_(names))
        .order_by(LadderRating.entrant)
        .with_for_update()
    )
    stored = {who: ratings.Skill(mu, sigma) for who, mu, sigma in rows.all()}
    before = [stored.get(who) or ratings.initial() for _, who in seats]
    after = ratings.rate(before, [record.outcome.ranks[s.seat] for s, _ in seats])
    written: set[str] = set()
    for (seat, who), old, new in zip(seats, before, after, strict=True):
        await session.execute(
            update(Seat)
            .where(Seat.game_id == record.game_id, Seat.seat == seat.seat)
            .values(ordinal_before=old.ordinal, ordinal_after=new.ordinal)
        )
        if who in written:
            continue
        written.add(who)
        server = who.startswith(SERVER)
        row = {
            "entrant": who,
            "engine": record.engine,
            "name": f"Tortuga {seat.bot}" if server else seat.name,
            "owner": seat.owner if isinstance(seat.owner, str) else None,
            "owner_name": seat.owner_name if isinstance(seat.owner_name, str) else None,
            "mu": new.mu,
            "sigma": new.sigma,
            "ordinal": new.ordinal,
            "games": 1,
            "updated_at": now,
        }
        stmt = insert(LadderRating).values(row)
        stmt = stmt.on_conflict_do_update(
            index_elements=[LadderRating.entrant, LadderRating.engine],
            set_={
                "name": stmt.excluded.name,
                "mu": stmt.excluded.mu,
                "sigma": stmt.excluded.sigma,
                "ordinal": stmt.excluded.ordinal,
                "games": LadderRating.games + 1,
                "updated_at": stmt.excluded.updated_at,
            },
        )
        await session.execute(stmt)
    await session.execute(update(Game).where(Game.id == record.game_id).values(rated_at=now))
    return True


async def ladder_board(session: Any, engine: str, limit: int = 100) -> dict[str, Any]:
    """The ladder of one game: its entrants by ordinal, and its latest games (with their
    seats: each has a replay at /api/history/games/{id}/replay)."""
    rows = await session.execute(
        select(LadderRating)
        .where(LadderRating.engine == engine)
        .order_by(LadderRating.ordinal.desc(), LadderRating.entrant)
        .limit(limit)
    )
    entries = [
        {
            "entrant": r.entrant,
            "name": r.name,
            "owner": {"id": r.owner, "name": r.owner_name} if r.owner else None,
            "server": r.entrant.startswith(SERVER),
            "rating": round(r.ordinal, 2),
            "games": r.games,
        }
        for (r,) in rows.all()
    ]
    games = await session.execute(
        select(Game.id, Game.ended_at, Game.status)
        .where(Game.engine == engine, Game.ladder.is_(True), Game.status == "finished")
        .order_by(Game.ended_at.desc())
        .limit(20)
    )
    recent = [
        {"game_id": gid, "ended_at": ended.isoformat() if ended else None, "status": status}
        for gid, ended, status in games.all()
    ]
    if recent:
        seats = await session.execute(
            select(Seat.game_id, Seat.seat, Seat.name, Seat.rank)
            .where(Seat.game_id.in_([g["game_id"] for g in recent]))
            .order_by(Seat.game_id, Seat.seat)
        )
        by_game: dict[str, list[dict[str, Any]]] = {}
        for gid, seat, name, rank in seats.all():
            by_game.setdefault(gid, []).append({"seat": seat, "name": name, "rank": rank})
        for g in recent:
            g["seats"] = by_game.get(g["game_id"], [])
    count = await session.scalar(
        select(func.count()).select_from(Game).where(Game.engine == engine, Game.ladder.is_(True))
    )
    return {"engine": engine, "entries": entries, "games": recent, "played": int(count or 0)}
