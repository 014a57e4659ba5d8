"""The one policy for text that users write and others read: display names and chat.

(Rooms have no user-written title: a room's ``title`` is its game's. Any free text a user
gives the server in future goes through ``clean_text`` too.)

Text is shown to other people, so it may hold no character of Unicode's "other" categories
(``C``: controls such as NUL and ESC, format characters such as the bidi overrides U+202A..E
and isolates U+2066..9 that make a name or a line read backwards, surrogates, private use,
unassigned) -- except the zero-width joiner U+200D, which builds emoji sequences and moves
nothing. Runs of white space (newlines and tabs included) become one space; the ends are
trimmed.
"""

from __future__ import annotations

import unicodedata

ALLOWED_FORMAT = frozenset({"\u200d"})  # zero-width joiner: emoji sequences


class BadText(ValueError):
    """Text that is empty, too long or holds a character the policy refuses."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason  # "empty", "too-long" or "control"
        self.message = message


def clean_text(raw: object, max_chars: int, what: str = "text") -> str:
    """``raw`` under the text policy: white space collapsed, 1..``max_chars`` characters,
    no control, format (bidi) or unassigned characters. BadText says why not."""
    if not isinstance(raw, str):
        raise BadText("empty", f"{what} is text")
    text = " ".join(raw.split())
    if not text:
        raise BadText("empty", f"{what} is empty")
    if len(text) > max_chars:
        raise BadText("too-long", f"{what} has at most {max_chars} characters")
    for ch in text:
        if unicodedata.category(ch).startswith("C") and ch not in ALLOWED_FORMAT:
            raise BadText(
                "control", f"{what} has no control or direction characters (U+{ord(ch):04X})"
            )
    return text
