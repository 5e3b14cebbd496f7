"""The media library page in the real system Chromium against a real server: a logo dropped on
the page goes on air as the bug, a re-upload through «Заменить» swaps the bug's picture without a
blank or stale frame (the new one decoded before it is shown), hostile files picked in the page
are refused in words and change nothing (the list, the files on disk), and a picture in use
cannot be deleted."""
from __future__ import annotations

import base64
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, expect

from tests.media.test_media_api import files, png_header
from tests.browser.helpers import PanelPage, Tab, wait_js, wait_on_air
from tests.browser.test_show_graphics import RECORD_BUG_JS, logo
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EVIL_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'
EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" + b"\0" * 500


class MediaPage(PanelPage):
    home = "/control/media"

    def expected(self, message: ConsoleMessage) -> bool:
        # the browser logs each refused upload (4xx) as a console error; the page shows it
        return "status of 4" in message.text


@pytest.fixture
def panel(context: BrowserContext, panel_server: Server) -> Iterator[MediaPage]:
    p = MediaPage(context.new_page(), panel_server).open()
    yield p
    assert p.errors == []


@pytest.fixture
def bug(chromium, panel_server: Server) -> Iterator[Page]:
    t = Tab(chromium)
    page = t.open(f"{panel_server.url}/overlays/bug")
    yield page
    assert t.errors == []
    t.close()


def drop_file(page: Page, selector: str, name: str, data: bytes, mime: str) -> None:
    """Drops a file on `selector` as a file manager would (a DataTransfer with a File)."""
    page.evaluate("""([sel, name, b64, mime]) => {
      const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, {type: mime}));
      const target = document.querySelector(sel);
      for (const type of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(type, {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""", [selector, name, base64.b64encode(data).decode(), mime])


def test_a_dropped_logo_goes_on_air_and_a_re_upload_replaces_it_without_a_stale_frame(
        panel: MediaPage, bug: Page, panel_server: Server):
    page = panel.page
    before = {m["id"] for m in panel_server.api("GET", "/api/media")["media"]}
    drop_file(page, "#media-drop", "sponsor.png", logo("#1d4ed8", "SPONSOR"), "image/png")
    expect(page.locator(".media-result [data-kind=ok]")).to_be_visible(timeout=10_000)
    new = [m for m in panel_server.api("GET", "/api/media")["media"] if m["id"] not in before]
    assert len(new) == 1
    first = new[0]
    card = page.locator(f'.media-card[data-id="{first["id"]}"]')
    expect(card.locator("img")).to_have_attribute("src", first["thumb"])
    wait_js(page, "id => { const i = document.querySelector(`.media-card[data-id='${id}'] img`);"
                  " return i.complete && i.naturalWidth > 0; }", first["id"], 10_000)  # the thumbnail shows
    sent = time.monotonic()
    card.locator('button[data-action="bug"]').click()
    wait_on_air(bug, "bug", timeout_ms=10_000)
    wait_js(bug, "url => document.querySelector('.bug-img.front').getAttribute('src') === url", first["url"], 10_000)
    print(f"panel: logo on air {(time.monotonic() - sent) * 1000:.0f} ms after the click")

    bug.evaluate(RECORD_BUG_JS)
    with page.expect_file_chooser() as chooser:
        card.locator('button[data-action="replace"]').click()
    sent = time.monotonic()
    chooser.value.set_files(files=[{"name": "sponsor-2.png", "mimeType": "image/png",
                                    "buffer": logo("#b91c1c", "NEW LOGO", (420, 140))}])
    second = None
    deadline = time.monotonic() + 20
    while second is None and time.monotonic() < deadline:
        now = panel_server.api("GET", f"/api/media/{first['id']}")
        second = now if now["url"] != first["url"] else None
        time.sleep(0.02)
    assert second is not None, "the replace did not reach the server"
    wait_js(bug, "url => document.querySelector('.bug-img.front').getAttribute('src') === url", second["url"], 10_000)
    print(f"panel: re-uploaded logo on air {(time.monotonic() - sent) * 1000:.0f} ms after the file was picked")
    wait_js(bug, "() => window.bugFrames.length > 5")
    frames = bug.evaluate("window.bugFrames")
    assert all(f["src"] and f["complete"] and f["w"] > 0 and f["on"] for f in frames)
    swapped = next(i for i, f in enumerate(frames) if f["src"] == second["url"])
    assert all(f["src"] == second["url"] for f in frames[swapped:])
    assert all(f["src"] == first["url"] for f in frames[:swapped])

    # on air: «Удалить» is refused with what uses it, and the picture stays
    page.locator(f'.media-card[data-id="{first["id"]}"] button[data-action="delete"]').click()
    expect(page.locator(".media-result [data-kind=error]")).to_contain_text("в эфире: Логотип в углу")
    assert first["id"] in {m["id"] for m in panel_server.api("GET", "/api/media")["media"]}
    panel_server.api("POST", "/api/graphics", {"action": "hide", "graphic": "bug"})


