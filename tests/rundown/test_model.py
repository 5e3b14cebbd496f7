"""The rundown model, pure and fast: any sequence of edits keeps ids unique and stable, a locked
rundown refuses every edit, focus stays on an item, game fields come from the public state only,
and a CSV export imports back to the same items."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from overlay.graphics.game import GRAPHICS
from overlay.rules import InputError, RuleError
from overlay.graphics.show import STACK_LEVELS, stack_of
from overlay.rundown import csvio, model
from tests.schema.strategies import data_for

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(str.strip)
# each item's data is any data its graphic's schema takes (tests/schema/strategies.py)
item_fields = st.sampled_from(GRAPHICS).flatmap(lambda graphic: st.fixed_dictionaries({
    "segment": st.sampled_from(["Начало", "Раунд 1", "Перерыв", "Финал"]),
    "label": texts,
    "graphic": st.just(graphic),
    "layer": st.sampled_from(["main", "straps", "1", "12", "bug"]),
    "out": st.one_of(st.sampled_from(["manual", "none"]), st.integers(500, 3_600_000)),
    "stack": st.sampled_from([None, "", *STACK_LEVELS]),
    "data": data_for(graphic),
}))
# the edits do not look into data: a light one that each graphic takes keeps these tests cheap
LIGHT = {"lower-third": st.fixed_dictionaries({}, optional={"title": texts, "subtitle": texts}),
         "ticker": st.just({"items": ["Новость"]}), "credits": st.just({"names": [{"name": "Анна"}]}),
         "bug": st.just({"media": "m_1a2b"})}
edit_fields = st.sampled_from(GRAPHICS).flatmap(lambda graphic: st.fixed_dictionaries({
    "segment": st.sampled_from(["Начало", "Раунд 1", "Перерыв", "Финал"]),
    "label": texts,
    "graphic": st.just(graphic),
    "layer": st.sampled_from(["main", "straps", "1", "12", "bug"]),
    "out": st.one_of(st.sampled_from(["manual", "none"]), st.integers(500, 3_600_000)),
    "stack": st.sampled_from([None, "", *STACK_LEVELS]),
    "data": LIGHT.get(graphic, st.just({})),
}))
edits = st.lists(st.tuples(st.sampled_from(["add", "dup", "move", "delete", "dup_seg", "move_seg", "focus", "cue"]),
                           edit_fields, st.integers(0, 30)), max_size=30)


def apply(doc: dict, op: str, fields: dict, n: int) -> dict:
    ids = [i["id"] for i in model.items(doc)]
    segs = [s["id"] for s in doc["segments"]]
    if op == "add" or not ids:
        return model.add_item(doc, model.parse_item(fields, GRAPHICS))[0]
    ref = ids[n % len(ids)]
    if op == "dup":
        return model.duplicate_item(doc, ref)[0]
    if op == "move":
        return model.move_item(doc, ref, n % 5, segs[n % len(segs)])
    if op == "delete":
        return model.delete_item(doc, ref)
    if op == "dup_seg":
        return model.duplicate_segment(doc, segs[n % len(segs)])[0]
    if op == "move_seg":
        return model.move_segment(doc, segs[n % len(segs)], n % 4)
    if op == "focus":
        return model.focus(doc, ref)
    return model.set_cue(doc, ref, None)


@given(edits)
def test_edits_keep_ids_unique_and_stable(ops):
    doc = model.new_rundown("r1", "Шоу")
    labels: dict[str, str] = {}
    for op, fields, n in ops:
        before = {i["id"]: i["label"] for i in model.items(doc)}
        doc = apply(doc, op, fields, n)
        after = {i["id"]: i["label"] for i in model.items(doc)}
        ids = [i["id"] for i in model.items(doc)]
        assert len(ids) == len(set(ids))
        # an item that survives keeps its label; a deleted id never comes back
        assert all(after[k] == v for k, v in before.items() if k in after)
        for k, v in after.items():
            assert labels.setdefault(k, v) == v
        assert doc["focus"] is None or doc["focus"] in ids
        seg_names = [s["name"] for s in doc["segments"]]
        assert len(seg_names) == len(set(seg_names))


@given(edits)
def test_a_locked_rundown_refuses_every_edit(ops):
    doc = model.new_rundown("r1", "Шоу")
    for op, fields, n in ops:
        doc = apply(doc, op, fields, n)
    locked = model.set_locked(doc, True)
    ids = [i["id"] for i in model.items(locked)] or ["i1"]
    for edit in (lambda d: model.add_item(d, model.parse_item({"graphic": "result"}, GRAPHICS)),
                 lambda d: model.edit_item(d, ids[0], {"label": "x"}), lambda d: model.delete_item(d, ids[0]),
                 lambda d: model.rename(d, "x"), lambda d: model.add_items(d, [], replace=True)):
        with pytest.raises(RuleError) as err:
            edit(locked)
        assert err.value.code == "locked"
    # operating is not editing
    if model.items(locked):
        assert model.focus(locked, ids[0])["focus"] == ids[0]


@given(st.lists(item_fields, min_size=1, max_size=12))
def test_csv_export_imports_back_to_the_same_items(rows):
    doc = model.add_items(model.new_rundown("r1", "Шоу"), [model.parse_item(r, GRAPHICS) for r in rows])
    again = model.add_items(model.new_rundown("r2", "Копия"), csvio.parse_items(csvio.export_items(doc), GRAPHICS))
    strip = lambda d: [(s["name"], [(i["label"], i["graphic"], i["layer"], i["out"], i["stack"], i["data"])
                                    for i in s["items"]]) for s in d["segments"]]
    assert strip(again) == strip(doc)


def test_an_item_chooses_its_stacking_level_or_keeps_its_graphics():
    """`stack` names a level of overlay/graphics/show.py's order (bottom to top), or is left out: then
    the graphic's own level holds — slate and credits at the back, straps above the game, ticker
    and bug on top. A wrong level is refused, naming the field, in the API and in a CSV cell."""
    assert STACK_LEVELS == ("back", "game", "strap", "top")
    assert [stack_of(g) for g in ("slate", "credits", "scoreboard", "full", "lower-third", "ticker", "bug")] == \
        ["back", "back", "game", "game", "strap", "top", "top"]
    assert stack_of("slate", "strap") == "strap"
    assert model.parse_item({"graphic": "slate"}, GRAPHICS)["stack"] is None
    assert model.parse_item({"graphic": "slate", "stack": " top "}, GRAPHICS)["stack"] == "top"
    assert model.parse_item({"graphic": "slate", "stack": ""}, GRAPHICS)["stack"] is None
    for bad in ("front", "TOP", 2, True, ["top"]):
        with pytest.raises(InputError) as err:
            model.parse_item({"graphic": "slate", "stack": bad}, GRAPHICS)
        assert "'stack' must be one of back, game, strap, top" in err.value.message
    doc, item = model.add_item(model.new_rundown("r1", "Шоу"), model.parse_item({"graphic": "slate"}, GRAPHICS))
    doc, _ = model.edit_item(doc, item["id"], model.parse_item({"stack": "strap"}, GRAPHICS, partial=True))
    assert model.items(doc)[0]["stack"] == "strap"
    # CSV: the column appears once an item sets it, and a bad cell names its row and column
    text = csvio.export_items(doc)
    assert text.startswith("segment,label,graphic,layer,out,stack\r\n") and ",manual,strap" in text
    with pytest.raises(csvio.CsvError) as err:
        csvio.parse_items("graphic,stack\nslate,front\n", GRAPHICS)
    assert (err.value.row, err.value.column) == (2, "stack")


def test_game_fields_come_from_the_public_state_only():
    public = {"experts": {"name": "Команда", "captain": "Анна"}, "score": {"experts": 3, "viewers": 2},
              "round": {"sector": 7, "player": None, "author": {"name": "Ирина", "city": "Харьков"},
                        "prize": {"amount": 1000, "currency": "UAH"}, "text": None, "answer": None},
              "title": "Игра"}
    values = model.game_values(public)
    assert model.resolve({"title": "{{captain}} ({{experts}})", "subtitle": "{{ score }}"}, values) == \
        {"title": "Анна (Команда)", "subtitle": "3:2"}
    assert model.resolve({"title": "{{viewer}}, {{viewer_city}}: {{prize}}"}, values)["title"] == "Ирина, Харьков: 1000 UAH"
    with pytest.raises(RuleError) as err:
        model.resolve({"title": "{{player}}"}, values)
    assert err.value.code == "game_field_missing"
    # no field reads a question's text or answer
    assert not any(name in model.GAME_FIELDS for name in ("text", "answer", "question"))
    with pytest.raises(InputError):
        model.parse_data({"title": "{{answer}}"})


def test_field_checks():
    for bad in ({"graphic": "nope"}, {"graphic": "result", "layer": "A"}, {"graphic": "result", "layer": "x" * 33},
                {"graphic": "result", "out": 499}, {"graphic": "result", "out": True}, {"graphic": "result", "out": "soon"},
                {"graphic": "result", "data": []}, {"graphic": "result", "data": {"a": [[[[[[[[[[1]]]]]]]]]]}},
                {"graphic": "result", "data": {"a": "x" * 9000}}, {"graphic": "result", "label": "x" * 121}):
        with pytest.raises(InputError):
            model.parse_item(bad, GRAPHICS)
    assert model.parse_item({"graphic": "result", "out": "8000"}, GRAPHICS)["out"] == 8000
    assert model.parse_out(" none ") == "none"


def test_media_users_name_the_rundown_and_the_item(tmp_path):
    import random

    from overlay.graphics.game import Graphics
    from overlay.rundown import Rundowns
    from overlay.core.session import Sessions
    from overlay.core.store import Store

    sessions = Sessions(Store(tmp_path / "db.sqlite3", "OFF"), clock=lambda: 1_700_000_000_000, rng=random.Random(1))
    desk = Rundowns(sessions, Graphics(sessions))
    doc = desk.create({"name": "Шоу"})
    desk.edit(doc["id"], {}, lambda d: model.add_item(d, model.parse_item(
        {"label": "Логотип", "graphic": "bug", "data": {"media": "m_1a2b"}}, GRAPHICS))[0], {"action": "add"})
    assert desk.media_users("m_1a2b") == [{"kind": "rundown_item", "text": "rundown «Шоу», item «Логотип»",
                                           "rundown": "Шоу", "item": "Логотип"}]
    assert desk.media_users("m_other") == []


def test_a_take_carries_its_level_and_the_payload_the_order(tmp_path):
    """What reaches the output: each layer's `stack` (the item's choice, else its graphic's), the
    order bottom to top with every graphic's own level, and, in the preview, the media map."""
    import random

    from overlay.graphics.game import Graphics
    from overlay.rundown import Rundowns
    from overlay.core.session import Sessions
    from overlay.core.store import Store

    sessions = Sessions(Store(tmp_path / "db.sqlite3", "OFF"), clock=lambda: 1_700_000_000_000, rng=random.Random(1))
    graphics = Graphics(sessions)
    desk = Rundowns(sessions, graphics)
    rid = desk.create({"name": "Шоу"})["id"]
    for body in ({"label": "Перерыв", "graphic": "slate", "layer": "bg", "stack": "strap", "data": {"kind": "break"}},
                 {"label": "Бегущая", "graphic": "ticker", "layer": "crawl", "data": {"items": ["Новости"]}}):
        desk.edit(rid, {}, lambda d, b=body: model.add_item(d, model.parse_item(b, GRAPHICS))[0], {"action": "add"})
    desk.act(rid, {"action": "take", "item": "Перерыв"})
    desk.act(rid, {"action": "take", "item": "Бегущая"})
    payload = graphics.payload()
    assert {k: v["stack"] for k, v in payload["layers"].items()} == {"bg": "strap", "crawl": "top"}
    assert payload["stack"]["levels"] == list(STACK_LEVELS)
    assert payload["stack"]["graphics"]["slate"] == "back" and payload["stack"]["graphics"]["scoreboard"] == "game"
    assert desk.view(desk.get(rid))["program"]["bg"]["stack"] == "strap"
    desk.act(rid, {"action": "focus", "item": "Бегущая"})
    assert desk.preview()["stack"] == "top" and desk.preview()["media"] == {}
