"""CSV exports a spreadsheet opens (OWASP's CSV-injection rule): a cell that starts with `=`, `+`,
`-`, `@`, a tab or a carriage return is written with a leading `'`, so Excel, LibreOffice and
Sheets show it as text instead of running it; import strips that quote, so export then import
gives back the text exactly (overlay/csvsafe.py). The rundown's and the people's CSV, and the
season's exports (team and player names come from public registrations)."""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pytest
from hypothesis import assume, example, given, settings, strategies as st

from overlay.rundown import csvio
from overlay.rundown.model import TOKEN_RE
from tests.support import Server

FORMULAS = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+2", "@SUM(A1)", "-2+3", "\tleft", "\r=1",
            "'=already quoted", "''+twice", "=cmd|' /C calc'!A0"]
START = st.sampled_from(["", "=", "+", "-", "@", "\t", "\r", "'", "'=", "''-", "-2+3"])
TEXT = st.tuples(START, st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                                max_size=150)).map("".join)
FIELDS = ("title", "subtitle", "text")  # the strap's text fields (overlay/schema), up to 200 characters
GRAPHICS = ("lower-third",)


def rundown(texts: list[str]) -> dict:
    return {"segments": [{"name": "Начало", "items": [
        {"label": "Титр", "graphic": "lower-third", "layer": "main", "out": "manual",
         "data": dict(zip(FIELDS, texts))}]}]}


@settings(max_examples=300)
@given(st.lists(TEXT, min_size=1, max_size=3))
@example(FORMULAS[:3])
@example(FORMULAS[3:6])
@example(FORMULAS[6:])
def test_rundown_export_then_import_gives_back_the_text(texts: list[str]):
    assume(all(t.strip() and not TOKEN_RE.search(t) for t in texts))  # blank cells and {{fields}} mean other things
    exported = csvio.export_items(rundown(texts))
    for row in csv.reader(io.StringIO(exported, newline="")):
        assert not any(cell[:1] in ("=", "+", "-", "@", "\t", "\r") for cell in row), row
    back = csvio.parse_items(exported, GRAPHICS)
    assert [back[0]["data"][f] for f in FIELDS[:len(texts)]] == texts


# people's cells are read trimmed: texts with no space at either end (but the start we escape)
TRIMMED = st.tuples(START, st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                                   max_size=100).map(str.strip)).map("".join)


@settings(max_examples=200)
@given(TRIMMED, TRIMMED)
@example("=1+2", "-2+3")
@example("\t0", "")
def test_people_export_then_import_gives_back_the_text(name: str, title: str):
    assume(name.strip() and name == name.rstrip() and title == title.rstrip())
    exported = csvio.export_people([{"name": name, "title": title, "photo": ""}])
    assert not any(cell[:1] in ("=", "+", "-", "@", "\t", "\r") for row in cells(exported) for cell in row)
    assert csvio.parse_people(exported) == [{"name": name, "title": title, "photo": ""}]


def test_a_hand_written_file_keeps_its_own_text():
    """A file not written by us: cells without the quote are taken as they are."""
    text = "name,title,photo\r\nАнна,-ведущая-,\r\n'Борис,'квота,\r\n"
    assert [p["title"] for p in csvio.parse_people(text)] == ["-ведущая-", "'квота"]


# against a real server --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("csv") / "data", demo=False).start()
    yield srv
    srv.stop()


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"), newline="")))


def test_rundown_and_people_exports_over_http_are_neutralised_and_import_back(srv: Server):
    doc = srv.api("POST", "/api/rundowns", {"name": "Шоу"})
    srv.api("POST", f"/api/rundowns/{doc['id']}/items",
            {"segment": "=1+2", "label": "@метка", "graphic": "lower-third", "data": {"title": FORMULAS[0], "subtitle": "-2+3"}})
    exported = srv.call("GET", f"/api/rundowns/{doc['id']}/export").text
    row = cells(exported)[1]
    assert row[:2] == ["'=1+2", "'@метка"] and "'" + FORMULAS[0] in row and "'-2+3" in row
    copy = srv.api("POST", "/api/rundowns", {"name": "Копия"})
    r = srv.http.post(srv.url + f"/api/rundowns/{copy['id']}/import", data=exported.encode(),
                      headers={"Content-Type": "text/csv"}, timeout=10)
    assert r.status_code == 200, r.text
    item = srv.api("GET", f"/api/rundowns/{copy['id']}")["segments"][0]["items"][0]
    assert (item["label"], item["data"]["title"], item["data"]["subtitle"]) == ("@метка", FORMULAS[0], "-2+3")

    people = "name,title,photo\r\n'=Иван,+ведущий,\r\n"
    r = srv.http.post(srv.url + "/api/people/import", data=people.encode(), headers={"Content-Type": "text/csv"}, timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["people"][0] == {"name": "=Иван", "title": "+ведущий", "photo": ""}
    assert cells(srv.call("GET", "/api/people?format=csv").text)[1][:2] == ["'=Иван", "'+ведущий"]


def test_season_fees_export_neutralises_names_from_registrations(srv: Server):
    member = srv.api("POST", "/api/members", {"name": "=1+2 Иванов", "adult": True})
    mid = member["member"]["id"] if "member" in member else member["id"]
    srv.api("POST", f"/api/members/{mid}/status", {"status": "approved", "date": "2026-02-01", "reason": "заявка"})
    sid = srv.api("POST", "/api/seasons", {"name": "Осень", "qualifying_days": 1,
                                           "fees": {"individual": 500, "team": 3000, "currency": "RUB"}})["id"]
    srv.api("POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2026-09-06", "confirm": True})
    srv.api("POST", f"/api/holdings/{sid}-d1-sun/registrations", {"team": "@SUM(A1)", "members": [mid]})
    fees = cells(srv.call("GET", f"/api/seasons/{sid}/fees.csv").content.decode("utf-8"))
    row = fees[1]
    assert "'@SUM(A1)" in row and "'=1+2 Иванов" in row, row
    assert not any(cell[:1] in ("=", "+", "-", "@") for r in fees for cell in r), fees
