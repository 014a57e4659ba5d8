"""Room codes people can read aloud.

A new code is drawn from 30 characters that cannot be mistaken for one another -- the
digits 2-9 and the capital letters but I, L, O and U (no 0/O, no 1/I/l, no U/V) -- and
never holds ``_`` or ``-``. People see it in groups of four (``K7QX-MH4P``); the canonical
form that URLs, Redis keys and messages carry has no separators. A public room's code is
8 characters (39 bits: it is listed in the lobby anyway); a private room's is 20 characters
(98 bits, so the link cannot be guessed). Codes made before (``secrets.token_urlsafe``:
both cases, digits, ``_`` and ``-``) stay valid exactly as they are.

web-client/js/codes.js is the same rule in the browser.
"""

from __future__ import annotations

import math
import re
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
PUBLIC_LENGTH = 8
PRIVATE_LENGTH = 20
GROUP = 4
# Any code the server accepts on a route: the new ones and the old token_urlsafe ones.
ANY_CODE = re.compile(r"[A-Za-z0-9_-]{4,40}")
_NEW = re.compile(f"[{ALPHABET}]+")
_GROUPED = re.compile(r"[0-9A-Za-z]{4}(?:[\s-]+[0-9A-Za-z]{4})+")


def bits(length: int) -> float:
    """How many bits of chance a code of ``length`` characters holds."""
    return length * math.log2(len(ALPHABET))


def new_code(*, private: bool) -> str:
    """A fresh code (the caller checks it is free)."""
    length = PRIVATE_LENGTH if private else PUBLIC_LENGTH
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def is_new(code: str) -> bool:
    return len(code) >= 2 * GROUP and len(code) % GROUP == 0 and bool(_NEW.fullmatch(code))


def canonical(text: str) -> str | None:
    """The code a person typed or a link carried: ``k7qx-mh4p`` and ``K7QX MH4P`` are
    ``K7QXMH4P``; any other accepted code is kept as it is; None when it is no code."""
    raw = text.strip()
    squeezed = re.sub(r"[\s-]+", "", raw).upper()
    if _GROUPED.fullmatch(raw) and is_new(squeezed):
        return squeezed
    return raw if ANY_CODE.fullmatch(raw) else None


def spoken_forms(text: str) -> list[str]:
    """The codes to look up for ``text``, most likely first: as it is, then (for a code
    typed in lower case or grouped) the canonical new code."""
    first = canonical(text)
    if first is None:
        return []
    out = [first]
    upper = re.sub(r"[\s-]+", "", text.strip()).upper()
    if upper != first and is_new(upper):
        out.append(upper)
    return out


def grouped(code: str) -> str:
    """A new code in groups of four for people (``K7QX-MH4P``); an old code as it is."""
    if not is_new(code):
        return code
    return "-".join(code[i : i + GROUP] for i in range(0, len(code), GROUP))
