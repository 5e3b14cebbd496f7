"""What the OBS control tests share: a server with OBS control configured, a game on air, timed
commands and waiting on /api/obs."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.support import Server

SPEC = {"rules": "tv", "title": "OBS", "target": 6, "timers": {"minute": 60_000},
        "sectors": [{"number": n, "kind": "regular", "questions": [{"text": f"Вопрос {n}", "answer": f"Ответ {n}"}]}
                    for n in range(1, 14)]}


def start_server(tmp_path: Path, *, url: str, password: str | None = None, toml: str = "") -> Server:
    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    if toml:
        (data / "obs.toml").write_text(toml, encoding="utf-8")
    env = {"CHGK_OVERLAY_OBS_URL": url}
    if password is not None:
        env["CHGK_OVERLAY_OBS_PASSWORD"] = password
    return Server(data, demo=False, env=env).start()


def on_air_game(srv: Server, target: int = 6) -> str:
    game = srv.create({**SPEC, "target": target})
    assert srv.call("PUT", "/api/on-air", {"game": game}).status_code == 200
    return game


def timed(srv: Server, game: str, **command) -> float:
    """Sends a command that must be accepted; the seconds its answer took."""
    t = time.monotonic()
    r = srv.command(game, **command)
    assert r.status_code == 200, r.text
    return time.monotonic() - t


def obs_status(srv: Server) -> dict:
    r = srv.call("GET", "/api/obs")
    assert r.status_code == 200, r.text
    return r.json()


def wait_status(srv: Server, predicate: Callable[[dict], object], timeout: float = 10.0) -> dict:
    """/api/obs once `predicate` holds, or as it is at the deadline (the caller asserts)."""
    deadline = time.monotonic() + timeout
    while True:
        status = obs_status(srv)
        if predicate(status) or time.monotonic() > deadline:
            return status
        time.sleep(0.05)
