"""The OSC page and the question packs in the real system Chromium against real servers.

OSC: a python-osc receiver on a free UDP port is the server's `--osc-target`; the page shows the
target, the cues a command sent, a test-fire, a bad osc.toml refused with its place (and the old
configuration kept), and a target added from a preset that then really receives cues.
Packs: a real pack file uploaded through the page, read with its answers, a broken file refused
with its line, then a tv game's envelopes filled from it by hand and at random, a viewer added,
and the created game checked through the API against the pack.
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, expect
from pythonosc.dispatcher import Dispatcher
from pythonosc.osc_server import ThreadingOSCUDPServer

from tests.browser.helpers import PanelPage
from tests.support import ROOT, Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PACK = ROOT / "tests/fixtures/packs/rusch16.txt"


class Receiver:
    """An OSC device on loopback: every message it gets, with its arguments."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, list[Any]]] = []
        dispatcher = Dispatcher()
        dispatcher.set_default_handler(lambda address, *args: self.messages.append((address, list(args))))
        self.server = ThreadingOSCUDPServer(("127.0.0.1", 0), dispatcher)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, address: str, timeout: float = 5) -> list[Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for got, args in list(self.messages):
                if got == address:
                    return args
            time.sleep(0.02)
        raise AssertionError(f"no {address} within {timeout} s; got {self.messages}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RefusingPage(PanelPage):
    """A panel page that expects some refusals: the browser logs every 4xx answer as a console
    error (a refused file, a refused osc.toml)."""

    def expected(self, message: ConsoleMessage) -> bool:
        return "status of 400" in message.text


def open_page(context: BrowserContext, server: Server, path: str) -> RefusingPage:
    return RefusingPage(context.new_page(), server).open(path)


# ---- OSC -----------------------------------------------------------------------------------

@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    pair = (Receiver(), Receiver())
    yield pair
    for r in pair:
        r.close()


@pytest.fixture
def osc_server(tmp_path: Path, receivers: tuple[Receiver, Receiver]) -> Iterator[Server]:
    srv = Server(tmp_path / "data", mode="threading", demo=False,
                 args=("--osc-target", f"127.0.0.1:{receivers[0].port}")).start()
    yield srv
    srv.stop()


BAD_PLACEHOLDER = """# a cue with a typo
[targets.desk]
host = "127.0.0.1"
port = 9
presets = []

[[cues.spin]]
target = "desk"
address = "/desk/sector/{sectr}"
"""


def test_osc_page_targets_cues_config_and_presets(osc_server: Server, receivers: tuple[Receiver, Receiver],
                                                  context: BrowserContext) -> None:
    rx, rx2 = receivers
    game = osc_server.create({"rules": "tv", "title": "OSC", "experts": {"name": "Команда", "players": ["Анна", "Борис", "Вера"]}},
                             on_air=True)
    osc_page = open_page(context, osc_server, "/control/osc")
    page = osc_page.page

    target = page.locator('[data-target="cli-1"]')
    expect(target).to_contain_text(f"127.0.0.1:{rx.port}")
    expect(target).to_contain_text("из --osc-target")
    expect(page.locator("#listen-line")).to_contain_text("Входящие команды выключены")

    # a command goes out as a cue, and the page shows it under its target (the page polls)
    assert osc_server.command(game, type="spin", landed=5).ok
    assert rx.wait_for("/chgk/event/spin") == [5, 5, "regular", 0]
    row = target.locator('tr[data-event="spin"]')
    expect(row).to_contain_text("/chgk/event/spin")
    expect(row).to_contain_text('5 5 "regular" 0')

    # «Проверить»: one event's cues sent now, with the fields typed in
    fire_row = page.locator('.event-row[data-event="time_up"]')
    fire_row.locator('input[data-field="kind"]').fill("minute")
    fire_row.locator(".fire-btn").click()
    result = page.locator('.fire-result[data-event="time_up"]')
    expect(result).to_contain_text("Отправлено сообщений: 1")
    expect(result).to_contain_text("cli-1 ← /chgk/event/time_up")
    assert rx.wait_for("/chgk/event/time_up") == ["minute"]

    # a bad osc.toml is refused with its place; the running configuration stays
    before = osc_server.call("GET", "/api/osc/config").json()
    editor = page.locator("#config-text")
    expect(editor).to_have_value(before["toml"])
    editor.fill(BAD_PLACEHOLDER)
    page.click("#config-save")
    box = page.locator("#config-error")
    expect(box).to_be_visible()
    expect(box).to_contain_text("Ошибка в osc.toml")
    expect(page.locator("#config-error-message")).to_contain_text("cues.spin[0].address: unknown placeholder {sectr}")
    expect(box).to_contain_text("Работает прежняя настройка")
    expect(page.locator("#config-error-goto")).to_have_text("Показать строку 9")
    assert page.evaluate("(() => { const a = document.getElementById('config-text');"
                         " return a.value.slice(a.selectionStart, a.selectionEnd); })()") == 'address = "/desk/sector/{sectr}"'
    after = osc_server.call("GET", "/api/osc/config").json()
    assert after["toml"] == before["toml"] and after["targets"] == before["targets"] == ["cli-1"]
    expect(editor).to_have_value(BAD_PLACEHOLDER)           # the operator's text is not thrown away
    editor.fill("[targets.desk\nhost = 1\n")
    page.click("#config-save")
    expect(page.locator("#config-error-message")).to_contain_text("not valid TOML")
    expect(page.locator("#config-error-goto")).to_have_text("Показать строку 1")
    assert osc_server.call("GET", "/api/osc/config").json()["toml"] == before["toml"]

    # a preset target written into the text, applied, and then really receiving cues
    page.click("#config-revert")
    expect(editor).to_have_value(before["toml"])
    expect(box).to_be_hidden()
    page.select_option("#preset-name", "generic")
    page.fill("#preset-target", "second")
    page.fill("#preset-host", "127.0.0.1")
    page.fill("#preset-port", str(rx2.port))
    page.click("#preset-add")
    expect(editor).to_have_value(f'{before["toml"].rstrip()}\n\n[targets.second]\nhost = "127.0.0.1"\n'
                                 f'port = {rx2.port}\npresets = ["generic"]\n')
    page.click("#config-save")
    expect(page.locator('.notice[data-code="saved"]')).to_contain_text("Настройка применена")
    assert osc_server.call("GET", "/api/osc/config").json()["targets"] == ["cli-1", "second"]
    expect(page.locator('[data-target="second"]')).to_contain_text(f"127.0.0.1:{rx2.port}")
    expect(page.locator('[data-target="second"]')).to_contain_text("из osc.toml")
    assert osc_server.command(game, type="start_timer").ok
    assert rx2.wait_for("/chgk/event/timer_started") == ["minute", 60]
    expect(page.locator('[data-target="second"] tr[data-event="timer_started"]')).to_be_visible()
    assert not osc_page.errors, osc_page.errors


# ---- packs ---------------------------------------------------------------------------------

def _pack_question(pack: dict, ref: str) -> dict:
    tour, number = (int(x) for x in ref.split("."))
    return pack["tours"][tour - 1]["questions"][number - 1]


def test_upload_browse_and_fill_a_game_from_a_pack(panel_server: Server, context: BrowserContext,
                                                   tmp_path: Path) -> None:
    packs_page = open_page(context, panel_server, "/control/packs")
    page = packs_page.page

    # a broken file: refused with its line, nothing stored
    packs_before = panel_server.api("GET", "/api/packs")["packs"]
    broken = tmp_path / "broken.txt"
    broken.write_text("Вопрос 1:\nТекст без ответа\n", encoding="utf-8")
    page.set_input_files("#pack-file", str(broken))
    page.click("#pack-upload")
    expect(page.locator("#upload-error")).to_have_attribute("data-code", "bad_pack")
    expect(page.locator("#upload-result")).to_contain_text("Пакет не прочитан")
    expect(page.locator("#upload-result")).not_to_contain_text("question 1 has no answer")   # English: a tooltip only
    expect(page.locator("#upload-error")).to_have_attribute("title", re.compile("question 1 has no answer"))
    expect(page.locator("#upload-result")).to_contain_text("Строка файла: 1")
    assert panel_server.api("GET", "/api/packs")["packs"] == packs_before

    # the real pack (KOI8-R, question database format)
    page.set_input_files("#pack-file", str(PACK))
    page.click("#pack-upload")
    ok = page.locator("#upload-ok")
    expect(ok).to_contain_text("вопросов 90, туров 6")
    pack_id = ok.get_attribute("data-pack")
    pack = panel_server.api("GET", f"/api/packs/{pack_id}")
    expect(page.locator(f'#packs-body tr[data-pack="{pack_id}"]')).to_contain_text(pack["title"])

    # reading it: questions with their answers (operator only), answers can be hidden
    q11 = _pack_question(pack, "1.1")
    card = page.locator('#pack-view .pack-q[data-ref="1.1"]')
    expect(card).to_contain_text(q11["text"][:60])
    expect(card.locator(".pq-answer-line")).to_contain_text(q11["answer"])
    page.uncheck("#show-answers")
    expect(card.locator(".pq-answer-line")).to_have_count(0)
    expect(card).to_contain_text(q11["text"][:60])

    # into a new game: the setup page opens with this pack chosen
    page.click("#use-pack")
    expect(page.locator("#f-pack")).to_have_value(pack_id)
    page.fill("#f-title", "Игра из пакета")
    page.fill("#f-team", "Команда Пакетова")
    page.select_option("#f-blitz", "5")

    # by hand: 2.1 into sector 2 from the browser; a blitz from three numbers typed in
    page.click("#f-pack-browse summary")
    page.click('#f-pack-view .pack-tour[data-tour="2"] summary')
    pick = page.locator('#f-pack-view .pack-q[data-ref="2.1"]')
    pick.locator(".pick-sector").select_option("2")
    pick.locator(".pick-btn").click()
    expect(page.locator('.envelope[data-sector="2"] summary')).to_contain_text("из пакета: 2.1")
    expect(pick.locator(".pick-used")).to_have_text("в секторе 2")
    q21 = _pack_question(pack, "2.1")
    expect(page.locator("#q-2-0-answer")).to_have_value(q21["answer"])
    page.click('.envelope[data-sector="5"] summary')
    page.fill("#ref-5", "1.1 1.2 1.3")
    page.click("#ref-take-5")
    expect(page.locator('.envelope[data-sector="5"] summary')).to_contain_text("заполнено 3 из 3")
    expect(page.locator('.envelope[data-sector="5"] summary')).to_contain_text("из пакета: 1.1, 1.2, 1.3")
    # a question already in an envelope is not put into a second one
    page.click('.envelope[data-sector="3"] summary')
    page.fill("#ref-3", "2.1")
    page.click("#ref-take-3")
    expect(page.locator('.notice[data-code="local"]').first).to_contain_text("Вопрос 2.1 уже в секторе 2")

    # at random: the eleven empty envelopes
    page.click("#f-pack-random")
    expect(page.locator("#f-pack-status")).to_contain_text("Случайно заполнено конвертов: 11")
    for n in range(1, 14):
        expect(page.locator(f'.envelope[data-sector="{n}"] summary')).to_contain_text("из пакета")

    # the viewer and the prize the pack does not have
    page.click('.envelope[data-sector="1"] summary')
    page.fill("#q-1-0-author", "Ирина Коваль")
    page.fill("#q-1-0-city", "Одесса")
    page.fill("#q-1-0-photo", "https://example.org/irina.jpg")
    page.fill("#q-1-0-amount", "700")
    page.click("#f-create")
    created = page.locator("#f-created")
    expect(created).to_be_visible()
    game = created.get_attribute("data-game")
    state = panel_server.state(game)

    # every envelope's questions came from the pack, none twice
    texts = [q["text"] for t in pack["tours"] for q in t["questions"]]
    answers = {q["answer"] for t in pack["tours"] for q in t["questions"]} | {
        p["answer"] for t in pack["tours"] for q in t["questions"] for p in q["parts"]}
    used: list[str] = []
    for sector in state["sectors"]:
        assert sector["questions"], sector["number"]
        assert len(sector["questions"]) == (3 if sector["kind"] == "blitz" else 1)
        for q in sector["questions"]:
            source = [t for t in texts if t and (t in q["text"] or q["text"] in t)]
            assert source, (sector["number"], q["text"][:80])
            assert q["answer"] in answers
            used.append(q["text"])
    assert len(set(used)) == len(used)
    s2 = state["sectors"][1]["questions"][0]
    assert q21["text"] in s2["text"] and s2["answer"] == q21["answer"]
    assert s2.get("accepted", []) == q21["accepted"] and s2.get("source", "") == q21["source"]
    blitz = state["sectors"][4]
    assert blitz["kind"] == "blitz"
    assert [q["answer"] for q in blitz["questions"]] == [_pack_question(pack, r)["answer"] for r in ("1.1", "1.2", "1.3")]
    s1 = state["sectors"][0]["questions"][0]
    assert s1["author"] == {"name": "Ирина Коваль", "city": "Одесса", "photo": "https://example.org/irina.jpg"}
    assert s1["prize"] == {"amount": 700, "currency": "UAH"}
    assert state["sectors"][12]["kind"] == "sponsor"
    assert not packs_page.errors, packs_page.errors
