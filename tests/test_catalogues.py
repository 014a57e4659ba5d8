"""The client's text catalogues: the shell's (web-client/js/i18n/en.js and vi.js) and each
game's beside its module (web-client/js/games/<folder>/i18n/en.js and vi.js).

Every page is in English and Vietnamese: a test fails when a key is missing in either
language or a t() key used in the code is missing from both; the server's error codes are
shown to players as catalogue texts. This reads the catalogues as JSON (each file is one
object after ``export default``) and the client's sources as text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from server import protocol

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web-client"
CATALOGUES = WEB / "js" / "i18n"
GAMES = WEB / "js" / "games"
LANGS = ("en", "vi")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    body = body.strip()
    assert body.startswith("export default"), f"{path} is 'export default {{...}};'"
    body = body.removeprefix("export default").strip().removesuffix(";")
    data = json.loads(body)
    assert isinstance(data, dict)
    return data


def files(lang: str) -> list[Path]:
    """The catalogue files of ``lang``: the shell's, the console's, then each game folder's."""
    return [
        CATALOGUES / f"{lang}.js",
        WEB / "js" / "admin" / "i18n" / f"{lang}.js",
        *sorted(GAMES.glob(f"*/i18n/{lang}.js")),
    ]


def load(lang: str) -> dict[str, Any]:
    """Every text of ``lang``, as the client joins them (i18n.js)."""
    data: dict[str, Any] = {}
    for path in files(lang):
        data.update(read(path))
    return data


@pytest.fixture(scope="module")
def catalogues() -> dict[str, dict[str, Any]]:
    return {lang: load(lang) for lang in LANGS}


def sources() -> list[Path]:
    """The client's code: every module but the catalogues."""
    catalogues = {p for lang in LANGS for p in files(lang)}
    return sorted(p for p in (WEB / "js").rglob("*.js") if p not in catalogues)


def forms(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def test_each_game_folder_has_both_languages_and_no_key_is_written_twice() -> None:
    """A game's texts are beside its module in every language, and a key lives in one file
    only: joined, a later file would silently replace an earlier file's text."""
    folders = sorted(p.parent.name for p in GAMES.glob("*/module.js"))
    assert folders, "the scan finds the game folders"
    for lang in LANGS:
        assert sorted(p.parent.parent.name for p in files(lang)[2:]) == folders, lang
        seen: dict[str, Path] = {}
        for path in files(lang):
            for key in read(path):
                assert key not in seen, f"{key} is in both {seen[key]} and {path}"
                seen[key] = path


def test_both_catalogues_have_the_same_keys(catalogues: dict[str, dict[str, Any]]) -> None:
    en, vi = catalogues["en"], catalogues["vi"]
    assert sorted(set(en) - set(vi)) == [], "keys missing in vi.js"
    assert sorted(set(vi) - set(en)) == [], "keys missing in en.js"
    # ... and each file's twin (the shell's, a game's) has the same keys as it.
    for en_file, vi_file in zip(files("en"), files("vi"), strict=True):
        assert en_file.parent == vi_file.parent
        assert sorted(read(en_file)) == sorted(read(vi_file)), f"{en_file.parent}: keys differ"


def test_texts_are_non_empty_and_plurals_have_the_forms_of_their_language(
    catalogues: dict[str, dict[str, Any]],
) -> None:
    # Intl.PluralRules: English has "one" and "other"; Vietnamese only "other".
    needed = {"en": {"one", "other"}, "vi": {"other"}}
    for lang, data in catalogues.items():
        for key, value in data.items():
            if isinstance(value, dict):
                assert needed[lang] <= set(value), f"{lang}: {key} lacks plural forms"
                assert set(value) <= {"zero", "one", "two", "few", "many", "other"}, key
            for form in forms(value):
                assert isinstance(form, str) and form.strip(), f"{lang}: {key} is empty"


def test_placeholders_match_between_languages(catalogues: dict[str, dict[str, Any]]) -> None:
    for key, value in catalogues["en"].items():
        wanted = {p for form in forms(value) for p in PLACEHOLDER.findall(form)}
        got = {p for form in forms(catalogues["vi"][key]) for p in PLACEHOLDER.findall(form)}
        assert got == wanted, f"{key}: en has {sorted(wanted)}, vi has {sorted(got)}"


def used_keys(catalogue: dict[str, Any]) -> dict[str, set[str]]:
    """Keys the code names: t("key", ...) calls, "ns.key" string literals of a namespace the
    catalogue has (tables of keys, e.g. the lobby's deadline choices), data-i18n attributes."""
    namespaces = {k.split(".")[0] for k in catalogue}
    literal = re.compile(r"""["'`]([a-z][a-z0-9]*(?:\.[a-z0-9_-]+)+)["'`]""")
    call = re.compile(r"""\bt\(\s*["'`]([^"'`$]+)["'`]""")
    found: dict[str, set[str]] = {}
    for path in sources():
        text = path.read_text(encoding="utf-8")
        keys = set(call.findall(text))
        keys |= {
            k
            for k in literal.findall(text)
            if k.split(".")[0] in namespaces and not k.endswith((".js", ".html", ".css"))
        }
        found[str(path.relative_to(ROOT))] = keys
    html = (WEB / "index.html").read_text(encoding="utf-8")
    attr = set(re.findall(r'data-i18n="([^"]+)"', html))
    for pairs in re.findall(r'data-i18n-attr="([^"]+)"', html):
        attr |= {pair.split(":")[1].strip() for pair in pairs.split(",")}
    found["web-client/index.html"] = attr
    return found


def test_every_key_the_code_uses_is_in_both_catalogues(
    catalogues: dict[str, dict[str, Any]],
) -> None:
    found = used_keys(catalogues["en"])
    assert found["web-client/js/lobby.js"], "the scan finds the lobby's keys"
    for lang, data in catalogues.items():
        missing = {f: sorted(k for k in keys if k not in data) for f, keys in found.items()}
        assert {f: m for f, m in missing.items() if m} == {}, f"keys missing in {lang}.js"


def _call_args(text: str, name: str) -> list[str]:
    """The argument text of every ``name(...)`` call (balanced parentheses)."""
    out = []
    for match in re.finditer(rf"\b{name}\(", text):
        depth, i = 1, match.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[match.end() : i - 1])
    return out


