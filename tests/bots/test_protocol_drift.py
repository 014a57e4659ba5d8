"""The bot library's messages cannot drift from the server's: every client message struct of
bots/tortuga_bot/protocol.py has the JSON schema of server/protocol/messages.py's, type by
type, and the library has every type the server reads."""

from __future__ import annotations

import msgspec
from tortuga_bot import protocol as library

from server.protocol import messages as server


def _schemas(types: list[type]) -> dict[str, object]:
    _, components = msgspec.json.schema_components(types)
    return {t.__name__: components[t.__name__] for t in types}


def test_the_library_sends_the_servers_messages() -> None:
    """ "Typed messages (msgspec structs shared with, or generated from, the server's protocol
    definitions so they cannot drift)": one struct per type, the same JSON schema."""
    theirs = {tag: t for tag, t in server.BY_TYPE.items()}
    ours = {
        str(t.__struct_config__.tag): t
        for t in library.Inbound.__args__  # type: ignore[attr-defined]
    }
    assert ours.keys() == theirs.keys()
    for tag in theirs:
        assert _schemas([ours[tag]]) == _schemas([theirs[tag]]), f"{tag} differs: copy it over"


def test_a_message_encoded_by_the_library_is_read_by_the_server() -> None:
    sent = library.encode(library.Commit(phase="bid@7", digest="ab" * 32, ref="b1"))
    got = server.decode(sent, 16384)
    assert got == server.Commit(phase="bid@7", digest="ab" * 32, ref="b1")
