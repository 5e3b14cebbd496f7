"""OBS control: switch OBS's program scene on game events (spin → the table scene, verdict →
the game scene, game over → the result), over obs-websocket 5.

Optional and never in the game's way. The session's listener only notes the scene wanted (the
latest wins: a switch superseded before OBS could take it is pointless); one background task
connects, identifies, switches, checks the connection now and then, and reconnects with backoff
when OBS is away. Nothing here can refuse or delay a command.

Configuration, like OSC's: `obs.toml` in the data folder —

    url = "ws://127.0.0.1:4455"        # OBS → Tools → WebSocket Server Settings
    password = "…"                     # "Server Password" there ("" when authentication is off)
    [scenes]                           # trigger = scene name ("" turns a default off)
    spin = "ЧГК · Стол"
    verdict = "ЧГК · Игра"
    game_over = "ЧГК · Итог"

— or OBS_URL / OBS_PASSWORD in config.toml or the environment (CHGK_OVERLAY_OBS_URL, …), which
win over the file. Without a URL OBS control is off.
"""
from __future__ import annotations

import logging
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.session import Change, Sessions
from .scenes import GAME, RESULT, TABLE
from .websocket import ObsAuthError, ObsError, ObsSocket, check_url

log = logging.getLogger("chgk_overlay.obs")

# Trigger → the recorded event types that fire it (a change's last mapped trigger wins, so a
# verdict that ends the game goes to the result scene).
TRIGGERS: dict[str, tuple[str, ...]] = {
    "spin": ("spun",),
    "timer_started": ("timer_started",),
    "verdict": ("judged", "club_answers"),
    "next_question": ("next_question",),
    "round_closed": ("round_closed",),
    "game_over": ("game_over",),
    "team_seated": ("team_seated",),
    "best_player": ("best_player",),
}
DEFAULT_SCENES = {"spin": TABLE, "verdict": GAME, "game_over": RESULT}
TIMEOUT_S = 2.0          # connect, handshake and each request
BACKOFF_S = (0.5, 15.0)  # first retry, longest wait between retries
AUTH_BACKOFF_S = 30.0    # a refused password will not fix itself: retry rarely
STALE_S = 5.0            # a wanted switch OBS could not take within this is dropped
HEARTBEAT_S = 10.0       # idle: ask OBS something, to notice a lost connection
TICK_S = 0.05


class ConfigError(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ObsConfig:
    url: str
    password: str = ""
    scenes: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SCENES))
    timeout_s: float = TIMEOUT_S


