"""The Pearates table in real browsers (web-client/js/games/pearates/).

The table shows the treasure as a face-down stack with its size, top and bottom marked, and
the cards you may see shown to you alone; bids before each player (your own face up to you);
action prompts (top or bottom, from hand or deck, which bid, which player); the split step by
step; the hand-or-score choice (a sealed prompt for all at once); scored cards by value with
the current majorities highlighted. Deals and promises are not enforced: the room chat is the
table talk, so the table shows the chat beside the game. The options the host can set
(friendly variant, strict ties, longer/shorter game, each expansion on or off) are fields of
the create form.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from players import Person
from test_table_mocked import CODE, USER, Script, _summary
from web_harness import SOCKET_URL

from engines.pearates.rules import EDITION
from engines.registry import GAMES

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
TURNS: list[int] = []


def _step(person: Person) -> str:
    """Do what Alice's page asks: the first card or end offered, but stop bidding after one
    card and keep the received cards when the hand has room (a short, varied game)."""
    page = person.page
    if page.locator(".gameover").count():
        return "over"
    buttons = page.locator(".pe-prompt button:not([disabled])")
    if not buttons.count():
        return "wait"
    try:
        moves = [
            json.loads(buttons.nth(i).get_attribute("data-move") or "{}")
            for i in range(buttons.count())
        ]
        verbs = [m.get("move") for m in moves]
        order = [
            "arrange",
            "hide",
            "stop",
            "keep",
            "put",
            "take",
            "steal",
            "add",
            "winner",
            "target",
            "discard",
            "give",
            "sabre",
            "bid",
            "pass",
        ]
        if "play" in verbs:
            # Turns alternate between a Play (its prompts: ends, hand or deck, which bid,
            # which player) and a Bid.
            TURNS.append(1)
            order = ["play", "bid", "pass"] if len(TURNS) % 2 else ["bid", "play", "pass"]
        for verb in order:
            if verb in verbs:
                i = verbs.index(verb)
                key = {"put": "t", "take": "t", "steal": "t", "pass": "p", "keep": "k"}.get(verb)
                if (
                    person.keyboard
                    and key
                    and moves[i].get("end", "top") == "top"
                    and "card" not in moves[i]
                ):
                    # The keys: T the top end, P pass, K everything into hand.
                    page.evaluate("() => document.activeElement && document.activeElement.blur()")
                    page.keyboard.press(key)
                else:
                    buttons.nth(i).click(timeout=1000)
                return verb
        buttons.first.click(timeout=1000)
        return str(verbs[0])
    except Exception:
        return "retry"


def _spectator_sees_nothing_hidden(person: Person) -> None:
    """A spectator sees only what every seat knows: no hand, no prompt, no private card."""
    page = person.page
    assert page.locator(".pe-prompt").count() == 0
    assert page.locator(".pe-hand").count() == 0
    assert page.locator("[data-role='mine']").count() == 0
    for f in person.frames:
        view = f.get("view")
        if isinstance(view, dict) and view.get("game") == "pearates":
            assert view.get("hand") is None and view.get("legal") == []
            assert "zones" not in view and view.get("my_choices") == []
        event = f.get("event") if isinstance(f.get("event"), dict) else {}
        for moves in (f.get("moves"), event.get("moves")):
            if not isinstance(moves, dict):
                continue
            # no seat's move reaches a spectator before the end: open moves go to their
            # mover only, the sealed hand-or-score choice is private (a Banana Sabre's
            # declared value is a public sealed move)
            shown = [m for m in moves.values() if not (isinstance(m, dict) and "value" in m)]
            assert not shown or event.get("status") == "finished", f


def _strings(value: Any) -> set[str]:
    """Every string anywhere in a frame (keys and values)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {k for k in value} | {x for v in value.values() for x in _strings(v)}
    if isinstance(value, list):
        return {x for v in value for x in _strings(v)}
    return set()


def _states_from_history(site: str, game_id: str) -> dict[int, Any]:
    """Every state of the finished game, replayed by the engine from the history route's
    seed and moves (each checked against the archived digest)."""
    import hashlib

    import httpx

    game = GAMES["pearates"]
    record = httpx.get(f"{site}/api/history/games/{game_id}", timeout=10).json()
    state = game.start(
        game.options(record["options"]), record["players"], bytes.fromhex(record["seed"])
    )
    states = {1: state}
    for e in record["events"][1:]:
        if e["takeback"]:
            state = states[e["takeback"] - 1]
        else:
            moves = {int(seat): game.decode_move(m) for seat, m in e["moves"].items()}
            state = game.step(state, moves)
        assert hashlib.sha256(game.encode(state)).hexdigest() == e["digest"], e["version"]
        states[e["version"]] = state
    return states


