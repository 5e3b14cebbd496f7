"""The as-run log: what went to air and when, from the journal and the game's log.

Rows, oldest first, each with its wall time (`at`, server epoch ms, and `wall`, ISO 8601 in the
server's time zone) and show timecode (`timecode`, non-drop-frame at `fps`, counted from the
first row — the first take — which stands at `timecode_start`, default 00:00:00:00):

- `graphic_in` / `graphic_out`: a graphic taken to air and out (`graphic`, `layer` and `label`
  for a rundown's item, `source`); `game_on_air` / `game_off_air`: the game the game graphics
  follow by themselves (scoreboard, timer, …) went on air and was replaced;
- `cue`: every cue event the OSC bridge sends (`cue`, `args`: the generic namespace's fields),
  derived from the same changes with the bridge's own `cue_events` — a game's cues while it is
  on air (the bridge sends nothing for another game), every graphics cue;
- `question_in` / `question_out`: a round's question on air, from the top's stop (`reveal_at`)
  to its close, with `sector`, `question`, `author`, `city` and `sponsor` (tv sector 13);
- `undone`: a command that was sent, cued and then undone (its events are gone from the log).

`questions` sums each round's airtime; `sponsor` the sponsor's sector apart (proof of airtime).
"""
from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from typing import Any

from ..core.session import Change
from ..csvsafe import escape
from ..osc.events import cue_events
from ..rules import InputError
from .journal import GameRecord
from .timeline import Timeline

SPONSOR_SECTOR = 13
FPS_CHOICES = (24, 25, 30, 50, 60)
TIMECODE = re.compile(r"^(\d{2}):([0-5]\d):([0-5]\d)[:;](\d{2})$")
TEN_SECONDS = 10_000
COLUMNS = ("timecode", "wall", "at", "type", "graphic", "layer", "label", "cue", "args", "sector", "question",
           "author", "city", "sponsor", "source")


def parse_timecode(text: str | None, fps: int) -> int:
    """'10:00:00:00' → frames at `fps`; None → 0."""
    if text in (None, ""):
        return 0
    m = TIMECODE.match(str(text))
    if not m or int(m[4]) >= fps:
        raise InputError("bad_field", f"'timecode' must be HH:MM:SS:FF with FF below {fps}, got {text!r}.",
                         field="timecode")
    h, mi, s, f = (int(x) for x in m.groups())
    return ((h * 60 + mi) * 60 + s) * fps + f


def format_timecode(frames: int, fps: int) -> str:
    frames = max(0, frames)
    f, s = frames % fps, frames // fps
    return f"{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}:{f:02d}"


def parse_fps(value: Any) -> int:
    try:
        fps = int(value)
    except (TypeError, ValueError):
        fps = -1
    if fps not in FPS_CHOICES:
        raise InputError("bad_field", f"'fps' must be one of {', '.join(map(str, FPS_CHOICES))}, got {value!r}.",
                         field="fps")
    return fps


def _on_air_periods(record: GameRecord, end: int) -> list[tuple[int, int]]:
    """When the game was the one on air: from each on_air naming it to the next naming another."""
    periods, since = [], None
    for j in record.journal:
        if j["kind"] != "on_air":
            continue
        named = j["body"].get("on_air")
        if named == record.id and since is None:
            since = j["at"]
        elif named != record.id and since is not None:
            periods.append((since, j["at"]))
            since = None
    if since is not None:
        periods.append((since, max(end, since)))
    return periods


def _within(periods: list[tuple[int, int]], at: int) -> bool:
    return any(a <= at <= b for a, b in periods)


def _game_cues(tl: Timeline) -> list[dict]:
    """The bridge's cue events of every recorded batch, and the "10 seconds left" moments the
    clock announced (not recorded: derived as Sessions.tick makes them)."""
    rows: list[dict] = []
    warned = False
    for i, p in enumerate(tl.points[1:], start=1):
        before = tl.points[i - 1].game
        change = Change("time_up" if p.auto else "command", tl.record.id, p.rev, p.events, before, p.game)
        rows += [{"at": p.at, "type": "cue", "cue": c.name, "args": c.fields, "source": "clock" if p.auto else ""}
                 for c in cue_events(change)]
        timer = p.game.timer
        if timer is None or not timer.running:
            warned = warned and timer is not None and timer.remaining_ms <= TEN_SECONDS
            continue
        moment = max(p.at, timer.ends_at - TEN_SECONDS)
        if timer.ends_at - p.at > TEN_SECONDS:
            warned = False
        nxt = tl.points[i + 1].at if i + 1 < len(tl.points) else None
        if not warned and timer.duration_ms > TEN_SECONDS and moment < timer.ends_at and (nxt is None or moment < nxt):
            warned = True
            rows.append({"at": moment, "type": "cue", "cue": "ten_seconds", "args": {"kind": timer.kind},
                         "source": "clock"})
    return rows


