"""No question before it is played and no answer before its verdict reaches anything public.

A game is seeded with a unique marker in every question text, answer, comment, accepted and
rejected answer and source (and a pack with markers of its own is imported). The game is
then played to the end through every kind of round while every public surface is collected
after every step: the public API of every game, the index page and every overlay's page
source, the `/overlay` socket (following the on-air game and pinned to this one), OSC — both
the cues to the vision mixer and the `/chgk/state/...` feedback to a subscribed surface —,
the public league endpoints, and the operator endpoints as an anonymous caller sees them.
At each step the markers that may be public are exactly: the texts of the questions whose
round has reached them, and the answers and comments of the questions judged so far.
"""
from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from http.cookiejar import DefaultCookiePolicy

import pytest
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from overlay.graphics.game import GRAPHICS
from tests.broadcast.test_patch import Client, timeless
from tests.faults.helpers import Watcher
from tests.support import TOKEN, Server, free_port, wait_for

AUTH = {"Authorization": f"Bearer {TOKEN}"}
FIELDS = {"text": "TXT", "answer": "ANS", "comment": "COM", "accepted": "ACC", "rejected": "REJ", "source": "SRC"}
KINDS = {5: "blitz", 9: "superblitz", 13: "sponsor"}
PLAYERS = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]


def marker(field: str, sector: int, i: int, tag: str = "Q") -> str:
    return f"{tag}{FIELDS[field]}{sector:02d}{i}X"


def question(sector: int, i: int, tag: str = "Q") -> dict:
    m = lambda f: marker(f, sector, i, tag)  # noqa: E731
    return {"text": f"Вопрос {m('text')}: что это?", "answer": f"Ответ {m('answer')}",
            "comment": f"Комментарий {m('comment')}", "accepted": [f"Зачёт {m('accepted')}"],
            "rejected": [f"Незачёт {m('rejected')}"], "source": f"Источник {m('source')}",
            "author": {"name": f"Зритель {sector}", "city": "Харьков"}, "prize": {"amount": 100, "currency": "UAH"}}


def sectors(tag: str = "Q", kinds: dict[int, str] = KINDS) -> list[dict]:
    out = []
    for n in range(1, 14):
        kind = kinds.get(n, "regular")
        count = 3 if kind in ("blitz", "superblitz") else 1
        out.append({"number": n, "kind": kind, "questions": [question(n, i, tag) for i in range(count)]})
    return out


def all_markers(tag: str = "Q") -> set[str]:
    return {marker(f, n, i, tag) for n in range(1, 14) for i in range(3) for f in FIELDS}


LONG = {"minute": 600_000, "blitz": 600_000, "extra_minute": 600_000, "club_help": 600_000}


