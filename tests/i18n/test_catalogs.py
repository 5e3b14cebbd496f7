"""The gettext catalogs: the template matches the code, every language matches the template,
placeholders and plural forms agree, and the browser's JSON is what the .po files say."""
from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg

from overlay.i18n import LOCALES, PLACEHOLDER, PSEUDO, Catalogs, available, key_of, po, read
from tests.support import ROOT, Server

TEMPLATE = LOCALES / "messages.pot"


def _ids(catalog) -> dict[str, bool]:
    """key → whether it has plural forms"""
    return {key_of(m): m.pluralizable for m in catalog if m.id}


def _forms(message) -> tuple[str, ...]:
    return tuple(message.string) if isinstance(message.string, (tuple, list)) else (message.string,)


def test_the_three_languages_and_russian_first() -> None:
    assert available()[:3] == ("ru", "uk", "en")


def test_the_template_is_what_the_code_uses() -> None:
    """Every key the code uses is in the template, and the template has no key the code does not
    use: a fresh extraction (pybabel extract -F babel.cfg) gives the committed template's keys."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    fresh: dict[str, bool] = {}
    for _file, _line, message, _comments, _ctx in extract_from_dir(str(ROOT), method_map, options_map):
        key = message if isinstance(message, str) else message[0]
        fresh[key] = fresh.get(key, False) or not isinstance(message, str)
    committed = _ids(read(TEMPLATE))
    assert sorted(set(fresh) - set(committed)) == [], "used in the code, missing from messages.pot: run pybabel extract"
    assert sorted(set(committed) - set(fresh)) == [], "stale in messages.pot: run pybabel extract"
    assert {k for k, p in fresh.items() if p} == {k for k, p in committed.items() if p}, "plural keys differ"
    assert len(committed) > 900


@pytest.mark.parametrize("lang", available())
def test_every_catalog_is_complete_against_the_template(lang: str) -> None:
    template = _ids(read(TEMPLATE))
    catalog = read(LOCALES / lang / "LC_MESSAGES" / "messages.po", lang)
    assert _ids(catalog) == template
    nplurals = catalog.num_plurals
    for message in catalog:
        if not message.id:
            continue
        key = key_of(message)
        assert not message.fuzzy, f"{lang}: {key} is fuzzy"
        forms = _forms(message)
        assert all(f.strip() for f in forms), f"{lang}: {key} has no translation"
        if message.pluralizable:
            assert len(forms) == nplurals, f"{lang}: {key} has {len(forms)} forms, Plural-Forms says {nplurals}"


def test_placeholders_are_the_same_in_every_translation() -> None:
    catalogs = {lang: read(LOCALES / lang / "LC_MESSAGES" / "messages.po", lang) for lang in available()}
    source = {key_of(m): m for m in catalogs["ru"] if m.id}
    for lang, catalog in catalogs.items():
        for message in catalog:
            if not message.id:
                continue
            want = set().union(*(PLACEHOLDER.findall(f) for f in _forms(source[key_of(message)])))
            for form in _forms(message):
                got = set(PLACEHOLDER.findall(form))
                # a plural form may leave out the count itself («The first player.»), nothing else
                assert got == want or message.pluralizable and got == want - {"n"}, (lang, key_of(message), form)


@pytest.mark.parametrize("lang", available())
def test_the_plural_formula_agrees_with_cldr(lang: str) -> None:
    """The browser picks a form by CLDR category (Intl.PluralRules), the server by the .po's
    Plural-Forms formula: for every whole number they must agree."""
    catalog = read(LOCALES / lang / "LC_MESSAGES" / "messages.po", lang)
    expr = re.search(r"plural=(.+?);?\s*$", dict(catalog.mime_headers)["Plural-Forms"]).group(1)
    formula, rule = gettext.c2py(expr), Locale.parse(lang).plural_form
    books = Catalogs()
    categories = books.languages[lang].categories
    for n in range(0, 2000):
        assert categories[rule(n)] == formula(n), (lang, n)


def test_plural_forms_on_the_server() -> None:
    books = Catalogs()
    assert [books.text("ru", "air.league_games_n", n) for n in (1, 2, 5, 11, 21, 22, 25)] == [
        "1 игра", "2 игры", "5 игр", "11 игр", "21 игра", "22 игры", "25 игр"]
    assert [books.text("uk", "air.league_games_n", n) for n in (1, 3, 5, 12)] == ["1 гра", "3 гри", "5 ігор", "12 ігор"]
    assert [books.text("en", "air.league_games_n", n) for n in (1, 2)] == ["1 game", "2 games"]
    assert books.text("en", "league.rating.chart_top", 1) == "The first player."


def test_the_pseudo_locale_transforms_every_message_and_keeps_placeholders() -> None:
    books = Catalogs(pseudo_locale=True)
    assert PSEUDO not in Catalogs().langs
    english, pseudo = books.languages["en"].messages, books.languages[PSEUDO].messages
    assert set(english) == set(pseudo)
    for key, text in pseudo.items():
        for form in (text if isinstance(text, tuple) else (text,)):
            assert form.startswith("[") and form.endswith("]"), key
        src = english[key] if isinstance(english[key], tuple) else (english[key],)
        assert [set(PLACEHOLDER.findall(f)) for f in src] == [
            set(PLACEHOLDER.findall(f)) for f in (text if isinstance(text, tuple) else (text,))]
    assert books.text(PSEUDO, "nav.live") == "[Öñ àîŕ]"


@pytest.fixture(scope="module")
def pseudo_server(tmp_path_factory: pytest.TempPathFactory):
    srv = Server(tmp_path_factory.mktemp("i18n") / "data", env={"CHGK_OVERLAY_PSEUDO_LOCALE": "true"}).start()
    yield srv
    srv.stop()


@pytest.mark.slow
def test_the_browser_gets_the_catalogs_as_json(shared_server: Server) -> None:
    r = shared_server.http.get(shared_server.url + "/i18n/uk.json", params={"scope": "air"}, timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    assert body["lang"] == "uk" and body["locale"] == "uk-UA" and body["langs"][:3] == ["ru", "uk", "en"]
    assert body["messages"]["experts"] == "Знавці"                    # on-air keys, `air.` dropped
    assert body["messages"]["league_games_n"] == {"one": "{n} гра", "few": "{n} гри", "many": "{n} ігор", "other": "{n} ігор"}
    assert "nav.live" not in body["messages"]
    again = shared_server.http.get(r.url, headers={"If-None-Match": r.headers["ETag"]}, timeout=10)
    assert again.status_code == 304                                     # cached, revalidated
    panel = shared_server.http.get(shared_server.url + "/i18n/en.json", timeout=10).json()
    assert panel["messages"]["nav.live"] == "On air" and "experts" not in panel["messages"]
    league = shared_server.http.get(shared_server.url + "/i18n/ru.json?scope=league", timeout=10).json()
    assert league["messages"]["nav.members"] == "Члены клуба"
    for bad in ("/i18n/xx.json", "/i18n/ru.json?scope=nope", f"/i18n/{PSEUDO}.json"):
        r = shared_server.http.get(shared_server.url + bad, timeout=10)
        assert r.status_code == 404 and "languages: ru, uk, en" in r.json()["error"]["message"], bad


@pytest.mark.slow
def test_a_page_carries_its_catalog_inline(shared_server: Server) -> None:
    page = shared_server.http.get(shared_server.url + "/overlays/scoreboard?lang=en", timeout=10).text
    assert 'id="i18n-air"' in page and '"experts":"Experts"' in page.replace(": ", ":").replace(", ", ",")
    live = shared_server.http.get(shared_server.url + "/live?lang=uk", timeout=10).text
    assert '"lang": "uk"' in live or '"lang":"uk"' in live


@pytest.mark.slow
def test_the_pseudo_locale_only_with_its_flag(pseudo_server: Server) -> None:
    r = pseudo_server.http.get(pseudo_server.url + f"/i18n/{PSEUDO}.json?scope=air", timeout=10)
    assert r.status_code == 200 and r.json()["messages"]["experts"] == "[Éxpéŕţš]"
    page = pseudo_server.http.get(pseudo_server.url + f"/overlays/scoreboard?lang={PSEUDO}", timeout=10).text
    assert '<html lang="qps"' in page


def test_flask_babel_translates_through_the_same_catalogs(tmp_path: Path) -> None:
    """Server-rendered pages: Flask-Babel's locale is the page's language (`?lang=`, else the
    configured one) and its gettext / ngettext read the catalogs (compiled in memory, no .mo)."""
    import flask_babel

    from overlay.web.app import create_app
    app = create_app({"DATA": str(tmp_path), "TESTING": True, "LANGUAGE": "en"})
    with app.test_request_context("/?lang=uk"):
        assert str(flask_babel.get_locale()) == "uk"
        assert flask_babel.gettext("nav.live") == "Ефір"
        assert [flask_babel.ngettext("packs.count", "packs.count", n) for n in (1, 3, 5)] == [
            "{n} питання", "{n} питання", "{n} питань"]
        rendered = app.jinja_env.from_string('{{ gettext("league.nav.members") }}').render()
        assert rendered == "Члени клубу"
    with app.test_request_context("/"):
        assert str(flask_babel.get_locale()) == "en" and flask_babel.gettext("nav.live") == "On air"
    with app.test_request_context("/?lang=xx"):
        assert flask_babel.gettext("nav.live") == "On air"   # an unknown language: the configured one


@pytest.mark.parametrize("name", [*(f"{lang}/LC_MESSAGES/messages.po" for lang in available()), "messages.pot"])
def test_the_start_reads_each_catalog_as_babel_does(name: str) -> None:
    """The server reads the catalogs with overlay/i18n/po.py (a third of Babel's time): the same
    messages, strings, plural forms, flags and header as Babel's reader."""
    babel = read(LOCALES / name)
    header, entries = po.read(LOCALES / name)
    assert header == {k: v.strip() for k, v in babel.mime_headers}  # Babel keeps the last one's newline
    ours = [(e.id, e.string, e.fuzzy) for e in entries]
    theirs = [(m.id, tuple(m.string) if isinstance(m.string, (tuple, list)) else m.string, m.fuzzy)
              for m in babel if m.id]
    assert ours == theirs and len(ours) > 900


def test_the_start_reader_on_what_a_translator_may_write(tmp_path: Path) -> None:
    path = tmp_path / "messages.po"
    path.write_text(r'''# a comment
msgid ""
msgstr ""
"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : 2);\n"
"Language: ru\n"

#. extracted
#: file.py:1
msgid "a.long"
msgstr ""
"first line\n"
"second \"quoted\" \\ and\ttab"
#, fuzzy
msgid "a.fuzzy"
msgstr "guess"

msgid "a.count"
msgid_plural "a.count"
msgstr[0] "{n} один"
msgstr[1] "{n} два"
msgstr[2] "{n} "
"много"

#~ msgid "a.gone"
#~ msgstr "obsolete"
msgid "a.empty"
msgstr ""
''', encoding="utf-8")
    header, entries = po.read(path)
    babel = read(path)
    theirs = {k: v.strip() for k, v in babel.mime_headers}  # Babel adds the fields a file leaves out
    assert header == {k: theirs[k] for k in header} and set(header) == {"Plural-Forms", "Language"}
    assert [(e.id, e.string, e.fuzzy) for e in entries] == [
        ("a.long", 'first line\nsecond "quoted" \\ and\ttab', False),
        ("a.fuzzy", "guess", True),
        (("a.count", "a.count"), ("{n} один", "{n} два", "{n} много"), False),
        ("a.empty", "", False),
    ]
    assert [(m.id, tuple(m.string) if isinstance(m.string, list) else m.string, m.fuzzy) for m in babel if m.id] \
        == [(e.id, e.string, e.fuzzy) for e in entries]
    path.write_text('msgctxt "menu"\nmsgid "a"\nmsgstr "b"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="msgctxt"):
        po.read(path)
    path.write_text('msgid "a"\nmsgstr "b"\nbroken\n', encoding="utf-8")
    with pytest.raises(ValueError, match="not a .po line"):
        po.read(path)
