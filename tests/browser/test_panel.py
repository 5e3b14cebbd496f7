"""The operator panel in the real system Chromium against a real server process.

Covers: login (and the language switch), a whole round by clicks and one by hotkeys, undo that
says what it reverts, a refused command (the server's message, nothing changed), doubled
presses (one change, a calm note), two panels in sync (one of them a touch tablet), the
connection-lost banner across a server crash and restart with re-sync, the superblitz and
decisive-round pickers, creating a game on the setup page, and the graphics desk.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import pytest
import socketio
from playwright.sync_api import BrowserContext, ConsoleMessage, Locator, Page, expect

from overlay.i18n import Catalogs
from tests.browser.helpers import QUICK_SPIN, PanelPage, assert_big_touch_targets, fits_the_screen
from tests.support import ROOT, Server, static_url

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]


def _q(n: int, i: int = 0) -> dict:
    return {"text": f"Вопрос сектора {n}.{i + 1}: что это?", "answer": f"Ответ {n}.{i + 1}",
            "author": {"name": f"Зритель {n}", "city": "Харьков"}, "prize": {"amount": 100 * n, "currency": "UAH"}}


def spec(target: int = 6, title: str = "Тестовая игра") -> dict:
    """A tv game: blitz on 5, superblitz on 9, sponsor on 13, every envelope with questions."""
    sectors = []
    for n in range(1, 14):
        kind = {5: "blitz", 9: "superblitz", 13: "sponsor"}.get(n, "regular")
        count = 3 if kind in ("blitz", "superblitz") else 1
        sectors.append({"number": n, "kind": kind, "questions": [_q(n, i) for i in range(count)]})
    return {"rules": "tv", "title": title, "target": target,
            "experts": {"name": "Команда Тестова", "players": PLAYERS, "captain": "Анна"},
            "sectors": sectors, "spin": QUICK_SPIN}  # the panel's tests are not about the top's turn


class Panel(PanelPage):
    """The live page: sectors, the score, the rev it shows."""

    def expected(self, message: ConsoleMessage) -> bool:
        """The overlay previews are other pages in iframes, with their own tests: what they and
        their resources log is theirs."""
        url = (message.location or {}).get("url", "")
        return bool(re.search(r"/(overlays/|static/(overlays|lib|themes|fonts|sounds)/)", url))

    @property
    def rev(self) -> int:
        return int(self.page.get_attribute("body", "data-rev") or -1)

    def sector(self, n: int) -> Locator:
        return self.page.locator(f'.sector[data-sector="{n}"]')

    def score(self) -> tuple[str, str]:
        return (self.page.inner_text("#score-experts"), self.page.inner_text("#score-viewers"))


@pytest.fixture
def panel(context: BrowserContext, panel_server: Server) -> Iterator[Panel]:
    p = Panel(context.new_page(), panel_server)
    yield p
    assert not p.errors, p.errors


def on_air(server: Server, panel: Panel, **kw) -> str:
    """A fresh game on air, with the panel showing it at rev 0."""
    game = server.create(spec(**kw), on_air=True)
    panel.open()
    panel.wait_rev(0, game)
    return game


# ---- login and language --------------------------------------------------------------------

def test_login_then_switch_language(panel_server: Server, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(panel_server.url + "/control/")
    page.fill("input[name=password]", "not-the-password")
    page.click("button[type=submit]")
    expect(page.locator(".error")).to_have_text("Неверный пароль.")
    assert panel_server.call("GET", "/api/games", None).ok  # (the token still works, of course)

    p = Panel(page, panel_server).open()
    expect(page.locator("#btn-spin")).to_be_visible()
    expect(p.button("start_timer").locator(".label")).to_have_text("Старт минуты")
    page.select_option("#lang-select", "en")
    expect(p.button("start_timer").locator(".label")).to_have_text("Start minute")
    expect(page.locator('nav a[aria-current="page"]')).to_have_text("On air")
    page.reload()  # the choice is kept
    expect(p.button("start_timer").locator(".label")).to_have_text("Start minute")
    page.select_option("#lang-select", "uk")
    expect(p.button("start_timer").locator(".label")).to_have_text("Старт хвилини")
    page.select_option("#lang-select", "ru")

    page.click("#logout")
    expect(page.locator("input[name=password]")).to_be_visible()
    assert page.request.get(panel_server.url + "/api/games").status == 401
    assert not p.errors, p.errors


# ---- playing -------------------------------------------------------------------------------

def test_a_whole_round_by_clicks(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page = panel.page
    panel.expect_disabled("correct", "раунд не начат — сначала волчок")

    panel.click(panel.sector(4), rev=1)
    expect(panel.sector(4)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(page.locator("#q-text")).to_have_text("Вопрос сектора 4.1: что это?")
    expect(page.locator("#q-answer")).to_contain_text("Ответ 4.1")   # the operator sees the answer
    expect(panel.button("correct")).to_be_disabled()                 # the minute has not started

    panel.click(panel.button("start_timer"), rev=2)
    expect(page.locator("#timer")).to_have_attribute("data-state", "running")
    first = page.inner_text("#timer-digits")
    # the minute counts down
    page.wait_for_function("first => document.getElementById('timer-digits').innerText !== first", arg=first,
                           timeout=10_000)

    panel.click(panel.button("correct"), rev=3)
    assert panel.score() == ("1", "0")
    expect(panel.sector(4)).to_have_class(re.compile(r"\bresult-experts\b"))
    state = panel_server.state(game)
    assert state["score"] == {"experts": 1, "viewers": 0}
    assert state["sectors"][3]["played"] and state["sectors"][3]["result"] == "experts"
    assert state["round"]["phase"] == "closed" and state["rev"] == 3


TIMER_WRITES = """ms => new Promise((done) => {
  const seen = [];
  const watch = new MutationObserver((records) => seen.push(...records.map((r) => r.type + ":" + r.target.nodeName)));
  watch.observe(document.getElementById("timer"), {subtree: true, childList: true, characterData: true, attributes: true});
  setTimeout(() => { watch.disconnect(); done(seen); }, ms);
})"""


def test_a_clock_that_stands_still_is_not_drawn_again(panel_server: Server, panel: Panel) -> None:
    """The panel's clock is looked at ten times a second, and written only when it changed: a
    panel left open with no minute running (or a paused one) is not laid out and painted again
    each time — a host's tablet on battery (0.07 → 0.01 of a core for an idle panel here)."""
    on_air(panel_server, panel)
    page = panel.page
    assert page.evaluate(TIMER_WRITES, 700) == []        # no round: «–:––» stands
    panel.click(panel.sector(2), rev=1)
    panel.click(panel.button("start_timer"), rev=2)
    assert page.evaluate(TIMER_WRITES, 700) != []        # the minute runs: its digits and bar move
    panel.click(panel.button("pause"), rev=3)
    expect(page.locator("#timer")).to_have_attribute("data-state", "paused")
    assert page.evaluate(TIMER_WRITES, 700) == []        # paused: nothing moves, nothing is written