def _no_hidden_card_in_frames(person: Person, states: dict[int, Any]) -> int:
    """No frame the spectator received names a card whose place a spectator may not know
    at that version (the engine's ``hidden``): a card hidden at the version and the one
    before, and not named by the previous view (history that stays on show). The number of
    frames checked."""
    game = GAMES["pearates"]
    version, before, checked = 0, set(), 0
    for frame in person.frames:
        if isinstance(frame.get("version"), int):
            version = frame["version"]
        if version not in states:
            continue
        hidden = game.hidden(states[version], None)
        earlier = game.hidden(states[version - 1], None) if version - 1 in states else hidden
        leaked = (_strings(frame) & hidden & earlier) - before
        assert not leaked, (frame["type"], version, sorted(leaked))
        if frame["type"] in ("event", "snapshot") and frame.get("view"):
            before = _strings(frame["view"])
        checked += 1
    return checked


def _spectator_dom_matches_its_view(person: Person) -> None:
    """The spectator's page shows face up only the cards its view names: the treasure slot
    by slot, each bid's known cards (the rest as backs), no hand. Read in one go (the page
    draws each frame at once), so a frame arriving meanwhile cannot split the reading."""
    got = person.page.evaluate(
        """() => {
          const v = window.tortuga.view, q = (sel) => document.querySelectorAll(sel).length;
          const bids = v.bids.map((b, s) => {
            const zone = `.pe-seat[data-seat='${s}'] [data-role='bid']`;
            return [b.size, b.known.length, q(zone), q(`${zone} .pe-card.down`),
                    q(`${zone} .pe-card:not(.down)`)];
          });
          return {
            treasure: [v.treasure.filter(Boolean).length,
                       q('.pe-treasure .pe-stack .pe-card:not(.down)')],
            bids, private: q(".pe-hand, .pe-prompt, [data-role='mine']"),
          };
        }"""
    )
    assert got["treasure"][0] == got["treasure"][1], got
    for size, known, zone, down, up in got["bids"]:
        assert (zone, down, up) == ((1, size - known, known) if size else (0, 0, 0)), got
    assert got["private"] == 0, got


def prompt_in_sight(page: Any) -> bool:
    """Without scrolling (the page at its top), the prompt box and its first button lie in
    the window, above the chat where the chat is pinned to the window's bottom (a phone)."""
    return bool(
        page.evaluate(
            """() => {
              window.scrollTo(0, 0);
              const box = document.querySelector('.pe-prompt');
              const btn = box && box.querySelector('button');
              if (!box || !btn) return false;
              const a = box.getBoundingClientRect(), b = btn.getBoundingClientRect();
              const chat = document.querySelector('.chat-panel');
              const c = chat && chat.getBoundingClientRect();
              const below = c && c.top > a.top && c.left < a.right;  // pinned over the table
              const floor = below ? Math.min(c.top, window.innerHeight) : window.innerHeight;
              return a.top >= 0 && b.bottom <= floor;
            }"""
        )
    )


def _majorities_are_marked(person: Person) -> None:
    """ "Scored cards by value with the current majorities highlighted": each seat's stack
    of a value is marked (data-lead, a star and words, not colour alone) exactly when no
    other seat holds more scored cards of that value (from the page's own view)."""
    page = person.page
    scored = page.evaluate("() => window.tortuga.view.scored")
    counts: dict[int, dict[int, int]] = {}
    for s, cards in enumerate(scored):
        for e in cards:
            value = e["stack"] if e["stack"] is not None else None
            if value is None:
                continue
            counts.setdefault(value, {}).setdefault(s, 0)
            counts[value][s] += 1
    assert counts, "nothing was scored"
    for value, by_seat in counts.items():
        best = max(by_seat.values())
        for s, n in by_seat.items():
            stack = page.locator(f".pe-seat[data-seat='{s}'] .pe-scored li[data-value='{value}']")
            assert stack.count() == 1, (s, value)
            assert stack.get_attribute("data-lead") == ("1" if n == best else "0"), (s, value)
            assert (" ×" + str(n)) in stack.inner_text()
            if n == best:
                assert "★" in stack.inner_text() and "lead" in str(stack.get_attribute("class"))