def parse_config(text: str, *, url: str | None = None, password: str | None = None) -> ObsConfig | None:
    """obs.toml text (may be "") plus the settings' overrides → config, or None when OBS control
    is off (no URL anywhere). Raises ConfigError naming the key."""
    try:
        raw = tomllib.loads(text) if text.strip() else {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"obs.toml is not valid TOML: {exc}") from None
    unknown = set(raw) - {"url", "password", "scenes", "timeout_s", "enabled"}
    if unknown:
        raise ConfigError(f"obs.toml: unknown key {sorted(unknown)[0]!r} (known: url, password, scenes, timeout_s, enabled)")
    if raw.get("enabled", True) is False:
        return None
    url = url or raw.get("url")
    if not url:
        return None
    if not isinstance(url, str):
        raise ConfigError("obs.toml: url must be text such as \"ws://127.0.0.1:4455\"")
    try:
        check_url(url)
    except ValueError as exc:
        raise ConfigError(f"obs.toml: url: {exc}") from None
    secret = password if password is not None else raw.get("password", "")
    if not isinstance(secret, (str, int)):
        raise ConfigError("obs.toml: password must be text")
    scenes = dict(DEFAULT_SCENES)
    given = raw.get("scenes", {})
    if not isinstance(given, dict):
        raise ConfigError("obs.toml: [scenes] must be a table of trigger = \"scene name\"")
    for trigger, scene in given.items():
        if trigger not in TRIGGERS:
            raise ConfigError(f"obs.toml: scenes.{trigger}: unknown trigger (known: {', '.join(TRIGGERS)})")
        if not isinstance(scene, str):
            raise ConfigError(f"obs.toml: scenes.{trigger}: a scene name in quotes (\"\" turns it off)")
        scenes[trigger] = scene.strip()
    timeout = raw.get("timeout_s", TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0.1 <= timeout <= 30:
        raise ConfigError("obs.toml: timeout_s must be a number of seconds from 0.1 to 30")
    return ObsConfig(url=url, password=str(secret), scenes={t: s for t, s in scenes.items() if s},
                     timeout_s=float(timeout))


def wanted_scene(change: Change, scenes: dict[str, str]) -> tuple[str, str] | None:
    """(scene, trigger) a recorded change asks for, or None."""
    found = None
    for event in change.events:
        for trigger, types in TRIGGERS.items():
            if event.get("type") in types and trigger in scenes:
                found = (scenes[trigger], trigger)
    return found


class ObsControl:
    """The object the app holds (`app.extensions["chgk_obs"]`)."""

    def __init__(self, sessions: Sessions, data_dir: str | Path, *, url: str | None = None,
                 password: str | None = None, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.sessions = sessions
        self.path = Path(data_dir) / "obs.toml"
        self.url_setting, self.password_setting = url or None, password
        self.monotonic = monotonic
        self.config: ObsConfig | None = None
        self.config_error: str | None = None
        self._lock = threading.Lock()
        self._pending: tuple[str, str, float] | None = None  # scene, reason, wanted at (monotonic)
        self._reconnect = False
        self.sock: ObsSocket | None = None
        self.state = "off"
        self.last_error: str | None = None
        self.last_switch: dict[str, Any] | None = None
        self.dropped: dict[str, Any] | None = None
        self.switches = 0
        self.obs_version: str | None = None
        self.started = False
        self.stopped = False
        self._runner: tuple[Callable[..., Any], Callable[[float], None]] | None = None
        try:
            self.reload()
        except ConfigError as exc:  # the server still starts; GET /api/obs shows what is wrong
            log.error("OBS control is off: %s", exc.message)

    # configuration ---------------------------------------------------------------------------

    def reload(self) -> ObsConfig | None:
        try:
            text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        except (OSError, UnicodeDecodeError) as exc:
            self.config_error = f"cannot read {self.path}: {exc}"
            raise ConfigError(self.config_error) from None
        try:
            config = parse_config(text, url=self.url_setting, password=self.password_setting)
        except ConfigError as exc:
            self.config_error = exc.message
            raise
        with self._lock:
            changed = config != self.config
            self.config, self.config_error = config, None
            if changed:
                self._reconnect = True
            if config is None:
                self.state = "off"
            elif self.state == "off":
                self.state = "connecting"
        self.start()
        return config

    # the session's listener: cheap, never blocks ---------------------------------------------

    def on_change(self, change: Change) -> None:
        config = self.config
        if config is None or change.kind != "command" or change.game_id != self.sessions.on_air:
            return
        wanted = wanted_scene(change, config.scenes)
        if wanted:
            self.switch(*wanted)

    def switch(self, scene: str, reason: str) -> None:
        with self._lock:
            self._pending = (scene, reason, self.monotonic())

    # the background task ---------------------------------------------------------------------

    def attach(self, spawn: Callable[..., Any], sleep: Callable[[float], None]) -> None:
        """How to run the background task; it starts now if OBS control is configured, else on
        the reload that configures it."""
        self._runner = (spawn, sleep)
        self.start()

    def start(self) -> None:
        if not self.started and self.config is not None and self._runner:
            self.started = True
            spawn, sleep = self._runner
            spawn(self.run, sleep)

    def run(self, sleep: Callable[[float], None]) -> None:
        backoff, next_try, last_try, last_seen = BACKOFF_S[0], 0.0, float("-inf"), 0.0
        while not self.stopped:
            try:
                config = self.config
                with self._lock:
                    reconnect, self._reconnect = self._reconnect, False
                if reconnect:
                    self._drop_socket()
                    next_try, backoff = 0.0, BACKOFF_S[0]
                if config is None:
                    sleep(TICK_S * 4)
                    continue
                now = self.monotonic()
                if self.sock is None:
                    self._expire(now)
                    # Backing off; a switch wanted now is worth an early try (not after a refused password).
                    early = self.state != "auth_failed" and self._peek() is not None and now - last_try >= BACKOFF_S[0]
                    if now < next_try and not early:
                        sleep(TICK_S)
                        continue
                    last_try = now
                    try:
                        self._connect(config)
                        backoff, last_seen = BACKOFF_S[0], self.monotonic()
                    except ObsAuthError as exc:
                        self._failed("auth_failed", exc.message)
                        next_try = self.monotonic() + AUTH_BACKOFF_S
                        continue
                    except ObsError as exc:
                        self._failed("away", exc.message)
                        next_try = self.monotonic() + backoff
                        backoff = min(backoff * 2, BACKOFF_S[1])
                        continue
                pending = self._take(self.monotonic())
                if pending:
                    self._send_switch(*pending)
                    last_seen = self.monotonic()
                elif self.monotonic() - last_seen >= HEARTBEAT_S:
                    self._request("GetVersion")
                    last_seen = self.monotonic()
                else:
                    sleep(TICK_S)
            except ObsError as exc:  # the connection broke mid-request: reconnect soon
                self._failed("away", exc.message)
                next_try = self.monotonic() + BACKOFF_S[0]
            except Exception:  # never let the task die: log and carry on
                log.exception("OBS control: unexpected error")
                self._drop_socket()
                sleep(1.0)

    def stop(self) -> None:
        self.stopped = True
        self._drop_socket()

    def _connect(self, config: ObsConfig) -> None:
        with self._lock:
            self.state = "connecting"
        sock = ObsSocket(config.url, config.password, timeout=config.timeout_s)
        hello = sock.connect()
        with self._lock:
            self.sock = sock
            self.state, self.last_error = "connected", None
            self.obs_version = hello.get("obsWebSocketVersion")
        log.info("OBS control: connected to %s (obs-websocket %s)", config.url, self.obs_version)

    def _request(self, request_type: str, data: dict | None = None) -> dict:
        sock = self.sock
        if sock is None:
            raise ObsError("not connected to OBS")
        return sock.request(request_type, data)

    def _send_switch(self, scene: str, reason: str, wanted_at: float) -> None:
        try:
            self._request("SetCurrentProgramScene", {"sceneName": scene})
        except ObsError as exc:
            if self.sock is None or not self.sock.connected:
                with self._lock:  # the connection broke: try again after reconnecting, unless newer
                    if self._pending is None:
                        self._pending = (scene, reason, wanted_at)
                raise
            with self._lock:  # OBS answered but refused (a scene it does not have): say so
                self.last_error = (f"{exc.message}. Import obs_scenes/ or name your scenes in "
                                   f"[scenes] of {self.path.name}." if exc.code == 600 else exc.message)
            return
        with self._lock:
            self.switches += 1
            self.last_switch = {"scene": scene, "reason": reason, "at": self.sessions.clock(),
                                "delay_ms": round((self.monotonic() - wanted_at) * 1000)}
            self.last_error = None

    def _peek(self) -> tuple[str, str, float] | None:
        with self._lock:
            return self._pending

    def _take(self, now: float) -> tuple[str, str, float] | None:
        self._expire(now)
        with self._lock:
            pending, self._pending = self._pending, None
        return pending

    def _expire(self, now: float) -> None:
        with self._lock:
            if self._pending and now - self._pending[2] > STALE_S:
                scene, reason, _ = self._pending
                self._pending = None
                self.dropped = {"scene": scene, "reason": reason, "at": self.sessions.clock()}

    def _failed(self, state: str, message: str) -> None:
        self._drop_socket()
        with self._lock:
            first = self.last_error != message
            self.state, self.last_error = state, message
        if first:  # once per distinct problem: a studio without OBS is not a log flood
            log.warning("OBS control: %s", message)

    def _drop_socket(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()

    # status for the panel --------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        config = self.config
        with self._lock:
            pending = self._pending
            return {
                "configured": config is not None,
                "url": config.url if config else None,
                "password_set": bool(config and config.password),
                "state": self.state,  # off | connecting | connected | away | auth_failed
                "connected": self.state == "connected",
                "obs_websocket_version": self.obs_version,
                "scenes": dict(config.scenes) if config else {},
                "triggers": list(TRIGGERS),
                "pending": {"scene": pending[0], "reason": pending[1]} if pending else None,
                "last_switch": self.last_switch,
                "dropped": self.dropped,
                "switches": self.switches,
                "last_error": self.last_error,
                "config": {"path": str(self.path), "exists": self.path.exists(), "error": self.config_error},
            }