class Public:
    """Every public surface of the server, and what reached it."""

    def __init__(self, srv: Server, game: str, osc_port: int, cues: socket.socket) -> None:
        self.srv, self.game = srv, game
        self.osc_port = osc_port
        self.datagrams: list[bytes] = []
        self.cues = cues  # bound at the --osc-target address: what the vision mixer gets
        self.surface = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # a subscribed control surface
        self.surface.bind(("127.0.0.1", 0))
        self.stop = threading.Event()
        for s in (self.cues, self.surface):
            s.settimeout(0.2)
            threading.Thread(target=self._listen, args=(s,), daemon=True).start()
        # one kept-alive connection for the dozens of GETs of every look (a new connection each
        # cost more CPU than the GETs), and no cookie kept between them: each GET is anonymous,
        # as a new visitor's would be
        self.http = requests.Session()
        self.http.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))
        self.http.mount("http://", HTTPAdapter(max_retries=Retry(total=2, allowed_methods=frozenset({"GET"}),
                                                                 status_forcelist=(), raise_on_status=False)))
        self.watchers = [Watcher(srv.url, "/overlay")]
        pinned = Watcher(srv.url, "/overlay")
        pinned.sio.call("follow", {"game": game}, namespace="/overlay", timeout=5)
        self.watchers.append(pinned)

    def _listen(self, s: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                self.datagrams.append(s.recvfrom(65_535)[0])
            except OSError:
                continue

    def subscribe(self) -> None:
        dgram = b"/chgk/subscribe\0" + b",i\0\0" + self.surface.getsockname()[1].to_bytes(4, "big")
        self.surface.sendto(dgram, ("127.0.0.1", self.osc_port))

    def close(self) -> None:
        self.stop.set()
        self.http.close()
        for w in self.watchers:
            w.close()
        self.cues.close()
        self.surface.close()

    def pages(self, full: bool) -> dict[str, str]:
        url = self.srv.url
        get = lambda path, **kw: self.http.get(url + path, timeout=10, **kw).text  # noqa: E731
        out = {f"public {g}": get(f"/api/games/{g}/public") for g in self.games()}
        out.update({"on-air": get("/api/on-air"), "league": get("/api/public/league"), "index": get("/"),
                    "login page": get("/control/"), "themes": get("/api/themes")})
        for sid in self.league_ids("seasons"):
            out[f"public season {sid}"] = get(f"/api/public/seasons/{sid}")
        for xid in self.league_ids("series"):
            out[f"public series {xid}"] = get(f"/api/public/series/{xid}")
        # what the operator endpoints say to someone without credentials
        for path in (f"/api/games/{self.game}", f"/api/games/{self.game}/log", f"/api/games/{self.game}/moves",
                     "/api/games", "/api/packs", "/api/packs/p1", "/api/graphics", "/api/osc/status",
                     "/api/osc/config", "/control/setup", "/control/packs"):
            r = self.http.get(url + path, timeout=10)
            assert r.status_code in (200, 401, 404), (path, r.status_code)
            out[f"anonymous {path}"] = r.text
        if full:
            for name in GRAPHICS:
                out[f"page {name}"] = get(f"/overlays/{name}")
                out[f"page {name} pinned"] = get(f"/overlays/{name}?game={self.game}&lang=en")
        return out

    def games(self) -> list[str]:
        return [g["id"] for g in self.http.get(self.srv.url + "/api/games", headers=AUTH, timeout=10).json()["games"]]

    def league_ids(self, kind: str) -> list[str]:
        listing = self.http.get(self.srv.url + "/api/public/league", timeout=10).json()
        return [x["id"] for x in listing.get(kind, [])]

    def sockets(self) -> dict[str, str]:
        out = {}
        for i, w in enumerate(self.watchers):
            with w.lock:
                out[f"/overlay socket {i}"] = repr(w.states) + repr(w.graphics)
        out["osc"] = repr(b"".join(self.datagrams).decode("utf-8", "replace"))
        return out


def leaks(surfaces: dict[str, str], forbidden: set[str]) -> list[str]:
    pattern = re.compile("|".join(sorted(forbidden)))
    found = []
    for name, text in surfaces.items():
        for m in sorted(set(pattern.findall(text))):
            found.append(f"{m} on {name}")
    return found


def revealed(state: dict, allowed: set[str], tag: str = "Q") -> None:
    """Add what the rules have made public by now: texts of reached questions, answers and
    comments of judged ones."""
    r = state.get("round")
    if not r:
        return
    for i in range(r["question"] + 1):
        allowed.add(marker("text", r["sector"], i, tag))
    judged = r["question"] if not r["judged"] else r["question"] + 1
    for i in range(judged):
        allowed |= {marker("answer", r["sector"], i, tag), marker("comment", r["sector"], i, tag)}


# One server for the module: each test makes its own games and puts them on air, and looks only
# at its own games' public views and the surfaces it opens itself.
@pytest.fixture(scope="module")
def osc_port() -> int:
    return free_port(socket.SOCK_DGRAM)


@pytest.fixture(scope="module")
def cues() -> Iterator[socket.socket]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    yield s
    s.close()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, osc_port: int, cues: socket.socket) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("secrecy") / "data", demo=False,
                    args=("--osc-listen", f"127.0.0.1:{osc_port}",
                          "--osc-target", f"127.0.0.1:{cues.getsockname()[1]}")).start()
    yield server
    server.stop()


PACK = ("Чемпионат:\nПакет с метками\n\nВопрос 1:\nТекст PTXT011X пакета.\n\nОтвет:\nPANS011X\n\n"
        "Комментарий:\nPCOM011X\n\nИсточник:\nPSRC011X\n\nАвтор:\nИван Петров (Харьков)\n").encode()


SHORT = {"minute": 1000, "blitz": 1000, "extra_minute": 1000, "club_help": 1000}