def test_options_are_set_when_creating_the_room(site: str, chromium: Any) -> None:
    """The lobby draws the game's options_schema: each option a field, sent when creating."""
    alice = Person(chromium, site, "Alice", viewport=DESKTOP)
    try:
        alice.open("/")
        alice.choose_name()
        page = alice.page
        page.wait_for_selector("form[aria-label='create a room']")
        page.select_option("#game", "pearates")
        assert page.locator("label[for='rounds']").is_hidden()
        for name in ("friendly", "strict_ties", "more_actions", "special_scoring"):
            assert page.locator(f"#opt-{name}[type='checkbox']").is_visible(), name
        assert page.get_attribute("#opt-removed", "max") == "120"
        # "Optional: remove some or all of the negative numbers": how many values, 0-4.
        assert page.get_attribute("#opt-negatives_removed", "max") == "4"
        page.check("#opt-more_actions")
        page.check("#opt-strict_ties")
        page.fill("#opt-removed", "30")
        page.fill("#opt-negatives_removed", "2")
        page.fill("#seats", "2")
        page.get_by_role("button", name="Create the room").click()
        page.wait_for_url("**/r/*")
        page.wait_for_selector("ol.seats li.me")
        options = page.evaluate("() => window.tortuga.room.options")
        assert options["more_actions"] is True and options["strict_ties"] is True
        assert options["removed"] == 30 and options["special_scoring"] is False
        assert options["negatives_removed"] == 2
        assert options["rules"] == EDITION  # stored with the room: the edition of the rules
        # Skull King keeps its rounds field and no Pearates option.
        alice.open("/")
        page.wait_for_selector("form[aria-label='create a room']")
        page.select_option("#game", "skull-king")
        assert page.locator("#rounds").is_visible()
        assert page.locator("#opt-friendly").count() == 0
        # The rounds field takes its bounds from each game's schema.
        for game_id, game in GAMES.items():
            spec = game.options_schema().get("rounds")
            if isinstance(spec, dict) and page.locator(f"#game option[value='{game_id}']").count():
                page.select_option("#game", game_id)
                assert page.get_attribute("#rounds", "max") == str(spec["max"]), game_id
                assert page.get_attribute("#rounds", "min") == str(spec["min"]), game_id
    finally:
        alice.close()


