"""The live panel under an operator's hands (issue 17), in the real system Chromium against a
real server process: presses in quick succession, refusals in the panel's language, notices
that leave and never cover a control, everything a round needs in view on a laptop and a
tablet, words a person reads, and the overlays list on the graphics desk.
"""
from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.helpers import (Tab, outside_safe_area, press_twice, screenshot_dir, settle, small_text,
                                   wait_on_air)
from tests.browser.test_panel import Panel, _dictionaries, spec
from tests.support import ROOT, Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def panel(context: BrowserContext, panel_server: Server) -> Iterator[Panel]:
    p = Panel(context.new_page(), panel_server)
    yield p
    assert not p.errors, p.errors


def on_air(server: Server, panel: Panel, **kw) -> str:
    game = server.create(kw.pop("game_spec", None) or spec(**kw), on_air=True)
    panel.open()
    panel.wait_rev(0, game)
    return game


def wait_server_rev(server: Server, game: str, rev: int, panel: Panel) -> dict:
    panel.wait_rev(rev)
    state = server.state(game)
    assert state["rev"] == rev
    return state


def events(server: Server, game: str) -> list[str]:
    return [e["event"]["type"] for e in server.api("GET", f"/api/games/{game}/log")["events"]]


# ---- 1. a quick second press is not a double press -------------------------------------------

