"""The client's text catalogues, read by the server for the few texts it renders itself (an
invite link's preview card), and the language of a request.

A language's catalogue is the shell's (web-client/js/i18n/<lang>.js) joined with every game's,
kept beside the game's module (web-client/js/games/<folder>/i18n/<lang>.js): the server finds
the game folders, so adding a game touches nothing here. Each file is one JSON object after
``export default`` (comment lines start with ``//``), so the browser imports it as a module and
the server reads it as JSON: one source of texts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DEFAULT = "en"
COOKIE = "tortuga_lang"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    body = body.strip().removeprefix("export default").strip().removesuffix(";")
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not one object")
    return data


def game_files(folder: Path, lang: str) -> list[Path]:
    """The games' catalogues of ``lang`` for the shell's ``folder`` (``web-client/js/i18n``):
    ``../games/<folder>/i18n/<lang>.js``, one per game folder that has one."""
    return sorted(folder.parent.glob(f"games/*/i18n/{lang}.js"))


class Catalogues:
    """Every language of a ``web-client/js/i18n`` folder, each with its games' texts."""

    def __init__(self, folder: Path) -> None:
        self.texts = {p.stem: read(p) for p in sorted(folder.glob("*.js"))}
        for lang, texts in self.texts.items():
            for path in game_files(folder, lang):
                texts.update(read(path))
        if DEFAULT not in self.texts:
            self.texts[DEFAULT] = {}

    def choose(self, query: str | None, cookie: str | None, accept: str | None) -> str:
        """The language of a request: ``?lang=``, else the cookie the client's switch sets,
        else the best of Accept-Language (the browser's navigator.languages), else English."""
        for choice in (query, cookie):
            if choice in self.texts:
                return choice
        ranked = []
        for i, part in enumerate((accept or "").split(",")):
            tag, _, params = part.strip().partition(";")
            q = 1.0
            if params.strip().startswith("q="):
                try:
                    q = float(params.strip()[2:])
                except ValueError:
                    q = 0.0
            ranked.append((-q, i, tag.strip().lower().split("-")[0]))
        for _q, _i, base in sorted(ranked):
            if base in self.texts:
                return base
        return DEFAULT

    def has(self, lang: str, key: str) -> bool:
        return key in self.texts.get(lang, {}) or key in self.texts[DEFAULT]

    def text(self, lang: str, key: str, **params: object) -> str:
        """The text of ``key`` in ``lang`` (English when missing), placeholders filled;
        a plural entry takes its form from ``count`` (the two languages here need only
        "one" for exactly 1 in English, else "other")."""
        value = self.texts.get(lang, {}).get(key, self.texts[DEFAULT].get(key, key))
        if isinstance(value, dict):
            one = lang == "en" and params.get("count") == 1 and "one" in value
            value = value["one"] if one else value.get("other", "")
        return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), str(value))
