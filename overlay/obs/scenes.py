"""OBS scene collections (the JSON OBS 29–31 save and import) whose browser sources are our
overlays, with one scene per moment of a show.

Pure and deterministic: the same arguments always give the same JSON (uuids are derived from
the collection and the item, not drawn), so `obs_scenes/*.json` can be checked against the
generator in the tests.

Every scene stacks, bottom to top, the nested scene «ЧГК · Камеры» (empty: put the cameras or
the vision mixer's input there once and every scene shows it) and full-canvas browser sources.
A source used by several scenes is one source, so its page stays loaded across scene switches;
"shutdown when not visible" and "refresh when active" are off because the overlays replay their
entrance themselves on OBS's visibility events.
"""
from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import urlencode

WIDTH, HEIGHT = 1920, 1080
TRANSPARENT_CSS = "body { background-color: rgba(0, 0, 0, 0); margin: 0px auto; overflow: hidden; }"
OBS_VERSION = (30 << 24)  # 30.0.0, as OBS writes `prev_ver`
ALIGN_TOP_LEFT = 5  # OBS_ALIGN_LEFT | OBS_ALIGN_TOP
BOUNDS_SCALE_INNER = 2
_NAMESPACE = uuid.UUID("5b0f6a52-1d5e-4c3b-9a53-0c6b1f7d2e11")  # this project's; any fixed value works

# Scene names are shared by both collections where the moment is the same, so OBS control
# (overlay/obs/control.py) finds them whichever collection is loaded.
GAME, TABLE, QUESTION, BLITZ, RESULT, FULL = (
    "ЧГК · Игра", "ЧГК · Стол", "ЧГК · Вопрос", "ЧГК · Блиц", "ЧГК · Итог", "ЧГК · Всё в одном")
CENTRAL, CLUB_TABLES, DRAW, RATING, BEST = (
    "ЧГК · Центральный стол", "ЧГК · Клубные столы", "ЧГК · Жеребьёвка", "ЧГК · Рейтинг игры",
    "ЧГК · Лучший игрок")
CAMERAS = "ЧГК · Камеры"
PREVIEW = "ЧГК · Превью"        # only with a token: the rundown's focused item before it goes to air
PREVIEW_SOURCE = "show-preview"

# Scene → overlays, bottom to top. The overlays show and hide their own content with the game.
SCENES: dict[str, list[tuple[str, list[str]]]] = {
    "tv": [
        (GAME, ["scoreboard", "blitz", "timer", "lower-third"]),
        (TABLE, ["table", "scoreboard", "lower-third"]),
        (QUESTION, ["question", "scoreboard", "timer", "lower-third"]),
        (BLITZ, ["question", "blitz", "scoreboard", "timer"]),
        (RESULT, ["result", "lower-third"]),
        (FULL, ["full"]),
    ],
    "club": [
        (GAME, ["scoreboard", "timer", "lower-third"]),
        (TABLE, ["table", "scoreboard", "lower-third"]),
        (QUESTION, ["question", "scoreboard", "timer"]),
        (CENTRAL, ["central-table", "scoreboard", "timer", "lower-third"]),
        (CLUB_TABLES, ["club-tables", "timer"]),
        (DRAW, ["draw", "lower-third"]),
        (RATING, ["game-rating"]),
        (BEST, ["best-player", "lower-third"]),
        (RESULT, ["result", "lower-third"]),
    ],
}
COLLECTION_NAMES = {"tv": "ЧГК · ТВ", "club": "ЧГК · Клуб"}
SOUND_OVERLAYS = {"timer", "full"}  # play the timer signals (?sound=1) into OBS's mixer
RULES = tuple(SCENES)


def overlays(rules: str) -> list[str]:
    """The overlays a collection uses, in order of first appearance."""
    seen: dict[str, None] = {}
    for _, names in SCENES[rules]:
        seen.update(dict.fromkeys(names))
    return list(seen)


def overlay_url(base_url: str, name: str, *, lang: str | None = None, theme: str | None = None) -> str:
    query: dict[str, str] = {}
    if lang:
        query["lang"] = lang
    if theme:
        query["theme"] = theme
    if name in SOUND_OVERLAYS:
        query["sound"] = "1"
    url = f"{base_url.rstrip('/')}/overlays/{name}"
    return f"{url}?{urlencode(query)}" if query else url


def preview_url(base_url: str, token: str, *, lang: str | None = None, theme: str | None = None) -> str:
    """`/overlays/show?preview=1` with the operators' token after `#`: the page hands it to the
    server inside its socket's auth, so it never travels in a URL or lands in a log."""
    query = {"preview": "1", **({"lang": lang} if lang else {}), **({"theme": theme} if theme else {})}
    return f"{base_url.rstrip('/')}/overlays/show?{urlencode(query)}#{urlencode({'token': token})}"


def source_name(overlay: str) -> str:
    return f"ЧГК {overlay}"


def _uuid(rules: str, kind: str, name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"chgk-overlay/{rules}/{kind}/{name}"))


