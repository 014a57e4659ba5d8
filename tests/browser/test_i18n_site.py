"""Pages of the whole site in Vietnamese: no English text of the
catalogue on them. Screenshots at 1280x800 and 390x844 in artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_i18n_pages import PAGE_TEXT, SIZES, english_leftovers, english_words, new_page

pytestmark = pytest.mark.browser


def test_lobby_in_vietnamese(site: str, chromium: Any, screenshot_dir: Path) -> None:
    for size in SIZES:
        ctx, page, errors = new_page(chromium, size, "vi-VN")
        page.goto(site + "/")
        page.fill("#name", "Lan")
        page.get_by_role("button", name="Tiếp tục").click()
        page.wait_for_selector("text=Tạo phòng")
        page.wait_for_selector("#conn[data-state='open']")
        text = page.evaluate(PAGE_TEXT)
        assert "Đang chơi với tên" in text
        assert english_leftovers(text) == [] and english_words(text, ["Lan"]) == []
        page.screenshot(path=str(screenshot_dir / f"lobby-vi-{size}.png"), full_page=True)
        ctx.close()
        assert not errors, errors
