"""Tables of every game drawn at a chosen size and language against a scripted server
(test_table_mocked's ``Script``): the room summary, the snapshot and the sealed phase a view
needs, and views of the five games -- hand-made for Skull King and Bid & Make It (the cards
a test wants in hand), from the engines themselves for the others (random play)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from test_table_mocked import CODE, USER, Script
from web_harness import SOCKET_URL

from engines.registry import GAMES

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
NAMES = [
    "Mia",
    "Bartholomew Roberts",
    "Grace O'Malley",
    "Henry Every",
    "Anne Bonny",
    "Ned",
    "Olga",
    "Pip",
]
TITLES = {
    "skull-king": "Skull King",
    "bid-tricks": "Pirate Tricks: Bid & Make It",
    "loon-tricks": "Pirate Tricks: Loon & Score Cards",
    "pearates": "Pearates",
    "pirate-king": "Pirate King!",
}


def room(game: str, players: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The room summary: Mia (seat 0, this browser) and the others, all people."""
    return {
        "id": CODE,
        "game": game,
        "title": TITLES[game],
        "options": options or {},
        "players": players,
        "public": False,
        "spectators": True,
        "deadlines": {},
        "takeback": False,
        "host": "g_me",
        "status": "playing",
        "version": 5,
        "invite": f"http://example.invalid/r/{CODE}",
        "seed_digest": "00" * 32,
        "seed": None,
        "seats": [
            {
                "seat": i,
                "user": f"g_{i}" if i else "g_me",
                "name": NAMES[i],
                "bot": None,
                "ready": True,
                "connected": True,
            }
            for i in range(players)
        ],
    }


def frames(summary: dict[str, Any], view: dict[str, Any], version: int = 5) -> list[Any]:
    """The snapshot of ``view`` (seat 0), the sealed phase it opens, everyone connected."""
    out: list[dict[str, Any]] = [
        {
            "type": "snapshot",
            "room": CODE,
            "version": version,
            "seat": 0,
            "role": "player",
            "view": view,
            "room_state": summary,
            "seed_digest": "00" * 32,
            "seed": None,
        }
    ]
    prompt = view.get("prompt") or {}
    if prompt.get("sealed"):
        out.append(
            {
                "type": "sealed",
                "room": CODE,
                "version": version,
                "phase": f"{prompt['kind']}@{version}",
                "kind": prompt["kind"],
                "seats": prompt["seats"],
                "committed": {},
                "open": False,
                "revealed": [],
                "commit_by": None,
                "open_by": None,
            }
        )
    players = summary["players"]
    out.append({"type": "presence", "room": CODE, "connected": list(range(players)), "watchers": 0})
    return out


@contextmanager
def table(
    chromium: Any,
    url: str,
    size: str,
    summary: dict[str, Any],
    view: dict[str, Any],
    *,
    lang: str = "en",
    wait: str = ".table-area",
) -> Iterator[tuple[Any, Script]]:
    """A page at ``size`` ("desktop", "phone") in ``lang`` showing ``view`` at seat 0.
    Movement is off (reduced motion): what is measured is where things come to rest."""
    context = chromium.new_context(**SIZES[size], reduced_motion="reduce")
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(
        f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});"
        f"localStorage.setItem('tortuga.lang', '{lang}');"
        "localStorage.setItem('tortuga.holdMs', '600000');"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=summary))
    script = Script(frames(summary, view))
    try:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{url}/r/{CODE}")
        page.wait_for_selector(wait)
        yield page, script
        assert not errors, errors
    finally:
        context.close()


def settle(page: Any) -> None:
    """Wait until the page is drawn and styled and any scrolling my turn asked for is done."""
    page.evaluate(
        """() => Promise.all([...document.querySelectorAll("link[rel='stylesheet']")]
             .filter((l) => !l.sheet)
             .map((l) => new Promise((r) => l.addEventListener("load", r))))
             .then(() => new Promise((r) => requestAnimationFrame(
               () => requestAnimationFrame(r))))"""
    )
    page.wait_for_timeout(100)


