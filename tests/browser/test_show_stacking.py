"""Issue 22, defect 4: the rundown's output draws its layers in one stacking order (overlay/
showgfx.py STACK: slate and credits at the back, game graphics, straps, ticker and bug on top;
an item may choose another level), read from what Chromium DRAWS: a ticker taken over the
«Скоро начнём» slate or over the credits is visible, on top (elementFromPoint at its text hits
its text) and not dimmed (opacity 1 along its ancestors); a slate an item puts at the `strap`
level covers the scoreboard, the ticker still above it; when the credits' roll ends, the frame is
transparent where their shade was; the desk's program monitor draws the same parts in the same
order as the output.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Frame, Page, expect

from tests.browser.helpers import WAIT_MS, Tab, screenshot_dir, settle, wait_live
from tests.browser.test_rundown import Desk
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Every text of a part as drawn: opacity multiplied along its ancestors, visibility, whether its
# boxes are inside the viewport and whether elementFromPoint at each box's centre hits the text's
# own element (nothing drawn over it).
DRAWN_TEXTS_JS = """part => {
  const root = document.querySelector(`[data-part="${part}"]`);
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    if (!text) continue;
    const el = n.parentElement;
    let opacity = 1, shown = getComputedStyle(el).visibility === 'visible';
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      opacity *= parseFloat(cs.opacity);
      if (cs.display === 'none') shown = false;
    }
    const range = document.createRange();
    range.selectNodeContents(n);
    const boxes = [...range.getClientRects()].filter(r => r.width > 1 && r.height > 1);
    let inside = boxes.length > 0, onTop = boxes.length > 0;
    for (const r of boxes) {
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) { inside = false; continue; }
      const hit = document.elementFromPoint(x, y);
      if (!hit || !el.contains(hit)) onTop = false;
    }
    out.push({text, opacity, shown, inside, onTop});
  }
  return out;
}"""

# The parts on air, in the order they are drawn (bottom first): z-index, then the page's order.
DRAW_ORDER_JS = """() => [...document.querySelectorAll('[data-part]')]
  .map((el, i) => [el, i])
  .filter(([el]) => el.classList.contains('is-in') && !el.classList.contains('layer-off')
                    && getComputedStyle(el).visibility === 'visible')
  .sort(([a, i], [b, j]) => (Number(getComputedStyle(a).zIndex) || 0) - (Number(getComputedStyle(b).zIndex) || 0) || i - j)
  .map(([el]) => el.dataset.part)"""


def drawn_texts(where: Page | Frame, part: str) -> list[dict[str, Any]]:
    return where.evaluate(DRAWN_TEXTS_JS, part)


def visible_on_top(where: Page | Frame, part: str) -> list[str]:
    """The texts of `part` that are drawn in full: inside the frame, opacity 1, nothing over them."""
    return [t["text"] for t in drawn_texts(where, part)
            if t["shown"] and t["inside"] and t["onTop"] and t["opacity"] > 0.999]


def on_top_anywhere(where: Page | Frame, part: str) -> list[str]:
    """The texts of `part` that anything of them shows through (not covered, not transparent)."""
    return [t["text"] for t in drawn_texts(where, part) if t["shown"] and t["inside"] and t["onTop"] and t["opacity"] > 0]


def wait_visible(where: Page | Frame, part: str, every: list[str], some: list[str] = ()) -> None:
    """Waits until each of `every` and one of `some` (a crawl's texts come in from the right) is
    drawn in full; fails with what is drawn."""
    try:
        where.wait_for_function(
            f"""([part, every, some]) => {{
              const drawn = ({DRAWN_TEXTS_JS})(part).filter(t => t.shown && t.inside && t.onTop && t.opacity > 0.999)
                .map(t => t.text);
              return every.every(w => drawn.includes(w)) && (!some.length || some.some(w => drawn.includes(w)));
            }}""", arg=[part, every, list(some)], timeout=WAIT_MS)
    except Exception as exc:
        raise AssertionError(f"{part}: {every} {list(some)} not drawn on top: {drawn_texts(where, part)}") from exc


def wait_parts(where: Page | Frame, parts: list[str], off: tuple[str, ...] = ()) -> None:
    """`parts` are in on this output, `off` are not, and every entrance and exit has finished."""
    where.wait_for_function(
        """([on, off]) => on.every(p => { const el = document.querySelector(`[data-part="${p}"]`);
             return el.classList.contains('is-in') && !el.classList.contains('layer-off'); })
           && off.every(p => { const el = document.querySelector(`[data-part="${p}"]`);
             return !el.classList.contains('is-in') || el.classList.contains('layer-off'); })""",
        arg=[parts, list(off)], timeout=WAIT_MS)
    settle(where)  # type: ignore[arg-type]  # a Frame evaluates the same way


def open_show(tab: Tab, url: str) -> Page:
    return tab.open(url)


TICKER = ["Следующая игра — в субботу", "Вопросы присылайте на сайт клуба"]
NAMES = [{"role": "Ведущий", "name": "Борис Крюк"}, {"role": "Режиссёр", "name": "Анна Лебедева"},
         {"role": "Графика", "name": "chgk-overlay"}]


def keep_shot(page: Page, out: Path, name: str) -> None:
    """The frame over a studio-coloured backdrop as `name`.png (the page itself stays transparent)."""
    shot = Image.open(io.BytesIO(page.screenshot(omit_background=True))).convert("RGBA")
    Image.alpha_composite(Image.new("RGBA", shot.size, (38, 42, 59, 255)), shot).save(out / f"{name}.png")


def test_layers_stack_in_one_order_on_the_output_and_the_desk_monitor(
        server_factory: Callable[..., Server], chromium: Browser, tmp_path: Path) -> None:
    srv = server_factory().start()
    rid = srv.api("POST", "/api/rundowns", {"name": "Слои"})["id"]
    for body in ({"label": "Скоро", "graphic": "slate", "layer": "bg", "data": {"kind": "soon"}},
                 {"label": "Бегущая", "graphic": "ticker", "layer": "crawl", "data": {"title": "Новости", "items": TICKER, "speed": 600}},
                 {"label": "Счёт", "graphic": "scoreboard", "layer": "game"},
                 {"label": "Титры по кругу", "graphic": "credits", "layer": "bg", "data": {"names": NAMES, "loop": True}},
                 {"label": "Титры", "graphic": "credits", "layer": "bg", "data": {"names": NAMES, "speed": 400}}):
        srv.api("POST", f"/api/rundowns/{rid}/items", body)

    def take(*labels: str) -> None:
        for label in labels:
            srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": label})

    output = Tab(chromium)
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    try:
        page = open_show(output, f"{srv.url}/overlays/show")
        desk = Desk(ctx.new_page(), srv).open()
        desk.page.locator("#rd-program-frame").scroll_into_view_if_needed()
        desk.page.frame_locator("#rd-program-frame").locator("body.ready").wait_for(state="attached", timeout=WAIT_MS)
        monitor = desk.page.frame(url=lambda u: u.endswith("/overlays/show"))
        assert monitor is not None
        # the break slate is prepared in the desk's editor at the `strap` level: above the game
        dp = desk.page
        dp.click("#f-new")
        dp.fill("#f-label", "Перерыв")
        dp.select_option("#f-graphic", "slate")
        dp.fill("#f-layer", "bg")
        expect(dp.locator("#f-stack option")).to_have_text(
            ["как у графики: фон (внизу)", "фон (внизу)", "игра", "плашки", "поверх всего"])
        dp.select_option("#f-stack", "strap")
        dp.select_option("#f-data [data-field='kind'] select", "break")
        dp.fill("#f-data [data-field='title'] input", "Перерыв")
        dp.click("#f-save")
        expect(desk.item("Перерыв").locator(".rd-meta").first).to_have_text("Заставка · bg · плашки")
        saved = [i for s in srv.api("GET", f"/api/rundowns/{rid}")["segments"] for i in s["items"]]
        assert [(i["label"], i["stack"]) for i in saved][-1] == ("Перерыв", "strap")

        # the ticker over «Скоро начнём»: drawn in full, on top, on the output and on the monitor
        take("Скоро", "Бегущая")
        for where in (page, monitor):
            wait_parts(where, ["slate", "ticker"])
            wait_visible(where, "ticker", ["Новости"], TICKER)
            wait_visible(where, "slate", ["Скоро начнём"])  # the slate's title is not under the ticker
            assert where.evaluate(DRAW_ORDER_JS) == ["slate", "ticker"]

        # the game's scoreboard comes in over the slate, under the ticker
        take("Счёт")
        for where in (page, monitor):
            wait_parts(where, ["slate", "ticker", "scoreboard"])
            assert visible_on_top(where, "scoreboard"), drawn_texts(where, "scoreboard")
            assert where.evaluate(DRAW_ORDER_JS) == ["slate", "scoreboard", "ticker"]

        # a break slate the item puts at the strap level covers the game; the ticker stays on top
        take("Перерыв")
        for where in (page, monitor):
            where.wait_for_function("() => document.querySelector('[data-part=slate]').dataset.stack === 'strap'",
                                    timeout=WAIT_MS)
            wait_parts(where, ["slate", "ticker", "scoreboard"])
            assert on_top_anywhere(where, "scoreboard") == [], drawn_texts(where, "scoreboard")
            assert "Перерыв" in visible_on_top(where, "slate")
            assert "Новости" in visible_on_top(where, "ticker")
            assert where.evaluate(DRAW_ORDER_JS) == ["scoreboard", "slate", "ticker"]
        # the desk's program list runs from the top of the picture down
        expect(dp.locator("#rd-program li .rd-layer")).to_have_text(["crawl", "bg", "game"])
        keep_shot(page, screenshot_dir(tmp_path), "show-layers")

        # the credits (rolling round) on the same layer; the ticker on top of them too
        srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "out", "item": "Счёт"})
        take("Титры по кругу")
        for where in (page, monitor):
            wait_parts(where, ["credits", "ticker"], off=("slate", "scoreboard"))
            wait_visible(where, "ticker", ["Новости"], TICKER)
            assert where.evaluate(DRAW_ORDER_JS) == ["credits", "ticker"]

        # credits that roll once: when the roll ends nothing of them stays drawn, the ticker does
        take("Титры")
        for where in (page, monitor):
            wait_parts(where, ["ticker"], off=("credits",))
        assert page.evaluate(DRAW_ORDER_JS) == monitor.evaluate(DRAW_ORDER_JS) == ["ticker"]
        shot = Image.open(io.BytesIO(page.screenshot(omit_background=True))).convert("RGBA")
        shade = shot.crop((800, 0, 1920, 900))  # the shade's half of the frame, above the ticker
        assert shade.getchannel("A").getextrema() == (0, 0), "the credits' shade stayed drawn"
        assert "Новости" in visible_on_top(page, "ticker")
        # a reload after the end draws nothing of them either
        page.reload()
        wait_live(page)
        wait_parts(page, ["ticker"], off=("credits",))
        shot = Image.open(io.BytesIO(page.screenshot(omit_background=True))).convert("RGBA")
        assert shot.crop((800, 0, 1920, 900)).getchannel("A").getextrema() == (0, 0)
        assert output.errors == [], output.errors
    finally:
        ctx.close()
        output.close()
