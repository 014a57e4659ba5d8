"""History in Postgres: the archive of finished games, replays, verification, ratings.

- ``models``    the schema (Alembic owns it: ``migrations/``)
- ``db``        ``Database``: the async engine and sessions (``app.state.db``)
- ``record``    the archive record the room server puts on the archive stream
- ``write``     one record -> idempotent upserts, in one transaction
- ``archiver``  the Redis stream consumer group that calls ``write``
- ``replay``    recompute a game from its seed and moves: verification, replays
- ``ratings``   openskill ratings
- ``history``   queries; ``routes`` the HTTP endpoints on them
- ``commands``  ``migrate``, ``check_schema``, ``verify`` (the CLI and start-up)
"""
