"""Question packs through the server: `/api/packs` (import, list, read, delete, fill) and
`chgk-overlay import-pack`, against a real server process; envelope filling also as a pure
function (Hypothesis)."""
from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from overlay.packs import MAX_PACK_BYTES, parse_pack
from overlay.packs.fill import fill_sectors
from overlay.rules.errors import InputError, RuleError
from overlay.rules.spec import parse_spec
from tests.support import ROOT, Server

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "packs"


def make_pack(singles: int = 14, blitz: bool = True, title: str = "Пакет для тестов") -> bytes:
    """A 4s pack written for these tests: two tours of numbered questions and a three-part blitz."""
    out = [f"### {title}", "", "## Первый тур", ""]
    for i in range(1, singles + 1):
        if i == singles // 2 + 1:
            out += ["## Второй тур", ""]
        out += [f"? Тестовый вопрос номер {i}: назовите число {i}.", f"! {i}", f"@ Автор {i} (Город {i})", ""]
    if blitz:
        out += ["? Блиц о числах.", "- Сколько дней в неделе?", "- Сколько месяцев в году?",
                "- Сколько часов в сутках?", "! ", "- Семь", "- Двенадцать", "- Двадцать четыре", "@ Вера Ким", ""]
    return "\n".join(out).encode()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("packs") / "data").start()
    yield server
    server.stop()


def upload(srv: Server, data: bytes, filename: str | None = None, **kw) -> requests.Response:
    query = f"?filename={filename}" if filename else ""
    return srv.http.post(f"{srv.url}/api/packs{query}", data=data, timeout=30, **kw)


def pack_ids(srv: Server) -> list[str]:
    r = srv.call("GET", "/api/packs")
    assert r.status_code == 200, r.text
    return [p["id"] for p in r.json()["packs"]]


@pytest.fixture(scope="module")
def rusch(srv: Server) -> dict:
    r = upload(srv, (FIXTURES / "rusch16.txt").read_bytes(), "rusch16.txt")
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture(scope="module")
def small(srv: Server) -> dict:
    r = upload(srv, make_pack(), "test.4s")
    assert r.status_code == 201, r.text
    return r.json()


# import, list, read ---------------------------------------------------------------------------------

def test_import_answers_id_title_count_and_tours(rusch: dict):
    assert rusch["id"].startswith("p")
    assert rusch["title"] == "16-й чемпионат России по ЧГК (Воронеж)"
    assert rusch["questions"] == 90
    assert rusch["tours"] == [{"title": f"{n} тур", "questions": 15} for n in range(1, 7)]
    assert (rusch["format"], rusch["encoding"], rusch["filename"]) == ("db", "koi8-r", "rusch16.txt")
    assert rusch["existing"] is False


def test_list_and_read_a_pack(srv: Server, rusch: dict, small: dict):
    listed = {p["id"]: p for p in srv.call("GET", "/api/packs").json()["packs"]}
    assert listed[rusch["id"]]["questions"] == 90 and listed[small["id"]]["questions"] == 15
    assert "body" not in listed[rusch["id"]] and "answer" not in json.dumps(listed[rusch["id"]])

    full = srv.call("GET", f"/api/packs/{rusch['id']}").json()
    assert full["title"] == rusch["title"] and full["questions"] == 90 and len(full["tours"]) == 6
    first = full["tours"][0]["questions"][0]
    assert first["ref"] == "1.1" and first["answer"] and first["text"].startswith("В одном новгородском ресторане")
    assert first["author"]["name"] == "Александр Кудрявцев" and first["author"]["city"] == "Николаев"
    assert full["tours"][5]["questions"][14]["ref"] == "6.15"

    blitz = srv.call("GET", f"/api/packs/{small['id']}").json()["tours"][1]["questions"][-1]
    assert blitz["ref"] == "2.8" and [p["answer"] for p in blitz["parts"]] == ["Семь", "Двенадцать", "Двадцать четыре"]


def test_title_from_the_filename_when_the_pack_has_none(srv: Server):
    r = upload(srv, "? Вопрос без заголовка пакета\n! Ответ\n".encode(), "C:\\packs\\Кубок осени.4s")
    assert r.status_code == 201, r.text
    assert r.json()["title"] == "Кубок осени" and r.json()["filename"] == "Кубок осени.4s"


