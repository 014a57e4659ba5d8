"""Private means private: a room without spectators has only its
players in it once the game starts; private games and their room codes are seen only by
their players; a public profile shows what the user chose to show."""

from __future__ import annotations

from tortuga_client import Client, Node, seat_players


async def test_a_room_without_spectators_keeps_only_its_players(node: Node) -> None:
    """ "Once the game starts, a room without spectators has only its seated players in it;
    unseated sockets are told and dropped; their chat refused.\""""
    table = await seat_players([node], 2, spectators=False)
    host, _bert = table.clients
    # In the lobby anyone with the link may come in as a player (to take a seat) ...
    lurker = await Client.connect(node, "Lurker")
    await lurker.send("join", room=table.id)
    await lurker.of("snapshot")
    assert (await lurker.call("chat", text="hello from the lobby"))["type"] == "ok"
    # ... but once the game starts, a socket without a seat is told and dropped.
    assert (await host.call("start"))["type"] == "ok"
    await host.has_version(1)
    told = await lurker.wait(lambda f: f["type"] in ("error", "event"))
    assert told["type"] == "error" and told["code"] == "no-spectators", told
    assert (await lurker.of("left"))["room"] == table.id
    assert (await lurker.call("chat", text="still here?"))["code"] == "not-in-room"
    assert not [f for f in lurker.frames if f["type"] in ("event", "sealed", "revealed")]
    # Coming back is refused: as a player without a seat, or by resuming.
    assert (await lurker.call("join", room=table.id))["code"] == "no-spectators"
    assert (await lurker.call("resume", room=table.id, version=0))["code"] == "no-spectators"
    # Nobody saw the outsider's later chat; the players' presence has no watcher left.
    await host.seen(
        lambda f: f["type"] == "presence" and f["watchers"] == 0 and f["connected"] == [0, 1]
    )
    assert not [f for f in host.frames if f["type"] == "chat" and f["text"] == "still here?"]
    # A socket that joined before the start and sent chat after it (before the writer
    # dropped it) is refused too: only seated players chat.
    late = await Client.connect(node, "Late")
    assert (await late.call("join", room=table.id))["code"] == "no-spectators"
    assert (await late.call("chat", text="hi"))["code"] == "not-in-room"
