"""Issue 25, the league's data: games made from the league's own data, players stored as members
by id when a game is made (a rename moves nothing, even across a restart), no phantom players,
fee undo and duplicate receipts, the tie at the Club team's cut, per-day rating columns, and
dates or withdrawals that need an explicit confirmation. One real server for the module; the
tests build on each other's data, in order."""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pytest
import requests

from tests.faults.helpers import csrf_of, login
from tests.support import Server

from .helpers import approved_members, command, count_actions, ok, play_club, refused

A = ["Алла Аксёнова", "Борис Белов", "Вера Власова", "Григорий Гусев", "Дарья Дёмина"]
B = ["Егор Ершов", "Жанна Жукова", "Зиновий Зуев", "Инна Ильина", "Кирилл Котов"]
C = ["Лев Лаптев", "Мария Миронова", "Никита Носов", "Ольга Осипова", "Пётр Панин"]
SUN1, SUN2 = "2027-03-07", "2027-03-14"  # after the server's today: no confirmation asked


@pytest.fixture(scope="module")
def league(srv: Server) -> dict:
    ids = approved_members(srv, A + B + C)
    sid = ok(srv, "POST", "/api/seasons", {"name": "Зима 2027", "qualifying_days": 3,
                                           "fees": {"individual": 500, "team": 2500, "currency": "RUB"}}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": SUN1})
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 2, "sunday": SUN2})
    hid = f"{sid}-d1-sun"
    regs = {}
    for team, names in (("Альфа", A), ("Бета", B), ("Гамма", C)):
        regs[team] = ok(srv, "POST", f"/api/holdings/{hid}/registrations",
                        {"team": team, "members": [ids[n] for n in names]}, 201)["id"]
    teams = ok(srv, "POST", f"/api/holdings/{hid}/teams/form", {})["teams"]
    assert [t["name"] for t in teams] == ["Альфа", "Бета", "Гамма"]
    return {"ids": ids, "sid": sid, "hid": hid, "regs": regs, "teams": teams}


@pytest.fixture(scope="module")
def browser(srv: Server) -> Iterator[requests.Session]:
    s = login(srv.url)
    yield s
    s.close()


def rating(srv: Server, sid: str) -> dict[int, dict]:
    return {r["member"]: r for r in ok(srv, "GET", f"/api/seasons/{sid}/rating")["rating"]}


def test_the_holding_makes_its_game_from_its_teams(srv: Server, league: dict):
    hid, sid = league["hid"], league["sid"]
    refused(srv, "POST", f"/api/holdings/{sid}-d2-sun/games", {}, 422, "holding_no_teams")
    made = ok(srv, "POST", f"/api/holdings/{hid}/games", {"title": "Зима · день 1 · вс · игра 1", "target": 3}, 201)
    assert made["warnings"] == []  # every player is a member
    state = srv.state(made["id"])
    assert (state["season"], state["stage"], state["game_day"]) == (sid, "qualifying", hid)
    assert [t["name"] for t in state["teams"]] == ["Альфа", "Бета", "Гамма"]
    assert ok(srv, "GET", f"/api/holdings/{hid}/games")["games"][0]["game"] == made["id"]
    # A at the Central Table answers three times; B and C each write one correct answer
    play_club(srv, made["id"], "t1", [(True, ["t2", "t3"], None), (True, [], None), (True, [], None)], best=A[0])
    league["game"] = made["id"]
    rows = rating(srv, sid)
    ids = league["ids"]
    assert {rows[ids[n]]["points"] for n in A} == {6} and {rows[ids[n]]["points"] for n in B + C} == {1}
    assert ok(srv, "GET", f"/api/seasons/{sid}/rating")["games"][0]["game"] == made["id"]
    actions = ok(srv, "GET", f"/api/seasons/{sid}/actions")["actions"]
    assert any(a["kind"] == "game_created" and a["body"]["game"] == made["id"] for a in actions)


