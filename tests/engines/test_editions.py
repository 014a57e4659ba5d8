"""Editions of the rules (docs/ENGINES.md): games recorded before editions existed still
replay to their digests.

``editions_recorded.json`` holds games played with the engines as they were before editions
(main at 5582dce: random legal moves, a heuristic bot in some seats), each as a record keeps
it -- the options as the room stored them (no ``rules``), the players, the seed, every
step's moves and the sha256 of every encoded state. Each game was chosen because the
current edition of its rules plays it differently. Replayed as the server replays a record
(``recorded_options``: edition 1), every digest matches.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engines import registry

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "editions_recorded.json").read_text()
)


def _digest(game: Any, state: Any) -> str:
    return hashlib.sha256(game.encode(state)).hexdigest()


def _replay(record: dict[str, Any], options: Any) -> list[Any]:
    game = registry.get(record["engine"])
    state = game.start(options, record["players"], bytes.fromhex(record["seed"]))
    states = [state]
    for step in record["steps"]:
        moves = {int(s): game.decode_move(m) for s, m in step.items()}
        state = game.step(state, moves)
        states.append(state)
    return states


@pytest.mark.parametrize(
    "record", RECORDS, ids=[f"{r['engine']}-{r['players']}p-{i}" for i, r in enumerate(RECORDS)]
)
def test_a_record_made_before_editions_replays_to_its_digests(record: dict[str, Any]) -> None:
    game = registry.get(record["engine"])
    assert "rules" not in record["options"]
    options = game.recorded_options(record["options"])
    assert options.rules == 1
    states = _replay(record, options)
    assert [_digest(game, s) for s in states] == record["digests"]
    # Stored the old way, they read back as edition 1.
    assert all(game.decode(game.encode(s)) == s for s in states[::10])


@pytest.mark.parametrize("engine", ["pirate-king", "pearates", "loon-tricks"])
def test_the_current_edition_plays_those_games_differently(engine: str) -> None:
    """The same moves under the current edition reach other states (compared as edition 1
    would store them): without editions these records would no longer verify."""
    for record in (r for r in RECORDS if r["engine"] == engine):
        game = registry.get(engine)
        assert game.options(record["options"]).rules == game.rules_edition == 2
        try:
            states = _replay(record, game.options(record["options"]))
        except ValueError:
            continue  # a recorded move is not even legal any more (a reclaim)
        same = [_digest(game, msgspec.structs.replace(s, rules=1)) for s in states] == record[
            "digests"
        ][: len(states)]
        assert not same, record["seed"]


def test_a_host_gets_the_current_edition_and_a_stored_one_is_kept() -> None:
    """``options`` (a host's new game) always gives the current edition, even from options
    that name another (a room played again); ``recorded_options`` keeps what was stored and
    reads none as edition 1; an edition that does not exist is refused."""
    from engines.core import BadOptions

    for engine in ("pirate-king", "pearates", "loon-tricks"):
        game = registry.get(engine)
        assert game.options({"rules": 1}).rules == game.options().rules == 2
        assert game.recorded_options({"rules": 2}).rules == 2
        assert game.recorded_options({}).rules == 1
        for bad in (0, 3):
            with pytest.raises(BadOptions):
                game.recorded_options({"rules": bad})
        stored = msgspec.to_builtins(game.options())
        assert stored["rules"] == 2 and "rules" not in game.options_schema()
    skull = registry.get("skull-king")
    assert skull.recorded_options({"rounds": 3}) == skull.options({"rounds": 3})
