"""The OGraf Server API under `/ograf/v1`, for OGraf controllers: the EBU OGraf v1 Server API's
paths, described by our own OpenAPI document (openapi.yaml, served at `/ograf/v1/openapi.yaml`).

One renderer, `show`: the rundown's output (`/overlays/show`, the desk's program monitor). Its
render targets are the layers, `{"layer": "<name>"}`. A graphic instance on air *is* a layer's
entry in `Graphics.layers`: `playAction` puts it there with `Graphics.set_layers` — the desk's
own path in, so the take is journalled, broadcast and drawn on the program monitor — and a desk
take shows here as an instance of the layer (`<rundown>:<item>`). `load` keeps the instance ready
on its layer without touching the air (as a renderer loads a graphic hidden).

Operators only (the bearer token, as `/api`) but for that description; CORS for the origins in
`OGRAF_ORIGINS` only.
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from .. import __version__
from ..web.auth import operator_required
from ..graphics.game import _parse as check_graphic_body
from ..rules import InputError
from ..web.services import services
from ..graphics.show import stack_of
from . import manifests

bp = Blueprint("ograf_api", __name__, url_prefix="/ograf/v1")
RENDERER = "show"
SOURCE = "ograf"
LOADED_MAX = 200  # instances loaded and not yet cleared: a controller's loop cannot grow this without end
CORS_HEADERS = {"Access-Control-Allow-Methods": "GET, PUT, POST, HEAD, OPTIONS, DELETE",
                "Access-Control-Allow-Headers": "Content-Type, Accept, Authorization",
                "Access-Control-Max-Age": "3600"}
# (defaults: a controller's form fills the target from them before anyone types — ograf-server's
# asked for {"layer": ""} and showed "Error in connection")
RENDER_TARGET_SCHEMA = {"type": "object", "properties": {"layer": {"type": "string", "gddType": "single-line",
                                                                   "default": "main"}},
                        "required": ["layer"], "default": {"layer": "main"}}


class NotFound(InputError):
    status = 404


class BuiltIn(InputError):
    status = 409  # the resource's state: our own graphics stay, as one in use does


class GraphicRefused(InputError):
    """The graphic's own check refused the data or payload: the spec's 550, "the error comes from
    within the GraphicInstance" (our graphics' checks run here, before anything is drawn)."""
    status = 550

    @classmethod
    def of(cls, exc: InputError) -> "GraphicRefused":
        out = cls(exc.code, exc.message, **exc.values)
        out.params = getattr(exc, "params", out.params)
        if getattr(exc, "key", None):
            out.key = exc.key  # type: ignore[attr-defined]
        return out


def _problem(status: int, code: str, message: str, error: dict | None = None) -> tuple[Response, int]:
    """The spec's ErrorResponse (RFC 7807 fields), with our API's `error` beside it."""
    return jsonify(type=f"urn:chgk-overlay:error:{code}", title=code.replace("_", " "), status=status,
                   detail=message, instance=request.path,
                   error=error or {"code": code, "message": message}), status


@bp.errorhandler(InputError)
def _input_error(exc: InputError) -> Any:
    return _problem(exc.status, exc.code, exc.message, exc.as_json())  # (its params: the panel's words)


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> Any:
    return _problem(exc.code or 500, (exc.name or "error").lower().replace(" ", "_"), exc.description or "")


@bp.after_request
def _problem_shape(resp: Response) -> Response:
    """A refusal made before our handlers (the login check's 401, 403, 429) in the spec's
    ErrorResponse shape too, its `error` kept."""
    doc = resp.get_json(silent=True) if resp.status_code >= 400 and resp.is_json else None
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict) and "status" not in doc:
        err = doc["error"]
        code, message = str(err.get("code", "error")), str(err.get("message", ""))
        resp.set_data(json.dumps({"type": f"urn:chgk-overlay:error:{code}", "title": code.replace("_", " "),
                                  "status": resp.status_code, "detail": message, "instance": request.path,
                                  "error": err}, ensure_ascii=False))
    return resp


# CORS ------------------------------------------------------------------------------------------

def _origins() -> list[str]:
    return [str(o).rstrip("/") for o in current_app.config.get("OGRAF_ORIGINS") or []]


@bp.before_request
def _preflight() -> Any:
    if request.method == "OPTIONS":  # the browser's preflight carries no token: answered, nothing done
        return Response(status=204)
    return None