def test_hostile_files_are_refused_in_words_and_change_nothing(panel: MediaPage, panel_server: Server):
    page = panel.page
    listing = panel_server.api("GET", "/api/media")["media"]
    on_disk = files(panel_server)
    for name, data, words in (("logo.svg", EVIL_SVG, "скрипты"),
                              ("huge.png", png_header(30_000, 30_000), "30000 × 30000"),
                              ("logo.png", EXE, "это EXE")):
        page.set_input_files("#media-file", files=[{"name": name, "mimeType": "image/png", "buffer": data}])
        expect(page.locator(".media-result [data-kind=error]")).to_contain_text(words, timeout=10_000)
        expect(page.locator(".media-result [data-kind=error]")).to_contain_text(name)
    assert panel_server.api("GET", "/api/media")["media"] == listing
    assert files(panel_server) == on_disk
    assert page.locator(".media-card").count() == len(listing) or (not listing and page.locator(".media-empty").count() == 1)


class DeskPage(PanelPage):
    home = "/control/graphics"


def test_the_desk_takes_the_show_graphics_to_air(context: BrowserContext, panel_server: Server):
    desk = DeskPage(context.new_page(), panel_server).open()
    page = desk.page
    on_air = lambda: panel_server.api("GET", "/api/graphics")["graphics"]  # noqa: E731

    page.select_option("#slate-form [name=kind]", "break")
    page.select_option("#slate-form [name=clock]", "countdown")
    page.fill("#slate-form [name=clock_value]", "5")
    page.click('[data-action="slate-take"]')
    desk.saw_notice("ok")
    slate = on_air()["slate"]
    assert slate["data"]["kind"] == "break" and slate["data"]["ends_at"] - slate["shown_at"] == 300_000

    page.click("summary:has-text('Бегущая строка')")
    page.fill("#ticker-form [name=items]", "Первая новость\n\nВторая новость\n")
    page.click('[data-action="ticker-take"]')
    deadline = time.monotonic() + 10
    while "ticker" not in on_air() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert on_air()["ticker"]["data"]["items"] == ["Первая новость", "Вторая новость"]

    page.click("summary:has-text('Титры')")
    page.fill("#credits-form [name=names]", "Ведущий — Борис Крюк\nКлуб «Сова»")
    page.click('[data-action="credits-take"]')
    deadline = time.monotonic() + 10
    while "credits" not in on_air() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert on_air()["credits"]["data"]["names"] == [{"role": "Ведущий", "name": "Борис Крюк"}, {"name": "Клуб «Сова»"}]  # a plain line is a row with a name alone (overlay/schema)

    pic = panel_server.http.post(panel_server.url + "/api/media", files={"file": ("club.png", logo("#0f766e", "CLUB"))},
                                 timeout=30).json()
    page.click("summary:has-text('Логотип в углу')")
    expect(page.locator(f'#bug-form [name=media] option[value="{pic["id"]}"]')).to_have_count(1)
    page.select_option("#bug-form [name=media]", pic["id"])
    page.select_option("#bug-form [name=corner]", "bottom-left")
    page.click('[data-action="bug-take"]')
    deadline = time.monotonic() + 10
    while "bug" not in on_air() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert on_air()["bug"]["data"] == {"media": pic["id"], "corner": "bottom-left"}
    assert on_air()["bug"]["media"] == {pic["id"]: pic["url"]}

    for name in ("slate", "ticker", "credits", "bug"):
        page.click(f'[data-action="{name}-out"]')
    deadline = time.monotonic() + 10
    while set(on_air()) & {"slate", "ticker", "credits", "bug"} and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(on_air()) & {"slate", "ticker", "credits", "bug"}
    assert desk.errors == []