def error_codes() -> set[str]:
    """Every error code a player can be shown: the protocol's, the lobby's and history's
    literal codes, and the rule codes of every engine's IllegalMove."""
    codes = {
        v
        for k, v in vars(protocol).items()
        if k.isupper() and isinstance(v, str) and re.fullmatch(r"[a-z]+(-[a-z]+)*", v)
    }
    last_literal = re.compile(r""",\s*"([a-z]+(?:-[a-z]+)*)"\s*,?\s*$""")
    for path in (ROOT / "engines").rglob("*.py"):
        for args in _call_args(path.read_text(encoding="utf-8"), "IllegalMove"):
            if m := last_literal.search(args):
                codes.add(m.group(1))
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r"""RoomError\(\s*"([a-z]+(?:-[a-z]+)*)\"""", text))
        codes |= set(re.findall(r"""_error\(\s*\d+,\s*"([a-z]+(?:-[a-z]+)*)\"""", text))
        # A code named by a constant of the same module: ``NO_DEADLINE = "no-deadline"``.
        named = dict(re.findall(r"""^([A-Z_]+) = "([a-z]+(?:-[a-z]+)*)"$""", text, re.M))
        codes |= {named[n] for n in re.findall(r"RoomError\(\s*([A-Z_]+)\b", text) if n in named}
    return codes


def test_every_error_code_has_a_text_for_players(catalogues: dict[str, dict[str, Any]]) -> None:
    codes = error_codes()
    # The scan sees each kind of source: a protocol code, an engine rule, a lobby refusal,
    # a history error.
    assert {"seat-taken", "must-follow-suit", "bad-name", "not-over"} <= codes
    for lang, data in catalogues.items():
        missing = sorted(c for c in codes if f"error.{c}" not in data)
        assert missing == [], f"add error.<code> texts to {lang}.js (the shell's or the game's)"


def test_vietnamese_texts_are_translated(catalogues: dict[str, dict[str, Any]]) -> None:
    """A Vietnamese text equal to the English one is a leftover, unless it is a name (game
    titles and proper names stay as published) or has no words to translate."""
    names = {"site.name", "cards.skull-king", "cards.scary-mary", "cards.number"}
    en, vi = catalogues["en"], catalogues["vi"]
    same = [
        k
        for k in en
        if forms(en[k]) == forms(vi[k])
        and k not in names
        and not k.endswith(".title")
        and re.search(r"[A-Za-z]{3}", PLACEHOLDER.sub("", str(forms(en[k])[0])))
    ]
    assert same == []