def test_a_rename_moves_nothing_even_after_a_restart(srv: Server, league: dict, tmp_path_factory):
    sid, ids = league["sid"], league["ids"]
    before = rating(srv, sid)
    mid = ids[A[0]]
    ok(srv, "PATCH", f"/api/members/{mid}", {"name": "Алла Аксёнова-Белова", "reason": "сменила фамилию"})
    srv.kill()
    srv.start()  # the member ids come back with the game's stored spec
    after = rating(srv, sid)
    assert after[mid]["player"] == "Алла Аксёнова-Белова"
    assert {k: (r["points"], r["place"], r["games"]) for k, r in after.items()} == \
        {k: (r["points"], r["place"], r["games"]) for k, r in before.items()}
    assert len(after) == len(before) == 15
    best = ok(srv, "GET", f"/api/seasons/{sid}/best-players")["best_players"]
    assert [(b["player"], b["member"], b["times"]) for b in best] == [("Алла Аксёнова-Белова", mid, 1)]
    text = srv.call("GET", f"/api/seasons/{sid}/rating.csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    named = [r for r in rows if "Аксёнова" in r[1]]
    assert len(named) == 1 and named[0][1] == "Алла Аксёнова-Белова" and named[0][2] == str(mid) and named[0][3] == "6"


def test_a_game_made_elsewhere_stores_members_and_says_who_is_not_one(srv: Server, league: dict):
    sid, hid, ids = league["sid"], league["hid"], league["ids"]
    formed = ok(srv, "GET", f"/api/holdings/{hid}/teams")["teams"]  # today's names (one was renamed)
    teams = [{"id": t["id"], "name": t["name"], "players": t["players"]} for t in formed[:2]]
    teams[1]["players"] = teams[1]["players"][:4] + ["Гость Без Членства"]
    r = srv.call("POST", "/api/games", {"rules": "club", "season": sid, "stage": "qualifying", "game_day": hid,
                                        "teams": teams})
    assert r.status_code == 201, r.text
    assert r.json()["warnings"] == [{"code": "not_a_member", "player": "Гость Без Членства", "team": "Бета"}]
    # a member in two line-ups is refused when the game is made, not ignored by the rating later
    twice = [{"id": "t1", "name": "Один", "players": [A[1]]}, {"id": "t2", "name": "Два", "players": [A[1], B[1]]}]
    games = len(ok(srv, "GET", "/api/games")["games"])
    err = refused(srv, "POST", "/api/games", {"rules": "club", "season": sid, "game_day": hid, "teams": twice},
                  422, "member_in_two_teams")
    assert A[1] in err["message"] and len(ok(srv, "GET", "/api/games")["games"]) == games
    refused(srv, "POST", "/api/games", {"rules": "club", "season": sid, "game_day": hid,
                                        "teams": [{"id": "t1", "name": "Один", "players": [A[1]], "members": [99999]},
                                                  {"id": "t2", "name": "Два", "players": [B[1]]}]}, 400, "unknown_member")
    refused(srv, "POST", "/api/games", {"rules": "club", "season": sid, "game_day": hid,
                                        "teams": [{"id": "t1", "name": "Один", "players": [A[1]], "members": [1, 2]},
                                                  {"id": "t2", "name": "Два", "players": [B[1]]}]}, 400, "bad_spec")
    assert ids  # (the module's members stay as they are)


def test_a_correction_or_choice_naming_no_member_is_refused(srv: Server, league: dict):
    sid = league["sid"]
    before = ok(srv, "GET", f"/api/seasons/{sid}/rating")
    n = count_actions(srv, f"/api/seasons/{sid}/actions")
    err = refused(srv, "POST", f"/api/seasons/{sid}/rating/adjustments",
                  {"player": "Несуществующий Игрок", "points": 2, "day": 1, "reason": "апелляция"}, 422, "not_a_member")
    assert "Несуществующий Игрок" in err["message"]
    refused(srv, "POST", f"/api/seasons/{sid}/final-teams/choices",
            {"kind": "declined", "players": ["Несуществующий Игрок"], "reason": "x"}, 422, "not_a_member")
    assert ok(srv, "GET", f"/api/seasons/{sid}/rating") == before
    assert count_actions(srv, f"/api/seasons/{sid}/actions") == n
    # a member by name is still accepted (the name resolves to the member's id)
    after = ok(srv, "POST", f"/api/seasons/{sid}/rating/adjustments",
               {"player": C[4], "points": 1, "day": 1, "reason": "апелляция принята"}, 201)
    row = next(r for r in after["rating"] if r["member"] == league["ids"][C[4]])
    assert row["points"] == 2 and len(after["rating"]) == 15


def test_the_pages_say_these_refusals_in_the_operators_language(srv: Server, league: dict, browser):
    sid = league["sid"]
    token = csrf_of(browser.get(srv.url + f"/control/admin/seasons/{sid}/rating?lang=ru", timeout=10).text)
    r = browser.post(srv.url + f"/control/admin/seasons/{sid}/adjust", timeout=10, data={
        "csrf": token, "player": "Несуществующий Игрок", "points": "2", "day": "1", "reason": "апелляция"})
    assert r.status_code == 422
    assert "«Несуществующий Игрок» — не член клуба" in r.text and "Не сделано" in r.text
    browser.get(srv.url + f"/control/admin/seasons/{sid}?lang=uk", timeout=10)
    r = browser.post(srv.url + f"/control/admin/seasons/{sid}/days", timeout=10,
                     data={"csrf": token, "day": "3", "sunday": "2026-11-29"})
    assert r.status_code == 422 and "2026-11-29 уже минуло" in r.text and "Підтверджую" in r.text
    browser.get(srv.url + f"/control/admin/seasons/{sid}?lang=ru", timeout=10)
    assert len(ok(srv, "GET", f"/api/seasons/{sid}")["days"]) == 2


def test_per_day_columns_and_the_chart_stop_at_the_last_played_day(srv: Server, league: dict, browser):
    sid, ids = league["sid"], league["ids"]
    data = ok(srv, "GET", f"/api/seasons/{sid}/rating")
    assert data["days"] == 3 and data["played_days"] == 1
    row = next(r for r in data["rating"] if r["member"] == ids[A[1]])
    assert row["per_day"] == [6] and row["progression"] == [6, 6, 6]
    page = browser.get(srv.url + f"/control/admin/seasons/{sid}/rating", timeout=10).text
    tr = next(part for part in page.split("<tr>")[1:] if A[1] in part)
    cells = [c.split("</td>")[0] for c in tr.split('<td class="num">')[1:]]
    assert cells[2] == "6" and "—" in cells[3] and "—" in cells[4]  # day 1, days 2 and 3 unplayed
    assert 'data-values="6"' in page and 'data-values="6,6' not in page


def test_fee_undo_and_a_receipt_used_twice(srv: Server, league: dict):
    sid, regs = league["sid"], league["regs"]
    path = "/api/registrations/{}/payment"
    ok(srv, "POST", path.format(regs["Альфа"]), {"receipt": "К-101"})
    before = ok(srv, "GET", f"/api/holdings/{league['hid']}")["fees"]
    err = refused(srv, "POST", path.format(regs["Бета"]), {"receipt": "к-101"}, 422, "receipt_taken")
    assert "Альфа" in err["message"]
    assert ok(srv, "GET", f"/api/holdings/{league['hid']}")["fees"] == before == \
        {"registrations": 3, "paid": 1, "unpaid": 2, "totals": {"RUB": 2500.0}}
    refused(srv, "POST", path.format(regs["Бета"]), {"amount": 0, "reason": "x"}, 422, "fee_not_paid")
    refused(srv, "POST", path.format(regs["Альфа"]), {"amount": 0}, 400, "reason_required")
    reg = ok(srv, "POST", path.format(regs["Альфа"]), {"amount": 0, "reason": "чек выписан по ошибке"})["registration"]
    assert reg["payment"] is None
    assert ok(srv, "GET", f"/api/holdings/{league['hid']}")["fees"] == \
        {"registrations": 3, "paid": 0, "unpaid": 3, "totals": {}}
    undone = ok(srv, "GET", f"/api/seasons/{sid}/actions")["actions"][0]
    assert undone["kind"] == "fee_undone" and undone["body"]["before"]["receipt"] == "К-101"
    ok(srv, "POST", path.format(regs["Бета"]), {"receipt": "К-101"})  # the number is free again


def test_past_or_out_of_order_days_need_a_confirmation(srv: Server, league: dict):
    sid = league["sid"]
    before = ok(srv, "GET", f"/api/seasons/{sid}")
    err = refused(srv, "POST", f"/api/seasons/{sid}/days", {"day": 3, "sunday": "2026-11-29"}, 422, "day_in_past")
    assert "2026-11-29" in err["message"]
    refused(srv, "POST", f"/api/seasons/{sid}/days", {"day": 3, "sunday": "2027-02-28"}, 422, "day_out_of_order")
    refused(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2027-03-21", "reason": "зал"}, 422,
            "day_out_of_order")  # day 1 after day 2
    refused(srv, "POST", f"/api/seasons/{sid}/days", {"day": 3, "sunday": "2027-02-28", "confirm": "yes"}, 400)
    assert ok(srv, "GET", f"/api/seasons/{sid}") == before
    after = ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 3, "sunday": "2027-02-28", "confirm": True})
    assert [d["holdings"][0]["date"] for d in after["days"]] == [SUN1, SUN2, "2027-02-28"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 3, "sunday": "2027-03-21", "reason": "по порядку"})


