"""The conformance harness: every registered game (``engines.registry.GAMES``) passes it.

Parametrised over game x every allowed player count x seeds (about 200 full random
playouts per game, spread over its player counts; some seats are played by the game's own
bots, some playouts draw their options from the options schema). Per the contract
(docs/ENGINES.md) it checks, at every state reached:

- serialization: ``decode(encode(s)) == s`` and re-encoding gives the same bytes;
- conservation: the union of ``zones(s)`` is exactly ``deck(options, players)``;
- the prompt: seats are real seats, a prompted seat has legal moves (no duplicates), every
  other seat has none, ``outcome`` is None until the game is over;
- legality: every legal move of a prompted seat passes ``validate``;
- text and JSON forms of every legal move seen round-trip exactly (also through JSON
  text);
- ``step`` never mutates its input; a playout always ends within MAX_STEPS, with an outcome
  holding one score and one rank per seat;

and on a sample of states (the expensive checks):

- illegal moves: candidates made from the legal moves' text with every deck card name and
  small numbers substituted are rejected with a specific IllegalMove code exactly when they
  are not in ``legal`` (all candidates, or a fresh random POOL_CHECKED of them at each
  sampled state when there are more); other seats, non-seats, empty and oversized move sets
  are rejected;
  rejected steps change nothing; a sealed prompt refuses any proper subset of its seats;
- ``default`` returns a legal move, every bot level returns a legal move;
- views: JSON-serializable with string keys, never the seed; non-interference: for each seat
  and the spectator, ``view(resample(s, seat, rng), seat) == view(s, seat)``, ``resample``
  keeps every card the seat may place where it is, and really moves hidden cards somewhere
  in each test case;
- names: no card in ``hidden(s, seat)`` is named in that seat's view (on a few playouts per
  case, with full history; see ``LeakTracker`` for what counts as public history).

Per game, outside the playouts: garbage and garbled text/JSON (wrong types, extra keys,
padding) are MalformedMove and nothing else; whatever parse_move / decode_move accept is
written back identically. Determinism across processes is checked once for all games: a few
playouts per game are replayed in two fresh Python processes with other hash seeds and must
give the same sha256 over all encoded states and moves. Finally the harness is run against
deliberately broken copies of a registered game (a leaky view, a lazy resample, a lax
validate, ...) and must fail each of them.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

import pytest

from engines.core import BadOptions, IllegalMove, MalformedMove, MoveError, Outcome, Prompt
from engines.registry import GAMES, AnyGame
from engines.rng import Rng

if str(Path(__file__).parent) not in sys.path:  # the worker is a module beside this file
    sys.path.insert(0, str(Path(__file__).parent))
from conformance_worker import (
    Spec,
    choose,
    digest,
    playout,
    spec_for,
)

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("conformance_worker.py")

PLAYOUTS_PER_GAME = 200
TRACKED_PER_CASE = 1  # playouts per (game, players) whose every view is checked for names
SAMPLE_ONE_IN = 48  # states that get the expensive checks (plus the first and the last)
# Candidate moves checked at one sampled state: all of them up to this many, else a fresh
# random share of this size (orderings of named cards make pools of over 10,000).
POOL_CHECKED = 2000
GENERIC_CODES = {MoveError.code, IllegalMove.code, MalformedMove.code}

CASES = [(gid, players) for gid, game in GAMES.items() for players in game.seats]


def playouts_per_case(game: AnyGame) -> int:
    return -(-PLAYOUTS_PER_GAME // len(game.seats))


# -- JSON walking ------------------------------------------------------------------------------

Path_ = tuple[Any, ...]
T = TypeVar("T")
JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def mentions(obj: Any, wanted: Container[str] | None = None) -> list[tuple[Path_, str]]:
    """Every string in a JSON value (dict keys included) with where it is; only those in
    ``wanted`` if given."""
    out: list[tuple[Path_, str]] = []
    path: list[Any] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            if wanted is None or item in wanted:
                out.append((tuple(path), item))
        elif isinstance(item, dict):
            for key, value in item.items():
                if isinstance(key, str) and (wanted is None or key in wanted):
                    out.append(((*path, key, "<key>"), key))
                if isinstance(value, str | dict | list | tuple):
                    path.append(key)
                    walk(value)
                    path.pop()
        elif isinstance(item, list | tuple):
            for i, value in enumerate(item):
                if isinstance(value, str | dict | list | tuple):
                    path.append(i)
                    walk(value)
                    path.pop()

    walk(obj)
    return out


@functools.cache
def json_escaped(text: str) -> str:
    """How ``text`` appears between the quotes of JSON text (ensure_ascii=False)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def check_json(obj: Any, where: str) -> str:
    """The value is JSON (dicts with string keys, lists, str, int, float, bool, None; no NaN):
    it survives a trip through JSON text unchanged. Returns the text."""
    try:
        text = json.dumps(obj, allow_nan=False, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{where}: not JSON-serializable: {exc}") from exc
    assert json.loads(text) == obj, f"{where}: changed by a JSON round trip (keys, tuples?)"
    return text


def seed_forms(seed: bytes) -> list[str]:
    forms = [seed.hex(), seed.hex().upper(), base64.b64encode(seed).decode()]
    forms.append(base64.urlsafe_b64encode(seed).decode().rstrip("="))
    forms.append(base64.b64encode(seed).decode().rstrip("="))
    with contextlib.suppress(UnicodeDecodeError):
        forms.append(seed.decode("utf-8"))
    return [f for f in forms if len(f) >= 8]


# -- what a check expects ------------------------------------------------------------------------


def expect_illegal(call: Any, where: str) -> IllegalMove:
    """``call()`` raises IllegalMove with a specific code (not the generic one)."""
    try:
        call()
    except IllegalMove as exc:
        assert exc.code not in GENERIC_CODES, f"{where}: IllegalMove with a generic code {exc!r}"
        assert isinstance(exc.code, str) and exc.code, where
        assert exc.message, f"{where}: IllegalMove without a message"
        return exc
    except MoveError as exc:
        raise AssertionError(
            f"{where}: expected IllegalMove, got {type(exc).__name__}: {exc}"
        ) from exc
    raise AssertionError(f"{where}: accepted, expected IllegalMove")


def check_rejected(game: AnyGame, state: Any, seat: int, move: Any, where: str) -> None:
    """``validate`` refuses the move with a specific IllegalMove code (a fast path of
    ``expect_illegal`` for the many candidate moves)."""
    try:
        game.validate(state, seat, move)
    except IllegalMove as exc:
        if exc.code in GENERIC_CODES or not exc.code or not exc.message:
            expect_illegal(lambda: game.validate(state, seat, move), f"{where}: seat {seat} {move}")
        return
    except MoveError:
        pass
    expect_illegal(lambda: game.validate(state, seat, move), f"{where}: seat {seat} {move}")


def picks(rng: Rng, items: Sequence[T], k: int) -> list[T]:
    """Up to ``k`` items drawn with replacement (cheaper than shuffling a long list)."""
    return [items[rng.below(len(items))] for _ in range(k)] if items else []


def expect_malformed(call: Any, where: str) -> None:
    try:
        result = call()
    except MalformedMove:
        return
    except Exception as exc:
        raise AssertionError(
            f"{where}: expected MalformedMove, got {type(exc).__name__}: {exc}"
        ) from exc
    raise AssertionError(f"{where}: accepted as {result!r}, expected MalformedMove")


# -- a per-(game, players) harness -------------------------------------------------------------

GARBAGE_JSON: list[Any] = [
    {},
    [],
    "x",
    "",
    None,
    0,
    1.5,
    True,
    {"bid": -1},
    {"play": "nope"},
    {"bid": "3"},
    {"bid": True},
    {"bid": 1.0},
    {"play": 3},
    {"play": None},
    {"play": ["nope"]},
    {"": ""},
    {"zzz": 1},
    [{"bid": 1}],
    {"bid": 1, "play": "nope"},
]
GARBAGE_TEXT: list[Any] = [
    "",
    " ",
    "x",
    "\n",
    "bid",
    "play",
    "bid -1",
    "bid x",
    "bid 1.5",
    "bid 0x1",
    "bid ³",
    "bid ٣",
    "bid 1 2",
    "play nope",
    "play  ",
    "☠",
    None,
    3,
    b"bid 1",
    ["bid 1"],
    {"bid": 1},
]


@dataclass
class Tally:
    states: int = 0
    steps: int = 0
    sampled: int = 0
    resamples: int = 0
    resamples_moved: Counter[str] = field(default_factory=Counter)
    illegal_checked: int = 0
    hidden_seen: int = 0


class LeakTracker:
    """No card a seat may not place is named in its view.

    A view may name a hidden card only as public history: a mention (path, name) with
    ``name`` in ``hidden(s, seat)`` is accepted when the same mention was in the seat's
    previous view, or the card was not hidden from the seat in the previous state (it was
    on the table, then gathered and shuffled away), or it was named by a move just made.
    Anything else -- notably any hidden name in the view of the first state -- is a leak.
    The game's id and title as top-level fields are not card mentions.
    """

    def __init__(self, game: AnyGame, seats: tuple[int | None, ...]) -> None:
        self.game = game
        self.previous: dict[int | None, tuple[frozenset[str], set[tuple[Path_, str]]]] = {}
        self.seats = seats
        self.constants = {game.id, game.title}

    def check(
        self,
        state: Any,
        seat: int | None,
        view: Any,
        text: str,
        moved: set[str],
        where: str,
    ) -> int:
        hidden = self.game.hidden(state, seat)
        # Quick: the JSON text names none of the hidden cards.
        named = set(JSON_STRING.findall(text))
        if named.isdisjoint(map(json_escaped, hidden)):
            self.previous[seat] = (hidden, set())
            return 0
        found = {
            (path, name)
            for path, name in mentions(view, hidden)
            if not (len(path) == 1 and name in self.constants)
        }
        before = self.previous.get(seat)
        for path, name in found:
            if before is not None:
                hidden_before, found_before = before
                if (path, name) in found_before or name not in hidden_before or name in moved:
                    continue
            raise AssertionError(
                f"{where}: seat {seat}'s view names hidden card {name!r} at "
                f"{'.'.join(map(str, path))}"
            )
        self.previous[seat] = (hidden, found)
        return len(found)


class Harness:
    def __init__(self, game: AnyGame, players: int) -> None:
        self.game = game
        self.players = players
        self.seen: dict[str, Any] = {}  # every legal move seen, by text
        self.templates: set[tuple[str, ...]] = set()
        self.pool: dict[str, Any] = {}  # well-formed candidate moves, by text
        self.names: set[str] = set()
        self.tally = Tally()

    # -- moves seen --------------------------------------------------------------------------
    def learn(self, move: Any, where: str) -> None:
        """First sight of a legal move: its text and JSON forms round-trip exactly; the
        candidate moves made from its text join the pool."""
        game = self.game
        text = str(move)
        self.seen[text] = move
        self.pool[text] = move
        assert text == text.strip() and text, f"{where}: move text {text!r}"
        assert game.parse_move(text) == move, f"{where}: parse_move({text!r}) != {move!r}"
        assert str(game.parse_move(text)) == text, where
        obj = move.to_json()
        assert isinstance(obj, dict), f"{where}: {move!r}.to_json() is not an object"
        wire = json.loads(check_json(obj, where))
        assert game.decode_move(wire) == move, f"{where}: decode_move({wire!r}) != {move!r}"
        assert game.decode_move(obj).to_json() == obj, where
        tokens = text.split(" ")
        for i, token in enumerate(tokens):
            if token in self.names:
                subs: list[str] = sorted(self.names)
            elif token.isascii() and token.isdecimal():
                subs = [str(k) for k in range(0, 21)]
            else:
                continue
            template = (*tokens[:i], "\0", *tokens[i + 1 :])
            if template in self.templates:
                continue
            self.templates.add(template)
            for sub in subs:
                candidate = " ".join((*tokens[:i], sub, *tokens[i + 1 :]))
                try:
                    parsed = game.parse_move(candidate)
                except MalformedMove:
                    continue
                self.pool.setdefault(str(parsed), parsed)

    # -- one playout -----------------------------------------------------------------------
    def run(self, spec: Spec, track: tuple[int | None, ...] = ()) -> None:
        """One playout. ``track``: seats (None: the spectator) whose view is checked for
        hidden card names at every state, with history; every seat's is at the first."""
        game, players = self.game, self.players
        options = game.options(spec.options)
        deck = game.deck(options, players)
        assert len(set(deck)) == len(deck), "deck names must be unique"
        deck_sorted = sorted(deck)
        self.names.update(deck)
        sample = Rng(spec.seed, "conformance:sample")
        tracker = LeakTracker(game, track) if track else None
        first = game.start(options, players, spec.seed)
        assert game.encode(game.start(options, players, spec.seed)) == game.encode(first)
        previous_moves: dict[int, Any] | None = None
        previous: tuple[Any, bytes] | None = None
        state: Any = None
        for index, (state, moves) in enumerate(playout(spec, game)):
            where = f"{spec.game} players={players} seed={spec.seed.hex()[:12]} step={index}"
            if previous is not None:  # the playout has stepped from it
                assert game.encode(previous[0]) == previous[1], f"{where}: step mutated its input"
            self.tally.states += 1
            blob = self.check_state(state, deck_sorted, where)
            prompt = game.prompt(state)
            over = moves is None
            sampled = index == 0 or over or sample.below(SAMPLE_ONE_IN) == 0
            leaks = tracker
            if index == 0 and tracker is None:
                leaks = LeakTracker(game, (None, *range(players)))
            if leaks is not None or sampled:
                moved = (
                    {
                        text
                        for move in previous_moves.values()
                        for _, text in mentions(move.to_json())
                    }
                    if previous_moves
                    else set()
                )
                self.check_views(state, spec, leaks, moved, sampled, where)
            if over:
                self.check_over(state, where)
                break
            if sampled:
                self.tally.sampled += 1
                self.check_moves(state, prompt, spec, index, where)
                self.check_resample(state, spec, index, where)
            self.tally.steps += 1
            previous_moves = moves
            previous = (state, blob)
        assert state is not None and game.prompt(state).over

    # -- every state ------------------------------------------------------------------------------
    def check_state(self, state: Any, deck_sorted: list[str], where: str) -> bytes:
        game, players = self.game, self.players
        blob = game.encode(state)
        assert isinstance(blob, bytes), where
        back = game.decode(blob)
        assert back == state, f"{where}: decode(encode(s)) != s"
        assert game.encode(back) == blob, f"{where}: re-encoding differs"
        zones = game.zones(state)
        if sorted(chain.from_iterable(zones.values())) != deck_sorted:
            held = Counter(chain.from_iterable(zones.values()))
            deck_count = Counter(deck_sorted)
            raise AssertionError(
                f"{where}: zones do not hold the deck exactly once: "
                f"extra {held - deck_count}, missing {deck_count - held}"
            )
        prompt = game.prompt(state)
        assert isinstance(prompt, Prompt), where
        assert isinstance(prompt.kind, str) and prompt.kind, f"{where}: prompt {prompt}"
        assert set(prompt.seats) <= set(range(players)), f"{where}: prompt {prompt}"
        assert len(set(prompt.seats)) == len(prompt.seats), f"{where}: prompt {prompt}"
        assert (game.outcome(state) is None) != prompt.over, f"{where}: outcome vs prompt"
        for seat in prompt.seats:
            legal = game.legal(state, seat)
            assert legal, f"{where}: prompted seat {seat} has no legal move"
            texts = [str(m) for m in legal]
            assert len(set(texts)) == len(texts), f"{where}: duplicate legal moves {texts}"
            for move, text in zip(legal, texts, strict=True):
                if text not in self.seen:
                    self.learn(move, where)
                game.validate(state, seat, move)
        return blob

    # -- sampled states: moves ----------------------------------------------------------------
    def check_moves(self, state: Any, prompt: Prompt, spec: Spec, index: int, where: str) -> None:
        game, players = self.game, self.players
        blob = game.encode(state)
        rng = Rng(spec.seed, f"conformance:check:{index}")
        legal = {seat: game.legal(state, seat) for seat in prompt.seats}
        some = {seat: rng.choice(moves) for seat, moves in legal.items()}
        pool = list(self.pool.items())
        if len(pool) > POOL_CHECKED:
            # (stdlib's sampler, seeded from the case's stream: Rng.shuffled of 10,000 items
            # would cost more than the checks)
            pool = random.Random(rng.below(2**32)).sample(pool, POOL_CHECKED)

        def step_rejected(moves: dict[int, Any], what: str) -> None:
            expect_illegal(lambda: game.step(state, moves), f"{where}: step {what}")
            assert game.encode(state) == blob, f"{where}: a rejected step ({what}) mutated"

        for seat in prompt.seats:
            # default and bots pick legal moves.
            move = game.default(state, seat)
            assert move in legal[seat], f"{where}: default({seat}) = {move} is not legal"
            view = game.view(state, seat)
            for level in game.bot_levels:
                move = game.bot(level)(view, legal[seat], rng)
                assert move in legal[seat], f"{where}: bot {level!r} played illegal {move}"
        # Exactly the candidates not in legal are rejected, with a specific code (for at
        # most two of the prompted seats: the others get their turn at other states).
        for seat in rng.shuffled(prompt.seats)[:2]:
            texts = {str(m) for m in legal[seat]}
            illegal = []
            for text, candidate in pool:
                if text in texts:
                    game.validate(state, seat, candidate)
                    continue
                check_rejected(game, state, seat, candidate, where)
                illegal.append(candidate)
            self.tally.illegal_checked += len(illegal)
            for candidate in picks(rng, illegal, 6):
                step_rejected({**some, seat: candidate}, f"seat {seat} {candidate}")

        # Seats that owe nothing, and seats that do not exist, have no legal move and
        # may not move.
        for seat in (-1, *range(players), players):
            if seat not in prompt.seats:
                none = game.legal(state, seat)
                assert none == [], f"{where}: seat {seat} owes no move but has {none}"
        plausible = [m for moves in legal.values() for m in moves]
        idle = [s for s in range(players) if s not in prompt.seats]
        for seat in (*rng.shuffled(idle)[:1], rng.choice((-1, players))):
            tries = plausible + [move for _, move in picks(rng, pool, 8)]
            for candidate in tries:
                check_rejected(game, state, seat, candidate, f"{where} (seat not prompted)")
            candidate = rng.choice(tries)
            step_rejected({seat: candidate}, f"seat {seat} (not prompted) alone")
            step_rejected({**some, seat: candidate}, f"seat {seat} (not prompted) with the rest")

        # Wrong numbers of moves.
        step_rejected({}, "with no move")
        if prompt.sealed:
            for seat in prompt.seats:
                step_rejected({seat: some[seat]}, f"sealed: seat {seat} alone")
                rest = {s: m for s, m in some.items() if s != seat}
                if rest:
                    step_rejected(rest, f"sealed: every seat but {seat}")
        elif len(prompt.seats) > 1:
            step_rejected(some, "open prompt with several moves at once")

    # -- sampled states: views and information sets --------------------------------------------
    def check_views(
        self,
        state: Any,
        spec: Spec,
        leaks: LeakTracker | None,
        moved: set[str],
        sampled: bool,
        where: str,
    ) -> None:
        """Sampled states: every seat's and the spectator's view is JSON without the seed.
        Names: the seats ``leaks`` tracks."""
        game = self.game
        forms = seed_forms(spec.seed)
        seats = (None, *range(self.players)) if sampled or leaks is None else leaks.seats
        for seat in seats:
            view = game.view(state, seat)
            if sampled:
                assert isinstance(view, dict), where
                text = check_json(view, f"{where}: view({seat})")
                for form in forms:
                    assert form not in text, f"{where}: view({seat}) holds the seed ({form})"
            else:
                text = json.dumps(view, ensure_ascii=False)
            if leaks is not None and seat in leaks.seats:
                self.tally.hidden_seen += leaks.check(state, seat, view, text, moved, where)

    def check_resample(self, state: Any, spec: Spec, index: int, where: str) -> None:
        game, players = self.game, self.players
        blob = game.encode(state)
        zones = game.zones(state)
        place = {card: zone for zone, cards in zones.items() for card in cards}
        deck_count = Counter(card for cards in zones.values() for card in cards)
        prompt = game.prompt(state)
        # The spectator and one seat (other seats at other sampled states).
        pick = Rng(spec.seed, f"conformance:resample:{index}")
        for seat in (None, pick.below(players)):
            rng = Rng(spec.seed, f"conformance:resample:{index}:{seat}")
            other = game.resample(state, seat, rng)
            assert game.encode(state) == blob, f"{where}: resample mutated its input"
            at = f"{where}: resample for seat {seat}"
            self.tally.resamples += 1
            assert game.view(other, seat) == game.view(state, seat), (
                f"{at}: the view changed -- it shows something the seat may not know"
            )
            hidden = game.hidden(state, seat)
            assert game.hidden(other, seat) == hidden, f"{at}: hidden() changed"
            assert game.prompt(other) == prompt, f"{at}: prompt changed"
            if seat is not None:
                assert game.legal(other, seat) == game.legal(state, seat), f"{at}: legal changed"
            assert game.decode(game.encode(other)) == other, f"{at}: round trip"
            other_zones = game.zones(other)
            other_place = {card: zone for zone, cards in other_zones.items() for card in cards}
            assert Counter(c for cs in other_zones.values() for c in cs) == deck_count, (
                f"{at}: the resampled state does not hold the deck exactly once"
            )
            hidden_zones = {place[c] for c in hidden}
            for card, zone in place.items():
                if card in hidden:
                    assert other_place[card] in hidden_zones, (
                        f"{at}: hidden {card} moved from {zone} to a zone with no hidden card"
                    )
                else:
                    assert other_place[card] == zone, (
                        f"{at}: {card}, which the seat may place, moved {zone} -> "
                        f"{other_place[card]}"
                    )
            if other_zones != zones:
                self.tally.resamples_moved["spectator" if seat is None else "seat"] += 1
            # A resampled state is a state of the game: it can be played on.
            if not prompt.over:
                moves = choose(game, other, rng, ())
                game.step(other, moves)

    # -- the end ---------------------------------------------------------------------------------
    def check_over(self, state: Any, where: str) -> None:
        game, players = self.game, self.players
        outcome = game.outcome(state)
        assert isinstance(outcome, Outcome), f"{where}: over without an outcome"
        assert len(outcome.scores) == players, f"{where}: {outcome}"
        assert len(outcome.ranks) == players, f"{where}: {outcome}"
        for value in (*outcome.scores, *outcome.ranks):
            assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {outcome}"
        assert all(1 <= r <= players for r in outcome.ranks), f"{where}: {outcome}"
        assert min(outcome.ranks) == 1, f"{where}: {outcome}"
        check_json(outcome.to_json(), where)
        check_json(game.final_view(state), f"{where}: final_view")
        blob = game.encode(state)
        for seat in range(players):
            for move in list(self.seen.values())[:5]:
                expect_illegal(
                    lambda m=move, s=seat: game.validate(state, s, m), f"{where}: over, {move}"
                )
                expect_illegal(
                    lambda m=move, s=seat: game.step(state, {s: m}), f"{where}: over, {move}"
                )
        assert game.encode(state) == blob, where


def garbled(obj: dict[str, Any]) -> Iterator[Any]:
    """Wrongly typed or extended versions of a move's JSON object."""
    yield {**obj, "zzz": 1}
    for key, value in obj.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            for bad in (bool(value), str(value), float(value), None, [value]):
                yield {**obj, key: bad}
        elif isinstance(value, str):
            for bad in (None, 0, [value], "nope-" + value, ""):
                yield {**obj, key: bad}


# -- the tests ------------------------------------------------------------------------------------


def test_registry() -> None:
    assert GAMES
    for gid, game in GAMES.items():
        assert game.id == gid
        assert isinstance(game.title, str) and game.title
        assert isinstance(game.seats, range) and len(game.seats) >= 1 and game.seats.start >= 1
        assert "random" in game.bot_levels and len(game.bot_levels) >= 2
        check_json(game.options_schema(), f"{gid}: options_schema")
        game.options()
        game.options(None)
        game.options({})
        for bad in ({"no-such-option": 1},):
            with pytest.raises(BadOptions):
                game.options(bad)
        for players in (game.seats.start - 1, game.seats.stop, 0):
            with pytest.raises(BadOptions):
                game.start(game.options(), players, b"tortuga")


@functools.cache
def moves_seen(game_id: str, playouts: int = 2) -> list[Any]:
    """Distinct legal moves of prompted seats met in a few playouts at each end of the
    player range (with the most players every card is dealt)."""
    game = GAMES[game_id]
    seen: dict[str, Any] = {}
    for players in {game.seats.start, game.seats.stop - 1}:
        for index in range(playouts):
            for state, _moves in playout(spec_for(game, players, index)):
                for seat in game.prompt(state).seats:
                    for move in game.legal(state, seat):
                        seen.setdefault(str(move), move)
    return list(seen.values())


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_malformed_moves(game_id: str) -> None:
    """Garbage, garbled text and garbled JSON are MalformedMove -- never another exception
    (a crash on a client's message) and never accepted."""
    game = GAMES[game_id]
    failures: list[str] = []

    def expect(call: Any, what: str) -> None:
        try:
            expect_malformed(call, what)
        except AssertionError as exc:
            failures.append(str(exc))

    for obj in GARBAGE_JSON:
        expect(lambda o=obj: game.decode_move(o), f"decode_move({obj!r})")
    for text in GARBAGE_TEXT:
        expect(lambda t=text: game.parse_move(t), f"parse_move({text!r})")
    for move in moves_seen(game_id):
        text = str(move)
        for bad in (f" {text}", f"{text} ", f"{text}\n", text.replace(" ", "  "), f"{text} x"):
            if bad != text:
                expect(lambda b=bad: game.parse_move(b), f"parse_move({bad!r})")
        for obj in garbled(move.to_json()):
            expect(lambda o=obj: game.decode_move(o), f"decode_move({obj!r})")
    assert not failures, f"{len(failures)} malformed inputs not refused as MalformedMove:\n" + (
        "\n".join(sorted(set(failures)))
    )


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_move_forms_are_exact(game_id: str) -> None:
    """Text and JSON forms are exact pairs: whatever ``parse_move`` / ``decode_move``
    accept is written back identically (one move, one spelling -- commit/reveal hashes and
    logs rely on it). Probed with card names alone, and with each move's JSON carrying
    another move's keys set to null."""
    game = GAMES[game_id]
    moves = moves_seen(game_id)
    keys = {key for move in moves for key in move.to_json()}
    failures: list[str] = []
    texts: list[str] = list(game.deck(game.options(), game.seats.stop - 1))
    objs: list[dict[str, Any]] = []
    for move in moves:
        obj = move.to_json()
        objs += [{**obj, key: None} for key in sorted(keys - set(obj))]
    for text in texts:
        try:
            back = str(game.parse_move(text))
        except MalformedMove:
            continue
        if back != text:
            failures.append(f"parse_move({text!r}) accepted, written back as {back!r}")
    for obj in objs:
        try:
            back_obj = game.decode_move(obj).to_json()
        except MalformedMove:
            continue
        if back_obj != obj:
            failures.append(f"decode_move({obj!r}) accepted, written back as {back_obj!r}")
    assert not failures, f"{len(failures)} inputs accepted in a non-canonical form, e.g.:\n" + (
        "\n".join(sorted(failures)[:12])
    )


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{p}p" for g, p in CASES])
def test_random_playouts(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    harness = Harness(game, players)
    for index in range(playouts_per_case(game)):
        track = (None, index % players) if index < TRACKED_PER_CASE else ()
        harness.run(spec_for(game, players, index), track)
    check_tally(harness.tally)


def check_tally(tally: Tally) -> None:
    """What a test case must have exercised."""
    assert tally.sampled > 0 and tally.illegal_checked > 0, tally
    # Resampling must really re-deal, or non-interference would pass vacuously.
    assert tally.resamples_moved["seat"] > 0, f"resample never moved a card: {tally}"
    assert tally.resamples_moved["spectator"] > 0, f"resample never moved a card: {tally}"


def determinism_specs() -> list[Spec]:
    specs = []
    for game in GAMES.values():
        seats = list(game.seats)
        for k, players in enumerate({seats[0], seats[len(seats) // 2], seats[-1]}):
            for index in (k, 2 + 3 * k):  # index 2 mod 3: some seats played by bots
                specs.append(spec_for(game, players, index))
    return specs


def test_determinism_across_processes() -> None:
    """Same (options, players, seed, moves) -> byte-identical states in fresh processes."""
    specs = determinism_specs()
    here = [digest(spec) for spec in specs]
    payload = json.dumps([spec.to_json() for spec in specs])
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, str(WORKER)],
            input=payload,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        there = json.loads(done.stdout)
        for spec, mine, theirs in zip(specs, here, there, strict=True):
            assert mine == theirs, (
                f"{spec}: differs in a fresh process (PYTHONHASHSEED={hash_seed})"
            )
    assert all(d["steps"] > 0 for d in here)


# -- the harness has teeth ---------------------------------------------------------------------


class Mutant:
    """A registered game with one method broken (everything else delegated)."""

    def __init__(self, game: AnyGame, **broken: Any) -> None:
        self._game = game
        self.__dict__.update(broken)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def _leaky_view(game: AnyGame) -> Any:
    def view(state: Any, seat: int | None) -> dict[str, Any]:
        out = dict(game.view(state, seat))
        out["peek"] = sorted(game.hidden(state, seat))[:1]
        return out

    return view


def _hinting_view(game: AnyGame) -> Any:
    """Names no card, but depends on where the hidden cards are."""

    def view(state: Any, seat: int | None) -> dict[str, Any]:
        out = dict(game.view(state, seat))
        zones = json.dumps(game.zones(state), sort_keys=True).encode()
        out["hint"] = hashlib.sha256(zones).hexdigest()[:2]
        return out

    return view


def _lazy_resample(game: AnyGame) -> Any:
    return lambda state, seat, rng: state


def _lax_validate(game: AnyGame) -> Any:
    return lambda state, seat, move: None


def _vague_validate(game: AnyGame) -> Any:
    def validate(state: Any, seat: int, move: Any) -> None:
        try:
            game.validate(state, seat, move)
        except IllegalMove as exc:
            raise IllegalMove(exc.message) from None  # the generic code

    return validate


def _one_lost_card(game: AnyGame) -> Any:
    def zones(state: Any) -> dict[str, list[str]]:
        out = {zone: list(cards) for zone, cards in game.zones(state).items()}
        fullest = max(out, key=lambda zone: len(out[zone]))
        out[fullest] = out[fullest][1:]
        return out

    return zones


MUTANTS = {
    "view-names-a-hidden-card": ("view", _leaky_view, "hidden card"),
    "view-hints-at-hidden-cards": ("view", _hinting_view, "the view changed"),
    "resample-moves-nothing": ("resample", _lazy_resample, "resample never moved a card"),
    "validate-accepts-anything": ("validate", _lax_validate, "accepted, expected IllegalMove"),
    "validate-generic-code": ("validate", _vague_validate, "generic code"),
    "zones-lose-a-card": ("zones", _one_lost_card, "exactly once"),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_harness_catches_a_broken_engine(mutant: str) -> None:
    """The harness would fail a game with one contract property broken."""
    method, make, message = MUTANTS[mutant]
    game_id, players = CASES[0]
    real = GAMES[game_id]
    broken: Any = Mutant(real, **{method: make(real)})
    harness = Harness(broken, players)

    def run() -> None:
        for index in range(3):
            harness.run(spec_for(real, players, index), (None, 0))
        check_tally(harness.tally)

    with pytest.raises(AssertionError, match=message):
        run()
