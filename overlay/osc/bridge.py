"""The OSC bridge: one object the app holds (`Services.osc`). It listens to the sessions for
cues, owns `osc.toml` (load, check, replace, reload), the sender, the inbound receiver and the
feedback to subscribed surfaces, and reports all of it for the panel."""
from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from ..graphics.game import Graphics
from ..core.session import Change, Sessions
from ..core.store import StorageError
from .config import EXAMPLE, ConfigError, OscConfig, Target, cli_targets, host_port, parse_config
from .events import EVENTS, CueEvent, cue_events, state_context
from .feedback import DROP_AFTER_ERRORS, Surfaces, rundown_messages, state_messages, timer_messages
from .inbound import Inbound, Receiver
from .runtime import Runtime
from .sender import Outgoing, Sender
from .template import TemplateError, build, coerce, render, resolve

log = logging.getLogger("chgk_overlay.osc")
FEEDBACK_PERIOD_S = 0.25


class OscBridge:
    def __init__(self, sessions: Sessions, graphics: Graphics, data_dir: str | Path, *,
                 listen: str | None = None, allow: list[str] | None = None, targets: list[str] | None = None) -> None:
        self.sessions, self.graphics = sessions, graphics
        self.path = Path(data_dir) / "osc.toml"
        self.cli = cli_targets(list(targets or []))
        self.default_allow = list(allow if allow is not None else ["127.0.0.1", "::1"])
        self.config: OscConfig = parse_config("", self.cli)  # the generic targets, whatever osc.toml holds
        self.config_error: str | None = None
        self.loaded_at: int | None = None
        self.sender = Sender(clock_ms=sessions.clock)
        self.surfaces = Surfaces()
        self.inbound = Inbound(sessions, graphics, self.default_allow, on_subscribe=self._subscribe)
        self.flag_listen = listen
        self.receiver: Receiver | None = None
        self.started = False
        self.started_listen: str | None = None
        self._last_timer: tuple | None = None
        self.rundowns: Any = None  # overlay.rundown.Rundowns (set by the app): its feedback and inbound actions
        self._rundown_layers: set[str] = set()
        self._last_remaining: tuple | None = None
        self._last_state: dict | None = None
        try:
            self.reload()
        except ConfigError as exc:  # the server still starts; the panel shows what is wrong
            log.error("OSC: %s is not used: %s", self.path, exc.message)

    # configuration ---------------------------------------------------------------------------------

    def _apply(self, config: OscConfig) -> None:
        self.config = config
        self.inbound.set_allow(list(config.allow) if config.allow is not None else self.default_allow)
        self.sender.forget(set(config.targets))
        self.config_error = None
        self.loaded_at = self.sessions.clock()

    def reload(self) -> OscConfig:
        """Read osc.toml again; a bad file raises ConfigError and the running config stays."""
        try:
            text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        except (OSError, UnicodeDecodeError) as exc:
            self.config_error = f"cannot read {self.path}: {exc}"
            raise ConfigError(self.config_error) from None
        try:
            config = parse_config(text, self.cli)
        except ConfigError as exc:
            self.config_error = exc.message
            raise
        self._apply(config)
        return config

    def replace(self, text: str) -> OscConfig:
        """Check new osc.toml text; only a valid one is written (atomically) and applied."""
        config = parse_config(text, self.cli)
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".osc-", suffix=".toml", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:  # disk full, read-only data folder: refused, the old file stays
            if tmp:
                Path(tmp).unlink(missing_ok=True)
            raise StorageError(exc) from exc
        self._apply(config)
        return config

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8") if self.path.exists() else EXAMPLE

    @property
    def listen(self) -> str | None:
        return self.flag_listen or self.config.listen

    # outbound ----------------------------------------------------------------------------------------

    def on_change(self, change: Change) -> None:
        """Session listener: render the cues of one change and queue them. Never raises, never waits."""
        try:
            if change.kind != "graphics" and change.game_id != self.sessions.on_air:
                return
            events = cue_events(change)
            game = change.after if change.kind != "graphics" else self._on_air_game()
            items = self._render(events, game)
            if change.kind != "graphics":
                items += self._feedback(state_messages(game, change.rev, self.sessions.clock()))
            else:
                items += self._rundown_feedback()
            self.sender.submit(items)
        except Exception:
            log.exception("OSC: cues for a %s change failed", change.kind)

    def fire(self, name: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
        """Send one event's cues now, as if it had happened (the panel's "test" button)."""
        spec = EVENTS[name]
        sample = {n: fields.get(n, 0 if t == "int" else "") for n, t in spec.fields}
        items = self._render([CueEvent(name, sample)], self._on_air_game())
        self.sender.submit(items)
        return [{"target": i.target, "address": i.address, "args": [v for _, v in i.args], "delay_ms": i.delay_ms}
                for i in items]

    def _on_air_game(self) -> Any:
        self.sessions.durable()  # control surfaces show it to operators
        live = self.sessions.games.get(self.sessions.on_air or "")
        return live.game if live else None

    def _render(self, events: list[CueEvent], game: Any) -> list[Outgoing]:
        config = self.config
        state = state_context(game, self.sessions.clock())
        items: list[Outgoing] = []
        for event in events:
            for cue in config.cues.get(event.name, ()):
                target = config.targets.get(cue.target)
                if target is None or not target.enabled or not cue.matches(event.fields):
                    continue
                ctx = {**state, **event.fields, "event": event.name, "vars": target.vars}
                try:
                    address = render(cue.address, ctx)
                    args = [(a.type, coerce(a.type, resolve(a.value, ctx))) for a in cue.args]
                    dgram = build(address, args)
                except TemplateError as exc:
                    self.sender.note(target.name, {"event": event.name, "address": cue.address, "args": []},
                                     f"{cue.origin}: {exc}")
                    continue
                items.append(Outgoing(target.name, target.host, target.port, address, args, dgram,
                                      event.name, cue.delay_ms, target.passcode))
        return items

    # feedback to surfaces ----------------------------------------------------------------------------

    def _feedback(self, messages: list[tuple[str, list]], surfaces: list | None = None) -> list[Outgoing]:
        out = []
        for surface in surfaces if surfaces is not None else self.surfaces.all():
            if self._dead(surface):
                continue
            out += [Outgoing(surface.name, surface.host, surface.port, address, args, build(address, args), "state")
                    for address, args in messages]
        return out

    def on_rundown(self, kind: str, payload: dict) -> None:
        """Rundown listener: a change of the current rundown (focus, lock, program) to the surfaces."""
        if kind not in ("rundown", "deleted"):
            return
        try:
            self.sender.submit(self._rundown_feedback() + self._rundown_state())
        except Exception:
            log.exception("OSC: rundown feedback failed")

    def _rundown_state(self, force: bool = False) -> list[Outgoing]:
        """The `rundown_state` cue (Companion's custom variables), when its values changed."""
        if self.rundowns is None:
            return []
        v = self.rundowns.variables()
        if not v["rundown"] and self._last_state is None:
            return []  # no rundown yet: nothing to say
        fields = {"current": v["current"], "next": v["next"], "on_air": v["on_air"],
                  "remaining_s": v["remaining_s"], "locked": v["locked"]}
        if fields == self._last_state and not force:
            return []
        self._last_state = fields
        return self._render([CueEvent("rundown_state", fields)], self._on_air_game())

    def _rundown_feedback(self, surfaces: list | None = None) -> list[Outgoing]:
        if self.rundowns is None or not (surfaces if surfaces is not None else self.surfaces.all()):
            return []
        values = self.rundowns.variables()
        gone, self._rundown_layers = self._rundown_layers, set(values["layers"])
        return self._feedback(rundown_messages(values, gone), surfaces)

    def _dead(self, surface: Any) -> bool:
        if self.sender.refusals(surface.name) < DROP_AFTER_ERRORS:
            return False
        self.surfaces.remove(surface.host, surface.port)
        self.sender.reset(surface.name)
        log.info("OSC: %s keeps refusing; unsubscribed", surface.name)
        return True

    def _subscribe(self, host: str, port: int, on: bool) -> None:
        if not on:
            self.surfaces.remove(host, port)
            self.sender.reset(f"surface {host}:{port}")
            return
        surface = self.surfaces.add(host, port)
        self.sender.reset(surface.name)  # a fresh start: earlier refusals are forgotten
        self.sessions.durable()
        live = self.sessions.games.get(self.sessions.on_air or "")
        messages = state_messages(live.game if live else None, live.rev if live else 0, self.sessions.clock())
        self.sender.submit(self._feedback(messages, [surface]) + self._rundown_feedback([surface]))

    def _tick(self, sleep: Any) -> None:
        """While a timer runs, surfaces get `/chgk/state/timer` each time the second changes."""
        while True:
            try:
                if self.surfaces.all():
                    game = self._on_air_game()
                    now = self.sessions.clock()
                    timer = state_context(game, now)["timer"]
                    key = (self.sessions.on_air, timer["remaining_s"], timer["running"], timer["kind"])
                    if key != self._last_timer:
                        self._last_timer = key
                        self.sender.submit(self._feedback(timer_messages(game, now)))
                    if self.rundowns is not None:  # an auto-out item's seconds left, as they change
                        values = self.rundowns.variables()
                        left = (values["rundown"], values["remaining_s"])
                        if left != self._last_remaining:
                            self._last_remaining = left
                            self.sender.submit(self._feedback([("/chgk/state/rundown/remaining",
                                                                [("int", values["remaining_s"])])]))
            except Exception:
                log.exception("OSC feedback tick failed")
            try:
                if self.rundowns is not None:  # an auto-out item's seconds left, to the cue targets
                    self.sender.submit(self._rundown_state())
            except Exception:
                log.exception("OSC rundown state tick failed")
            sleep(FEEDBACK_PERIOD_S)

    # running -------------------------------------------------------------------------------------------

    def start(self, runtime: Runtime) -> None:
        """Start the sender, and the receiver when a listen address is set (flag or osc.toml)."""
        if self.started:
            return
        self.started, self.started_listen = True, self.listen
        self.sender.start(runtime)
        runtime.spawn(self._tick, runtime.sleep)
        if self.listen:
            try:
                host, port = host_port(self.listen, "listen")
            except ConfigError as exc:
                log.error("OSC: %s", exc.message)
                return
            self.receiver = Receiver(host, port, self.inbound)
            if self.receiver.open():
                runtime.spawn(self.receiver.run, runtime.sleep)

    # reporting -----------------------------------------------------------------------------------------

    def _target_view(self, t: Target) -> dict[str, Any]:
        cues = sum(1 for cs in self.config.cues.values() for c in cs if c.target == t.name)
        return {"name": t.name, "host": t.host, "port": t.port, "origin": t.origin, "presets": list(t.presets),
                "enabled": t.enabled, "passcode": bool(t.passcode), "vars": dict(t.vars), "cues": cues,
                **self.sender.view(t.name)}

    def status(self) -> dict[str, Any]:
        receiver = self.receiver
        listen = {"address": receiver.address if receiver else self.listen,
                  "listening": bool(receiver and receiver.sock), "error": receiver.error if receiver else None,
                  **self.inbound.view()}
        return {
            "running": self.started,
            "listen": listen,
            "targets": [self._target_view(t) for t in self.config.targets.values()],
            "surfaces": [{"address": f"{s.host}:{s.port}", "since": s.since, **self.sender.view(s.name)}
                         for s in self.surfaces.all()],
            "config": self.config_view(),
        }

    def config_view(self) -> dict[str, Any]:
        return {"path": str(self.path), "exists": self.path.exists(), "loaded_at": self.loaded_at,
                "error": self.config_error, "cues": self.config.count(), "targets": list(self.config.targets),
                "listen": self.config.listen, "allow": list(self.config.allow) if self.config.allow is not None else None,
                "restart_needed": self.started and self.listen != self.started_listen}
