"""The capacity model of docs/SCALE.md: nodes, Redis Cluster shards and Postgres for a number of
concurrent players, from measured per-move costs and stated assumptions (a JSON figures file,
docs/scale-figures.json), so that every prediction there can be made again:
``tortuga loadtest --model docs/scale-figures.json [--players 10000,100000,1000000]``.

Every figure is per second at the busiest hour. Each part is sized by what it must carry at
its target utilisation (headroom for the tail, a failover, a deploy); the part that "breaks
first" is the one that stops scaling by adding units (one Postgres primary), or whose unit
count grows fastest."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Figures:
    # measured (docs/SCALE.md says where each comes from)
    node_cpu_ms_per_move: float  # a node's CPU per move at human pace, archive included
    redis_cpu_ms_per_move: float  # Redis's CPU per move (every primary's, summed)
    redis_commands_per_move: float  # commands Redis ran per move (those in scripts too)
    frames_out_per_move: float  # frames the room's sockets get per move
    bytes_per_frame_out: float
    bytes_per_idle_socket: float
    bytes_per_playing_socket: float  # assumed until the 20,000-player run measures it
    records_per_game: float  # archive transactions per game (checkpoints and the final)
    moves_per_game: float
    # the site's players (assumptions)
    seats_per_game: float
    moves_per_player_per_minute: float
    spectators_per_game: float  # sockets watching a game besides its seats
    share_in_games: float  # of connected players, those seated in a game under way
    list_changes_per_game: float  # public room-list publications per game (to every node)
    # one unit of each part (assumptions)
    node_cores: float
    node_memory_bytes: float
    node_base_bytes: float  # a node's memory with no socket
    node_target_utilisation: float  # of its cores
    node_max_sockets: float  # descriptors and the tested ceiling
    redis_target_utilisation: float  # of a primary's one core
    redis_replicas_per_primary: int
    postgres_transactions_per_second: float  # one primary's archive upserts, assumed
    postgres_target_utilisation: float

    @classmethod
    def load(cls, path: Path) -> Figures:
        data: dict[str, Any] = json.loads(path.read_text())
        return cls(**{k: v for k, v in data.items() if not k.startswith("_")})


@dataclass(frozen=True)
class Prediction:
    players: int
    moves_per_second: float
    sockets: float
    nodes_for_cpu: int
    nodes_for_sockets: int
    redis_primaries: int
    games_per_hour: float
    postgres_tps: float
    postgres_share: float  # of one primary's usable capacity
    bytes_out_per_second: float
    list_messages_per_node_per_second: float

    @property
    def nodes(self) -> int:
        return max(self.nodes_for_cpu, self.nodes_for_sockets)

    def breaks_first(self) -> str:
        """The part closest to its ceiling that adding units does not lift."""
        if self.postgres_share >= 1.0:
            return "Postgres primary (one writer: the archive's upserts)"
        if self.nodes_for_sockets > self.nodes_for_cpu:
            return "node memory/sockets (add nodes)"
        return "node CPU (add nodes)"


def predict(f: Figures, players: int) -> Prediction:
    in_games = players * f.share_in_games
    moves = in_games * f.moves_per_player_per_minute / 60
    games = in_games / f.seats_per_game
    sockets = players + games * f.spectators_per_game
    node_moves = f.node_cores * f.node_target_utilisation * 1000 / f.node_cpu_ms_per_move
    per_node_memory = (f.node_memory_bytes - f.node_base_bytes) / f.bytes_per_playing_socket
    per_node_sockets = min(f.node_max_sockets, per_node_memory)
    nodes_cpu = max(1, math.ceil(moves / node_moves))
    nodes_sockets = max(1, math.ceil(sockets / per_node_sockets))
    shard_moves = f.redis_target_utilisation * 1000 / f.redis_cpu_ms_per_move
    primaries = max(1, math.ceil(moves / shard_moves))
    minutes_per_game = f.moves_per_game / f.seats_per_game / f.moves_per_player_per_minute
    ended_per_second = games / (minutes_per_game * 60)
    tps = ended_per_second * f.records_per_game
    share = tps / (f.postgres_transactions_per_second * f.postgres_target_utilisation)
    out = moves * f.frames_out_per_move * f.bytes_per_frame_out
    nodes = max(nodes_cpu, nodes_sockets)
    # Every node hears every public room-list change (classic pub/sub): it grows with the
    # site's games, on every node alike.
    list_messages = ended_per_second * f.list_changes_per_game
    return Prediction(
        players,
        moves,
        sockets,
        nodes_cpu,
        nodes_sockets,
        primaries,
        games / minutes_per_game * 60,
        tps,
        share,
        out / max(1, nodes),
        list_messages,
    )


def lines(f: Figures, players: list[int]) -> list[str]:
    node_moves = f.node_cores * f.node_target_utilisation * 1000 / f.node_cpu_ms_per_move
    shard_moves = f.redis_target_utilisation * 1000 / f.redis_cpu_ms_per_move
    out = [
        f"a node ({f.node_cores:g} cores at {f.node_target_utilisation:.0%}): "
        f"{node_moves:.0f} moves/s at {f.node_cpu_ms_per_move:g} ms of CPU a move; a Redis "
        f"primary (one core at {f.redis_target_utilisation:.0%}): {shard_moves:.0f} moves/s "
        f"at {f.redis_cpu_ms_per_move:g} ms ({f.redis_commands_per_move:g} commands) a move",
        "| players | moves/s | sockets | nodes (CPU / sockets) | Redis primaries (+replicas) "
        "| games/hour | Postgres tx/s (share of one primary) | out per node | list msgs/s "
        "per node | breaks first |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for n in players:
        p = predict(f, n)
        replicas = p.redis_primaries * f.redis_replicas_per_primary
        out.append(
            f"| {n:,} | {p.moves_per_second:,.0f} | {p.sockets:,.0f} | {p.nodes} "
            f"({p.nodes_for_cpu} / {p.nodes_for_sockets}) | {p.redis_primaries} (+{replicas}) "
            f"| {p.games_per_hour:,.0f} | {p.postgres_tps:,.0f} ({p.postgres_share:.0%}) "
            f"| {p.bytes_out_per_second * 8 / 1e6:,.1f} Mbit/s "
            f"| {p.list_messages_per_node_per_second:,.0f} | {p.breaks_first()} |"
        )
    return out
