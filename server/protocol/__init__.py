"""The table protocol (docs/PROTOCOL.md): what a client may send (``messages``), the
refusals (``errors``: error and close codes) and JSON text in and out (``json_text``).

Callers use the package as one namespace (``from server import protocol as p``:
``p.Join``, ``p.BAD_JSON``, ``p.decode``, ``p.encode``)."""

from server.protocol.errors import *  # noqa: F403
from server.protocol.json_text import *  # noqa: F403
from server.protocol.messages import *  # noqa: F403
