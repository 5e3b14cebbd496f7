"""A rundown, pure: segments of items, each item a graphic with its data, a layer and an out mode.

No Flask, no SQLite, no clock: functions take a rundown document (plain dicts, as stored and as
sent) and return a changed copy, or raise `InputError` (400, the field is wrong) / `RuleError`
(422, the rundown's state forbids it). `take`/`out` are not here: they change the air, which is
`overlay/graphics/game.py`'s (see `overlay/rundown/desk.py`).
"""
from __future__ import annotations

import copy
import re
from typing import Any

from ..graphics.game import check_envelope
from ..rules import InputError, RuleError
from ..schema import declared as schema_declared, validate_data
from ..schema.cells import parse_duration
from ..graphics.show import parse_stack

OUT_MODES = ("manual", "none")
MIN_OUT_MS, MAX_OUT_MS = 500, 3_600_000
LAYER_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
MAX_LABEL, MAX_NAME = 120, 80
MAX_ITEMS = 2000
STING_MS = 4000  # an item with out "none" holds its layer this long (its animation), unless data.duration_ms

# Graphics that play in steps; `continue` moves to the next (rules as data). Steps only hide:
# a question card's text and answer still come from the public state.
STEPS: dict[str, tuple[str, ...]] = {"question": ("card", "text", "answer")}

# Game-aware data: `{{name}}` in a text field is filled from the on-air game's PUBLIC state when
# the item is taken, never when it is prepared.
GAME_FIELDS = ("captain", "player", "viewer", "viewer_city", "experts", "score", "sector", "title", "prize")
TOKEN_RE = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
ITEM_FIELDS = ("segment", "label", "graphic", "layer", "out", "stack", "data")


def new_rundown(rundown_id: str, name: Any) -> dict:
    return {"id": rundown_id, "name": parse_name(name, "name"), "rev": 0, "locked": False, "focus": None,
            "segments": [], "next": 1}


def parse_name(value: Any, field: str = "name", limit: int = MAX_NAME) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError("bad_field", f"'{field}' must be a non-empty text.", reason="empty_text", field=field)
    value = value.strip()
    if len(value) > limit:
        raise InputError("bad_field", f"'{field}' is longer than {limit} characters.", reason="too_long",
                         field=field, n=limit)
    return value


