"""`chgk-overlay edge`: a read-only server of the public side, fed from Redis.

It serves the overlay pages, static files, themes, the audience page `/live`, the public reads
of the API and the `/overlay` namespace, from the `Mirror` the `Feed` keeps (mirror.py). It
holds no database and takes no change: commands, logins and `/control` are for the writer.
"""
from __future__ import annotations

import sys

from flask import Flask

from ..web.app import JSONProvider, base_app
from ..config import configure
from .mirror import Feed, Mirror


def create_edge_app(test_config: dict | None = None) -> Flask:
    app = base_app()
    configure(app, test_config, operators=False)
    app.config["EDGE"] = True
    app.json = JSONProvider(app)
    app.json.ensure_ascii = False
    mirror = Mirror()
    app.extensions["chgk_edge"] = mirror

    from ..web import live, pages, proxy
    from ..graphics import themes
    from ..broadcast.fanout import fanout
    from ..i18n import web as i18n
    from . import api, hub
    i18n.install(app)  # the catalogs: overlays' and the audience page's words
    app.register_blueprint(pages.bp)
    live.register(app)
    themes.register(app)
    app.register_blueprint(api.bp)
    api.register_refusals(app)
    from ..web.server import ping_settings
    hub.socketio.init_app(app, async_mode=app.config["ASYNC_MODE"], **ping_settings(app))
    from ..web import socketlog
    socketlog.install()  # a malformed frame: one line, rate-limited (issue 37)
    fanout.install(hub.socketio.server)
    hub.wire(mirror)
    proxy.install(app)
    return app


def start_feed(app: Flask) -> Feed:
    from .hub import socketio

    def say(text: str) -> None:
        print(f"chgk-overlay edge: {text}", file=sys.stderr, flush=True)

    feed = Feed(app.config["REDIS"], app.extensions["chgk_edge"], say, app.config["REDIS_KEY"])
    app.extensions["chgk_feed"] = feed
    socketio.start_background_task(feed.run)
    return feed
