"""Graphics taken to air (lower-thirds, cards): not game commands, but one path all the same —
validated, recorded, then broadcast. `undo` does not touch them."""
from __future__ import annotations

import json
from typing import Any

from . import show as showgfx
from ..rules import InputError
from ..schema import validate_data
from ..core.session import Change, Sessions

# Every on-air graphic the server serves (templates/overlays/<name>.html).
GRAPHICS = (
    "scoreboard", "timer", "table", "question", "blitz", "lower-third", "result", "full",
    "central-table", "club-tables", "draw", "game-rating", "best-player",
    "season-rating", "final-teams", "series",
    "bug", "ticker", "slate", "credits",  # show graphics (overlay/graphics/show.py checks their data)
)
MAX_DATA_BYTES = 8_000
# the levels bottom to top and each graphic's own level, as sent to the overlays
STACK_ORDER = {"levels": list(showgfx.STACK_LEVELS), "graphics": {g: showgfx.stack_of(g) for g in GRAPHICS}}
MAX_DATA_DEPTH = 8  # lists and objects inside `data`; Socket.IO walks it recursively


class Graphics:
    """What is on air: `shown` {name: {data, shown_at, expires_at}}, `hidden` [names], and the
    rundowns' `layers` {layer: {rundown, item, label, graphic, data, step, out, stack, shown_at,
    expires_at}} — one item per layer. A layer's item is also `shown` under its graphic's name,
    so a graphic's own page (`/overlays/lower-third`) shows it as it shows a desk's take."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        saved = sessions.store.get_setting("graphics") or {}
        self.seq: int = saved.get("seq", 0)
        self.shown: dict[str, dict] = saved.get("shown", {})
        self.hidden: list[str] = saved.get("hidden", [])
        self.media: Any = None  # overlay.media.library.Media, set by the app
        self.live_url: str | None = None  # LIVE_URL, set by the app: a slate's or bug's `qr` names it
        self.layers: dict[str, dict] = saved.get("layers", {})

    def media_of(self, data: Any) -> dict[str, str]:
        """{media id: URL} for the pictures `data` names (empty without a library)."""
        return self.media.resolve(data) if self.media else {}

    def payload(self) -> dict[str, Any]:
        # Each shown graphic and layer carries `media`: {media id: URL} for the pictures its data
        # names, so a re-uploaded picture reaches the overlays as a new URL. Each layer carries its
        # `stack` level, and `stack` says the levels' order and each graphic's own level, so the
        # rundown's output draws them in the order overlay/graphics/show.py keeps.
        return {"seq": self.seq,
                "graphics": {k: dict(v, media=self.media_of(v.get("data"))) for k, v in self.shown.items()},
                "hidden": list(self.hidden),
                "layers": {k: dict(v, media=self.media_of(v.get("data")),
                                   stack=showgfx.stack_of(v.get("graphic", ""), v.get("stack")))
                           for k, v in self.layers.items()},
                "stack": STACK_ORDER,
                "server_now": self.sessions.clock()}

    def set_layers(self, changes: dict[str, dict | None], record: dict, also: Any = None,
                   now: int | None = None) -> None:
        """Put items on layers (an entry) or take layers out (None), in one commit; `also(db)`
        writes in the same transaction (the rundown's own change). `now`: the instant the entries
        were made at (their `shown_at`), so the journal's time is the take's. Call with sessions.lock held."""
        now = self.sessions.clock() if now is None else now
        # a show graphic's data is checked (and its clock fixed in server time) as a desk's take is
        changes = {layer: entry if entry is None else showgfx.kept_clock(self.layers.get(layer), {
                       **entry, "data": showgfx.check(entry["graphic"], entry["data"], now, self.live_url)})
                   for layer, entry in changes.items()}
        shown, hidden, layers = dict(self.shown), list(self.hidden), dict(self.layers)
        events: list[dict] = []
        for layer, entry in changes.items():
            old = layers.pop(layer, None)
            if old is not None:
                if shown.get(old["graphic"], {}).get("item") == old["item"]:
                    del shown[old["graphic"]]
                if entry is None or old["item"] != entry["item"] or old.get("rundown") != entry.get("rundown"):
                    events.append({"type": record.get("out_event", "layer_out"), "layer": layer, **_brief(old)})
            if entry is not None:
                layers[layer] = entry
                shown[entry["graphic"]] = {"data": entry["data"], "shown_at": entry["shown_at"],
                                           "expires_at": entry["expires_at"], "layer": layer, "item": entry["item"]}
                hidden = [h for h in hidden if h != entry["graphic"]]
                events.append({"type": "layer_taken", "layer": layer, **_brief(entry), "data": entry["data"]})
        # what went on and off the layers, in the journal too: the as-run log reads it (overlay/post)
        # (a take with its whole layer entry: a render draws the show again from it)
        record = {**record, "air": [{**{k: v for k, v in e.items() if k != "data"},
                                     "title": str((e.get("data") or {}).get("title", "")),
                                     **({"entry": layers[e["layer"]]} if e["type"] == "layer_taken" else {})}
                                    for e in events]}
        self._commit(shown, hidden, now, record, layers=layers, events=events, also=also)

    def using(self, media_id: str) -> list[str]:
        """The graphics on air whose data names the picture (for the library's "used by"): every
        layer, since two layers may show one graphic and `shown` keeps only the latest of them."""
        if not self.media:
            return []
        names = self.media.resolve
        return ([dict(kind="graphic_on_air", text=f"графика «{name}» в эфире", graphic=name) for name, v in self.shown.items()
                 if "layer" not in v and media_id in names(v.get("data"))]
                + [dict(kind="layer_on_air", text=f"слой «{layer}»: графика «{v['graphic']}» в эфире", layer=layer, graphic=v["graphic"])
                   for layer, v in self.layers.items() if media_id in names(v.get("data"))])

    def refresh(self, media_id: str) -> None:
        """A picture got new content: send the graphics again if one that is shown names it."""
        with self.sessions.lock:
            if not self.using(media_id):
                return
            now = self.sessions.clock()
            seq = self.seq + 1
            self.sessions.store.set_setting("graphics", {"seq": seq, "shown": self.shown, "hidden": self.hidden,
                                                         "layers": self.layers},
                                            at=now, journal_kind="graphics",
                                            journal_body={"action": "media", "media": media_id, "source": "media"})
            self.seq = seq
            self.sessions._notify(Change("graphics", None, seq, [], source="media"))

    def apply(self, body: Any, source: str = "api") -> dict[str, Any]:
        action, name, data = _parse(body)
        with self.sessions.lock:
            now = self.sessions.clock()
            shown = {k: v for k, v in self.shown.items() if k != name}
            hidden = [h for h in self.hidden if h != name]
            if action == "show":
                data = showgfx.check(name, data, now, self.live_url)
                duration = data.get("duration_ms")
                shown[name] = {"data": data, "shown_at": now,
                               "expires_at": showgfx.earliest(now + duration if duration else None,
                                                              showgfx.natural_end(name, data, now))}
            elif action == "hide":
                hidden.append(name)
            # "clear": neither taken nor hidden — the graphic follows the game by itself again
            self._commit(shown, hidden, now, {"action": action, "graphic": name, "data": data,
                                              "source": source})
            return self.payload()

    def timed(self) -> bool:
        """A graphic or a layer will go out by itself (`expire` has something to do, some time).
        Call with sessions.lock held."""
        return (any(v.get("expires_at") for v in self.layers.values())
                or any(v.get("expires_at") for v in self.shown.values()))

    def expire(self) -> None:
        """Called by the clock task: take out graphics whose `duration_ms` has passed."""
        with self.sessions.lock:
            now = self.sessions.clock()
            done = {k: None for k, v in self.layers.items() if v.get("expires_at") and v["expires_at"] <= now}
            if done:
                self.set_layers(done, {"action": "expire", "layers": list(done), "source": "clock",
                                       "out_event": "layer_done"})
            gone = [k for k, v in self.shown.items() if v.get("expires_at") and v["expires_at"] <= now]
            if gone:
                shown = {k: v for k, v in self.shown.items() if k not in gone}
                self._commit(shown, self.hidden, now, {"action": "expire", "graphics": gone, "source": "clock"})

    def _commit(self, shown: dict, hidden: list[str], now: int, record: dict, *, layers: dict | None = None,
                events: list[dict] | None = None, also: Any = None) -> None:
        seq = self.seq + 1
        layers = self.layers if layers is None else layers
        self.sessions.store.set_setting("graphics", {"seq": seq, "shown": shown, "hidden": hidden, "layers": layers},
                                        at=now, journal_kind="graphics", journal_body=record, also=also)
        self.seq, self.shown, self.hidden, self.layers = seq, shown, hidden, layers
        if events is None:
            kind = {"show": "graphic_shown", "clear": "graphic_cleared"}.get(record["action"], "graphic_hidden")
            events = [{"type": kind,
                       "graphic": g, "data": record.get("data", {})}
                      for g in (record.get("graphics") or [record["graphic"]])]
        self.sessions._notify(Change("graphics", None, seq, events, source=record["source"]))


def _brief(entry: dict) -> dict:
    """What a layer event says of its item (listeners: sockets, OSC cues)."""
    return {k: entry.get(k) for k in ("rundown", "item", "label", "graphic")}


def _parse(body: Any) -> tuple[str, str, dict]:
    if not isinstance(body, dict):
        raise InputError("bad_graphics", "Send {\"action\": \"show\"|\"hide\"|\"clear\", \"graphic\": name, \"data\": {...}}.")
    extra = set(body) - {"action", "graphic", "data"}
    if extra:
        raise InputError("bad_field", f"Unknown field {sorted(extra)[0]!r}.")
    action, name, data = body.get("action"), body.get("graphic"), body.get("data", {})
    if action not in ("show", "hide", "clear"):
        raise InputError("bad_field", "'action' must be \"show\", \"hide\" or \"clear\".")
    if name not in GRAPHICS:
        raise InputError("unknown_graphic", f"Unknown graphic {name!r}. Graphics: {', '.join(GRAPHICS)}.", graphic=str(name))
    data = check_envelope(data)
    if action == "show":  # the graphic's declared data (overlay/schema): every door checks the same
        data = validate_data(name, data)
    return action, name, data


def check_envelope(data: Any) -> dict:
    """`data` as every door takes it before its graphic's schema: an object (None: empty), at most
    MAX_DATA_DEPTH deep and MAX_DATA_BYTES big (the graphics API and rundown items alike)."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError("bad_field", "'data' must be an object.")
    if _depth(data) > MAX_DATA_DEPTH:
        raise InputError("bad_field", f"'data' nests lists and objects more than {MAX_DATA_DEPTH} levels deep.")
    if len(json.dumps(data, ensure_ascii=False).encode()) > MAX_DATA_BYTES:
        raise InputError("bad_field", f"'data' is larger than {MAX_DATA_BYTES} bytes.")
    return data


def _depth(value: Any, limit: int = MAX_DATA_DEPTH + 1) -> int:
    """How deep lists and objects nest in `value` (counting stops past `limit`)."""
    if limit <= 0 or not isinstance(value, (dict, list)):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(v, limit - 1) for v in items), default=0)