def parse_out(value: Any) -> str | int:
    """"manual", "none" or a whole number of ms (as a CSV cell gives it: `8000`, `8 s`, `1:30`)."""
    if isinstance(value, str) and value.strip() not in OUT_MODES:
        value = parse_duration(value)
    if isinstance(value, str) and value.strip() in OUT_MODES:
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool) and MIN_OUT_MS <= value <= MAX_OUT_MS:
        return value
    raise InputError("bad_field", f"'out' must be \"manual\", \"none\" or a whole number of milliseconds "
                                  f"from {MIN_OUT_MS} to {MAX_OUT_MS}; got {value!r}.",
                     reason="out_mode", min=MIN_OUT_MS // 1000, max=MAX_OUT_MS // 1000)


def parse_layer(value: Any) -> str:
    if isinstance(value, str) and LAYER_RE.match(value.strip()):
        return value.strip()
    raise InputError("bad_field", f"'layer' must be a name of 1–32 lowercase letters, digits, '-' or '_' "
                                  f"(e.g. straps, bug, 1); got {value!r}.", reason="layer_name")


def parse_data(value: Any) -> dict:
    value = check_envelope(value)
    for key, v in value.items():
        if isinstance(v, str):
            for name in TOKEN_RE.findall(v):
                if name not in GAME_FIELDS:
                    raise InputError("bad_field", f"'data.{key}' names an unknown game field {{{{{name}}}}}; "
                                                  f"game fields: {', '.join(GAME_FIELDS)}.")
    return value


def typed_data(graphic: str, data: dict) -> dict:
    """An item's data checked against its graphic's schema (overlay/schema), cleaned: at the
    door (API, CSV), never first at take. A graphic the schema does not declare keeps its own check."""
    return validate_data(graphic, data) if graphic in schema_declared.FIELDS else data


def parse_item(body: Any, graphics: tuple[str, ...], *, partial: bool = False) -> dict:
    """An item's fields from a request body (every field checked; `partial`: only those given)."""
    if not isinstance(body, dict):
        raise InputError("bad_item", "Send an item as an object: {\"segment\", \"label\", \"graphic\", \"layer\", "
                                     "\"out\", \"stack\", \"data\"}.")
    extra = set(body) - set(ITEM_FIELDS) - {"expected_rev"}
    if extra:
        raise InputError("bad_field", f"Unknown field {sorted(extra)[0]!r}; an item has {', '.join(ITEM_FIELDS)}.")
    out: dict[str, Any] = {}
    if "graphic" in body or not partial:
        if body.get("graphic") not in graphics:
            raise InputError("unknown_graphic", f"Unknown graphic {body.get('graphic')!r}. Graphics: {', '.join(graphics)}.",
                             graphic=str(body.get("graphic")))
        out["graphic"] = body["graphic"]
    if "label" in body or not partial:
        label = body.get("label")
        out["label"] = parse_name(label, "label", MAX_LABEL) if label not in (None, "") else None
    if "segment" in body or not partial:
        seg = body.get("segment")
        out["segment"] = parse_name(seg, "segment") if seg not in (None, "") else None
    if "layer" in body or not partial:
        out["layer"] = parse_layer(body.get("layer", "main"))
    if "out" in body or not partial:
        out["out"] = parse_out(body.get("out", "manual"))
    if "stack" in body or not partial:
        out["stack"] = parse_stack(body.get("stack"))  # None: the graphic's own level (showgfx.STACK)
    if "data" in body or not partial:
        out["data"] = parse_data(body.get("data"))
    # the names may know more graphics than ours (overlay/ograf/items.py `Names`: uploaded graphics,
    # whose data their manifest's schema checks)
    check = getattr(graphics, "check_data", None)
    if check is not None and "data" in out and "graphic" in out:
        check(out["graphic"], out["data"])
    return out


# reading ------------------------------------------------------------------------------------------

def items(doc: dict) -> list[dict]:
    return [item for seg in doc["segments"] for item in seg["items"]]


def find_item(doc: dict, ref: Any) -> dict:
    """An item by id, or by label when no id matches (Companion buttons name labels)."""
    if not isinstance(ref, str) or not ref:
        raise InputError("bad_field", "'item' must be an item's id or label.")
    everything = items(doc)
    for item in everything:
        if item["id"] == ref:
            return item
    by_label = [i for i in everything if i["label"] == ref]
    if len(by_label) == 1:
        return by_label[0]
    if by_label:
        raise InputError("ambiguous_item", f"{len(by_label)} items are labelled {ref!r}; name one by its id.",
                         label=ref, n=len(by_label))
    raise _unknown("item", ref)


def find_segment(doc: dict, ref: Any) -> dict:
    for seg in doc["segments"]:
        if seg["id"] == ref or seg["name"] == ref:
            return seg
    raise _unknown("segment", ref)


def _unknown(what: str, ref: Any) -> InputError:
    err = InputError(f"unknown_{what}", f"This rundown has no {what} {ref!r}.", ref=str(ref))
    err.status = 404
    return err


def segment_of(doc: dict, item_id: str) -> dict:
    for seg in doc["segments"]:
        if any(i["id"] == item_id for i in seg["items"]):
            return seg
    raise _unknown("item", item_id)


# editing (each returns a new document; the caller bumps rev and stores it) ---------------------------

def editable(doc: dict) -> dict:
    if doc["locked"]:
        raise RuleError("locked", "The rundown is locked for the show: unlock it to edit.")
    return copy.deepcopy(doc)


def _new_id(doc: dict, prefix: str) -> str:
    n = doc["next"]
    doc["next"] = n + 1
    return f"{prefix}{n}"


def _segment(doc: dict, name: str | None) -> dict:
    name = name or (doc["segments"][-1]["name"] if doc["segments"] else "—")
    for seg in doc["segments"]:
        if seg["name"] == name:
            return seg
    seg = {"id": _new_id(doc, "s"), "name": name, "items": []}
    doc["segments"].append(seg)
    return seg


def add_item(doc: dict, fields: dict) -> tuple[dict, dict]:
    doc = editable(doc)
    return doc, _append(doc, fields)


def add_items(doc: dict, rows: list[dict], *, replace: bool = False) -> dict:
    """A CSV import: every row's item, appended (or replacing every segment), in one new document."""
    doc = editable(doc)
    if replace:
        doc["segments"], doc["focus"] = [], None
    for fields in rows:
        _append(doc, fields)
    return doc


def _append(doc: dict, fields: dict) -> dict:
    if len(items(doc)) >= MAX_ITEMS:
        raise RuleError("too_many_items", f"A rundown holds at most {MAX_ITEMS} items.", n=MAX_ITEMS)
    item = {"id": _new_id(doc, "i"), "label": fields.get("label") or fields["graphic"],
            "graphic": fields["graphic"], "layer": fields["layer"], "out": fields["out"],
            "stack": fields.get("stack"), "data": typed_data(fields["graphic"], fields["data"]), "cued": False}
    _segment(doc, fields.get("segment"))["items"].append(item)
    return item


def edit_item(doc: dict, ref: str, fields: dict) -> tuple[dict, dict]:
    doc = editable(doc)
    item = find_item(doc, ref)
    for key in ("graphic", "layer", "out", "stack", "data"):
        if key in fields:
            item[key] = fields[key]
    if "graphic" in fields or "data" in fields:  # the data must fit the (new) graphic's schema
        item["data"] = typed_data(item["graphic"], item["data"])
    if fields.get("label"):
        item["label"] = fields["label"]
    if fields.get("segment"):
        seg = segment_of(doc, item["id"])
        target = _segment(doc, fields["segment"])
        if target is not seg:
            seg["items"].remove(item)
            target["items"].append(item)
    return doc, item


def delete_item(doc: dict, ref: str) -> dict:
    doc = editable(doc)
    item = find_item(doc, ref)
    segment_of(doc, item["id"])["items"].remove(item)
    if doc["focus"] == item["id"]:
        doc["focus"] = None
    return doc


def duplicate_item(doc: dict, ref: str) -> tuple[dict, dict]:
    doc = editable(doc)
    item = find_item(doc, ref)
    seg = segment_of(doc, item["id"])
    copy_ = {**copy.deepcopy(item), "id": _new_id(doc, "i"), "cued": False}
    seg["items"].insert(seg["items"].index(item) + 1, copy_)
    return doc, copy_


def move_item(doc: dict, ref: str, index: Any, segment: Any = None) -> dict:
    doc = editable(doc)
    item = find_item(doc, ref)
    source = segment_of(doc, item["id"])
    target = find_segment(doc, segment) if segment not in (None, "") else source
    source["items"].remove(item)
    target["items"].insert(_index(index, len(target["items"])), item)
    return doc


def _index(value: Any, size: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError("bad_field", "'index' must be a whole number (0: first).")
    return max(0, min(value, size))


def rename_segment(doc: dict, ref: str, name: Any) -> dict:
    doc = editable(doc)
    seg = find_segment(doc, ref)
    name = parse_name(name)
    if any(s["name"] == name and s is not seg for s in doc["segments"]):
        raise InputError("duplicate_segment", f"A segment named {name!r} exists already.", name=name)
    seg["name"] = name
    return doc


def duplicate_segment(doc: dict, ref: str) -> tuple[dict, dict]:
    doc = editable(doc)
    seg = find_segment(doc, ref)
    names = {s["name"] for s in doc["segments"]}
    n, name = 2, f"{seg['name']} (2)"
    while name in names:
        n += 1
        name = f"{seg['name']} ({n})"
    new = {"id": _new_id(doc, "s"), "name": name,
           "items": [{**copy.deepcopy(i), "id": _new_id(doc, "i"), "cued": False} for i in seg["items"]]}
    doc["segments"].insert(doc["segments"].index(seg) + 1, new)
    return doc, new


def move_segment(doc: dict, ref: str, index: Any) -> dict:
    doc = editable(doc)
    seg = find_segment(doc, ref)
    doc["segments"].remove(seg)
    doc["segments"].insert(_index(index, len(doc["segments"])), seg)
    return doc


def delete_segment(doc: dict, ref: str) -> dict:
    doc = editable(doc)
    seg = find_segment(doc, ref)
    doc["segments"].remove(seg)
    if doc["focus"] in {i["id"] for i in seg["items"]}:
        doc["focus"] = None
    return doc


def rename(doc: dict, name: Any) -> dict:
    doc = editable(doc)
    doc["name"] = parse_name(name)
    return doc


# operating (allowed while locked) ------------------------------------------------------------------

def focus(doc: dict, ref: str | None) -> dict:
    doc = copy.deepcopy(doc)
    doc["focus"] = find_item(doc, ref)["id"] if ref is not None else None
    return doc


def step_focus(doc: dict, delta: int) -> dict:
    doc = copy.deepcopy(doc)
    ids = [i["id"] for i in items(doc)]
    if not ids:
        raise RuleError("empty_rundown", "The rundown has no items yet.")
    if doc["focus"] not in ids:
        doc["focus"] = ids[0] if delta > 0 else ids[-1]
    else:
        doc["focus"] = ids[max(0, min(len(ids) - 1, ids.index(doc["focus"]) + delta))]
    return doc


def set_cue(doc: dict, ref: str, on: bool | None) -> dict:
    doc = copy.deepcopy(doc)
    item = find_item(doc, ref)
    item["cued"] = (not item["cued"]) if on is None else bool(on)
    return doc


def clear_cues(doc: dict, ids: set[str]) -> dict:
    doc = copy.deepcopy(doc)
    for item in items(doc):
        if item["id"] in ids:
            item["cued"] = False
    return doc


def set_locked(doc: dict, locked: bool) -> dict:
    return {**doc, "locked": locked}


# game-aware data ---------------------------------------------------------------------------------

def game_values(public: dict | None) -> dict[str, str]:
    """The game fields a take may fill, from the PUBLIC state only (absent: not known now)."""
    if not public:
        return {}
    out: dict[str, str] = {}
    experts = public.get("experts") or {}
    if experts.get("captain"):
        out["captain"] = experts["captain"]
    if experts.get("name"):
        out["experts"] = experts["name"]
    rnd = public.get("round") or {}
    if rnd.get("player"):
        out["player"] = rnd["player"]
    author = rnd.get("author") or {}
    if author.get("name"):
        out["viewer"] = author["name"]
    if author.get("city"):
        out["viewer_city"] = author["city"]
    if rnd.get("sector"):
        out["sector"] = str(rnd["sector"])
    prize = rnd.get("prize") or {}
    if prize.get("amount") is not None:
        out["prize"] = f"{prize['amount']} {prize.get('currency') or ''}".strip()
    score = public.get("score")
    if score:
        out["score"] = f"{score['experts']}:{score['viewers']}"
    if public.get("title"):
        out["title"] = public["title"]
    return out


FIELD_WORDS = {"captain": "the captain", "player": "the superblitz player", "viewer": "the question's viewer",
               "viewer_city": "the viewer's city", "experts": "the experts' team", "score": "the score",
               "sector": "the sector", "title": "the game's title", "prize": "the prize"}


def resolve(data: dict, values: dict[str, str]) -> dict:
    """The item's data with `{{field}}` filled in; a field the game does not know now refuses."""
    def fill(text: str) -> str:
        def one(m: re.Match) -> str:
            name = m.group(1)
            if name not in values:
                raise RuleError("game_field_missing", f"{FIELD_WORDS.get(name, name).capitalize()} is not known "
                                                      f"in the on-air game now ({{{{{name}}}}}); take it later.",
                                    field=name)
            return values[name]
        return TOKEN_RE.sub(one, text)
    return {k: fill(v) if isinstance(v, str) else v for k, v in data.items()}
