"""The step: one new version of a game under way, written by compare-and-set.

``advance`` is the only writer of a step: the moves, defaults and take-backs here, the
deal (server/table/seats.py), the sealed phase's resolution (server/table/reveal.py) and the
abandon (server/table/game_end.py) all write through it. Players, bots and the clock
(server/table/deadlines.py) all reach the game through ``act``, ``play_default``,
``takeback`` and the sealed-phase service, with the same checks. Every change goes through
Redis (server/redis/store.py) as a compare-and-set and is retried on a lost race with the
fresh room, so any node may serve any room and nothing lives only in a node's memory.

Deadlines: a step that opens a prompt with a deadline puts it on the clock before writing,
and stores and publishes its due time (epoch ms): the one time clients and the clock go by.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field, replace
from typing import Any

from engines.core import MoveError
from engines.registry import AnyGame
from server import protocol as p
from server.identity.signing import ServerKey
from server.redis.store import Opening, member
from server.table.chain import Proof, commitment
from server.table.chained import chain_step
from server.table.entry import (
    ABANDON,
    MOVE,
    START,
    TAKEBACK,
    Entry,
    from_fields,
    now_iso,
    step_notice,
    to_fields,
)
from server.table.game_end import GameEnd
from server.table.room import (
    ABANDONED,
    FINISHED,
    PLAYING,
    RETRIES,
    Hooks,
    Room,
    RoomError,
    RoomReader,
    now_ms,
    phase_name,
    playing,
)
from server.table.room_list import PublicList

log = logging.getLogger("tortuga.rooms")


ACTIVITY_NOTE_MS = 10_000  # a game's activity in its users' "my rooms", at most this often
NOTED_ROOMS = 100_000  # rooms whose last note a node remembers
WRITTEN_ROOMS = 10_000  # rooms whose last step (as this node wrote it) a node remembers


class _Unset:
    """``advance``'s deadline when the writer does not choose it (computed from the room)."""


UNSET = _Unset()


@dataclass(slots=True, kw_only=True)
class _Step:
    """What ``advance`` settles about the step it writes, before writing it."""

    version: int
    status: str  # the room's status after it
    blob: bytes  # the state after it, encoded
    at: str  # ISO time: the entry's, and the game's end when it ends it
    now: int  # epoch ms: the room's activity
    due: int | None = None  # epoch ms: the deadline of the prompt it opens
    clock: str = ""  # that deadline's clock member: "commit" (a sealed prompt) or "move"
    bots_owe: bool = False  # a bot seat owes the prompt it opens
    away_seats: list[int] = field(default_factory=list)  # seats that owe it, if no bot does
    checkpoint: bool = False  # a "playing" record of the game is archived at it
    head: str | None = None  # the game's chain head after it (server/table/chain.py)

    @property
    def over(self) -> bool:
        return self.status != PLAYING


