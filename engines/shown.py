"""What every viewer of a state may see, built once for all of them.

A server asks for the views of one state seat after seat (every seat's, then the
spectators'). A game whose view is a public part plus a few fields of the seat's own (its
hand, its legal moves) builds the public part once per state here and adds the seat's own
to a copy of it. The public part is the spectator's view itself, so it is an allow-list
like any view.

Only the last state shown is held, by identity and together with the state itself (an
identity is never reused while its object lives), and with the game that showed it (two
games' views of one state may differ). Each caller gets a copy of the top level; the
values under it are shared and never changed after they are built, so a receiver that
changes its view changes no other view. Pure: the same (game, state, seat) gives the
same view, whatever was shown before.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.core import JSON


class Shown:
    """The public part of the last state one kind of view was built for."""

    __slots__ = ("_game", "_public", "_state")

    def __init__(self) -> None:
        self._game: object = None
        self._state: object = None
        self._public: dict[str, JSON] = {}

    def view(
        self, game: object, state: object, public: Callable[[], dict[str, JSON]]
    ) -> dict[str, JSON]:
        """A copy of the public part of ``state`` as ``game`` shows it (``public()`` builds
        it when this is not the state shown last)."""
        if self._state is not state or self._game is not game:
            self._public = public()
            self._game, self._state = game, state
        return dict(self._public)
