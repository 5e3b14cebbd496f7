"""Setting the club up without a form per member (issue 25, item 10): the member list imported
from the CSV the secretary already keeps, and many members' status set at once with one date
and reason. Both are all or nothing: every row (every member) is checked first, the first
refused one is named (its line, its name) and nothing is written."""
from __future__ import annotations

import csv
import io
from typing import Any

from ..csvsafe import unescape
from ..rules.errors import InputError
from . import check
from .core import Core
from .members import MOVES, STATUSES, Members, _rating_id, name_key

MAX_ROWS = 2000
# a header cell → the column it names (Russian, Ukrainian, English; case and spaces ignored)
HEADERS = {
    "name": {"name", "имя", "фио", "имя и фамилия", "ім'я", "ім’я", "піб", "игрок", "гравець", "player"},
    "adult": {"adult", "18+", "взрослый", "совершеннолетний", "совершеннолетие", "дорослий", "повнолітній"},
    "rating_id": {"rating_id", "rating id", "rating", "рейтинг", "id рейтинга", "номер в рейтинге",
                  "номер у рейтингу", "id"},
}
YES = {"1", "да", "д", "так", "т", "yes", "y", "true", "+", "x", "х", "✓", "v"}
NO = {"", "0", "нет", "н", "ні", "no", "n", "false", "-"}


def decode(data: bytes) -> str:
    """A CSV file as text: UTF-8 (with or without BOM), else Windows-1251 — what a
    Russian-locale Excel saves."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1251", errors="replace")


def _rows(text: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) of the non-empty rows; `;`, `,` or tab separated (whichever the
    first line uses most)."""
    text = text.lstrip("\ufeff")
    first = text.split("\n", 1)[0]
    delimiter = max(";,\t", key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    out = []
    for row in reader:
        cells = [unescape(c.strip()) for c in row]
        if any(cells):
            out.append((reader.line_num, cells))
    return out


def _columns(header: list[str]) -> dict[str, int] | None:
    """The columns a header row names, or None when the first row is data."""
    found = {}
    for i, cell in enumerate(header):
        key = " ".join(cell.split()).casefold()
        for column, names in HEADERS.items():
            if key in names and column not in found:
                found[column] = i
    return found if "name" in found else None


def _adult(value: str) -> bool:
    v = value.strip().casefold()
    if v in YES:
        return True
    if v in NO:
        return False
    raise check.bad("adult", f"{value!r}: write yes/no (да/нет, 1/0)", "adult_cell", value=value)


def parse_members(text: str) -> list[dict]:
    """The members a list names: [{"line", "name", "adult", "rating_id"}]. Columns by header
    (name, adult, rating id — in any order) or, without one, in that order."""
    rows = _rows(text)
    if not rows:
        raise InputError("import_empty", "The file has no rows.")
    columns = _columns(rows[0][1])
    if columns is not None:
        rows = rows[1:]
    else:
        columns = {"name": 0, "adult": 1, "rating_id": 2}
    if not rows:
        raise InputError("import_empty", "The file has a header and no rows.")
    if len(rows) > MAX_ROWS:
        raise InputError("import_too_long", f"At most {MAX_ROWS} rows at once.", n=MAX_ROWS)
    out = []
    for line, cells in rows:
        cell = lambda c: cells[columns[c]] if c in columns and columns[c] < len(cells) else ""  # noqa: E731
        try:
            name = check.text(cell("name"), "name")
            rating = cell("rating_id")
            out.append({"line": line, "name": name, "adult": _adult(cell("adult")),
                        "rating_id": _rating_id(rating) if rating else None})
        except InputError as exc:
            raise InputError("import_row", f"line {line}: {exc.message}", line=line, cause=exc) from exc
    return out


class Setup:
    def __init__(self, core: Core, members: Members) -> None:
        self.core, self.members = core, members

    def import_members(self, text: str) -> list[dict]:
        """New candidates from a member list; a name already a member, or twice in the list, is
        refused (a list imported twice adds nobody)."""
        rows = parse_members(text)
        seen = {name_key(m["name"]): None for m in self.members.all()}
        for r in rows:
            key = name_key(r["name"])
            if key in seen:
                cause = InputError("import_duplicate", f"{r['name']} is already a member or listed twice.",
                                   name=r["name"])
                raise InputError("import_row", f"line {r['line']}: {cause.message}", line=r["line"], cause=cause)
            seen[key] = None
        core = self.core
        with core.store.transaction() as db:
            ids = []
            for r in rows:
                cur = db.execute("INSERT INTO league_members (name, adult, rating_id, status, created_at) "
                                 "VALUES (?,?,?,?,?)", (r["name"], int(r["adult"]), r["rating_id"], "candidate", core.now()))
                ids.append(cur.lastrowid)
                core.record(db, "member_created", {"name": r["name"], "adult": r["adult"], "rating_id": r["rating_id"],
                                                   "imported": True}, member=cur.lastrowid)
        core.changed(members=True)
        return [self.members.get(mid) for mid in ids]

    def set_status_many(self, body: Any) -> list[dict]:
        """One status, date and reason for many members (`members`: ids), as each member's own
        status change would be — refused whole when any one of them may not move."""
        body = check.obj(body, {"members", "status", "date", "reason"}, {"members", "status", "date", "reason"})
        ids = check.ids(body["members"], "members", lo=1, hi=MAX_ROWS)
        status = body["status"]
        if status not in STATUSES[1:]:
            raise check.bad("status", "must be approved, refused or ended", "status")
        when = check.date(body["date"], "date").isoformat()
        why = check.reason(body["reason"])
        found = {m["id"]: m for m in self.members.all()}
        chosen = []
        for mid in ids:
            member = found.get(mid)
            if member is None:
                raise InputError("unknown_member", f"members: there is no member {mid}.", member=mid)
            if status not in MOVES[member["status"]]:
                raise check.rule("status_change", f"{member['name']} is {member['status']}: cannot become {status}.",
                                 name=member["name"], status=member["status"], to=status)
            if status == "approved" and not member["adult"]:
                raise check.rule("not_adult", f"Confirm that {member['name']} is an adult first: only adults become members.",
                                 name=member["name"])
            chosen.append(member)
        core = self.core
        with core.store.transaction() as db:
            for member in chosen:
                db.execute("UPDATE league_members SET status=?, status_date=?, status_reason=? WHERE id=?",
                           (status, when, why, member["id"]))
                core.record(db, "member_status", {"from": member["status"], "to": status, "date": when},
                            why, member=member["id"])
        core.changed(members=True)
        return [self.members.get(m["id"]) for m in chosen]
