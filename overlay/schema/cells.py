"""A graphic's data in spreadsheet cells (the rundown's CSV), one syntax a person can type:

- list of texts: entries separated by `|` — `Первая новость | Вторая | Третья`;
- list of rows: rows separated by `|`, a row's columns by `;` — `Анна ; режиссёр | Борис ; звук`
  (a row with no `;` is the first column alone);
- a literal `|`, `;` or `\\` inside an entry is written `\\|`, `\\;`, `\\\\`;
- number: digits (`110`); duration: milliseconds (`8000`), seconds (`8 s`, `8 с`), minutes
  (`2 min`, `2 мин`) or a clock (`1:30`, `1:00:00`);
- boolean: `true`/`false` (also да/нет, так/ні, yes/no, 1/0);
- a text as written; `""` is an empty text (an empty cell leaves the field out);
- media ids, colours (`#e0a800`), choices and times (`19:30`) as they are written.

`parse_cell` turns a cell into the value (then `check.value` bounds it); `format_cell` writes a
value so that `parse_cell` gives it back exactly (the export → import round trip)."""
from __future__ import annotations

import re
from typing import Any

from .check import DataError, value
from .types import kind_of

TRUE = ("true", "да", "так", "yes", "1")
FALSE = ("false", "нет", "ні", "no", "0")
UNITS = {"ms": 1, "мс": 1, "s": 1000, "с": 1000, "sec": 1000, "сек": 1000,
         "min": 60_000, "мин": 60_000, "хв": 60_000, "m": 60_000, "м": 60_000, "h": 3_600_000, "ч": 3_600_000,
         "год": 3_600_000}
_UNIT_RE = re.compile(r"(\d+(?:[.,]\d+)?)\s*([^\d\s.,:]+)\.?")
# a text that is empty, blank or only quotes is written after two quotes, read without them
_BLANKISH = re.compile(r'"*\s*')
_MARKED = re.compile(r'""+\s*')
_CLOCK_RE = re.compile(r"(?:(\d+):)?(\d{1,2}):(\d{2})")


def parse_cell(prop: dict, cell: str, field: str) -> Any:
    """The value a non-empty cell holds for a field of type `prop`, checked (DataError else)."""
    kind = kind_of(prop)
    text = cell.strip()
    if kind == "list":
        return value(prop, split(cell, "|"), field)
    if kind == "rows":
        cols = list(prop["items"]["properties"])
        rows = []
        for i, line in enumerate(split(cell, "|", final=False), 1):
            parts = split(line, ";")
            if len(parts) > len(cols):
                raise DataError("data.want_rows", field=field, min=prop["minItems"], max=prop["maxItems"], row=i)
            rows.append(dict(zip(cols, parts)))
        return value(prop, rows, field)
    if kind == "number":
        if not re.fullmatch(r"[+-]?\d{1,12}", text.replace(" ", "").replace("\u00a0", "")):
            return value(prop, text, field)  # refused with the field's own words
        return value(prop, int(text.replace(" ", "").replace("\u00a0", "")), field)
    if kind == "duration":
        return value(prop, parse_duration(text), field)
    if kind == "boolean":
        low = text.lower()
        return value(prop, True if low in TRUE else False if low in FALSE else text, field)
    if kind == "text":  # a text stays as written, spaces and all; `""` is the empty text
        return value(prop, cell[2:] if _MARKED.fullmatch(cell) else cell, field)
    return value(prop, text, field)


def format_cell(prop: dict, v: Any) -> str:
    kind = kind_of(prop)
    if kind == "list":
        return " | ".join(_escape(t) for t in v)
    if kind == "rows":
        cols = list(prop["items"]["properties"])
        lines = []
        for row in v:
            # the columns up to the last one the row has ("Анна" alone, "Анна ; " for an empty role)
            last = max((i for i, c in enumerate(cols) if c in row), default=0)
            lines.append(" ; ".join(_escape(row.get(c, "")) for c in cols[:last + 1]))
        return " | ".join(lines)
    if kind == "duration":
        return format_duration(v)
    if kind == "boolean":
        return "true" if v else "false"
    if kind == "text" and _BLANKISH.fullmatch(v):  # an empty cell would leave the field out
        return '""' + v
    return str(v)


def parse_duration(text: str) -> Any:
    """Milliseconds from `8000`, `8 s`, `1.5 s`, `2 min`, `1:30`, `1:00:00`; else the text (refused)."""
    t = text.strip().lower()
    if re.fullmatch(r"\d{1,9}", t):
        return int(t)
    m = _CLOCK_RE.fullmatch(t)
    if m:
        h, mins, secs = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
        if secs < 60 and (not m.group(1) or mins < 60):
            return ((h * 60 + mins) * 60 + secs) * 1000
        return text
    total, pos = 0.0, 0
    for part in _UNIT_RE.finditer(t):
        if t[pos:part.start()].strip() or part.group(2) not in UNITS:
            return text
        total += float(part.group(1).replace(",", ".")) * UNITS[part.group(2)]
        pos = part.end()
    if pos == 0 or t[pos:].strip() or total != int(total):
        return text
    return int(total)


def format_duration(ms: int) -> str:
    """`0:08`, `1:30`, `1:00:00` for whole seconds; plain milliseconds otherwise."""
    if ms % 1000:
        return str(ms)
    s = ms // 1000
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


def split(cell: str, sep: str, *, final: bool = True) -> list[str]:
    """Entries of `cell` separated by `sep` (not by an escaped `\\sep`), trimmed. `final`: the
    escapes are undone; else they stay for the split into columns that follows."""
    out: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\" and i + 1 < len(cell) and cell[i + 1] in "\\|;":
            cur.append(cell[i + 1] if final else cell[i:i + 2])
            i += 2
            continue
        if ch == sep:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur).strip())
    return out


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace(";", "\\;")