def test_rounds_by_hotkeys(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page, kb = panel.page, panel.page.keyboard
    expect(panel.button("start_timer").locator("kbd")).to_have_text("Пробел")   # keys are on the buttons
    expect(panel.button("correct").locator("kbd")).to_have_text("+")

    # the top stopped on 12: digits, then Enter
    kb.press("1")
    kb.press("2")
    expect(page.locator("#sector-entry")).to_contain_text("Сектор 12")
    kb.press("Enter")
    panel.wait_rev(1)
    assert panel_server.state(game)["round"]["sector"] == 12

    kb.press("Space")
    panel.wait_rev(2)
    kb.press("p")
    panel.wait_rev(3)
    expect(page.locator("#timer")).to_have_attribute("data-state", "paused")
    assert panel_server.state(game)["timer"]["running"] is False
    kb.press("p")
    panel.wait_rev(4)
    expect(page.locator("#timer")).to_have_attribute("data-state", "running")
    kb.press("Minus")
    panel.wait_rev(5)
    assert panel.score() == ("0", "1")
    state = panel_server.state(game)
    assert state["score"] == {"experts": 0, "viewers": 1}
    assert state["prizes"][0]["author"]["name"] == "Зритель 12"

    # an early answer, judged correct, banks an extra minute
    kb.press("7")
    kb.press("NumpadEnter")
    panel.wait_rev(6)
    kb.press("e")
    panel.wait_rev(7)
    kb.press("Equal")
    panel.wait_rev(8)
    assert panel.score() == ("1", "1")
    expect(page.locator('[data-badge="extra"]')).to_have_text("1 доп. минута")
    assert panel_server.state(game)["extra_minutes"] == 1

    # the server draws; undo from the keyboard takes the draw back
    kb.press("w")
    panel.wait_rev(9)
    drawn = panel_server.state(game)["round"]
    assert drawn["phase"] == "reading" and drawn["sector"] not in (7, 12)
    expect(page.locator(".q-head")).to_contain_text(f"Сектор {drawn['sector']}")
    kb.press("u")
    expect(page.locator("#undo-what")).to_contain_text(f"сектор {drawn['sector']}")
    kb.press("Enter")
    panel.wait_rev(10)
    state = panel_server.state(game)
    assert state["round"]["sector"] == 7 and state["round"]["phase"] == "closed"


def test_undo_says_what_it_reverts(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page = panel.page
    panel.expect_disabled("undo", "нечего отменять")
    panel.click(panel.sector(2), rev=1)
    expect(panel.button("undo").locator(".label")).to_have_text("Отменить: Волчок: сектор 2")
    panel.click(panel.button("start_timer"), rev=2)
    panel.click(panel.button("correct"), rev=3)
    expect(panel.button("undo").locator(".label")).to_have_text("Отменить: Верный ответ в секторе 2 (и очко)")

    # Esc closes the confirmation and nothing happens
    panel.button("undo").click()
    expect(page.locator("#undo-what")).to_have_text(
        "Отменить «Верный ответ в секторе 2 (и очко)»? Игра вернётся к состоянию до этой команды.")
    page.keyboard.press("Escape")
    expect(page.locator("#confirm")).to_be_hidden()
    # a keyboard user: Enter on the focused button presses it — on «Нет» it must not undo
    panel.button("undo").focus()
    page.keyboard.press("Enter")
    page.locator("#undo-no").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#confirm")).to_be_hidden()
    page.wait_for_timeout(300)
    assert panel_server.state(game)["rev"] == 3

    panel.button("undo").click()
    page.click("#undo-yes")
    panel.wait_rev(4)
    assert panel.score() == ("0", "0")
    state = panel_server.state(game)
    assert state["score"] == {"experts": 0, "viewers": 0}
    assert state["round"]["phase"] == "discussion" and not state["sectors"][1]["played"]
    expect(panel.button("undo").locator(".label")).to_have_text("Отменить: Старт минуты")
    expect(panel.button("correct")).to_be_enabled()


def test_a_refused_command_says_why_in_the_panels_words_and_changes_nothing(
        panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page = panel.page
    panel.click(panel.sector(3), rev=1)
    panel.click(panel.button("early_answer"), rev=2)
    # 0:0 in phase `answer`: club help is not allowed — the button says why …
    panel.expect_disabled("club_help", "только когда знатоки отстают в счёте")
    expect(page.locator('.act-wrap:has([data-action="club_help"])')).to_have_attribute(
        "title", "только когда знатоки отстают в счёте")
    before_rev, before_log = panel_server.state(game)["rev"], panel_server.log_length(game)

    # … and its hotkey asks the server anyway, which refuses: said in the panel's words, the
    # server's English only for a developer (data-detail, the console)
    page.keyboard.press("h")
    refusal = panel.notice("club_help_unavailable")
    expect(refusal).to_be_visible()
    expect(refusal.locator(".notice-title")).to_have_text("Помощь клуба: только когда знатоки отстают в счёте")
    expect(refusal).not_to_contain_text("No club help")
    expect(refusal).to_have_attribute("data-detail", "No club help: only while the experts are behind in the score.")
    page.wait_for_timeout(300)
    assert panel_server.state(game)["rev"] == before_rev == panel.rev
    assert panel_server.log_length(game) == before_log
    assert panel_server.state(game)["club_help"] == {"available": True, "used": False}


def test_a_doubled_press_changes_the_game_once(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page = panel.page
    panel.click(panel.sector(6), rev=1)

    page.keyboard.press("Space")
    page.keyboard.press("Space")
    calm = panel.notice("double_press")
    expect(calm).to_be_visible()
    expect(calm).to_have_class(re.compile(r"notice-info"))          # calm, not an error
    expect(calm).to_contain_text("дважды ничего не делается")
    panel.wait_rev(2)
    page.wait_for_timeout(300)
    log = panel_server.api("GET", f"/api/games/{game}/log")
    assert log["rev"] == 2
    assert [e["event"]["type"] for e in log["events"]].count("timer_started") == 1

    panel.button("correct").dblclick()
    panel.wait_rev(3)
    page.wait_for_timeout(300)
    state = panel_server.state(game)
    assert state["rev"] == 3 and state["score"] == {"experts": 1, "viewers": 0}

    # a doubled undo confirmation reverts one command, not two
    page.keyboard.press("u")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    panel.wait_rev(4)
    page.wait_for_timeout(300)
    state = panel_server.state(game)
    assert state["rev"] == 4 and state["round"]["phase"] == "discussion"


def test_two_panels_stay_in_sync(panel_server: Server, panel: Panel, tablet_context: BrowserContext) -> None:
    game = on_air(panel_server, panel)
    tablet = Panel(tablet_context.new_page(), panel_server).open()
    tablet.wait_rev(0, game)
    # usable on a tablet: nothing wider than the screen, big touch targets
    assert fits_the_screen(tablet.page)
    assert_big_touch_targets(*(tablet.button(action) for action in ("start_timer", "correct", "incorrect", "undo")))

    panel.sector(8).click()
    tablet.wait_rev(1)
    expect(tablet.sector(8)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(tablet.page.locator("#q-text")).to_have_text("Вопрос сектора 8.1: что это?")

    tablet.button("start_timer").tap()
    panel.wait_rev(2)
    tablet.wait_rev(2)
    expect(panel.page.locator("#timer")).to_have_attribute("data-state", "running")
    expect(tablet.page.locator("#timer")).to_have_attribute("data-state", "running")
    # both count the same minute from the server's ends_at
    a = panel.page.inner_text("#timer-digits")
    b = tablet.page.inner_text("#timer-digits")
    secs = [int(x.split(":")[0]) * 60 + float(x.split(":")[1]) for x in (a, b)]
    assert abs(secs[0] - secs[1]) <= 1, (a, b)

    tablet.button("incorrect").tap()
    panel.wait_rev(3)
    tablet.wait_rev(3)
    assert panel.score() == ("0", "1") == tablet.score()
    expect(panel.button("undo").locator(".label")).to_have_text("Отменить: Неверный ответ в секторе 8 (и очко)")
    assert not tablet.errors, tablet.errors


def test_superblitz_player_and_the_decisive_round(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel, target=2)
    page, kb = panel.page, panel.page.keyboard
    panel.click(panel.sector(1), rev=1)
    panel.click(panel.button("start_timer"), rev=2)
    panel.click(panel.button("correct"), rev=3)

    # 1 point of 2: the experts may ask for the decisive round; the host decides with three players
    kb.press("d")
    panel.wait_rev(4)
    expect(page.locator("#picker")).to_have_attribute("data-mode", "decisive")
    panel.expect_disabled("spin", "знатоки просят решающий раунд — ждём решения ведущего")
    expect(panel.button("grant")).to_be_disabled()
    for key in ("Shift+Digit1", "Shift+Digit2", "Shift+Digit3"):
        kb.press(key)
    expect(panel.button("grant").locator(".label")).to_have_text("Разрешить (3/3)")
    kb.press("g")
    panel.wait_rev(5)
    state = panel_server.state(game)
    assert state["decisive"] == {"requested": False, "active": True, "players": ["Анна", "Борис", "Вера"],
                                 "before": {"experts": 1, "viewers": 0}}
    assert state["score"] == {"experts": 0, "viewers": 0}
    expect(page.locator('[data-badge="decisive"]')).to_contain_text("Анна, Борис, Вера")

    # the superblitz: only the three at the table may be named, before the first question
    panel.click(panel.sector(9), rev=6)
    expect(page.locator("#picker")).to_have_attribute("data-mode", "superblitz")
    expect(page.locator("#picker .player")).to_have_count(3)
    expect(panel.button("start_timer").locator(".why")).to_have_text("суперблиц: сначала капитан называет игрока")
    kb.press("Shift+Digit2")
    panel.wait_rev(7)
    assert panel_server.state(game)["round"]["player"] == "Борис"
    expect(page.locator(".q-player")).to_have_text("Играет: Борис")
    expect(panel.button("start_timer")).to_be_enabled()


# ---- the connection ------------------------------------------------------------------------

def test_lost_connection_banner_and_resync_after_restart(server_factory, context: BrowserContext) -> None:
    srv = server_factory(demo=False).start()
    game = srv.create(spec(), on_air=True)
    panel = Panel(context.new_page(), srv).open()
    panel.wait_rev(0, game)
    banner = panel.page.locator("#conn-banner")
    expect(banner).to_be_hidden()

    srv.kill()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("НЕТ СВЯЗИ С СЕРВЕРОМ")
    expect(panel.sector(4)).to_be_disabled()
    expect(panel.button("spin").locator(".why")).to_have_text("нет связи с сервером")

    # While this panel is cut off, the game moves on elsewhere (same data, another port) …
    other = server_factory(data=srv.data, demo=False).start()
    other.play(game, "spin", landed=4)
    other.stop()
    # … and the server comes back on the panel's port: the banner goes, the state is re-read, and
    # a notice says so (it lasts 8 s: a loaded machine may be slower than that to look, so the
    # page records every one it shows)
    panel.page.evaluate("""() => { window.__reconnected = [];
      new MutationObserver(() => document.querySelectorAll('.notice[data-code="reconnected"]')
        .forEach((n) => window.__reconnected.push(n.textContent)))
        .observe(document.body, { childList: true, subtree: true }); }""")
    srv.start()
    expect(banner).to_be_hidden(timeout=15000)
    panel.wait_rev(1)
    expect(panel.sector(4)).to_have_class(re.compile(r"\bcurrent\b"))
    panel.page.wait_for_function("() => window.__reconnected.some((t) => t.includes('Связь восстановлена'))")
    panel.click(panel.button("start_timer"), rev=2)
    assert srv.state(game)["round"]["phase"] == "discussion"
    # the browser logs the refused reconnection attempts while the server was down; nothing else
    # (a request refused while it was down, or cut by the kill: any network error of Chromium's)
    assert all("WebSocket" in e or "net::ERR_" in e or "socket.io" in e for e in panel.errors), panel.errors


# ---- setup ---------------------------------------------------------------------------------

def test_create_a_game_on_the_setup_page(panel_server: Server, panel: Panel) -> None:
    old = panel_server.create(spec(title="Прошлая игра"), on_air=True)
    page = panel.open("/control/setup").page
    expect(page.locator(f'tr[data-game="{old}"]')).to_contain_text("В ЭФИРЕ")
    games_before = len(panel_server.api("GET", "/api/games")["games"])

    page.fill("#f-title", "Финал сезона")
    page.fill("#f-team", "Команда Петрова")
    for i, name in enumerate(["Олег", "Пётр", "Рита"]):
        page.locator(".player-input").nth(i).fill(name)
    page.select_option("#f-captain", "Пётр")
    page.select_option("#f-blitz", "4")
    page.select_option("#f-superblitz", "4")
    page.click("#f-create")
    expect(page.locator("#f-errors")).to_contain_text("Блиц и суперблиц не могут быть в одном секторе.")
    assert len(panel_server.api("GET", "/api/games")["games"]) == games_before

    page.select_option("#f-superblitz", "8")
    page.fill("#f-t-minute", "30")
    page.click('.envelope[data-sector="1"] summary')
    page.fill("#q-1-0-text", "Что растёт корнями вверх?")
    page.fill("#q-1-0-answer", "Сосулька")
    page.fill("#q-1-0-author", "Ирина Коваль")
    page.fill("#q-1-0-city", "Одесса")
    page.fill("#q-1-0-photo", "https://example.org/irina.jpg")
    page.fill("#q-1-0-amount", "500")
    page.click('.envelope[data-sector="4"] summary')
    for i in range(3):
        page.fill(f"#q-4-{i}-text", f"Блиц {i + 1}?")
        page.fill(f"#q-4-{i}-answer", f"Б{i + 1}")
    expect(page.locator('.envelope[data-sector="4"] summary')).to_contain_text("заполнено 3 из 3")
    page.click("#f-create")
    created = page.locator("#f-created")
    expect(created).to_be_visible()
    game = created.get_attribute("data-game")

    state = panel_server.state(game)
    assert state["title"] == "Финал сезона"
    assert state["experts"] == {"name": "Команда Петрова", "players": ["Олег", "Пётр", "Рита"], "captain": "Пётр"}
    kinds = [s["kind"] for s in state["sectors"]]
    assert kinds[3] == "blitz" and kinds[7] == "superblitz" and kinds[12] == "sponsor"
    assert kinds.count("regular") == 10
    q = state["sectors"][0]["questions"][0]
    assert (q["text"], q["answer"]) == ("Что растёт корнями вверх?", "Сосулька")
    assert q["author"] == {"name": "Ирина Коваль", "city": "Одесса", "photo": "https://example.org/irina.jpg"}
    assert q["prize"] == {"amount": 500, "currency": "UAH"}
    assert [x["text"] for x in state["sectors"][3]["questions"]] == ["Блиц 1?", "Блиц 2?", "Блиц 3?"]
    assert state["sectors"][7]["questions"] == [] and state["sectors"][1]["questions"] == []  # paper
    assert state["timers"]["minute"] == 30_000 and state["timers"]["blitz"] == 20_000
    assert panel_server.api("GET", "/api/on-air")["game"] == game
    expect(page.locator(f'tr[data-game="{game}"]')).to_contain_text("В ЭФИРЕ")

    # putting the old game back on air asks first, naming both games
    page.click(f'tr[data-game="{old}"] button')
    expect(page.locator("#confirm")).to_contain_text("Сейчас в эфире «Финал сезона» (0:0, идёт)")
    page.click("#on-air-yes")
    expect(page.locator(f'tr[data-game="{old}"]')).to_contain_text("В ЭФИРЕ")
    assert panel_server.api("GET", "/api/on-air")["game"] == old

    # the live page follows the game on air
    page.click('nav a[href="/control/"]')
    expect(page.locator("#game-title")).to_have_text("Прошлая игра — Команда Тестова")


# ---- graphics desk -------------------------------------------------------------------------

def refreshed_row(page: Page, text: str) -> Locator:
    """The connected-overlays row with `text`, refreshing the list until the overlay's "hello"
    (sent without waiting for an answer) has reached the server."""
    row = page.locator("#overlays-body tr", has_text=text)
    deadline = time.monotonic() + 10
    while True:
        page.click("#overlays-refresh")
        try:
            expect(row).to_be_visible(timeout=500)
            return row
        except AssertionError:
            if time.monotonic() > deadline:
                raise


def test_graphics_desk_takes_and_clears_and_reloads_overlays(panel_server: Server, panel: Panel) -> None:
    panel_server.create(spec(), on_air=True)
    page = panel.open("/control/graphics").page

    # previews: every main overlay, scaled down; they can be switched off (and stay off)
    frames = page.locator(".preview-card iframe")
    expect(frames.first).to_be_visible()
    srcs = frames.evaluate_all("els => els.map(e => e.getAttribute('src'))")
    assert "/overlays/full?preview=1&lang=ru" in srcs and any(s.startswith("/overlays/lower-third") for s in srcs)
    # the other graphics the server has load on demand; those it lacks are named, not framed
    graphics = ["scoreboard", "timer", "table", "question", "blitz", "lower-third", "result", "full",
                "central-table", "club-tables", "draw", "game-rating", "best-player",
                "season-rating", "final-teams", "series", "bug", "ticker", "slate", "credits"]
    have = [g for g in graphics if (ROOT / "templates/overlays" / f"{g}.html").exists()]
    more = page.locator("#more-previews summary")
    if more.count():
        more.click()
    expect(frames).to_have_count(len(have))
    lacking = [g for g in graphics if g not in have]
    if lacking:
        expect(page.locator(".missing-previews")).to_contain_text(", ".join(lacking))
    page.uncheck("#previews-on")
    expect(frames).to_have_count(0)

    page.click('.preset[data-title="Борис"]')
    expect(page.locator('.on-air-item[data-graphic="lower-third"]')).to_contain_text("Борис")
    shown = panel_server.api("GET", "/api/graphics")["graphics"]["lower-third"]
    assert shown["data"]["title"] == "Борис"
    assert shown["data"]["subtitle"] == "знаток, команда «Команда Тестова»"
    assert shown["data"]["duration_ms"] == 8000

    page.click("#lt-clear")
    expect(page.locator('.on-air-item[data-graphic="lower-third"]')).to_have_count(0)   # gone, not "hidden"
    on_air_now = panel_server.api("GET", "/api/graphics")
    assert "lower-third" not in on_air_now["graphics"] and "lower-third" in on_air_now["hidden"]

    page.fill("#host-name", "Борис Крюк")
    page.click('.preset[data-title="Борис Крюк"]')
    expect(page.locator('.on-air-item[data-graphic="lower-third"]')).to_contain_text("Борис Крюк")
    assert panel_server.api("GET", "/api/graphics")["graphics"]["lower-third"]["data"]["subtitle"] == "ведущий"
    page.fill("#free-title", "Спасибо, что были с нами")
    page.fill("#free-duration", "0")
    page.click("#free-take")
    expect(page.locator('.on-air-item[data-graphic="lower-third"]')).to_contain_text("Спасибо, что были с нами")
    data = panel_server.api("GET", "/api/graphics")["graphics"]["lower-third"]["data"]
    assert data == {"title": "Спасибо, что были с нами"}   # no auto-out

    # a connected overlay appears in the list, and its reload button reaches it
    reloads: list[dict] = []
    client = socketio.Client(reconnection=False)
    client.on("reload", lambda data: reloads.append(data), namespace="/overlay")
    client.connect(panel_server.url, namespaces=["/overlay"], transports=["websocket"])
    try:
        client.emit("hello", {"graphic": "scoreboard", "page": "obs://studio-a/scoreboard"}, namespace="/overlay")
        row = refreshed_row(page, "obs://studio-a/scoreboard")
        row.locator("button").click()
        deadline = time.monotonic() + 5
        while not reloads and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reloads == [{}]
        expect(row.locator(".polling-tag")).to_have_count(0)  # a websocket overlay gets no warning
        # an overlay stuck on long-polling (a proxy that blocks websockets) is marked as such
        polling = socketio.Client(reconnection=False)
        polling.connect(panel_server.url, namespaces=["/overlay"], transports=["polling"])
        try:
            polling.emit("hello", {"graphic": "timer", "page": "obs://behind-a-proxy/timer"}, namespace="/overlay")
            slow = refreshed_row(page, "obs://behind-a-proxy/timer")
            expect(slow.locator(".polling-tag")).to_have_text(" (без websocket)")
        finally:
            polling.disconnect()
    finally:
        client.disconnect()


# ---- every string translated ---------------------------------------------------------------

def _dictionaries() -> dict[str, dict[str, str]]:
    """The panel's words per language, out of the gettext catalogs (overlay/i18n/locales)."""
    books = Catalogs()
    return {lang: books.scope_json(lang, "panel")["messages"] for lang in books.langs}


def test_every_panel_string_exists_in_every_language() -> None:
    dicts = _dictionaries()
    assert set(dicts["ru"]) == set(dicts["uk"]) == set(dicts["en"])
    for lang, d in dicts.items():
        for key, text in d.items():
            assert set(re.findall(r"\{(\w+)\}", str(text))) == set(re.findall(r"\{(\w+)\}", str(dicts["ru"][key]))), (lang, key)
    used: set[str] = set()
    for path in (ROOT / "static/control").glob("*.js"):
        src = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'\bt\("([\w.]+)"', src))
        used |= set(re.findall(r'\bno\("([\w.]+)"', src))
        used |= set(re.findall(r'label: "(act\.[\w.]+)"', src))
    for path in (ROOT / "templates/control").rglob("*.html"):  # parts/ too
        used |= {k for k in re.findall(r'data-i18n(?:-[a-z-]+)?="([\w.]+)"', path.read_text(encoding="utf-8"))
                 if "{" not in k}
    missing = sorted(k for k in used if k not in dicts["ru"])
    assert not missing, missing
    # families looked up by a computed key
    for prefix, names in {"kind": ["regular", "blitz", "superblitz", "sponsor"],
                          "phase": ["none", "reading", "discussion", "answer", "club_help", "closed"],
                          "timer": ["minute", "blitz", "extra_minute", "club_help"],
                          "side": ["experts", "viewers"], "rules": ["tv", "club"],
                          "title": ["panel", "setup", "graphics", "login"],
                          "conn": ["connecting", "connected", "lost", "unauthorized"]}.items():
        for name in names:
            assert f"{prefix}.{name}" in dicts["ru"], f"{prefix}.{name}"
    # every refusal code the rules can raise has a translated title
    rule_codes = {"stale_rev", "tv_only", "club_only", "unknown_game", "bad_field", "unknown_command"}
    for name in ("game.py", "tv.py", "club.py"):
        rule_codes |= set(re.findall(r'RuleError\(\s*"(\w+)"', (ROOT / "overlay/rules" / name).read_text(encoding="utf-8")))
    missing_codes = sorted(c for c in rule_codes if f"err.{c}" not in dicts["ru"])
    assert not missing_codes, missing_codes
    json.dumps(dicts)  # plain strings only


# ---- the panel's rules mirror agrees with the server ------------------------------------------

PROBES: list[tuple[str, dict]] = [
    ("spin", {"landed": 13}), ("start_timer", {}), ("pause_timer", {}), ("resume_timer", {}),
    ("early_answer", {}), ("extra_minute", {}), ("club_help", {}), ("judge", {"correct": True}),
    ("judge", {"correct": False}), ("choose_player", {"player": "?"}), ("request_decisive_round", {}),
    ("decide_decisive_round", {"granted": False}),
    ("decide_decisive_round", {"granted": True, "players": ["Анна", "Борис", "Вера"]}),
    ("decide_decisive_round", {"granted": True, "players": ["Анна", "Борис", "Незнакомец"]}),
]


def _probe(server: Server, page: Page, game: str) -> list[str]:
    """Every probe command in the game's current state: what the panel's rules.js says, and
    what the server does (an accepted probe is undone at once). Returns the disagreements."""
    state = server.state(game)
    player = (state["decisive"]["players"] or state["experts"]["players"][1:])[0]
    probes = [(t, {**f, "player": player} if "player" in f else f) for t, f in PROBES]
    mirror = page.evaluate(
        f"""async ([state, probes]) => {{
             const rules = await import('{static_url('control/rules.js')}');
             return probes.map(([type, fields]) => rules.check(state, type, fields).ok);
           }}""", [state, probes])
    wrong, rev = [], state["rev"]
    for (type_, fields), allowed in zip(probes, mirror):
        r = server.call("POST", f"/api/games/{game}/commands", {"type": type_, **fields, "expected_rev": rev})
        assert r.status_code in (200, 422), r.text
        if r.status_code == 200:  # a command, then its undo: two new revs, the same game
            server.api("POST", f"/api/games/{game}/undo", {"expected_rev": rev + 1})
            rev += 2
        if (r.status_code == 200) != allowed:
            phase = state["round"]["phase"] if state["round"] else None
            wrong.append(f"{type_} {fields} in {phase}: panel {'allows' if allowed else 'forbids'}, "
                         f"server {r.status_code} {r.text[:120]}")
    return wrong


def test_the_panels_rules_agree_with_the_server_in_every_phase(panel_server: Server, context: BrowserContext) -> None:
    game = panel_server.create(spec(target=4))
    page = context.new_page()
    page.goto(panel_server.url + "/control/")
    script = [  # a game through every phase and option (target 4: decisive round at 3 points)
        ("spin", {"landed": 4}), ("early_answer", {}),                    # answer while not behind
        ("judge", {"correct": True}),                                     # 1:0, extra minute banked
        ("spin", {"landed": 1}), ("start_timer", {}), ("pause_timer", {}), ("resume_timer", {}),
        ("judge", {"correct": False}),                                    # 1:1
        ("spin", {"landed": 6}), ("start_timer", {}), ("extra_minute", {}),
        ("judge", {"correct": False}),                                    # 1:2
        ("spin", {"landed": 2}), ("early_answer", {}), ("club_help", {}),
        ("judge", {"correct": True}),                                     # 2:2, extra minute banked
        ("spin", {"landed": 3}), ("early_answer", {}),                    # answer, club help used
        ("judge", {"correct": True}),                                     # 3:2
        ("spin", {"landed": 9}), ("choose_player", {"player": "Борис"}), ("start_timer", {}),
        ("judge", {"correct": True}), ("start_timer", {}),
        ("judge", {"correct": False}),                                    # superblitz lost: 3:3
        ("request_decisive_round", {}), ("decide_decisive_round", {"granted": False}),
        ("request_decisive_round", {}),
        ("decide_decisive_round", {"granted": True, "players": ["Анна", "Борис", "Вера"]}),
        ("spin", {"landed": 7}), ("early_answer", {}),                    # decisive: no extra minute, no help
        ("judge", {"correct": False}),                                    # decisive round lost: game over
    ]
    wrong = _probe(panel_server, page, game)
    for type_, fields in script:
        panel_server.play(game, type_, **fields)
        wrong += _probe(panel_server, page, game)
    final = panel_server.state(game)
    assert final["status"] == "finished" and final["score"] == {"experts": 0, "viewers": 4}
    assert not wrong, "\n".join(wrong)
