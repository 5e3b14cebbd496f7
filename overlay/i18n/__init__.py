"""Every word the product shows, in gettext catalogs (`locales/<lang>/LC_MESSAGES/messages.po`,
template `locales/messages.pot`), managed with Babel and read at start by po.py. Messages are
identified by keys, the same keys the code uses (`t("nav.live")`); a key's surface is its prefix:
none for the panel, `air.` for on-air graphics and the audience page, `league.` for the league's
admin pages and exports.

Server-rendered pages translate here (through Flask-Babel, overlay/i18n/web.py); the browser gets
the same catalogs as JSON (`scope_json`), plural forms by CLDR category for `Intl.PluralRules`. A
language is available when its `.po` file exists: adding one is adding that file
(docs/TRANSLATING.md). The pseudo-locale `qps` (tests only) is made from the English catalog."""
from __future__ import annotations

import gettext
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import po

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog
    from babel.support import Translations

LOCALES = Path(__file__).resolve().parent / "locales"
DEFAULT = "ru"
PSEUDO = "qps"  # brackets and accents over the English text: what bypasses the catalogs shows up
SCOPES = {"panel": "", "air": "air.", "league": "league."}
SURFACES = tuple(p for p in SCOPES.values() if p)
# BCP 47 tags for Intl (numbers, money, dates, plural categories); else the language code itself
INTL = {"ru": "ru-RU", "uk": "uk-UA", "en": "en-GB", PSEUDO: "en-GB"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def available() -> tuple[str, ...]:
    """The languages with a catalog: Russian, Ukrainian, English, then the others by code."""
    found = {p.parent.parent.name for p in LOCALES.glob("*/LC_MESSAGES/messages.po")}
    first = (DEFAULT, "uk", "en")
    return tuple(sorted(found, key=lambda code: (first.index(code) if code in first else len(first), code)))


def read(path: Path, locale: str | None = None) -> Catalog:
    """The catalog as Babel reads it, comments and all (tools and tests; the server reads po.py's)."""
    from babel.messages.pofile import read_po
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def key_of(message: Any) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


@dataclass
class Language:
    code: str
    entries: list[po.Entry]
    plural_forms: str  # the Plural-Forms header
    messages: dict[str, str | tuple[str, ...]] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)  # CLDR plural category → form index
    nplurals: int = 2
    plural: Any = None  # n → form index, from the Plural-Forms header

    @property
    def intl(self) -> str:
        return INTL.get(self.code, self.code.replace("_", "-"))


def plural_categories(code: str, expr: str) -> dict[str, int]:
    """Which gettext form each CLDR plural category of the language takes, found by evaluating
    the Plural-Forms formula on integers (the browser picks a category with Intl.PluralRules)."""
    from babel import Locale
    rule = Locale.parse("en" if code == PSEUDO else code).plural_form
    formula = gettext.c2py(expr)
    out: dict[str, int] = {}
    for n in range(0, 1000):
        out.setdefault(rule(n), formula(n))
    return out


def pseudo(text: str) -> str:
    """«[Ŝćöŕé]»: every letter accented, {placeholders} and markup kept, brackets around."""
    table = str.maketrans("aceinorsuyACEINORSUYgklzGKLZdhtwDHTW",
                          "àçéîñöŕšûýÀÇÉÎÑÖŔŠÛÝĝķļžĜĶĻŽďĥţŵĎĤŢŴ")
    parts = re.split(r"(\{\w+\}|<[^>]+>|&\w+;)", text)
    return "[" + "".join(p if i % 2 else p.translate(table) for i, p in enumerate(parts)) + "]"


def _load(code: str, header: dict[str, str], entries: list[po.Entry]) -> Language:
    forms = header.get("Plural-Forms", "nplurals=2; plural=(n != 1);")
    lang = Language(code, entries, forms)
    m = re.search(r"nplurals\s*=\s*(\d+);\s*plural\s*=\s*(.+?);?\s*$", forms)
    lang.nplurals, expr = (int(m.group(1)), m.group(2)) if m else (2, "n != 1")
    lang.plural = gettext.c2py(expr)
    lang.categories = plural_categories(code, expr)
    for entry in entries:
        if isinstance(entry.string, tuple):
            lang.messages[key_of(entry)] = entry.string
        elif entry.string:
            lang.messages[key_of(entry)] = entry.string
    return lang


