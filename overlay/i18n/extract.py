"""The Babel extraction method for our message keys (babel.cfg: `[overlay.i18n.extract:keys: …]`).

Our messages are identified by keys (`t("nav.live")`, `data-i18n="club.central"`), so a file is
searched for keys, not for English sentences. Each section of babel.cfg names the surface's key
`prefix` (on-air keys live under `air.`, the league's pages under `league.`), the `calls` whose first
string argument is a key (`tx=league_` adds a sub-prefix), the `plural_calls` (a key with plural
forms) and the HTML `attrs` holding keys. Keys reach the code in three ways, all found:
  - a literal argument or attribute (`t("nav.live")`): extracted even when no catalog has it yet;
  - any other string literal that is a key of the source catalog (`{label: "act.spin"}`);
  - a key built at run time from a literal prefix (t(`kind.${kind}`), "err." + code,
    f"kind.{kind}"): every key of the source catalog under that prefix.
Each extracted key carries the Russian and English texts as comments (`#.` in the template), so a
translator in Poedit or Weblate sees the meaning, not just the key."""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from babel.messages.pofile import read_po

LOCALES = Path(__file__).resolve().parent / "locales"
SURFACES = ("air.", "league.")  # the prefixes of the non-panel surfaces; panel keys have none
SOURCE, SHOWN = "ru", ("ru", "en")

# a quoted string on one line, or a template literal (may span lines)
_STRING = re.compile(r"""(["'])((?:\\.|(?!\1)[^\\\n])*)\1|(`)((?:\\.|[^\\`])*)`""")
_KEYLIKE = re.compile(r"[a-z][\w-]*(?:\.[\w-]+)*$")


@lru_cache(maxsize=None)
def _catalog(lang: str) -> dict[str, Any]:
    path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return {}
    with path.open("rb") as f:
        return {m.id if isinstance(m.id, str) else m.id[0]: m.string for m in read_po(f) if m.id}


def _known(prefix: str) -> set[str]:
    """Keys of the source catalog on this surface, without the surface prefix."""
    keys = _catalog(SOURCE)
    if prefix:
        return {k[len(prefix):] for k in keys if k.startswith(prefix)}
    return {k for k in keys if not k.startswith(SURFACES)}


def _comments(key: str) -> list[str]:
    out = []
    for lang in SHOWN:
        text = _catalog(lang).get(key)
        if isinstance(text, (tuple, list)):
            text = " | ".join(text)
        if text:
            out.append(f"{lang}: {text}")
    return out


def _calls(spec: str) -> dict[str, str]:
    """'t tn tx=league_' → {'t': '', 'tn': '', 'tx': 'league_'}"""
    return dict((part.split("=", 1) + [""])[:2] for part in spec.split())  # type: ignore[misc]


def keys(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, str]) -> Iterator[tuple]:
    prefix = options.get("prefix", "")
    calls = _calls(options.get("calls", "t"))
    plural = _calls(options.get("plural_calls", ""))
    calls.update(plural)
    attrs = options.get("attrs", "").split()
    src = fileobj.read().decode("utf-8")
    known = _known(prefix)
    plural_known = {k[len(prefix):] for k, v in _catalog(SOURCE).items()
                    if isinstance(v, (tuple, list)) and k.startswith(prefix)}
    found: dict[str, int] = {}

    def line(pos: int) -> int:
        return src.count("\n", 0, pos) + 1

    def add(key: str, pos: int) -> None:
        found.setdefault(key, line(pos))

    # 1. literal arguments of the key calls and key attributes
    for name, sub in calls.items():
        for m in re.finditer(rf"(?<![\w.$]){re.escape(name)}\(\s*([\"'])([\w.-]+)\1", src):
            if not m.group(2).endswith((".", "_")):  # t("kind." ~ kind): a prefix, below
                add(sub + m.group(2), m.start())
    for attr in attrs:
        for m in re.finditer(rf"{re.escape(attr)}(?:=|\"?\s*:\s*)\"([\w.-]+)\"", src):
            add(m.group(1), m.start())
    # 2. any string literal that is a known key; 3. literal prefixes of keys built at run time
    subs = [s for s in calls.values() if s] + [""]
    for m in _STRING.finditer(src):
        quote, text = (m.group(1), m.group(2)) if m.group(1) else ("`", m.group(4))
        for sub in subs:
            if sub + text in known:
                add(sub + text, m.start())
        dynamic = None
        if quote == "`" and "${" in text:
            dynamic = text.split("${", 1)[0]
        elif re.match(r"\s*[+~]", src[m.end():m.end() + 3]):  # "err." + code, "kind." ~ kind
            dynamic = text
        elif src[m.start() - 1:m.start()] == "f" and "{" in text:
            dynamic = text.split("{", 1)[0]
        elif "{{" in text:  # a Jinja template: data-i18n="title.{{ page }}"
            dynamic = text.split("{{", 1)[0]
        if dynamic and dynamic.endswith((".", "_")) and _KEYLIKE.match(dynamic.rstrip("._")):
            for key in sorted(known):
                for sub in subs:
                    if key.startswith(sub + dynamic):
                        add(key, m.start())
    for key, lineno in sorted(found.items(), key=lambda kv: kv[1]):
        full = prefix + key
        if key in plural_known or any(
                key.startswith(sub) and re.search(rf"(?<![\w.$]){re.escape(name)}\(\s*[\"']{re.escape(key[len(sub):])}[\"']", src)
                for name, sub in plural.items()):
            yield lineno, "ngettext", (full, full), _comments(full)
        else:
            yield lineno, None, full, _comments(full)
