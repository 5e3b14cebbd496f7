"""The field types a graphic's data is made of, as JSON Schema fragments with the Graphics Data
Definition types of EBU OGraf (`gddType`, ebu/ograf v1/specification/json-schemas/gdd/), so a GDD
form builder draws each with its control and one that does not know our private types degrades
to the basic one (a media id is still a string, a duration still an integer).

`kind_of` says which of our eight kinds a fragment is: the validator, the CSV cells and the desk's
editor all branch on it, never on the fragment's shape."""
from __future__ import annotations

from typing import Any

# Private GDD types extend an official one ("basic/advanced/ours"): a GUI that does not know ours
# falls back to the official part.
MEDIA_GDD = "file-path/image-path/chgk-media"  # a media id of the library ("m3") or a URL
TIME_GDD = "single-line/chgk-time-of-day"        # "HH:MM", the server's local time
COLOUR_RE = r"^#[0-9a-f]{6}$"
TIME_RE = r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$"
PICTURE_EXTENSIONS = ["png", "jpg", "jpeg", "webp", "svg"]

KINDS = ("text", "number", "duration", "boolean", "list", "rows", "media", "colour", "choice", "time")


def text(max_length: int = 200, *, min_length: int = 0, multi_line: bool = False, label: str = "",
         order: int | None = None) -> dict:
    prop: dict[str, Any] = {"type": "string", "gddType": "multi-line" if multi_line else "single-line",
                            "maxLength": max_length}
    if min_length:
        prop["minLength"] = min_length
    return _common(prop, label, order)


def number(minimum: int, maximum: int, *, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "integer", "minimum": minimum, "maximum": maximum}, label, order)


def duration(minimum: int, maximum: int, *, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "integer", "gddType": "duration-ms", "minimum": minimum, "maximum": maximum},
                   label, order)


def boolean(*, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "boolean"}, label, order)


def choice(options: tuple[str, ...], *, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "string", "enum": list(options), "gddType": "select",
                    "gddOptions": {"labels": {o: o for o in options}}}, label, order)


def media(*, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "string", "gddType": MEDIA_GDD, "minLength": 1, "maxLength": 500,
                    "gddOptions": {"extensions": PICTURE_EXTENSIONS}}, label, order)


def colour(*, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "string", "gddType": "color-rrggbb", "pattern": COLOUR_RE}, label, order)


def time_of_day(*, label: str = "", order: int | None = None) -> dict:
    return _common({"type": "string", "gddType": TIME_GDD, "pattern": TIME_RE}, label, order)


def text_list(min_items: int, max_items: int, item_max: int, *, label: str = "", order: int | None = None) -> dict:
    """A list of texts (a ticker's items): each 1..item_max characters."""
    return _common({"type": "array", "minItems": min_items, "maxItems": max_items,
                    "items": {"type": "string", "gddType": "single-line", "minLength": 1, "maxLength": item_max}},
                   label, order)


def rows(columns: dict[str, dict], required: tuple[str, ...], min_items: int, max_items: int, *,
         label: str = "", order: int | None = None) -> dict:
    """A list of rows, each an object of text columns (credits: name and role)."""
    return _common({"type": "array", "minItems": min_items, "maxItems": max_items,
                    "items": {"type": "object", "properties": columns, "required": list(required),
                              "additionalProperties": False}}, label, order)


def read_only(prop: dict) -> dict:
    """A field the server writes (a slate's `ends_at`): shown, never taken from a request."""
    return {**prop, "readOnly": True}


def _common(prop: dict, label: str, order: int | None) -> dict:
    if label:
        prop["label"] = label
    if order is not None:
        prop["order"] = order
    return prop


def kind_of(prop: dict) -> str:
    """Which of KINDS a property is."""
    gdd, typ = prop.get("gddType", ""), prop.get("type")
    if typ == "array":
        return "rows" if prop.get("items", {}).get("type") == "object" else "list"
    if gdd == MEDIA_GDD:
        return "media"
    if gdd == TIME_GDD:
        return "time"
    if gdd.startswith("color-"):
        return "colour"
    if gdd == "select":
        return "choice"
    if gdd == "duration-ms":
        return "duration"
    if typ in ("integer", "number"):
        return "number"
    if typ == "boolean":
        return "boolean"
    return "text"
