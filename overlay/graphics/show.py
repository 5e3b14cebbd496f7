"""The show graphics' data (bug, ticker, slate, credits, the photo strap), checked when taken
to air — by `POST /api/graphics`, the panel or a rundown item alike — and, for the slate's
clock, turned into server time: a countdown "until 19:30" or "for 5 minutes" becomes `ends_at`,
a count-up becomes `starts_at`, so every screen and every reconnect shows the same second."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from ..rules import InputError, RuleError

CORNERS = ("top-right", "top-left", "bottom-right", "bottom-left")
SLATE_KINDS = ("break", "soon", "round", "text")
# Data fields that are true or false (a rundown's CSV reads its cells "true"/"false" as such).
FLAGS = ("qr", "count_up", "loop")
HOUR = 3_600_000
DAY = 24 * HOUR


def _fail(message: str) -> InputError:
    return InputError("bad_field", message)


def _text(data: dict, key: str, limit: int = 200) -> None:
    v = data.get(key)
    if v is not None and (not isinstance(v, str) or len(v) > limit):
        raise _fail(f"'{key}' must be a text of at most {limit} characters.")


def _int(data: dict, key: str, lo: int, hi: int, what: str) -> None:
    v = data.get(key)
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi):
        raise _fail(f"'{key}' must be a whole number of {what} from {lo} to {hi}.")


def _picture(data: dict, key: str, required: bool) -> None:
    v = data.get(key)
    if v is None and not required:
        return
    if not isinstance(v, str) or not v or len(v) > 500:
        raise _fail(f"'{key}' must name a picture: a media id from the library (\"m3\") or a URL.")


def bug(data: dict, now: int, live_url: str | None = None) -> dict:
    data = _qr(data, live_url)
    _picture(data, "media", required=not data.get("qr"))
    if data.get("corner", "top-right") not in CORNERS:
        raise _fail(f"'corner' must be one of {', '.join(CORNERS)}.")
    _int(data, "height", 40, 300, "pixels")
    return data


def ticker(data: dict, now: int, live_url: str | None = None) -> dict:
    items = data.get("items")
    if not isinstance(items, list) or not items or len(items) > 50:
        raise _fail("'items' must be a list of 1 to 50 texts.")
    for i, item in enumerate(items):
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str) or not text.strip() or len(text) > 300:
            raise _fail(f"'items[{i}]' must be a text (or {{\"text\": …}}) of 1 to 300 characters.")
    _text(data, "title", 60)
    _int(data, "speed", 20, 600, "pixels a second")
    return data


def slate(data: dict, now: int, live_url: str | None = None) -> dict:
    data = _qr(data, live_url)
    if data.get("kind", "text") not in SLATE_KINDS:
        raise _fail(f"'kind' must be one of {', '.join(SLATE_KINDS)}.")
    for key in ("title", "subtitle", "kicker", "clock_label"):
        _text(data, key)
    _picture(data, "background", required=False)
    _int(data, "countdown_ms", 1000, DAY, "milliseconds")
    _int(data, "limit_ms", 1000, DAY, "milliseconds")
    until = data.get("until")
    clocks = [k for k in ("until", "countdown_ms", "count_up") if data.get(k) not in (None, False)]
    if len(clocks) > 1:
        raise _fail(f"A slate has one clock: give only one of {', '.join(clocks)}.")
    data = {k: v for k, v in data.items() if k not in ("ends_at", "starts_at")}  # the server sets these
    if until is not None:
        data["ends_at"] = _time_of_day(until, now)
    elif data.get("countdown_ms") is not None:
        data["ends_at"] = now + data["countdown_ms"]
    elif data.get("count_up") is True:  # `false` (a spreadsheet's switch left off) is no clock
        data["starts_at"] = now
    elif data.get("count_up") is not None:
        raise _fail("'count_up' must be true (a count-up from the moment the slate is taken) or false.")
    return data


def _time_of_day(value: Any, now: int) -> int:
    """Server epoch ms of the next HH:MM in the server's local time; a time passed within the
    last hour is today's (the countdown shows 0:00: the start is late, not tomorrow)."""
    m = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", value) if isinstance(value, str) else None
    if not m:
        raise _fail("'until' must be a time of day as HH:MM (server's local time), e.g. \"19:30\".")
    local = dt.datetime.fromtimestamp(now / 1000).astimezone()
    target = local.replace(hour=int(m.group(1)), minute=int(m.group(2)), second=0, microsecond=0)
    at = int(target.timestamp() * 1000)
    return at + DAY if at < now - HOUR else at


