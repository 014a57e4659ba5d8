"""The store's Lua scripts, read from ``scripts/*.lua`` once, at import.

Each script is kept twice: as written, for one Redis, and with its room publications
*sharded* (``PUBLISH`` -> ``SPUBLISH``) for a Redis Cluster, where a room's channel lives on
the room's primary only (server/redis/pool.py). A store picks one by its client's kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from server.redis.wire import Script

SCRIPTS = Path(__file__).resolve().parent / "scripts"

STEP_MARK = "--[[ write_step.lua, its ARGV read as STEP ]]\n"
"""The line of reveal_step.lua that write_step.lua's text takes the place of."""


def text(name: str) -> str:
    """The text of ``scripts/<name>.lua``."""
    return (SCRIPTS / f"{name}.lua").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Lua:
    """One script, as run on one Redis (``plain``) and on a cluster (``sharded``)."""

    plain: Script
    sharded: Script

    @classmethod
    def of(cls, source: str) -> Lua:
        shard = source.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',")
        return cls(Script.of(source), Script.of(shard))

    @classmethod
    def load(cls, name: str, *, after: str = "") -> Lua:
        """``scripts/<name>.lua``, after the text of ``scripts/<after>.lua`` if named (the
        Lua functions it uses)."""
        return cls.of((text(after) if after else "") + text(name))


def reveal_step() -> Lua:
    """reveal_step.lua after opening.lua, with write_step.lua's text in place of its
    ``STEP_MARK`` (its arguments read from ``STEP``, the tail of ``ARGV``): a reveal and the
    step it completes in one script."""
    source = text("reveal_step")
    if STEP_MARK not in source:
        raise RuntimeError("reveal_step.lua lost its place for write_step.lua")
    step = text("write_step").replace("ARGV", "STEP")
    return Lua.of(text("opening") + source.replace(STEP_MARK, step))
