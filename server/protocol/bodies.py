"""HTTP request bodies, read within a limit: the one way a route reads a body.

A body over the limit is refused (``body-too-large``, HTTP 413) as soon as that is known --
from ``Content-Length`` before a byte of it is read, or while a chunked body streams in --
and nothing more of it is read. The refusal's answer closes the connection
(``CLOSE_CONNECTION``): otherwise the server would go on reading the rest of the body, only
to throw it away, before the next request on the connection.
"""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request

from server.protocol.errors import BAD_MESSAGE, BODY_TOO_LARGE, ProtocolError

__all__ = ["CLOSE_CONNECTION", "read_body"]

CLOSE_CONNECTION = {"Connection": "close"}  # the headers of a refusal of an unread body


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, at most ``limit`` bytes; ProtocolError ``body-too-large`` as soon as
    it is known to be longer (the rest is never read), ``bad-message`` for a
    ``Content-Length`` that is not a number."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise ProtocolError(BAD_MESSAGE, "Content-Length is a number of bytes")
        if len(declared) > 18 or int(declared) > limit:
            raise ProtocolError(BODY_TOO_LARGE, f"a request body has at most {limit} bytes")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise ProtocolError(BODY_TOO_LARGE, f"a request body has at most {limit} bytes")
    except ClientDisconnect:
        # Gone before its body came (a page left mid-request): a refusal nobody reads, not
        # an error of the server's in its log.
        raise ProtocolError(BAD_MESSAGE, "the client went away before its body came") from None
    return bytes(body)
