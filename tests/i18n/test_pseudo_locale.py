"""The pseudo-locale sweep: with the server's test flag (PSEUDO_LOCALE) and its language set to
`qps`, every message reads «[Àççéñţéð]» — so any visible word in Latin or Cyrillic letters that
is neither inside such brackets nor the game's own data (team and player names, questions) came
from somewhere other than the catalogs. The index, every panel page (after login), the league's pages, every
on-air graphic and the audience page are visited in Chromium with a live demo game; text nodes and
the placeholder / title / aria-label / alt attributes are checked."""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from overlay.graphics.game import GRAPHICS
from overlay.i18n import PSEUDO
from tests.browser.helpers import PanelPage, settle
from tests.browser.test_club_overlays import staged as club_staged
from tests.browser.test_overlays import staged
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PANEL_PAGES = ("/control/", "/control/club", "/control/setup", "/control/packs", "/control/graphics",
               "/control/rundown", "/control/media", "/control/osc", "/control/admin/", "/control/admin/members")
OVERLAYS = (*GRAPHICS, "show")
CLUB = {"central-table", "club-tables", "draw", "game-rating", "best-player"}
LETTER = re.compile(r"[^\W\d_]")
# Not words: addresses, paths and file names, keycaps, single letters («(W)»), ids like g1, and
# month and weekday names (dates are formatted by Intl, in the pseudo-locale as en-GB).
TECHNICAL = re.compile(r"""https?://\S+ | (?:/[\w.*<>{}-]+)+/? | \b[\w-]+\.(?:toml|json|csv)\b
    | \b(?:F\d{1,2}|Esc|Enter)\b | \b[A-Z]\b | \b[a-z]\d+\b
    | \b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b
    | \b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b""", re.X)

# Every visible text (and text attribute) of the page with the element it sits in.
COLLECT = """() => {
  const where = (el) => el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`;
  const seen = (el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  // an overlay's title is never seen (OBS shows its source's own name)
  const out = document.body.classList.contains("overlay") ? [] : [{ text: document.title, where: "title" }];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    // .mono and code hold identifiers (OSC event and argument names), not words
    if (!el || el.closest("script, style, noscript, template, .mono, code") || !seen(el)) continue;
    if (/\\p{L}/u.test(node.textContent)) out.push({ text: node.textContent.trim(), where: where(el) });
  }
  for (const el of document.body.querySelectorAll("[placeholder], [title], [aria-label], [alt]")) {
    if (!seen(el)) continue;
    for (const attr of ["placeholder", "title", "aria-label", "alt"]) {
      const value = el.getAttribute(attr);
      if (value && /\\p{L}/u.test(value)) out.push({ text: value, where: `${where(el)}@${attr}` });
    }
  }
  return out;
}"""


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def bypassing(found: list[dict], data: set[str]) -> list[str]:
    """The texts with letters outside every pseudo-translated [segment] and the known data."""
    bad = []
    for item in found:
        rest = item["text"]
        while True:
            stripped = re.sub(r"\[[^\[\]]*\]", " ", rest)
            if stripped == rest:
                break
            rest = stripped
        rest = TECHNICAL.sub(" ", rest)
        for known in sorted(data, key=len, reverse=True):
            rest = rest.replace(known, " ")
        if LETTER.search(rest):
            bad.append(f"{item['where']}: {item['text']!r}")
    return bad


@pytest.fixture(scope="module")
def pseudo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("qps") / "data", mode="threading",
                 env={"CHGK_OVERLAY_PSEUDO_LOCALE": "true", "CHGK_OVERLAY_LANGUAGE": PSEUDO}).start()
    yield srv
    srv.stop()


def game_data(server: Server) -> set[str]:
    """Words that are the games', not ours: every string of every game's state (names, questions,
    titles), and the language codes of the switch."""
    data: set[str] = {code.upper() for code in ("ru", "uk", "en", PSEUDO)}
    for game in server.api("GET", "/api/games")["games"]:
        data |= set(strings(server.state(game["id"])))
    data |= set(strings(server.api("GET", "/api/graphics")))   # a strap's name and title
    return {d for d in data if LETTER.search(d)}


def test_every_panel_page_shows_only_catalog_words(pseudo_server: Server, chromium: Browser) -> None:
    data = game_data(pseudo_server)
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="en-GB")
    try:
        page = ctx.new_page()
        panel = PanelPage(page, pseudo_server)
        page.goto(pseudo_server.url + "/")                    # the index (server-rendered, Flask-Babel)
        index = bypassing(page.evaluate(COLLECT), data)
        page.goto(pseudo_server.url + "/control/")            # the login page, before logging in
        expect(page.locator("button[type=submit]")).to_have_text(re.compile(r"^\["))  # its words applied
        problems: dict[str, list[str]] = {"/": index} if index else {}
        bad = bypassing(page.evaluate(COLLECT), data)
        if bad:
            problems["login"] = bad
        panel.open()

        def visit(path: str, data: set[str]) -> None:
            page.goto(pseudo_server.url + path)
            if path.startswith("/control/admin"):
                expect(page.locator("h1").first).to_be_visible()
            else:
                expect(page.locator("body")).to_have_attribute("data-connection", "connected")
            settle(page)
            assert page.evaluate("document.documentElement.lang") == PSEUDO, path
            bad = bypassing(page.evaluate(COLLECT), data)
            if bad:
                problems[path] = problems.get(path, []) + bad

        for path in PANEL_PAGES:
            visit(path, data)
        # a tv game mid-round (the minute running, an extra minute banked), then a club game
        staged(pseudo_server, "question")
        visit("/control/", game_data(pseudo_server))
        club_staged(pseudo_server, "club-tables")
        for path in ("/control/", "/control/club"):
            visit(path, game_data(pseudo_server))
        assert problems == {}, problems
        assert panel.errors == [], panel.errors
    finally:
        ctx.close()


def test_every_overlay_shows_only_catalog_words(pseudo_server: Server, chromium: Browser) -> None:
    ctx = chromium.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        problems: dict[str, list[str]] = {}
        for name in (*OVERLAYS, "live"):
            if name == "live":
                path = "/live"
            else:   # a state in which the graphic has something to show (the overlay tests' staging)
                path = f"/overlays/{name}?game={club_staged(pseudo_server, name)}" if name in CLUB else staged(pseudo_server, name)
            page.goto(pseudo_server.url + path)
            page.wait_for_function("document.body?.dataset.rev !== undefined && document.body?.dataset.rev !== ''")
            settle(page)
            assert page.evaluate("document.documentElement.lang") == PSEUDO, path
            bad = bypassing(page.evaluate(COLLECT), game_data(pseudo_server))
            if bad:
                problems[path] = bad
        assert problems == {}, problems
        assert errors == [], errors
    finally:
        ctx.close()