class Steps:
    """Moves, defaults and take-backs of games under way, and the write of each step."""

    def __init__(
        self,
        reader: RoomReader,
        hooks: Hooks,
        listing: PublicList,
        ending: GameEnd,
        *,
        room_ttl: int = 0,
        archive_every: int,
        server_key: ServerKey | None = None,
    ) -> None:
        self.reader = reader
        self.server_key = server_key or ServerKey.derived(b"")  # signs moves made for a seat
        self.store = reader.store
        self.hooks = hooks
        self.listing = listing
        self.ending = ending
        self.room_ttl = room_ttl
        self.archive_every = archive_every
        self._noted: dict[str, int] = {}  # room -> when its users' "my rooms" were noted
        self._written: dict[str, tuple[Room, Any]] = {}  # room -> (as our last step left it, state)
        ending.writer = self  # the abandon is a step too: written here, like every other

    def written(self, room_id: str) -> Room | None:
        """The room as this node's own last step of it left it, if this node wrote that
        step: a move at a table whose sockets are all here (server/realtime/homes.py) is checked
        against it without reading the room. Only a hint: it may be behind the room (a
        step another node wrote, a seat that changed hands): ``act_recalled`` says when."""
        recalled = self._written.get(room_id)
        return recalled[0] if recalled is not None else None

    def _remember(self, room: Room | None, room_id: str, state: Any = None) -> None:
        self._written.pop(room_id, None)
        if room is not None:
            self._written[room_id] = (room, state)  # the newest last: the oldest go first
            if len(self._written) > WRITTEN_ROOMS:
                del self._written[next(iter(self._written))]

    async def act(
        self,
        room_id: str,
        seat: int,
        move_json: Any,
        version: int | None = None,
        *,
        proxy: bool = False,
        room: Room | None = None,
        proof: Proof | None = None,
    ) -> int:
        """One open move by ``seat``; the version it produced. The engine checks it against
        the fresh state on every try: a lost race is retried unless the mover named the
        version it saw (then ``stale-version``). ``proxy``: a stand-in (the grace-time bot)
        moves for the seat's absent player; the step lists the seat in ``proxies``.
        ``room``: the room as the caller has just read it (the first try goes by it; a
        stale one only loses the compare-and-set, and the next try reads afresh)."""
        for _ in range(RETRIES):
            if room is None or room.id != room_id:
                room = await self.reader.get(room_id)
            made = await self._move(room, seat, move_json, version, proxy=proxy, proof=proof)
            if made is not None:
                return made
            if version is not None:
                raise RoomError(p.STALE_VERSION, "another move came first")
            room = None
        raise RoomError(p.BUSY, "the room is busy; try again")

    async def act_recalled(
        self,
        room: Room,
        seat: int,
        move_json: Any,
        version: int | None,
        proof: Proof | None = None,
    ) -> int | None:
        """One open move by ``seat`` checked against ``room`` as this node remembers it
        (``written``) instead of as read: the version it produced, or None when the memory
        is of no use -- it refuses the move (a refusal is only given by ``act``, from the
        room as read) or it is behind the room (the write compares the room's version
        *and* revision, so a seat that changed hands since is a lost race, and the caller
        checks the seat again in the room as read). A lost write drops the memory
        (``advance``); a refusal keeps it: the read decides, and a memory that is behind
        loses its next write."""
        recalled = self._written.get(room.id)
        # the state as the step left it, not decoded again (states are immutable)
        state = recalled[1] if recalled is not None and recalled[0] is room else None
        try:
            return await self._move(
                room, seat, move_json, version, expected_rev=room.rev, state=state, proof=proof
            )
        except RoomError:
            return None

    async def _move(
        self,
        room: Room,
        seat: int,
        move_json: Any,
        version: int | None,
        *,
        proxy: bool = False,
        expected_rev: int | None = None,
        state: Any = None,
        proof: Proof | None = None,
    ) -> int | None:
        """One try of an open move against ``room`` (``state``: its state, decoded
        already): the version it produced, None if the compare-and-set lost; a refused
        move raises ``RoomError``."""
        if state is None:
            game, state = playing(room)
        else:
            game = room.game
        if version is not None and version != room.version:
            raise RoomError(p.STALE_VERSION, f"the room is at version {room.version}")
        prompt = game.prompt(state)
        if prompt.sealed and seat in prompt.seats:
            raise RoomError(p.SEALED_PHASE, "this phase is sealed: commit, then reveal")
        try:
            move = game.decode_move(move_json)
            game.validate(state, seat, move)
            new = game.step(state, {seat: move})
        except MoveError as exc:
            raise RoomError(exc.code, exc.message) from None
        moves = {str(seat): move.to_json()}
        if proof is not None and proof.c != commitment(proof.l, seat, moves[str(seat)], proof.salt):
            raise RoomError(p.BAD_SIGNATURE, "sign the move as the game writes it (view.legal)")
        proxies = [seat] if proxy else []
        if await self.advance(
            room,
            new,
            kind=MOVE,
            moves=moves,
            defaults=[],
            proxies=proxies,
            expected_rev=expected_rev,
            proofs={seat: proof} if proof is not None else None,
        ):
            return room.version + 1
        return None

    async def play_default(
        self, room_id: str, seat: int, version: int, *, proxy: bool = False
    ) -> bool:
        """The hook for deadlines (the clock) and absent players: the engine's default
        move for ``seat`` at ``version`` of an open prompt. False if the moment has passed
        (the version moved, the game ended, or the seat owes nothing). Sealed prompts:
        ``server.table.reveal.Sealing.default``. ``proxy``: made because the player is away
        (``absent: "default"``), listed in ``proxies`` as well as ``defaults``."""
        room = await self.reader.get(room_id)
        if room.status != PLAYING or room.state is None:
            return False
        game, state = playing(room)
        prompt = game.prompt(state)
        if room.version != version or prompt.sealed or seat not in prompt.seats:
            return False
        move = game.default(state, seat)
        new = game.step(state, {seat: move})
        moves = {str(seat): move.to_json()}
        proxies = [seat] if proxy else []
        return await self.advance(
            room, new, kind=MOVE, moves=moves, defaults=[seat], proxies=proxies
        )

    async def takeback(self, room_id: str, seat: int, version: int) -> int:
        """``seat`` takes back its open move that produced ``version``: a new version whose
        state is the one before that move (versions only grow). Allowed only in a room that
        allows it, while ``version`` is still the latest (nobody acted since), for the
        seat's own open move (not a default, not a stand-in's, not a sealed resolution),
        and when the move revealed nothing new to anyone (``reveals_nothing``). The
        prompt's deadline is the one the state had before the move: taking back does not
        buy time. The version written."""
        room = await self.reader.get(room_id)
        if not room.takeback:
            raise RoomError(p.TAKEBACK_OFF, "this room does not allow taking moves back")
        game, state = playing(room)
        if version != room.version:
            raise RoomError(p.TAKEBACK_TOO_LATE, "the game has moved on since that move")
        if version < 2:
            raise RoomError(p.TAKEBACK_NOT_YOURS, "the deal is nobody's move")
        entries = dict(await self.store.log_range(room_id, version - 1, version))
        if version - 1 not in entries or version not in entries:
            raise RoomError(p.TAKEBACK_TOO_LATE, "that move is no longer in the log")
        before, last = from_fields(entries[version - 1]), from_fields(entries[version])
        if last.kind != MOVE or last.seats != [seat] or last.defaults or last.proxies:
            raise RoomError(p.TAKEBACK_NOT_YOURS, "the last step was not a move you made")
        prompt = game.prompt(state)
        if prompt.sealed:
            seal = await self.store.load_seal(room_id)
            if seal.get("phase") == phase_name(prompt, version) and seal.get("commits", "0") != "0":
                raise RoomError(p.TAKEBACK_TOO_LATE, "someone has acted since that move")
        restored = game.decode(before.state)
        if not reveals_nothing(game, restored, state, seat, room.players):
            raise RoomError(p.TAKEBACK_REVEALS, "that move revealed something new: it stands")
        if not await self.advance(
            room,
            restored,
            kind=TAKEBACK,
            moves={},
            defaults=[],
            seats=[seat],
            undoes=version,
            deadline=before.deadline,
        ):
            raise RoomError(p.TAKEBACK_TOO_LATE, "someone acted first")
        return version + 1

    async def advance(
        self,
        room: Room,
        state: Any,
        *,
        kind: str,
        moves: dict[str, Any],
        defaults: list[int],
        proxies: list[int] | None = None,
        seats: list[int] | None = None,
        undoes: int | None = None,
        deadline: int | _Unset | None = UNSET,
        expected_rev: int | None = None,
        extra: dict[str, Any] | None = None,
        reveal: Opening | None = None,
        proofs: dict[int, Proof] | None = None,
    ) -> bool:
        """Write the state after ``room.version`` (compare-and-set); True if this call won.
        ``proofs``: the players' own signed proofs of their moves, by seat (every other move
        is the server's, signed by its key, or unsigned: server/table/chained.py).
        ``reveal``: the opening that completes the sealed phase this step resolves, stored
        in the same script (``Store.write_step``; ``RevealRefused`` if it is refused).
        ``extra``: what only some kinds of step carry -- the deal's seed and its inputs
        (``START``), the sealed phase resolved (``REVEAL``), why and by which seat a game
        was abandoned (``ABANDON``: ``reason``, ``abandoned_by``; the state is unchanged).

        The path of a step: settle what it is (``_settle``), its room fields and its log
        entry; put what it will need later on the clock (``_clock_members``); write it;
        remember the room it leaves; then the public list, the seated users' "my rooms",
        and what follows (``_follow``: the game's record, the bots' turn)."""
        extra = extra or {}
        step = self._settle(room, state, kind, deadline)
        # The step's link on the game's chain (an abandon is no event: the chain stays).
        step.head, chained = (room.head, None) if kind == ABANDON else chain_step(
            room, self.server_key, kind, step.version, step.at, step.blob, moves, defaults,
            proxies or [], undoes, proofs, extra,
        )  # fmt: skip
        fields = self._room_fields(room, step, kind, extra)
        entry = self._entry(room, step, kind, moves, defaults, proxies, seats, undoes, extra)
        entry.head, entry.chain = step.head, chained
        # When the step ends the game, the rescue of its final record (``GameEnd.archive_end``).
        rescue = self.ending.archive_member(room.id, step.version) if step.over else None
        later = self._clock_members(room, state, step, rescue)
        if later:
            await self.store.schedule_many(later)
        won = 0
        self.hooks.writing(room.id, step.version)
        try:
            won = await self.store.write_step(
                room.id,
                expected_version=room.version,
                expected_rev=expected_rev,
                fields=fields,
                log_fields=to_fields(entry),
                new_version=step.version,
                payload=step_notice(room.id, step.version),
                ttl=self.room_ttl if step.over else 0,
                away_seats=step.away_seats,
                reveal=reveal,
            )
        finally:
            self.hooks.written(room.id, step.version, entry if won else None)
        if not won:
            self._remember(None, room.id)
            return False
        # Before any wait: a reply to this step may be read in the next turn of the loop.
        self._remember(self._left(room, step, kind), room.id, state)
        _log_step(entry)
        if room.public and (kind == START or step.over):  # the public list
            await self.listing.changed(await self.reader.get(room.id))
        seated = self._activity(room, step, kind)
        if seated is not None:
            await self.store.seat_users(room.id, seated, step.now)
        if kind == ABANDON and rescue is not None:
            await self.ending.archive_end(rescue)  # the caller hands back the room archived
        else:
            self._follow(room, step, kind, won, rescue)
        return True

    def _settle(self, room: Room, state: Any, kind: str, deadline: int | _Unset | None) -> _Step:
        """What the step is: its version, the room's status after it, the state as stored
        and, while the game goes on, the prompt it opens -- its deadline (the room's for
        that prompt, or the one given: a take-back restores the deadline the state had),
        who must hear of it, and whether the step is a checkpoint."""
        version, at, now = room.version + 1, now_iso(), now_ms()
        if kind == ABANDON:
            return _Step(version=version, status=ABANDONED, blob=room.state or b"", at=at, now=now)
        game = room.game
        status = FINISHED if game.outcome(state) is not None else PLAYING
        step = _Step(version=version, status=status, blob=game.encode(state), at=at, now=now)
        if status == FINISHED:
            return step
        prompt = game.prompt(state)
        # Bots are told of the turn only when a bot seat owes or an owing seat is taken over
        # (``away_seats``): at a table of people all here, a step starts no bot work.
        step.bots_owe = any(room.seats[s].bot is not None for s in prompt.seats)
        step.away_seats = [] if step.bots_owe else list(prompt.seats)
        step.clock = "commit" if prompt.sealed else "move"
        seconds = room.deadlines.get(step.clock)
        if not isinstance(deadline, _Unset):
            step.due = deadline
        elif seconds and not prompt.over:
            step.due = now + int(seconds * 1000)
        # A "playing" record with the events since the one before (written with the step:
        # two checkpoints never overlap or skip).
        step.checkpoint = self._checkpoint(prompt.sealed, version)
        return step

    def _room_fields(
        self, room: Room, step: _Step, kind: str, extra: dict[str, Any]
    ) -> dict[str, bytes | str]:
        """The room hash's fields the step writes."""
        if kind == ABANDON:  # the state stays; the game ends, and how
            quitter = extra.get("abandoned_by")
            return {
                "version": str(step.version),
                "status": ABANDONED,
                "ended_at": step.at,
                "ended_reason": extra["reason"],
                "abandoned_by": "" if quitter is None else str(quitter),
                "deadline": "",
            }
        fields: dict[str, bytes | str] = {
            "version": str(step.version),
            "state": step.blob,
            "status": step.status,
            "deadline": "" if step.due is None else str(step.due),
            "active_at": str(step.now),
            "head": step.head or "",
        }
        if kind == START:
            fields.update(
                started_at=room.started_at or now_iso(),
                seed=extra["seed"],
                seed_digest=extra["seed_digest"],
                server_seed=extra["server_seed"],
                seed_commitment=extra["seed_commitment"],
                contributions=json.dumps(extra["contributions"], separators=(",", ":")),
                game_no="1",
            )
        if step.over:
            fields["ended_at"] = step.at
        if step.checkpoint:
            fields["checkpoint"] = str(step.version)
        return fields

    def _entry(
        self,
        room: Room,
        step: _Step,
        kind: str,
        moves: dict[str, Any],
        defaults: list[int],
        proxies: list[int] | None,
        seats: list[int] | None,
        undoes: int | None,
        extra: dict[str, Any],
    ) -> Entry:
        """The step's entry in the room's log: what every socket is sent of it. The seed
        and the server seed only once the game is over; the game's archive id at its
        start and its end."""
        over = step.over
        return Entry(
            room=room.id,
            engine=room.engine,
            version=step.version,
            kind=kind,
            seats=seats if seats is not None else sorted(int(s) for s in moves),
            moves=moves,
            defaults=defaults,
            proxies=sorted(proxies or []),
            at=step.at,
            state=step.blob,
            status=step.status,
            phase=extra.get("phase"),
            salts=extra.get("salts"),
            opened=extra.get("opened"),
            private=bool(extra.get("private")),
            secret=bool(extra.get("secret")),
            seed_digest=extra.get("seed_digest"),
            seed=(room.seed or extra.get("seed")) if over else None,
            server_seed=room.server_seed if over else None,
            contributions=extra.get("contributions"),
            seed_commitment=extra.get("seed_commitment"),
            deadline=step.due,
            undoes=undoes,
            game_id=f"{room.id}-{room.game_no or 1}" if kind == START or over else None,
            reason=extra.get("reason"),
        )

    def _clock_members(
        self, room: Room, state: Any, step: _Step, rescue: tuple[str, int] | None
    ) -> list[tuple[str, int]]:
        """What this step will need later goes on the clock before the step exists, so that
        it is there even if this node dies right after winning: the deadline of the prompt
        it opens, the ``before_step`` members (bots' rescues) or, when it ends the game, the
        rescue of its final record. An attempt that loses the race (or is never written)
        leaves a member that fires as a no-op."""
        later = (
            [(member(step.clock, room.id, step.version), step.due)] if step.due is not None else []
        )
        if rescue is not None:
            later.append(rescue)
        else:
            for hook in self.hooks.before_step:
                later.extend(hook(room, state, step.version))
        return later

    def _left(self, room: Room, step: _Step, kind: str) -> Room | None:
        """The room as the step left it, for ``written``: a game under way past its deal
        (the deal and the end change more of the room than the step writes)."""
        if step.over or kind == START:
            return None
        return replace(
            room,
            version=step.version,
            state=step.blob,
            status=step.status,
            deadline=step.due,
            active_at=step.now,
            checkpoint=step.version if step.checkpoint else room.checkpoint,
            head=step.head,
        )

    def _activity(self, room: Room, step: _Step, kind: str) -> dict[str, bool] | None:
        """The seated users' "my rooms" to write after the step, if any: the room's
        activity time in each user's set, noted at the start, then at most every
        ``ACTIVITY_NOTE_MS`` by this node (not one write per step), and the room taken out
        when the game is over."""
        if step.over:
            self._noted.pop(room.id, None)
        elif kind != START and step.now - self._noted.get(room.id, 0) < ACTIVITY_NOTE_MS:
            return None
        else:
            if len(self._noted) >= NOTED_ROOMS:
                self._noted.clear()  # rooms that ended elsewhere; noted again when they move
            self._noted[room.id] = step.now
        return {u: not step.over for u in room.users()}

    def _follow(
        self, room: Room, step: _Step, kind: str, won: int, rescue: tuple[str, int] | None
    ) -> None:
        """What follows a step won, after it and in order (``GameEnd.later``): the final
        record of a game it finished (first in line), or a checkpoint's "playing" record;
        and the bots, told of the turn when they owe it or a seat was just taken over."""
        ending = self.ending
        if rescue is not None:
            ending.later(lambda: ending.archive_end(rescue), first=True)
            return
        if step.checkpoint:
            version, since = step.version, room.checkpoint + 1
            read = None if kind == START else room  # the deal changed the room: read afresh
            ending.later(
                lambda: ending.archive(room.id, checkpoint=version, since=since, room=read)
            )
        if step.bots_owe or won == 2:
            self.hooks.turn(room.id)

    def _checkpoint(self, sealed: bool, version: int) -> bool:
        """Whether the game under way is archived progressively at ``version`` (a "playing"
        record): when the new state opens a sealed prompt (``sealed``: a natural break,
        such as a round's sealed bids, so each round end), and at least every
        ``archive_every`` versions. The server knows no rules: only the prompt and the
        version."""
        if self.archive_every > 0 and version % self.archive_every == 0:
            return True
        return sealed