def test_withdrawing_a_team_that_played_needs_a_confirmation(srv: Server, league: dict):
    sid, rid = league["sid"], league["regs"]["Гамма"]
    before = ok(srv, "GET", f"/api/holdings/{league['hid']}")
    err = refused(srv, "POST", f"/api/registrations/{rid}/withdraw", {"reason": "ушли"}, 422, "withdraw_played")
    assert "Гамма" in err["message"]
    assert ok(srv, "GET", f"/api/holdings/{league['hid']}") == before
    points = rating(srv, sid)[league["ids"][C[0]]]["points"]
    ok(srv, "POST", f"/api/registrations/{rid}/withdraw", {"reason": "ушли", "confirm": True})
    record = ok(srv, "GET", f"/api/seasons/{sid}/actions")["actions"][0]
    assert record["kind"] == "registration_withdrawn" and record["body"]["played"]
    assert rating(srv, sid)[league["ids"][C[0]]]["points"] == points  # the game played stays counted


def test_the_tie_at_the_club_teams_cut_is_broken_by_a_recorded_decision(srv: Server, league: dict):
    """Central Table team: A's best player + 4 more of A + one filled in; the other nine (B, C)
    are tied on 1 point (C[4] on 2 after a correction) for the Club team's places."""
    sid, ids = league["sid"], league["ids"]
    path = f"/api/seasons/{sid}/final-teams"
    fill = [ids[n] for n in A[1:] + B[:1]]
    ok(srv, "POST", path + "/choices", {"kind": "central_fill", "players": fill, "reason": "решение от 1.04"}, 201)
    teams = ok(srv, "GET", path)
    assert "rating_tie_club" in teams["pending"]
    assert teams["club"][0]["member"] == ids[C[4]]  # two points: above the tie
    tied = [ids[n] for n in B[1:] + C[:4]]
    err = refused(srv, "POST", path + "/choices", {"kind": "club_tie", "players": tied[:3], "reason": "жребий"}, 422,
                  "season.club_tie_count")
    assert "5" in err["message"]
    refused(srv, "POST", path + "/choices", {"kind": "club_tie", "players": [ids[A[1]]] + tied[:4], "reason": "жребий"},
            422, "season.club_tie_not_tied")
    chosen = [tied[7], tied[0], tied[2], tied[4], tied[6]]
    teams = ok(srv, "POST", path + "/choices", {"kind": "club_tie", "players": chosen, "reason": "жребий 2 апреля"}, 201)
    assert "rating_tie_club" not in teams["pending"]
    assert [m["member"] for m in teams["club"]] == [ids[C[4]], *chosen]
    assert {m["rule"] for m in teams["club"][1:]} == {"tie_decision"}
    assert teams["choices"]["club_tie"]["reason"] == "жребий 2 апреля"


