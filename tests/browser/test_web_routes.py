"""server/http/web.py: the pages and modules it serves, and the headers that keep them safe."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", ["/", "/r/AbCd1234", "/replay/AbCd1234-1", "/admin"])
def test_app_pages_are_the_single_page_app(web_only_url: str, path: str) -> None:
    res = httpx.get(web_only_url + path)
    assert res.status_code == 200
    assert res.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/app.js">' in res.text
    csp = res.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert res.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("game", ["skull-king", "bid-tricks"])
def test_rules_pages_mark_the_house_rules(web_only_url: str, game: str) -> None:
    res = httpx.get(f"{web_only_url}/rules/{game}")
    assert res.status_code == 200
    assert '<mark class="house">house</mark>' in res.text


@pytest.mark.parametrize("path", ["/rules/chess", "/rules/..%2Findex", "/static/../pyproject.toml"])
def test_unknown_pages_are_404(web_only_url: str, path: str) -> None:
    assert httpx.get(web_only_url + path).status_code == 404


def test_modules_are_served_as_javascript_and_revalidated(web_only_url: str) -> None:
    res = httpx.get(web_only_url + "/static/js/seal.js")
    assert res.status_code == 200
    assert "javascript" in res.headers["content-type"]
    assert res.headers["cache-control"] == "no-cache"
    again = httpx.get(
        web_only_url + "/static/js/seal.js", headers={"if-none-match": res.headers["etag"]}
    )
    assert again.status_code == 304