_UNDONE_CUE = {"spun": "spin", "point": "score", "score_set": "score", "decisive_decided": "decisive_granted"}


def _undone(record: GameRecord) -> list[dict]:
    """Commands that were undone, from the journal: each undo drops the last command still
    standing and the time-ups after it."""
    stack: list[dict] = []
    rows: list[dict] = []
    for j in record.journal:
        if j["game"] != record.id:
            continue
        if j["kind"] in ("command", "time_up"):
            stack.append(j)
        elif j["kind"] == "undo":
            while stack and stack[-1]["kind"] == "time_up":
                stack.pop()
            if stack:
                gone = stack.pop()
                rows.append({"at": gone["at"], "type": "undone", "cue": gone["body"].get("type", ""),
                             "source": gone["body"].get("source", "")})
            dropped = j["body"].get("dropped") or [""]
            rows.append({"at": j["at"], "type": "cue", "cue": "undo",
                         "args": {"undone": _UNDONE_CUE.get(dropped[0], dropped[0])},
                         "source": j["body"].get("source", "")})
    return rows


def _graphics(record: GameRecord, periods: list[tuple[int, int]], start: int, end: int) -> list[dict]:
    """Graphics in and out, and their cues, replayed from the journal's `graphics` records."""
    rows: list[dict] = []
    shown: set[str] = set()
    for j in record.journal:
        if j["kind"] != "graphics":
            continue
        body, at = j["body"], j["at"]
        source = body.get("source", "")
        events: list[dict] = []
        action = body.get("action")
        if "air" in body:  # a rundown's or OGraf take: what went on and off its layers
            for e in body["air"]:
                (shown.add if e["type"] == "layer_taken" else shown.discard)(e.get("graphic"))
                events.append(e)
        elif action == "show":
            shown.add(body["graphic"])
            events.append({"type": "graphic_shown", "graphic": body["graphic"], "data": body.get("data") or {}})
        elif action in ("hide", "clear"):
            # `clear` of a graphic that was taken: out; of one that was hidden: it follows the game again
            back = action == "clear" and body["graphic"] not in shown
            shown.discard(body["graphic"])
            events.append({"type": "graphic_cleared" if back else "graphic_hidden", "graphic": body["graphic"]})
        elif action == "expire" and body.get("graphics"):
            for g in body["graphics"]:
                shown.discard(g)
                events.append({"type": "graphic_hidden", "graphic": g})
        if not events or not (start <= at <= end or _within(periods, at)):
            continue
        for e in events:
            kind = "graphic_in" if e["type"] in ("graphic_shown", "layer_taken", "graphic_cleared") else "graphic_out"
            rows.append({"at": at, "type": kind, "graphic": e.get("graphic"), "layer": e.get("layer"),
                         "label": e.get("label") or (e.get("data") or {}).get("title"), "source": source})
        rows += [{"at": at, "type": "cue", "cue": c.name, "args": c.fields, "source": source}
                 for c in cue_events(Change("graphics", None, 0, [dict(e, data=e.get("data") or {"title": e.get("title", "")}) for e in events]))]
    return rows


def _questions(tl: Timeline) -> tuple[list[dict], list[dict]]:
    """Each round's question on air: from the top's stop to the round's close (or the next spin,
    or the end)."""
    spans: list[dict] = []
    cur: dict | None = None
    tv = tl.record.spec.get("rules") == "tv"

    def close(at: int) -> None:
        nonlocal cur
        if cur is not None:
            cur["out_at"] = max(at, cur["in_at"])
            cur["airtime_ms"] = cur["out_at"] - cur["in_at"]
            spans.append(cur)
            cur = None

    for p in tl.points[1:]:
        for e in p.events:
            if e["type"] == "spun":
                close(p.at)
                sector = p.game.sector(e["sector"])
                q = (sector.questions or [{}])[0] if sector.questions else {}
                author = q.get("author") or {}
                cur = {"sector": e["sector"], "kind": sector.kind, "in_at": e.get("reveal_at") or p.at,
                       "author": author.get("name") or "", "city": author.get("city") or "",
                       "sponsor": tv and e["sector"] == SPONSOR_SECTOR}
            elif e["type"] == "round_closed":
                close(p.at)
    close(tl.end)
    rows = []
    for s in spans:
        common = {k: s[k] for k in ("sector", "author", "city", "sponsor")}
        rows.append({"at": s["in_at"], "type": "question_in", **common})
        rows.append({"at": s["out_at"], "type": "question_out", **common})
    return spans, rows


