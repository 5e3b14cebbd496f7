"""A rundown's items as CSV (a show prepared in a spreadsheet), and back; also the people list.

Columns `segment,label,graphic,layer,out` (and `stack`, an item's stacking level, when one is
set), then `data.<field>` per data field. Import is all or
nothing: the first bad row refuses the whole file with its row (the spreadsheet's line number,
the header being row 1) and column. Cells that a spreadsheet would run as a formula are written
with a leading `'` and read back without it (overlay/csvsafe.py).
"""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..csvsafe import escape, unescape
from ..rules import InputError
from .. import schema
from ..schema import cells as cells_
from . import model

COLUMNS = ("segment", "label", "graphic", "layer", "out", "stack")
PEOPLE_COLUMNS = ("name", "title", "photo")
MAX_ROWS = model.MAX_ITEMS


class CsvError(InputError):
    """A refused file: `row` (the header is row 1) and `column`; for a bad data cell also the
    schema's catalog `key` and `params` (overlay/schema/check.py), which the desk says in the
    operator's language."""

    def __init__(self, message: str, row: int, column: str | None, key: str | None = None,
                 params: dict | None = None) -> None:
        if not message.startswith("Row "):
            message = f"Row {row}{f', column {column}' if column else ''}: {message}"
        super().__init__("bad_csv", message)
        self.row, self.column, self.key, self.params = row, column, key, params