def credits(data: dict, now: int, live_url: str | None = None) -> dict:
    names = data.get("names")
    if not isinstance(names, list) or not names or len(names) > 200:
        raise _fail("'names' must be a list of 1 to 200 names.")
    for i, row in enumerate(names):
        name = row.get("name") if isinstance(row, dict) else row
        if not isinstance(name, str) or not name.strip() or len(name) > 120:
            raise _fail(f"'names[{i}]' must be a name (or {{\"name\": …, \"role\": …}}) of 1 to 120 characters.")
        if isinstance(row, dict) and not isinstance(row.get("role", ""), str):
            raise _fail(f"'names[{i}].role' must be a text.")
    _text(data, "title", 120)
    _int(data, "speed", 20, 400, "pixels a second")
    return data


# The credits roll's box model (static/overlays/credits.css: fixed line heights, a 900 px column
# in the 972 px high safe area): what the server needs to know when a roll without `loop` has
# passed, so the rundown's program and `graphics` take it out then, as the output does.
CREDITS_WINDOW_PX = 972
CREDITS_TITLE_PX, CREDITS_TITLE_GAP_PX = 76, 60
CREDITS_ROLE_PX, CREDITS_NAME_PX, CREDITS_ROW_GAP_PX = 36, 56, 34
CREDITS_SPEED = 70  # px/s, as credits.js
# characters a 900 px line surely holds (wide glyphs, a word that does not fit going down whole):
# a longer text is counted as wrapping, so the estimate never ends a roll before its last name
_CREDITS_CHARS = {"title": 18, "role": 30, "name": 26}


