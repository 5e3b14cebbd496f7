"""Issue 22, defect 3: the rundown's output draws the pictures its items name by media id. A bug
and a photo strap taken from a rundown, each naming a library picture of a known colour by its
id, are read back from the pixels Chromium draws — on `/overlays/show`, after its reload, and in
the desk's program and preview monitors (the same page in iframes) — not from an <img> being
present.
"""
from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from PIL import Image
from playwright.sync_api import Browser, Frame, Page

from tests.browser.helpers import WAIT_MS, Tab, settle, wait_live
from tests.browser.test_rundown import Desk
from tests.support import Server, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUG_RGB = (214, 32, 140)    # a colour nothing else on air has
PHOTO_RGB = (24, 170, 96)


def solid_png(rgb: tuple[int, int, int], size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, rgb).save(out, "PNG")
    return out.getvalue()


def upload(srv: Server, data: bytes, name: str) -> str:
    r = srv.http.post(srv.url + "/api/media", files={"file": (name, data)}, timeout=30)
    assert r.status_code in (200, 201), r.text
    return r.json()["id"]


def close(a: tuple[int, ...], b: tuple[int, ...], tol: int = 12) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a[:3], b[:3]))


# The centre of a picture's box, in the top window's CSS pixels (an iframe's offset added).
CENTRE_JS = """sel => { const el = document.querySelector(sel); const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2]; }"""


def drawn_at(page: Page, x: float, y: float) -> tuple[int, ...]:
    """The colour Chromium drew at (x, y) of the page's viewport."""
    shot = page.screenshot(clip={"x": max(0, x - 2), "y": max(0, y - 2), "width": 5, "height": 5})
    return Image.open(io.BytesIO(shot)).convert("RGB").getpixel((2, 2))


def centre(page: Page, frame: Frame | None, selector: str) -> tuple[float, float]:
    x, y = (frame or page.main_frame).evaluate(CENTRE_JS, selector)
    if frame is not None:
        box = frame.frame_element().bounding_box()
        x, y = x + box["x"], y + box["y"]
    return x, y


def wait_drawn(page: Page, frame: Frame | None, selector: str, rgb: tuple[int, int, int], what: str) -> None:
    """Waits until the picture's colour is drawn at the centre of `selector`'s box."""
    seen: list[tuple[int, ...]] = []

    def check() -> bool:
        seen.append(drawn_at(page, *centre(page, frame, selector)))
        return close(seen[-1], rgb)

    try:
        wait_for(check, timeout=WAIT_MS / 1000, what=what)
    except Exception as exc:
        raise AssertionError(f"{what}: drew {seen[-1]} instead of {rgb}") from exc


def show_ready(tab: Tab, url: str) -> Page:
    return tab.open(url)


BUG = "[data-part='bug'] .bug-box"
PHOTO = "[data-part='lower-third'] .lt-photo"


def test_pictures_named_by_media_id_are_drawn_on_the_show_output_and_the_desk_monitors(
        server_factory: Callable[..., Server], chromium: Browser) -> None:
    srv = server_factory().start()
    logo = upload(srv, solid_png(BUG_RGB, (320, 160)), "logo.png")
    face = upload(srv, solid_png(PHOTO_RGB, (300, 300)), "face.png")
    rid = srv.api("POST", "/api/rundowns", {"name": "Картинки"})["id"]
    for body in ({"label": "Логотип", "graphic": "bug", "layer": "bug",
                  "data": {"media": logo, "corner": "top-left", "height": 160}},
                 {"label": "Капитан", "graphic": "lower-third", "layer": "straps",
                  "data": {"style": "photo", "photo": face, "title": "Анна Лебедева", "subtitle": "капитан"}}):
        srv.api("POST", f"/api/rundowns/{rid}/items", body)

    def act(action: str, item: str) -> None:
        srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": action, "item": item})

    act("take", "Логотип")
    act("take", "Капитан")
    output = Tab(chromium)
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    try:
        page = show_ready(output, f"{srv.url}/overlays/show")
        wait_drawn(page, None, BUG, BUG_RGB, "the bug on /overlays/show")
        wait_drawn(page, None, PHOTO, PHOTO_RGB, "the strap's photo on /overlays/show")
        # the bug's box is where the item puts it: the safe area's top-left corner, 160 px high
        assert close(drawn_at(page, 96 + 160, 54 + 80), BUG_RGB)
        settle(page)
        page.reload()
        wait_live(page)
        wait_drawn(page, None, BUG, BUG_RGB, "the bug after a reload")
        wait_drawn(page, None, PHOTO, PHOTO_RGB, "the photo after a reload")

        # the desk: its program monitor draws both; the preview monitor the focused bug
        act("focus", "Логотип")
        desk = Desk(ctx.new_page(), srv).open()
        program = desk.page.frame_locator("#rd-program-frame")
        program.locator("body.ready").wait_for(state="attached", timeout=WAIT_MS)
        frame = desk.page.frame(url=lambda u: u.endswith("/overlays/show"))
        preview = desk.page.frame(url=lambda u: u.endswith("/overlays/show?preview=1"))
        desk.page.locator("#rd-program-frame").scroll_into_view_if_needed()
        wait_drawn(desk.page, frame, BUG, BUG_RGB, "the bug in the desk's program monitor")
        wait_drawn(desk.page, frame, PHOTO, PHOTO_RGB, "the photo in the desk's program monitor")
        wait_drawn(desk.page, preview, BUG, BUG_RGB, "the bug in the desk's preview monitor")
        assert output.errors == [], output.errors
    finally:
        ctx.close()
        output.close()