def test_the_final_page_makes_the_two_final_games(srv: Server, league: dict):
    sid, ids = league["sid"], league["ids"]
    made = ok(srv, "POST", f"/api/seasons/{sid}/final/games", {"names": {"club": "Клуб", "central_table": "ЦС"},
                                                                 "target": 2}, 201)
    assert len(made["games"]) == 2 and made["warnings"] == []
    refused(srv, "POST", f"/api/seasons/{sid}/final/games", {}, 422, "final_games_exist")
    final = ok(srv, "GET", f"/api/seasons/{sid}/final")
    assert [g["final_team"] for g in final["games"]] == ["club", "central_table"]
    club, central = final["games"]
    assert club["members"][0] == ids[C[4]] and ids[A[0]] in central["members"]
    for game, verdicts in ((made["games"][0], [True, True]), (made["games"][1], [True, False, True])):
        for correct in verdicts:
            command(srv, game, type="spin")
            command(srv, game, type="start_timer")
            command(srv, game, type="judge", correct=correct)
    assert ok(srv, "GET", f"/api/seasons/{sid}/final")["winner"] == "club"
    awards = ok(srv, "GET", f"/api/seasons/{sid}/awards")
    assert [w["member"] for w in awards["winners"]] == [m for m in club["members"]]
    # a rename after the Final: the winners' list follows the member
    ok(srv, "PATCH", f"/api/members/{ids[C[4]]}", {"name": "Пётр Панин-Старший", "reason": "тёзка в клубе"})
    assert ok(srv, "GET", f"/api/seasons/{sid}/awards")["winners"][0]["player"] == "Пётр Панин-Старший"
