"""The bot ladder's arena (server/ladder/arena.py)."""
