"""The application factory."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Callable

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from ..broadcast.collector import Collector
from ..config import configure
from ..graphics.game import Graphics
from .services import Services
from ..core.session import Sessions
from ..core.clock import Pace, now_ms
from ..core.store import Store

log = logging.getLogger("chgk_overlay")


def resource_dir(name: str) -> Path:
    """`templates/` and `static/` sit inside the installed package, or beside it in a checkout."""
    package = Path(__file__).resolve().parent.parent  # overlay/
    inside = package / name
    return inside if inside.is_dir() else package.parent / name


class JSONProvider(DefaultJSONProvider):
    """JSON nested deeper than Python can parse is malformed input (400), not a crash (500)."""

    def loads(self, s: str | bytes, **kwargs: object) -> object:
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None


def in_thread(mode: str) -> Callable[[Callable[[], None]], None]:
    """Starts `fn` in a real OS thread and returns at once: the event loop carries on meanwhile."""
    if mode == "eventlet":
        import eventlet
        from eventlet import tpool
        return lambda fn: eventlet.spawn_n(tpool.execute, fn)
    if mode == "gevent":
        import gevent
        return lambda fn: gevent.get_hub().threadpool.spawn(fn)
    return lambda fn: threading.Thread(target=fn, daemon=True, name="sqlite-checkpoint").start()


def base_app() -> Flask:
    """A Flask app of ours: the templates, and the static files at versioned addresses (assets.py)."""
    from . import assets
    app = Flask("overlay", template_folder=str(resource_dir("templates")), static_folder=None,
                instance_relative_config=False)
    assets.install(app, resource_dir("static"))
    return app


def create_app(test_config: dict | None = None) -> Flask:
    app = base_app()
    configure(app, test_config)
    app.json = JSONProvider(app)
    app.json.ensure_ascii = False  # UTF-8 JSON: Cyrillic stays readable in logs and tools

    store = Store(Path(app.config["DATA"]) / "chgk.sqlite3", app.config["SQLITE_SYNCHRONOUS"])
    store.checkpoint_elsewhere(in_thread(app.config["ASYNC_MODE"]))  # no command waits for a checkpoint
    from ..media.library import Media, games_using, off_loop
    if app.config["ASYNC_MODE"] == "eventlet":  # the fan-out's thread sends while the disk confirms
        store.sync_elsewhere(off_loop("eventlet"))
    sessions = Sessions(store, clock=now_ms)
    svc = Services(store, sessions, Graphics(sessions),
                   revoked_logins=set(store.get_setting("revoked_logins", [])))
    app.extensions["chgk"] = svc
    svc.media = Media(store, Path(app.config["DATA"]) / "media", clock=now_ms, offload=off_loop(app.config["ASYNC_MODE"]))
    svc.graphics.media = svc.media  # shown graphics carry their pictures' URLs
    svc.graphics.live_url = app.config.get("LIVE_URL")  # a slate's or bug's QR code names only this
    sessions.media_url = svc.media.url  # a person's `photo` may name a picture
    svc.media.users += [svc.graphics.using, lambda m: games_using(sessions, m)]

    from control import bp as control_bp

    from . import api, pages
    from ..broadcast import hub
    from ..broadcast.fanout import fanout
    from ..i18n import web as i18n
    i18n.install(app)  # gettext catalogs: Flask-Babel for pages, JSON for the browser (/i18n/<lang>.json)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    api.register_errors(app)
    app.register_blueprint(control_bp)
    from ..ograf.server_api import socket_origins
    # the page's own origin, and the operators' OGraf renderers' (OGRAF_ORIGINS: our exported graphics there)
    from .server import ping_settings
    hub.socketio.init_app(app, async_mode=app.config["ASYNC_MODE"], cors_allowed_origins=socket_origins(app),
                          **ping_settings(app))
    from . import socketlog
    socketlog.install()  # a malformed frame: one line, rate-limited (issue 37)
    # overlays' websockets, written to directly (eventlet, gevent); under eventlet from a green
    # thread of its own, while the command's fsync runs in a real thread (`sync_elsewhere`)
    fanout.install(hub.socketio.server, background=True)
    from . import proxy
    proxy.install(app)  # X-Forwarded-* from configured proxies only, Secure cookies over HTTPS, HSTS
    # the overlays before the command's fsync (they acknowledge nothing), the panels after it
    sessions.subscribe(lambda change: hub.broadcast_overlays(svc, change), early=True)
    sessions.subscribe(lambda change: hub.broadcast_panels(svc, change))
    svc.media.listeners.append(lambda media_id: hub.media_replaced(svc, media_id))

    from ..rundown import Rundowns, api as rundown_api
    svc.rundowns = Rundowns(sessions, svc.graphics)
    rundown_api.register(app, svc.rundowns)  # /api/rundowns, /api/people: the prepared show
    svc.rundowns.subscribe(lambda kind, payload: hub.rundown_changed(svc, kind, payload))
    svc.media.users.append(svc.rundowns.media_users)  # a picture an item names is not deleted
    sessions.subscribe(lambda change: svc.rundowns.on_graphics(change))
    from ..ograf import items as ograf_items, library_api as ograf_library_api
    from ..ograf.library import OgrafLibrary
    svc.ograf = OgrafLibrary(store, Path(app.config["DATA"]) / "ograf", clock=now_ms,
                             offload=off_loop(app.config["ASYNC_MODE"]))
    ograf_items.install(svc)  # rundown items "ograf:<id>"; a graphic in use is not deleted
    ograf_library_api.register(app)  # /api/ograf, /ograf/pkg/<hash>/…, /ograf/frame/<id>

    from ..osc import api as osc_api, build_bridge
    svc.osc = build_bridge(app, svc)  # OSC cues out, commands in (overlay/osc/)
    sessions.subscribe(svc.osc.on_change)
    from ..broadcast import relay
    svc.relay = relay.install(app, svc)  # --redis: public state to Redis for edges, after the fan-out
    svc.osc.rundowns = svc.osc.inbound.rundowns = svc.rundowns  # /chgk/rundown/..., rundown feedback
    svc.rundowns.subscribe(svc.osc.on_rundown)
    app.register_blueprint(osc_api.bp)

    from ..packs import api as packs_api
    packs_api.register(app)  # question packs: /api/packs, import and envelope filling
    from ..post import api as post_api
    post_api.register(app)  # after the show: as-run logs, renders of a recorded game
    from ..media import api as media_api
    media_api.register(app)  # the media library: /api/media, /media/<hash>.<ext>
    from ..ograf import export as ograf_export, server_api as ograf_api
    ograf_export.register(app)  # our graphics as an OGraf package: /ograf/export.zip, /ograf/package/
    ograf_api.register(app)  # the OGraf Server API: /ograf/v1
    from ..obs import api as obs_api
    obs_api.register(app)  # OBS control over obs-websocket (obs.toml) and /api/obs
    from . import live
    from ..graphics import themes
    live.register(app)  # the audience page /live and its QR code
    themes.register(app)  # custom themes from <data>/themes at /themes/<name>.css
    from control.admin import bp as admin_bp
    from ..season import init_season
    init_season(app, svc)  # league season, Final, «Star Wars» series: /api/seasons, /api/series, /control/admin
    app.register_blueprint(admin_bp)
    return app


IDLE_TICK_S = 1.0  # the clock's wait when nothing is timed (Pace: a change ends it at once)


def start_clock(app: Flask) -> None:
    """The server owns time: record time-ups and expire graphics every TICK_MS while something
    is timed (Pace)."""
    from ..broadcast.hub import socketio

    svc: Services = app.extensions["chgk"]
    period = app.config["TICK_MS"] / 1000
    games = svc.sessions.games

    def running() -> bool:
        return any(g.game.timer is not None and g.game.timer.running for g in games.values())

    def armed() -> bool:
        with svc.sessions.lock:
            return running() or svc.graphics.timed()

    collector = Collector(busy=running)

    # an idle server's clock wakes ~once a second, not 50 times (1.6 % of a core here)
    pace = Pace(armed, socketio.server.eio.create_event(), socketio.sleep, period, IDLE_TICK_S)

    def changed(_change: Any) -> None:
        collector.changed()
        pace.changed()

    svc.sessions.subscribe(changed)
    collector.start()

    def loop() -> None:
        failing_since = 0.0  # monotonic time of the first failure in a row; 0: the last tick was fine
        last_logged = 0.0
        while True:
            try:
                svc.sessions.tick()
                svc.graphics.expire()
                collector.tick()
                if failing_since:
                    log.warning("clock ticks work again after %.0f s", time.monotonic() - failing_since)
                    failing_since = 0.0
            except Exception:  # a failed tick must not stop the clock; the next one retries
                now = time.monotonic()
                if not failing_since:
                    failing_since = now
                if now - last_logged >= 30:  # a failure that repeats every tick is told twice a minute
                    log.exception("clock tick failed (retrying every tick; told again in 30 s if it persists)")
                    last_logged = now
            pace.wait()

    socketio.start_background_task(loop)
    if svc.relay:
        socketio.start_background_task(svc.relay.run)

    from ..osc import start_bridge
    start_bridge(app, socketio)  # OSC sender, and the receiver when --osc-listen or osc.toml says so
