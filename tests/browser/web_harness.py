"""The settings of a whole Tortuga site for browser tests: the room server, the client's
pages and the history API (``create_app`` mounts them all), with bots that move at once."""

from __future__ import annotations

import re
import secrets
from typing import Any

from server.settings import Settings

# The table's socket, whatever its query: the client names the room it is for
# (``/ws?room=CODE``) so that under ``serve --workers N`` it lands on the room's home.
SOCKET_URL = re.compile(r"/ws(\?.*)?$")


def site_settings(redis_url: str, database_url: str, port: int, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": port,
        "public_url": f"http://127.0.0.1:{port}",
        "redis_url": redis_url,
        "database_url": database_url,
        "redis_prefix": f"test-web-{secrets.token_hex(4)}:",
        "secret": secrets.token_bytes(32),
        "bot_delay": 0.0,
        "grace_seconds": 600.0,
        # Test users are minutes old: rate them all (the rating rules have tests of their
        # own in tests/server/archive/test_rating_rules.py).
        "rated_min_games": 0,
        "rated_min_age_seconds": 0.0,
        "leaderboard_min_games": 1,
        "guests_per_address_per_hour": 0,  # every browser here is 127.0.0.1
        "max_public_rooms_per_address": 0,
        "max_pending_per_address": 0,
        "resume_address_burst": 0,
        "resume_burst": 0,  # tests reload and reconnect far faster than people
    }
    return Settings(**{**values, **changes})


def scripted_deal(players: int) -> tuple[bytes, dict[str, Any], str]:
    """A deal as a room server makes it, for a scripted server (server/table/seeding.py):
    the seed, the room summary's fields (the commitment, every seat's bytes -- the server's,
    as for seats that sent none) and the server seed the end reveals."""
    from server.table import seeding

    server_seed = bytes(range(32))
    contributions = seeding.contributions(server_seed, [None] * players)
    seed = seeding.derive(server_seed, [bytes.fromhex(c["entropy"]) for c in contributions])
    fields = {"seed_commitment": seeding.commitment(server_seed), "contributions": contributions}
    return seed, fields, server_seed.hex()