@bp.after_request
def _cors(resp: Response) -> Response:
    origin = request.headers.get("Origin")
    if origin and origin.rstrip("/") in _origins():
        resp.headers["Access-Control-Allow-Origin"] = origin
        resp.headers.update(CORS_HEADERS)
    resp.headers.add("Vary", "Origin")
    return resp


def socket_origins(app: Flask) -> Callable[..., bool] | None:
    """Socket.IO's origin check: the page's own origin (engine.io's default) and OGRAF_ORIGINS,
    so our exported graphics in an operator's renderer can follow the game. None: the default."""
    if not app.config.get("OGRAF_ORIGINS"):
        return None

    def allowed(origin: str | None, environ: dict) -> bool:
        if origin is None:
            return True  # not a browser: engine.io lets these through whatever the list
        own = []
        if "HTTP_HOST" in environ:
            own.append(f"{environ['wsgi.url_scheme']}://{environ['HTTP_HOST']}")
            if "HTTP_X_FORWARDED_PROTO" in environ or "HTTP_X_FORWARDED_HOST" in environ:
                scheme = environ.get("HTTP_X_FORWARDED_PROTO", environ["wsgi.url_scheme"]).split(",")[0].strip()
                host = environ.get("HTTP_X_FORWARDED_HOST", environ["HTTP_HOST"]).split(",")[0].strip()
                own.append(f"{scheme}://{host}")
        return origin in own or origin.rstrip("/") in [str(o).rstrip("/") for o in app.config["OGRAF_ORIGINS"]]
    return allowed


# this API's description -------------------------------------------------------------------------

@bp.get("/openapi.yaml")
def openapi_document() -> Any:
    """Our OpenAPI document of this API (public: a description, nothing of the show)."""
    from pathlib import Path
    text = (Path(__file__).resolve().parent / "openapi.yaml").read_text(encoding="utf-8")
    return Response(text, mimetype="application/yaml")


@bp.get("/manifest.schema.json")
def manifest_schema_document() -> Any:
    """The JSON Schema graphic manifests are checked with (the document's `manifest.schema.json`)."""
    from .manifest_schema import MANIFEST
    return jsonify(MANIFEST)


# graphics --------------------------------------------------------------------------------------

def _library() -> Any:
    """The graphics library (overlay/ograf/library.py): uploaded graphics."""
    return getattr(services(), "ograf", None)


def _uploaded_manifest(graphic_id: str) -> dict | None:
    from .library import get_uploaded
    found = get_uploaded(graphic_id)
    return found["manifest"] if found else None


def _manifest(graphic_id: Any) -> dict:
    ours = manifests.graphic_of(graphic_id)
    if ours:
        return manifests.manifest(ours)
    theirs = _uploaded_manifest(graphic_id) if isinstance(graphic_id, str) else None
    if theirs is None:
        raise NotFound("unknown_graphic", f"There is no graphic {graphic_id!r}: GET /ograf/v1/graphics lists them.")
    return theirs


def _graphic_name(graphic_id: str) -> str:
    """The graphic's name on a layer: ours by name, an uploaded one as `ograf:<id>`."""
    return manifests.graphic_of(graphic_id) or f"ograf:{graphic_id}"


def _list_info(doc: dict) -> dict:
    return {k: doc[k] for k in ("id", "name", "description") if k in doc}


@bp.get("/")
@operator_required
def server_info() -> Any:
    return jsonify(name="chgk-overlay", version=__version__, author=manifests.AUTHOR,
                   description="Broadcast graphics for «Что? Где? Когда?»: renderer `show` is the rundown's output, "
                               "its render targets are the layers ({\"layer\": name}).")


@bp.get("/graphics")
@operator_required
def list_graphics() -> Any:
    out = [_list_info(m) for m in manifests.manifests().values()]
    from .library import list_uploaded
    out += [_list_info(g["manifest"]) for g in list_uploaded()]
    return jsonify(graphics=out)


@bp.get("/graphics/<graphic_id>")
@operator_required
def get_graphic(graphic_id: str) -> Any:
    doc = _manifest(graphic_id)
    # the spec's response requires both `graphic` and `manifest`: the manifest, twice
    return jsonify(graphic=doc, manifest=doc, metadata={"createdAt": "2026-01-01T00:00:00Z"})


