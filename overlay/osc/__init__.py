"""OSC: cues out to vision mixers and show control, commands in from control surfaces.

    events.py    game change → named cue events; the template context
    config.py    osc.toml → targets and cues (checked), presets
    template.py  `{score.experts}` templates, typed arguments, building messages
    sender.py    the outbound queue and task
    routes.py    inbound address → action (the routing table)
    inbound.py   allow-list, parsing, debounce, dispatch; the UDP receive loop
    feedback.py  /chgk/state/... for subscribed surfaces
    bridge.py    the object the app holds; api.py its HTTP endpoints
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .bridge import OscBridge
from .config import ConfigError, check_allow, host_port

if TYPE_CHECKING:
    from flask import Flask

__all__ = ["OscBridge", "build_bridge", "start_bridge"]


def build_bridge(app: "Flask", svc: Any) -> OscBridge:
    """From the app's config (OSC_LISTEN, OSC_TARGETS, OSC_ALLOW) and osc.toml in the data folder."""
    cfg = app.config
    try:
        if cfg.get("OSC_LISTEN"):
            host_port(str(cfg["OSC_LISTEN"]), "OSC_LISTEN")
        return OscBridge(svc.sessions, svc.graphics, cfg["DATA"], listen=cfg.get("OSC_LISTEN"),
                         allow=list(check_allow(_listed(cfg.get("OSC_ALLOW")), "OSC_ALLOW")),
                         targets=_listed(cfg.get("OSC_TARGETS")))
    except ConfigError as exc:
        raise SystemExit(f"chgk-overlay: {exc.message}") from None


def _listed(value: Any) -> list[str]:
    """A list from config.toml or JSON in the environment; a plain string may separate by commas."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.replace(",", " ").split() if v]
    return [str(v) for v in value]


def start_bridge(app: "Flask", socketio: Any) -> None:
    """Start sending and, when configured, listening — under the server's async mode."""
    from .runtime import socketio_runtime
    osc = app.extensions["chgk"].osc
    if osc is not None:
        osc.start(socketio_runtime(socketio))
