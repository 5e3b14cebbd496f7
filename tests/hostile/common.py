"""Shared by the hostile-input tests: a server seeded with one of everything (games of both
rules, a season with a holding and a registration, a member, a series, a pack), a snapshot of
everything a refused input must leave alone, and a check that screens can still connect."""
from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import socketio
from hypothesis import strategies as st
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from tests.faults.helpers import tv_spec
from tests.support import TOKEN, Server

AUTH = {"Authorization": f"Bearer {TOKEN}"}
SEEDED: weakref.WeakSet[Seeded] = weakref.WeakSet()  # forgotten at each test's start (conftest.py)
PACK = "? Текст вопроса.\n! Ответ.\n/ Комментарий.\n@ Автор (Город)\n".encode()


def keep_alive_session() -> requests.Session:
    """The operators' token on one kept-alive connection: a snapshot is a dozen GETs, and a new
    connection for each cost both sides about three times the CPU of the GETs themselves. A GET
    on a pooled connection the server has just closed (its idle timeout) is sent again."""
    http = requests.Session()
    http.trust_env = False  # as Server.http: nothing from the environment, looked up per request
    http.headers.update(AUTH)
    http.mount("http://", HTTPAdapter(max_retries=Retry(total=2, allowed_methods=frozenset({"GET"}),
                                                        status_forcelist=(), raise_on_status=False)))
    return http


@dataclass(eq=False)  # kept in SEEDED by identity
class Seeded:
    srv: Server
    ids: dict[str, list[str]] = field(default_factory=dict)
    http: requests.Session = field(default_factory=keep_alive_session)  # GETs that look, never change
    # the state as the last comparison found it unchanged, an input ago; None once an input may
    # have changed it (see before_input)
    known: dict | None = None

    def __post_init__(self) -> None:
        SEEDED.add(self)

    @property
    def url(self) -> str:
        return self.srv.url


def club_spec(day: str = "2026-03-01-sun") -> dict:
    teams = [{"id": f"t{i}", "name": f"Команда {i}", "players": [f"Игрок {i}.{j}" for j in range(1, 7)]}
             for i in range(1, 5)]
    return {"rules": "club", "title": "Клубная игра", "teams": teams, "game_day": day,
            "timers": {"minute": 600_000, "blitz": 600_000, "club_help": 600_000, "extra_minute": 600_000}}


def ok(r: requests.Response) -> Any:
    assert r.status_code in (200, 201), f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:300]}"
    return r.json()


def seed(srv: Server) -> Seeded:
    call = srv.call
    tv = srv.create(tv_spec())
    other = srv.create(tv_spec("Вторая", experts={"name": "Команда Петрова", "players": ["Ия", "Ян", "Ева"],
                                                  "captain": "Ия"}))
    club = srv.create(club_spec())
    ok(call("PUT", "/api/on-air", {"game": tv}))
    ok(srv.command(tv, type="spin", landed=2))
    season = ok(call("POST", "/api/seasons", {"name": "Сезон"}))["id"]
    days = ok(call("POST", f"/api/seasons/{season}/days", {"day": 1, "sunday": "2026-03-01", "confirm": True}))["days"]
    holding = days[0]["holdings"][0]["id"]
    member = ok(call("POST", "/api/members", {"name": "Анна Ли", "adult": True}))["id"]
    ok(call("POST", f"/api/members/{member}/status", {"status": "approved", "date": "2026-02-01",
                                                       "reason": "анкета принята"}))
    reg = ok(call("POST", f"/api/holdings/{holding}/registrations", {"member": member}))
    rid = (reg.get("registration") or reg).get("id")
    series = ok(call("POST", "/api/series", {"name": "Звёздные войны", "duels": [[tv, other]]}))["id"]
    pack = ok(requests.post(srv.url + "/api/packs?filename=p.4s", data=PACK, headers=AUTH, timeout=30))["id"]
    ids = {"game_id": [tv, other, club], "sid": [season], "hid": [holding], "mid": [str(member)],
           "rid": [str(rid)], "xid": [series], "pack_id": [pack], "tid": ["t1"],
           "name": ["scoreboard", "timer", "full"], "filename": ["classic.css", "themes/classic.css", "lib/client.js"]}
    return Seeded(srv, ids)


