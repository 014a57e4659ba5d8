"""One bot in one room, over one websocket that comes back when it drops.

``Player.play(room)`` follows a room until its game is over: it sits (the seat asked for, or
the first free one), gets ready with its contribution to the deal seed once it has seen the
room's commitment, asks the bot for a move whenever its seat owes one, commits and reveals a
sealed phase's move, and returns the game's ``Result``. A host (``Host``) also fills seats with
the server's bots and starts the game once everyone is ready.

Limits: frames are paced below the site's message budget (``pace``); a refusal with
``retry_after_ms`` (``rate-limited``) is waited out and the frame sent again; a dropped socket
(or a node's ``reconnect``) comes back after a random wait and ``resume``s from the last
version seen, so nothing is missed and nothing is done twice. A refused token (``bad-token``,
close 4001) or a ban (4010) ends the play with ``Refused``.

Signed moves (docs/PROTOCOL.md, "The move chain and signed moves"): with a device key on the
site (``Site.key``) the socket names it in ``auth`` -- registered with the user first, and
again after a close with 4011 (``unknown-key``) -- and every ``act`` (with its salt), ``commit``,
``reveal`` and ``ready`` (the contribution) it sends is signed, as the browser signs them.
The heads of the move chain the site sends (``event``, ``snapshot``, ``resumed``) are kept
(``heads``: version -> the first head sent for it), and written to ``heads_dir`` at the end
in the form ``tortuga verify GAME --heads FILE`` reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import websockets

from tortuga_bot import chain
from tortuga_bot import protocol as p
from tortuga_bot.seal import digest, new_salt
from tortuga_bot.seeding import Contributor
from tortuga_bot.site import Site
from tortuga_bot.turn import Bot, Prompt, Result, Turn, ask, tell

log = logging.getLogger("tortuga_bot")

# A move about to be sent (an act, a commit, an opening, a ready) may be changed by a hook
# just before it goes, after the device's signature (tests send a wrong one with it).
Signer = Callable[[dict[str, Any]], dict[str, Any]]
MOVES = ("act", "commit", "reveal", "ready")

FATAL_CLOSES = {4001: "bad-token", 4010: "banned"}
CLOSE_FLOOD = 4008
CLOSE_UNKNOWN_KEY = 4011  # auth named a device key the site does not know: register again
# Errors that only say the room moved on (a newer frame follows) or that a retried frame
# was done already.
HARMLESS = {"stale-version", "already-committed", "already-revealed", "wrong-phase", "not-open"}


class Refused(Exception):
    """The site refused this bot for good: its token (revoked, expired) or a ban."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