def test_a_two_player_game_with_a_bot(site: str, chromium: Any, screenshot_dir: Path) -> None:
    alice = Person(chromium, site, "Alice", viewport=DESKTOP, keyboard=True)
    carol = Person(chromium, site, "Carol", viewport=PHONE, device_scale_factor=1, is_mobile=True)
    # A held split (about 3 s) is cut short: frames wait in order behind it, and the
    # spectator would fall behind (test_the_split_is_held_on_screen_until_a_click holds it).
    for person in (alice, carol):
        person.context.add_init_script("localStorage.setItem('tortuga.holdMs', '200');")
    try:
        alice.open("/")
        alice.choose_name()
        page = alice.page
        page.wait_for_selector("form[aria-label='create a room']")
        page.select_option("#game", "pearates")
        page.check("#opt-more_actions")
        page.fill("#opt-removed", "40")  # a shorter game: a few rounds
        page.fill("#seats", "2")
        page.get_by_role("button", name="Create the room").click()
        page.wait_for_url("**/r/*")
        page.wait_for_selector("ol.seats li.me")
        link = alice.invite_link()
        alice.add_bot("heuristic")
        alice.ready()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector(".table-area")
        seat = alice.my_seat()
        carol.page.goto(link)
        carol.choose_name()
        carol.page.wait_for_selector(".table-area")
        carol.page.wait_for_selector("[data-role='spectator-note']")
        # The chat stands beside the table on a wide screen (table talk).
        page.wait_for_selector(".table-talk .chat-panel")
        table_box = page.locator(".table-area").bounding_box()
        chat_box = page.locator(".chat-panel").bounding_box()
        assert table_box and chat_box and chat_box["x"] > table_box["x"] + table_box["width"] - 1
        assert chat_box["y"] < 800
        # Table talk during the game: a promise (not enforced) reaches the spectator's
        # table, in sight on the phone: marked on the pinned chat's heading (folded at
        # first, over the table), one tap opens it.
        page.fill("#chat-text", "Pass now and I give you the bottom card. Promise!")
        page.keyboard.press("Enter")
        carol.page.locator(".chat-panel .unread").wait_for()
        assert carol.page.inner_text(".chat-panel .unread") == "1 new"
        carol.page.click(".chat-toggle")
        carol.page.wait_for_selector(".chat-log >> text=I give you the bottom card")
        said = carol.page.locator(".chat-log >> text=I give you the bottom card").bounding_box()
        assert said and said["y"] + said["height"] <= PHONE["height"]
        # The treasure's ends are named; the start player sees what they arrange.
        page.wait_for_selector(".pe-treasure")

        seen: dict[str, Any] = {
            "reloaded": False,
            "shots": False,
            "kinds": set(),
            "split": False,
            "arranged": False,
            "my-bid": False,
            "keep": False,
        }
        for _ in range(3000):
            did = _step(alice)
            if did == "over" and carol.page.locator(".gameover").count():
                break
            seen["kinds"].add(did)
            if did == "arrange" and not seen["arranged"]:
                # The start player sees the treasure they arrange; the spectator sees backs.
                seen["arranged"] = True
                assert page.locator(".pe-treasure [data-role='known']").count() > 0
                assert carol.page.locator(".pe-treasure [data-role='known']").count() == 0
                assert carol.page.locator(".pe-treasure .pe-card.down").count() > 0
                # A stack with its size and its ends named, for every viewer.
                for who_ in (page, carol.page):
                    size = who_.evaluate("() => window.tortuga.view.treasure.length")
                    ends = who_.locator(".pe-treasure .pe-stack .pe-where").all_inner_texts()
                    assert len(ends) == size and ends[0] == "top" and ends[-1] == "bottom"
                    heading = who_.locator(".pe-treasure h2").inner_text()
                    assert f"{size} cards face down" in heading
            if page.locator("[data-role='split']").count():
                seen["split"] = True
            if did == "keep" and not seen["shots"]:
                page.wait_for_selector(".pe-prompt")
            round_ = page.get_attribute(".table-area", "data-round")
            mine = page.locator(".pe-prompt [data-role='my-bid'] .pe-card")
            if not seen["my-bid"] and mine.count() and page.locator(".pe-prompt button").count():
                # My bid face up to me in the prompt and before my seat; the spectator sees
                # as many backs and no face.
                seen["my-bid"] = True
                size = page.evaluate(f"() => window.tortuga.view.bids[{seat}].size")
                assert mine.count() == size
                own = page.locator(f".pe-seat[data-seat='{seat}'] [data-role='bid']")
                assert own.locator("[data-role='mine']").count() == size
                carol.page.wait_for_function(
                    f"() => window.tortuga.view.bids[{seat}].size === {size}"
                )
                _spectator_dom_matches_its_view(carol)
                # A shorter game: "Anybody may look at the cards removed" (seed) -- the
                # spectator too, face up.
                carol.page.locator(".pe-aside summary").click()
                removed = carol.page.evaluate("() => window.tortuga.view.removed.length")
                assert removed == 40
                assert carol.page.locator(".pe-aside .pe-card:not(.down)").count() == removed
                carol.page.locator(".pe-aside summary").click()
                assert prompt_in_sight(page)
                alice.shot(screenshot_dir, "pearates-my-bid")
                page.set_viewport_size(PHONE)
                assert prompt_in_sight(page)
                alice.shot(screenshot_dir, "pearates-my-bid-phone")
                page.set_viewport_size(DESKTOP)
            got = page.locator(".pe-prompt [data-role='received'] .pe-card")
            if not seen["keep"] and got.count() and page.locator(".pe-prompt button").count():
                # The hand-or-score choice shows the cards it is about, face up.
                seen["keep"] = True
                size = page.evaluate(f"() => window.tortuga.view.received[{seat}].size")
                assert got.count() == size
                assert prompt_in_sight(page)
                alice.shot(screenshot_dir, "pearates-keep")
                page.set_viewport_size(PHONE)
                assert prompt_in_sight(page)
                alice.shot(screenshot_dir, "pearates-keep-phone")
                page.set_viewport_size(DESKTOP)
            if round_ == "2" and not seen["shots"] and page.locator(".pe-prompt button").count():
                seen["shots"] = True
                alice.shot(screenshot_dir, "pearates-table")
                carol.shot(screenshot_dir, "pearates-spectator-phone")
                page.set_viewport_size(PHONE)
                alice.shot(screenshot_dir, "pearates-table-phone")
                assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
                # On a phone the chat stays in sight at the bottom of the screen.
                box = page.locator(".chat-panel").bounding_box()
                assert box and box["y"] + box["height"] <= PHONE["height"] + 1
                page.set_viewport_size(DESKTOP)
                _spectator_sees_nothing_hidden(carol)
            if round_ == "3" and not seen["reloaded"]:
                seen["reloaded"] = True
                # Read together: a frame between two reads would pair one version's hand
                # with the next version.
                hand, version = page.evaluate(
                    "() => [window.tortuga.view.hand, window.tortuga.version]"
                )
                page.reload()
                page.wait_for_selector(".table-area")
                assert alice.my_seat() == seat
                # The seat resumes where it was: my hand (unless the game moved on).
                back = page.evaluate("() => [window.tortuga.view.hand, window.tortuga.version]")
                assert back[0] == hand or back[1] != version, (hand, back)
            if did in ("wait", "retry"):
                page.wait_for_timeout(30)
        else:
            raise AssertionError(page.inner_text("main")[:2000])
        assert seen["reloaded"] and seen["shots"] and seen["my-bid"] and seen["keep"], seen
        assert {"bid", "play"} <= seen["kinds"] and {"keep", "score"} & seen["kinds"], seen["kinds"]
        # The split is shown step by step; the hand-or-score choice went through the seal
        # (Alice's commit announced to all, her move revealed only to her).
        # A step the page polls past (a bot's quick take, a click that raced a re-render)
        # still shows in Alice's frames: the split's phases, and her own arranging moves.
        views = [f.get("view") or {} for f in alice.frames if f.get("type") == "event"]
        mine = [
            (f.get("event") or {}).get("moves", {}).get(str(seat)) or {}
            for f in alice.frames
            if f.get("type") == "event"
        ]
        seen["split"] |= any(v.get("phase") in ("take", "winner") for v in views)
        seen["arranged"] |= any(m.get("move") == "arrange" for m in mine)
        assert seen["split"] and seen["arranged"], seen
        assert any(f.get("type") == "committed" and f.get("seat") == seat for f in alice.frames)
        assert any(f.get("type") == "committed" and f.get("seat") == seat for f in carol.frames)
        page.wait_for_selector(".pe-end")
        carol.page.wait_for_selector(".pe-end")
        assert page.locator(".pe-end tbody tr").count() == 2
        assert alice.final_scores() == carol.final_scores()
        for person in (alice, carol):
            person.page.wait_for_selector("[data-verified='1']", timeout=15000)
        alice.shot(screenshot_dir, "pearates-game-over")
        _majorities_are_marked(alice)
        _majorities_are_marked(carol)
        _spectator_sees_nothing_hidden(carol)
        game_id = next(
            f["event"]["game_id"]
            for f in reversed(carol.frames)
            if f.get("type") == "event" and f["event"].get("game_id")
        )
        # The replay: every card where it lies, the first deal recomputed from the seed.
        page.get_by_role("link", name="Watch the replay").click()
        for _ in range(40):
            page.wait_for_selector(".replay-controls, main [role='alert']", timeout=20000)
            if page.locator(".replay-controls").count():
                break
            page.wait_for_timeout(300)
            page.reload()
        page.wait_for_selector("[data-verified='1']", timeout=10000)
        # The game is archived: every state replayed from the seed and the moves, and no
        # frame the spectator got named a card hidden from spectators at its version.
        states = _states_from_history(alice.site, game_id)
        assert _no_hidden_card_in_frames(carol, states) > len(states)
        page.get_by_role("button", name="first step").click()
        page.wait_for_selector(".pe-zones")
        assert page.locator(".pe-zones [data-seat]").count() == 2
        # Every card of the treasure is drawn face up here: the heading does not say
        # "face down" (nor "you know N").
        heading = page.inner_text(".pe-treasure h2")
        assert "top first" in heading and "face down" not in heading, heading
        alice.shot(screenshot_dir, "pearates-replay")
        for person in (alice, carol):
            assert not [e for e in person.errors if "WebSocket" not in e], person.errors
    finally:
        for person in (alice, carol):
            person.close()