def test_a_sector_then_space_then_a_verdict_at_once_are_all_done(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    kb = panel.page.keyboard
    rev = 0
    for n, verdict in ((4, "Equal"), (11, "Minus"), (2, "Equal")):
        for d in str(n):
            kb.press(d)
        kb.press("Enter")          # the spin …
        kb.press("Space")          # … its minute, a few ms later, before the spin's answer
        kb.press(verdict)          # … and the verdict right after
        rev += 3
        state = wait_server_rev(panel_server, game, rev, panel)
        assert state["round"]["sector"] == n and state["round"]["phase"] == "closed"
    assert panel_server.state(game)["score"] == {"experts": 2, "viewers": 1}
    assert events(panel_server, game).count("timer_started") == 3
    expect(panel.page.locator('.notice[data-code="stale_rev"]')).to_have_count(0)
    expect(panel.page.locator(".notice-error")).to_have_count(0)


def test_a_verdict_just_after_the_time_up_is_done(panel_server: Server, panel: Panel) -> None:
    game_spec = {**spec(), "timers": {"minute": 1000}}
    game = on_air(panel_server, panel, game_spec=game_spec)
    page, kb = panel.page, panel.page.keyboard
    rev = 0
    for n, delay in zip((1, 2, 3, 4, 6), (0, 50, 120, 200, 300)):
        for d in str(n):
            kb.press(d)
        kb.press("Enter")
        panel.wait_rev(rev + 1)
        kb.press("Space")
        panel.wait_rev(rev + 2, at_least=True)  # a 1 s minute: its time-up may be drawn already
        # the clock's time-up reaches the panel (rev + 3), then the verdict follows at once
        page.wait_for_function("rev => document.body?.dataset.rev === String(rev)", arg=rev + 3, timeout=15_000)
        if delay:
            page.wait_for_timeout(delay)
        kb.press("Equal")
        rev += 4
        state = wait_server_rev(panel_server, game, rev, panel)
        assert state["round"]["phase"] == "closed" and state["sectors"][n - 1]["result"] == "experts", (n, delay)
    expect(page.locator('.notice[data-code="stale_rev"]')).to_have_count(0)


def test_the_same_key_twice_is_done_once(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page = panel.page
    panel.click(panel.sector(6), rev=1)
    press_twice(page, " ", "Space", 32, apart_ms=3)   # a bounce: within a few ms
    calm = panel.notice("double_press")
    expect(calm).to_be_visible()
    expect(calm).to_have_class(re.compile(r"notice-info"))
    expect(calm).to_contain_text("выполнено один раз")
    wait_server_rev(panel_server, game, 2, panel)
    press_twice(page, "=", "Equal", 187, apart_ms=60, late_ms=600)  # 60 ms later, handled 600 ms later
    expect(panel.notice("double_press")).to_be_visible()
    state = wait_server_rev(panel_server, game, 3, panel)
    assert state["score"] == {"experts": 1, "viewers": 0}
    panel.sector(7).dblclick()             # a double click on a sector: one spin
    wait_server_rev(panel_server, game, 4, panel)
    page.wait_for_timeout(300)
    assert events(panel_server, game).count("timer_started") == 1
    assert panel_server.state(game)["rev"] == 4


def test_a_press_against_another_panels_change_is_refused(
        panel_server: Server, panel: Panel, tablet_context: BrowserContext) -> None:
    game = on_air(panel_server, panel)
    other = Panel(tablet_context.new_page(), panel_server).open()
    other.wait_rev(0, game)
    panel.click(panel.sector(8), rev=1)
    panel.click(panel.button("start_timer"), rev=2)
    other.wait_rev(2)
    # this panel has not yet heard of the other's verdict when its own key goes
    panel.page.evaluate("() => window.chgkPanel.conn.socket.off('state')")
    other.button("incorrect").tap()
    other.wait_rev(3)
    panel.page.keyboard.press("Equal")
    refusal = panel.notice("stale_rev")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("с другого пульта")
    state = panel_server.state(game)
    assert state["rev"] == 3 and state["score"] == {"experts": 0, "viewers": 1}
    assert not other.errors, other.errors


# ---- 2. refusals in the operator's language ------------------------------------------------------

# Refusals the panel makes itself or meets from the HTTP layer, beside those the server's code names.
CLIENT_CODES = {"disconnected", "no_answer", "network", "game_switched", "no_game_on_air", "after_refusal",
                "not_found", "method_not_allowed", "request_entity_too_large", "internal_server_error"}


def server_codes() -> set[str]:
    """Every error code the server's code can answer the panel with (the league's own pages,
    overlay/season, have their own texts)."""
    codes: set[str] = set()
    for folder in ("overlay", "control"):
        for path in (ROOT / folder).rglob("*.py"):
            if "season" in path.parts:
                continue
            src = path.read_text(encoding="utf-8")
            codes |= set(re.findall(r'(?:Error|Rev|Game|NotFound)\(\s*"([a-z_]+)"', src))
            codes |= set(re.findall(r'error\(\d{3}, "([a-z_]+)"', src))
            codes |= set(re.findall(r'"code": "([a-z_]+)"', src))
    return codes


def test_every_refusal_the_panel_can_meet_has_words_in_every_language() -> None:
    codes = server_codes() | CLIENT_CODES
    assert {"wrong_phase", "stale_rev", "obs_off", "throttled", "csrf"} <= codes   # the scan finds them
    dicts = _dictionaries()
    missing = sorted(f"{lang}: err.{code}" for lang, d in dicts.items() for code in codes if f"err.{code}" not in d)
    assert not missing, missing


def test_a_refusal_says_why_in_the_panels_language(panel_server: Server, panel: Panel) -> None:
    on_air(panel_server, panel)
    page = panel.page
    panel.click(panel.sector(3), rev=1)
    panel.click(panel.button("start_timer"), rev=2)
    page.keyboard.press("e")                 # an early answer while the minute runs
    refusal = panel.notice("wrong_phase")
    expect(refusal.locator(".notice-title")).to_have_text("Досрочный ответ: сейчас идёт обсуждение")
    # the server's English is the developer's: kept in data-detail, never shown
    expect(refusal).to_have_attribute("data-detail", re.compile("is not possible now"))
    expect(refusal).not_to_contain_text("not possible")
    page.select_option("#lang-select", "uk")
    page.keyboard.press("e")
    expect(panel.notice("wrong_phase").locator(".notice-title")).to_have_text(
        re.compile(r"^Дострокова відповідь: зараз [^A-Za-z]+$"))
    page.select_option("#lang-select", "ru")


# ---- 3. notices neither pile up nor cover controls ---------------------------------------------

COVERED_JS = """() => {
  const box = document.querySelector('.notice');
  if (!box) return ['no notice'];
  const n = box.getBoundingClientRect();
  const out = [];
  for (const el of document.querySelectorAll('button, summary, a[href], input, select, .sector')) {
    if (box.contains(el)) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (r.left < n.right && r.right > n.left && r.top < n.bottom && r.bottom > n.top)
      out.push(`${el.tagName} ${el.dataset.action || el.id || el.textContent.trim().slice(0, 20)}`);
  }
  return out;
}"""


def covered(page: Page) -> list[str]:
    """Controls under the notice, at every scroll position the page has."""
    out: list[str] = []
    height = page.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height, 200):
        page.evaluate("y => window.scrollTo(0, y)", y)
        out += page.evaluate(COVERED_JS)
    page.evaluate("window.scrollTo(0, 0)")
    return sorted(set(out))


@pytest.mark.parametrize("size", [(1366, 900), (820, 1180)])
def test_a_notice_covers_no_control_and_leaves_when_the_game_moves_on(
        panel_server: Server, chromium: Browser, size: tuple[int, int]) -> None:
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="ru-RU")
    try:
        panel = Panel(ctx.new_page(), panel_server)
        game = on_air(panel_server, panel)
        page = panel.page
        for key in ("h", "m", "d", "h"):     # four refusals in a row: one notice, a refusal's
            page.keyboard.press(key)
        expect(page.locator(".notice-error")).to_have_count(1)
        page.wait_for_timeout(300)
        expect(page.locator(".notice")).to_have_count(1)
        expect(page.locator(".notice-error .notice-title")).not_to_have_text(re.compile(r"[A-Za-z]"))
        assert covered(page) == []
        panel_server.play(game, "spin", landed=5)   # another operator moves the game on
        panel.wait_rev(1)
        expect(page.locator(".notice")).to_have_count(0)
        assert not panel.errors, panel.errors
    finally:
        ctx.close()