def _rows(text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if text.startswith("\ufeff"):  # a spreadsheet's UTF-8 byte-order mark
        text = text[1:]
    # the separator a spreadsheet chose (`,` or, in locales with a decimal comma, `;`; or tab):
    # whichever the header row holds most of; quoting is always Excel's
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise CsvError("The file is empty: the first row must name the columns.", 1, None) from None
    except csv.Error as exc:
        raise CsvError(f"Not a CSV file: {exc}.", 1, None) from None
    rows = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise CsvError(f"Not a CSV file: {exc}.", reader.line_num, None) from None
    if len(rows) > MAX_ROWS:
        raise CsvError(f"At most {MAX_ROWS} rows.", MAX_ROWS + 2, None)
    return header, rows


def parse_items(text: str, graphics: tuple[str, ...]) -> list[dict]:
    """Item fields (as `model.parse_item` gives them) for each row, or CsvError for the first bad one."""
    header, rows = _rows(text)
    for name in header:
        if name not in COLUMNS and not (name.startswith("data.") and len(name) > 5):
            raise CsvError(f"Unknown column {name!r}: columns are {', '.join(COLUMNS)} and data.<field>.", 1, name)
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise CsvError(f"Column {dup!r} appears twice.", 1, dup)
    for required in ("graphic",):
        if required not in header:
            raise CsvError(f"The column {required!r} is missing.", 1, required)
    out = []
    for line, row in rows:
        if len(row) > len(header):
            raise CsvError(f"Row {line} has {len(row)} cells, the header {len(header)}.", line, None)
        # a cell is trimmed (but a data text) before the quote our export put in front is taken off
        cells = {name: unescape(cell if name.startswith("data.") else cell.strip()) for name, cell in zip(header, row)}
        body: dict[str, Any] = {"data": {}}
        data_cells: dict[str, str] = {}
        for name, value in cells.items():
            if name.startswith("data."):
                if value.strip():  # an empty cell leaves the field out
                    data_cells[name[5:]] = value
                continue
            value = value.strip()
            if value:
                body[name] = value
        if "graphic" not in body:
            raise CsvError(f"Row {line}, column graphic: the graphic is empty.", line, "graphic")
        # each cell alone first, so a refusal names its column
        for name in COLUMNS:
            if name in body:
                _check(lambda: model.parse_item({name: body[name]}, graphics, partial=True), line, name)
        body["data"] = _data(body["graphic"], data_cells, line)
        out.append(_check(lambda: model.parse_item(body, graphics), line, None))
    return out


def _data(graphic: str, cells: dict[str, str], line: int) -> dict:
    """A row's data cells read by the graphic's schema (overlay/schema/cells.py): a list, a
    number or a duration is parsed here, so a bad cell refuses the file now, never at take."""
    fields = schema.fields_of(graphic)
    data: dict[str, Any] = {}
    for key, cell in cells.items():
        column = f"data.{key}"
        prop = fields.get(key)
        try:
            if prop is None or prop.get("readOnly"):
                writable = [k for k, p in fields.items() if not p.get("readOnly")]
                raise schema.DataError("data.unknown_field", field=key, fields=", ".join(writable) or "—")
            data[key] = cells_.parse_cell(prop, cell, key)
            model.parse_data({key: data[key]})  # game fields ({{captain}}) and size, as the API checks
        except schema.DataError as exc:
            raise CsvError(f"Row {line}, column {column}: {exc.message}", line, column, exc.key, exc.params) from None
        except InputError as exc:
            raise CsvError(f"Row {line}, column {column}: {exc.message}", line, column) from None
    try:
        return schema.validate_data(graphic, data)
    except schema.DataError as exc:  # a field missing, or fields that do not hold together
        field = exc.params.get("field")
        column = f"data.{field.split('.')[0]}" if field else None
        raise CsvError(f"Row {line}{f', column {column}' if column else ''}: {exc.message}", line, column,
                       exc.key, exc.params) from None


def _check(parse: Any, line: int, column: str | None) -> Any:
    try:
        return parse()
    except InputError as exc:
        where = f", column {column}" if column else ""
        raise CsvError(f"Row {line}{where}: {exc.message}", line, column) from None


def export_items(doc: dict) -> str:
    fields: list[str] = []
    for item in model.items(doc):
        for key in item["data"]:
            if key not in fields and key != "step":
                fields.append(key)
    # `stack` only when an item chooses its level: a sheet without it stays as it was
    columns = COLUMNS if any(item.get("stack") for item in model.items(doc)) else COLUMNS[:-1]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow([*columns, *(f"data.{f}" for f in fields)])
    for seg in doc["segments"]:
        for item in seg["items"]:
            data = item["data"]
            cells = {"segment": seg["name"], **item, "stack": item.get("stack") or ""}
            w.writerow([escape(c) for c in (*(cells[c] for c in columns),
                                            *(_cell(item["graphic"], f, data.get(f)) for f in fields))])
    return buf.getvalue()


def _cell(graphic: str, field: str, value: Any) -> str:
    """A data value as the import reads it back (overlay/schema/cells.py)."""
    if value is None:
        return ""
    prop = schema.fields_of(graphic).get(field)
    if prop is None:  # data stored before the schema: kept readable, refused on import by name
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return cells_.format_cell(prop, value)


# people: the show's strap presets ----------------------------------------------------------------

def parse_people(text: str) -> list[dict]:
    header, rows = _rows(text)
    for name in header:
        if name not in PEOPLE_COLUMNS:
            raise CsvError(f"Unknown column {name!r}: columns are {', '.join(PEOPLE_COLUMNS)}.", 1, name)
    if "name" not in header:
        raise CsvError("The column 'name' is missing.", 1, "name")
    people = []
    for line, row in rows:
        cells = dict(zip(header, [unescape(c.strip()) for c in row]))
        if len(row) > len(header):
            raise CsvError(f"Row {line} has {len(row)} cells, the header {len(header)}.", line, None)
        for col in PEOPLE_COLUMNS:
            if len(cells.get(col, "")) > model.MAX_LABEL:
                raise CsvError(f"Row {line}: '{col}' is longer than {model.MAX_LABEL} characters.", line, col)
        if not cells.get("name"):
            raise CsvError(f"Row {line}: 'name' is empty.", line, "name")
        people.append({col: cells.get(col, "") for col in PEOPLE_COLUMNS})
    return people


def export_people(people: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(PEOPLE_COLUMNS)
    for p in people:
        w.writerow([escape(p.get(c, "")) for c in PEOPLE_COLUMNS])
    return buf.getvalue()