@bp.delete("/graphics/<graphic_id>")
@operator_required
def delete_graphic(graphic_id: str) -> Any:
    if manifests.graphic_of(graphic_id):
        raise BuiltIn("built_in", f"{graphic_id!r} is one of chgk-overlay's own graphics: it cannot be deleted.")
    _manifest(graphic_id)
    _library().delete(graphic_id)  # 409 while a rundown item or a layer uses it
    return jsonify({})


# renderers and targets -------------------------------------------------------------------------

def _check_renderer(renderer_id: str) -> None:
    if renderer_id != RENDERER:
        raise NotFound("unknown_renderer", f"There is no renderer {renderer_id!r}; the one renderer is {RENDERER!r} "
                                           "(the rundown's output).")


class Loaded:
    """Instances loaded onto layers (per app): {instance id: {graphic_id, layer, data}}."""

    def __init__(self) -> None:
        self.instances: dict[str, dict] = {}
        self.ids = itertools.count(1)


def _loaded() -> Loaded:
    return current_app.extensions.setdefault("chgk_ograf_loaded", Loaded())


def _instance_id(entry: dict) -> str:
    return entry["item"] if entry.get("rundown") in (None, SOURCE) else f"{entry['rundown']}:{entry['item']}"


def _entry_graphic_id(entry: dict) -> str:
    g = entry["graphic"]
    return g[len("ograf:"):] if g.startswith("ograf:") else manifests.graphic_id(g)


def _layers() -> list[str]:
    from ..rundown import model
    svc = services()
    names = {"main", *svc.graphics.layers, *(i["layer"] for i in _loaded().instances.values())}
    for doc in svc.rundowns.docs.values():
        names.update(item["layer"] for item in model.items(doc))
    return sorted(names)


def _target_info(layer: str) -> dict:
    svc = services()
    out: list[dict] = []
    entry = svc.graphics.layers.get(layer)
    if entry is not None:
        out.append({"graphicInstanceId": _instance_id(entry), "graphic": _safe_info(_entry_graphic_id(entry))})
    on_air = {o["graphicInstanceId"] for o in out}
    for iid, inst in _loaded().instances.items():
        if inst["layer"] == layer and iid not in on_air:
            out.append({"graphicInstanceId": iid, "graphic": _safe_info(inst["graphic_id"])})
    return {"renderTarget": {"layer": layer}, "name": f"Layer {layer}",
            "description": "on air" if entry is not None else "free", "graphicInstances": out}


def _safe_info(graphic_id: str) -> dict:
    try:
        return _list_info(_manifest(graphic_id))
    except InputError:
        return {"id": graphic_id, "name": graphic_id}


def _target(value: Any) -> str:
    """The layer a RenderTargetIdentifier names ({"layer": name}; in a query, JSON text)."""
    from ..rundown.model import parse_layer
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InputError("bad_render_target", "renderTarget must be JSON: {\"layer\": \"<name>\"}.") from None
    if not isinstance(value, dict) or set(value) != {"layer"}:
        raise InputError("bad_render_target", "A render target is {\"layer\": \"<name>\"} (a rundown layer, e.g. "
                                              "\"main\", \"straps\").")
    return parse_layer(value["layer"])


@bp.get("/renderers")
@operator_required
def list_renderers() -> Any:
    return jsonify(renderers=[{"id": RENDERER, "name": "chgk-overlay show",
                               "description": "The rundown's output (/overlays/show): one render target per layer."}])