def _log_step(entry: Entry) -> None:
    """A step written: at debug (every step is in the room's log stream already), but an
    abandoned game at info."""
    if entry.kind == ABANDON:
        where = {"room": entry.room, "version": entry.version, "kind": entry.reason}
        log.info("abandoned", extra=where)
    else:
        where = {"room": entry.room, "version": entry.version, "kind": entry.kind}
        log.debug("step", extra={**where, "seats": entry.seats})


def reveals_nothing(game: AnyGame, before: Any, after: Any, mover: int, players: int) -> bool:
    """Whether the step ``before`` -> ``after`` by ``mover`` revealed nothing new to anyone
    but the card(s) the move itself showed (engine contract: ``hidden``, ``zones``).

    The mover learned nothing (their hidden set is the same: no card of another hand, the
    ghost's pile or the stock came into view, no new hand was dealt), and every other
    viewer (the other seats and a spectator) only learned cards that the mover could see
    and that the step moved -- the card played."""
    if game.hidden(before, mover) != game.hidden(after, mover):
        return False
    where = {c: z for z, cards in game.zones(before).items() for c in cards}
    now = {c: z for z, cards in game.zones(after).items() for c in cards}
    shown = {c for c, z in where.items() if now.get(c) != z} - game.hidden(before, mover)
    for viewer in [*range(players), None]:
        if viewer == mover:
            continue
        learned = game.hidden(before, viewer) - game.hidden(after, viewer)
        if not learned <= shown:
            return False
    return True