# ---- 4. everything a round needs is in view --------------------------------------------------

OUT_OF_VIEW_JS = """(sels) => {
  const out = [];
  for (const sel of sels) {
    const els = [...document.querySelectorAll(sel)];
    if (!els.length) out.push(`${sel}: missing`);
    for (const el of els) {
      const r = el.getBoundingClientRect();
      if (!r.width || r.top < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5)
        out.push(`${sel}: ${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight}`);
    }
  }
  return out;
}"""

ROUND = ["#timer", "#score", '[data-action="undo"]']
ACTIONS = [f'[data-action="{a}"]' for a in ("start_timer", "correct", "incorrect", "pause", "early_answer")]


@pytest.mark.parametrize("size", [(1366, 900), (1024, 768), (820, 1180)])
def test_a_round_needs_no_scrolling(panel_server: Server, chromium: Browser, size: tuple[int, int]) -> None:
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="ru-RU")
    try:
        panel = Panel(ctx.new_page(), panel_server)
        game = on_air(panel_server, panel, target=2)
        page = panel.page

        def in_view(*selectors: str) -> list[str]:
            return page.evaluate(OUT_OF_VIEW_JS, list(selectors))

        assert in_view(*ROUND, *ACTIONS, '[data-action="spin"]') == []
        panel_server.play(game, "spin", landed=9)          # the superblitz: the captain names a player
        panel.wait_rev(1)
        expect(page.locator("#picker")).to_be_visible()
        assert in_view(*ROUND, "#picker .player") == []
        panel_server.api("POST", f"/api/games/{game}/undo")
        for type_, fields in (("spin", {"landed": 1}), ("start_timer", {}), ("judge", {"correct": True}),
                              ("request_decisive_round", {})):
            panel_server.play(game, type_, **fields)
        panel.wait_rev(6)                                  # the host's decision: three players, grant, refuse
        expect(page.locator('#picker[data-mode="decisive"]')).to_be_visible()
        assert in_view(*ROUND, "#picker .player", '[data-action="grant"]', '[data-action="refuse"]') == []
        assert page.evaluate("window.scrollY") == 0
        assert not panel.errors, panel.errors
    finally:
        ctx.close()