@bp.get("/renderers/<renderer_id>")
@operator_required
def get_renderer(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    return jsonify(renderer={
        "id": RENDERER, "name": "chgk-overlay show",
        "description": "The rundown's output (/overlays/show), the desk's program monitor.",
        "customActions": [],
        "renderCharacteristics": {"resolution": {"width": 1920, "height": 1080}, "frameRate": 50,
                                  "accessToPublicInternet": False},
        "renderTargetSchema": RENDER_TARGET_SCHEMA,
        "status": {"status": "OK", "message": "Serving /overlays/show"},
        "renderTargets": [_target_info(layer) for layer in _layers()]})


@bp.get("/renderers/<renderer_id>/target")
@operator_required
def get_target(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    try:
        layer = _target(request.args.get("renderTarget", ""))
    except InputError as exc:  # no such render target: the spec's 404 (a 400 it does not name)
        raise NotFound("unknown_render_target", exc.message) from None
    return jsonify(_target_info(layer))


@bp.post("/renderers/<renderer_id>/customActions/<action_id>")
@operator_required
def renderer_action(renderer_id: str, action_id: str) -> Any:
    _check_renderer(renderer_id)
    raise NotFound("unknown_action", f"The renderer has no custom action {action_id!r}.")


# actions on instances ---------------------------------------------------------------------------

def _body(*required: str) -> dict:
    from ..web.api import body
    doc = body()
    if not isinstance(doc, dict):
        raise InputError("bad_json", "Send a JSON object.")
    for key in required:
        if key not in doc:
            raise InputError("bad_field", f"'{key}' is required.")
    if "params" in doc and not isinstance(doc["params"], dict):
        raise InputError("bad_field", "'params' must be an object.")
    return doc


def _blank(value: Any, prop: dict) -> bool:
    """A field a controller's form filled with its type's blank: "", [], or a 0 below its minimum."""
    if value in ("", None) or value == []:
        return True
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number and value == 0 and prop.get("minimum", 0) > 0


def _without_blanks(name: str, data: dict) -> dict:
    """The data less the optional fields left blank (SuperFly's ograf-server controller sends every
    field of the schema, `duration_ms: 0` and `corner: ""` among them): not given is what they mean.
    The server's own fields (readOnly) are never the controller's to give."""
    from ..schema import graphic_schema
    schema = graphic_schema(name)
    props, required = schema.get("properties", {}), set(schema.get("required", []))
    return {k: v for k, v in data.items()
            if k not in props or k in required or not (_blank(v, props[k]) or props[k].get("readOnly"))}


def _clean_data(graphic_id: str, data: Any) -> dict:
    """Load/update data, checked as the desk checks an item's: ours by the desk's declaration
    (overlay/schema) and the take's own checks, an uploaded one by its manifest's schema."""
    if data is None:  # the spec requires `data` in load and update: a request without it is malformed
        raise InputError("bad_field", "'params.data' is required: the graphic's data (an object, {} for none).")
    if isinstance(data, str):  # the spec's example sends the data as JSON text
        try:
            data = json.loads(data)
        except ValueError:
            raise InputError("bad_field", "'params.data' must be an object (or its JSON text).") from None
    if not isinstance(data, dict):
        raise InputError("bad_field", "'params.data' must be an object.")
    name = _graphic_name(graphic_id)
    try:
        if manifests.graphic_of(graphic_id):
            from ..graphics.show import public_live_url
            from ..schema import validate_data
            data = validate_data(name, _without_blanks(name, {k: v for k, v in data.items()
                                                              if k not in manifests.OWN_FIELDS}))
            check_graphic_body({"action": "show", "graphic": name, "data": data})
            if data.get("qr"):  # refused now (550), not at playAction: the QR code needs LIVE_URL
                public_live_url(current_app.config.get("LIVE_URL"))
            return data
        from . import items
        return items.check_data(_library(), name, data)
    except InputError as exc:  # the graphic's load()/updateAction() would refuse it: 550
        raise GraphicRefused.of(exc) from None


def _find(layer: str, instance_id: Any) -> tuple[dict | None, dict | None]:
    """(the instance's layer entry if on air, its loaded record) — 404 when neither."""
    entry = services().graphics.layers.get(layer)
    on_air = entry if entry is not None and _instance_id(entry) == instance_id else None
    loaded = _loaded().instances.get(instance_id) if isinstance(instance_id, str) else None
    if loaded is not None and loaded["layer"] != layer:
        loaded = None
    if on_air is None and loaded is None:
        raise NotFound("unknown_instance", f"There is no graphic instance {instance_id!r} on layer {layer!r}: "
                                           "load one first (…/graphicInstance/load).")
    return on_air, loaded


def _put(layer: str, entry: dict | None, action: str, instance_id: str, now: int | None = None) -> None:
    """`now`: the instant the entry was made at, so the journal's time is the take's (its `shown_at`)."""
    svc = services()
    svc.graphics.set_layers({layer: entry}, {"action": f"ograf_{action}", "layers": [layer],
                                             "instance": instance_id, "source": SOURCE}, now=now)


def _entry(instance_id: str, graphic_id: str, data: dict, step: int, keep: dict | None, now: int) -> dict:
    name = _graphic_name(graphic_id)
    steps = manifests.STEPS.get(name)
    if steps:
        data = {**data, "step": steps[step]}
    shown_at = keep["shown_at"] if keep else now
    duration = data.get("duration_ms")
    expires_at = keep["expires_at"] if keep else (now + duration if isinstance(duration, int) else None)
    extra: dict[str, Any] = {}
    if not manifests.graphic_of(graphic_id):  # an uploaded graphic: what the show's frame renderer needs
        from . import items
        extra = items.entry_extra(_library(), name)
        for key in ("actions", "updates"):  # kept through steps and updates: a late page replays them
            if keep and keep.get(key):
                extra[key] = keep[key]
    return {"rundown": None, "item": instance_id, "label": _manifest(graphic_id).get("name", graphic_id),
            "graphic": name, "data": data, "step": step, "out": "manual", "stack": stack_of(name),
            "shown_at": shown_at, "expires_at": expires_at, **extra}


@bp.post("/renderers/<renderer_id>/target/graphicInstance/load")
@operator_required
def load(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    doc = _body("renderTarget", "graphicId", "params")
    layer = _target(doc["renderTarget"])
    graphic_id = doc["graphicId"]
    _manifest(graphic_id)
    data = _clean_data(graphic_id, doc["params"].get("data"))
    with services().sessions.lock:
        reg = _loaded()
        for old in [k for k, v in reg.instances.items() if v["layer"] == layer and _on_air_id(layer) != k]:
            del reg.instances[old]  # a layer holds one loaded instance (and what is on air)
        if len(reg.instances) >= LOADED_MAX:
            raise InputError("too_many_instances", f"{LOADED_MAX} instances are loaded: clear some first "
                                                   "(PUT …/graphicInstance/clear).")
        instance_id = f"ograf-{next(reg.ids)}"
        reg.instances[instance_id] = {"graphic_id": graphic_id, "layer": layer, "data": data}
    return jsonify(graphicInstanceId=instance_id, statusCode=200, statusMessage="Loaded (not on air until playAction)")


def _on_air_id(layer: str) -> str | None:
    entry = services().graphics.layers.get(layer)
    return _instance_id(entry) if entry else None


def _instance_body() -> tuple[str, str, dict]:
    doc = _body("renderTarget", "graphicInstanceId", "params")
    return _target(doc["renderTarget"]), doc["graphicInstanceId"], doc["params"]


@bp.post("/renderers/<renderer_id>/target/graphicInstance/playAction")
@operator_required
def play(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    layer, iid, params = _instance_body()
    for key in ("delta", "goto"):
        v = params.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v)):
            raise InputError("bad_field", f"'params.{key}' must be a whole number.")
    with services().sessions.lock:
        on_air, loaded = _find(layer, iid)
        graphic_id = _entry_graphic_id(on_air) if on_air else loaded["graphic_id"]
        count = int(_manifest(graphic_id).get("stepCount", 1))
        current = on_air.get("step", 0) if on_air else None
        goto, delta = params.get("goto"), params.get("delta")
        target = int(goto) if goto is not None else (-1 if current is None else current) + int(1 if delta is None else delta)
        target = max(0, target)
        if 0 <= count <= target:  # past the last step: the end (the spec's stop)
            if on_air:
                _put(layer, None, "play_end", iid)
            return jsonify(graphicInstanceId=iid, statusCode=200, statusMessage="Ended", currentStep=max(count, 0))
        if loaded is not None:
            data = loaded["data"]
        else:  # a desk's take: its own data, stepped on
            data = {k: v for k, v in on_air["data"].items() if k != "step"}
        now = services().sessions.clock()
        _put(layer, _entry(iid, graphic_id, data, target, on_air, now), "play", iid, now)
    return jsonify(graphicInstanceId=iid, statusCode=200, statusMessage="Playing", currentStep=target)


@bp.post("/renderers/<renderer_id>/target/graphicInstance/updateAction")
@operator_required
def update(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    layer, iid, params = _instance_body()
    if "data" not in params:
        raise InputError("bad_field", "'params.data' is required.")
    with services().sessions.lock:
        on_air, loaded = _find(layer, iid)
        graphic_id = _entry_graphic_id(on_air) if on_air else loaded["graphic_id"]
        base = (loaded or {}).get("data") or {k: v for k, v in (on_air or {}).get("data", {}).items() if k != "step"}
        data = _clean_data(graphic_id, {**base, **(params["data"] if isinstance(params["data"], dict) else {})}
                           if not isinstance(params["data"], str) else params["data"])
        if loaded is not None:
            loaded["data"] = data
        if on_air:
            now = services().sessions.clock()
            updated = _entry(iid, graphic_id, data, on_air.get("step", 0), on_air, now)
            if not manifests.graphic_of(graphic_id):  # an uploaded graphic hears updateAction even with the same data
                updated["updates"] = on_air.get("updates", 0) + 1
            _put(layer, updated, "update", iid, now)
    return jsonify(graphicInstanceId=iid, statusCode=200, statusMessage="Updated")


@bp.post("/renderers/<renderer_id>/target/graphicInstance/stopAction")
@operator_required
def stop(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    layer, iid, _ = _instance_body()
    with services().sessions.lock:
        on_air, _loaded_rec = _find(layer, iid)
        if on_air:
            _put(layer, None, "stop", iid)
    return jsonify(graphicInstanceId=iid, statusCode=200, statusMessage="Stopped" if on_air else "Not on air")


@bp.post("/renderers/<renderer_id>/target/graphicInstance/customActions/<action_id>")
@operator_required
def custom(renderer_id: str, action_id: str) -> Any:
    _check_renderer(renderer_id)
    layer, iid, params = _instance_body()
    with services().sessions.lock:
        on_air, loaded = _find(layer, iid)
        graphic_id = _entry_graphic_id(on_air) if on_air else loaded["graphic_id"]
        if not manifests.graphic_of(graphic_id):  # an uploaded graphic: the desk's custom action, on its entry
            from . import items
            if on_air is None:
                raise InputError("not_on_air", f"{iid!r} is loaded, not playing: play it before its custom actions.")
            try:
                done = items.custom_action(_library(), on_air["graphic"], action_id, params.get("payload"),
                                           on_air.get("actions") or [])
            except InputError as exc:  # an action it lacks is 404; a payload its schema refuses, 550
                if exc.code == "unknown_action":
                    raise NotFound(exc.code, exc.message) from None
                raise exc if exc.status != 400 else GraphicRefused.of(exc) from None
            _put(layer, {**on_air, "actions": done}, "custom", iid)
            return jsonify(graphicInstanceId=iid, statusCode=200, statusMessage="Done")
        actions = {a.get("id") for a in _manifest(graphic_id).get("customActions") or []}
        if action_id not in actions:
            raise NotFound("unknown_action", f"{graphic_id!r} has no custom action {action_id!r}"
                                             f"{' (it has: ' + ', '.join(sorted(actions)) + ')' if actions else ''}.")
        if on_air and action_id == "replay" and manifests.graphic_of(graphic_id):
            # our graphics' one action: the entrance again — the same entry, taken anew
            now = services().sessions.clock()
            _put(layer, {**on_air, "shown_at": now}, "replay", iid, now)
    return jsonify(graphicInstanceId=iid, statusCode=200, statusMessage="Done")


@bp.put("/renderers/<renderer_id>/target/graphicInstance/clear")
@operator_required
def clear(renderer_id: str) -> Any:
    _check_renderer(renderer_id)
    doc = _body("filters")
    filters = doc["filters"]
    if not isinstance(filters, list) or not all(isinstance(f, dict) for f in filters):
        raise InputError("bad_field", "'filters' must be a list of {renderTarget?, graphicId?, graphicInstanceId?}.")
    wanted = [({"layer": _target(f["renderTarget"])} if "renderTarget" in f else {})
              | {k: f[k] for k in ("graphicId", "graphicInstanceId") if k in f} for f in filters]

    def match(layer: str, graphic_id: str, iid: str) -> bool:
        if not wanted:
            return True
        return any(w.get("layer", layer) == layer and w.get("graphicId", graphic_id) == graphic_id
                   and w.get("graphicInstanceId", iid) == iid for w in wanted)

    svc = services()
    cleared: list[dict] = []
    with svc.sessions.lock:
        off = {layer: None for layer, e in svc.graphics.layers.items()
               if match(layer, _entry_graphic_id(e), _instance_id(e))}
        cleared += [{"renderTarget": {"layer": layer}, "graphicInstanceId": _instance_id(svc.graphics.layers[layer])}
                    for layer in off]
        reg = _loaded()
        for iid, inst in list(reg.instances.items()):
            if match(inst["layer"], inst["graphic_id"], iid):
                del reg.instances[iid]
                if not any(c["graphicInstanceId"] == iid for c in cleared):
                    cleared.append({"renderTarget": {"layer": inst["layer"]}, "graphicInstanceId": iid})
        if off:
            svc.graphics.set_layers(off, {"action": "ograf_clear", "layers": list(off), "source": SOURCE})
    return jsonify(graphicInstances=cleared)


def register(app: Flask) -> None:
    app.register_blueprint(bp)
