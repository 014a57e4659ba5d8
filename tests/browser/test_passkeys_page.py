"""Passkeys in Chromium, with its virtual authenticator (DevTools protocol ``WebAuthn``):
a platform authenticator (CTAP2, internal, resident keys, user verification) on each
browser context, as a laptop's and a phone's would be.

The player adds a passkey on their laptop (1280x800); the phone (390x844) gets the same
credential -- as a synced passkey would reach it: ``WebAuthn.getCredentials`` on the laptop's
authenticator, ``WebAuthn.addCredential`` on the phone's -- and signs in with it on the
sign-in page: it is the same player there, with their games. The laptop's page lists the
passkey sign-in. The site runs on ``localhost`` (WebAuthn wants a domain, not an address).
"""

from __future__ import annotations

from typing import Any

import pytest
from players import Person

pytestmark = pytest.mark.browser

IDENTITY = "() => JSON.parse(localStorage.getItem('tortuga.identity'))"
PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0 Mobile Safari/537.36"
)


@pytest.fixture(scope="module")
def site_changes() -> dict[str, Any]:
    """The site on http://localhost:<port>: its relying party id is ``localhost``."""
    return {"public_url": "http://localhost:{port}"}


def authenticator(person: Person) -> tuple[Any, str]:
    """A virtual platform authenticator on the person's page: its CDP session and id."""
    cdp = person.context.new_cdp_session(person.page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, str(made["authenticatorId"])


def test_a_passkey_added_on_the_laptop_signs_the_phone_in(
    site: str, chromium: Any, screenshot_dir: Any
) -> None:
    laptop = Person(chromium, site, "Anne", viewport={"width": 1280, "height": 800})
    phone = Person(
        chromium, site, "phone", viewport={"width": 390, "height": 844}, user_agent=PHONE
    )
    try:
        laptop_cdp, laptop_auth = authenticator(laptop)
        laptop.open("/")
        laptop.choose_name()
        laptop.page.wait_for_function("() => localStorage.getItem('tortuga.identity')")
        me = laptop.page.evaluate(IDENTITY)
        room = laptop.create_room(rounds=2, seats=3)
        laptop.open(f"/player/{me['user']['id']}")
        page = laptop.page
        panel = page.locator("[data-panel='passkeys']")
        panel.get_by_text("No passkey yet.").wait_for()
        page.click("[data-key='add-passkey']")
        panel.get_by_text("Passkey added.").wait_for()
        item = panel.locator("ul.passkeys li")
        assert item.count() == 1
        assert "Added" in item.inner_text() and "not used yet" in item.inner_text()
        page.screenshot(path=str(screenshot_dir / "passkeys-1280.png"), full_page=True)
        (credential,) = laptop_cdp.send(
            "WebAuthn.getCredentials", {"authenticatorId": laptop_auth}
        )["credentials"]
        assert credential["isResidentCredential"] and credential["rpId"] == "localhost"

        # The phone: a guest first (nothing needs an account), then the passkey.
        phone_cdp, phone_auth = authenticator(phone)
        phone.open("/")
        offer = phone.page.get_by_role("link", name="Already a player here? Sign in with a passkey")
        offer.wait_for()
        phone.page.screenshot(path=str(screenshot_dir / "passkey-landing-390.png"))
        offer.click()
        phone.page.wait_for_url(site + "/signin")
        phone.page.get_by_role("button", name="Sign in with a passkey").wait_for()
        assert phone.page.evaluate(IDENTITY) is None, "no name chosen: no identity yet"
        phone_cdp.send(
            "WebAuthn.addCredential", {"authenticatorId": phone_auth, "credential": credential}
        )
        phone.page.click("[data-key='passkey-signin']")
        phone.page.get_by_text("You are signed in as Anne.").wait_for()
        assert phone.page.evaluate(IDENTITY)["user"] == me["user"]
        phone.page.screenshot(path=str(screenshot_dir / "passkey-signin-390.png"), full_page=True)
        # Her games are there: the lobby lists her room; her page is hers.
        phone.open("/")
        phone.page.locator(f"#my-rooms a[href='/r/{room}']").first.wait_for()
        assert phone.page.get_by_role("link", name="Sign in with a passkey").count() == 1
        phone.page.screenshot(path=str(screenshot_dir / "passkey-lobby-390.png"), full_page=True)
        phone.open(f"/player/{me['user']['id']}")
        phone.page.get_by_role("heading", name="Anne", exact=True).wait_for()
        phone.page.locator("[data-panel='passkeys'] ul.passkeys li").wait_for()

        # The laptop's page lists the passkey sign-in, and the passkey as used.
        page.reload()
        signed = page.locator("ul.sign-ins li").first
        signed.wait_for()
        assert signed.inner_text().startswith("Chrome on Android — by passkey")
        assert "last used" in item.inner_text()
        page.screenshot(path=str(screenshot_dir / "passkeys-used-1280.png"), full_page=True)
        # Removed: gone from the list.
        page.click("[data-key='remove-passkey']")
        panel.get_by_text("Passkey removed.").wait_for()
        panel.get_by_text("No passkey yet.").wait_for()
        for who in (laptop, phone):
            assert not [e for e in who.errors if "400" not in e and "404" not in e], who.errors
    finally:
        for who in (laptop, phone):
            who.close()


def test_no_passkeys_where_the_browser_has_none(site: str, chromium: Any) -> None:
    """Without ``PublicKeyCredential`` nothing offers a passkey; playing needs none."""
    guest = Person(chromium, site, "Cleo", viewport={"width": 390, "height": 844})
    try:
        guest.context.add_init_script("delete window.PublicKeyCredential;")
        guest.open("/")
        guest.page.get_by_role("button", name="Continue").wait_for()
        assert guest.page.locator("[data-key='passkey-signin-link']").count() == 0
        guest.choose_name()
        guest.page.wait_for_function("() => localStorage.getItem('tortuga.identity')")
        guest.page.locator("[data-key='sign-out-everywhere']").wait_for()
        assert guest.page.locator("[data-key='passkey-signin-link']").count() == 0
        me = guest.page.evaluate(IDENTITY)
        guest.open(f"/player/{me['user']['id']}")
        guest.page.locator("[data-panel='link']").wait_for()
        assert guest.page.locator("[data-panel='passkeys']").count() == 0
        guest.open("/signin")
        guest.page.get_by_text("No passkey here?").wait_for()
        assert guest.page.get_by_role("button", name="Sign in with a passkey").count() == 0
    finally:
        guest.close()