# -- the split held on screen (a scripted server, views from the real engine) ---------------
Views = tuple[dict[str, Any], dict[str, Any], dict[str, Any]]


def _splits(players: int = 3) -> dict[str, Views]:
    """Games of random bots (the engine itself) until the split has shown a Mutiny and a
    divide's take from the bottom: for each, seat 0's view before the step, after it, and
    one step later (a frame that must wait behind the held moment)."""
    from engines.rng import Rng

    game = GAMES["pearates"]
    found: dict[str, Views] = {}
    for n in range(40):
        state = game.start(game.options({}), players, bytes([n]) * 32)
        rng = Rng(bytes([n]) * 32, "test-split")
        pending: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        while game.outcome(state) is None and len(found) < 2:
            moves = {
                s: game.bot("random")(game.view(state, s), game.legal(state, s), rng)
                for s in game.prompt(state).seats
            }
            before = game.view(state, 0)
            state = game.step(state, moves)
            after = game.view(state, 0)
            for what, (b, a) in pending.items():
                found.setdefault(what, (b, a, after))
            pending = {}
            same = after["round"] == before["round"]
            fresh = [e["what"] for e in (after["log"] if same else after["last_log"])]
            fresh = fresh[len(before["log"]) :]
            if "share" in fresh and "mutiny" not in found:
                pending["mutiny"] = (before, after)
            if "take-bottom" in fresh and "divide" not in found:
                pending["divide"] = (before, after)
        if len(found) == 2:
            return found
    raise AssertionError(f"no Mutiny and divide in 40 games: {sorted(found)}")


