"""HTTP for the panel (operators only): `/api/osc/...` — status, osc.toml, reload, catalogue,
test-fire. Described in docs/OSC.md."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from ..web.auth import operator_required
from ..rules.errors import InputError
from ..web.services import services
from .bridge import OscBridge
from .config import PRESETS
from .events import EVENTS, STATE_NAMES
from .routes import ROUTES
from .template import ARG_TYPES

bp = Blueprint("osc", __name__, url_prefix="/api/osc")
MAX_CONFIG_BYTES = 256_000


def bridge() -> OscBridge:
    osc = services().osc
    if osc is None:
        raise InputError("osc_unavailable", "OSC is not set up in this server.")
    return osc


@bp.get("/status")
@operator_required
def status() -> Any:
    return jsonify(bridge().status())


@bp.get("/config")
@operator_required
def get_config() -> Any:
    osc = bridge()
    return jsonify(toml=osc.text(), **osc.config_view())


@bp.put("/config")
@operator_required
def put_config() -> Any:
    """The new osc.toml: JSON {"toml": "..."} or the TOML itself as the body."""
    raw = request.get_data(cache=True)
    if len(raw) > MAX_CONFIG_BYTES:
        raise InputError("too_large", f"osc.toml may be at most {MAX_CONFIG_BYTES} bytes.")
    if request.is_json:
        body = request.get_json(silent=True)
        text = body.get("toml") if isinstance(body, dict) else None
        if not isinstance(text, str):
            raise InputError("bad_json", 'Send {"toml": "<the whole osc.toml>"} or the TOML text itself.')
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("bad_osc_config", "osc.toml must be UTF-8 text.") from None
    osc = bridge()
    osc.replace(text)
    return jsonify(toml=osc.text(), **osc.config_view())


@bp.post("/reload")
@operator_required
def reload() -> Any:
    osc = bridge()
    osc.reload()
    return jsonify(osc.config_view())


@bp.post("/fire")
@operator_required
def fire() -> Any:
    """Send one event's cues now with the given fields: {"event": "spin", "fields": {"sector": 5}}."""
    body = request.get_json(silent=True, force=True)
    if not isinstance(body, dict) or body.get("event") not in EVENTS:
        raise InputError("unknown_event", f"Send {{\"event\": name, \"fields\": {{...}}}}; events: {', '.join(EVENTS)}.")
    fields = body.get("fields") or {}
    if not isinstance(fields, dict):
        raise InputError("bad_field", "'fields' must be an object.")
    return jsonify(sent=bridge().fire(body["event"], fields))


@bp.get("/catalogue")
@operator_required
def catalogue() -> Any:
    """What a mapping may use: events and their fields, placeholders, types, presets, inbound addresses."""
    return jsonify(
        events=[{"name": e.name, "summary": e.summary, "fields": [{"name": n, "type": t} for n, t in e.fields]}
                for e in EVENTS.values()],
        placeholders=sorted(STATE_NAMES),
        arg_types=list(ARG_TYPES),
        presets=[{"name": p.name, "description": p.description, "vars": p.vars} for p in PRESETS.values()],
        inbound=[{"address": a, "args": r.args, "button": r.button, "summary": r.summary} for a, r in ROUTES.items()],
    )