def _common(name: str, uid: str, source_id: str, settings: dict, *, mixers: int) -> dict[str, Any]:
    """The fields OBS writes for every source, at their defaults."""
    return {
        "prev_ver": OBS_VERSION, "name": name, "uuid": uid, "id": source_id, "versioned_id": source_id,
        "settings": settings, "mixers": mixers, "sync": 0, "flags": 0, "volume": 1.0, "balance": 0.5,
        "enabled": True, "muted": False, "push-to-mute": False, "push-to-mute-delay": 0,
        "push-to-talk": False, "push-to-talk-delay": 0, "hotkeys": {}, "deinterlace_mode": 0,
        "deinterlace_field_order": 0, "monitoring_type": 0, "private_settings": {},
    }


def _item(item_id: int, name: str, uid: str, *, locked: bool) -> dict[str, Any]:
    """A full-canvas scene item at the top-left corner, scaled into 1920×1080."""
    return {
        "name": name, "source_uuid": uid, "visible": True, "locked": locked, "rot": 0.0,
        "pos": {"x": 0.0, "y": 0.0}, "scale": {"x": 1.0, "y": 1.0}, "align": ALIGN_TOP_LEFT,
        "bounds_type": BOUNDS_SCALE_INNER, "bounds_align": 0, "bounds_crop": False,
        "bounds": {"x": float(WIDTH), "y": float(HEIGHT)},
        "crop_left": 0, "crop_top": 0, "crop_right": 0, "crop_bottom": 0,
        "id": item_id, "group_item_backup": False, "scale_filter": "disable",
        "blend_method": "default", "blend_type": "normal",
        "show_transition": {"duration": 0}, "hide_transition": {"duration": 0}, "private_settings": {},
    }


def _scene(rules: str, name: str, items: list[tuple[str, str, bool]]) -> dict[str, Any]:
    settings = {"custom_size": False, "id_counter": len(items),
                "items": [_item(i, n, u, locked=lock) for i, (n, u, lock) in enumerate(items, 1)]}
    return _common(name, _uuid(rules, "scene", name), "scene", settings, mixers=0)


def _browser(rules: str, overlay: str, url: str) -> dict[str, Any]:
    settings = {
        "url": url, "is_local_file": False, "width": WIDTH, "height": HEIGHT, "fps_custom": False,
        "css": TRANSPARENT_CSS, "shutdown": False, "restart_when_active": False,
        "reroute_audio": overlay in SOUND_OVERLAYS,
    }
    return _common(source_name(overlay), _uuid(rules, "browser", overlay), "browser_source", settings, mixers=255)


def build_collection(rules: str = "tv", base_url: str = "http://127.0.0.1:5000", *, name: str | None = None,
                     lang: str | None = None, theme: str | None = None,
                     preview_token: str | None = None) -> dict[str, Any]:
    """The scene collection for `rules` ("tv" or "club") with overlays served at `base_url`;
    with `preview_token` (the operators' token) also a scene showing the rundown's preview."""
    if rules not in SCENES:
        raise ValueError(f"rules must be one of {', '.join(RULES)}, got {rules!r}")
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"the base URL must start with http:// or https://, got {base_url!r}")
    cameras = _scene(rules, CAMERAS, [])
    browsers = {o: _browser(rules, o, overlay_url(base_url, o, lang=lang, theme=theme)) for o in overlays(rules)}
    scenes = [
        _scene(rules, scene, [(CAMERAS, cameras["uuid"], False)]
               + [(source_name(o), browsers[o]["uuid"], True) for o in names])
        for scene, names in SCENES[rules]
    ]
    if preview_token:
        browsers[PREVIEW_SOURCE] = _browser(rules, PREVIEW_SOURCE,
                                            preview_url(base_url, preview_token, lang=lang, theme=theme))
        scenes.append(_scene(rules, PREVIEW, [(CAMERAS, cameras["uuid"], False),
                                              (source_name(PREVIEW_SOURCE), browsers[PREVIEW_SOURCE]["uuid"], True)]))
    first = scenes[0]["name"]
    return {
        "name": name or COLLECTION_NAMES[rules],
        "current_scene": first,
        "current_program_scene": first,
        "scene_order": [{"name": s["name"]} for s in scenes] + [{"name": CAMERAS}],
        "sources": scenes + [cameras] + list(browsers.values()),
        "groups": [],
        "quick_transitions": [
            {"name": "Cut", "duration": 300, "hotkeys": [], "id": 1, "fade_to_black": False},
            {"name": "Fade", "duration": 300, "hotkeys": [], "id": 2, "fade_to_black": False},
            {"name": "Fade", "duration": 300, "hotkeys": [], "id": 3, "fade_to_black": True},
        ],
        "transitions": [],
        "current_transition": "Fade",
        "transition_duration": 300,
        "saved_projectors": [],
        "preview_locked": False,
        "scaling_enabled": False,
        "scaling_level": 0,
        "scaling_off_x": 0.0,
        "scaling_off_y": 0.0,
        "modules": {},
    }


def dumps(collection: dict[str, Any]) -> str:
    """The file's text: indented like OBS's own files, UTF-8, a final newline."""
    return json.dumps(collection, ensure_ascii=False, indent=4) + "\n"


def browser_urls(collection: dict[str, Any]) -> list[str]:
    return [s["settings"]["url"] for s in collection["sources"] if s.get("id") == "browser_source"]