def _pe_summary() -> dict[str, Any]:
    room = _summary()
    room.update(game="pearates", title="Pearates", options={})
    return room


def _pe_frame(kind: str, version: int, view: dict[str, Any]) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "type": kind,
        "room": CODE,
        "version": version,
        "seat": 0,
        "view": view,
    }
    if kind == "snapshot":
        frame.update(role="player", room_state=_pe_summary(), seed_digest="00" * 32, seed=None)
    else:
        frame.update(
            deadline=None,
            event={
                "kind": "move",
                "seats": [1],
                "moves": {},
                "defaults": [],
                "at": "",
                "status": "playing",
            },
        )
    return frame


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_split_is_held_on_screen_until_a_click(
    chromium: Any, web_only_url: str, lang: str, screenshot_dir: Path
) -> None:
    """What the split did stays on screen long enough to read (docs/CLIENT.md `hold`, as
    Skull King holds a won trick): a Mutiny ("the highest bid takes the whole treasure ...,
    the start player receives the highest bid") and a divide ("each bidder takes as many
    cards as they bid, all from the top or all from the bottom; the start player receives
    all bids; leftovers are discarded") -- who took what, from which end, the leftovers --
    announced to screen readers, while the next frame waits; a click goes on. Views from
    the engine; the hold set to ten minutes, so only the click ends it."""
    splits = _splits()
    mutiny_words = {"en": "Mutiny!", "vi": "Nổi loạn!"}[lang]
    bottom_words = {"en": "from the bottom", "vi": "từ dưới cùng"}[lang]
    leftover_words = {"en": "left over", "vi": "lá thừa"}[lang]
    context = chromium.new_context(viewport=PHONE, is_mobile=True)
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(
        f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});"
        f"localStorage.setItem('tortuga.lang', '{lang}');"
        "localStorage.setItem('tortuga.holdMs', '600000');"
    )
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_pe_summary()))
    try:
        for what in ("mutiny", "divide"):
            before, after, later = splits[what]
            script = Script([_pe_frame("snapshot", 5, before)])
            page.route_web_socket(SOCKET_URL, script.handler)
            page.goto(f"{web_only_url}/r/{CODE}")
            page.wait_for_selector(".pe-treasure")
            assert page.locator("[data-role='split-moment']").count() == 0
            script.push(_pe_frame("event", 6, after))
            script.push(_pe_frame("event", 7, later))
            held = page.locator("[data-role='split-moment']")
            held.wait_for()
            text = held.inner_text()
            page.wait_for_function(
                "t => document.getElementById('announcer').textContent.includes(t)",
                arg=held.locator("h2").inner_text()[2:],
            )
            if what == "mutiny":
                assert mutiny_words in text and "mutiny" in str(held.get_attribute("class"))
            else:
                assert bottom_words in text and leftover_words in text
            # who got cards is marked on their seat; the later frame waits
            assert page.locator(".pe-seat .pe-mark.got").count() >= 1
            assert page.get_attribute(".table-area", "data-round") == str(after["round"])
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            prompt = after["prompt"]
            if prompt["sealed"] and 0 in prompt["seats"]:
                # The sealed choice opens after the moment (its frame waits behind it): the
                # choice and its cards show, its buttons wait, and the page says so -- a
                # click before would be an open move the server refuses.
                buttons = page.locator(".pe-prompt button")
                assert buttons.count() >= 1
                assert all(buttons.nth(i).is_disabled() for i in range(buttons.count()))
                opens = {"en": "opens once the split", "vi": "mở ra sau khi xem xong"}[lang]
                assert opens in page.locator(".pe-prompt").inner_text()
            if lang == "en":
                # the moment's fade-in done: the shot shows it as it is read
                held.evaluate("el => Promise.all(el.getAnimations().map((a) => a.finished))")
                page.screenshot(path=str(screenshot_dir / f"pearates-held-{what}-phone.png"))
            page.locator(".pe-hand, .pe-treasure").first.click()
            page.wait_for_selector("[data-role='split-moment']", state="detached")
            page.wait_for_function("v => window.tortuga && window.tortuga.version === v", arg=7)
    finally:
        context.close()


