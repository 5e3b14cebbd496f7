"""The graphics' data schema (overlay/schema): every graphic declared, each schema a valid JSON
Schema with GDD types whose clean data the reference validator (jsonschema) accepts; refusals
name the field, the expected type and the list row, with a catalog key said in ru/uk/en; the
CSV cells read what a spreadsheet user types; export then import gives back every graphic's data."""
from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from overlay.graphics.game import GRAPHICS
from overlay.i18n import Catalogs
from overlay.rundown import csvio, model
from overlay.schema import ENGLISH, DataError, KINDS, editor_schemas, graphic_schema, kind_of, validate_data
from overlay.schema.cells import format_cell, parse_cell, parse_duration
from overlay.schema.declared import FIELDS
from tests.schema.strategies import data_for

GDD_TYPES = ("single-line", "multi-line", "file-path", "file-path/image-path", "select", "color-rrggbb",
             "color-rrggbbaa", "percentage", "duration-ms")


def test_every_graphic_is_declared_with_gdd_types():
    assert set(FIELDS) == set(GRAPHICS)
    kinds = set()
    for g in GRAPHICS:
        schema = graphic_schema(g)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for name, prop in schema["properties"].items():
            kinds.add(kind_of(prop))
            gdd = prop.get("gddType")
            # a private GDD type extends an official one, so a GUI that does not know it degrades
            assert gdd is None or any(gdd == t or gdd.startswith(t + "/") for t in GDD_TYPES), (g, name, gdd)
            assert prop["type"] in ("boolean", "string", "number", "integer", "array", "object")
    # the eight types the brief names (and select, time of day) are all in use
    assert kinds == set(KINDS)
    assert graphic_schema("slate")["properties"]["countdown_ms"]["gddType"] == "duration-ms"
    assert graphic_schema("lower-third")["properties"]["accent"]["gddType"] == "color-rrggbb"
    assert graphic_schema("bug")["properties"]["media"]["gddType"].startswith("file-path/image-path/")
    assert editor_schemas()["ticker"]["properties"]["items"]["kind"] == "list"
    with pytest.raises(KeyError):
        graphic_schema("nope")


@pytest.mark.parametrize("graphic", GRAPHICS)
def test_clean_data_is_valid_by_the_reference_validator(graphic):
    check = jsonschema.Draft202012Validator(graphic_schema(graphic))

    @settings(max_examples=25)
    @given(data_for(graphic))
    def run(data):
        clean = validate_data(graphic, data)
        assert clean == data  # generated data is already clean
        check.validate(clean)
        assert validate_data(graphic, clean) == clean
    run()


def test_old_shapes_are_cleaned_into_the_declared_ones():
    assert validate_data("ticker", {"items": [" Новость ", {"text": "Вторая"}]}) == {"items": ["Новость", "Вторая"]}
    assert validate_data("credits", {"names": ["Анна", {"name": "Борис", "role": "звук"}]}) == \
        {"names": [{"name": "Анна"}, {"name": "Борис", "role": "звук"}]}
    assert validate_data("lower-third", {"accent": "#E0A800"}) == {"accent": "#e0a800"}
    # what the server writes at take is dropped from what a door takes
    assert validate_data("slate", {"kind": "break", "ends_at": 5, "qr_modules": ["ff"]}) == {"kind": "break"}
    assert validate_data("slate", {"count_up": False, "countdown_ms": 60_000}) == {"count_up": False, "countdown_ms": 60_000}


@pytest.mark.parametrize("graphic, data, key, params", [
    ("ticker", {"items": "a, b"}, "data.want_list", {"field": "items", "min": 1, "max": 50, "item_max": 300}),
    ("ticker", {"items": ["a", " ", "c"]}, "data.want_text_min", {"field": "items", "min": 1, "max": 300, "row": 2}),
    ("ticker", {"title": "x"}, "data.required", {"field": "items"}),
    ("ticker", {"items": ["a"], "speed": "fast"}, "data.want_number", {"field": "speed", "min": 20, "max": 600}),
    ("slate", {"countdown_ms": "5 min"}, "data.want_duration", {"field": "countdown_ms", "min": "0:01", "max": "24:00:00"}),
    ("slate", {"count_up": "yes"}, "data.want_boolean", {"field": "count_up"}),
    ("slate", {"until": "25:00"}, "data.want_time", {"field": "until"}),
    ("slate", {"kind": "pause"}, "data.want_choice", {"field": "kind", "options": "break, soon, round, text"}),
    ("slate", {"until": "19:30", "countdown_ms": 60_000}, "data.at_most_one", {"fields": "until, countdown_ms"}),
    ("bug", {"corner": "top-left"}, "data.one_of", {"fields": "media, qr"}),
    ("bug", {"media": ""}, "data.want_media", {"field": "media"}),
    ("lower-third", {"accent": "gold"}, "data.want_colour", {"field": "accent"}),
    ("credits", {"names": [{"name": "А"}, {"role": "звук"}]}, "data.required", {"field": "names.name", "row": 2}),
    ("scoreboard", {"title": "x"}, "data.unknown_field", {"field": "title", "fields": "duration_ms"}),
    ("lower-third", {"duration_ms": True}, "data.want_duration", {"field": "duration_ms", "min": "500", "max": "1:00:00"}),
])
def test_a_refusal_names_field_type_and_row(graphic, data, key, params):
    with pytest.raises(DataError) as err:
        validate_data(graphic, data)
    assert (err.value.code, err.value.key, err.value.params) == ("bad_field", key, params)
    assert err.value.status == 400