def _lines(text: str, kind: str) -> int:
    return max(1, -(-len(text.strip()) // _CREDITS_CHARS[kind]))


def credits_roll_ms(data: dict) -> int | None:
    """How long a roll without `loop` takes to pass (its first line in at the bottom, its last out
    at the top), in ms; None for a looping roll, which stays until taken out."""
    if data.get("loop") or not isinstance(data.get("names"), list):
        return None
    height = _lines(data.get("title") or "Титры", "title") * CREDITS_TITLE_PX + CREDITS_TITLE_GAP_PX
    for row in data["names"]:
        row = row if isinstance(row, dict) else {"name": row}
        role = row.get("role") or ""
        height += ((_lines(role, "role") * CREDITS_ROLE_PX) if role.strip() else 0) \
            + _lines(str(row.get("name") or ""), "name") * CREDITS_NAME_PX + CREDITS_ROW_GAP_PX
    speed = data.get("speed") if isinstance(data.get("speed"), int) else CREDITS_SPEED
    return -(-(CREDITS_WINDOW_PX + height) * 1000 // speed)


def natural_end(name: str, data: dict, shown_at: int) -> int | None:
    """Server ms at which a shown graphic leaves the air by itself whatever its item says (a
    one-time credits roll that has passed), or None."""
    roll = credits_roll_ms(data) if name == "credits" else None
    return None if roll is None else shown_at + roll


def earliest(*ends: int | None) -> int | None:
    known = [e for e in ends if isinstance(e, int)]
    return min(known) if known else None


def lower_third(data: dict, now: int, live_url: str | None = None) -> dict:
    if data.get("style", "plain") not in ("plain", "photo"):
        raise _fail("'style' must be \"plain\" or \"photo\" (two lines and a photo).")
    _picture(data, "photo", required=False)
    return data


def _qr(data: dict, live_url: str | None) -> dict:
    """`qr: true` on a slate or a bug: the audience page's QR code. Its address is the configured
    public one (`LIVE_URL`) and nothing else — not the overlay's host (OBS often loads it from
    localhost), not the caller's; the server writes it and the code's modules into the data
    (`qr_url`, `qr_modules`: rows of hex, the dark modules as 1 bits, most significant first) so
    every overlay, on the writer or on an edge, draws the same code."""
    data = {k: v for k, v in data.items() if k not in ("qr_url", "qr_modules")}  # the server sets these
    qr = data.get("qr")
    if qr is not None and not isinstance(qr, bool):
        raise _fail("'qr' must be true (show the audience page's QR code) or false.")
    _text(data, "qr_caption", 60)
    if not qr:
        return data
    url = public_live_url(live_url)
    data["qr_url"], data["qr_modules"] = url, qr_modules(url)
    return data


def public_live_url(live_url: str | None) -> str:
    """`LIVE_URL` if it is an http(s) address, else a refusal (422) saying how to set it."""
    if not live_url:
        raise RuleError("no_live_url", "The audience page's public address is not configured, so its QR code "
                                        "cannot be drawn: set LIVE_URL (config.toml, or CHGK_OVERLAY_LIVE_URL) "
                                        "to the address phones open, e.g. \"https://live.example.org/live\".")
    if (not isinstance(live_url, str) or not re.fullmatch(r"https?://[^\s/?#]+(/[^\s]*)?", live_url)
            or len(live_url) > 300):
        raise RuleError("no_live_url", f"LIVE_URL {str(live_url)[:80]!r} is not an http(s) address, so no QR code "
                                        "is drawn: set it to the address phones open, e.g. "
                                        "\"https://live.example.org/live\".")
    return live_url


def qr_modules(url: str) -> list[str]:
    import segno

    rows = segno.make(url, error="m", micro=False).matrix
    return [f"{int(''.join('1' if m else '0' for m in row), 2):0{(len(row) + 3) // 4}x}" for row in rows]


# Stacking on the rundown's output (`/overlays/show`), bottom to top: full-screen backgrounds,
# the game's graphics, straps, then what must never be covered (ticker, bug). Within a level the
# page's own order decides. A rundown item may name another level (`stack`) where it matters.
STACK_LEVELS = ("back", "game", "strap", "top")
STACK: dict[str, str] = {
    "slate": "back", "credits": "back",
    "lower-third": "strap",
    "ticker": "top", "bug": "top",
}  # every other graphic (scoreboard, timer, table, question, full, club and league ones): "game"


def stack_of(graphic: str, override: str | None = None) -> str:
    """The level a graphic is drawn at: the item's own choice, else the graphic's default."""
    return override if override in STACK_LEVELS else STACK.get(graphic, "game")


def parse_stack(value: Any) -> str | None:
    """An item's `stack`: one of STACK_LEVELS, or empty/None for the graphic's default."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str) and value.strip() in STACK_LEVELS:
        return value.strip()
    raise _fail(f"'stack' must be one of {', '.join(STACK_LEVELS)} (bottom to top), or empty for the "
                f"graphic's own level; got {value!r}.")


CHECKS: dict[str, Callable[..., dict]] = {
    "bug": bug, "ticker": ticker, "slate": slate, "credits": credits, "lower-third": lower_third,
}


def check(name: str, data: dict, now: int, live_url: str | None = None) -> dict:
    """The data to put on air for a `show` of graphic `name` (InputError when it is wrong);
    `live_url`: the audience page's public address (`LIVE_URL`), for a `qr`."""
    fn = CHECKS.get(name)
    return fn(dict(data), now, live_url) if fn else data
