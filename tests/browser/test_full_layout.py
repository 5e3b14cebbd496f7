"""`full` keeps its parts apart (issue 22, defect 5): during a blitz or superblitz with the timer
running and a long question on the card, no two boxes on air (table, scoreboard, blitz box,
question card, timer dial) overlap, nor do the texts drawn in them; «Отвечает: <name>» is not
under the timer. Read from what Chromium draws: boxes of the parts on air, visible text rects."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.helpers import Tab, screenshot, screenshot_dir, settle, wait_js, wait_on_air
from tests.browser.test_overlays import game_spec
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BOXES = {"table": ".tb-disc", "scoreboard": ".sb-bar", "blitz": ".bz-box", "question": ".qc", "timer": ".tm-dial"}

# The boxes of the parts on air, and every visible text's line boxes with the part it belongs to.
DRAWN_JS = """(boxes) => {
  const shown = (el) => {
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) < 0.02) return false;
    }
    return true;
  };
  const rect = (r) => [r.left, r.top, r.right, r.bottom];
  const out = {boxes: {}, texts: []};
  for (const [name, sel] of Object.entries(boxes)) {
    const el = document.querySelector(`[data-part=${name}] ${sel}`);
    if (el && shown(el)) out.boxes[name] = rect(el.getBoundingClientRect());
  }
  const walker = document.createTreeWalker(document.getElementById('stage'), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || !shown(n.parentElement)) continue;
    const part = n.parentElement.closest('[data-part]')?.dataset.part;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) if (r.width > 1) out.texts.push([part, n.textContent.trim(), rect(r)]);
  }
  return out;
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def overlaps(page: Page) -> list[str]:
    drawn = page.evaluate(DRAWN_JS, BOXES)
    found = []
    names = sorted(drawn["boxes"])
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if overlap(drawn["boxes"][a], drawn["boxes"][b]):
                found.append(f"box {a} / {b}")
    texts = drawn["texts"]
    for i, (pa, ta, ra) in enumerate(texts):
        for pb, tb, rb in texts[i + 1:]:
            if pa != pb and overlap(ra, rb):
                found.append(f"text {pa}:{ta!r} / {pb}:{tb!r}")
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("layout") / "data").start()
    yield srv
    srv.stop()


def long_spec() -> dict:
    spec = game_spec()
    long_text = ("Этот прибор, придуманный в XVII веке, сначала называли водяным термоскопом; потом его "
                 "запаяли, наполнили спиртом, а позже ртутью, и нанесли шкалу. Как мы называем его сегодня? ")
    for s in spec["sectors"]:
        for q in s["questions"]:
            q["text"] = long_text * 2
    return spec


@pytest.mark.parametrize("sector,player", [(9, "Константин Константинопольский"), (5, None)])
def test_full_keeps_blitz_card_and_timer_apart(server: Server, tab: Tab, tmp_path: Path, sector: int,
                                               player: str | None) -> None:
    spec = long_spec()
    spec["experts"]["players"][1] = "Константин Константинопольский"
    game = server.create(spec, on_air=True)
    page = tab.open(f"{server.url}/overlays/full")
    server.play(game, "spin", landed=sector)
    if player:
        server.play(game, "choose_player", player=player)
    server.play(game, "start_timer")
    for name in ("question", "blitz", "timer", "table", "scoreboard"):
        wait_on_air(page, name, timeout_ms=16_000)
    if player:
        wait_js(page, "(p) => document.querySelector('[data-ref=player]').textContent === p", player)
    settle(page)
    screenshot(page, screenshot_dir(tmp_path), f"full-{'superblitz' if player else 'blitz'}")
    assert overlaps(page) == []
    assert tab.errors == []
