"""Configuration, layered as flaskr does: defaults → `config.toml` in the data folder →
environment (`CHGK_OVERLAY_*`) → overrides given to `create_app` (tests, the CLI)."""
from __future__ import annotations

import os
import secrets
import sys
import tomllib
from pathlib import Path
from typing import Any

from flask import Flask

ENV_PREFIX = "CHGK_OVERLAY"
DEFAULTS: dict[str, Any] = {
    "DATA": "./chgk-data",
    "ASYNC_MODE": "eventlet",          # eventlet | threading | gevent
    "MAX_CONTENT_LENGTH": 1 << 20,     # request bodies over 1 MiB get 413
    "MAX_PACK_BYTES": 5 << 20,         # question packs may be larger (the parser's own limit)
    "SQLITE_SYNCHRONOUS": "FULL",
    "TICK_MS": 20,                     # the clock task's period: time-up lands within one tick
    "PASSWORD": None,
    "TOKEN": None,
    "LANGUAGE": "ru",
    "PSEUDO_LOCALE": False,            # tests: the pseudo-language qps (brackets, accents) is offered too
    "OSC_LISTEN": None,
    "OSC_TARGETS": [],
    "OSC_ALLOW": ["127.0.0.1", "::1"],
    "LOGIN_ATTEMPTS": 5,               # failed logins per address per minute before a pause
    "LOGIN_PAUSE_S": 1.0,              # the first pause after them; it doubles with each further failure ...
    "LOGIN_MAX_PAUSE_S": 30.0,         # ... up to this; a guess beyond a queue this long is held this long
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_NAME": "chgk_session",
    "SESSION_COOKIE_SECURE": False,    # also Secure whenever a request came over HTTPS (overlay/web/proxy.py)
    "PROXIES": [],                     # reverse proxies whose X-Forwarded-* we believe (addresses, networks)
    "PROXY_HOPS": 1,                   # how many proxies in a row stand in front of us
    "HSTS_SECONDS": 0,                 # Strict-Transport-Security max-age on HTTPS answers; 0: off
    "LIVE_URL": None,                  # the audience page's public address, for its QR code (overlay/web/live.py)
    "THEME": "classic",                # the house theme: overlays without ?theme=, and the sides' colours of the panel and /live
    "REDIS": None,                     # redis://HOST:PORT/DB: publish public state for edges (overlay/broadcast/relay.py)
    "REDIS_KEY": None,                 # the key writer and edges sign Redis values with (HMAC-SHA256) ...
    "REDIS_KEY_FILE": None,            # ... or a file holding it; else <data>/redis_key (the writer makes one)
    "MAX_CONNECTIONS": None,           # connections one process holds; None: its open-files limit less 10 % (overlay/web/server.py)
    "OGRAF_ORIGINS": [],               # web origins of the operators' OGraf controllers and renderers (CORS, Socket.IO)
    "PUBLIC_URL": None,                # this server's address as renderers elsewhere reach it (baked into the OGraf export)
    "HEADER_TIMEOUT": 10,              # seconds from idle to a whole request head; then the connection is closed
    "PING_INTERVAL": 25,               # seconds between Socket.IO pings to a client ...
    "PING_TIMEOUT": 20,                # ... and how long its answer may take before it is closed
}
# Values read from the environment as text, never parsed as JSON (a password "123456" stays text).
TEXT_KEYS = {"DATA", "THEME", "REDIS", "REDIS_KEY", "REDIS_KEY_FILE", "LIVE_URL", "PUBLIC_URL", "ASYNC_MODE", "PASSWORD", "TOKEN", "LANGUAGE", "OSC_LISTEN", "SQLITE_SYNCHRONOUS"}
ASYNC_MODES = ("eventlet", "threading", "gevent")


def data_dir(overrides: dict | None) -> Path:
    raw = (overrides or {}).get("DATA") or os.environ.get(f"{ENV_PREFIX}_DATA") or DEFAULTS["DATA"]
    path = Path(raw).expanduser().resolve()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)  # the database and the keys: ours alone
    return path


def configure(app: Flask, overrides: dict | None, operators: bool = True) -> None:
    app.config.update(DEFAULTS)
    data = data_dir(overrides)
    config_file = data / "config.toml"
    if config_file.exists():
        with config_file.open("rb") as f:
            app.config.update({k.upper(): v for k, v in tomllib.load(f).items()})
    for key, value in os.environ.items():
        if key.startswith(ENV_PREFIX + "_"):
            name = key[len(ENV_PREFIX) + 1:]
            app.config[name] = value if name in TEXT_KEYS else _parse_env(value)
    app.config.update(overrides or {})
    app.config["DATA"] = str(data)
    if app.config["ASYNC_MODE"] not in ASYNC_MODES:
        raise SystemExit(f"ASYNC_MODE must be one of {', '.join(ASYNC_MODES)}")
    app.config["SECRET_KEY"] = app.config.get("SECRET_KEY") or _secret(data / "secret_key", 32)
    if operators:  # an edge has no operators: nothing to log in to
        _credentials(app, data)
    if app.config.get("REDIS"):
        app.config["REDIS_KEY"] = _redis_key(app, data, make=operators)


def _parse_env(value: str) -> Any:
    import json
    try:
        return json.loads(value)
    except ValueError:
        return value


def _secret(path: Path, nbytes: int) -> str:
    """The secret kept in `path`, made on first use. An empty file (a crash or power cut while
    it was first written) counts as none; a new one is written whole or not at all."""
    if path.exists():
        value = path.read_text().strip()
        if value:
            return value
    value = secrets.token_urlsafe(nbytes)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return value


def _redis_key(app: Flask, data: Path, make: bool) -> str:
    """The key the writer signs Redis values with and its edges check (overlay/broadcast/relay.py):
    `REDIS_KEY`, else the file `REDIS_KEY_FILE`, else `<data>/redis_key`, which a writer makes on
    first use and an edge must be given (copy the file, or set the key)."""
    if app.config.get("REDIS_KEY"):
        return str(app.config["REDIS_KEY"]).strip()
    named = app.config.get("REDIS_KEY_FILE")
    path = Path(named).expanduser() if named else data / "redis_key"
    try:
        key = path.read_text().strip() if path.exists() else ""
    except OSError as exc:
        raise SystemExit(f"chgk-overlay: cannot read the Redis key file {path}: {exc.strerror or exc}")
    if key:
        return key
    if named or not make:
        raise SystemExit(f"chgk-overlay: no Redis key: {path} is missing or empty. Give the edge the writer's "
                         "key (--redis-key-file FILE, CHGK_OVERLAY_REDIS_KEY or REDIS_KEY_FILE); the writer "
                         "keeps it in <data>/redis_key.")
    key = _secret(path, 32)
    print(f"chgk-overlay: Redis signing key made (kept in {path}); give the same key to every edge",
          file=sys.stderr, flush=True)
    return key


def _credentials(app: Flask, data: Path) -> None:
    """With neither a password nor a token configured, generate a password once and keep it."""
    if app.config["PASSWORD"] or app.config["TOKEN"]:
        return
    path = data / "operator_password"
    fresh = not (path.exists() and path.read_text().strip())
    app.config["PASSWORD"] = _secret(path, 9)
    app.config["PASSWORD_FILE"] = str(path)
    if fresh:
        print(f"chgk-overlay: operator password (shown once, kept in {path}): {app.config['PASSWORD']}",
              file=sys.stderr, flush=True)
