"""Structured logs: one JSON object per line, through the standard logging module.

Only an allow-list of context fields is written (room, seat, version, codes...), so that a
log line can never carry a hand, a sealed move or a seed even if someone passes one.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

FIELDS = ("room", "seat", "seats", "version", "kind", "phase", "code", "conn", "user", "engine")


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "at": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure(level: int = logging.INFO) -> None:
    """JSON lines on stderr for the ``tortuga`` loggers (once)."""
    root = logging.getLogger("tortuga")
    if any(isinstance(h.formatter, JsonLines) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    root.addHandler(handler)
    root.setLevel(level)
    root.propagate = False
