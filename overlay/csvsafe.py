"""Spreadsheet-safe CSV cells (OWASP's CSV-injection rule), for every CSV the server writes.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel,
LibreOffice and Google Sheets: a team named `=HYPERLINK("http://…")` in a season's export runs
on the administrator's computer. Such a cell is written with a leading `'`, which spreadsheets
take as "this is text" and do not show. Reading strips that one quote again, so export then
import gives back the text exactly; a text that itself starts with quotes before one of those
characters gets one more, so it too comes back as it was.
"""
from __future__ import annotations

import re
from typing import Any

FORMULA = re.compile(r"'*[=+\-@\t\r]")      # what gets a quote on the way out
QUOTED = re.compile(r"'+[=+\-@\t\r]")       # what loses one on the way in


def escape(value: Any) -> Any:
    """The cell to write: texts neutralised, numbers (ours, never a formula) as they are."""
    if isinstance(value, str) and FORMULA.match(value):
        return "'" + value
    return value


def unescape(text: str) -> str:
    """The text a cell written by `escape` stood for."""
    return text[1:] if QUOTED.match(text) else text