def _sabre_view() -> dict[str, Any]:
    """Seat 0's view when the game ends with a Banana Sabre to declare, in a game with the
    special-scoring expansion (random bots, the engine itself)."""
    from engines.rng import Rng

    game = GAMES["pearates"]
    options = game.options({"special_scoring": True, "removed": 60})
    for n in range(60):
        seed = bytes([n]) * 32
        state = game.start(options, 3, seed)
        rng = Rng(seed, "test-sabre")
        while game.outcome(state) is None:
            prompt = game.prompt(state)
            if prompt.kind == "sabre" and prompt.sealed and 0 in prompt.seats:
                return game.view(state, 0)
            moves = {
                s: game.bot("random")(game.view(state, s), game.legal(state, s), rng)
                for s in prompt.seats
            }
            state = game.step(state, moves)
    raise AssertionError("no sealed Sabre declaration in 60 games")


def test_the_sabre_is_declared_by_a_click(chromium: Any, web_only_url: str) -> None:
    """The special-scoring expansion: "Banana Sabre: wildcard: counts as any value you
    choose" -- declared at the end by everyone holding one at once (a sealed prompt). Mia
    clicks a value: her page commits its digest, and once everyone committed reveals that
    very move (the room created with the expansion on: the summary's options)."""
    view = _sabre_view()
    assert view["options"]["special_scoring"] is True
    seats = view["prompt"]["seats"]
    phase = "sabre@9"
    room = _pe_summary()
    room["options"] = {"special_scoring": True, "removed": 60}
    snapshot = _pe_frame("snapshot", 9, view)
    snapshot["room_state"] = room
    sealed = {
        "type": "sealed",
        "room": CODE,
        "version": 9,
        "phase": phase,
        "kind": "sabre",
        "seats": seats,
        "committed": {},
        "open": False,
        "commit_by": None,
    }
    script = Script([snapshot, sealed])
    context = chromium.new_context(viewport=DESKTOP)
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=room))
    try:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")
        buttons = page.locator(".pe-prompt button[data-move*='sabre']")
        buttons.first.wait_for()
        values = [
            json.loads(buttons.nth(i).get_attribute("data-move") or "{}")
            for i in range(buttons.count())
        ]
        assert values == view["legal"]
        choice = next(m for m in values if m["value"] == 3)
        page.locator(
            f".pe-prompt button[data-move='{json.dumps(choice, separators=(',', ':'))}']"
        ).click()
        for _ in range(100):
            if any(m["type"] == "commit" for m in script.sent):
                break
            page.wait_for_timeout(20)
        commit = next(m for m in script.sent if m["type"] == "commit")
        assert commit["phase"] == phase and len(commit["digest"]) == 64
        assert not any(m["type"] == "act" for m in script.sent)
        # Everyone committed: the phase opens and the page reveals the move it sealed.
        for s in seats:
            script.push(
                {
                    "type": "committed",
                    "room": CODE,
                    "phase": phase,
                    "seat": s,
                    "digest": commit["digest"] if s == 0 else "ab" * 32,
                    "version": 9,
                }
            )
        script.push({"type": "open", "room": CODE, "phase": phase, "open_by": None})
        for _ in range(100):
            if any(m["type"] == "reveal" for m in script.sent):
                break
            page.wait_for_timeout(20)
        reveal = next(m for m in script.sent if m["type"] == "reveal")
        assert reveal["phase"] == phase and reveal["move"] == choice
    finally:
        context.close()


# -- every action prompt (a scripted server, views from the real engine) -------------------
ASKS = ("put", "add", "give", "discard", "target", "steal", "take", "winner")