class Pace:
    """A token bucket: ``rate`` frames a second, ``burst`` at once -- under the site's budget
    per user (20 a second, 40 at once by default), which all of a user's sockets share."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.at = float(burst), time.monotonic()

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


@dataclass
class Host:
    """What a hosting bot does in its lobby: server bots in these seats, then the start."""

    bots: dict[int, str] = field(default_factory=dict)  # seat -> level ("heuristic", ...)
    start: bool = True


@dataclass
class _Seal:
    move: Any
    salt: str
    seat: int
    version: int  # the room's version the phase was opened at (what the signature names)
    digest: str


class Player:
    def __init__(
        self,
        site: Site,
        bot: Bot,
        *,
        pace: float = 10.0,
        burst: int = 20,
        sign: Signer | None = None,
        contributor: Contributor | None = None,
        record: list[dict[str, Any]] | None = None,
        heads_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.site = site
        self.bot = bot
        self.pace = Pace(pace, burst)
        self.sign = sign
        self.seeds = contributor or Contributor()
        self.record = record  # every frame received, as a dict (tests, logs)
        self.heads_dir = Path(heads_dir) if heads_dir is not None else None
        self.heads: dict[int, str] = {}  # version -> the first head the site sent for it
        self.heads_path: Path | None = None  # where they were written, if they were
        self.game_id: str | None = None
        self.kid: str | None = None  # the device key this socket signed in with (None: unsigned)
        self._refs = itertools.count(1)
        self._sent: dict[str, dict[str, Any]] = {}  # ref -> frame, to send again if refused

    # -- a room, from the lobby to the end of its game ------------------------------------------
    async def play(self, room: str, *, seat: int | None = None, host: Host | None = None) -> Result:
        self.room = room
        self.want_seat = seat
        self.host = host
        self.version = -1
        self.seat: int | None = None
        self.view: dict[str, Any] | None = None
        self.state: p.RoomState | None = None
        self.seals: dict[str, _Seal] = {}
        self.acted: set[int] = set()
        self.lobby_sent: dict[str, Any] = {}  # what was asked in the lobby, not to ask twice
        self.contributions: list[p.Contribution] | None = None
        self.defaults = 0
        self.started = False
        self.heads = {}
        self.heads_path = None
        self.game_id = None
        try:
            return await self._play()
        finally:
            if self.heads_dir is not None and self.heads:
                try:
                    self.heads_path = chain.save_heads(
                        self.heads_dir, self.room, self.game_id, self.heads
                    )
                    log.info("the heads of %s are in %s", self.game_id or room, self.heads_path)
                except OSError as exc:
                    log.warning("could not write the heads of %s: %s", self.game_id or room, exc)

    async def _play(self) -> Result:
        backoff = 0.5
        while True:
            try:
                result = await self._connection()
            except (
                OSError,
                httpx.TransportError,
                websockets.ConnectionClosed,
                websockets.InvalidHandshake,
            ) as exc:
                code = getattr(getattr(exc, "rcvd", None), "code", None)
                if code in FATAL_CLOSES:
                    raise Refused(FATAL_CLOSES[code]) from None
                if code == CLOSE_UNKNOWN_KEY:
                    self.site.forget_kid()
                    log.info("the site does not know this bot's device key: registering it again")
                else:
                    log.info("connection lost (%s): resuming", exc)
                await asyncio.sleep(backoff * (0.5 + random.random()))
                backoff = min(backoff * 2, 15.0)
                continue
            if result is not None:
                await tell(self.bot, "finished", result)
                return result
            backoff = 0.5

    async def _connection(self) -> Result | None:
        """One socket's life: None when it should be opened again (a ``reconnect``)."""
        kid = await self.site.signing_kid()  # the device key, registered: named in auth
        async with websockets.connect(self.site.ws_url, max_size=2**24) as ws:
            self.ws = ws
            self.kid = kid
            await ws.send(p.encode(p.Auth(token=self.site.token or "", key=kid)))
            if self.version < 0:
                await self.send(p.Join(room=self.room))
            else:
                await self.send(p.Resume(room=self.room, version=self.version))
            async for raw in ws:
                frame, obj = p.decode_frame(raw)
                if self.record is not None:
                    self.record.append(obj)
                outcome = await self.on_frame(frame, obj)
                if outcome == "reconnect":
                    return None
                if isinstance(outcome, Result):
                    return outcome
        return None

    async def send(self, message: p._In, again: bool = True) -> None:
        """Send a message (paced; a move passed through ``sign`` if there is one); refused
        with ``retry_after_ms`` it is sent again then."""
        ref = f"b{next(self._refs)}"
        message.ref = ref
        data: dict[str, Any] = msgspec.to_builtins(message)
        if self.sign is not None and data["type"] in MOVES:
            data = self.sign(data)
        if again:
            self._sent[ref] = data
            if len(self._sent) > 64:
                self._sent.pop(next(iter(self._sent)))
        await self.pace.take()
        await self.ws.send(msgspec.json.encode(data).decode())

    def _sig(self, kind: str, version: int, seat: int, c: str) -> str | None:
        """This device's signature of a move (``chain.sig_message``), or None on a socket
        that signed in without a key (unsigned play)."""
        key = self.site.key
        if self.kid is None or key is None or key.kid != self.kid:
            return None
        return key.sign(kind, self.room, version, seat, c)

    def _keep_head(self, version: int, head: str | None) -> None:
        """Keep the head the site sent for ``version`` -- the first one, as the browser."""
        if version >= 1 and chain.is_head(head):
            self.heads.setdefault(version, head)

    async def _again(self, ref: str, wait_ms: int) -> None:
        await asyncio.sleep(wait_ms / 1000 * (1 + random.random() / 4))
        data = self._sent.pop(ref, None)
        if data is None:
            return
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.pace.take()
            await self.ws.send(msgspec.json.encode(data).decode())

    # -- frames ---------------------------------------------------------------------------
    async def on_frame(self, frame: p.Frame | None, obj: dict[str, Any]) -> Any:
        match frame:
            case p.Hello():
                if frame.token:
                    self.site.token = frame.token  # the site refreshed it: keep the new one
                self.site.user = frame.user
            case p.Snapshot():
                self.seat = frame.seat
                if frame.room_state.status in ("playing", "finished"):
                    self._keep_head(frame.version, frame.head)
                return await self._room(frame.room_state, frame.view, frame.version, None)
            case p.Resumed():
                self.seat = frame.seat
                if frame.room_state.status in ("playing", "finished"):
                    self._keep_head(frame.version, frame.head)
                return await self._room(frame.room_state, None, frame.version, None)
            case p.RoomFrame():
                return await self._room(frame.room_state, None, None, None)
            case p.Event():
                if frame.event.kind != "abandon":  # no event of the chain: it moves no head
                    self._keep_head(frame.version, frame.head)
                return await self._event(frame)
            case p.Sealed():
                await self._sealed(frame)
            case p.Open():
                await self._open(frame.phase)
            case p.Revealed():
                self.defaults += self.seat in frame.defaults
            case p.Reconnect():
                await asyncio.sleep(random.random() * frame.within_ms / 1000)
                await self.ws.close()
                return "reconnect"
            case p.Left():
                raise Refused("left", f"the room let this bot go ({frame.reason})")
            case p.Error():
                await self._error(frame)
        return None

    async def _error(self, frame: p.Error) -> None:
        ref = str(frame.ref) if frame.ref is not None else ""
        if frame.code == "rate-limited":
            wait = frame.retry_after_ms or 1000
            if ref in self._sent:
                asyncio.get_running_loop().create_task(self._again(ref, wait))
            else:  # a refusal at sign-in (a flood's cool-down): the socket closes next
                await asyncio.sleep(wait / 1000)
            return
        if frame.code in ("bad-token", "banned"):
            raise Refused(frame.code, frame.message)
        if frame.code == "unknown-key":  # the close (4011) follows: register, come back
            self.site.forget_kid()
            return
        sent = self._sent.pop(ref, None)
        if frame.code in HARMLESS:
            return
        log.warning("refused %s: %s %s", sent and sent.get("type"), frame.code, frame.message)
        if sent is not None and sent.get("type") in ("sit", "ready", "start", "add_bot"):
            self.lobby_sent.pop(str(sent["type"]), None)

    async def _room(
        self,
        state: p.RoomState,
        view: dict[str, Any] | None,
        version: int | None,
        event: p.EventInfo | None,
    ) -> Result | None:
        self.state = state
        if state.game_id:
            self.game_id = state.game_id
        if state.contributions is not None:
            self.contributions = state.contributions
        self.seeds.note(self.room, state.seed_commitment)
        mine = self.site.user["id"] if self.site.user else None
        seats = {s.seat for s in state.seats if s.user is not None and s.user == mine}
        if seats:
            self.seat = min(seats)
        if state.status == "lobby":
            await self._lobby(state)
            return None
        if version is not None and view is not None:
            return await self._view(version, view, None)
        if state.status in ("finished", "abandoned") and self.seat is not None:
            return self._result(state.status, None)
        return None

    async def _lobby(self, state: p.RoomState) -> None:
        me = self.seat if self.seat is not None and self._seated(state, self.seat) else None
        if me is None and self.lobby_sent.get("seated"):
            # Stood up by the host (a kick) or the arena (a table given up): not to sit again.
            raise Refused("stood-up", "the bot's seat was taken away in the lobby")
        if me is not None:
            self.lobby_sent["seated"] = True
        if me is None:
            self.seat = None
            free = [s.seat for s in state.seats if s.user is None and s.bot is None]
            if self.host is not None:  # the host leaves the seats its bots will take
                free = [s for s in free if s not in self.host.bots] or free
            seat = self.want_seat if self.want_seat is not None else (free[0] if free else None)
            if seat is not None and seat in free and self.lobby_sent.get("sit") != seat:
                self.lobby_sent["sit"] = seat
                await self.send(p.Sit(seat=seat))
            return
        info = state.seats[me]
        if not info.ready:
            entropy = self.seeds.bytes_for(self.room, state.seed_commitment)
            if entropy is not None and self.lobby_sent.get("ready") != entropy:
                self.lobby_sent["ready"] = entropy
                sig = self._sig(chain.ENTROPY, 0, me, entropy)
                await self.send(p.Ready(ready=True, entropy=entropy, sig=sig))
        if self.host is None:
            return
        for seat, level in self.host.bots.items():
            s = state.seats[seat]
            if s.user is None and s.bot is None and self.lobby_sent.get(f"bot{seat}") is None:
                self.lobby_sent[f"bot{seat}"] = level
                await self.send(p.AddBot(seat=seat, level=level))
        everyone = all(s.bot is not None or (s.user is not None and s.ready) for s in state.seats)
        if self.host.start and everyone and not self.lobby_sent.get("start"):
            self.lobby_sent["start"] = True
            await self.send(p.Start())

    def _seated(self, state: p.RoomState, seat: int) -> bool:
        mine = self.site.user["id"] if self.site.user else None
        return 0 <= seat < len(state.seats) and state.seats[seat].user == mine

    async def _event(self, frame: p.Event) -> Result | None:
        event = frame.event
        if event.game_id:
            self.game_id = event.game_id
        if event.contributions is not None:
            self.contributions = event.contributions
        if self.seat is not None:
            self.defaults += self.seat in event.defaults and event.kind == "move"
        if event.kind == "abandon":
            self.version = frame.version
            return self._result("abandoned", event)
        if frame.view is None:
            return None
        return await self._view(frame.version, frame.view, event, frame.deadline)

    async def _view(
        self,
        version: int,
        view: dict[str, Any],
        event: p.EventInfo | None,
        deadline: int | None = None,
    ) -> Result | None:
        if version < self.version:
            return None
        self.version, self.view = version, view
        seat = view.get("seat")
        if not isinstance(seat, int):
            return None
        self.seat = seat
        if not self.started:
            self.started = True
            await tell(self.bot, "started", self._turn(version, view, None, deadline))
        if view.get("outcome") is not None:
            return self._result("finished", event)
        prompt = Prompt.of(view.get("prompt") or {})
        if prompt.sealed or seat not in prompt.seats or not view.get("legal"):
            return None
        if version in self.acted:
            return None
        self.acted.add(version)
        move = await self._choose(self._turn(version, view, None, deadline))
        await self.send(self._act(move, version, seat))
        return None

    def _act(self, move: Any, version: int, seat: int) -> p.Act:
        """An open move at ``version``; signed, with the salt of its commitment, on a socket
        with a key (``c = commitment("act@<version>", seat, move, salt)``)."""
        if self.kid is None:
            return p.Act(move=move, version=version)
        salt = new_salt()
        c = chain.commitment(f"act@{version}", seat, move, salt)
        sig = self._sig(chain.ACT, version, seat, c)
        return p.Act(move=move, version=version, salt=salt, sig=sig)

    async def _sealed(self, frame: p.Sealed) -> None:
        seat = self.seat
        if seat is None or seat not in frame.seats or self.view is None:
            return
        if frame.version != self.version:
            return
        if str(seat) not in frame.committed and frame.phase not in self.seals:
            turn = self._turn(frame.version, self.view, frame.phase, frame.commit_by)
            move = await self._choose(turn)
            salt = new_salt()
            sealed = digest(frame.phase, seat, move, salt)
            seal = self.seals[frame.phase] = _Seal(move, salt, seat, frame.version, sealed)
            sig = self._sig(chain.COMMIT, seal.version, seat, sealed)
            await self.send(p.Commit(phase=frame.phase, digest=sealed, sig=sig))
        elif frame.open and seat not in frame.revealed:
            await self._open(frame.phase)

    async def _open(self, phase: str) -> None:
        seal = self.seals.get(phase)
        if seal is not None:
            sig = self._sig(chain.REVEAL, seal.version, seal.seat, seal.digest)
            await self.send(p.Reveal(phase=phase, move=seal.move, salt=seal.salt, sig=sig))

    def _turn(
        self, version: int, view: dict[str, Any], phase: str | None, deadline: int | None
    ) -> Turn:
        game = self.state.game if self.state is not None else ""
        return Turn(
            game=game,
            room=self.room,
            seat=int(view.get("seat") or 0),
            version=version,
            view=view,
            prompt=Prompt.of(view.get("prompt") or {}),
            legal=list(view.get("legal") or []),
            phase=phase,
            deadline=deadline,
        )

    async def _choose(self, turn: Turn) -> Any:
        """The bot's move; one outside the legal moves is never sent (the first legal one
        goes instead, and the bot's mistake is logged)."""
        try:
            move = await ask(self.bot, turn)
        except Exception:
            log.exception(
                "the bot failed at %s v%d: playing its first legal move", turn.room, turn.version
            )
            return turn.legal[0]
        if move not in turn.legal:
            log.warning("the bot chose %r, not a legal move: playing %r", move, turn.legal[0])
            return turn.legal[0]
        return move

    def _result(self, status: str, event: p.EventInfo | None) -> Result:
        state = self.state
        view = self.view
        outcome = view.get("outcome") if view else None
        seed = (event.seed if event else None) or (state.seed if state else None)
        server_seed = (event.server_seed if event else None) or (
            state.server_seed if state else None
        )
        check: str | None = "the seed was not revealed"
        if seed and server_seed and self.contributions and self.seat is not None:
            parts = [(c.seat, c.entropy, c.by) for c in self.contributions]
            check = self.seeds.check(self.room, self.seat, seed, server_seed, parts)
        result = Result(
            room=self.room,
            game=state.game if state else "",
            game_id=(event.game_id if event else None) or (state.game_id if state else None),
            seat=self.seat if self.seat is not None else -1,
            status=status,
            scores=list(outcome["scores"]) if outcome else None,
            ranks=list(outcome["ranks"]) if outcome else None,
            view=view,
            seed_check=check,
            defaults=self.defaults,
            heads=dict(self.heads),
        )
        return result
