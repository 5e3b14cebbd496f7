"""A reader of gettext `.po` files for the server's start: the messages and the header, nothing else.
Babel's `read_po` keeps every comment and reference as objects (the tools and tests use it); at
start only the strings are needed, and reading the three catalogs this way takes a third of the
time (a server starts after a crash mid-show, and on every test).

What it reads: `msgid`, `msgid_plural`, `msgstr`, `msgstr[n]`, strings continued over several
lines, the `fuzzy` flag. Comments and obsolete entries (`#~`) are skipped, as Babel skips the
obsolete ones from a catalog's messages; `msgctxt` is refused (a key already says its context).
tests/i18n/test_catalogs.py checks it against Babel on every shipped catalog."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_ESCAPE = re.compile(r'\\([\\trn"])')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_LINE = re.compile(r'^(msgid_plural|msgid|msgctxt|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')


def _string(quoted: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), quoted.strip()[1:-1])


@dataclass
class Entry:
    """One message: `id` a string, or (singular, plural); `string` a string, or the plural forms."""
    id: str | tuple[str, str]
    string: str | tuple[str, ...]
    fuzzy: bool = False


def read(path: Path) -> tuple[dict[str, str], list[Entry]]:
    """The header's fields (the entry with the empty msgid) and the other entries, in file order."""
    entries: list[Entry] = []
    header: dict[str, str] = {}
    parts: dict[str, list[str]] = {}
    forms: dict[int, list[str]] = {}
    current: list[str] | None = None
    fuzzy = False

    def finish() -> None:
        nonlocal parts, forms, current, fuzzy
        if "msgctxt" in parts:
            raise ValueError(f"{path}: msgctxt is not used by these catalogs: a key says its context")
        if "msgid" in parts:
            msgid = "".join(parts["msgid"])
            if not msgid:
                for line in "".join(parts.get("msgstr", [])).splitlines():
                    name, sep, value = line.partition(":")
                    if sep:
                        header[name.strip()] = value.strip()
            elif "msgid_plural" in parts:
                entries.append(Entry((msgid, "".join(parts["msgid_plural"])),
                                     tuple("".join(forms[i]) for i in sorted(forms)), fuzzy))
            else:
                entries.append(Entry(msgid, "".join(parts.get("msgstr", [])), fuzzy))
        parts, forms, current, fuzzy = {}, {}, None, False

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                if "msgid" in parts:  # flags come before the entry they belong to
                    finish()
                fuzzy = True
            elif not line and "msgid" in parts and current is not None:
                finish()
            continue
        if line.startswith('"'):
            if current is None:
                raise ValueError(f"{path}: a string continues nothing: {raw!r}")
            current.append(_string(line))
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"{path}: not a .po line: {raw!r}")
        keyword, index, text = m.groups()
        if keyword in ("msgid", "msgctxt") and ("msgstr" in parts or forms):
            finish()  # a new entry with no blank line before it
        if index is not None:
            current = forms.setdefault(int(index), [])
            parts.setdefault("msgstr", [])
        else:
            current = parts.setdefault(keyword, [])
        current.append(_string(text))
    finish()
    return header, entries
