"""`/api/rundowns` (and `/api/people`): the prepared show over HTTP. Operators only. Every change
goes through `Rundowns.edit` / `act`; the answer is the rundown as `GET` shows it."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from ..web.api import body
from ..web.auth import operator_required
from ..rules import InputError
from ..web.services import services
from . import csvio, model
from .desk import Rundowns

bp = Blueprint("rundowns", __name__, url_prefix="/api")


def register(app: Flask, desk: Rundowns) -> None:
    app.extensions["chgk_rundowns"] = desk
    app.register_blueprint(bp)


def desk() -> Rundowns:
    return current_app.extensions["chgk_rundowns"]


@bp.errorhandler(csvio.CsvError)
def _csv_error(exc: csvio.CsvError) -> Any:
    error = {"code": exc.code, "message": exc.message, "row": exc.row, "column": exc.column}
    if exc.key:  # a bad data cell: the schema's catalog key and parameters (overlay/schema)
        error.update(key=exc.key, params=exc.params)
    return jsonify(error=error), 400


def _optional_body() -> dict:
    if not request.get_data(cache=True):
        return {}
    data = body()
    if not isinstance(data, dict):
        raise InputError("bad_json", "The body, when given, must be a JSON object.")
    return data


def _rev_arg(data: dict) -> dict:
    """`expected_rev` from the body, or `?expected_rev=` (DELETE and CSV bodies)."""
    if "expected_rev" not in data and request.args.get("expected_rev", "").isdigit():
        return {**data, "expected_rev": int(request.args["expected_rev"])}
    return data


@bp.get("/rundowns")
@operator_required
def list_rundowns() -> Any:
    return jsonify(rundowns=desk().summary())


@bp.post("/rundowns")
@operator_required
def create_rundown() -> Any:
    d = desk()
    return jsonify(d.view(d.create(body()))), 201


@bp.get("/rundowns/<rid>")
@operator_required
def get_rundown(rid: str) -> Any:
    d = desk()
    return jsonify(d.view(d.get(rid)))


@bp.patch("/rundowns/<rid>")
@operator_required
def rename_rundown(rid: str) -> Any:
    data, d = body(), desk()
    if not isinstance(data, dict) or "name" not in data:
        raise InputError("bad_field", "Send {\"name\": \"…\", \"expected_rev\": n}.")
    return jsonify(d.view(d.edit(rid, data, lambda doc: model.rename(doc, data["name"]), {"action": "rename"})))


@bp.delete("/rundowns/<rid>")
@operator_required
def delete_rundown(rid: str) -> Any:
    desk().delete(rid, _rev_arg(_optional_body()))
    return jsonify(deleted=rid)


# items ----------------------------------------------------------------------------------------------

@bp.post("/rundowns/<rid>/items")
@operator_required
def add_item(rid: str) -> Any:
    data, d = body(), desk()
    fields = model.parse_item(data, d.names)
    made: dict = {}

    def change(doc: dict) -> dict:
        new, item = model.add_item(doc, fields)
        made.update(item)
        return new
    doc = d.edit(rid, data, change, {"action": "add_item", "graphic": fields["graphic"]})
    return jsonify({**made, "rev": doc["rev"]}), 201


@bp.patch("/rundowns/<rid>/items/<item>")
@operator_required
def edit_item(rid: str, item: str) -> Any:
    data, d = body(), desk()
    fields = model.parse_item(data, d.names, partial=True)

    def change(doc: dict) -> dict:
        new, edited = model.edit_item(doc, item, fields)
        if d.ograf is not None and ("data" in fields or "graphic" in fields):  # the data against the (new) graphic's schema
            from ..ograf.items import check_data
            check_data(d.ograf, edited["graphic"], edited["data"])
        return new
    return jsonify(d.view(d.edit(rid, data, change,
                                 {"action": "edit_item", "item": item, "fields": sorted(fields)})))


@bp.delete("/rundowns/<rid>/items/<item>")
@operator_required
def delete_item(rid: str, item: str) -> Any:
    d = desk()
    return jsonify(d.view(d.edit(rid, _rev_arg(_optional_body()), lambda doc: model.delete_item(doc, item),
                                 {"action": "delete_item", "item": item})))


@bp.post("/rundowns/<rid>/items/<item>/duplicate")
@operator_required
def duplicate_item(rid: str, item: str) -> Any:
    d = desk()
    return jsonify(d.view(d.edit(rid, _optional_body(), lambda doc: model.duplicate_item(doc, item)[0],
                                 {"action": "duplicate_item", "item": item}))), 201


@bp.post("/rundowns/<rid>/items/<item>/move")
@operator_required
def move_item(rid: str, item: str) -> Any:
    data, d = body(), desk()
    if not isinstance(data, dict):
        raise InputError("bad_json", "Send {\"index\": n, \"segment\": id or name (optional)}.")
    return jsonify(d.view(d.edit(rid, data, lambda doc: model.move_item(doc, item, data.get("index"), data.get("segment")),
                                 {"action": "move_item", "item": item})))


# segments -------------------------------------------------------------------------------------------

@bp.patch("/rundowns/<rid>/segments/<seg>")
@operator_required
def rename_segment(rid: str, seg: str) -> Any:
    data, d = body(), desk()
    if not isinstance(data, dict):
        raise InputError("bad_json", "Send {\"name\": \"…\"}.")
    return jsonify(d.view(d.edit(rid, data, lambda doc: model.rename_segment(doc, seg, data.get("name")),
                                 {"action": "rename_segment", "segment": seg})))


@bp.delete("/rundowns/<rid>/segments/<seg>")
@operator_required
def delete_segment(rid: str, seg: str) -> Any:
    d = desk()
    return jsonify(d.view(d.edit(rid, _rev_arg(_optional_body()), lambda doc: model.delete_segment(doc, seg),
                                 {"action": "delete_segment", "segment": seg})))


@bp.post("/rundowns/<rid>/segments/<seg>/duplicate")
@operator_required
def duplicate_segment(rid: str, seg: str) -> Any:
    d = desk()
    return jsonify(d.view(d.edit(rid, _optional_body(), lambda doc: model.duplicate_segment(doc, seg)[0],
                                 {"action": "duplicate_segment", "segment": seg}))), 201


@bp.post("/rundowns/<rid>/segments/<seg>/move")
@operator_required
def move_segment(rid: str, seg: str) -> Any:
    data, d = body(), desk()
    if not isinstance(data, dict):
        raise InputError("bad_json", "Send {\"index\": n}.")
    return jsonify(d.view(d.edit(rid, data, lambda doc: model.move_segment(doc, seg, data.get("index")),
                                 {"action": "move_segment", "segment": seg})))


# operating ------------------------------------------------------------------------------------------

@bp.post("/rundowns/<rid>/actions")
@operator_required
def act(rid: str) -> Any:
    return jsonify(desk().act(rid, body(), source="http"))


@bp.get("/rundowns/<rid>/variables")
@operator_required
def variables(rid: str) -> Any:
    """Companion's variables (`rid` may be `current`): current and next item, layers, auto-out
    time left, score, phase, timer."""
    d = desk()
    d.get(rid)
    return jsonify(d.variables(rid))


@bp.get("/rundowns/<rid>/preview")
@operator_required
def preview(rid: str) -> Any:
    d = desk()
    d.get(rid)
    return jsonify(d.preview())


# CSV ------------------------------------------------------------------------------------------------

def _csv_text() -> str:
    raw = request.get_data(cache=True)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise csvio.CsvError(f"The file is not UTF-8 (byte {exc.start}); save it as «CSV UTF-8».", 1, None) from None


@bp.post("/rundowns/<rid>/import")
@operator_required
def import_csv(rid: str) -> Any:
    """Replaces the rundown's items with the file's (`?append=1`: adds them); all or nothing."""
    d = desk()
    d.get(rid)
    rows = csvio.parse_items(_csv_text(), d.names)
    append = request.args.get("append") == "1"

    def change(doc: dict) -> dict:
        return model.add_items(doc, rows, replace=not append)
    d.edit(rid, _rev_arg({}), change, {"action": "import", "items": len(rows), "append": append})
    return jsonify(items=len(rows), rev=d.get(rid)["rev"])


@bp.get("/rundowns/<rid>/export")
@operator_required
def export_csv(rid: str) -> Any:
    doc = desk().get(rid)
    return Response(csvio.export_items(doc), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="rundown-{rid}.csv"'})


# people ---------------------------------------------------------------------------------------------

@bp.get("/people")
@operator_required
def people() -> Any:
    if request.args.get("format") == "csv":
        return Response(csvio.export_people(services().store.get_setting("people", [])), mimetype="text/csv",
                        headers={"Content-Disposition": 'attachment; filename="people.csv"'})
    return jsonify(people=services().store.get_setting("people", []))


@bp.post("/people/import")
@operator_required
def import_people() -> Any:
    svc = services()
    rows = csvio.parse_people(_csv_text())
    with svc.sessions.lock:
        svc.store.set_setting("people", rows, at=svc.sessions.clock(), journal_kind="people",
                              journal_body={"people": len(rows)})
    return jsonify(people=rows)
