"""Recompute a game from its seed and its logged moves: verification and replays.

Pure (no I/O): it works on an archive record or on rows loaded from Postgres alike.

- ``verify_log`` steps the engine through the log and compares each version's digest
  (sha256 of ``game.encode(state)``) with the logged one; it reports ``verified`` or exactly
  which version (and round, and whether it is a deal) first differs. A take-back
  (``takeback = u``) restores the state of version ``u - 1``: it must undo the move just
  before it (``u`` is the previous version, itself a move).
- ``replay_log`` does the same and also returns every step as a spectator sees it after the
  game: ``game.final_view(state)``, hands revealed. The moves of a prompt private for
  good (``Prompt.for_good``) are their movers' alone: a frame of one carries none
  (``private: true``), and the game's final view keeps what they hid (its rules say what).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from engines import registry
from engines.core import JSON
from server.archive.chain_check import check_chain, check_labels, differs_from_seen
from server.archive.record import ArchiveRecord
from server.table import seeding


@dataclass(frozen=True, slots=True)
class LoggedStep:
    """One event as logged: the moves applied to reach ``version`` (or, with ``takeback``,
    the version whose move it took back)."""

    version: int
    moves: Mapping[str, Any]
    defaults: Sequence[int]
    at: datetime | None
    digest: str
    proxies: Sequence[int] = ()
    takeback: int | None = None
    head: str | None = None  # the move chain's head after it (None: from before the chain)
    chain: Mapping[str, Any] | None = None  # its moves' proofs (server/table/chain.py)


@dataclass(frozen=True, slots=True)
class GameLog:
    """Everything needed to recompute a game."""

    game_id: str
    engine: str
    options: Mapping[str, Any]
    players: int
    seed: str | None  # hex; None until revealed
    seed_digest: str
    status: str
    outcome: Mapping[str, Any] | None
    steps: Sequence[LoggedStep]
    # How the seed was made (server/table/seeding.py); None for games from before it was kept
    # (they fail: nothing shows the seed was not the server's alone).
    deal: Mapping[str, Any] | None = None
    # Who sat where at the end: [{seat, user, bot}] (empty: not known).
    seats: Sequence[Mapping[str, Any]] = ()
    room: str = ""
    # The public keys the proofs name: kid -> {user (None: the server's), key}.
    keys: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """``ok`` and a message a person can act on: ``verified ...`` or what differs where."""

    game_id: str
    ok: bool
    message: str
    version: int | None = None  # the first version that differs
    round: int | None = None  # the round of that version, when the game has rounds
    checked: int = 0  # versions recomputed and matching

    def to_json(self) -> dict[str, JSON]:
        return asdict(self)


@dataclass(slots=True)
class Replay:
    report: VerifyReport
    frames: list[dict[str, JSON]] = field(default_factory=list)


def state_digest(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def _round(view: Mapping[str, Any]) -> int | None:
    value = view.get("round")
    return value if isinstance(value, int) else None


def _where(version: int, round_: int | None, deal: bool) -> str:
    if round_ is None:
        return f"version {version}"
    if deal:
        return f"version {version} (the deal of round {round_})"
    return f"version {version} (round {round_})"


def replay_log(log: GameLog, *, views: bool = True) -> Replay:
    """Recompute every version of ``log``; with ``views``, collect each final view."""
    out = Replay(VerifyReport(log.game_id, False, ""))

    def fail(message: str, version: int | None = None, round_: int | None = None) -> Replay:
        out.report = VerifyReport(log.game_id, False, message, version, round_, checked)
        return out

    checked = 0
    try:
        game = registry.get(log.engine)
    except KeyError:
        return fail(f"game {log.game_id} was played with {log.engine!r}, unknown to this server")
    if log.seed is None:
        return fail(f"the seed of game {log.game_id} is not revealed yet: it is still going on")
    try:
        seed = bytes.fromhex(log.seed)
    except ValueError:
        return fail("the revealed seed is not hex")
    if state_digest(seed) != log.seed_digest:
        return fail(
            "the revealed seed does not match the digest published at the start: "
            f"sha256(seed) is {state_digest(seed)}, the published digest {log.seed_digest}"
        )
    making = seeding.check(log.deal, log.seed, log.players)
    if making.problem is not None:
        return fail(making.problem)
    if not log.steps:
        return fail("the log is empty")
    # Before the replay: a record rewritten and recomputed by someone with write access to
    # the archive is refused for the signatures it could not make (chain_check.py).
    linked = check_chain(
        room=log.room or log.game_id.rsplit("-", 1)[0],
        game_id=log.game_id,
        engine=log.engine,
        options=log.options,
        players=log.players,
        seed_digest=log.seed_digest,
        deal=log.deal,
        end_seats=log.seats,
        steps=log.steps,
        keys=log.keys,
    )
    if linked.problem is not None:
        return fail(linked.problem, linked.version)

    state: Any = None
    states: dict[int, Any] = {}  # version -> state (a take-back restores an earlier one)
    labels: dict[int, str] = {}  # version -> what its moves were made under (the chain's ``l``)
    previous_round: int | None = None
    previous_at: datetime | None = None
    for expected, step in enumerate(log.steps, start=1):
        if step.version != expected:
            return fail(f"version {expected} is missing from the log", expected)
        if step.at is None or (previous_at is not None and step.at < previous_at):
            return fail(
                f"version {expected} is dated {step.at}, before the version before it "
                f"({previous_at}): the log's times only go forward",
                expected,
                previous_round,
            )
        previous_at = step.at
        prompt = game.prompt(state) if expected > 1 and step.takeback is None else None
        private = prompt is not None and prompt.private and prompt.for_good
        if prompt is not None:
            sealed = prompt.sealed
            labels[expected] = f"{prompt.kind}@{expected - 1}" if sealed else f"act@{expected - 1}"
        if expected > 1 and step.takeback is None:
            try:
                problem = who_did_what(game, state, step)
            except Exception as exc:  # a move that is not one of this game's
                problem = f"the logged moves {dict(step.moves)} are refused: {exc}"
            if problem is not None:
                return fail(f"version {expected}: {problem}", expected, previous_round)
        elif step.defaults or step.proxies:
            return fail(
                f"version {expected} is no move: it names no defaults and no stand-ins",
                expected,
                previous_round,
            )
        try:
            if expected == 1:
                if step.moves or step.takeback is not None:
                    return fail("version 1 is the deal: it takes no moves", 1)
                # The edition of the rules the game was played under (docs/ENGINES.md).
                state = game.start(game.recorded_options(log.options), log.players, seed)
            elif step.takeback is not None:
                undone = step.takeback
                if undone != expected - 1 or undone < 2 or not log.steps[undone - 1].moves:
                    return fail(
                        f"version {expected} takes back version {undone}, which is not the "
                        "move just before it",
                        expected,
                        previous_round,
                    )
                state = states[undone - 1]
            else:
                moves = {int(s): game.decode_move(m) for s, m in step.moves.items()}
                state = game.step(state, moves)
        except Exception as exc:  # MoveError, BadOptions, or a log that makes no sense
            where = _where(expected, previous_round, deal=False)
            return fail(
                f"{where} differs: the logged moves {dict(step.moves)} are refused: {exc}",
                expected,
                previous_round,
            )
        view = game.final_view(state)
        round_ = _round(view)
        deal = expected == 1 or (round_ is not None and round_ != previous_round)
        digest = state_digest(game.encode(state))
        if digest != step.digest:
            return fail(
                f"{_where(expected, round_, deal)} differs: recomputed from the seed and the "
                f"moves its digest is {digest}, the log says {step.digest}",
                expected,
                round_,
            )
        checked += 1
        previous_round = round_
        states[expected] = state
        if views:
            frame: dict[str, JSON] = {
                "version": step.version,
                "at": step.at.isoformat() if step.at else None,
                "moves": {} if private else dict(step.moves),
                "defaults": list(step.defaults),
                "proxies": list(step.proxies),
                "view": view,
            }
            if private:
                frame["private"] = True  # who moved is public; what they chose is theirs
            if step.takeback is not None:
                frame["takeback"] = step.takeback
                # who took it back: the seat whose move it undid
                frame["seats"] = [int(s) for s in log.steps[step.takeback - 1].moves]
            out.frames.append(frame)

    outcome = game.outcome(state)
    if log.status == "finished":
        if outcome is None:
            return fail(
                f"the log ends at version {checked} before the game is over, yet it is "
                "recorded as finished",
                checked,
                previous_round,
            )
        recorded = dict(log.outcome or {})
        recomputed = outcome.to_json()
        if {k: list(recorded.get(k) or []) for k in recomputed} != recomputed:
            return fail(
                f"the recorded outcome {recorded} differs from the recomputed {recomputed}",
                checked,
                previous_round,
            )
    mislabelled = check_labels(log.steps, labels) if linked.chained else None
    if mislabelled is not None:
        return fail(*mislabelled)
    deals = "" if previous_round is None else f", {previous_round} deal(s)"
    out.report = VerifyReport(
        log.game_id,
        True,
        f"verified: {checked} versions{deals} recomputed from the seed and the moves match the "
        f"log; {_seed_note(log, making)}; {linked.note()}",
        checked=checked,
    )
    return out


def _seed_note(log: GameLog, deal: seeding.DealCheck) -> str:
    """How the seed was made, and whose bytes the server supplied: a seat that was a
    player's and has the server's bytes is named, since only its player can tell whether
    they sent none or the server dropped theirs."""
    if deal.legacy:
        return (
            "the seed is derived the way of records from before the server's bytes were fixed "
            "by its commitment (tortuga-seed/1); every seat's bytes are its player's"
        )
    note = "the seed is derived from the server's committed seed and every seat's contribution"
    if not deal.by_server:
        return note + "; every seat's bytes are its player's"
    bots = {s.get("seat") for s in log.seats if s.get("bot") is not None}
    named = [
        f"seat {seat}" + ("" if seat in bots or not log.seats else " (a player's seat)")
        for seat in deal.by_server
    ]
    note += f"; the server's bytes, fixed by its commitment, for {', '.join(named)}"
    if any(seat not in bots for seat in deal.by_server) and log.seats:
        note += (
            " -- a player's seat with the server's bytes: its player sent none, or the server "
            "dropped them (that player's page says which)"
        )
    return note


def who_did_what(game: Any, before: Any, step: LoggedStep) -> str | None:
    """What is wrong with who a step says did what, from the state before it, or None.

    The seats that moved are the ones the prompt asked (all of a sealed prompt's seats;
    exactly one of an open prompt's); ``defaults`` name seats that moved, each with the
    engine's default move at that state (``game.default`` is deterministic); ``proxies``
    name seats that moved; neither lists a seat twice. (The moves themselves are checked by
    recomputing the state, the times by their order.)"""
    prompt = game.prompt(before)
    movers = sorted(int(s) for s in step.moves)
    if prompt.sealed:
        if movers != sorted(prompt.seats):
            return f"the sealed phase owed seats {sorted(prompt.seats)}, the log has {movers}"
    elif len(movers) != 1 or movers[0] not in prompt.seats:
        return f"an open move by one of seats {list(prompt.seats)}; the log has {movers}"
    for name, seats in (("defaults", step.defaults), ("proxies", step.proxies)):
        if len(set(seats)) != len(seats) or not set(seats) <= set(movers):
            return f"{name} {list(seats)} name seats that did not move (moved: {movers})"
    for seat in step.defaults:
        expected = game.default(before, seat).to_json()
        logged = game.decode_move(step.moves[str(seat)]).to_json()
        if logged != expected:
            return (
                f"seat {seat}'s move {logged} is flagged a default, but the engine's default "
                f"there is {expected}"
            )
    return None


def verify_log(log: GameLog, seen: Mapping[int, str] | None = None) -> VerifyReport:
    """The replay's report; with ``seen`` (the heads a device was sent: version -> head),
    first whether the archived record is the game that device saw."""
    if seen:
        differs = differs_from_seen(log.steps, seen)
        if differs is not None:
            return VerifyReport(
                log.game_id,
                False,
                f"this game's record differs from what the device saw at move {differs}: "
                f"the archive's head there is not the one the device was sent",
                differs,
            )
    report = replay_log(log, views=False).report
    if seen and report.ok:
        return replace(
            report,
            message=f"{report.message}; the {len(seen)} head(s) the device saw are the archive's",
        )
    return report


def log_of(record: ArchiveRecord) -> GameLog:
    """The log of an archive record (verify a record before or without storing it)."""
    outcome = record.outcome
    return GameLog(
        game_id=record.game_id,
        engine=record.engine,
        options=record.options,
        players=record.players,
        seed=record.seed,
        seed_digest=record.seed_digest,
        status=record.status,
        outcome={"scores": outcome.scores, "ranks": outcome.ranks} if outcome else None,
        deal=record.deal,
        seats=[{"seat": s.seat, "user": s.user, "bot": s.bot} for s in record.seats],
        steps=[
            LoggedStep(
                e.version, e.moves, e.defaults, e.at, e.digest, e.proxies, e.undoes, e.head, e.chain
            )
            for e in record.events
        ],
        room=record.room,
        keys=record.keys,
    )
