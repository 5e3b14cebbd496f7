"""The audience page `/live` in the system Chromium at a phone's size, against a real server:
score, round, the question once read and the answer only after its verdict, the club tables,
ru/uk/en; its QR code names the page's public address."""
from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import segno

from tests.faults.helpers import tv_spec
from tests.support import Server

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("CHGK_SCREENSHOTS", "/tmp/chgk-shots"))


@pytest.fixture
def phone(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                   is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: r.status >= 400 and errors.append(f"HTTP {r.status} {r.url}"))
    page.errors = errors
    yield page
    context.close()


def text(page: Any, field: str) -> str:
    return page.eval_on_selector(f'[data-field="{field}"]', "el => el.textContent")


def wait_rev(page: Any, rev: int) -> None:
    page.wait_for_function(f"document.body?.dataset.rev === '{rev}'", timeout=30_000)


def test_live_page_follows_the_game_and_keeps_the_answer_until_the_verdict(shared_server: Server, phone: Any):
    srv = shared_server
    spec = tv_spec("Зрителям")
    game = srv.create(spec, on_air=True)
    phone.goto(srv.url + "/live")
    wait_rev(phone, 0)
    assert "Игра скоро" not in phone.inner_text("body")
    assert text(phone, "experts") == "Команда Иванова" and text(phone, "score-experts") == "0"
    srv.play(game, "spin", landed=4)
    srv.play(game, "start_timer")
    wait_rev(phone, 2)
    question = spec["sectors"][3]["questions"][0]
    assert re.fullmatch(r"10:00|9:5\d", text(phone, "timer")), text(phone, "timer")  # the ten-minute timer, counting
    # The round shows once the top's arrow has stopped (round.reveal_at), as on air.
    phone.wait_for_function("t => document.querySelector('[data-field=question]').textContent === t",
                            arg=question["text"], timeout=30_000)
    assert question["answer"] not in phone.inner_text("body")
    srv.play(game, "judge", correct=True)
    wait_rev(phone, 3)
    assert text(phone, "answer") == question["answer"]
    assert text(phone, "score-experts") == "1"
    assert phone.eval_on_selector_all(".sector.played", "els => els.map(e => e.textContent)") == ["4"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / "live-phone.png"), full_page=True)
    assert phone.errors == []


def test_live_page_speaks_ukrainian_and_english(shared_server: Server, phone: Any):
    for lang, title in (("uk", "Що? Де? Коли? — прямий ефір"), ("en", "What? Where? When? — live")):
        phone.goto(shared_server.url + f"/live?lang={lang}")
        phone.wait_for_function("document.body.classList.contains('ready')", timeout=30_000)
        assert phone.inner_text("h1") == title
        assert phone.title() == title


def test_live_page_is_light(shared_server: Server):
    """One page, one stylesheet, two small modules of ours: no images, nothing over a few kB."""
    html = requests.get(shared_server.url + "/live", timeout=10)
    css = requests.get(shared_server.url + "/static/live/live.css", timeout=10)
    js = requests.get(shared_server.url + "/static/live/live.js", timeout=10)
    assert "<img" not in html.text
    assert len(html.content) < 4000 and len(css.content) < 4000 and len(js.content) < 4000


def test_qr_code_names_the_live_page(shared_server: Server):
    r = requests.get(shared_server.url + "/live/qr.svg", timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("image/svg+xml")
    expected = io.BytesIO()
    segno.make(shared_server.url + "/live", error="m", micro=False).save(
        expected, kind="svg", scale=10, border=2, dark="#000000", light="#ffffff", xmldecl=False, svgns=True,
        title=None)
    assert r.content == expected.getvalue()  # the same matrix as a QR code of this very address
    transparent = requests.get(shared_server.url + "/live/qr.svg?dark=fff&light=none", timeout=10).text
    assert 'fill="#fff' in transparent or "#fff" in transparent


def test_qr_code_uses_the_configured_public_address(tmp_path: Path):
    srv = Server(tmp_path / "data", env={"CHGK_OVERLAY_LIVE_URL": "https://live.example.org/live"}).start()
    try:
        got = requests.get(srv.url + "/live/qr.svg", timeout=10).content
        expected = io.BytesIO()
        segno.make("https://live.example.org/live", error="m", micro=False).save(
            expected, kind="svg", scale=10, border=2, dark="#000000", light="#ffffff", xmldecl=False, svgns=True,
            title=None)
        assert got == expected.getvalue()
    finally:
        srv.stop()


def test_clients_keep_the_newest_epoch_then_rev(shared_server: Server, phone: Any):
    """A restarted writer's state wins even with a lower rev; an older epoch never comes back."""
    phone.goto(shared_server.url + "/live")
    phone.wait_for_function("window.chgkOverlay && window.chgkOverlay.state", timeout=30_000)
    kept = phone.evaluate("""() => {
        const h = window.chgkOverlay, s = h.state, out = [];
        const take = (epoch, rev) => { h.update({...s, epoch, rev}); out.push([h.state.epoch, h.state.rev]); };
        take(s.epoch, s.rev + 5);        // newer rev: taken
        take(s.epoch, s.rev + 2);        // older rev, same epoch: refused
        take(s.epoch + 1, 0);            // a restarted writer, revs begun again: taken
        take(s.epoch, s.rev + 9);        // the old writer (an edge behind): refused
        return [s.epoch, s.rev, out];
    }""")
    epoch, rev, out = kept
    assert out == [[epoch, rev + 5], [epoch, rev + 5], [epoch + 1, 0], [epoch + 1, 0]]
