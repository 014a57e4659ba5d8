"""A bot from a Python file: its ``bot`` (a function or an object with ``move``), or its class
``Bot`` (made with no arguments); ``GAME``, when the file sets it, is the game it plays."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tortuga_bot.turn import Bot


def load_module(path: str) -> ModuleType:
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"no bot file {path}")
    name = f"tortuga_bot_user_{file.stem}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(file.resolve().parent)
    if folder not in sys.path:  # its neighbours import as they would run from there
        sys.path.insert(0, folder)
    spec.loader.exec_module(module)
    return module


def load(path: str) -> tuple[Bot, str | None]:
    """The bot a file defines and the game it names (``GAME``), if any."""
    module = load_module(path)
    game = getattr(module, "GAME", None)
    found = getattr(module, "bot", None)
    if found is None and isinstance(getattr(module, "Bot", None), type):
        found = module.Bot()
    if found is None or not (callable(found) or hasattr(found, "move")):
        raise SystemExit(f"{path} defines no bot: a function `bot(turn)` or a class `Bot`")
    return found, game if isinstance(game, str) else None
