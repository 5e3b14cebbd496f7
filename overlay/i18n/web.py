"""The catalogs in Flask: Flask-Babel picks the language of a server-rendered page (`?lang=`, else
the configured LANGUAGE) and translates through the catalogs compiled in memory; the browser
gets a surface's catalog inline (`i18n_catalog(scope, lang)` in a template) or as
`/i18n/<lang>.json?scope=panel|air|league` (cached, ETag)."""
from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from flask import Flask, Response, current_app, g, has_request_context, request
from flask_babel import Babel, Domain

from . import DEFAULT, PSEUDO, SCOPES, Catalogs

EXTENSION = "chgk_i18n"


def catalogs() -> Catalogs:
    return current_app.extensions[EXTENSION]


class CatalogDomain(Domain):
    """Flask-Babel's domain over our catalogs (read from the .po files at start, no .mo)."""

    def get_translations(self):  # type: ignore[no-untyped-def]
        return catalogs().translations(page_lang() if has_request_context() else DEFAULT)


def page_lang(wanted: str | None = None) -> str:
    """The language of a page: `wanted`, else the one a view chose for this request
    (`g.page_lang`: the admin pages remember theirs), else `?lang=`, else the configured one,
    else Russian. Flask-Babel's locale selector."""
    books = catalogs()
    for code in (wanted, g.get("page_lang") if has_request_context() else None,
                 request.args.get("lang") if has_request_context() else None, current_app.config.get("LANGUAGE")):
        if code in books.languages:
            return code
    return DEFAULT


class Translator:
    """`t(key, **values)` and `t.n(key, n, **values)` for one surface in one language (Jinja, exports)."""

    def __init__(self, books: Catalogs, lang: str, scope: str) -> None:
        self.books, self.lang, self.prefix = books, books.pick(lang), SCOPES[scope]

    def __call__(self, key: str, **values: Any) -> str:
        return self.books.text(self.lang, self.prefix + key, **values)

    def n(self, key: str, n: int, **values: Any) -> str:
        return self.books.text(self.lang, self.prefix + key, n, **values)


def translator(lang: str, scope: str = "league") -> Translator:
    return Translator(catalogs(), lang, scope)


def install(app: Flask) -> None:
    books = Catalogs(pseudo_locale=bool(app.config.get("PSEUDO_LOCALE")))
    app.extensions[EXTENSION] = books
    # Flask-Babel's locale (dates, numbers): the page's language; the pseudo-locale's is English
    babel = Babel(app, locale_selector=lambda: "en" if page_lang() == PSEUDO else page_lang())
    babel.domain_instance = CatalogDomain()  # (a cached property) gettext over our catalogs
    etags: dict[tuple[str, str], tuple[str, str]] = {}

    def encoded(lang: str, scope: str) -> tuple[str, str]:
        if (lang, scope) not in etags:
            body = json.dumps(books.scope_json(lang, scope), ensure_ascii=False, separators=(",", ":"))
            etags[(lang, scope)] = (body, hashlib.sha256(body.encode()).hexdigest()[:20])
        return etags[(lang, scope)]

    @app.get("/i18n/<lang>.json")
    def i18n_json(lang: str) -> Any:
        scope = request.args.get("scope", "panel")
        if lang not in books.languages or scope not in SCOPES:
            return {"error": {"code": "not_found",
                              "message": f"No catalog {lang!r}/{scope!r}; languages: {', '.join(books.langs)}; "
                                         f"scopes: {', '.join(SCOPES)}"}}, 404
        body, etag = encoded(lang, scope)
        resp = Response(body, mimetype="application/json")
        resp.set_etag(etag)
        resp.headers["Cache-Control"] = "no-cache"  # revalidate: a new catalog after an upgrade shows at once
        return resp.make_conditional(request)

    @app.context_processor
    def i18n_context() -> dict[str, Any]:
        return {"i18n_catalog": lambda scope, lang=None, only=None: books.scope_json(page_lang(lang), scope, only),
                "i18n_langs": books.langs}


@functools.cache
def keys_in(*files: tuple[str, str]) -> frozenset[str]:
    """The catalog keys these files use, found by the extractor (`(path, babel.cfg-style options
    as "name=value;…")`): a page that must stay small carries only its own words."""
    from .extract import keys
    found: set[str] = set()
    for path, spec in files:
        options = dict(part.split("=", 1) for part in spec.split(";") if part)
        with open(path, "rb") as f:
            found |= {m[2] if isinstance(m[2], str) else m[2][0] for m in keys(f, None, None, options)}
    return frozenset(found)