# ---- 5. on-air text always fits -----------------------------------------------------------------

LONG_NAME = "Анна-Мария Преображенская-Голенищева-Кутузова"
LONG_SUB = "Капитан команды «Знатоки имени Преображенского из Харькова» — семикратный обладатель «Хрустальной совы»"
CUT_JS = """sel => [...document.querySelectorAll(sel)].filter(el => el.textContent.trim()).map(el => {
  const cs = getComputedStyle(el);
  const cut = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
              || cs.textOverflow === 'ellipsis';
  const lines = Math.round(el.getBoundingClientRect().height / (parseFloat(cs.lineHeight) || parseFloat(cs.fontSize) * 1.2));
  return {text: el.textContent, cut, lines, px: parseFloat(cs.fontSize), fit: el.dataset.fit || ''};
})"""

# a line of the element that starts right after a letter: the name was broken inside a word
MID_WORD_JS = """sel => [...document.querySelectorAll(sel)].filter(el => {
  const text = document.createTreeWalker(el, NodeFilter.SHOW_TEXT).nextNode();  // the name's, in its <bdi>
  if (!text || !text.length) return false;
  const r = document.createRange();
  let top = null;
  for (let i = 0; i < text.length; i++) {
    r.setStart(text, i); r.setEnd(text, i + 1);
    const rect = r.getBoundingClientRect();
    if (!rect.width) continue;
    if (top !== null && rect.top > top + 4 && !/[\\s-]/.test(text.data[i - 1])) return true;
    top = rect.top;
  }
  return false;
}).map(el => el.textContent)"""