def _action_views() -> dict[str, dict[str, Any]]:
    """Seat 0's view at an open prompt of each kind the actions ask (top or bottom, from
    hand or deck, which bid, which player), from games of random bots with the "more
    actions" expansion (the engine itself)."""
    from engines.rng import Rng

    game = GAMES["pearates"]
    options = game.options({"more_actions": True})
    found: dict[str, dict[str, Any]] = {}
    for n in range(200):
        seed = bytes([n % 256, n // 256]) * 16
        state = game.start(options, 3, seed)
        rng = Rng(seed, "test-asks")
        while game.outcome(state) is None and len(found) < len(ASKS):
            prompt = game.prompt(state)
            if not prompt.sealed and prompt.seats == (0,):
                verbs = {str(m).split()[0] for m in game.legal(state, 0)}
                for verb in verbs & set(ASKS) - set(found):
                    found[verb] = game.view(state, 0)
            moves = {
                s: game.bot("random")(game.view(state, s), game.legal(state, s), rng)
                for s in prompt.seats
            }
            state = game.step(state, moves)
        if len(found) == len(ASKS):
            return found
    raise AssertionError(f"not every prompt in 200 games: {sorted(set(ASKS) - set(found))}")


def test_every_action_prompt_offers_exactly_the_legal_moves(
    chromium: Any, web_only_url: str
) -> None:
    """ "Action prompts (top or bottom, from hand or deck, which bid, which player)": for
    each kind, the prompt's buttons are exactly the view's legal moves, and a click sends
    the move it shows."""
    context = chromium.new_context(viewport=DESKTOP)
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_pe_summary()))
    try:
        for verb, view in _action_views().items():
            script = Script([_pe_frame("snapshot", 5, view)])
            page.route_web_socket(SOCKET_URL, script.handler)
            page.goto(f"{web_only_url}/r/{CODE}")
            buttons = page.locator(".pe-prompt button[data-move]")
            buttons.first.wait_for()
            shown = [
                json.loads(buttons.nth(i).get_attribute("data-move") or "{}")
                for i in range(buttons.count())
            ]
            assert sorted(map(json.dumps, shown)) == sorted(map(json.dumps, view["legal"])), verb
            pick = next(i for i, m in enumerate(shown) if m["move"] == verb)
            buttons.nth(pick).click()
            for _ in range(100):
                if any(m["type"] == "act" for m in script.sent):
                    break
                page.wait_for_timeout(20)
            act = next(m for m in script.sent if m["type"] == "act")
            assert act["move"] == shown[pick] and act["version"] == 5, verb
    finally:
        context.close()


def _long_hand_turn() -> dict[str, Any]:
    """Seat 0's view at its turn with a full hand ("a hand limit of 8"), from games of
    random bots (the engine itself)."""
    from engines.rng import Rng

    game = GAMES["pearates"]
    options = game.options({})
    for n in range(300):
        seed = bytes([n % 256, n // 256, 7]) * 8
        state = game.start(options, 2, seed)
        rng = Rng(seed, "test-long-hand")
        while game.outcome(state) is None:
            prompt = game.prompt(state)
            if prompt.seats == (0,) and prompt.kind == "turn":
                view = game.view(state, 0)
                if len(view["hand"]) >= 8:
                    return view
            moves = {
                s: game.bot("random")(game.view(state, s), game.legal(state, s), rng)
                for s in prompt.seats
            }
            state = game.step(state, moves)
    raise AssertionError("no turn with a full hand in 300 games")


def test_a_full_hand_leaves_the_whole_prompt_above_the_phones_pinned_chat(
    chromium: Any, web_only_url: str, screenshot_dir: Path
) -> None:
    """On a phone the chat is pinned at the bottom of the screen (table talk is part of
    the game); with eight cards in hand the turn's prompt (play, bid, Pass) still fits
    above it when the page opens at my turn, so Pass is never under the chat."""
    context = chromium.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True)
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_pe_summary()))
    try:
        view = _long_hand_turn()
        script = Script([_pe_frame("snapshot", 5, view)])
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")
        page.locator(".pe-prompt button[data-move]").first.wait_for()
        # As the page opens at my turn: Pass is on the screen, above the pinned chat (not
        # under it, not below the fold), and each choice is one row scrolled sideways.
        chat = page.locator(".room-bottom .chat-panel").bounding_box()
        passing = page.locator(".pe-prompt button[data-move*='pass']").bounding_box()
        assert chat is not None and passing is not None
        assert passing["y"] + passing["height"] <= chat["y"], (passing, chat)
        rows = page.locator(".pe-prompt .pe-row")
        assert rows.count() >= 2
        for i in range(rows.count()):
            heights = rows.nth(i).evaluate("r => [...r.children].map(c => c.offsetTop)")
            assert len(set(heights)) == 1, heights  # one line of cards
        page.screenshot(path=str(screenshot_dir / "pearates-full-hand-phone.png"))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()