def test_every_refusal_is_said_in_ru_uk_en():
    books = Catalogs()
    sample = {"field": "items", "fields": "a, b", "min": 1, "max": 2, "item_max": 3, "options": "x", "row": 4}
    for lang in ("ru", "uk", "en"):
        for key in [*ENGLISH, "data.in_row"]:
            said = books.text(lang, key, **sample)
            assert said != key and "{" not in said, (lang, key, said)
    assert books.text("en", "data.want_list", **sample) == ENGLISH["data.want_list"].format(**sample)


@pytest.mark.parametrize("cell, ms", [("8000", 8000), ("8 s", 8000), ("8с", 8000), ("1.5 s", 1500), ("2 мин", 120_000),
                                      ("1 min 30 s", 90_000), ("1:30", 90_000), ("0:08", 8000), ("1:00:00", 3_600_000),
                                      ("8 parsecs", None), ("1:75", None), ("", None), ("1.0001 s", None)])
def test_durations_read_as_typed(cell, ms):
    assert parse_duration(cell) == (ms if ms is not None else cell)


def test_list_and_rows_cells():
    items = graphic_schema("ticker")["properties"]["items"]
    names = graphic_schema("credits")["properties"]["names"]
    assert parse_cell(items, " Первая | Вторая\\|половина | \\\\ ", "items") == ["Первая", "Вторая|половина", "\\"]
    assert parse_cell(names, "Анна ; режиссёр | Борис | Вера\\; Г ; звук | Дина ;", "names") == [
        {"name": "Анна", "role": "режиссёр"}, {"name": "Борис"}, {"name": "Вера; Г", "role": "звук"},
        {"name": "Дина", "role": ""}]
    assert format_cell(names, [{"name": "Вера; Г", "role": "звук"}, {"name": "Дина", "role": ""}]) == "Вера\\; Г ; звук | Дина ; "
    with pytest.raises(DataError) as err:
        parse_cell(names, "Анна ; режиссёр ; лишнее", "names")
    assert err.value.params["row"] == 1
    text = graphic_schema("ticker")["properties"]["title"]
    assert parse_cell(text, '""', "title") == "" and format_cell(text, "") == '""' and format_cell(text, '"') == '"""'


@pytest.mark.parametrize("graphic", GRAPHICS)
def test_export_then_import_gives_back_every_graphics_data(graphic):
    """The round trip through the rundown's CSV, for every graphic's schema."""
    @settings(max_examples=20)
    @given(st.lists(data_for(graphic), min_size=1, max_size=4))
    def run(datas):
        doc = model.add_items(model.new_rundown("r1", "Шоу"), [
            model.parse_item({"graphic": graphic, "data": d}, GRAPHICS) for d in datas])
        again = csvio.parse_items(csvio.export_items(doc), GRAPHICS)
        assert [r["data"] for r in again] == [i["data"] for i in model.items(doc)] == datas
    run()


@pytest.mark.parametrize("row, column, key", [
    ("ticker,Бегущая,,,", "data.items", "data.required"),
    ("ticker,Бегущая,a |  | c,,", "data.items", "data.want_text_min"),
    ("slate,Перерыв,,пять минут,", "data.countdown_ms", "data.want_duration"),
    ("slate,Перерыв,,,maybe", "data.count_up", "data.want_boolean"),
    ("lower-third,Анна,a | b,,", "data.items", "data.unknown_field"),
])
def test_a_bad_cell_refuses_the_file_with_its_row_and_column(row, column, key):
    text = "graphic,label,data.items,data.countdown_ms,data.count_up\nticker,Ок,a | b,,\n" + row + "\n"
    with pytest.raises(csvio.CsvError) as err:
        csvio.parse_items(text, GRAPHICS)
    assert (err.value.row, err.value.column, err.value.key) == (3, column, key)
