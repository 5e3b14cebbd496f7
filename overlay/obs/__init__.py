"""OBS: importable scene collections pointing at the overlays, and optional scene switching
over obs-websocket 5.

    scenes.py     the scene collection generator (`chgk-overlay obs-scenes`, obs_scenes/*.json)
    websocket.py  a small obs-websocket 5 client: identify with the password challenge, requests
    control.py    game events → SetCurrentProgramScene, in a background task; obs.toml
    api.py        `/api/obs` for the panel, and `register(app)`

Described in docs/OBS.md.
"""
from __future__ import annotations

from .scenes import RULES, SCENES, browser_urls, build_collection, dumps

__all__ = ["RULES", "SCENES", "browser_urls", "build_collection", "dumps"]