def test_the_same_file_twice_is_one_pack(srv: Server, small: dict):
    before = pack_ids(srv)
    again = upload(srv, make_pack(), "renamed.4s")
    assert again.status_code == 200 and again.json()["id"] == small["id"] and again.json()["existing"] is True
    assert pack_ids(srv) == before


def test_packs_are_for_operators_only(srv: Server, rusch: dict):
    for method, path in [("GET", "/api/packs"), ("POST", "/api/packs"), ("GET", f"/api/packs/{rusch['id']}"),
                         ("DELETE", f"/api/packs/{rusch['id']}"), ("POST", f"/api/packs/{rusch['id']}/fill")]:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            r = requests.request(method, srv.url + path, data=b"{}", headers=headers, timeout=5)
            assert r.status_code == 401, (method, path)
            assert r.json()["error"]["code"] == "unauthorized"
            assert "ресторане" not in r.text
    assert rusch["id"] in pack_ids(srv)


def test_unknown_pack_is_404(srv: Server):
    for method, path in [("GET", "/api/packs/p999"), ("DELETE", "/api/packs/p999"), ("POST", "/api/packs/p999/fill")]:
        r = srv.call(method, path, {"random": True})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_pack"


def test_delete(srv: Server):
    r = upload(srv, make_pack(3, blitz=False, title="Удаляемый"), "gone.4s")
    pack_id = r.json()["id"]
    assert srv.call("DELETE", f"/api/packs/{pack_id}").json() == {"deleted": pack_id}
    assert pack_id not in pack_ids(srv)
    assert srv.call("GET", f"/api/packs/{pack_id}").status_code == 404


# packs that cannot be read --------------------------------------------------------------------------

@pytest.mark.parametrize("data, filename, line, fragment", [
    ("? Вопрос 1\n! Ответ\n\n? Вопрос без ответа\n/ комментарий\n", "bad.4s", 4, "question 2 has no answer"),
    ("Чемпионат:\nКубок\n\nОтвет:\nДа\n", "bad.txt", 4, "«Ответ:» without a question before it"),
    ("Вопрос 1:\nТекст\n\nОтвет:\nДа\n\nКоментарий:\nопечатка\n", "bad.txt", 7, "unknown header «Коментарий:»"),
])
def test_a_broken_pack_names_the_line_and_leaves_nothing(srv: Server, data: str, filename: str, line: int,
                                                       fragment: str):
    before = pack_ids(srv)
    r = upload(srv, data.encode("cp1251"), filename)
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_pack" and err["line"] == line
    assert err["message"].startswith(f"line {line}: ") and fragment in err["message"]
    assert pack_ids(srv) == before


@pytest.mark.parametrize("data", [b"", b"\x00\x01binary", "просто текст без вопросов\n".encode()])
def test_not_a_pack(srv: Server, data: bytes):
    before = pack_ids(srv)
    r = upload(srv, data, "x.txt")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_pack"
    assert r.json()["error"]["message"]
    assert pack_ids(srv) == before


def test_a_pack_over_the_limit_is_413_and_the_server_carries_on(srv: Server):
    before = pack_ids(srv)
    body = make_pack(2, blitz=False) + b"\n" * (MAX_PACK_BYTES + 1)
    try:
        r = upload(srv, body, "huge.4s")
        assert r.status_code == 413 and r.json()["error"]["code"] == "pack_too_large"
    except requests.ConnectionError:
        pass  # API.md: over the limit the server may also cut the connection
    assert pack_ids(srv) == before
    # Exactly at the limit it is read (the rest is blank lines) — larger than the API's 1 MiB bodies.
    edge = make_pack(2, blitz=False, title="Ровно предел")
    r = upload(srv, edge + b"\n" * (MAX_PACK_BYTES - len(edge)), "edge.4s")
    assert r.status_code == 201, r.text[:300]


# the CLI --------------------------------------------------------------------------------------------

