"""Page helpers shared by the browser tests: an overlay tab that records what goes wrong in it,
checks of what is on air, of text size and of the safe area, screenshots, and the operator
panel's page (login, revs, buttons, notices)."""
from __future__ import annotations

import base64
import os
import time
from pathlib import Path
from typing import Any, Self

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Locator, Page, Request, expect

from tests.support import QUICK_SPIN, Server  # noqa: F401 - QUICK_SPIN: the browser tests import it from here

# 90 % of a 1920×1080 frame
SAFE = {"left": 96, "top": 54, "right": 1824, "bottom": 1026}
TRANSPARENT = ["rgba(0, 0, 0, 0)"] * 3
STUDIO_BACKDROP = "html { background: #262a3b !important; }"

# How long a page may take to show what it was sent. Waits end as soon as their condition holds,
# so a generous bound costs nothing on a quiet machine and keeps a loaded 2-core one green.
WAIT_MS = 10_000


# --- overlays ------------------------------------------------------------------------------------

class Tab:
    """A 1920×1080 page that records console errors and warnings, page errors, failed requests.
    `context`: a 1920×1080 context the page opens in (and stays open after it), shared by a
    module's tabs as OBS's browser sources share one — each page still starts its own renderer,
    and the context's own start, a first page's largest cost, is paid once."""

    def __init__(self, browser: Browser, context: BrowserContext | None = None) -> None:
        self.shared = context is not None
        self.context = context or browser.new_context(viewport={"width": 1920, "height": 1080})
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append(f"HTTP {r.status}: {r.url}"))

    def _failed(self, request: Request) -> None:
        # ERR_ABORTED: the page itself cancelled the request (a reload or a navigation while a font
        # was loading); a file that is missing answers 404, which `response` records
        if request.failure != "net::ERR_ABORTED":
            self.errors.append(f"requestfailed: {request.url} {request.failure}")

    def _console(self, msg: ConsoleMessage) -> None:
        if msg.type in ("error", "warning"):
            self.errors.append(f"console.{msg.type}: {msg.text}")

    def open(self, url: str, timeout_ms: int = WAIT_MS) -> Page:
        """Opens an overlay and waits until it is ready and its stage has gone live."""
        self.page.goto(url)
        wait_live(self.page, timeout_ms)
        return self.page

    def close(self) -> None:
        (self.page if self.shared else self.context).close()


# How often a wait reads its condition: every 30 ms (two frames at 60 Hz), on a timer. Polled on
# animation frames (Playwright's default), a page with nothing moving draws 60 frames a second for
# as long as the test waits: ~0.09 of a core in Chromium's renderer and GPU processes, measured.
# A wait that counts frames (wait_still) still polls on them.
POLL_MS = 30


# Every finite animation and transition on the page has finished; infinite ones (a pulsing light)
# may go on.
SETTLED_JS = ("() => document.getAnimations().every(a => a.playState !== 'running'"
              " || a.effect?.getComputedTiming().iterations === Infinity)")


# The page has drawn its round revealed: the top's arrow has stopped (round.reveal_at, server time)
# and the shared client has drawn the state again (body[data-revealed], static/lib/client.js).
REVEALED_JS = ("() => { const o = window.chgkOverlay; const at = o?.state?.round?.reveal_at;"
               " return !!o && (!Number.isFinite(at) || document.body.dataset.revealed === String(at)); }")


def wait_revealed(page: Page, timeout_ms: int = WAIT_MS) -> None:
    """Waits until the page's round may be drawn (after a spin, once the arrow has stopped)."""
    wait_js(page, REVEALED_JS, timeout_ms=timeout_ms)


def wait_js(page: Page, expr: str, arg: Any = None, timeout_ms: int = WAIT_MS,
            polling: int | str = POLL_MS) -> None:
    page.wait_for_function(expr, arg=arg, timeout=timeout_ms, polling=polling)


# The shared client's page is ready (fonts loaded) and its stage live (two frames after ready:
# before that no entrance has begun to be waited on). static/lib/client.js `reveal`, `play`.
LIVE_JS = "document.body.classList.contains('ready') && document.getElementById('stage').classList.contains('live')"