@contextmanager
def seeded_server(folder: Path, *args: str) -> Iterator[Seeded]:
    """A server without the demo game, with these command-line `args`, seeded; stopped afterwards."""
    srv = Server(folder / "data", demo=False, args=args).start()
    seeded = None
    try:
        seeded = seed(srv)
        yield seeded
    finally:
        if seeded:
            seeded.http.close()
        srv.stop()


def snapshot(seeded: Seeded) -> dict:
    """Everything an input may change; a refused input must leave all of it as it was."""
    get = lambda path: seeded.http.get(seeded.url + path, timeout=30).json()  # noqa: E731
    games = get("/api/games")
    logs = {g["id"]: len(get(f"/api/games/{g['id']}/log")["events"]) for g in games["games"]}
    graphics = get("/api/graphics")
    graphics.pop("server_now", None)
    return {
        "games": sorted((g["id"], g["rev"]) for g in games["games"]),
        "logs": logs,
        "on_air": games["on_air"],
        "graphics": graphics,
        "osc": get("/api/osc/config")["toml"],
        "packs": get("/api/packs"),
        "seasons": get("/api/seasons"),
        "members": get("/api/members"),
        "series": get("/api/series"),
        "actions": [get(f"/api/seasons/{s}/actions") for s in seeded.ids["sid"]],
    }


def clear_timed_graphics(seeded: Seeded) -> bool:
    """A graphic shown with a duration leaves by itself: take it out now, so that no change
    happens on its own while a test compares snapshots. True if one was taken out."""
    shown = seeded.http.get(seeded.url + "/api/graphics", timeout=30).json()["graphics"]
    timed = [name for name, item in shown.items() if item.get("expires_at")]
    for name in timed:
        ok(requests.post(seeded.url + "/api/graphics", json={"action": "clear", "graphic": name},
                         headers=AUTH, timeout=30))
    return bool(timed)


def before_input(seeded: Seeded) -> dict:
    """The state before the next input. The fuzzers send hundreds of inputs, most refused, and a
    snapshot is a dozen GETs: the one taken after the last input, found unchanged an instant
    ago, is this one too, unless a timed graphic had to be taken out. Any other case (the first
    input, one that was accepted) looks again."""
    if clear_timed_graphics(seeded) or seeded.known is None:
        seeded.known = snapshot(seeded)
    before, seeded.known = seeded.known, None  # until unchanged() finds it so again
    return before


def unchanged(seeded: Seeded, before: dict) -> bool:
    """Is the state still `before`? (Kept for the next before_input when it is.)"""
    now = snapshot(seeded)
    seeded.known = now if now == before else None
    return now == before


def screens_still_connect(url: str) -> None:
    """A fresh overlay and a fresh panel connection get the state and the graphics at once."""
    for ns, auth in (("/overlay", None), ("/control", {"token": TOKEN})):
        got: dict[str, Any] = {}
        client = socketio.Client(reconnection=False)
        client.on("state", lambda s: got.setdefault("state", s), namespace=ns)
        client.on("graphics", lambda g: got.setdefault("graphics", g), namespace=ns)
        try:
            client.connect(url, namespaces=[ns], auth=auth, transports=["websocket"], wait_timeout=5)
        except socketio.exceptions.ConnectionError as exc:
            raise AssertionError(f"a new {ns} client cannot connect any more: {exc}") from exc
        try:
            import time
            deadline = time.monotonic() + 5
            while not ("state" in got and "graphics" in got) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert "state" in got and "graphics" in got, f"{ns}: no state/graphics on connect"
        finally:
            client.disconnect()


def alive(srv: Server) -> None:
    assert srv.proc is not None and srv.proc.poll() is None, f"the server died: {srv.output()}"
    assert requests.get(srv.url + "/api/time", timeout=30).status_code == 200


# strategies ------------------------------------------------------------------------------------

NASTY = ["", " ", "0", "-1", "1e9", "99999999999999999999999", "²", "١٢", "٣", "Ⅻ", "g1\x00", "..", "../..",
         "..%2f..", "%2e%2e", "/etc/passwd", "..\\..\\", "null", "true", "[]", "{}", "<script>alert(1)</script>",
         "' OR 1=1 --", "${jndi:x}", "{{7*7}}", "ＮａＮ", "\u202e", "\ud7ff", "𝕏" * 40, "a" * 2000]

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**63, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.sampled_from(NASTY),
)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)), max_leaves=25)


def deep_json(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True, ensure_ascii=False)