def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "overlay", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def test_import_pack_cli_into_a_running_servers_data(srv: Server, tmp_path: Path):
    path = tmp_path / "cli-pack.4s"
    path.write_bytes(make_pack(5, title="Из командной строки"))
    done = cli("import-pack", str(path), "--data", str(srv.data))
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.strip().splitlines())
    assert lines["title"] == "Из командной строки" and lines["questions"] == "6 in 2 tour(s)"
    assert lines["id"] in pack_ids(srv)  # the running server sees it at once
    assert srv.call("GET", f"/api/packs/{lines['id']}").json()["filename"] == "cli-pack.4s"

    as_json = cli("import-pack", str(path), "--data", str(srv.data), "--json")
    assert json.loads(as_json.stdout)["id"] == lines["id"] and json.loads(as_json.stdout)["existing"] is True


def test_import_pack_cli_refuses_a_broken_pack(srv: Server, tmp_path: Path):
    before = pack_ids(srv)
    path = tmp_path / "broken.4s"
    path.write_text("? Вопрос 1\n! Ответ\n\nпотерянный текст\n", encoding="utf-8")
    done = cli("import-pack", str(path), "--data", str(srv.data))
    assert done.returncode == 1 and "line 4: " in done.stderr and "4s marker" in done.stderr
    missing = cli("import-pack", str(tmp_path / "nope.txt"), "--data", str(srv.data))
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    assert pack_ids(srv) == before


# filling envelopes ----------------------------------------------------------------------------------

def fill(srv: Server, pack_id: str, body: dict) -> requests.Response:
    return srv.call("POST", f"/api/packs/{pack_id}/fill", body)