def wait_live(page: Page, timeout_ms: int = WAIT_MS) -> None:
    """Waits, after a goto or a reload, until the overlay is ready and its stage live."""
    wait_js(page, LIVE_JS, timeout_ms=timeout_ms)


class StaticFetches:
    """Which of a page's static files the browser's cache answered and which it fetched, seen
    through DevTools' Network domain (overlay/web/assets.py makes a reload fetch none)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.sent: dict[str, str] = {}  # request id → address
        self.cached: set[str] = set()  # answered by the cache
        self.answered: set[str] = set()  # a response, from the cache or the server (after `cached`'s event)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", lambda e: self.sent.__setitem__(e["requestId"], e["request"]["url"]))
        cdp.on("Network.requestServedFromCache", lambda e: self.cached.add(e["requestId"]))
        cdp.on("Network.responseReceived", lambda e: (
            e["response"].get("fromDiskCache") and self.cached.add(e["requestId"]), self.answered.add(e["requestId"])))

    def reset(self) -> None:
        self.sent.clear()
        self.cached.clear()
        self.answered.clear()

    def statics(self, timeout_ms: int = WAIT_MS) -> dict[str, str]:
        """The static requests since `reset`, once each has its response (the protocol's events
        arrive apart from the page's, and only while Playwright runs)."""
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            statics = {rid: url for rid, url in self.sent.items() if "/static/" in url}
            if set(statics) <= self.answered:
                return statics
            assert time.monotonic() < deadline, {statics[r] for r in set(statics) - self.answered}
            self.page.wait_for_timeout(20)

    def fetched(self, timeout_ms: int = WAIT_MS) -> list[str]:
        """The static files since `reset` that went to the server."""
        return sorted(url for rid, url in self.statics(timeout_ms).items() if rid not in self.cached)


def settle(page: Page, timeout_ms: int = WAIT_MS) -> None:
    """Waits for entrances and exits to finish (wait first for what should start them)."""
    wait_js(page, SETTLED_JS, timeout_ms=timeout_ms)


# Whether every box `sel` matches is where it was in the previous animation frames (position, size
# and opacity), and none of them has an animation running. Polled once a frame (polling "raf"):
# `window.__still[sel]` counts the frames in a row the boxes have not moved.
STILL_JS = """sel => {
  const els = [...document.querySelectorAll(sel)];
  const now = JSON.stringify(els.map(e => { const r = e.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height, getComputedStyle(e).opacity]; }));
  const still = (window.__still ??= {});
  const was = still[sel];
  still[sel] = { boxes: now, frames: was && was.boxes === now ? was.frames + 1 : 0 };
  return still[sel].frames >= 2 && els.length > 0
    && els.every(e => e.getAnimations().every(a => a.playState !== 'running'));
}"""


def wait_still(page: Page, selector: str, timeout_ms: int = WAIT_MS) -> None:
    """Waits until what `selector` matches has stopped moving: the same boxes and opacity over two
    animation frames and no animation of theirs running (a reorder, a slide, a fade has ended).
    Read a position, size or opacity only after this (or settle), never while something moves."""
    page.evaluate("sel => { if (window.__still) delete window.__still[sel]; }", selector)
    wait_js(page, STILL_JS, selector, timeout_ms, polling="raf")


def text_of(page: Page, selector: str) -> str:
    return page.eval_on_selector(selector, "el => el.textContent")


def backgrounds(page: Page) -> list[str]:
    """The background colours of html, body and the stage (TRANSPARENT for an overlay)."""
    return page.evaluate("() => [document.documentElement, document.body, document.getElementById('stage')]"
                         ".map(el => getComputedStyle(el).backgroundColor)")


# A part is on air when it has content, the stage is live and the operator has not hidden it.
ON_AIR_JS = ("sel => { const el = document.querySelector(sel); return !!el && el.classList.contains('is-in')"
             " && !el.classList.contains('op-hidden') && !!el.closest('.live'); }")
OFF_AIR_JS = ("sel => { const el = document.querySelector(sel); return !el.classList.contains('is-in')"
              " || el.classList.contains('op-hidden') || !el.closest('.live'); }")


def part(name: str) -> str:
    return f"[data-part='{name}']"


def on_air(page: Page, name: str) -> bool:
    """Whether part `name` is on air now; the part must exist."""
    return page.eval_on_selector(
        part(name), "el => el.classList.contains('is-in') && !el.classList.contains('op-hidden') "
                    "&& !!el.closest('.live')")


def wait_on_air(page: Page, name: str, timeout_ms: int = WAIT_MS) -> None:
    wait_js(page, ON_AIR_JS, part(name), timeout_ms)


def wait_off_air(page: Page, name: str, timeout_ms: int = WAIT_MS) -> None:
    wait_js(page, OFF_AIR_JS, part(name), timeout_ms)


SMALL_TEXT_JS = """() => {
  const small = [];
  const walker = document.createTreeWalker(document.getElementById('stage'), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    let shown = true;
    for (let a = el; a; a = a.parentElement) if (getComputedStyle(a).opacity === '0') { shown = false; break; }
    if (!shown) continue;
    let px = parseFloat(cs.fontSize);
    if (el instanceof SVGElement) px *= el.getScreenCTM().a;
    if (px < 27.5) small.push(`${n.textContent.trim()} @ ${px.toFixed(1)}px`);
  }
  return small;
}"""

# Full-screen graphics may cover the frame with their backdrop: their content box (the result's
# body, the best player's body) must be safe, and so must every tile, row, chip and panel.
OUTSIDE_SAFE_AREA_JS = """(safe) => {
  const out = [];
  const where = q => `${Math.round(q.left)},${Math.round(q.top)} ${Math.round(q.right)},${Math.round(q.bottom)}`;
  for (const el of document.querySelectorAll('.gfx.is-in')) {
    const box = el.matches('.rs') ? el.querySelector('.rs-body') : (el.querySelector('.bp-body') || el);
    const r = box.getBoundingClientRect();
    if (r.left < safe.left - 0.5 || r.top < safe.top - 0.5 || r.right > safe.right + 0.5 || r.bottom > safe.bottom + 0.5)
      out.push(`${el.dataset.part}: ${where(r)}`);
    for (const t of el.querySelectorAll('.ctb-tile, .gr-row, .dr-chip, .ct-panel')) {
      const q = t.getBoundingClientRect();
      if (q.width && (q.left < safe.left - 0.5 || q.right > safe.right + 0.5 || q.bottom > safe.bottom + 0.5))
        out.push(`${el.dataset.part} ${t.className}: ${where(q)}`);
    }
  }
  return out;
}"""


def small_text(page: Page) -> list[str]:
    """Visible text on the stage set under 28 px (SVG text as drawn on screen)."""
    return page.evaluate(SMALL_TEXT_JS)


def outside_safe_area(page: Page) -> list[str]:
    return page.evaluate(OUTSIDE_SAFE_AREA_JS, SAFE)


def transparent_png(page: Page) -> bytes:
    """What the page draws now over no background, as a PNG: Chromium's capture through the
    page's own DevTools session with its fast encoder (`optimizeForSpeed`: less compression, the
    same pixels; Chromium 103 ignores the option). For checks that capture often: Playwright's
    screenshot takes the default compression and sets and clears the background around each."""
    cdp = getattr(page, "_png_cdp", None)
    if cdp is None:
        cdp = page._png_cdp = page.context.new_cdp_session(page)  # type: ignore[attr-defined]
    # each time: Playwright's own screenshots clear this override when they are done
    cdp.send("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    return base64.b64decode(cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})["data"])


def screenshot_dir(tmp_path: Path) -> Path:
    """$CHGK_SCREENSHOT_DIR when set (e.g. docs/screenshots), else a temporary folder."""
    out = Path(os.environ.get("CHGK_SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def screenshot(page: Page, out: Path, name: str) -> None:
    """The page over a studio-coloured backdrop, as `name`.png; a blank picture fails."""
    page.add_style_tag(content=STUDIO_BACKDROP)
    target = out / f"{name}.png"
    page.screenshot(path=str(target))
    assert target.stat().st_size > 20_000


# --- the operator panel --------------------------------------------------------------------------

# Every notice a panel page shows, recorded as it appears: a notice that lasts 1.5 s may be gone
# before a loaded machine looks, so tests ask whether it was shown (PanelPage.saw_notice).
NOTICES_JS = """(() => { window.__notices = [];
  new MutationObserver(() => document.querySelectorAll('.notice').forEach((n) => {
    const seen = {code: n.dataset.code || '', kind: n.dataset.kind || '', text: n.textContent};
    if (!window.__notices.some((o) => o.code === seen.code && o.text === seen.text)) window.__notices.push(seen);
  })).observe(document, {childList: true, subtree: true, characterData: true}); })()"""


class PanelPage:
    """One panel page: logs in if asked, records page errors and console errors (those that
    `expected` does not excuse) and every notice shown, waits for revs, finds buttons and notices."""

    home = "/control/"

    def __init__(self, page: Page, server: Server) -> None:
        self.page, self.server = page, server
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("console", self._console)
        page.add_init_script(NOTICES_JS)

    def expected(self, message: ConsoleMessage) -> bool:
        return False

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and not self.expected(message):
            url = (message.location or {}).get("url", "")
            self.errors.append(f"console: {message.text} ({url})")

    def open(self, path: str | None = None) -> Self:
        self.page.goto(self.server.url + (path or self.home))
        if self.page.locator("input[name=password]").count():
            self.page.fill("input[name=password]", self.server.password)
            self.page.click("button[type=submit]")
        expect(self.page.locator("body")).to_have_attribute("data-connection", "connected")
        return self

    def wait_rev(self, rev: int, game: str | None = None, at_least: bool = False) -> None:
        """The panel shows `rev` (or a later one, `at_least`: a running clock may record a time-up
        before a loaded machine looks) and it has been on screen long enough to act on."""
        wait_js(self.page, "([rev, later]) => later ? Number(document.body?.dataset.basisRev) >= rev"
                " : document.body?.dataset.basisRev === String(rev)", [rev, at_least], timeout_ms=30_000)
        if game:
            expect(self.page.locator("body")).to_have_attribute("data-game", game)

    def click(self, target: Locator, *, rev: int) -> None:
        """Clicks `target`, then waits until the panel shows `rev`: the change the click made."""
        target.click()
        self.wait_rev(rev)

    def button(self, action: str) -> Locator:
        return self.page.locator(f'button[data-action="{action}"]')

    def expect_disabled(self, action: str, why: str) -> None:
        """The button is disabled and says why, in the server's words."""
        expect(self.button(action)).to_be_disabled()
        expect(self.button(action).locator(".why")).to_have_text(why)

    def notice(self, code: str) -> Locator:
        return self.page.locator(f'.notice[data-code="{code}"]')

    def saw_notice(self, code: str = "", text: str = "", kind: str = "", timeout_ms: int = WAIT_MS) -> None:
        """Waits until the page has shown a notice with this code (kind, words), even if it is gone."""
        wait_js(self.page, """([code, text, kind]) => (window.__notices || []).some((n) =>
            (!code || n.code === code) && (!kind || n.kind === kind) && n.text.includes(text))""",
                [code, text, kind], timeout_ms)


def assert_big_touch_targets(*locators: Locator) -> None:
    """Usable with a finger: 56 px or more each way."""
    for locator in locators:
        box = locator.bounding_box()
        assert box and box["height"] >= 56 and box["width"] >= 56, (locator, box)


def fits_the_screen(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def press_twice(page: Page, key: str, code: str, keycode: int, apart_ms: float, late_ms: float = 0) -> None:
    """The same key pressed twice `apart_ms` apart by the events' own clock (CDP's `timestamp`, which
    becomes the event's `timeStamp`): the page knows when each was pressed however late a loaded
    machine delivers them — as an operator's real keys carry the time they were pressed. `late_ms`:
    the second is delivered that much later than the first (a page busy drawing)."""
    cdp = page.context.new_cdp_session(page)
    key_of = {"key": key, "code": code, "windowsVirtualKeyCode": keycode}

    def press(at: float) -> None:
        cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": key, "timestamp": at, **key_of})
        cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "timestamp": at + 0.001, **key_of})
    try:
        first = time.time()
        press(first)
        time.sleep(late_ms / 1000)  # a late delivery on purpose: the thing under test
        press(first + apart_ms / 1000)
    finally:
        cdp.detach()
