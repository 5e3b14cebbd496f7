"""Every graphic's data, declared once (field name → type, see types.py). The bounds are the
ones the graphics draw within (overlay/graphics/show.py checks them again at take, after a rundown
fills in its {{fields}}, and turns a slate's clock into server time); the order is the editor's and
a form builder's (GDD `order`).

A field the server writes at take (`ends_at`, `qr_url`, a question's `step`) is `readOnly`: it
may come back in data a client saw on air, and is dropped from what a door accepts."""
from __future__ import annotations

from . import types as T

HOUR, DAY = 3_600_000, 86_400_000
CORNERS = ("top-right", "top-left", "bottom-right", "bottom-left")
SLATE_KINDS = ("break", "soon", "round", "text")
STRAP_KINDS = ("player", "host", "sponsor", "captain", "text")
STRAP_STYLES = ("plain", "photo")
QUESTION_STEPS = ("card", "text", "answer")

# every graphic may go out by itself
DURATION = T.duration(500, HOUR, label="Goes out by itself after", order=90)


def _qr(order: int) -> dict[str, dict]:
    return {"qr": T.boolean(label="Audience page QR code", order=order),
            "qr_caption": T.text(60, label="Under the QR code", order=order + 1),
            "qr_url": T.read_only(T.text(300)),
            "qr_modules": T.read_only({"type": "array", "items": {"type": "string"}})}


# the graphics that draw the game's public state take no data of their own
GAME_ONLY = ("scoreboard", "timer", "table", "blitz", "result", "full", "central-table", "club-tables",
             "draw", "game-rating", "best-player")

FIELDS: dict[str, dict[str, dict]] = {
    **{name: {} for name in GAME_ONLY},
    "question": {"step": T.read_only(T.choice(QUESTION_STEPS, label="Step"))},
    "lower-third": {
        "title": T.text(200, label="Title", order=1),
        "subtitle": T.text(200, label="Subtitle", order=2),
        "text": T.text(200, label="Text (instead of a title)", order=3),
        "kind": T.choice(STRAP_KINDS, label="Kind", order=4),
        "style": T.choice(STRAP_STYLES, label="Style", order=5),
        "photo": T.media(label="Photo", order=6),
        "accent": T.colour(label="Accent colour", order=7),
    },
    "bug": {
        "media": T.media(label="Logo", order=1),
        "corner": T.choice(CORNERS, label="Corner", order=2),
        "height": T.number(40, 300, label="Height, px", order=3),
        **_qr(4),
    },
    "ticker": {
        "items": T.text_list(1, 50, 300, label="Items", order=1),
        "title": T.text(60, label="Label", order=2),
        "speed": T.number(20, 600, label="Speed, px/s", order=3),
    },
    "slate": {
        "kind": T.choice(SLATE_KINDS, label="Kind", order=1),
        "title": T.text(200, label="Title", order=2),
        "subtitle": T.text(200, label="Subtitle", order=3),
        "kicker": T.text(200, label="Kicker", order=4),
        "background": T.media(label="Background", order=5),
        "clock_label": T.text(200, label="Clock label", order=6),
        "until": T.time_of_day(label="Count down until (HH:MM)", order=7),
        "countdown_ms": T.duration(1000, DAY, label="Count down for", order=8),
        "count_up": T.boolean(label="Count up", order=9),
        "limit_ms": T.duration(1000, DAY, label="Count up to", order=10),
        **_qr(11),
        "ends_at": T.read_only({"type": "integer"}),
        "starts_at": T.read_only({"type": "integer"}),
    },
    "credits": {
        "names": T.rows({"name": T.text(120, min_length=1, label="Name", order=1),
                         "role": T.text(120, label="Role", order=2)}, ("name",), 1, 200, label="Names", order=1),
        "title": T.text(120, label="Title", order=2),
        "speed": T.number(20, 400, label="Speed, px/s", order=3),
        "loop": T.boolean(label="Loop", order=4),
    },
    "season-rating": {
        "season": T.text(40, label="Season (id)", order=1),
        "top": T.number(1, 40, label="Rows", order=2),  # static/lib/league.js LEAGUE_TOP: the most one frame fits
        "title": T.text(120, label="Title", order=3),
    },
    "final-teams": {"season": T.text(40, label="Season (id)", order=1)},
    "series": {"series": T.text(40, label="Series (id)", order=1)},
}

REQUIRED: dict[str, tuple[str, ...]] = {"ticker": ("items",), "credits": ("names",)}
# data that holds together beyond one field: (rule, fields)
#   "one_of": at least one of them set (true / non-empty); "at_most_one": at most one set
TOGETHER: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "bug": (("one_of", ("media", "qr")),),
    "slate": (("at_most_one", ("until", "countdown_ms", "count_up")),),
}

# old data shapes the doors still take, cleaned into the declared one
#   ticker items {"text": …} → the text; credits names "…" → {"name": …}
LEGACY_ROW_KEY = {"items": "text"}
LEGACY_NAME_ROW = {"names": "name"}

TITLES = {"lower-third": "Strap", "bug": "Bug (logo)", "ticker": "Ticker", "slate": "Slate",
          "credits": "Credits", "question": "Question card"}