def as_run(record: GameRecord, *, now: int, fps: int = 25, timecode: str | None = None,
           tz: Any = None) -> dict:
    tl = Timeline(record, now)
    tc0 = parse_timecode(timecode, fps)
    periods = _on_air_periods(record, tl.end)
    span_end = max([tl.end] + [b for _, b in periods])
    rows: list[dict] = []
    for a, b in periods:
        rows.append({"at": a, "type": "game_on_air", "source": ""})
        score = tl.point_at(a).game.score
        rows += [{"at": a, "type": "cue", "cue": "on_air", "args": {"game": record.id, "title": record.spec.get("title") or ""},
                  "source": ""},
                 {"at": a, "type": "cue", "cue": "score", "args": {"experts": score["experts"], "viewers": score["viewers"]},
                  "source": ""}]
        if b < span_end or any(j["kind"] == "on_air" and j["at"] == b and j["body"].get("on_air") != record.id
                               for j in record.journal):
            rows.append({"at": b, "type": "game_off_air", "source": ""})
    on_air_cues = [r for r in _game_cues(tl) + _undone(record) if r["type"] != "cue" or _within(periods, r["at"])]
    rows += on_air_cues
    rows += _graphics(record, periods, tl.start, span_end)
    spans, qrows = _questions(tl)
    rows += qrows
    rows.sort(key=lambda r: r["at"])  # stable: the order within one instant is the order recorded
    origin = next((r["at"] for r in rows if r["type"] in ("graphic_in", "game_on_air")), rows[0]["at"] if rows else tl.start)
    for r in rows:
        r["timecode"] = format_timecode(tc0 + round((r["at"] - origin) * fps / 1000), fps)
        r["wall"] = datetime.fromtimestamp(r["at"] / 1000, tz).astimezone(tz).isoformat(timespec="milliseconds")
    sponsor = [s for s in spans if s["sponsor"]]
    return {"game": record.id, "title": record.spec.get("title"), "rules": record.spec.get("rules"),
            "fps": fps, "timecode_start": format_timecode(tc0, fps), "origin_at": origin,
            "start": tl.start, "end": span_end, "rows": rows,
            "questions": spans,
            "sponsor": {"sector": SPONSOR_SECTOR, "rounds": sponsor,
                        "airtime_ms": sum(s["airtime_ms"] for s in sponsor)}}


def to_csv(log: dict, excel: bool = False) -> str:
    """UTF-8 with a byte-order mark, CRLF; `excel`: `;`-separated, as the league's exports. Cells
    that would be formulas are neutralised (csvsafe)."""
    out = io.StringIO()
    out.write("\ufeff")
    w = csv.writer(out, delimiter=";" if excel else ",", lineterminator="\r\n")
    w.writerow(COLUMNS)
    for r in log["rows"]:
        args = r.get("args")
        cells = {**r, "args": " ".join(f"{k}={v}" for k, v in args.items()) if args else "",
                 "sponsor": "1" if r.get("sponsor") else ("0" if "sponsor" in r else "")}
        w.writerow([escape("" if cells.get(c) is None else cells.get(c)) for c in COLUMNS])
    return out.getvalue()


def rundown_as_run(journal: list[dict], rundown_id: str, *, fps: int = 25, timecode: str | None = None,
                   tz: Any = None) -> dict:
    """A rundown show's as-run: its items in and out of their layers, with their cues."""
    tc0 = parse_timecode(timecode, fps)
    rows: list[dict] = []
    for j in journal:
        air = [e for e in (j["body"].get("air") or []) if e.get("rundown") == rundown_id] if j["kind"] == "graphics" else []
        for e in air:
            rows.append({"at": j["at"], "type": "graphic_in" if e["type"] == "layer_taken" else "graphic_out",
                         "graphic": e.get("graphic"), "layer": e.get("layer"), "label": e.get("label"),
                         "item": e.get("item"), "source": j["body"].get("source", "")})
        if air:
            rows += [{"at": j["at"], "type": "cue", "cue": c.name, "args": c.fields, "source": j["body"].get("source", "")}
                     for c in cue_events(Change("graphics", None, 0, [dict(e, data={"title": e.get("title", "")})
                                                                      for e in air]))]
    origin = rows[0]["at"] if rows else 0
    for r in rows:
        r["timecode"] = format_timecode(tc0 + round((r["at"] - origin) * fps / 1000), fps)
        r["wall"] = datetime.fromtimestamp(r["at"] / 1000, tz).astimezone(tz).isoformat(timespec="milliseconds")
    return {"rundown": rundown_id, "fps": fps, "timecode_start": format_timecode(tc0, fps), "origin_at": origin,
            "rows": rows}