def test_fill_by_hand_then_play_it(srv: Server, small: dict):
    r = fill(srv, small["id"], {"sectors": [
        {"number": 1, "questions": ["1.2"]},
        {"number": 5, "kind": "blitz", "questions": ["2.8"]},
        {"number": 9, "kind": "superblitz", "questions": ["2.1", "2.2", "2.3"]},
        {"number": 3, "questions": ["1.3"], "viewer": {"name": "Ольга Зритель", "city": "Львов", "photo": "olga.jpg"},
         "prize": {"amount": 2500, "currency": "UAH"}},
        {"number": 4, "questions": ["1.4"], "viewer": {"photo": "a4.jpg"}},
        {"number": 13, "questions": []}]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["seed"] is None and out["sector_count"] == 13
    assert out["refs"] == {"1": ["1.2"], "3": ["1.3"], "4": ["1.4"], "5": ["2.8"], "9": ["2.1", "2.2", "2.3"]}
    by = {s["number"]: s for s in out["sectors"]}
    assert [s["number"] for s in out["sectors"]] == [1, 3, 4, 5, 9, 13]
    assert by[1] == {"number": 1, "kind": "regular", "questions": [
        {"text": "Тестовый вопрос номер 2: назовите число 2.", "answer": "2",
         "author": {"name": "Автор 2", "city": "Город 2"}}]}
    blitz = by[5]["questions"]
    assert [q["answer"] for q in blitz] == ["Семь", "Двенадцать", "Двадцать четыре"]
    assert blitz[0]["text"] == "Блиц о числах.\nСколько дней в неделе?" and blitz[1]["text"] == "Сколько месяцев в году?"
    assert [q["answer"] for q in by[9]["questions"]] == ["8", "9", "10"]
    assert by[3]["questions"][0]["author"] == {"name": "Ольга Зритель", "city": "Львов", "photo": "olga.jpg"}
    assert by[3]["questions"][0]["prize"] == {"amount": 2500, "currency": "UAH"}
    assert by[4]["questions"][0]["author"] == {"name": "Автор 4", "city": "Город 4", "photo": "a4.jpg"}
    assert by[13] == {"number": 13, "kind": "sponsor"}

    game = srv.create({"rules": "tv", "title": "Из пакета", "sectors": out["sectors"]})
    state = srv.state(game)
    kinds = {s["number"]: s["kind"] for s in state["sectors"]}
    assert (kinds[5], kinds[9], kinds[13], kinds[2]) == ("blitz", "superblitz", "sponsor", "regular")
    r = srv.command(game, type="spin", landed=5)
    assert r.status_code == 200, r.text
    rnd = srv.call("GET", f"/api/games/{game}/public").json()["round"]
    assert rnd["kind"] == "blitz" and rnd["questions"] == 3 and rnd["text"].endswith("Сколько дней в неделе?")


def test_fill_at_random_is_reproducible_and_complete(srv: Server, rusch: dict):
    body = {"random": True, "seed": 2026, "sectors": [{"number": 4, "kind": "blitz"}, {"number": 8, "kind": "superblitz"}]}
    first, again = fill(srv, rusch["id"], body), fill(srv, rusch["id"], body)
    assert first.status_code == 200, first.text
    assert first.json() == again.json() and first.json()["seed"] == 2026
    out = first.json()
    assert [s["number"] for s in out["sectors"]] == list(range(1, 14))
    counts = {s["number"]: len(s["questions"]) for s in out["sectors"]}
    assert counts[4] == counts[8] == 3 and all(counts[n] == 1 for n in counts if n not in (4, 8))
    refs = [r for rs in out["refs"].values() for r in rs]
    assert len(refs) == len(set(refs)) == 17
    assert fill(srv, rusch["id"], {**body, "seed": 2027}).json()["refs"] != out["refs"]
    game = srv.create({"rules": "tv", "sectors": out["sectors"]})
    assert [s["kind"] for s in srv.state(game)["sectors"]][3] == "blitz"

    unseeded = fill(srv, rusch["id"], {"random": True}).json()
    assert isinstance(unseeded["seed"], int)
    assert fill(srv, rusch["id"], {"random": True, "seed": unseeded["seed"]}).json() == unseeded


def test_random_prefers_a_three_part_question_for_the_blitz(srv: Server, small: dict):
    out = fill(srv, small["id"], {"random": True, "seed": 1, "sector_count": 6,
                                  "sectors": [{"number": 2, "kind": "blitz"}]}).json()
    assert out["refs"]["2"] == ["2.8"]
    assert [q["answer"] for q in out["sectors"][1]["questions"]] == ["Семь", "Двенадцать", "Двадцать четыре"]


def test_random_respects_tours_exclusions_and_hand_picked(srv: Server, small: dict):
    out = fill(srv, small["id"], {"random": True, "seed": 9, "sector_count": 5, "tours": [1],
                                  "exclude": ["1.1", "1.2"], "sectors": [{"number": 1, "questions": ["2.1"]},
                                                                         {"number": 2, "questions": []}]}).json()
    assert out["refs"]["1"] == ["2.1"] and "2" not in out["refs"]
    drawn = [out["refs"][str(n)][0] for n in (3, 4, 5)]
    assert len(set(drawn)) == 3 and all(r.startswith("1.") and r not in ("1.1", "1.2") for r in drawn)


@pytest.mark.parametrize("body, status, code, fragment", [
    ({"sectors": [{"number": 1, "questions": ["9.1"]}]}, 400, "bad_fill", "sectors[0].questions[0]: no question 9.1"),
    ({"sectors": [{"number": 1, "questions": ["1.99"]}]}, 400, "bad_fill", "tour 1 has 7 question(s)"),
    ({"sectors": [{"number": 1, "questions": ["first"]}]}, 400, "bad_fill", "expected a question ref"),
    ({"sectors": [{"number": 7, "kind": "blitz", "questions": ["1.1"]}]}, 400, "bad_fill", "1.1 has no parts"),
    ({"sectors": [{"number": 7, "kind": "blitz", "questions": ["1.1", "1.2"]}]}, 400, "bad_fill", "got 2"),
    ({"sectors": [{"number": 1, "questions": ["1.1"]}, {"number": 2, "questions": ["1.1"]}]}, 400, "bad_fill",
     "question 1.1 is already in sector 1"),
    ({"sectors": [{"number": 14, "questions": ["1.1"]}]}, 400, "bad_fill", "sectors[0].number"),
    ({"sectors": [{"number": 1, "kind": "bonus"}]}, 400, "bad_fill", "sectors[0].kind"),
    ({"sectors": [{"number": 2, "kind": "blitz"}, {"number": 3, "kind": "blitz"}]}, 400, "bad_fill", "at most one blitz"),
    ({"sectors": [{"number": 1, "questions": [], "viewer": {"city": "Львов"}}]}, 400, "bad_fill", "give the viewer's name"),
    ({"sectors": [{"number": 1, "questions": ["1.1"], "prize": {"amount": -5}}]}, 400, "bad_fill", "amount"),
    ({"sectors": [{"number": 1, "questions": ["1.1"], "colour": "red"}]}, 400, "bad_fill", "unknown field 'colour'"),
    ({"sectors": []}, 400, "bad_fill", "give \"sectors\""),
    ({"sectors": [{"number": 1}], "seed": 3}, 400, "bad_fill", "only apply with \"random\""),
    ({"random": True, "sector_count": 24}, 422, "pack_too_small", "Not enough questions"),
    ({"random": True, "tours": [3]}, 400, "bad_fill", "tours[0]"),
    ({"random": "yes"}, 400, "bad_fill", "random"),
    (["1.1"], 400, "bad_fill", "send a JSON object"),
])
def test_fill_refusals_name_the_field(srv: Server, small: dict, body, status: int, code: str, fragment: str):
    r = fill(srv, small["id"], body)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code and fragment in r.json()["error"]["message"], r.json()


def test_fill_needs_json(srv: Server, small: dict):
    r = srv.http.post(f"{srv.url}/api/packs/{small['id']}/fill", data=b"not json", timeout=5)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"


def test_paper_envelope_with_a_viewer(srv: Server, small: dict):
    out = fill(srv, small["id"], {"sectors": [
        {"number": 6, "kind": "blitz", "questions": [], "viewer": {"name": "Иван Зритель", "city": "Одесса"},
         "prize": {"amount": 500, "currency": "UAH"}}]}).json()
    questions = out["sectors"][0]["questions"]
    assert questions == [{"author": {"name": "Иван Зритель", "city": "Одесса"},
                          "prize": {"amount": 500, "currency": "UAH"}}] * 3
    game = srv.create({"rules": "tv", "sectors": out["sectors"]})
    assert srv.state(game)["sectors"][5]["kind"] == "blitz"


# the pure function, over many seeds and pack shapes -------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(singles=st.integers(3, 30), blitz=st.booleans(), seed=st.integers(0, 2**40),
       count=st.integers(2, 13), multi=st.sampled_from([None, "blitz", "superblitz"]), rules=st.sampled_from(["tv", "club"]))
def test_random_fill_properties(singles: int, blitz: bool, seed: int, count: int, multi: str | None, rules: str):
    pack = parse_pack(make_pack(singles, blitz), "t.4s")
    body: dict = {"random": True, "seed": seed, "sector_count": count, "rules": rules}
    if multi:
        body["sectors"] = [{"number": 1, "kind": multi}]
    if multi:  # the blitz is drawn first: a three-part question if there is one, else three singles
        feasible = singles >= count - 1 if blitz else singles >= count + 2
    else:  # with no single left, a three-part question is read whole
        feasible = singles + blitz >= count
    try:
        out = fill_sectors(pack, body)
    except RuleError as exc:
        assert exc.code == "pack_too_small" and not feasible
        return
    assert feasible
    refs = [r for rs in out["refs"].values() for r in rs]
    assert len(refs) == len(set(refs))  # never the same question twice
    assert [s["number"] for s in out["sectors"]] == list(range(1, count + 1))
    for s in out["sectors"]:
        assert len(s["questions"]) == (3 if s["kind"] in ("blitz", "superblitz") else 1)
    if multi and blitz:
        assert out["refs"]["1"] == [f"2.{singles - singles // 2 + 1}"]
    assert out == fill_sectors(pack, body)
    spec = {"rules": rules, "sector_count": count, "sectors": out["sectors"]}
    if rules == "club":
        spec.update(teams=[{"id": "a", "name": "A"}, {"id": "b", "name": "B"}], game_day="d")
    parse_spec(spec)  # what the panel sends on is a valid game spec


def test_fill_errors_are_input_errors():
    pack = parse_pack(make_pack(3, False), "t.4s")
    with pytest.raises(InputError) as e:
        fill_sectors(pack, {"sectors": [{"number": 1, "questions": ["3.1"]}]})
    assert e.value.status == 400 and "the pack has 2 tour(s)" in e.value.message
