"""The show graphics (bug, ticker, slate, credits, the photo strap) in the system Chromium against
a real server process: each comes in from `POST /api/graphics`, stays inside the safe area with
its text at 28 px or more, and moves as it should — the bug swaps a re-uploaded picture without a
stale or blank frame, the ticker advances every frame and an edit does not move it, the slate's
clock counts on server time, the credits resume where they are after a reload.

Screenshots go to $CHGK_SCREENSHOT_DIR when set (docs/screenshots), else to a temporary folder.
"""
from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import Page

from tests.browser.helpers import (SAFE, TRANSPARENT, WAIT_MS, Tab, backgrounds, screenshot, screenshot_dir, small_text,
                                   wait_js, wait_live, wait_off_air, wait_on_air)
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def logo(color: str, text: str, size: tuple[int, int] = (360, 140)) -> bytes:
    """A sponsor's logo: a rounded plate with a diagonal sheen and its name."""
    w, h = size
    base = Image.new("RGBA", size, color)
    sheen = Image.linear_gradient("L").rotate(45, expand=True).resize(size)
    plate = Image.composite(Image.new("RGBA", size, "white"), base, sheen.point(lambda v: v * 0.35))
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius=28, fill=255)
    im = Image.new("RGBA", size, (0, 0, 0, 0))
    im.paste(plate, (0, 0), mask)
    d = ImageDraw.Draw(im)
    d.ellipse((20, h // 2 - 40, 100, h // 2 + 40), outline="white", width=6)
    d.text((120, h // 2 - 24), text, fill="white", font_size=44)
    out = io.BytesIO()
    im.save(out, "PNG")
    return out.getvalue()


def upload(srv: Server, data: bytes, name: str = "logo.png", media_id: str | None = None) -> dict:
    method, path = ("PUT", f"/api/media/{media_id}") if media_id else ("POST", "/api/media")
    r = srv.http.request(method, srv.url + path, files={"file": (name, data)}, timeout=30)
    assert r.status_code in (200, 201), r.text
    return r.json()


def take(srv: Server, graphic: str, **data) -> dict:
    return srv.api("POST", "/api/graphics", {"action": "show", "graphic": graphic, "data": data})


def out(srv: Server, graphic: str) -> None:
    srv.api("POST", "/api/graphics", {"action": "hide", "graphic": graphic})


@pytest.fixture(scope="module")
def srv(shared_server: Server) -> Server:
    return shared_server


def settled(page: Page) -> None:
    """Entrances and exits (CSS transitions) have finished."""
    wait_js(page, "() => document.getAnimations().length === 0", timeout_ms=10_000)


def box_outside_safe(page: Page, selector: str) -> list[str]:
    settled(page)
    return page.evaluate("""([sel, safe]) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return (r.left < safe.left - 0.5 || r.top < safe.top - 0.5 || r.right > safe.right + 0.5
              || r.bottom > safe.bottom + 0.5) ? [`${sel}: ${r.left},${r.top} ${r.right},${r.bottom}`] : [];
    }""", [selector, SAFE])


# --- bug ------------------------------------------------------------------------------------------

# Every frame: which picture the bug shows, whether it is fully decoded, and what the server has
# announced (the URL the graphics message carries).
RECORD_BUG_JS = """() => {
  window.bugFrames = [];
  const el = document.querySelector("[data-part='bug']");
  const step = (ts) => {
    const front = el.querySelector('.bug-img.front');
    const entry = window.chgkOverlay.onAir.bug;
    window.bugFrames.push({ts, src: front ? front.getAttribute('src') : null,
      complete: !!front && front.complete, w: front ? front.naturalWidth : 0,
      announced: entry ? Object.values(entry.media || {})[0] || null : null,
      on: el.classList.contains('is-in')});
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}"""


def test_bug_shows_a_library_picture_and_a_re_upload_replaces_it_without_a_stale_frame(srv: Server, overlay: Tab):
    first = upload(srv, logo("#1d4ed8", "SPONSOR"))
    page = overlay.open(f"{srv.url}/overlays/bug")
    assert backgrounds(page) == TRANSPARENT
    take(srv, "bug", media=first["id"], corner="top-right")
    wait_on_air(page, "bug")
    wait_js(page, "url => document.querySelector('.bug-img.front').getAttribute('src') === url", first["url"])
    assert box_outside_safe(page, ".bug-img.front") == []
    page.evaluate(RECORD_BUG_JS)
    # a slow picture: the server holds the new file back, so the old one must stay until it is in
    page.route("**/media/*.png", lambda route: (time.sleep(0.4), route.continue_()))
    sent = time.monotonic()
    second = upload(srv, logo("#b91c1c", "NEW LOGO", (420, 140)), media_id=first["id"])
    assert second["url"] != first["url"]
    wait_js(page, "url => document.querySelector('.bug-img.front').getAttribute('src') === url", second["url"])
    shown_after = time.monotonic() - sent
    wait_js(page, "() => window.bugFrames.length > 5")
    frames = page.evaluate("window.bugFrames")
    # every frame shows a whole, decoded picture: never a blank or half-loaded one
    assert all(f["src"] and f["complete"] and f["w"] > 0 and f["on"] for f in frames), frames[:3]
    announced = next(i for i, f in enumerate(frames) if f["announced"] == second["url"])
    swapped = next(i for i, f in enumerate(frames) if f["src"] == second["url"])
    assert announced <= swapped
    # once the new picture is in, the old one never comes back
    assert all(f["src"] == second["url"] for f in frames[swapped:])
    print(f"bug: re-upload on air {shown_after * 1000:.0f} ms after the PUT (with 400 ms added to the download),"
          f" {frames[swapped]['ts'] - frames[announced]['ts']:.0f} ms after the announcement")
    page.unroute("**/media/*.png")
    # used while on air: a delete is refused
    assert srv.http.delete(f"{srv.url}/api/media/{first['id']}").status_code == 409
    out(srv, "bug")
    wait_off_air(page, "bug")


def test_bug_takes_a_url_and_any_corner_inside_the_safe_area(srv: Server, overlay: Tab, tmp_path: Path):
    pic = upload(srv, logo("#0f766e", "CLUB SOVA", (400, 150)))
    page = overlay.open(f"{srv.url}/overlays/bug")
    for corner in ("top-left", "bottom-right", "bottom-left", "top-right"):
        take(srv, "bug", media=srv.url + pic["url"], corner=corner, height=120)
        wait_on_air(page, "bug")
        wait_js(page, "c => document.querySelector(`[data-part='bug']`).classList.contains('corner-' + c)", corner)
        assert box_outside_safe(page, ".bug-img.front") == [], corner
    screenshot(page, screenshot_dir(tmp_path), "bug")
    out(srv, "bug")


def test_bug_refuses_data_without_a_picture(srv: Server):
    for data, words in (({}, "'media'"), ({"media": "m1", "corner": "middle"}, "'corner'"),
                        ({"media": "m1", "height": 5000}, "'height'")):
        r = srv.call("POST", "/api/graphics", {"action": "show", "graphic": "bug", "data": data})
        assert r.status_code == 400 and words in r.json()["error"]["message"], r.text


# --- ticker ---------------------------------------------------------------------------------------

RECORD_TICKER_JS = """() => {
  window.tk = {offsets: [], lefts: [], ts: []};
  const track = document.querySelector("[data-part='ticker'] .tk-track");
  const items = [...track.querySelectorAll('.tk-item')];
  // the first item wholly in the window: followed by its data-seq through the edit
  const win = document.querySelector('.tk-window').getBoundingClientRect();
  const seen = items.find(i => i.getBoundingClientRect().left > win.left + 10);
  window.tk.seq = seen.dataset.seq;
  const step = (ts) => {
    const m = /translate3d\\((-?[0-9.e+-]+)px/.exec(track.style.transform);
    window.tk.offsets.push(m ? -parseFloat(m[1]) : NaN);
    const el = track.querySelector(`[data-seq="${window.tk.seq}"]`);
    window.tk.lefts.push(el ? el.getBoundingClientRect().left : null);
    window.tk.ts.push(ts);
    if (window.tk.ts.length < 400) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}"""


def test_ticker_crawls_every_frame_and_an_edit_does_not_move_it(srv: Server, overlay: Tab, tmp_path: Path):
    page = overlay.open(f"{srv.url}/overlays/ticker")
    items = ["Следующая игра — 12 декабря, 19:00", "Клуб «Сова» ищет знатоков", "Финал сезона: 20 команд",
             "Спасибо зрителям за вопросы"]
    take(srv, "ticker", items=items, speed=180)
    wait_on_air(page, "ticker")
    # wait until the first item is well inside the window
    wait_js(page, "() => { const i = document.querySelector('.tk-item');"
                  " return i && i.getBoundingClientRect().left < 1400; }", timeout_ms=15_000)
    page.evaluate(RECORD_TICKER_JS)
    wait_js(page, "() => window.tk.ts.length > 120", timeout_ms=20_000)
    # an edit while the crawl runs: other texts, other speed
    take(srv, "ticker", items=["Новость вместо всех прежних", *items[2:]], speed=120)
    wait_js(page, "() => window.tk.ts.length >= 400", timeout_ms=30_000)
    tk = page.evaluate("window.tk")
    offsets, lefts, ts = tk["offsets"], tk["lefts"], tk["ts"]
    steps = [b - a for a, b in zip(offsets, offsets[1:])]
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    # the crawl advances every frame, never goes back, and never more than 100 ms of travel
    assert all(0 < s <= 180 * 0.1 + 0.01 for s in steps), [s for s in steps if not 0 < s <= 18.01][:5]
    # the followed item stayed and moved with the track: no jump at the edit
    assert all(x is not None for x in lefts)
    moves = [a - b for a, b in zip(lefts, lefts[1:])]
    assert all(abs(m - s) < 0.6 for m, s in zip(moves, steps)), [(m, s) for m, s in zip(moves, steps) if abs(m - s) >= 0.6][:5]
    smooth = sum(1 for g in gaps if g < 20) / len(gaps)
    print(f"ticker: {len(gaps)} frames, median frame {sorted(gaps)[len(gaps) // 2]:.1f} ms, {smooth:.0%} at 60 fps,"
          f" step {min(steps):.2f}–{max(steps):.2f} px")
    assert small_text(page) == []
    assert box_outside_safe(page, "[data-part='ticker']") == []
    # the new texts come in after those already crawling
    wait_js(page, "() => [...document.querySelectorAll('.tk-item')].some(i => i.textContent === 'Новость вместо всех прежних')",
            timeout_ms=60_000)
    screenshot(page, screenshot_dir(tmp_path), "ticker")
    out(srv, "ticker")
    wait_off_air(page, "ticker")


def test_ticker_refuses_an_empty_list(srv: Server):
    r = srv.call("POST", "/api/graphics", {"action": "show", "graphic": "ticker", "data": {"items": []}})
    assert r.status_code == 400 and "'items'" in r.json()["error"]["message"]


# --- slate ----------------------------------------------------------------------------------------

def time_text(page: Page) -> str:
    return page.eval_on_selector("[data-part='slate'] .sl-time", "el => el.textContent")


def test_slate_counts_down_on_server_time_and_a_reload_shows_the_same_second(srv: Server, overlay: Tab, tmp_path: Path):
    page = overlay.open(f"{srv.url}/overlays/slate")
    payload = take(srv, "slate", kind="soon", subtitle="Финал сезона · Клуб «Сова»", countdown_ms=5 * 60_000 + 500)
    data = payload["graphics"]["slate"]["data"]
    assert data["ends_at"] == payload["graphics"]["slate"]["shown_at"] + 5 * 60_000 + 500
    wait_on_air(page, "slate")
    assert page.eval_on_selector(".sl-title", "el => el.textContent") == "Скоро начнём"
    wait_js(page, "() => /^[45]:[0-5][0-9]$/.test(document.querySelector('.sl-time').textContent)")
    # the page shows the whole seconds left to ends_at by the server's clock
    left = page.evaluate("e => Math.ceil((e - window.chgkOverlay.clock.now()) / 1000)", data["ends_at"])
    m, s = time_text(page).split(":")
    assert abs(int(m) * 60 + int(s) - left) <= 1
    assert box_outside_safe(page, ".sl-body") == []
    assert small_text(page) == []
    screenshot(page, screenshot_dir(tmp_path), "slate")
    page.reload()
    wait_live(page)
    wait_on_air(page, "slate")
    left = page.evaluate("e => Math.ceil((e - window.chgkOverlay.clock.now()) / 1000)", data["ends_at"])
    m, s = time_text(page).split(":")
    assert abs(int(m) * 60 + int(s) - left) <= 1


def test_slate_count_up_stops_at_its_limit(srv: Server, overlay: Tab):
    page = overlay.open(f"{srv.url}/overlays/slate?lang=uk")
    bg = upload(srv, portrait(), "hall.jpg")
    payload = take(srv, "slate", kind="break", count_up=True, limit_ms=2000, background=bg["id"])
    assert payload["graphics"]["slate"]["data"]["starts_at"] == payload["graphics"]["slate"]["shown_at"]
    wait_on_air(page, "slate")
    assert page.eval_on_selector(".sl-title", "el => el.textContent") == "Перерва"
    wait_js(page, "url => { const i = document.querySelector('.sl-bg'); return i.getAttribute('src') === url"
                  " && i.classList.contains('loaded') && i.naturalWidth > 0; }", bg["url"], 10_000)
    wait_js(page, "() => document.querySelector('[data-part=slate]').classList.contains('at-end')", timeout_ms=10_000)
    assert time_text(page) == "0:02"
    page.wait_for_timeout(1200)
    assert time_text(page) == "0:02"


def test_slate_counts_down_to_a_time_of_day(srv: Server, overlay: Tab):
    page = overlay.open(f"{srv.url}/overlays/slate?lang=en")
    local = time.localtime(time.time() + 2 * 3600)
    payload = take(srv, "slate", title="Round 2", until=f"{local.tm_hour:02d}:{local.tm_min:02d}")
    ends_at = payload["graphics"]["slate"]["data"]["ends_at"]
    assert 2 * 3600_000 - 60_000 <= ends_at - payload["graphics"]["slate"]["shown_at"] <= 2 * 3600_000
    wait_on_air(page, "slate")
    wait_js(page, "() => /^[12]:[0-5][0-9]:[0-5][0-9]$/.test(document.querySelector('.sl-time').textContent)")
    assert page.eval_on_selector(".sl-clock-label", "el => el.textContent") == "Starting in"
    for bad in ({"until": "25:00"}, {"until": "19:30", "countdown_ms": 1000}, {"kind": "party"}):
        r = srv.call("POST", "/api/graphics", {"action": "show", "graphic": "slate", "data": bad})
        assert r.status_code == 400, bad
    out(srv, "slate")


# --- credits --------------------------------------------------------------------------------------

NAMES = [{"role": "Ведущий", "name": "Борис Крюк"}, {"role": "Режиссёр", "name": "Анна Лебедева"},
         {"role": "Редактор вопросов", "name": "Дмитрий Коваль"}, {"role": "Графика", "name": "chgk-overlay"},
         {"role": "Звук", "name": "Олег Мороз"}, "Клуб «Сова»", "и все телезрители, приславшие вопросы"]


ROLL_Y_JS = "() => new DOMMatrix(getComputedStyle(document.querySelector('.cr-roll')).transform).m42"


def roll_y(page: Page) -> float:
    return page.evaluate(ROLL_Y_JS)


def test_credits_roll_up_and_resume_where_they_are_after_a_reload(srv: Server, overlay: Tab, tmp_path: Path):
    page = overlay.open(f"{srv.url}/overlays/credits")
    payload = take(srv, "credits", names=NAMES, speed=200)
    shown_at = payload["graphics"]["credits"]["shown_at"]
    wait_on_air(page, "credits")
    wait_js(page, "() => document.querySelectorAll('.cr-row').length === 7")
    # the page's second clock round is done (3 s after it connected): a better sample adopted then
    # steps the server clock the roll follows, and on a loaded machine the first round's sample may
    # be 100–200 ms off (a 20–40 px step back: the one chance failure of a full run)
    wait_js(page, "() => window.chgkOverlay.clock.rounds >= 2")
    # rising: five readings, each in a frame after the one before, until the roll has moved
    ys = [roll_y(page)]
    deadline = time.monotonic() + WAIT_MS / 1000
    while len(ys) < 5 or ys[-1] >= ys[0] - 20:
        assert time.monotonic() < deadline, ys
        ys.append(page.evaluate(f"() => new Promise(r => requestAnimationFrame(() => r(({ROLL_Y_JS})())))"))
    assert all(b <= a for a, b in zip(ys, ys[1:])), ys
    # the place is the server time since the roll was taken × speed, read in one frame (after the
    # roll's own callback: it was asked for first) with the clock's reading of that frame
    height = page.eval_on_selector(".cr-window", "el => el.clientHeight")
    y, now = page.evaluate(f"() => new Promise(r => requestAnimationFrame(() => r([({ROLL_Y_JS})(), window.chgkOverlay.clock.now()])))")
    assert height - (now - shown_at) * 0.2 - 1 <= y <= height - (now - 1000 - shown_at) * 0.2, (y, now - shown_at)
    wait_js(page, "() => new DOMMatrix(getComputedStyle(document.querySelector('.cr-roll')).transform).m42 < 300",
            timeout_ms=15_000)
    assert small_text(page) == []
    screenshot(page, screenshot_dir(tmp_path), "credits")
    before = roll_y(page)
    page.reload()
    wait_live(page)
    wait_on_air(page, "credits")
    after = roll_y(page)
    assert after < before  # resumed further on, not from the bottom
    out(srv, "credits")


# --- the photo strap ------------------------------------------------------------------------------

def portrait() -> bytes:
    im = Image.new("RGB", (300, 300), "#5b6f8f")
    d = ImageDraw.Draw(im)
    d.ellipse((95, 50, 205, 170), fill="#e9d3bf")
    d.pieslice((40, 180, 260, 420), 180, 360, fill="#8a2f3c")
    out = io.BytesIO()
    im.save(out, "JPEG")
    return out.getvalue()


def test_strap_second_style_has_two_lines_and_a_photo(srv: Server, overlay: Tab, tmp_path: Path):
    pic = upload(srv, portrait(), "captain.jpg")
    page = overlay.open(f"{srv.url}/overlays/lower-third")
    take(srv, "lower-third", style="photo", photo=pic["id"], title="Борис Крюк",
         subtitle="Капитан команды «Сова», шестой сезон за столом")
    wait_on_air(page, "lower-third")
    wait_js(page, "url => { const i = document.querySelector('.lt-photo'); return i.getAttribute('src') === url"
                  " && i.complete && i.naturalWidth > 0; }", pic["url"])
    assert "style-photo" in page.get_attribute("[data-part='lower-third']", "class")
    assert box_outside_safe(page, ".lt-strap") == []
    assert small_text(page) == []
    screenshot(page, screenshot_dir(tmp_path), "lower-third-photo")
    # the plain style has no photo
    take(srv, "lower-third", title="Ведущий", subtitle="Борис Крюк")
    wait_js(page, "() => !document.querySelector('[data-part=lower-third]').classList.contains('style-photo')")
    out(srv, "lower-third")


# --- a library picture as a question author's photo -----------------------------------------------

def test_an_author_photo_from_the_library_follows_a_re_upload(srv: Server, overlay: Tab):
    pic = upload(srv, portrait(), "viewer.jpg")
    q = {"text": "Этот прибор сначала называли термоскопом. Как мы называем его сегодня?", "answer": "Термометр",
         "author": {"name": "Иван Петров", "city": "Харьков", "photo": pic["id"]}}
    game = srv.create({"rules": "tv", "title": "Фото из медиатеки",
                       "sectors": [{"number": 1, "kind": "regular", "questions": [q]}]}, on_air=True)
    srv.play(game, "spin", landed=1)
    page = overlay.open(f"{srv.url}/overlays/question?game={game}")
    loaded = ("url => { const i = document.querySelector('[data-part=question] [data-ref=photo]');"
              " return i.getAttribute('src') === url && i.complete && i.naturalWidth > 0; }")
    wait_js(page, loaded, pic["url"], 10_000)
    im = Image.new("RGB", (300, 300), "#2f5d3a")
    buf = io.BytesIO()
    im.save(buf, "JPEG")
    new = upload(srv, buf.getvalue(), "viewer-2.jpg", media_id=pic["id"])
    wait_js(page, loaded, new["url"], 10_000)