def test_a_long_lower_third_fits_on_air(panel_server: Server, tab: Tab) -> None:
    page = tab.open(f"{panel_server.url}/overlays/lower-third")
    panel_server.api("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                               "data": {"title": LONG_NAME, "subtitle": LONG_SUB}})
    wait_on_air(page, "lower-third")
    settle(page)                              # the entrance has played
    lines = page.evaluate(CUT_JS, ".lt-title, .lt-subtitle")
    assert len(lines) == 2
    for line in lines:
        assert not line["cut"] and line["lines"] <= 2, line
    assert small_text(page) == []
    assert outside_safe_area(page) == []
    panel_server.api("POST", "/api/graphics", {"action": "hide", "graphic": "lower-third"})
    assert not tab.errors, tab.errors


def test_long_club_names_fit_the_tiles_and_the_central_table(panel_server: Server, tab: Tab) -> None:
    names = ["Ультиматум", "Команда имени Преображенского-Голенищева", "Знатоки Харьковского политехнического института",
             "Бета", "Гамма", "Дельта", "Эпсилон", "Зета", "Эта", "Тета", "Йота", "Каппа"]
    teams = [{"id": f"t{i}", "name": n, "players": [f"И{i}.{j}" for j in range(1, 5)]} for i, n in enumerate(names, 1)]
    game = panel_server.create({"rules": "club", "title": "Длинные имена", "game_day": "2026-05-01-fri",
                                "teams": teams, "timers": {"minute": 60_000}}, on_air=True)
    panel_server.play(game, "seat_team", team="t3")
    page = tab.open(f"{panel_server.url}/overlays/club-tables")
    panel_server.api("POST", "/api/graphics", {"action": "show", "graphic": "club-tables"})
    wait_on_air(page, "club-tables")
    settle(page)
    tiles = page.evaluate(CUT_JS, ".ctb-name")
    assert len(tiles) == 12
    for tile in tiles:
        assert not tile["cut"] and tile["lines"] <= 2, tile
    # a break only between words: each line of a tile ends on a word's end
    broken = page.evaluate(MID_WORD_JS, ".ctb-name")
    assert broken == []
    assert small_text(page) == []
    panel_server.api("POST", "/api/graphics", {"action": "hide", "graphic": "club-tables"})
    ct = tab.open(f"{panel_server.url}/overlays/central-table")
    wait_on_air(ct, "central-table")
    settle(ct)
    (name,) = ct.evaluate(CUT_JS, ".ct-name")
    assert not name["cut"] and name["lines"] <= 2, name
    assert outside_safe_area(ct) == []
    assert not tab.errors, tab.errors


def test_the_club_screen_breaks_team_names_between_words(panel_server: Server, chromium: Browser) -> None:
    names = ["Ультиматум", "Команда имени Преображенского", "Эпсилон из Харькова", "Дельта", "Политехнический",
             "Зета", "Эта", "Тета"]
    teams = [{"id": f"t{i}", "name": n, "players": [f"И{i}.{j}" for j in range(1, 5)]} for i, n in enumerate(names, 1)]
    game = panel_server.create({"rules": "club", "title": "Длинные имена", "game_day": "2026-05-02-sat",
                                "teams": teams, "timers": {"minute": 60_000}}, on_air=True)
    for size in ((1366, 900), (820, 1180)):
        ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="ru-RU")
        try:
            page = ctx.new_page()
            screen = Panel(page, panel_server)
            screen.home = "/control/club"
            screen.open()
            screen.wait_rev(0, game)
            expect(page.locator(".table-tile")).to_have_count(8)
            expect(page.locator("#candidates .candidate")).to_have_count(8)   # nobody seated yet
            broken = page.evaluate(MID_WORD_JS, ".table-tile .tile-name, #candidates .tile-name")
            assert broken == [], (size, broken, page.evaluate(CUT_JS, ".table-tile .tile-name, #candidates .tile-name"))
            cut = [x for x in page.evaluate(CUT_JS, ".table-tile .tile-name, #candidates .tile-name") if x["cut"]]
            assert cut == [], (size, cut)
            assert not screen.errors, screen.errors
        finally:
            ctx.close()


# ---- 6. words a person reads -------------------------------------------------------------------

def test_the_live_page_says_what_a_button_does_and_greys_what_it_cannot(panel_server: Server, panel: Panel) -> None:
    on_air(panel_server, panel)
    page = panel.page
    # a disabled button is grey, not the green or red of an enabled verdict
    looks = """() => Object.fromEntries(['correct', 'incorrect', 'start_timer'].map(a => {
        const cs = getComputedStyle(document.querySelector(`[data-action="${a}"]`));
        return [a, [cs.borderColor, cs.backgroundColor, cs.opacity]]; }))"""
    page.wait_for_function(f"() => new Set(Object.values(({looks})()).map(c => c.join())).size === 1")
    colours = page.evaluate(looks)
    # the hotkeys block says that it opens
    expect(page.locator("#keys-help summary .keys-show")).to_be_visible()
    page.click("#keys-help summary")
    expect(page.locator("#keys-help summary .keys-hide")).to_be_visible()
    expect(page.locator("#keys-list dt").first).to_be_visible()

    panel.click(panel.sector(10), rev=1)
    # the early answer says what it is; money reads as on air
    expect(panel.button("early_answer").locator(".why")).to_have_text("ответ сразу, без минуты")
    on_air_money = page.evaluate("""() => new Intl.NumberFormat('ru-RU', {style: 'currency', currency: 'UAH',
        currencyDisplay: 'narrowSymbol', maximumFractionDigits: 0}).format(1000)""")
    expect(page.locator(".q-prize")).to_have_text(f"приз {on_air_money}")
    assert "UAH" not in page.inner_text(".q-author")
    enabled = page.evaluate("""() => { const cs = getComputedStyle(document.querySelector('[data-action="correct"]'));
        return cs.borderColor; }""")
    panel.click(panel.button("early_answer"), rev=2)
    assert page.evaluate("""() => getComputedStyle(document.querySelector('[data-action="correct"]')).borderColor""") \
        != colours["correct"][0] or enabled != colours["correct"][0]
    panel.click(panel.button("correct"), rev=3)
    # a blitz: Space starts 20 seconds, and the button says so
    panel.click(panel.sector(5), rev=4)
    expect(panel.button("start_timer").locator(".label")).to_have_text("Старт 20 секунд")
    panel.click(panel.button("start_timer"), rev=5)
    expect(page.locator("#timer-digits")).to_have_text(re.compile(r"^0:(1\d|20)$"))  # as the air draws it


