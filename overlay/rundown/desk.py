"""The rundown desk: every rundown change and action goes through `Rundowns.edit` / `act` — check
`expected_rev` (409), apply the pure model, commit (the rundown, and the air when it is a take,
in one transaction), then tell the listeners. Taking an item is a graphics change (`Graphics.
set_layers`): the same journal, commit and `graphics` broadcast as `POST /api/graphics`."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..graphics.game import GRAPHICS, Graphics
from ..graphics.show import STACK_LEVELS, earliest, natural_end, stack_of
from ..ograf import items as ograf_items
from ..schema import media_fields
from ..rules import InputError, RuleError
from ..core.session import Sessions, StaleRev
from . import model
from .store import RundownStore

log = logging.getLogger("chgk_overlay.rundown")
ACTIONS = ("take", "continue", "out", "go", "update", "all_out", "focus", "next", "previous", "cue",
           "take_cued", "lock", "unlock", "custom")


# the data fields that may name a picture of the media library (declared in overlay/schema)
PICTURE_FIELDS = media_fields()


class UnknownRundown(InputError):
    status = 404


Listener = Callable[[str, dict], None]  # (kind: "rundown" | "deleted" | "preview", payload)


class Rundowns:
    def __init__(self, sessions: Sessions, graphics: Graphics, graphics_names: tuple[str, ...] = GRAPHICS) -> None:
        self.sessions, self.graphics = sessions, graphics
        self.names = graphics_names
        self.db = RundownStore(sessions.store)
        self.docs: dict[str, dict] = {d["id"]: d for d in self.db.all()}
        self.listeners: list[Listener] = []
        self.preview_of: str | None = None  # the rundown whose focused item `?preview=1` shows
        self.ograf: Any = None  # overlay.ograf.library.OgrafLibrary: items may name uploaded graphics

    # reading ------------------------------------------------------------------------------------

    def current(self) -> str | None:
        """The rundown that `current` names (Companion, OSC): the one last operated; after a
        restart the one with items on air, else the newest."""
        if self.preview_of in self.docs:
            return self.preview_of
        on_air = [e.get("rundown") for e in self.graphics.layers.values() if e.get("rundown") in self.docs]
        return on_air[0] if on_air else (list(self.docs)[-1] if self.docs else None)

    def get(self, rundown_id: Any) -> dict:
        if rundown_id == "current":
            rundown_id = self.current()
            if rundown_id is None:
                raise UnknownRundown("unknown_rundown", "There is no rundown yet: create one (POST /api/rundowns).")
        doc = self.docs.get(rundown_id) if isinstance(rundown_id, str) else None
        if doc is None:
            raise UnknownRundown("unknown_rundown", f"There is no rundown {rundown_id!r}. GET /api/rundowns lists them.")
        return doc

    def view(self, doc: dict) -> dict:
        """The rundown as the API sends it: its document and what of it is on air (`program`)."""
        program = {layer: {"item": e["item"], "label": e["label"], "graphic": e["graphic"], "step": e.get("step", 0),
                           "stack": stack_of(e["graphic"], e.get("stack")),
                           "shown_at": e["shown_at"], "expires_at": e["expires_at"]}
                   for layer, e in self.graphics.layers.items() if e.get("rundown") == doc["id"]}
        # on air, and not from this rundown: an OGraf controller's take, the graphics page's, another
        # rundown's — listed in the desk's program too, with where it came from (they share the output)
        elsewhere = {layer: {"label": e.get("label") or e["graphic"], "graphic": e["graphic"],
                             "stack": stack_of(e["graphic"], e.get("stack")), "rundown": e.get("rundown"),
                             "expires_at": e.get("expires_at")}
                     for layer, e in self.graphics.layers.items() if e.get("rundown") != doc["id"]}
        out = {k: v for k, v in doc.items() if k != "next"}
        out["program"] = program
        out["elsewhere"] = elsewhere
        out["steps"] = {g: list(s) for g, s in model.STEPS.items()}
        if self.ograf is not None:  # uploaded graphics: steps, custom actions, data schema (the desk's buttons, form)
            out["ograf"] = ograf_items.described(self.ograf, doc)
        out["stack_levels"] = list(STACK_LEVELS)  # bottom to top: the desk's level choice and program order
        out["server_now"] = self.sessions.clock()
        return out

    def summary(self) -> list[dict]:
        return [{"id": d["id"], "name": d["name"], "rev": d["rev"], "locked": d["locked"],
                 "items": len(model.items(d))} for d in self.docs.values()]

    def media_users(self, media_id: str) -> list[dict]:
        """Who uses a media id (`data.media` of an item): for overlay/media/library.py's
        `register_media_user`, so a used picture is not deleted."""
        return [dict(kind="rundown_item", text=f"rundown «{d['name']}», item «{i['label']}»", rundown=d["name"], item=i["label"])
                for d in self.docs.values()
                for i in model.items(d) if media_id in (i["data"].get(k) for k in PICTURE_FIELDS)]

    def on_air_item(self, doc: dict, item_id: str) -> tuple[str, dict] | None:
        for layer, e in self.graphics.layers.items():
            if e.get("rundown") == doc["id"] and e["item"] == item_id:
                return layer, e
        return None

    # changing -----------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _tell(self, kind: str, payload: dict) -> None:
        for listener in list(self.listeners):
            try:
                listener(kind, payload)
            except Exception:
                log.exception("rundown listener failed on %s", kind)

    def create(self, body: Any) -> dict:
        if not isinstance(body, dict):
            raise InputError("bad_json", "Send {\"name\": \"…\"}.")
        with self.sessions.lock:
            doc = model.new_rundown(self.db.next_id(), body.get("name"))
            doc["rev"] = 1
            self.db.write(doc, at=self.sessions.clock(), journal={"action": "create", "name": doc["name"]})
            self.docs[doc["id"]] = doc
        self._tell("rundown", self.view(doc))
        return doc

    def delete(self, rundown_id: str, body: Any) -> None:
        with self.sessions.lock:
            doc = self.get(rundown_id)
            _check_rev(doc, body)
            model.editable(doc)
            if self._program_layers(doc):
                raise RuleError("on_air", "Items of this rundown are on air: take them out first (Esc).")
            self.db.delete(rundown_id, at=self.sessions.clock())
            del self.docs[rundown_id]
            if self.preview_of == rundown_id:
                self.preview_of = None
        self._tell("deleted", {"id": rundown_id})

    def edit(self, rundown_id: str, body: Any, change: Callable[[dict], dict], what: dict) -> dict:
        """One edit of a rundown's document: `change(doc)` returns the new document (the model
        refuses a locked rundown). Stored, then told."""
        with self.sessions.lock:
            doc = self.get(rundown_id)
            _check_rev(doc, body)
            new = change(doc)
            new["rev"] = doc["rev"] + 1
            self.db.write(new, at=self.sessions.clock(), journal=what)
            self.docs[rundown_id] = new
        self._after(new)
        return new

    def _after(self, doc: dict) -> None:
        self._tell("rundown", self.view(doc))
        if self.preview_of == doc["id"]:
            self._tell("preview", self.preview())

    # actions ------------------------------------------------------------------------------------

    def act(self, rundown_id: str, body: Any, source: str = "api") -> dict:
        if not isinstance(body, dict):
            raise InputError("bad_json", "Send {\"action\": …, \"item\": id or label, \"expected_rev\": n}.")
        action = body.get("action")
        if action not in ACTIONS:
            raise InputError("bad_action", f"Unknown action {action!r}. Actions: {', '.join(ACTIONS)}.",
                             action=str(action))
        extra = set(body) - {"action", "item", "expected_rev", "on"} - ({"id", "payload"} if action == "custom" else set())
        if extra:
            raise InputError("bad_field", f"Unknown field {sorted(extra)[0]!r}.", field=sorted(extra)[0])
        with self.sessions.lock:
            now = self.sessions.clock()  # one instant per action: the entry's shown_at is the journal's at
            doc = self.get(rundown_id)
            _check_rev(doc, body)
            self.preview_of = doc["id"]  # the desk being operated: `current` and the preview follow it
            ref = body.get("item")
            if action in ("next", "previous"):
                return self._store_only(doc, model.step_focus(doc, 1 if action == "next" else -1), action, True)
            if action == "focus":
                return self._store_only(doc, model.focus(doc, ref), action, True)
            if action in ("lock", "unlock"):
                return self._store_only(doc, model.set_locked(doc, action == "lock"), action)
            if action == "all_out":
                layers = self._program_layers(doc)
                if not layers:
                    return self.view(doc)
                return self._air(doc, doc, {layer: None for layer in layers}, action, source, now=now)
            if action == "take_cued":
                cued = [i for i in model.items(doc) if i["cued"]]
                if not cued:
                    raise RuleError("nothing_cued", "No item is cued: mark items with the cue button first.")
                changes: dict[str, dict | None] = {}
                for item in cued:  # in rundown order: a later item on the same layer wins
                    changes[item["layer"]] = self._entry(doc, item, now=now)
                return self._air(doc, model.clear_cues(doc, {i["id"] for i in cued}), changes, action, source, now=now)
            item = model.find_item(doc, ref if ref is not None else _focused(doc))
            if action == "cue":
                on = body.get("on")
                if on is not None and not isinstance(on, bool):
                    raise InputError("bad_field", "'on' must be true or false (absent: toggle).", field="on")
                return self._store_only(doc, model.set_cue(doc, item["id"], on), action)
            held = self.on_air_item(doc, item["id"])
            if action == "go":  # what Space does: take; continue while there are steps; out
                if held is None:
                    action = "take"
                elif self._more_steps(item, held[1].get("step", 0)):
                    action = "continue"
                else:
                    action = "out"
            if action == "take" or (action == "continue" and held is None):
                return self._air(doc, model.clear_cues(doc, {item["id"]}),
                                 {item["layer"]: self._entry(doc, item, now=now)}, "take", source, item, now=now)
            if held is None:
                raise RuleError("not_on_air", f"«{item['label']}» is not on air.", label=item["label"])
            layer, entry = held
            if action == "out":
                return self._air(doc, doc, {layer: None}, action, source, item, now=now)
            if action == "custom":  # an uploaded graphic's custom action, replayed by a page that connects late
                if not ograf_items.is_ograf(item["graphic"]) or self.ograf is None:
                    raise RuleError("no_custom_actions", f"«{item['label']}» is not an OGraf graphic: it has no custom actions.")
                actions = ograf_items.custom_action(self.ograf, item["graphic"], body.get("id"), body.get("payload"),
                                                    entry.get("actions") or [])
                return self._air(doc, doc, {layer: {**entry, "actions": actions}}, action, source, item, now=now)
            if action == "continue":
                step = entry.get("step", 0) + 1
                if not self._more_steps(item, step - 1):
                    raise RuleError("no_more_steps", f"«{item['label']}» has no further step: take it out instead.",
                                    label=item["label"])
                return self._air(doc, doc, {layer: self._entry(doc, item, keep=entry, step=step, now=now)}, action, source, item, now=now)
            # update (F5): the item's current data on air in place, same step and times
            if item["layer"] != layer:
                raise RuleError("layer_changed", f"«{item['label']}» moved to layer {item['layer']!r}: take it again.",
                                label=item["label"], layer=item["layer"])
            updated = self._entry(doc, item, keep=entry, step=entry.get("step", 0), now=now)
            if ograf_items.is_ograf(item["graphic"]):  # an uploaded graphic hears updateAction even when its data is the same
                updated["updates"] = entry.get("updates", 0) + 1
            return self._air(doc, doc, {layer: updated}, action, source, item, now=now)

    def _program_layers(self, doc: dict) -> list[str]:
        return [layer for layer, e in self.graphics.layers.items() if e.get("rundown") == doc["id"]]

    def _entry(self, doc: dict, item: dict, *, keep: dict | None = None, step: int = 0,
               now: int | None = None) -> dict:
        """What goes on the layer: the item's data with the game's fields filled in `now`."""
        now = self.sessions.clock() if now is None else now
        data = model.resolve(item["data"], model.game_values(self._public()))
        steps = model.STEPS.get(item["graphic"])
        if steps:
            data = {**data, "step": steps[step]}
        extra: dict[str, Any] = {}
        if ograf_items.is_ograf(item["graphic"]) and self.ograf is not None:
            ograf_items.check_data(self.ograf, item["graphic"], data)  # at take too: the data as it goes to air
            extra = ograf_items.entry_extra(self.ograf, item["graphic"])
            for key in ("actions", "updates"):  # kept through continue and F5: a late page replays them
                if keep and keep.get(key):
                    extra[key] = keep[key]
        out = item["out"]
        shown_at = keep["shown_at"] if keep else now
        if keep:
            expires_at = keep["expires_at"]
        elif out == "none":
            duration = data.get("duration_ms")
            expires_at = now + (duration if isinstance(duration, int) and not isinstance(duration, bool)
                                and 500 <= duration <= 60_000 else model.STING_MS)
        else:
            expires_at = now + out if isinstance(out, int) else None
        if not keep:  # a one-time credits roll goes out once it has passed, whatever the item's out
            expires_at = earliest(expires_at, natural_end(item["graphic"], data, shown_at))
        return {"rundown": doc["id"], "item": item["id"], "label": item["label"], "graphic": item["graphic"],
                "data": data, "step": step, "out": out, "stack": stack_of(item["graphic"], item.get("stack")),
                "shown_at": shown_at, "expires_at": expires_at, **extra}

    def _more_steps(self, item: dict, step: int) -> bool:
        """Whether `continue` may go past `step`: our step lists, or an uploaded graphic's `stepCount`."""
        if ograf_items.is_ograf(item["graphic"]) and self.ograf is not None:
            return ograf_items.more_steps(self.ograf, item["graphic"], step)
        return step + 1 < len(model.STEPS.get(item["graphic"], ()))

    def _public(self) -> dict | None:
        live = self.sessions.games.get(self.sessions.on_air or "")
        return self.sessions.public(live, self.sessions.clock()) if live else None

    def _store_only(self, doc: dict, new: dict, action: str, focus: bool = False) -> dict:
        new["rev"] = doc["rev"] + 1
        self.db.write(new, at=self.sessions.clock(), journal={"action": action, "focus": new["focus"]})
        self.docs[doc["id"]] = new
        if focus:
            self.preview_of = doc["id"]
        self._after(new)
        return self.view(new)

    def _air(self, doc: dict, new: dict, changes: dict[str, dict | None], action: str, source: str,
             item: dict | None = None, *, now: int) -> dict:
        """A take/continue/out/update: the layers and the rundown commit together, then both are told."""
        for layer, entry in changes.items():
            if entry is not None and entry["graphic"] not in self.names:
                raise InputError("unknown_graphic", f"Graphic {entry['graphic']!r} is not served here.", graphic=entry["graphic"])
        new = dict(new)
        new["rev"] = doc["rev"] + 1
        at = now
        record = {"action": f"rundown_{action}", "rundown": doc["id"], "item": item["id"] if item else None,
                  "layers": list(changes), "source": source}
        self.graphics.set_layers(changes, record, now=at,
                                 also=lambda db: self.db.write(new, at=at, journal={"action": action,
                                                                                   "layers": list(changes)}, db=db))
        self.docs[doc["id"]] = new
        self._after(new)
        return self.view(new)

    def on_graphics(self, change: Any) -> None:
        """Session listener: the clock took auto-out items off (or a desk take replaced a layer
        another rundown held): those rundowns' programs changed."""
        if change.kind in ("command", "undo", "time_up", "on_air"):
            # a focused game-aware item ("the captain", "the viewer") previews the game as it is now
            doc = self.docs.get(self.preview_of or "")
            if doc and doc["focus"] and any(model.TOKEN_RE.search(v) for v in model.find_item(doc, doc["focus"])["data"].values()
                                            if isinstance(v, str)):
                self._tell("preview", self.preview())
            return
        if change.kind != "graphics":
            return
        ids = {e.get("rundown") for e in change.events if str(e.get("type", "")).startswith("layer_")}
        mine = change.source != "clock" and len(ids) <= 1  # a take already told its own rundown
        if ids and not ids <= set(self.docs):  # a layer of no rundown here: every desk lists it elsewhere
            ids, mine = set(self.docs), False
        for rid in ids:
            if rid in self.docs and not mine:
                self._tell("rundown", self.view(self.docs[rid]))
        for e in change.events:
            if e.get("type") == "layer_done":
                self._tell("done", {k: e.get(k) for k in ("rundown", "item", "label", "graphic", "layer")})

    # variables (Companion keys, OSC feedback) ----------------------------------------------------

    def variables(self, rundown_id: str = "current") -> dict[str, Any]:
        """Flat values a Stream Deck key can show: the current and next item, each layer's item,
        the auto-out time left, and the on-air game's score, phase and timer."""
        from ..osc.events import state_context
        self.sessions.durable()  # a Stream Deck key an operator presses on
        now = self.sessions.clock()
        live = self.sessions.games.get(self.sessions.on_air or "")
        game = state_context(live.game if live else None, now)
        out: dict[str, Any] = {"score": f"{game['score']['experts']}:{game['score']['viewers']}",
                               "phase": game["round"]["phase"], "timer_s": game["timer"]["remaining_s"],
                               "timer_text": "{}:{:02d}".format(*divmod(game["timer"]["remaining_s"], 60)),
                               "rundown": "", "rundown_name": "", "locked": 0, "current": "", "current_id": "",
                               "next": "", "next_id": "", "on_air": "", "remaining_s": 0, "layers": {}}
        try:
            doc = self.get(rundown_id)
        except InputError:
            return out
        everything = model.items(doc)
        ids = [i["id"] for i in everything]
        at = ids.index(doc["focus"]) if doc["focus"] in ids else -1
        current = everything[at] if at >= 0 else None
        following = everything[at + 1] if at + 1 < len(everything) else None
        program = self.view(doc)["program"]
        left = [p["expires_at"] - now for p in program.values() if p.get("expires_at")]
        out.update(rundown=doc["id"], rundown_name=doc["name"], locked=int(doc["locked"]),
                   current=current["label"] if current else "", current_id=current["id"] if current else "",
                   next=following["label"] if following else "", next_id=following["id"] if following else "",
                   on_air=" · ".join(p["label"] for p in program.values()),
                   remaining_s=max(0, -(-min(left) // 1000)) if left else 0,
                   layers={layer: p["label"] for layer, p in program.items()})
        return out

    # preview ------------------------------------------------------------------------------------

    def preview(self) -> dict:
        """The focused item of the rundown last focused, as it would go to air (or why not)."""
        doc = self.docs.get(self.preview_of or "")
        if doc is None or doc["focus"] is None:
            return {"rundown": doc["id"] if doc else None, "item": None}
        item = model.find_item(doc, doc["focus"])
        try:
            entry = self._entry(doc, item)
        except RuleError as exc:
            return {"rundown": doc["id"], "item": item["id"], "label": item["label"], "error": exc.message}
        # the pictures it names, as the output's entries carry them (a media id alone draws nothing)
        return {**entry, "layer": item["layer"], "media": self.graphics.media_of(entry["data"])}


def _focused(doc: dict) -> str:
    if doc["focus"] is None:
        raise RuleError("no_focus", "No item is focused: focus one (↑/↓) or name it in 'item'.")
    return doc["focus"]


def _check_rev(doc: dict, body: Any) -> None:
    rev = body.get("expected_rev") if isinstance(body, dict) else None
    if rev is None:
        return
    if isinstance(rev, bool) or not isinstance(rev, int):
        raise InputError("bad_field", "'expected_rev' must be a whole number.", field="expected_rev")
    if rev != doc["rev"]:
        raise StaleRev("stale_rundown", f"The rundown changed (rev {doc['rev']}, your edit was based on rev {rev}): "
                                    "look at it again and redo the edit.")