def play(srv: Server, game: str, public: Public, forbidden_extra: set[str]) -> tuple[list[str], set[str]]:
    """Play `game` to the end through every phase — reading, discussion, an early answer, the
    answer after a time-up, an extra minute, club help, pauses, blitz and superblitz — checking
    every surface after every change. Returns the leaks and the phases seen."""
    everything = all_markers() | forbidden_extra
    allowed: set[str] = set()
    found: list[str] = []
    phases: set[str] = set()
    looks = 0

    def look(state: dict) -> dict:
        nonlocal looks
        revealed(state, allowed)
        if state.get("round"):
            phases.add(state["round"]["phase"])
        looks += 1
        time.sleep(0.05)  # sockets and OSC deliver what this change sent
        found.extend(leaks({**public.pages(full=looks % 8 == 1), **public.sockets()}, everything - allowed))
        return state

    def send(body: dict) -> dict:
        r = srv.call("POST", f"/api/games/{game}/commands", body)
        assert r.status_code == 200, (body, r.text)
        return r.json()["state"]

    def step(body: dict) -> dict:
        return look(send(body))

    def time_up(state: dict) -> dict:
        """Wait for the server's clock to record the time-up, then look."""
        deadline = time.monotonic() + 15
        while True:
            now = srv.state(game)
            if now["rev"] > state["rev"]:
                return look(now)
            assert time.monotonic() < deadline, "the timer never ran out"
            time.sleep(0.05)

    verdicts = iter([True, False, False, True] * 10)
    order = [5, 1, 9, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13]
    state = srv.state(game)
    rounds = pauses = 0
    for sector in order:
        if state["status"] == "finished":
            break
        rounds += 1
        state = step({"type": "spin", "landed": sector})
        if state["round"]["kind"] == "superblitz":
            state = step({"type": "choose_player", "player": "Борис"})
        while state["round"]["phase"] != "closed" and state["status"] != "finished":
            moves = state["moves"]
            if moves["early_answer"]["ok"] and rounds % 3 == 2:
                state = step({"type": "early_answer"})
            else:
                state = send({"type": "start_timer"})
                if rounds % 4 == 1 and state["moves"]["pause_timer"]["ok"]:
                    # the pause follows the start at once: the minute is one second, and looking at
                    # every surface can take longer than that on a loaded machine
                    pause = srv.call("POST", f"/api/games/{game}/commands", {"type": "pause_timer"})
                    if pause.status_code == 200:
                        pauses += 1
                        look(pause.json()["state"])
                        state = step({"type": "resume_timer"})
                    else:  # the minute ran out first; the refusal changed nothing
                        assert pause.json()["error"]["code"] == "wrong_phase", pause.text
                        look(state)
                else:
                    look(state)
                state = time_up(state)
            if state["moves"]["extra_minute"]["ok"]:
                state = time_up(step({"type": "extra_minute"}))
            if state["moves"]["club_help"]["ok"]:
                state = time_up(step({"type": "club_help"}))
            state = step({"type": "judge", "correct": next(verdicts)})
    assert state["status"] == "finished", "the game did not reach its end"
    assert pauses, "no minute was ever paused"
    # an undo takes the last verdict back: its answer must leave the screens again
    undone = srv.call("POST", f"/api/games/{game}/undo").json()["state"]
    r = undone["round"]
    last = {marker("answer", r["sector"], r["question"]), marker("comment", r["sector"], r["question"])}
    public_now = requests.get(f"{srv.url}/api/games/{game}/public", timeout=10).json()
    found.extend(leaks({"public after undo": repr(public_now)}, last))
    srv.command(game, type="judge", correct=True)
    return found, phases


def test_no_unplayed_question_and_no_unjudged_answer_reaches_a_public_surface(srv: Server, osc_port: int,
                                                                              cues: socket.socket):
    pack = requests.post(srv.url + "/api/packs?filename=markers.txt", data=PACK, headers=AUTH, timeout=10)
    assert pack.status_code == 201, pack.text
    game = srv.create({"rules": "tv", "title": "Игра с метками", "target": 6, "sectors": sectors(), "timers": SHORT,
                       "experts": {"name": "Команда", "players": PLAYERS, "captain": "Анна"}})
    other = srv.create({"rules": "tv", "title": "Соседняя игра", "sectors": sectors("O"), "timers": LONG,
                        "experts": {"name": "Другая команда", "players": PLAYERS, "captain": "Анна"}})
    assert srv.call("PUT", "/api/on-air", {"game": game}).status_code == 200
    series = srv.call("POST", "/api/series", {"name": "Серия", "duels": [[game, other]]})
    assert series.status_code == 201, series.text
    public = Public(srv, game, osc_port, cues)
    try:
        public.subscribe()
        deadline = time.monotonic() + 5
        while not any(d.startswith(b"/chgk/state/") for d in public.datagrams):
            assert time.monotonic() < deadline, "the subscribed surface got no feedback"
            time.sleep(0.02)
        pack_markers = {"PTXT011X", "PANS011X", "PCOM011X", "PSRC011X"}
        found, phases = play(srv, game, public, pack_markers | all_markers("O"))
        assert phases >= {"reading", "discussion", "answer", "club_help", "closed"}, phases
        assert sum(len(w.states) for w in public.watchers) > 40, "the sockets saw too little of the game"
        assert any(b"/chgk/event/" in d for d in public.datagrams), "no OSC cue was captured"
        assert found == [], f"secrets on public surfaces: {sorted(set(found))[:20]}"
    finally:
        public.close()


