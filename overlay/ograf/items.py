"""Uploaded OGraf graphics as rundown items: `"graphic": "ograf:<graphicId>"` (API.md, OGraf).

The desk treats them as its own graphics — take, continue, out, F5, the journal, the broadcast,
the program monitor — with three differences kept here: the item's `data` is checked against
the manifest's `schema` (at creation, import, edit and take); the steps come from the
manifest's `stepCount` (-1: the graphic decides, continue is always allowed); and the layer's
entry carries what the sandboxed renderer needs (`ograf`: frame URL, step count) and the
custom actions run since the take (`actions`), so a page that connects late replays them."""
from __future__ import annotations

from typing import Any

from ..rules import InputError, RuleError
from .library import OgrafLibrary, data_validator, error_text

PREFIX = "ograf:"
MAX_ACTIONS = 200  # custom actions kept on a layer's entry (a late page replays them)
MAX_PAYLOAD = 4_000


def is_ograf(graphic: Any) -> bool:
    return isinstance(graphic, str) and graphic.startswith(PREFIX)


class Names(tuple):
    """The graphics a rundown item may name: ours, and `ograf:<id>` for each graphic in the
    library (checked when asked, so an upload is usable at once)."""

    library: OgrafLibrary | None = None

    def __new__(cls, names: tuple[str, ...], library: OgrafLibrary) -> "Names":
        self = super().__new__(cls, names)
        self.library = library
        return self

    def __contains__(self, graphic: object) -> bool:
        if is_ograf(graphic) and self.library is not None:
            return self.library.find(str(graphic)[len(PREFIX):]) is not None
        return super().__contains__(graphic)


def record(library: OgrafLibrary, graphic: str) -> dict:
    rec = library.find(graphic[len(PREFIX):])
    if rec is None:
        raise InputError("unknown_graphic", f"There is no graphic {graphic!r}: upload it to the graphics library "
                                            "(POST /api/ograf) or pick another.")
    return rec


def check_data(library: OgrafLibrary, graphic: str, data: dict) -> dict:
    """The item's data, refused (400 `bad_field`) when it does not fit the manifest's schema."""
    if not is_ograf(graphic):
        return data
    manifest = record(library, graphic)["manifest"]
    errors = sorted(data_validator(manifest.get("schema")).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        raise InputError("bad_field", f"'data' does not fit the schema of {manifest.get('name', graphic)!r} "
                                      f"{error_text(errors[0])}.")
    return data


def step_count(library: OgrafLibrary, graphic: str) -> int:
    """The manifest's `stepCount` (1 when absent; -1: dynamic)."""
    n = record(library, graphic)["manifest"].get("stepCount", 1)
    return int(n) if isinstance(n, (int, float)) and n >= -1 and n != 0 else 1


def more_steps(library: OgrafLibrary, graphic: str, step: int) -> bool:
    """Whether `continue` may go past `step` (0-based)."""
    n = step_count(library, graphic)
    return n == -1 or step + 1 < n


def entry_extra(library: OgrafLibrary, graphic: str) -> dict:
    """What a layer's entry carries for the renderer (overlay/ograf/library_api.py serves the frame)."""
    rec = record(library, graphic)
    return {"ograf": {"id": rec["id"], "frame": f"/ograf/frame/{rec['id']}?v={rec['pkg'][:12]}",
                      "stepCount": rec["manifest"].get("stepCount", 1)}}


def custom_action(library: OgrafLibrary, graphic: str, action_id: Any, payload: Any, done: list) -> list:
    """The entry's custom actions with this one added; refused when the manifest has no such
    action or the payload does not fit its schema."""
    manifest = record(library, graphic)["manifest"]
    actions = {a["id"]: a for a in manifest.get("customActions") or []}
    if action_id not in actions:
        raise InputError("unknown_action", f"{manifest.get('name', graphic)!r} has no custom action {action_id!r}; "
                                           f"it has: {', '.join(actions) or 'none'}.")
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        raise InputError("bad_field", "'payload' must be an object.")
    import json
    if len(json.dumps(payload, ensure_ascii=False).encode()) > MAX_PAYLOAD:
        raise InputError("bad_field", f"'payload' is larger than {MAX_PAYLOAD} bytes.")
    schema = actions[action_id].get("schema")
    if isinstance(schema, dict):
        errors = sorted(data_validator(schema).iter_errors(payload), key=lambda e: list(e.absolute_path))
        if errors:
            raise InputError("bad_field", f"'payload' does not fit the schema of action {action_id!r} {error_text(errors[0])}.")
    if len(done) >= MAX_ACTIONS:
        raise RuleError("too_many_actions", f"{MAX_ACTIONS} custom actions ran since this item was taken: "
                                            "take it again (out, then take) to go on.")
    return [*done, {"id": action_id, "payload": payload}]


def used_by(rundowns: Any, graphics: Any, gid: str) -> list[str]:
    """Rundown items and layers on air that name `ograf:<gid>` (a delete is refused while any do)."""
    name = PREFIX + gid
    from ..rundown import model
    out = [f"rundown «{d['name']}», item «{i['label']}»" for d in rundowns.docs.values()
           for i in model.items(d) if i["graphic"] == name]
    out += [f"layer «{layer}» on air" for layer, e in graphics.layers.items() if e.get("graphic") == name]
    return out


def described(library: OgrafLibrary, doc: dict) -> dict[str, dict]:
    """For the desk: each uploaded graphic a rundown names — its step count, custom actions and
    data schema (the desk draws buttons and a form from them)."""
    from ..rundown import model
    out: dict[str, dict] = {}
    for item in model.items(doc):
        g = item["graphic"]
        if is_ograf(g) and g not in out:
            rec = library.find(g[len(PREFIX):])
            if rec:
                m = rec["manifest"]
                out[g] = {"name": m.get("name", g), "stepCount": m.get("stepCount", 1),
                          "customActions": [{"id": a["id"], "name": a.get("name", a["id"]), "schema": a.get("schema")}
                                            for a in m.get("customActions") or []],
                          "schema": m.get("schema")}
    return out


def install(svc: Any) -> None:
    """Rundown items may name uploaded graphics; a graphic in use is not deleted."""
    from ..graphics.game import GRAPHICS
    svc.rundowns.names = Names(tuple(svc.rundowns.names or GRAPHICS), svc.ograf)
    svc.rundowns.ograf = svc.ograf
    svc.ograf.users.append(lambda gid: used_by(svc.rundowns, svc.graphics, gid))
