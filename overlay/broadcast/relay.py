"""The writer's side of scale-out (`serve --redis URL`): public state to Redis for the edges.

We use redis-py directly rather than python-socketio's Redis client manager. The manager relays
each `emit` through pub/sub to every server, the writer included: the writer's own overlays
would then hear a change only after a round trip through Redis, bypassing the direct fan-out
(overlay/broadcast/fanout.py), and a message pub/sub drops is lost for good — the manager keeps no state.
Here an edge is a view of views (docs/ARCHITECTURE.md §9): the writer stores the latest public
state of every game, what is on air and the graphics under fixed keys, and publishes each change
with its `epoch` (this writer's start) and a message `seq`; a heartbeat re-announces the revs.
An edge that misses a message sees a gap in `seq` (or a heartbeat naming a newer rev) and reads
the stored state again — correctness never depends on pub/sub delivering everything.

Every value stored and every message published is signed (`Signer`: HMAC-SHA256 under the key the
writer and its edges share, `REDIS_KEY`), so whoever can write to Redis without the key cannot
change what the audience sees: an edge drops what does not verify and waits for the writer's
next signed state. The games are stored again every `RESTORE_S`, so a forged stored value is
replaced within that time even when nothing changes.

Nothing here runs on the command's path: the session listener only marks what changed and wakes
a background task, which publishes after the local fan-out has already been written.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..core.session import Change

log = logging.getLogger("chgk_overlay.relay")

PREFIX = "chgk:"
CHANNEL = PREFIX + "changes"   # pub/sub: {"epoch", "seq", "kind": "state"|"graphics"|"heartbeat", ...}
GAMES = PREFIX + "games"       # hash: game id -> public state (JSON, with "epoch")
META = PREFIX + "meta"         # string: {"epoch", "seq", "on_air", "graphics", "revs", "league_rev"}
LEAGUE = PREFIX + "league"     # string: the public league views {"epoch", "rev", "index", "seasons", "series"}
HEARTBEAT_S = 0.5              # an edge that hears nothing for 4 heartbeats reconnects and resyncs
RESTORE_S = 10.0               # every game's state stored again: a forged value does not outlive it
MAX_COUNT = 2**53 - 1          # epoch, seq and revs are integers in [0, MAX_COUNT] (exact in JSON)


class BadSignature(ValueError):
    """A value in Redis that the writer did not sign with our key (or that was changed since)."""


class Signer:
    """`sign(where, text)` → "<hex HMAC-SHA256>.<text>"; `verify` gives the text back or raises.
    `where` (the key or channel) is signed too, so a signed value cannot be moved elsewhere."""

    def __init__(self, key: str) -> None:
        if not key:
            raise ValueError("the Redis signing key is empty")
        self.key = key.encode()

    def _mac(self, where: str, text: str) -> str:
        return hmac.new(self.key, where.encode() + b"\n" + text.encode(), hashlib.sha256).hexdigest()

    def sign(self, where: str, text: str) -> str:
        return f"{self._mac(where, text)}.{text}"

    def verify(self, where: str, value: Any) -> str:
        if not isinstance(value, str) or len(value) < 65 or value[64] != ".":
            raise BadSignature("not signed")
        text = value[65:]
        if not hmac.compare_digest(value[:64], self._mac(where, text)):
            raise BadSignature("bad signature")
        return text


def redact(url: str) -> str:
    """A Redis URL fit for logs: the password (AUTH/ACL) replaced by ***."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def connect(url: str) -> Any:
    """A redis-py client that fails fast: a down Redis must cost a task a second, not a minute."""
    import redis

    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=1, decode_responses=True)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Relay:
    """Publishes public state for edges. `on_change` is a session listener; `run` is the task."""

    def __init__(self, url: str, svc: Any, key: str,
                 league: Callable[[], dict | None] = lambda: None) -> None:
        self.url = url
        self.shown_url = redact(url)
        self.signer = Signer(key)
        self.svc = svc
        self.league = league              # the public league views, made on demand
        self.redis = connect(url)
        self.epoch: int = svc.sessions.epoch
        self.seq = 0
        self.dirty: set[str] = set()      # game ids whose public state changed
        self.dirty_meta = True            # on air or graphics changed
        self.dirty_league = True          # league data changed (overlay/season notifies)
        self.league_rev = 0
        self.rewrite = True               # store everything (first run, or Redis lost it)
        self.wake = threading.Event()     # green under eventlet and gevent (monkey-patched)
        self.latest: dict[str, str] = {}  # game id -> the JSON last stored
        self.league_text: str | None = None  # the league value last stored (signed)
        self.next_restore = time.monotonic() + RESTORE_S
        self.failing_since = 0.0
        self.published = 0

    # session listener: cheap, on the command's path ------------------------------------------

    def on_change(self, change: Change) -> None:
        if change.kind == "moment":
            return
        if change.kind == "graphics":
            self.dirty_meta = True
        elif change.kind == "on_air":
            # a finished game leaving the air loses its texts (RULES.md §6): every view may change
            self.dirty.update(self.svc.sessions.games)
            self.dirty_meta = True
        elif change.game_id:
            self.dirty.add(change.game_id)
        self.wake.set()

    def league_changed(self, *_: Any) -> None:
        self.dirty_league = True
        self.wake.set()

    # background task ----------------------------------------------------------------------------

    def run(self) -> None:
        next_beat = 0.0
        while True:
            self.wake.wait(HEARTBEAT_S)
            self.wake.clear()
            try:
                if self.dirty or self.dirty_meta:
                    self.publish_changes()
                if self.dirty_league:
                    self.publish_league()
                if time.monotonic() >= next_beat:
                    self.heartbeat()
                    next_beat = time.monotonic() + HEARTBEAT_S
                if self.failing_since:
                    log.warning("Redis at %s reachable again after %.1f s", self.shown_url,
                                time.monotonic() - self.failing_since)
                    print(f"chgk-overlay: Redis at {self.shown_url} reachable again", file=sys.stderr, flush=True)
                    self.failing_since = 0.0
            except Exception as exc:  # noqa: BLE001 - Redis down or restarting: retry each heartbeat
                if not self.failing_since:
                    self.failing_since = time.monotonic()
                    print(f"chgk-overlay: cannot publish to Redis at {self.shown_url} ({exc}); edges keep the "
                          f"last state, retrying every {HEARTBEAT_S} s", file=sys.stderr, flush=True)
                self.rewrite = True
                next_beat = time.monotonic() + HEARTBEAT_S

    def _views(self, ids: set[str] | None) -> dict[str, str]:
        """Public state JSON of `ids` (all games when None), made at one moment under the lock."""
        sessions = self.svc.sessions
        with sessions.lock:
            now = sessions.clock()
            games = sessions.games
            wanted = games.keys() if ids is None else [i for i in ids if i in games]
            return {i: dumps(sessions.public(games[i], now)) for i in wanted}

    def _meta(self) -> dict:
        sessions = self.svc.sessions
        return {"epoch": self.epoch, "seq": self.seq, "on_air": sessions.on_air,
                "graphics": self.svc.graphics.payload(),
                "revs": {i: g.rev for i, g in list(sessions.games.items())}, "league_rev": self.league_rev}

    def publish_changes(self) -> None:
        ids, self.dirty = self.dirty, set()
        meta_changed, self.dirty_meta = self.dirty_meta, False
        views = self._views(ids)
        pipe = self.redis.pipeline(transaction=True)
        for game_id, text in views.items():
            self.seq += 1
            pipe.hset(GAMES, game_id, self.signer.sign(GAMES, text))
            self._publish(pipe, f'{{"epoch":{self.epoch},"seq":{self.seq},"kind":"state","state":{text}}}')
        if meta_changed:
            self.seq += 1
            meta = self._meta()
            pipe.set(META, self.signer.sign(META, dumps(meta)))
            self._publish(pipe, dumps({"epoch": self.epoch, "seq": self.seq, "kind": "meta",
                                       "on_air": meta["on_air"], "graphics": meta["graphics"]}))
        try:
            pipe.execute()
        except Exception:
            self.dirty |= ids  # told again once Redis answers (the rewrite stores everything anyway)
            self.dirty_meta |= meta_changed
            raise
        self.latest.update(views)
        self.published += len(views) + meta_changed

    def _publish(self, pipe: Any, text: str) -> None:
        pipe.publish(CHANNEL, self.signer.sign(CHANNEL, text))

    def publish_league(self) -> None:
        self.dirty_league = False
        try:
            views = self.league()
        except Exception:  # noqa: BLE001 - the league's own store failing must not stop the relay
            log.exception("could not make the public league views for the edges")
            return
        if views is None:
            return
        self.league_rev += 1
        self.seq += 1
        pipe = self.redis.pipeline(transaction=True)
        text = self.signer.sign(LEAGUE, dumps({"epoch": self.epoch, "rev": self.league_rev, **views}))
        pipe.set(LEAGUE, text)
        self._publish(pipe, dumps({"epoch": self.epoch, "seq": self.seq, "kind": "league",
                                   "league_rev": self.league_rev}))
        try:
            pipe.execute()
        except Exception:
            self.dirty_league = True
            raise
        self.league_text = text

    def heartbeat(self) -> None:
        """Re-announce: the revs an edge should have. Store everything again when Redis has lost
        it (a restart without persistence) or holds another writer's state; every `RESTORE_S`
        store the games (and the league) again as they are, which undoes a forged stored value."""
        if not self.rewrite:
            stored = self.redis.hlen(GAMES)
            self.rewrite = stored != len(self.svc.sessions.games)
        pipe = self.redis.pipeline(transaction=True)
        restore = time.monotonic() >= self.next_restore
        if self.rewrite or restore:
            views = self._views(None)
            if self.rewrite:
                self.dirty_league = True  # stored again right after this heartbeat
                pipe.delete(GAMES)
            elif self.league_text:
                pipe.set(LEAGUE, self.league_text)
            if views:
                pipe.hset(GAMES, mapping={i: self.signer.sign(GAMES, t) for i, t in views.items()})
            self.latest = views
        self.seq += 1
        meta = self._meta()
        pipe.set(META, self.signer.sign(META, dumps(meta)))
        self._publish(pipe, dumps({"epoch": self.epoch, "seq": self.seq, "kind": "heartbeat",
                                   "on_air": meta["on_air"], "revs": meta["revs"],
                                   "graphics_seq": meta["graphics"]["seq"], "league_rev": self.league_rev}))
        pipe.execute()
        self.rewrite = False
        if restore:
            self.next_restore = time.monotonic() + RESTORE_S


def install(app: Any, svc: Any) -> Relay | None:
    url = app.config.get("REDIS")
    if not url:
        return None
    relay = Relay(url, svc, app.config["REDIS_KEY"], lambda: league_views(app))
    svc.sessions.subscribe(relay.on_change)  # after the hub's broadcast: local overlays first
    return relay


def league_views(app: Any) -> dict | None:
    """What the public league endpoints (`/api/public/...`) answer, for every season and series."""
    from ..season import EXTENSION
    from ..season import public

    lg = app.extensions.get(EXTENSION)
    if lg is None:
        return None
    seasons = lg.seasons.all()
    series = lg.series.all()
    return {"index": {"seasons": [{"id": s["id"], "name": s["name"]} for s in seasons], "series": series},
            "seasons": {s["id"]: public.season(lg.seasons, lg.results, s["id"], None) for s in seasons},
            "series": {x["id"]: public.series(lg.series, x["id"]) for x in series}}
