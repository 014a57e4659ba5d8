"""The player's devices in Chromium: notifications on a closed tab (Web Push) and signing in
on a second device with a one-time link.

What Chromium cannot do offline, and how the test stands in for it -- said plainly:
- ``pushManager.subscribe`` needs the browser's push service (Google's), which a test machine
  cannot reach: the PAGE gets a PushManager stub (an init script, the page only -- never the
  service worker) that hands back a subscription with real P-256 keys made here. Everything
  after it is real: the page's opt-in, the server keeping the subscription.
- A push arriving: Chromium's DevTools protocol delivers it to the real service worker
  (``ServiceWorker.deliverPushMessage``), whose push handler shows the notification
  (checked with ``registration.getNotifications()``).
- A click on the notification: ``notificationclick`` dispatched in the service worker with
  the notification it showed (no headless browser has a notification to click): the worker
  takes the player's tab to the room.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from players import Person

pytestmark = pytest.mark.browser

IDENTITY = "() => JSON.parse(localStorage.getItem('tortuga.identity'))"
ENDPOINT = "https://fcm.googleapis.com/fcm/send/tortuga-browser-test"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def stub_push_manager() -> str:
    """The page's PushManager stub (see the module's text): a subscription with real keys."""
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    keys = json.dumps({"p256dh": b64(point), "auth": b64(os.urandom(16))})
    return f"""(() => {{
      if (typeof PushManager === "undefined") return;
      // The browser keeps its subscription across page loads: so does the stub.
      const made = () => ({{
        endpoint: {json.dumps(ENDPOINT)},
        toJSON: () => ({{ endpoint: {json.dumps(ENDPOINT)}, expirationTime: null, keys: {keys} }}),
        unsubscribe: async () => {{ localStorage.removeItem("stub.subscribed"); return true; }},
      }});
      let current = localStorage.getItem("stub.subscribed") ? made() : null;
      PushManager.prototype.subscribe = async function (options) {{
        const k = new Uint8Array(options.applicationServerKey);
        window.__serverKey = btoa(String.fromCharCode(...k))
          .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
        current = made();
        localStorage.setItem("stub.subscribed", "1");
        return current;
      }};
      PushManager.prototype.getSubscription = async function () {{
        return localStorage.getItem("stub.subscribed") ? current || made() : null;
      }};
    }})();"""


def stored_subscriptions(database_url: str, user_id: str) -> list[tuple[str, list[str], Any]]:
    """The rows the server kept (read on a thread of its own: Playwright owns this one)."""
    from sqlalchemy import select

    from server.archive.db import Database
    from server.archive.models import PushSubscription

    out: list[tuple[str, list[str], Any]] = []

    async def read() -> None:
        db = await Database.connect(database_url)
        try:
            async with db.session() as s:
                rows = await s.scalars(
                    select(PushSubscription).where(PushSubscription.user_id == user_id)
                )
                out.extend((r.endpoint, list(r.kinds), r.quiet_from) for r in rows)
        finally:
            await db.close()

    thread = threading.Thread(target=lambda: asyncio.run(read()))
    thread.start()
    thread.join(30)
    return out


def test_opt_in_push_and_click_opens_the_room(
    site: str, database_url: str, chromium: Any, screenshot_dir: Any
) -> None:
    anne = Person(chromium, site, "Anne", viewport={"width": 1280, "height": 800})
    try:
        anne.context.grant_permissions(["notifications"], origin=site)
        anne.context.add_init_script(stub_push_manager())
        anne.open("/")
        anne.choose_name()
        anne.page.wait_for_function("() => localStorage.getItem('tortuga.identity')")
        me = anne.page.evaluate(IDENTITY)
        room = anne.page.evaluate(
            """t => fetch('/api/rooms', {method: 'POST', headers: {Authorization: 'Bearer ' + t,
                 'Content-Type': 'application/json'}, body: JSON.stringify({game: 'skull-king'})})
                 .then(r => r.json()).then(r => r.id)""",
            me["token"],
        )
        anne.open(f"/player/{me['user']['id']}")
        page = anne.page
        panel = page.locator("[data-panel='push']")
        panel.get_by_text("Notifications are off for this device.").wait_for()
        # No quiet hours at night, say, and no pushes for game ends on this device.
        page.uncheck("[data-key='push-end']")
        page.check("[data-key='push-quiet']")
        page.fill("[data-key='push-from']", "22:30")
        page.fill("[data-key='push-to']", "07:00")
        page.click("[data-key='push-toggle']")
        panel.get_by_text("Notifications are on for this device.").wait_for()
        key = page.evaluate("() => fetch('/api/push').then(r => r.json()).then(b => b.key)")
        assert page.evaluate("() => window.__serverKey") == key, "the site's VAPID key"
        rows = stored_subscriptions(database_url, me["user"]["id"])
        assert rows == [(ENDPOINT, ["turn", "start", "invite"], 22 * 60 + 30)]
        page.screenshot(path=str(screenshot_dir / "devices-1280.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(screenshot_dir / "devices-390.png"), full_page=True)

        # A push arrives at the real service worker, as the push service would bring it.
        cdp = anne.context.new_cdp_session(page)
        registrations: list[dict[str, Any]] = []
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda e: registrations.extend(e["registrations"]),
        )
        cdp.send("ServiceWorker.enable")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        for _ in range(50):
            if registrations:
                break
            page.wait_for_timeout(100)
        (registration,) = {r["registrationId"] for r in registrations if not r["isDeleted"]}
        data = {
            "kind": "turn",
            "room": room,
            "game": "skull-king",
            "title": "Your move",
            "body": f"Skull King · table {room[:4]}-{room[4:]}",
            "url": f"/r/{room}",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": site, "registrationId": registration, "data": json.dumps(data)},
        )
        page.goto(site + "/")  # the player is elsewhere on the site when it comes
        shown = None
        for _ in range(100):  # (a plain value each look: no handle to outlive its page)
            shown = page.evaluate(
                """() => navigator.serviceWorker.ready
                     .then(r => r.getNotifications())
                     .then(ns => ns.map(n => [n.title, n.body, n.tag, n.data.url]))"""
            )
            if shown:
                break
            page.wait_for_timeout(100)
        assert shown == [["Your move", data["body"], f"tortuga-{room}", f"{site}/r/{room}"]]
        # The click: dispatched in the worker with the notification it showed.
        (worker,) = anne.context.service_workers
        worker.evaluate(
            """() => self.registration.getNotifications().then(([n]) => self.dispatchEvent(
                 new NotificationEvent('notificationclick', {notification: n})))"""
        )
        page.wait_for_url(f"{site}/r/{room}")
        # Turned off: the server forgets the device.
        anne.open(f"/player/{me['user']['id']}")
        page.click("[data-key='push-toggle']")
        panel.get_by_text("Notifications are off for this device.").wait_for()
        assert stored_subscriptions(database_url, me["user"]["id"]) == []
        assert not [e for e in anne.errors if "404" not in e], anne.errors
    finally:
        anne.close()


def test_sign_in_on_a_second_device_by_link(site: str, chromium: Any, screenshot_dir: Any) -> None:
    anne = Person(chromium, site, "Anne", viewport={"width": 1280, "height": 800})
    phone = Person(chromium, site, "phone", viewport={"width": 390, "height": 844})
    other = Person(chromium, site, "Cleo", viewport={"width": 390, "height": 844})
    try:
        anne.open("/")
        anne.choose_name()
        anne.page.wait_for_function("() => localStorage.getItem('tortuga.identity')")
        me = anne.page.evaluate(IDENTITY)
        anne.open(f"/player/{me['user']['id']}")
        anne.page.click("[data-key='make-link']")
        qr = anne.page.get_by_role("img", name="QR code of the sign-in link")
        qr.wait_for()
        assert qr.get_attribute("src").startswith("data:image/svg+xml")
        url = anne.page.input_value("[data-key='link-url']")
        assert url.startswith(site + "/signin#")
        anne.page.screenshot(path=str(screenshot_dir / "signin-link-1280.png"), full_page=True)
        # The phone opens the link: it is Anne there.
        phone.page.goto(url)
        phone.page.get_by_text("You are signed in as Anne.").wait_for()
        assert phone.page.url == site + "/signin", "the token leaves the address bar"
        assert phone.page.evaluate(IDENTITY)["user"] == me["user"]
        phone.page.screenshot(path=str(screenshot_dir / "signin-done-390.png"), full_page=True)
        phone.page.get_by_role("link", name="Go to your page").click()
        phone.page.get_by_role("heading", name="Anne", exact=True).wait_for()
        # A second use is refused, and the browser that tried keeps who it was.
        other.open("/")
        other.choose_name()
        other.page.wait_for_function("() => localStorage.getItem('tortuga.identity')")
        before = other.page.evaluate(IDENTITY)
        other.page.goto(url)
        alert = other.page.get_by_role("alert")
        alert.wait_for()
        assert "This sign-in link was already used or has expired." in alert.inner_text()
        assert other.page.evaluate(IDENTITY) == before
        # Anne's page lists the device that signed in.
        anne.page.reload()
        anne.page.locator("ul.sign-ins li").first.wait_for()
        assert "by link" in anne.page.locator("ul.sign-ins li").first.inner_text()
        for who in (anne, phone, other):
            assert not [e for e in who.errors if "400" not in e and "404" not in e], who.errors
    finally:
        for who in (anne, phone, other):
            who.close()