# between the two holdings of a game day ------------------------------------------------------------

def club_spec(day: str, tag: str) -> dict:
    teams = [{"id": f"t{i}", "name": f"Команда {tag}{i}", "players": [f"Игрок {tag}{i}.{j}" for j in range(1, 7)]}
             for i in range(1, 4)]
    return {"rules": "club", "title": f"Игровой день, {day}", "teams": teams, "game_day": day,
            "sectors": sectors("Q", {5: "blitz"}), "timers": LONG}


def test_a_finished_game_keeps_its_questions_from_the_next_holding(srv: Server, osc_port: int):
    """RULES.md §6: the same questions are played on Sunday and on the Wednesday after, so they
    must stay secret between the two holdings. Once Sunday's game is over and Wednesday's is on
    air, nothing public may still show a Sunday question or answer — not the finished game's
    public view, nor an overlay pinned to it."""
    sunday = srv.create(club_spec("2026-03-01-sun", "S"))
    srv.call("PUT", "/api/on-air", {"game": sunday})
    state = srv.state(sunday)
    for sector in (1, 2, 3, 4, 6, 7):
        if state["moves"]["seat_team"]["ok"] and state["central"]["team"] is None:
            state = srv.command(sunday, type="seat_team", team="t1").json()["state"]
        state = srv.command(sunday, type="spin", landed=sector).json()["state"]
        state = srv.command(sunday, type="start_timer").json()["state"]
        r = srv.command(sunday, type="club_answers", correct=["t2"])
        assert r.status_code == 200, r.text
        state = srv.command(sunday, type="judge", correct=True).json()["state"]
    assert state["status"] == "finished" and state["winner"] == "experts", state["status"]

    def public() -> dict:
        return requests.get(f"{srv.url}/api/games/{sunday}/public", timeout=10).json()

    def shows_the_public_view(client: Client) -> bool:
        held = client.state
        return held is not None and held["id"] == sunday and timeless(held) == timeless(public())

    # overlays pinned to Sunday's game while it is on air, taking whole states or patches
    early = {"whole states": Client(srv, patches=False), "patches": Client(srv, patches=True)}
    late: Client | None = None
    try:
        for client in early.values():
            client.sio.call("follow", {"game": sunday}, namespace="/overlay", timeout=5)
            wait_for(lambda: shows_the_public_view(client), timeout=10, what="a pinned overlay with Sunday's game")
        assert all(client.state["round"]["text"] for client in early.values()), "on air, the last question shows"

        wednesday = srv.create(club_spec("2026-03-04-wed", "W"))
        assert srv.call("PUT", "/api/on-air", {"game": wednesday}).status_code == 200
        secrets = all_markers()  # the same questions, still to be played on Wednesday
        surfaces = {"public view of Sunday's game": requests.get(f"{srv.url}/api/games/{sunday}/public", timeout=10).text}
        pinned = Watcher(srv.url, "/overlay")
        try:
            answer = pinned.sio.call("follow", {"game": sunday}, namespace="/overlay", timeout=5)
            surfaces["an overlay pinned to Sunday's game"] = repr(answer)
        finally:
            pinned.close()
        for how, client in early.items():  # told, though nothing happened in Sunday's game itself
            wait_for(lambda: shows_the_public_view(client), timeout=10,
                     what=f"an overlay pinned before the switch ({how}) losing the texts")
            surfaces[f"an overlay pinned before the switch ({how})"] = repr(client.state)
        assert leaks(surfaces, secrets) == []

        # pinned now, it holds the texts-less state at the same rev; back on the air, its patches must
        # bring the texts back (a patch names its base by rev, and the rev has not moved)
        late = Client(srv, patches=True)
        late.sio.call("follow", {"game": sunday}, namespace="/overlay", timeout=5)
        wait_for(lambda: shows_the_public_view(late), timeout=10, what="an overlay pinned after the switch")
        assert srv.call("PUT", "/api/on-air", {"game": sunday}).status_code == 200
        for client in (*early.values(), late):
            wait_for(lambda: shows_the_public_view(client) and client.state["round"]["text"], timeout=10,
                     what="Sunday's texts back on every pinned overlay")
        assert late.resyncs == 0 and late.patches, "the texts came back as a patch"
    finally:
        for client in (*early.values(), *([late] if late else [])):
            client.close()
