"""Plural forms in Chromium: the browser picks a form with Intl.PluralRules from the catalog's
CLDR categories, the server with the .po's Plural-Forms formula; for every language and count
they give the same words, on air (static/lib/i18n.js) and in the panel (static/control/i18n.js)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from overlay.i18n import Catalogs
from tests.browser.helpers import PanelPage
from tests.support import Server, static_url

pytestmark = [pytest.mark.browser, pytest.mark.slow]
COUNTS = [*range(0, 30), 101, 111, 112, 1000, 1001]


@pytest.mark.parametrize("lang", Catalogs().langs)
def test_on_air_plurals_match_the_server(shared_server: Server, chromium: Browser, lang: str) -> None:
    books = Catalogs()
    page = chromium.new_page()
    try:
        page.goto(f"{shared_server.url}/overlays/season-rating?lang={lang}")
        got = page.evaluate(f"""async (counts) => {{
            const {{ translator }} = await import("{static_url('lib/i18n.js')}");
            const t = translator(document.documentElement.lang);
            return counts.map((n) => t.n("league_games_n", n));
        }}""", COUNTS)
        # on air {n} is in the locale's digits («1 000»): compare the words
        assert [re.sub(r"(?<=\d)[\s,.](?=\d{3})", "", g) for g in got] == [
            books.text(lang, "air.league_games_n", n) for n in COUNTS]
    finally:
        page.close()


def test_panel_plurals_match_the_server_in_every_language(shared_server: Server, chromium: Browser) -> None:
    books = Catalogs()
    ctx = chromium.new_context()
    try:
        panel = PanelPage(ctx.new_page(), shared_server).open("/control/packs")
        for lang in books.langs:
            panel.page.select_option("#lang-select", lang)
            got = panel.page.evaluate(f"""async (counts) => {{
                const {{ tn, currentLang }} = await import("{static_url('control/i18n.js')}");
                return [currentLang(), ...counts.map((n) => tn("packs.count", n))];
            }}""", COUNTS)
            assert got == [lang, *(books.text(lang, "packs.count", n) for n in COUNTS)]
        assert panel.errors == []
    finally:
        ctx.close()
