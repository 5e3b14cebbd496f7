"""The media page in the operator's words (issue 36), in the system Chromium against a real
server process: the picture upload shows no browser-drawn file button (it speaks the browser's
language, «Choose Files / No file chosen», whatever the panel's is), but our «Выбрать файлы»,
and a file chosen through it is still uploaded."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, expect

from tests.browser.helpers import PanelPage, screenshot_dir
from tests.media.test_media_api import png
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class MediaPage(PanelPage):
    def expected(self, message: ConsoleMessage) -> bool:
        return "status of 4" in message.text  # the refusals asserted below


@pytest.fixture
def media(context: BrowserContext, panel_server: Server) -> Iterator[MediaPage]:
    p = MediaPage(context.new_page(), panel_server)
    yield p
    assert p.errors == [], p.errors


@pytest.mark.parametrize("lang, word", [("ru", "Выбрать файлы"), ("en", "Choose files")])
def test_the_picture_upload_has_our_button_not_the_browsers(media: MediaPage, tmp_path: Path,
                                                            lang: str, word: str) -> None:
    page = media.open("/control/media").page
    if lang != "ru":
        page.select_option("#lang-select", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
    drop = page.locator("#media-drop")
    expect(drop.locator(".btn")).to_have_text(word)
    expect(drop.locator(".btn")).to_be_visible()
    box = page.locator("#media-file").bounding_box()
    assert box is not None and box["width"] <= 1 and box["height"] <= 1, box   # nothing of the browser's drawn
    page.screenshot(path=str(screenshot_dir(tmp_path) / f"media-upload-{lang}.png"), full_page=False)
    page.set_input_files("#media-file", files=[{"name": "logo36.png", "mimeType": "image/png", "buffer": png("blue")}])
    expect(page.locator("#media-result")).to_contain_text("logo36.png")
