"""A show prepared in a spreadsheet (tests/fixtures/show/show.csv) imports in one step and every
item takes without a refusal — lists, rows, numbers and durations typed the spreadsheet way are
read at import; a bad cell refuses the whole file at import with its row, column and words in
ru/uk/en, never at take; and every door (`POST /api/graphics`, the items API) checks the same
schema, which `GET /api/graphics/schema` serves."""
from __future__ import annotations

from pathlib import Path

from overlay.i18n import Catalogs
from tests.api.test_media import png, upload
from tests.support import Server

SHEET = Path(__file__).resolve().parent.parent / "fixtures" / "show" / "show.csv"


def test_a_spreadsheet_show_imports_in_one_step_and_every_item_takes(server: Server) -> None:
    logo = upload(server, png("gold", (120, 60)), "logo.png")
    assert logo.status_code == 201 and logo.json()["id"] == "m1"  # the sheet names the library's first picture
    rid = server.api("POST", "/api/rundowns", {"name": "Финал лиги"})["id"]
    r = server.call("POST", f"/api/rundowns/{rid}/import", data=SHEET.read_bytes())
    assert r.status_code == 200, r.text
    assert r.json()["items"] == 8
    doc = server.api("GET", f"/api/rundowns/{rid}")
    items = {i["label"]: i for s in doc["segments"] for i in s["items"]}
    assert items["Бегущая строка"]["data"]["items"][2] == "Вопросы присылайте на сайт; лучшие — в эфире"
    assert items["Бегущая строка"]["data"]["speed"] == 90
    assert items["Скоро начнём"]["data"]["countdown_ms"] == 300_000 and items["Перерыв"]["data"]["countdown_ms"] == 90_000
    assert items["Титры"]["data"]["names"][:2] == [{"name": "Борис Крюк", "role": "ведущий"},
                                                   {"name": "Анна Петрова", "role": "режиссёр"}]
    assert items["Титры"]["data"]["loop"] is True and items["Ведущий"]["out"] == 8000
    for label, item in items.items():
        r = server.call("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": label})
        assert r.status_code == 200, (label, r.text)
        on_air = server.api("GET", "/api/graphics")["layers"][item["layer"]]
        assert on_air["item"] == item["id"], label
    layers = server.api("GET", "/api/graphics")["layers"]
    assert layers["bug"]["media"] == {"m1": logo.json()["url"]}
    assert layers["crawl"]["data"]["items"] == items["Бегущая строка"]["data"]["items"]
    assert layers["bg"]["graphic"] == "credits"  # the last of the three on `bg`
    # the export is the same show: imported again it gives the same items
    again = server.api("POST", "/api/rundowns", {"name": "Копия"})["id"]
    exported = server.call("GET", f"/api/rundowns/{rid}/export").content
    assert server.call("POST", f"/api/rundowns/{again}/import", data=exported).status_code == 200
    copy = server.api("GET", f"/api/rundowns/{again}")
    strip = lambda d: [[(i["label"], i["graphic"], i["layer"], i["out"], i["data"]) for i in s["items"]] for s in d["segments"]]
    assert strip(copy) == strip(doc)


def test_a_bad_cell_is_named_at_import_in_the_operators_language(server: Server) -> None:
    rid = server.api("POST", "/api/rundowns", {"name": "Шоу"})["id"]
    text = SHEET.read_text(encoding="utf-8-sig").replace(";5:00;", ";пять минут;")
    r = server.call("POST", f"/api/rundowns/{rid}/import", data=text.encode())
    assert r.status_code == 400
    err = r.json()["error"]
    assert (err["code"], err["row"], err["column"], err["key"]) == ("bad_csv", 2, "data.countdown_ms", "data.want_duration")
    assert err["params"] == {"field": "countdown_ms", "min": "0:01", "max": "24:00:00"}
    books = Catalogs()
    assert books.text("ru", err["key"], **err["params"]).startswith("«countdown_ms»: длительность от 0:01 до 24:00:00")
    assert books.text("uk", err["key"], **err["params"]).startswith("«countdown_ms»: тривалість від 0:01")
    assert server.api("GET", f"/api/rundowns/{rid}")["segments"] == []  # nothing imported
    # a list row that is empty names its row in the list
    bad = SHEET.read_text(encoding="utf-8-sig").replace("Сегодня финал сезона | ", "Сегодня финал сезона |  | ")
    err = server.call("POST", f"/api/rundowns/{rid}/import", data=bad.encode()).json()["error"]
    assert (err["row"], err["column"], err["key"], err["params"]["row"]) == (5, "data.items", "data.want_text_min", 2)


def test_every_door_checks_the_same_schema(server: Server) -> None:
    schemas = server.api("GET", "/api/graphics/schema")["graphics"]
    assert schemas["ticker"]["properties"]["items"]["type"] == "array"
    assert schemas["slate"]["properties"]["countdown_ms"]["gddType"] == "duration-ms"
    # POST /api/graphics: a ticker's items as one text is refused at the door, naming the field
    r = server.call("POST", "/api/graphics", {"action": "show", "graphic": "ticker", "data": {"items": "a | b"}})
    assert r.status_code == 400
    assert (r.json()["error"]["key"], r.json()["error"]["params"]["field"]) == ("data.want_list", "items")
    assert server.api("GET", "/api/graphics")["graphics"] == {}
    # the items API: create and PATCH (a new graphic must fit its data too)
    rid = server.api("POST", "/api/rundowns", {"name": "Шоу"})["id"]
    r = server.call("POST", f"/api/rundowns/{rid}/items", {"graphic": "slate", "data": {"countdown_ms": "5 min"}})
    assert r.status_code == 400 and r.json()["error"]["key"] == "data.want_duration"
    item = server.api("POST", f"/api/rundowns/{rid}/items", {"graphic": "ticker", "data": {"items": ["a", "b"]}})
    r = server.call("PATCH", f"/api/rundowns/{rid}/items/{item['id']}", {"graphic": "lower-third"})
    assert r.status_code == 400 and r.json()["error"]["params"] == {"field": "items", "fields":
                                                                      "title, subtitle, text, kind, style, photo, accent, duration_ms"}
    r = server.call("PATCH", f"/api/rundowns/{rid}/items/{item['id']}", {"data": {"items": ["a", "b", "c"], "speed": 700}})
    assert r.status_code == 400 and r.json()["error"]["params"] == {"field": "speed", "min": 20, "max": 600}
    assert server.api("GET", f"/api/rundowns/{rid}")["segments"][0]["items"][0]["data"] == {"items": ["a", "b"]}
