"""The media page in the operator's words (issue 36), in the system Chromium against a real
server process: the picture upload shows no browser-drawn file button (it speaks the browser's
language, «Choose Files / No file chosen», whatever the panel's is), but our «Выбрать файлы»,
and a file chosen through it is still uploaded; the «Графика OGraf» section uploads OGraf
packages (the picker, drag and drop), lists them as cards with their thumbnails, deletes one, and
says refusals in words."""
from __future__ import annotations

import base64
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, expect

from tests.browser.helpers import PanelPage, screenshot_dir
from tests.browser.test_ograf_render import FIXTURES, package
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


# --- «Графика OGraf»: the graphics library on the media page ------------------------------------

def hello_package(thumb: bytes) -> bytes:
    """Our own test graphic `own-hello` (tests/fixtures/ograf-own/hello) with a thumbnail added."""
    folder = FIXTURES / "ograf-own" / "hello"
    manifest = json.loads((folder / "hello.ograf.json").read_text(encoding="utf-8"))
    manifest["thumbnails"] = [{"file": "thumb.png"}]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("hello/hello.ograf.json", json.dumps(manifest))
        z.writestr("hello/graphic.mjs", (folder / "graphic.mjs").read_bytes())
        z.writestr("hello/thumb.png", thumb)
    return out.getvalue()


DROP_JS = """async ([name, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type: "application/zip" }));
  const zone = document.getElementById("ograf-drop");
  zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
  zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
}"""


def test_ograf_packages_upload_list_and_delete_from_the_media_page(media: MediaPage, panel_server: Server,
                                                                     tmp_path: Path) -> None:
    srv = panel_server
    page = media.open("/control/media").page
    section = page.locator("#ograf-library")
    expect(section.locator("h2")).to_have_text("Графика OGraf")
    expect(section.locator(".btn").first).to_have_text("Выбрать пакет")

    # the picker: a package with a thumbnail → a card with the graphic's name and its picture
    page.set_input_files("#ograf-file", files=[{"name": "hello.zip", "mimeType": "application/zip",
                                                "buffer": hello_package(png("red"))}])
    expect(page.locator("#ograf-result")).to_contain_text("hello.zip: загружено — «Hello (test)»")
    card = page.locator('.ograf-card[data-id="own-hello"]')
    expect(card.locator(".ograf-name")).to_have_text("Hello (test)")
    expect(card).to_contain_text("шагов: 1")
    page.wait_for_function("""() => { const img = document.querySelector('.ograf-card[data-id="own-hello"] img');
                                      return !!img && img.complete && img.naturalWidth === 64; }""")

    # drag and drop: a second package
    page.evaluate(DROP_JS, ["strap.zip", base64.b64encode(package(FIXTURES / "ograf-own" / "name-strap")).decode()])
    expect(page.locator('.ograf-card[data-id="own-name-strap"] .ograf-name')).to_have_text("Name strap (test)")
    expect(page.locator('.ograf-card[data-id="own-name-strap"] .media-thumb')).to_have_text("без картинки")

    # a file that is no package: refused in words, nothing stored
    before = srv.api("GET", "/api/ograf")["graphics"]
    page.set_input_files("#ograf-file", files=[{"name": "notes.zip", "mimeType": "application/zip",
                                                "buffer": b"not a zip at all"}])
    expect(page.locator("#ograf-result")).to_contain_text("notes.zip: Пакет OGraf не принят, ничего не сохранено")
    assert srv.api("GET", "/api/ograf")["graphics"] == before
    page.screenshot(path=str(screenshot_dir(tmp_path) / "media-ograf.png"), full_page=True)

    # delete: refused while a rundown item names it, then done
    rid = srv.api("POST", "/api/rundowns", {"name": "С графикой"})["id"]
    item = srv.api("POST", f"/api/rundowns/{rid}/items", {"segment": "А", "label": "Привет", "graphic": "ograf:own-hello",
                                                           "layer": "og", "out": "manual", "data": {"text": "Привет"}})
    item_id = item["id"] if "id" in item else [i for s in item["segments"] for i in s["items"]][-1]["id"]
    card.locator('[data-action="delete"]').click()
    expect(page.locator("#ograf-result")).to_contain_text(
        "«Hello (test)»: Графика используется: сначала уберите её из сценариев и эфира "
        "сценарий «С графикой», элемент «Привет»")
    expect(card).to_be_visible()
    srv.api("DELETE", f"/api/rundowns/{rid}/items/{item_id}")
    card.locator('[data-action="delete"]').click()
    expect(page.locator("#ograf-result")).to_contain_text("«Hello (test)» удалена из библиотеки графики")
    expect(card).to_have_count(0)
    srv.api("DELETE", f"/api/rundowns/{rid}")
    srv.api("DELETE", "/api/ograf/own-name-strap")