def shot(page: Any, name: str, full: bool = False) -> None:
    """A screenshot for a person to look at (artifacts/screenshots/, not committed)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full)


# Every word of the page's text on one line and, on a card, inside the card. A word is what
# lies between spaces and hyphens (a line may break at a hyphen: "Ship-in-a- / Bottle").
# ``Range.getClientRects`` gives a box per line a word lies on: a word broken inside (MERMAI
# / D) has two.
BROKEN_WORDS = """() => {
  const bad = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(".visually-hidden, script, style, option, select")) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === "hidden") continue;
    for (const m of n.textContent.matchAll(/[^\\s\\-‐–—·\\/]+/g)) {
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
      if (new Set(rects.map((r) => Math.round(r.bottom))).size > 1) {
        bad.push(`"${m[0]}" broken in .${el.className || el.tagName}`);
      }
      const card = el.closest(".card, .pe-card, .pk-card, .score-card");
      if (card && rects.length) {
        const c = card.getBoundingClientRect();
        if (rects.some((r) => r.left < c.left - 1 || r.right > c.right + 1)) {
          bad.push(`"${m[0]}" sticks out of .${card.className}`);
        }
      }
    }
  }
  return bad;
}"""


# -- Skull King and Bid & Make It: hand-made views -------------------------------------------
SK_HAND = [
    "yellow-12",
    "red-13",
    "blue-10",
    "black-13",
    "escape-1",
    "pirate-2",
    "mermaid-1",
    "mermaid-2",
    "skull-king",
    "scary-mary",
]
BT_HAND = [
    "green-14",
    "purple-11",
    "yellow-10",
    "black-12",
    "escape-2",
    "pirate-1",
    "mermaid-1",
    "captain",
    "rogue",
    "green-3",
]


def sk_view(game: str = "skull-king", players: int = 5, **changes: Any) -> dict[str, Any]:
    """Seat 0's view in the last round (10 cards each), bidding unless ``changes`` say."""
    hand = SK_HAND if game == "skull-king" else BT_HAND
    view: dict[str, Any] = {
        "game": game,
        "players": players,
        "seat": 0,
        "round": 10,
        "rounds": 10,
        "cards": len(hand),
        "dealer": players - 1,
        "phase": "bid",
        "hand": hand,
        "hand_sizes": [len(hand)] * players,
        "ghost": None,
        "bids": [None] * players,
        "tricks": [0] * players,
        "order": [],
        "trick": [],
        "led": None,
        "led_open": False,
        "turn": None,
        "last_trick": None,
        "sheet": [],
        "scores": [40 * s - 30 for s in range(players)],
        "prompt": {"seats": list(range(players)), "kind": "bid", "sealed": True},
        "legal": [{"bid": n} for n in range(len(hand) + 1)],
        "outcome": None,
    }
    view.update(changes)
    return view


def sk_playing(game: str = "skull-king", players: int = 5, **changes: Any) -> dict[str, Any]:
    """Seat 0's view after the first trick of the last round: Grace won it with the Skull
    King; Bartholomew leads the second trick (nothing on the table yet)."""
    hand = [c for c in (SK_HAND if game == "skull-king" else BT_HAND) if c != "scary-mary"]
    king = "skull-king" if game == "skull-king" else "captain"
    first = ["blue-3", "mermaid-2", king, "escape-3", "pirate-4"][:players]
    if game != "skull-king":
        first = ["yellow-3", "mermaid-2", king, "escape-3", "pirate-4"][:players]
    hand = [c for c in hand if c not in first][:9]
    plays = [{"seat": s, "card": first[s]} for s in range(players)]
    view = sk_view(
        game,
        players,
        phase="play",
        hand=hand,
        hand_sizes=[9] * players,
        bids=[2, 1, 3, 0, 2][:players] + [1] * max(0, players - 5),
        tricks=[1 if s == 2 else 0 for s in range(players)],
        order=[(1 + i) % players for i in range(players)],
        trick=[],
        led=None,
        led_open=True,  # (an empty trick: the first numbered card sets the suit)
        turn=1,
        last_trick={"plays": plays, "winner": 2},
        prompt={"seats": [1], "kind": "play", "sealed": False},
        legal=[],
    )
    view.update(changes)
    return view


# -- Loon, Pearates, Pirate King: the engines' own views ---------------------------------------
_FOUND: dict[str, dict[str, Any]] = {}


def engine_view(
    game_id: str, players: int, wanted: Any, seed: int = 3, options: Any = None, tries: int = 300
) -> dict[str, Any]:
    """Seat 0's view at the first state of random play where ``wanted(game, state, view)``
    holds (the view as the server sends it to seat 0); found once per test session."""
    name = getattr(wanted, "key", None)  # (a view without a name is searched every time)
    key = json.dumps([game_id, players, name or id(wanted), seed, options])
    if name is None or key not in _FOUND:
        _FOUND[key] = _search(game_id, players, wanted, seed, options, tries)
    return copy.deepcopy(_FOUND[key])


def _search(
    game_id: str, players: int, wanted: Any, seed: int, options: Any, tries: int
) -> dict[str, Any]:
    game = GAMES[game_id]
    rnd = random.Random(seed)
    for n in range(tries):
        state = game.start(game.options(options or {}), players, bytes([n % 256, seed]) * 16)
        while game.outcome(state) is None:
            view = game.view(state, 0)
            if wanted(game, state, view):
                return view
            prompt = game.prompt(state)
            moves = {s: rnd.choice(game.legal(state, s)) for s in prompt.seats}
            if not prompt.sealed:
                moves = {prompt.seats[0]: moves[prompt.seats[0]]}
            state = game.step(state, moves)
    raise AssertionError(f"no such view of {game_id} in {tries} games")


def mine(kind: str) -> Any:
    """A view where seat 0 owes a move of ``kind``."""

    def wanted(game: Any, state: Any, view: dict[str, Any]) -> bool:
        prompt = game.prompt(state)
        return bool(prompt.kind == kind and 0 in prompt.seats)

    wanted.key = f"mine:{kind}"  # type: ignore[attr-defined]
    return wanted


def loon_play(view_trick: str = "empty") -> Any:
    """Loon: seat 0 to play with a full hand (10 cards) after a trick was won ("empty": the
    next trick not begun; "begun": a card on the table)."""

    def wanted(game: Any, state: Any, view: dict[str, Any]) -> bool:
        prompt = game.prompt(state)
        if prompt.kind != "play" or 0 not in prompt.seats or not view.get("last_trick"):
            return False
        if len(view["hand"]) < 8:
            return False
        return bool(view["trick"]) == (view_trick == "begun")

    wanted.key = f"loon-play:{view_trick}"  # type: ignore[attr-defined]
    return wanted