class Catalogs:
    """The loaded catalogs; read once at start."""

    def __init__(self, pseudo_locale: bool = False) -> None:
        self.languages: dict[str, Language] = {}
        for code in available():
            self.languages[code] = _load(code, *po.read(LOCALES / code / "LC_MESSAGES" / "messages.po"))
        if pseudo_locale and "en" in self.languages:
            self.languages[PSEUDO] = self._pseudo(self.languages["en"].entries)
        self._json: dict[tuple[str, str, frozenset[str] | None], dict] = {}
        self._translations: dict[str, Translations] = {}

    @staticmethod
    def _pseudo(english: list[po.Entry]) -> Language:
        return _load(PSEUDO, {"Plural-Forms": "nplurals=2; plural=(n != 1);"},
                     [po.Entry(e.id, tuple(pseudo(s) for s in e.string) if isinstance(e.string, tuple)
                               else pseudo(e.string)) for e in english])

    @property
    def langs(self) -> tuple[str, ...]:
        return tuple(self.languages)

    def pick(self, lang: str | None) -> str:
        return lang if lang in self.languages else DEFAULT

    def get(self, lang: str, key: str) -> str | tuple[str, ...] | None:
        for code in (lang, DEFAULT):
            found = self.languages.get(code, self.languages[DEFAULT]).messages.get(key)
            if found:
                return found
        return None

    def text(self, lang: str, key: str, n: int | None = None, **values: Any) -> str:
        """The message `key` in `lang` (Russian, then the key itself when missing), plural form for
        `n`, {placeholders} filled."""
        language = self.languages.get(lang, self.languages[DEFAULT])
        found = self.get(language.code, key)
        if n is not None:
            values.setdefault("n", n)
        if isinstance(found, tuple):
            found = found[min(language.plural(n if n is not None else 1), len(found) - 1)]
        text = found or key
        return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), text)

    def scope_json(self, lang: str, scope: str, only: frozenset[str] | None = None) -> dict[str, Any]:
        """What the browser gets: {lang, locale, langs, messages} with the scope's keys (prefix
        dropped; `only` these when given); a plural message is {category: form} for the
        language's CLDR categories."""
        code = self.pick(lang)
        cached = self._json.get((code, scope, only))
        if cached is not None:
            return cached
        prefix = SCOPES[scope]
        language = self.languages[code]
        keys = {k for lang_ in (code, DEFAULT) for k in self.languages[lang_].messages}
        messages: dict[str, Any] = {}
        for key in sorted(keys):
            if prefix and not key.startswith(prefix) or not prefix and key.startswith(SURFACES):
                continue
            if only is not None and key not in only:
                continue
            found = self.get(code, key)
            if isinstance(found, tuple):
                source = language if found is language.messages.get(key) else self.languages[DEFAULT]
                forms = {cat: found[min(i, len(found) - 1)] for cat, i in source.categories.items()}
                forms.setdefault("other", found[-1])
                found = forms
            messages[key[len(prefix):]] = found
        out = {"lang": code, "locale": language.intl, "langs": list(self.langs), "messages": messages}
        self._json[(code, scope, only)] = out
        return out

    def translations(self, lang: str) -> Translations:
        """A gettext Translations object for Flask-Babel, compiled in memory (no .mo files)."""
        from babel.messages.catalog import Catalog
        from babel.messages.mofile import write_mo
        from babel.support import Translations
        code = self.pick(lang)
        if code not in self._translations:
            language = self.languages[code]
            catalog = Catalog(locale="en" if code == PSEUDO else code, fuzzy=False)
            catalog.mime_headers = [("Plural-Forms", language.plural_forms)]
            for entry in language.entries:
                catalog.add(entry.id, entry.string, flags=("fuzzy",) if entry.fuzzy else ())
            buf = io.BytesIO()
            write_mo(buf, catalog, use_fuzzy=False)
            buf.seek(0)
            self._translations[code] = Translations(buf)
        return self._translations[code]
