"""The show graphics' data (strap, bug, ticker, slate, credits) as it goes on air — by
`POST /api/graphics`, the panel or a rundown item alike: checked against its schema once more
(overlay/schema: a rundown item's {{fields}} are filled in at take), then completed by the server:
the audience page's QR code, and the slate's clock in server time (a countdown "until 19:30" or
"for 5 minutes" becomes `ends_at`, a count-up `starts_at`), so every screen and every reconnect
shows the same second. Also: when a one-time credits roll ends, and the layers' stacking."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from ..rules import InputError, RuleError
from ..schema import validate_data

HOUR = 3_600_000
DAY = 24 * HOUR
# The graphics of a show (the rest draw the game's state and take no data of their own).
SHOW_GRAPHICS = ("lower-third", "bug", "ticker", "slate", "credits")


def _slate(data: dict, now: int, live_url: str | None) -> dict:
    """The slate's one clock in server time: `until` HH:MM and `countdown_ms` become `ends_at`,
    `count_up` becomes `starts_at` (the schema has let at most one of them through)."""
    data = _qr(data, now, live_url)
    if data.get("until") is not None:
        data["ends_at"] = _time_of_day(data["until"], now)
    elif data.get("countdown_ms") is not None:
        data["ends_at"] = now + data["countdown_ms"]
    elif data.get("count_up") is True:  # `false` (a spreadsheet's switch left off) is no clock
        data["starts_at"] = now
    return data


def _time_of_day(value: str, now: int) -> int:
    """Server epoch ms of the next HH:MM in the server's local time; a time passed within the
    last hour is today's (the countdown shows 0:00: the start is late, not tomorrow)."""
    hour, minute = (int(part) for part in value.split(":"))
    local = dt.datetime.fromtimestamp(now / 1000).astimezone()
    target = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    at = int(target.timestamp() * 1000)
    return at + DAY if at < now - HOUR else at


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


def _qr(data: dict, now: int, live_url: str | None) -> dict:
    """`qr: true` on a slate or a bug: the audience page's QR code. Its address is the configured
    public one (`LIVE_URL`) and nothing else — not the overlay's host (OBS often loads it from
    localhost), not the caller's; the server writes it and the code's modules into the data
    (`qr_url`, `qr_modules`: rows of hex, the dark modules as 1 bits, most significant first) so
    every overlay, on the writer or on an edge, draws the same code."""
    qr = data.get("qr")
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


# The rundown layer a new item of each graphic starts on (the desk's item form; the operator may
# name another): a layer holds one item at a time, so a logo must not take the question card's.
LAYERS: dict[str, str] = {
    "lower-third": "straps", "bug": "bug", "ticker": "ticker", "slate": "back", "credits": "back",
}  # every other graphic: "main"


def layer_of(graphic: str) -> str:
    return LAYERS.get(graphic, "main")


def stack_of(graphic: str, override: str | None = None) -> str:
    """The level a graphic is drawn at: the item's own choice, else the graphic's default."""
    return override if override in STACK_LEVELS else STACK.get(graphic, "game")


def parse_stack(value: Any) -> str | None:
    """An item's `stack`: one of STACK_LEVELS, or empty/None for the graphic's default."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str) and value.strip() in STACK_LEVELS:
        return value.strip()
    raise InputError("bad_field", f"'stack' must be one of {', '.join(STACK_LEVELS)} (bottom to top), or empty "
                                  f"for the graphic's own level; got {value!r}.")


CLOCK_FIELDS = ("until", "countdown_ms", "count_up")


def kept_clock(old: dict | None, new: dict) -> dict:
    """An update of the slate on air (the desk's F5, an OGraf updateAction) keeps its running clock
    when the clock's own fields are unchanged: a corrected title must not restart the countdown (as
    the exported OGraf slate, which counts from its take, does not)."""
    if (not old or new.get("graphic") != "slate" or old.get("graphic") != "slate"
            or old.get("item") != new.get("item") or old.get("rundown") != new.get("rundown")):
        return new
    before, now = old.get("data") or {}, new["data"]
    if any(before.get(k) != now.get(k) for k in CLOCK_FIELDS):
        return new
    return {**new, "data": {**now, **{k: before[k] for k in ("ends_at", "starts_at") if k in before}}}


# what the server adds at take, after the schema: the QR code's modules, the slate's clock
AT_TAKE: dict[str, Callable[[dict, int, str | None], dict]] = {"bug": _qr, "slate": _slate}


def check(name: str, data: dict, now: int, live_url: str | None = None) -> dict:
    """The data to put on air for a `show` of graphic `name` (InputError when it is wrong);
    `live_url`: the audience page's public address (`LIVE_URL`), for a `qr`. A show graphic's
    data is checked against its schema here again, at take: a rundown item's {{fields}} are
    filled in only now. The schema drops what the server writes (`ends_at`, `qr_url`…)."""
    if name not in SHOW_GRAPHICS:
        return data
    data = validate_data(name, data)
    step = AT_TAKE.get(name)
    return step(data, now, live_url) if step else data