def test_the_graphics_desk_names_graphics_in_words_and_warns_of_long_text(panel_server: Server, panel: Panel) -> None:
    panel_server.create(spec(), on_air=True)
    page = panel.open("/control/graphics").page
    expect(page.locator('.preview-card[data-graphic="scoreboard"] figcaption a')).to_have_text("Табло счёта")
    page.fill("#free-title", "Борис")
    expect(page.locator("#free-fit")).to_be_hidden()
    page.fill("#free-title", LONG_NAME)                 # fits on air in two lines: no warning
    page.fill("#free-subtitle", LONG_SUB)
    expect(page.locator("#free-fit")).to_be_hidden()
    page.fill("#free-title", " ".join([LONG_NAME] * 4))  # will not fit even so: said before air
    expect(page.locator("#free-fit")).to_be_visible()
    expect(page.locator("#free-fit")).to_contain_text("Не поместится")
    page.fill("#free-title", "Борис")
    page.fill("#free-subtitle", "")
    page.click("#free-take")
    item = page.locator('.on-air-item[data-graphic="lower-third"]')
    expect(item).to_contain_text("Титр Борис")
    expect(page.locator(".on-air-list")).not_to_contain_text("lower-third")
    page.click("#lt-clear")
    expect(item).to_have_count(0)                        # taken out: gone, not «скрыта · Вернуть»
    expect(page.locator(".on-air-list")).not_to_contain_text("Титр")


# ---- 7. the connected overlays: in their card, OBS's sources apart from the previews -----------------

@pytest.mark.parametrize("size", [(1366, 900), (820, 1180)])
def test_the_overlays_list_fits_and_tells_obs_from_previews(
        panel_server: Server, chromium: Browser, tab: Tab, size: tuple[int, int]) -> None:
    panel_server.create(spec(), on_air=True)
    tab.open(f"{panel_server.url}/overlays/scoreboard?game=&obs=studio-a-with-a-long-address-{size[0]}")
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="ru-RU")
    try:
        panel = Panel(ctx.new_page(), panel_server)
        page = panel.open("/control/graphics").page
        expect(page.locator(".preview-card iframe").first).to_be_visible()
        sources = page.locator('#overlays-body tr[data-kind="source"]')
        previews = page.locator('#overlays-body tr[data-kind="preview"]')
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (previews.count() < 8 or not sources.filter(has_text=f"-{size[0]}").count()):
            page.click("#overlays-refresh")
            page.wait_for_timeout(500)
        expect(sources.filter(has_text=f"-{size[0]}")).to_have_count(1)
        expect(sources.filter(has_text=f"-{size[0]}").locator("td").first).to_have_text("Табло счёта")
        assert previews.count() >= 8
        # every preview row is under its own heading, after the sources
        order = page.evaluate("""() => [...document.querySelectorAll('#overlays-body tr')]
            .map(tr => tr.dataset.group || tr.dataset.kind || 'note')""")
        assert order[0] == "sources" and "previews" in order, order
        split = order.index("previews")
        assert set(order[1:split]) <= {"source", "note"} and set(order[split + 1:]) == {"preview"}, order
        fits = page.evaluate("""() => { const card = document.querySelector('.overlays-table').closest('.card');
            const table = document.querySelector('.overlays-table');
            return [card.getBoundingClientRect().right, table.getBoundingClientRect().right, table.scrollWidth, table.clientWidth]; }""")
        assert fits[1] <= fits[0] + 0.5 and fits[2] <= fits[3] + 1, fits
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert not panel.errors, panel.errors
    finally:
        ctx.close()


