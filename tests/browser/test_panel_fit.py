"""The panel's screens at 1366×900 in every language: Russian, Ukrainian, English and the
pseudo-locale (`qps`, the English text accented and bracketed, about 30 % longer) — Ukrainian and
English run longer than Russian in places. On the tv screen mid-round, the club screen after a
lost round, the rundown desk, the media library and the league's admin pages: no horizontal
scroll, no text cut (clipped by an `overflow` box or an ellipsis, spilling out of its box or out of
the window), no text drawn over another. One server and one browser for the module; the
screenshots of each screen in uk and en go to $CHGK_SCREENSHOT_DIR when it is set
(`CHGK_SCREENSHOT_DIR=docs/screenshots python -m pytest tests/browser/test_panel_fit.py`).
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect

from overlay.i18n import PSEUDO
from tests.browser.helpers import PanelPage, screenshot_dir, settle
from tests.browser.test_panel_club import club_spec
from tests.media.test_media_api import png
from tests.season.helpers import approved_members, club_game, ok, play_club, play_tv, tv_game
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LANGS = ("ru", "uk", "en", PSEUDO)
SIZE = {"width": 1366, "height": 900}

# What does not fit, as "where: what" lines. Every visible element holding text: clipped by its
# own overflow (hidden, clip, or a scroll box wider than itself), or drawn with an ellipsis that
# truncates; every line of text: out of the window sideways, spilling out of the box it sits in,
# or over another text; the page: wider than the window.
MISFITS_JS = r"""() => {
  const out = [];
  const de = document.documentElement;
  if (de.scrollWidth > de.clientWidth) out.push(`page: scrolls sideways (${de.scrollWidth} > ${de.clientWidth})`);
  const where = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const cls = [...el.classList].slice(0, 2).map(c => `.${c}`).join('');
    return `${el.tagName.toLowerCase()}${id}${cls}`;
  };
  const shown = (el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  const say = (el) => el.textContent.trim().replace(/\s+/g, ' ').slice(0, 60);
  // boxes clipped by overflow: hidden / clip (either axis) or a scroll box wider than itself
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('script, style, template, svg, iframe, .sr-only') || !/\p{L}/u.test(el.textContent)) continue;
    if (['SELECT', 'OPTION', 'TEXTAREA', 'INPUT'].includes(el.tagName) || !shown(el)) continue;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    if (cs.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1)
      out.push(`${where(el)}: cut sideways (${el.scrollWidth} > ${el.clientWidth}) «${say(el)}»`);
    else if (['hidden', 'clip'].includes(cs.overflowY) && el.scrollHeight > el.clientHeight + 1)
      out.push(`${where(el)}: cut below (${el.scrollHeight} > ${el.clientHeight}) «${say(el)}»`);
  }
  // a select shows its chosen option whole
  const ctx = document.createElement('canvas').getContext('2d');
  for (const el of document.querySelectorAll('select')) {
    if (!shown(el) || el.multiple || el.selectedIndex < 0) continue;
    const cs = getComputedStyle(el);
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const text = el.options[el.selectedIndex].text;
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 14;  // the arrow
    if (ctx.measureText(text).width > room + 1) out.push(`${where(el)}: option cut «${text}»`);
  }
  // an empty field shows its placeholder whole (one line: an input; a textarea wraps)
  for (const el of document.querySelectorAll('input[placeholder]')) {
    if (!shown(el) || el.value) continue;
    const cs = getComputedStyle(el);
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - (el.list ? 24 : 0);  // a datalist's arrow
    if (ctx.measureText(el.placeholder).width > room + 1) out.push(`${where(el)}: placeholder cut «${el.placeholder}»`);
  }
  // the part of a rect its clipping ancestors (overflow other than visible) let be drawn
  const seen = (el, r) => {
    let [l, t, rr, bb] = [r.left, r.top, r.right, r.bottom];
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      const cl = c.left + a.clientLeft, ct = c.top + a.clientTop;
      if (cs.overflowX !== 'visible') { l = Math.max(l, cl); rr = Math.min(rr, cl + a.clientWidth); }
      if (cs.overflowY !== 'visible') { t = Math.max(t, ct); bb = Math.min(bb, ct + a.clientHeight); }
      if (rr - l < 1 || bb - t < 1) return null;
    }
    return { left: l, top: t, right: rr, bottom: bb, width: rr - l, height: bb - t };
  };
  // every line of text: in the window, inside its box, over no other text
  const lines = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || !/\p{L}|\d/u.test(node.data) || el.closest('script, style, template, iframe, option, .sr-only') || !shown(el)) continue;
    let box = el;   // the box the text is laid out in: its nearest ancestor that is not inline
    while (box.parentElement && getComputedStyle(box).display.startsWith('inline') && getComputedStyle(box).display !== 'inline-block'
           && getComputedStyle(box).display !== 'inline-flex' && getComputedStyle(box).display !== 'inline-grid') box = box.parentElement;
    const b = box.getBoundingClientRect();
    const lead = Math.max(3, 0.3 * parseFloat(getComputedStyle(el).fontSize));
    range.selectNodeContents(node);
    for (const whole of range.getClientRects()) {
      const r = seen(el, whole);   // a line scrolled out of a scroll box is not drawn: it scrolls
      if (!r || r.width < 1 || r.height < 1) continue;
      if (r.right > innerWidth + 0.5 || r.left < -0.5)
        out.push(`${where(el)}: out of the window «${node.data.trim().slice(0, 60)}»`);
      // (up and down, a glyph's box may pass a tight line-height by the font's own leading)
      else if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - lead || r.bottom > b.bottom + lead)
        out.push(`${where(el)}: spills out of ${where(box)} (${[r.left, r.top, r.right, r.bottom].map(Math.round)} in ${[b.left, b.top, b.right, b.bottom].map(Math.round)}) «${node.data.trim().slice(0, 60)}»`);
      lines.push({ el, r, text: node.data.trim().slice(0, 40) });
    }
  }
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i], c = lines[j];
      if (a.el === c.el) continue;
      const w = Math.min(a.r.right, c.r.right) - Math.max(a.r.left, c.r.left);
      const h = Math.min(a.r.bottom, c.r.bottom) - Math.max(a.r.top, c.r.top);
      if (w > 2 && h > Math.min(a.r.height, c.r.height) / 3)
        out.push(`${where(a.el)} «${a.text}» over ${where(c.el)} «${c.text}»`);
    }
  }
  return [...new Set(out)];
}"""


class FitPage(PanelPage):
    def expected(self, message: ConsoleMessage) -> bool:
        # the desk's overlay previews are pages of their own, tested apart
        url = (message.location or {}).get("url", "")
        return "/overlays/" in url or "/static/overlays/" in url


# --- the world the screens show ------------------------------------------------------------------

@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("fit") / "data", mode="threading",
                    env={"CHGK_OVERLAY_PSEUDO_LOCALE": "true"}).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def world(srv: Server) -> dict:
    """A league with a season (two game days played), a series, a rundown, pictures, a tv game
    mid-round and a club game after a lost round."""
    players = [f"Игрок {c}" for c in "АБВГДЕЖЗИКЛМ"]
    ids = approved_members(srv, players)
    sid = ok(srv, "POST", "/api/seasons", {"name": "Сезон 2026", "qualifying_days": 3}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2026-03-01", "confirm": True})
    holding = f"{sid}-d1-sun"
    for name in players:
        ok(srv, "POST", f"/api/holdings/{holding}/registrations", {"member": ids[name]}, 201)
    teams = ok(srv, "POST", f"/api/holdings/{holding}/teams/form", {})["teams"]
    game = club_game(srv, sid, holding, teams)
    play_club(srv, game, "t1", [(True, [], None), (False, ["t2"], "t2"), (True, [], None), (True, [], None)],
              best=teams[0]["players"][0])
    stars = [tv_game(srv, team) for team in ("Звёзды кино", "Звёзды эстрады")]
    play_tv(srv, stars[0], [True, True])
    xid = ok(srv, "POST", "/api/series", {"name": "Звёздные войны", "duels": [stars]}, 201)["id"]

    made = srv.api("POST", "/api/rundowns", {"name": "Эфир 1 декабря"})
    rid, rev = made["id"], made["rev"]
    for segment, label, graphic, layer, data in (
            ("Начало", "Ведущий", "lower-third", "straps", {"title": "Борис Крюк", "subtitle": "ведущий"}),
            ("Раунд 1", "Вопрос", "question", "12", {}),
            ("Перерыв", "Заставка", "slate", "full", {"title": "Перерыв"}),
            ("Финал", "Итог", "result", "full", {})):
        rev = srv.api("POST", f"/api/rundowns/{rid}/items",
                      {"segment": segment, "label": label, "graphic": graphic, "layer": layer, "out": "manual",
                       "data": data, "expected_rev": rev})["rev"]
    for name, colour in (("логотип клуба.png", "navy"), ("фон студии.png", "teal")):
        r = srv.http.post(srv.url + "/api/media", files={"file": (name, png(colour, (320, 180)))}, timeout=30)
        assert r.status_code in (200, 201), r.text

    tv = srv.create({"rules": "tv", "title": "Телеигра", "target": 6, "timers": {"minute": 600_000},
                     "experts": {"name": "Команда Иванова", "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]}})
    srv.play(tv, "spin", landed=2)
    srv.play(tv, "start_timer")
    club = srv.create(club_spec())
    srv.play(club, "seat_team", team="t1")
    srv.play(club, "spin", landed=1)
    srv.play(club, "start_timer")
    srv.play(club, "club_answers", correct=["t2", "t3"])
    srv.play(club, "judge", correct=False)
    return {"season": sid, "holding": holding, "series": xid, "rundown": rid, "tv": tv, "club": club}


def admin_pages(world: dict) -> list[str]:
    sid = world["season"]
    return ["/control/admin/", "/control/admin/members", f"/control/admin/seasons/{sid}",
            f"/control/admin/seasons/{sid}/rating", f"/control/admin/seasons/{sid}/final",
            f"/control/admin/holdings/{world['holding']}", f"/control/admin/series/{world['series']}"]


@pytest.fixture(scope="module")
def ctx(chromium: Browser) -> Iterator[BrowserContext]:
    context = chromium.new_context(viewport=SIZE, locale="ru-RU")
    yield context
    context.close()


@pytest.fixture(scope="module")
def panel(ctx: BrowserContext, srv: Server) -> FitPage:
    return FitPage(ctx.new_page(), srv).open()


def in_language(panel: FitPage, path: str, lang: str) -> Page:
    """Opens a panel screen in `lang` (the panel keeps the choice, the league pages take ?lang=)."""
    page = panel.page
    if path.startswith("/control/admin"):
        page.goto(panel.server.url + path + ("&" if "?" in path else "?") + f"lang={lang}")
        expect(page.locator("h1").first).to_be_visible()
    else:
        page.evaluate("lang => localStorage.setItem('chgk.panel.lang', lang)", lang)
        page.goto(panel.server.url + path)
        expect(page.locator("body")).to_have_attribute("data-connection", "connected")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.evaluate("document.fonts.ready")
    settle(page)
    return page


def misfits(page: Page) -> list[str]:
    return page.evaluate(MISFITS_JS)


def shoot(page: Page, out: Path, name: str) -> None:
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)


# --- the screens -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_the_tv_and_club_screens_fit(srv: Server, world: dict, panel: FitPage, lang: str, tmp_path: Path) -> None:
    out = screenshot_dir(tmp_path)
    problems: dict[str, list[str]] = {}
    srv.api("PUT", "/api/on-air", {"game": world["tv"]})
    page = in_language(panel, "/control/", lang)
    expect(page.locator("body")).to_have_attribute("data-game", world["tv"])
    problems["/control/ (tv)"] = misfits(page)
    if lang in ("uk", "en"):
        shoot(page, out, f"panel-live-{lang}")
    panel.button("undo").click()                                 # the undo asks first
    expect(page.locator("#undo-what")).to_be_visible()
    problems["/control/ (tv, undo asked)"] = misfits(page)
    page.keyboard.press("Escape")
    expect(panel.button("undo")).to_be_visible()
    page.locator("#keys-help > summary").click()                 # the hotkeys listed
    expect(page.locator("#keys-list dt").first).to_be_visible()
    problems["/control/ (tv, hotkeys)"] = misfits(page)
    page.locator("#keys-help > summary").click()
    srv.api("PUT", "/api/on-air", {"game": world["club"]})
    for path in ("/control/club", "/control/"):
        page = in_language(panel, path, lang)
        expect(page.locator("body")).to_have_attribute("data-game", world["club"])
        if path == "/control/club":
            expect(page.locator("#candidates [data-team=t2]")).to_be_visible()
        problems[f"{path} (club)"] = misfits(page)
        if lang in ("uk", "en") and path == "/control/club":
            shoot(page, out, f"panel-club-{lang}")
    assert {k: v for k, v in problems.items() if v} == {}
    assert panel.errors == [], panel.errors


@pytest.mark.parametrize("lang", LANGS)
def test_the_desk_and_the_media_library_fit(world: dict, panel: FitPage, lang: str, tmp_path: Path) -> None:
    out = screenshot_dir(tmp_path)
    problems: dict[str, list[str]] = {}
    page = in_language(panel, "/control/rundown", lang)
    page.select_option("#rd-select", world["rundown"])
    expect(page.locator('.rd-item[data-label="Итог"]')).to_be_visible()
    page.locator('.rd-item[data-label="Ведущий"]').dblclick()                # the item editor open
    expect(page.locator("#f-label")).to_have_value("Ведущий")
    expect(page.locator("#f-data .df-field select").first).to_be_visible()    # its data form drawn (a choice)
    settle(page)
    problems["/control/rundown"] = misfits(page)
    if lang in ("uk", "en"):
        shoot(page, out, f"panel-rundown-{lang}")
    page = in_language(panel, "/control/media", lang)
    expect(page.locator(".media-card")).to_have_count(2)
    problems["/control/media"] = misfits(page)
    if lang in ("uk", "en"):
        shoot(page, out, f"panel-media-{lang}")
    assert {k: v for k, v in problems.items() if v} == {}
    assert panel.errors == [], panel.errors


@pytest.mark.parametrize("lang", LANGS)
def test_the_other_panel_pages_fit(world: dict, panel: FitPage, lang: str, tmp_path: Path) -> None:
    out = screenshot_dir(tmp_path)
    problems: dict[str, list[str]] = {}
    for path in ("/control/setup", "/control/packs", "/control/graphics", "/control/osc"):
        page = in_language(panel, path, lang)
        problems[path] = misfits(page)
        if lang in ("uk", "en") and path == "/control/setup":
            shoot(page, out, f"panel-setup-{lang}")
    assert {k: v for k, v in problems.items() if v} == {}
    assert panel.errors == [], panel.errors


@pytest.mark.parametrize("lang", LANGS)
def test_the_league_pages_fit(world: dict, panel: FitPage, lang: str, tmp_path: Path) -> None:
    out = screenshot_dir(tmp_path)
    problems: dict[str, list[str]] = {}
    for path in admin_pages(world):
        page = in_language(panel, path, lang)
        problems[path] = misfits(page)
        if lang in ("uk", "en") and path.endswith("/rating"):
            shoot(page, out, f"panel-league-rating-{lang}")
    assert {k: v for k, v in problems.items() if v} == {}
    assert panel.errors == [], panel.errors


# --- the check itself ------------------------------------------------------------------------------

SAMPLE = """<!doctype html><html lang="en"><body style="margin:0;font:16px sans-serif">
<button id="clipped" style="width:60px;overflow:hidden;white-space:nowrap">A label too long for its button</button>
<span id="dots" style="display:inline-block;width:80px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap">Truncated with an ellipsis</span>
<div id="spill" style="width:50px;white-space:nowrap">Spilling out of its box</div>
<div id="below" style="width:60px;height:20px;line-height:20px">Two lines in one line's height</div>
<div style="position:relative;height:40px"><span id="one" style="position:absolute;left:0">First words</span>
  <span id="two" style="position:absolute;left:10px">Second words</span></div>
<select id="narrow" style="width:60px"><option>A very long option</option></select>
<input id="hint" style="width:60px" placeholder="A placeholder longer than its field">
<div id="scroller" style="height:40px;overflow:auto"><p>Scrolled</p><p>out</p><p>of</p><p>view</p><p>fine</p></div>
<div id="wide" style="width:2000px;height:1px"></div>
</body></html>"""


def test_the_check_sees_what_does_not_fit(ctx: BrowserContext) -> None:
    page = ctx.new_page()
    try:
        page.set_content(SAMPLE)
        found = "\n".join(misfits(page))
        for what in ("page: scrolls sideways", "button#clipped: cut sideways", "span#dots: cut sideways",
                     "div#spill: spills out of div#spill", "div#below: spills out of div#below",
                 "«First words» over span#two", "select#narrow: option cut",
                 "input#hint: placeholder cut"):
            assert what in found, (what, found)
        assert "Scrolled" not in found and "view" not in found, found     # a scroll box scrolls
        page.set_content("<!doctype html><body><p>Short words, room enough.</p></body>")
        assert misfits(page) == []
    finally:
        page.close()