# ---- the panel's pictures for the README ------------------------------------------------------

def test_screenshots_of_the_live_panel(panel_server: Server, chromium: Browser, tmp_path) -> None:
    """docs/screenshots/panel-*.png: a round in discussion on a laptop and on a tablet, with a
    refusal on the notices' line. CHGK_SCREENSHOT_DIR=docs/screenshots regenerates them."""
    out = screenshot_dir(tmp_path)
    game = panel_server.create(spec(title="Финал сезона"), on_air=True)
    for type_, fields in (("spin", {"landed": 3}), ("start_timer", {}), ("judge", {"correct": True}),
                          ("spin", {"landed": 10}), ("start_timer", {})):
        panel_server.play(game, type_, **fields)
    for name, size in (("panel-live", (1366, 900)), ("panel-tablet", (820, 1180))):
        ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="ru-RU")
        try:
            panel = Panel(ctx.new_page(), panel_server)
            panel.open()
            panel.wait_rev(5, game)
            panel.page.keyboard.press("e")          # an early answer in discussion: refused, in words
            expect(panel.notice("wrong_phase")).to_be_visible()
            target = out / f"{name}.png"
            panel.page.screenshot(path=str(target))
            assert target.stat().st_size > 20_000
            assert not panel.errors, panel.errors
        finally:
            ctx.close()


@pytest.mark.parametrize("n", [8, 20])
def test_the_club_screen_keeps_record_in_view(panel_server: Server, chromium: Browser, n: int) -> None:
    teams = [{"id": f"t{i}", "name": f"Команда {i}", "players": [f"И{i}.{j}" for j in range(1, 5)]}
             for i in range(1, n + 1)]
    game = panel_server.create({"rules": "club", "title": "Запись", "game_day": f"2026-06-0{n % 9}-sat",
                                "teams": teams, "timers": {"minute": 60_000}}, on_air=True)
    panel_server.play(game, "seat_team", team="t1")
    panel_server.play(game, "spin", landed=2)
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    try:
        screen = Panel(ctx.new_page(), panel_server)
        screen.home = "/control/club"
        screen.open()
        screen.wait_rev(2, game)
        expect(screen.button("record")).to_be_visible()
        assert screen.page.evaluate(OUT_OF_VIEW_JS, ['[data-action="record"]', "#timer", '[data-action="undo"]']) == []
        assert not screen.errors, screen.errors
    finally:
        ctx.close()


def test_an_undo_confirmation_survives_the_time_up(panel_server: Server, panel: Panel) -> None:
    # a 3 s minute: room for the confirmation to open before the time-up on a loaded machine
    game = on_air(panel_server, panel, game_spec={**spec(), "timers": {"minute": 3000}})
    page = panel.page
    panel.click(panel.sector(4), rev=1)
    panel.click(panel.button("start_timer"), rev=2)
    page.keyboard.press("u")                               # «undo the start?» — and the gong sounds
    expect(page.locator("#undo-what")).to_contain_text("Старт минуты")
    page.wait_for_function("document.body?.dataset.rev === '3'", timeout=15_000)
    expect(page.locator("#confirm")).to_be_visible()       # still asking: the time-up goes with it
    page.keyboard.press("Enter")
    state = wait_server_rev(panel_server, game, 4, panel)
    assert state["round"]["phase"] == "reading" and state["timer"] is None
