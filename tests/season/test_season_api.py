"""The league season against a real server: members, a season with two game days, registrations,
fees, team formation and edits, two club games played through the commands API, and what the
season's endpoints then say (rating, best players, Final teams, the Final, awards, CSV).

The tests of this module share one server and run in file order: each builds on the season as
the previous ones left it (as the administration would use it)."""
from __future__ import annotations

import csv
import io

import pytest
import requests

from tests.support import Server

from .helpers import approved_members, club_game, count_actions, ok, play_club, play_tv, refused, tv_game

A = ["Анна Арбузова", "Артём Абрамов", "Алла Акимова", "Антон Анохин", "Ася Авдеева", "Аркадий Агеев"]
B = ["Борис Белов", "Вера Васнецова", "Глеб Громов", "Дина Дымова", "Егор Ершов", "Жанна Жукова", "Зоя Зимина"]
C = ["Игорь Ильин", "Кира Котова"]
SECRET = "Тайный вопрос клуба"


@pytest.fixture(scope="module")
def ids(srv: Server) -> dict:
    """Members by name, approved adults (plus one candidate and one refused member)."""
    out = {}
    for name in A + B + C:
        member = ok(srv, "POST", "/api/members", {"name": name, "adult": True}, 201)["member"]
        ok(srv, "POST", f"/api/members/{member['id']}/status",
           {"status": "approved", "date": "2026-02-01", "reason": "заявка рассмотрена"})
        out[name] = member["id"]
    out["candidate"] = ok(srv, "POST", "/api/members", {"name": "Лев Лунин", "adult": True}, 201)["id"]
    refused_id = ok(srv, "POST", "/api/members", {"name": "Мария Мишина", "adult": True}, 201)["id"]
    ok(srv, "POST", f"/api/members/{refused_id}/status",
       {"status": "refused", "date": "2026-02-01", "reason": "решение администрации"})
    out["refused"] = refused_id
    return out


@pytest.fixture(scope="module")
def season(srv: Server, ids: dict) -> dict:
    """Season s1: two game days, the first two holdings formed and played."""
    sid = ok(srv, "POST", "/api/seasons", {"name": "Весна 2026", "qualifying_days": 2,
                                           "fees": {"individual": 500, "team": 3000, "currency": "RUB"}}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2026-03-01", "confirm": True})
    days = ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 2, "sunday": "2026-03-08", "confirm": True})["days"]
    d1, d2 = (f"{sid}-d1-sun", f"{sid}-d2-sun")
    assert [h["id"] for h in days[0]["holdings"]] == [d1, f"{sid}-d1-wed"]
    assert [h["date"] for h in days[0]["holdings"]] == ["2026-03-01", "2026-03-04"]

    # game day 1, Sunday: a pre-formed team with an absentee, and seven individuals
    team = ok(srv, "POST", f"/api/holdings/{d1}/registrations", {"team": "Сфинкс", "members": [ids[n] for n in A]}, 201)
    ok(srv, "POST", f"/api/registrations/{team['id']}/absent", {"member": ids[A[5]], "absent": True})
    singles = [ok(srv, "POST", f"/api/holdings/{d1}/registrations", {"member": ids[n]}, 201)["id"] for n in B]
    ok(srv, "POST", f"/api/registrations/{team['id']}/payment", {"receipt": "R-001"})
    ok(srv, "POST", f"/api/registrations/{singles[0]}/payment", {"receipt": "R-002"})
    formed = ok(srv, "POST", f"/api/holdings/{d1}/teams/form", {})
    teams1 = formed["teams"]

    # game day 2, Sunday: a team of four filled from the individuals, the rest form a team
    ok(srv, "POST", f"/api/holdings/{d2}/registrations", {"team": "Сфинкс", "members": [ids[n] for n in A[:4]]}, 201)
    for n in B[1:] + C:
        ok(srv, "POST", f"/api/holdings/{d2}/registrations", {"member": ids[n]}, 201)
    teams2 = ok(srv, "POST", f"/api/holdings/{d2}/teams/form", {})["teams"]
    teams2 = ok(srv, "PUT", f"/api/holdings/{d2}/teams/t2", {"name": "Сова", "reason": "команда выбрала название"})["teams"]

    g1 = club_game(srv, sid, d1, teams1, secret=SECRET)
    play_club(srv, g1, "t1", [(True, ["t2"], None), (False, ["t2"], "t2"), (True, ["t1"], None), (True, [], None)],
              best=B[1])
    g2 = club_game(srv, sid, d2, teams2)
    play_club(srv, g2, "t2", [(False, ["t1"], "t1"), (True, [], None), (True, ["t2"], None), (True, [], None)],
              best=A[0])
    return {"id": sid, "d1": d1, "d2": d2, "teams1": teams1, "teams2": teams2, "formed1": formed,
            "team_reg": team["id"], "singles": singles, "games": [g1, g2]}


# members ------------------------------------------------------------------------------------------

def test_membership_needs_an_adult_and_every_status_change_has_a_date_and_reason(srv: Server):
    m = ok(srv, "POST", "/api/members", {"name": "Никита Носов", "rating_id": "12345"}, 201)["member"]
    assert m["status"] == "candidate" and m["adult"] is False and m["rating_id"] == 12345
    path = f"/api/members/{m['id']}"
    refused(srv, "POST", path + "/status", {"status": "approved", "date": "2026-02-01", "reason": "ок"}, 422, "not_adult")
    refused(srv, "POST", path + "/status", {"status": "approved", "date": "2026-02-01"}, 400)
    refused(srv, "POST", path + "/status", {"status": "approved", "date": "01.02.2026", "reason": "ок"}, 400)
    refused(srv, "POST", path + "/status", {"status": "ended", "date": "2026-02-01", "reason": "ок"}, 422, "status_change")
    refused(srv, "PATCH", path, {"adult": True}, 400, "reason_required")
    assert ok(srv, "GET", path)["member"] == m  # nothing changed by the refusals

    ok(srv, "PATCH", path, {"adult": True, "reason": "паспорт предъявлен"})
    ok(srv, "POST", path + "/status", {"status": "approved", "date": "2026-02-02", "reason": "одобрен"})
    ended = ok(srv, "POST", path + "/status", {"status": "ended", "date": "2026-05-01",
                                              "reason": "нарушение правил клуба"})["member"]
    assert (ended["status"], ended["status_date"], ended["status_reason"]) == ("ended", "2026-05-01", "нарушение правил клуба")
    actions = ok(srv, "GET", path)["actions"]
    assert [a["kind"] for a in actions] == ["member_status", "member_status", "member_edited", "member_created"]
    assert actions[2]["reason"] == "паспорт предъявлен" and actions[2]["body"]["before"] == {"adult": False}
    refused(srv, "GET", "/api/members/9999", None, 404, "unknown_member")


# season, registrations, fees, teams --------------------------------------------------------------

def test_teams_formed_by_the_rules(srv: Server, ids: dict, season: dict):
    t1, t2 = season["teams1"]
    assert (t1["id"], t1["name"], t1["preformed"]) == ("t1", "Сфинкс", True)
    assert t1["players"] == A[:5] + [B[0]] and t1["fillers"] == [ids[B[0]]]  # the absentee replaced
    assert (t2["name"], t2["players"], t2["preformed"]) == ("Команда 1", B[1:], False)
    assert [t["players"] for t in season["teams2"]] == [A[:4] + B[1:3], B[3:] + C]
    assert season["teams2"][1]["name"] == "Сова"
    view = ok(srv, "GET", f"/api/holdings/{season['d1']}")
    assert view["unplaced"] == [] and view["short"] == []
    assert view["fees"] == {"registrations": 8, "paid": 2, "unpaid": 6, "totals": {"RUB": 3500.0}}
    team_reg = next(r for r in view["registrations"] if r["kind"] == "team")
    assert team_reg["payment"]["receipt"] == "R-001" and team_reg["payment"]["method"] == "cash"
    assert team_reg["payment"]["amount"] == 3000


def test_registration_refusals_change_nothing(srv: Server, ids: dict, season: dict):
    d1, wed = season["d1"], f"{season['id']}-d1-wed"
    before = ok(srv, "GET", f"/api/holdings/{d1}")
    before_wed = ok(srv, "GET", f"/api/holdings/{wed}")
    n_actions = count_actions(srv, f"/api/seasons/{season['id']}/actions")
    refused(srv, "POST", f"/api/holdings/{d1}/registrations", {"member": ids["candidate"]}, 422, "member_not_approved")
    refused(srv, "POST", f"/api/holdings/{d1}/registrations", {"member": ids["refused"]}, 422, "member_not_approved")
    refused(srv, "POST", f"/api/holdings/{d1}/registrations", {"member": ids[B[3]]}, 422, "already_registered")
    err = refused(srv, "POST", f"/api/holdings/{wed}/registrations", {"member": ids[B[3]]}, 422, "already_registered")
    assert "same questions" in err["message"]
    refused(srv, "POST", f"/api/holdings/{wed}/registrations",
            {"team": "Семеро", "members": [ids[n] for n in B]}, 400, "bad_field")
    refused(srv, "POST", f"/api/holdings/{wed}/registrations", {"member": 9999}, 400, "unknown_member")
    refused(srv, "POST", f"/api/holdings/{wed}/registrations", {"member": ids[C[0]], "team": "X"}, 400)
    refused(srv, "POST", f"/api/holdings/{d1}-x/registrations", {"member": ids[C[0]]}, 404, "unknown_holding")
    r = srv.call("POST", f"/api/holdings/{wed}/registrations", data=b"{not json", json=None)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    # fees and teams
    refused(srv, "POST", f"/api/registrations/{season['singles'][1]}/payment", {}, 400)
    refused(srv, "POST", f"/api/registrations/{season['singles'][0]}/payment", {"receipt": "R-009"}, 400,
            "reason_required")
    refused(srv, "POST", f"/api/registrations/{season['singles'][1]}/payment", {"receipt": "R-3", "amount": -5}, 400)
    refused(srv, "PUT", f"/api/holdings/{d1}/teams/t1", {"name": "Новое имя"}, 400, "reason_required")
    refused(srv, "PUT", f"/api/holdings/{d1}/teams/t1", {"members": [ids[C[0]]], "reason": "замена"}, 422,
            "not_registered")
    refused(srv, "PUT", f"/api/holdings/{d1}/teams/t1", {"members": [ids[A[5]]], "reason": "замена"}, 422, "absent")
    refused(srv, "PUT", f"/api/holdings/{d1}/teams/t9", {"name": "X", "reason": "y"}, 404, "unknown_team")
    refused(srv, "POST", f"/api/holdings/{d1}/teams/form", {}, 400, "reason_required")
    assert ok(srv, "GET", f"/api/holdings/{d1}") == before
    assert ok(srv, "GET", f"/api/holdings/{wed}") == before_wed
    assert count_actions(srv, f"/api/seasons/{season['id']}/actions") == n_actions


def test_season_and_day_refusals_change_nothing(srv: Server, season: dict):
    seasons = ok(srv, "GET", "/api/seasons")["seasons"]
    for bad in [{"name": ""}, {"name": "X", "qualifying_days": 0}, {"name": "X", "qualifying_days": "5"},
                {"name": "X", "colour": "red"}, {"qualifying_days": 5}, [], {"name": "X", "fees": {"team": "дорого"}}]:
        refused(srv, "POST", "/api/seasons", bad, 400)
    assert ok(srv, "GET", "/api/seasons")["seasons"] == seasons
    path = f"/api/seasons/{season['id']}"
    before = ok(srv, "GET", path)
    refused(srv, "POST", path + "/days", {"day": 2, "sunday": "2026-03-10"}, 400)              # a Tuesday
    refused(srv, "POST", path + "/days", {"day": 3, "sunday": "2026-03-15"}, 400)              # only 2 days
    refused(srv, "POST", path + "/days", {"day": 2, "sunday": "2026-03-15"}, 400, "reason_required")
    refused(srv, "POST", path + "/days", {"day": 2, "sunday": "2026-03-01", "reason": "перенос"}, 422, "date_taken")
    refused(srv, "GET", "/api/seasons/s99", None, 404, "unknown_season")
    assert ok(srv, "GET", path) == before


def test_fee_correction_and_team_edits_are_recorded_with_reasons(srv: Server, ids: dict, season: dict):
    reg = ok(srv, "POST", f"/api/registrations/{season['singles'][0]}/payment",
             {"receipt": "R-002a", "reason": "опечатка в номере чека"})["registration"]
    assert reg["payment"]["receipt"] == "R-002a"
    actions = ok(srv, "GET", f"/api/seasons/{season['id']}/actions")["actions"]
    fee = next(a for a in actions if a["kind"] == "fee_corrected")
    assert fee["reason"] == "опечатка в номере чека" and fee["body"]["before"]["receipt"] == "R-002"
    rename = next(a for a in actions if a["kind"] == "team_edited")
    assert rename["reason"] == "команда выбрала название"
    assert rename["body"]["before"]["name"] == "Команда 1" and rename["body"]["after"]["name"] == "Сова"


def test_team_edit_moves_a_player_and_says_so(srv: Server, ids: dict, season: dict):
    """On the Wednesday holding: form, then move a player from one team to another."""
    wed = f"{season['id']}-d2-wed"
    names = ["Лидия Лебедева", "Марк Миронов", "Нина Нестерова", "Олег Орлов", "Павел Панов", "Раиса Рябова",
             "Семён Соколов", "Таисия Титова", "Ульяна Уварова"]
    extra = list(approved_members(srv, names, date="2026-03-01").values())
    for mid in extra:
        ok(srv, "POST", f"/api/holdings/{wed}/registrations", {"member": mid}, 201)
    teams = ok(srv, "POST", f"/api/holdings/{wed}/teams/form", {})["teams"]
    assert [len(t["members"]) for t in teams] == [5, 4]  # nine individuals: balanced, 4–6 each
    moved = extra[0]
    view = ok(srv, "PUT", f"/api/holdings/{wed}/teams/t2",
              {"members": teams[1]["members"] + [moved], "reason": "просьба игрока"})
    assert [len(t["members"]) for t in view["teams"]] == [4, 5]
    record = ok(srv, "GET", f"/api/seasons/{season['id']}/actions")["actions"][0]
    assert record["kind"] == "team_edited" and record["body"]["moved"] == [{"member": moved, "from": "t1"}]
    again = ok(srv, "POST", f"/api/holdings/{wed}/teams/form", {"reason": "пересобрать после замен"})
    assert [len(t["members"]) for t in again["teams"]] == [5, 4]
    assert ok(srv, "GET", f"/api/seasons/{season['id']}/actions")["actions"][0]["kind"] == "teams_reformed"


# rating and best players from the games -----------------------------------------------------------

def rating_of(srv: Server, sid: str) -> dict[str, tuple]:
    rows = ok(srv, "GET", f"/api/seasons/{sid}/rating")["rating"]
    return {r["player"]: (r["points"], r["games"], r["place"], r["progression"]) for r in rows}


def test_rating_comes_from_the_played_games(srv: Server, ids: dict, season: dict):
    data = ok(srv, "GET", f"/api/seasons/{season['id']}/rating")
    assert data["ignored"] == [] and data["playing"] == []
    assert [g["game"] for g in data["games"]] == season["games"]
    got = {r["player"]: (r["points"], r["games"], r["place"], r["progression"]) for r in data["rating"]}
    expected = {
        **{n: (13, 2, 1, [6, 13]) for n in B[1:3]},
        **{n: (10, 2, 3, [3, 10]) for n in A[:4]},
        **{n: (7, 2, 7, [6, 7]) for n in B[3:]},
        A[4]: (3, 1, 11, [3, 3]), B[0]: (3, 1, 11, [3, 3]),
        **{n: (1, 1, 13, [0, 1]) for n in C},
    }
    assert got == expected
    assert [r["points"] for r in data["rating"]] == sorted((r["points"] for r in data["rating"]), reverse=True)
    # players are members: identified by member id
    assert all(r["member"] == ids[r["player"]] for r in data["rating"])


def test_best_players_of_the_central_table(srv: Server, ids: dict, season: dict):
    best = ok(srv, "GET", f"/api/seasons/{season['id']}/best-players")["best_players"]
    assert [(b["player"], b["member"], b["times"], b["games"]) for b in best] == [
        (B[1], ids[B[1]], 1, [season["games"][0]]), (A[0], ids[A[0]], 1, [season["games"][1]])]


def test_a_game_that_cannot_count_is_listed_with_the_reason(srv: Server, season: dict):
    stray = club_game(srv, season["id"], "2026-03-22-sun", season["teams1"])
    no_stage = srv.create({"rules": "club", "season": season["id"], "game_day": season["d1"], "teams": [
        {"id": t["id"], "name": t["name"], "players": t["players"]} for t in season["teams1"]]})
    data = ok(srv, "GET", f"/api/seasons/{season['id']}/rating")
    reasons = {i["game"]: i["reason"] for i in data["ignored"]}
    assert "not a holding" in reasons[stray] and "stage" in reasons[no_stage]
    codes = {i["game"]: (i["code"], i.get("game_day")) for i in data["ignored"]}
    assert codes == {stray: ("not_a_holding", "2026-03-22-sun"), no_stage: ("no_stage", None)}
    assert rating_of(srv, season["id"])[B[1]][0] == 13


def test_unfinished_game_is_not_counted_yet(srv: Server, season: dict):
    g = club_game(srv, season["id"], season["d1"], season["teams1"])
    data = ok(srv, "GET", f"/api/seasons/{season['id']}/rating")
    assert g in data["playing"] and rating_of(srv, season["id"])[B[1]][0] == 13


def test_rating_correction_is_recorded_and_counted(srv: Server, ids: dict, season: dict):
    path = f"/api/seasons/{season['id']}/rating/adjustments"
    before = ok(srv, "GET", f"/api/seasons/{season['id']}/rating")
    for bad, status in [({"player": ids[C[0]], "points": 2, "day": 2}, 400),
                        ({"player": ids[C[0]], "points": 0, "day": 2, "reason": "x"}, 400),
                        ({"player": ids[C[0]], "points": 2, "day": 3, "reason": "x"}, 400),
                        ({"player": 9999, "points": 2, "day": 2, "reason": "x"}, 400),
                        ({"player": ids[C[0]], "points": 2.5, "day": 2, "reason": "x"}, 400)]:
        refused(srv, "POST", path, bad, status)
    assert ok(srv, "GET", f"/api/seasons/{season['id']}/rating") == before
    after = ok(srv, "POST", path, {"player": ids[C[0]], "points": 2, "day": 2,
                                   "reason": "апелляция: ответ засчитан"}, 201)
    row = next(r for r in after["rating"] if r["player"] == C[0])
    assert (row["points"], row["adjustment"], row["progression"], row["place"]) == (3, 2, [0, 3], 11)
    assert after["adjustments"][-1]["reason"] == "апелляция: ответ засчитан"
    assert ok(srv, "GET", f"/api/seasons/{season['id']}/actions")["actions"][0]["kind"] == "rating_adjusted"


def test_rating_and_fees_csv(srv: Server, ids: dict, season: dict):
    r = srv.call("GET", f"/api/seasons/{season['id']}/rating.csv")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][:5] == ["Место", "Игрок", "Член клуба №", "Очки", "Игр"] and rows[0][-1] == "После дня 2"
    table = {row[1]: row for row in rows[1:]}
    assert table[B[1]][:5] == ["1", B[1], str(ids[B[1]]), "13", "2"] and table[B[1]][-2:] == ["6", "13"]
    assert len(rows) == 1 + len(ok(srv, "GET", f"/api/seasons/{season['id']}/rating")["rating"])
    en = srv.call("GET", f"/api/seasons/{season['id']}/rating.csv?lang=en").content.decode("utf-8-sig")
    assert en.startswith("Place,Player")
    fees = list(csv.reader(io.StringIO(srv.call("GET", f"/api/seasons/{season['id']}/fees.csv").content.decode("utf-8-sig"))))
    assert fees[0][0] == "Игровой день"
    regs, totals = fees[1:fees.index([])], fees[fees.index([]) + 1:]
    by_receipt = {row[10]: row for row in regs}
    assert by_receipt["R-001"][4:9] == ["команда", "Сфинкс", "; ".join(A), "оплачено", "3000"]
    assert by_receipt["R-002a"][7:9] == ["оплачено", "500"]
    # unpaid: said in the payment column; the receipt column holds receipts only
    unpaid = [row for row in regs if row[7] == "не оплачено"]
    assert len(unpaid) == len(regs) - 2 and {row[10] for row in unpaid} == {""}
    assert totals == [["Итого", "", "", str(len(regs)), "", "", "", f"оплачено 2 из {len(regs)}", "3500", "RUB", "", ""]]
    assert requests.get(f"{srv.url}/api/seasons/{season['id']}/rating.csv", timeout=5).status_code == 401


# the Final's teams -----------------------------------------------------------------------------------

def names(members: list[dict]) -> list[str]:
    return [m["player"] for m in members]


def test_final_teams_proposed_then_chosen_by_the_administration(srv: Server, ids: dict, season: dict):
    path = f"/api/seasons/{season['id']}/final-teams"
    ft = ok(srv, "GET", path)
    assert names(ft["central_table"]) == [B[1], A[0], B[2], A[2], A[3], A[1]]
    assert [m["rule"] for m in ft["central_table"]] == ["best_player"] * 2 + ["proposed_fill"] * 4
    assert names(ft["club"]) == B[3:] + [A[4], B[0]]
    assert set(ft["pending"]) == {"central_table_fill", "rating_tie_club"} and ft["invite"] == []

    refused(srv, "POST", path + "/choices", {"kind": "central_pick", "players": [ids[n] for n in B[:6]],
                                             "reason": "x"}, 422, "season.central_pick")
    refused(srv, "POST", path + "/choices", {"kind": "club_claims", "players": [ids[B[4]]], "reason": "x"}, 422,
            "season.claims")
    refused(srv, "POST", path + "/choices", {"kind": "central_fill", "players": [ids[B[2]]]}, 400, "reason_required")
    refused(srv, "POST", path + "/choices", {"kind": "captain", "players": [], "reason": "x"}, 400)
    assert ok(srv, "GET", path) == ft

    fill = [ids[n] for n in (B[2], A[1], A[2], A[3])]
    ft = ok(srv, "POST", path + "/choices", {"kind": "central_fill", "players": fill,
                                            "reason": "решение администрации от 20.04"}, 201)
    assert [m["rule"] for m in ft["central_table"]][2:] == ["admin_fill"] * 4
    assert ft["pending"] == ["rating_tie_club"]
    assert ft["choices"]["central_fill"]["reason"] == "решение администрации от 20.04"

    ft = ok(srv, "POST", path + "/choices", {"kind": "declined", "players": [ids[B[3]]],
                                            "reason": "отказался: уезжает"}, 201)
    assert names(ft["club"]) == B[4:] + [A[4], B[0]]
    assert ft["free_places"] == 1
    assert names(ft["invite"]) == [C[0], C[1]]  # the next by rating: as many as there are, up to free + 2
    assert [a["kind"] for a in ok(srv, "GET", f"/api/seasons/{season['id']}/actions")["actions"][:2]] == \
        ["final_choice", "final_choice"]


# the Final and the awards -----------------------------------------------------------------------------

def test_final_equal_scores_go_to_the_second_team_and_the_sphinx(srv: Server, ids: dict, season: dict):
    sid = season["id"]
    assert ok(srv, "GET", f"/api/seasons/{sid}/final") == {"season": sid, "winner": None, "games": [], "problems": []}
    club = tv_game(srv, "Команда Клуба", B[4:] + [A[4], B[0], C[0]], season=sid, stage="final", final_team="club")
    central = tv_game(srv, "Команда Центрального стола", [B[1], A[0], B[2], A[1], A[2], A[3]], season=sid,
                      stage="final", final_team="central_table")
    refused(srv, "POST", f"/api/seasons/{sid}/awards", {"crystal_sphinx": ids[B[1]], "reason": "лучший"}, 422,
            "final_not_decided")
    play_tv(srv, club, [True, False, True])
    assert ok(srv, "GET", f"/api/seasons/{sid}/final")["winner"] is None  # the second game is still to play
    play_tv(srv, central, [False, True, True])
    final = ok(srv, "GET", f"/api/seasons/{sid}/final")
    assert final["winner"] == "central_table" and final["problems"] == []
    assert [(g["final_team"], g["score"]) for g in final["games"]] == [
        ("club", {"experts": 2, "viewers": 1}), ("central_table", {"experts": 2, "viewers": 1})]

    refused(srv, "POST", f"/api/seasons/{sid}/awards", {"crystal_sphinx": ids[C[0]], "reason": "лучший"}, 422,
            "not_a_winner")
    refused(srv, "POST", f"/api/seasons/{sid}/awards", {"crystal_sphinx": ids[B[1]]}, 400, "reason_required")
    awards = ok(srv, "POST", f"/api/seasons/{sid}/awards",
                {"crystal_sphinx": ids[B[1]], "reason": "решение жюри"}, 201)
    assert awards["winner"] == "central_table" and awards["team"] == "Команда Центрального стола"
    assert [w["player"] for w in awards["winners"]] == [B[1], A[0], B[2], A[1], A[2], A[3]]
    assert awards["crystal_sphinx"]["player"] == B[1] and awards["crystal_sphinx"]["reason"] == "решение жюри"


def test_final_better_score_wins(srv: Server):
    sid = ok(srv, "POST", "/api/seasons", {"name": "Осень 2026"}, 201)["id"]
    assert ok(srv, "GET", f"/api/seasons/{sid}")["qualifying_days"] == 5
    club = tv_game(srv, "Клуб", season=sid, stage="final", final_team="club")
    central = tv_game(srv, "Центральный стол", season=sid, stage="final", final_team="central_table")
    play_tv(srv, club, [True, True])
    play_tv(srv, central, [True, False, True])
    assert ok(srv, "GET", f"/api/seasons/{sid}/final")["winner"] == "club"


# public data for the graphics ---------------------------------------------------------------------------

def test_public_season_view_has_only_public_data(srv: Server, season: dict):
    r = requests.get(f"{srv.url}/api/public/seasons/{season['id']}?top=5", timeout=5)
    assert r.status_code == 200
    data = r.json()
    assert [x["player"] for x in data["rating"]][:2] == B[1:3] and len(data["rating"]) == 5
    assert data["final_teams"]["central_table"][:2] == [B[1], A[0]]
    assert data["final"]["winner"] == "central_table" and data["awards"]["crystal_sphinx"] == B[1]
    text = r.text
    for secret in (SECRET, "reason", "member", "receipt", "апелляция", "approved"):
        assert secret not in text
    assert SECRET in srv.call("GET", f"/api/games/{season['games'][0]}").text  # the operator's view has it
    index = requests.get(f"{srv.url}/api/public/league", timeout=5).json()
    assert season["id"] in [s["id"] for s in index["seasons"]]


def test_operator_endpoints_need_credentials(srv: Server, season: dict):
    sid = season["id"]
    for method, path in [("GET", "/api/members"), ("POST", "/api/members"), ("GET", "/api/seasons"),
                         ("POST", "/api/seasons"), ("GET", f"/api/seasons/{sid}/rating"),
                         ("GET", f"/api/seasons/{sid}/final-teams"), ("GET", f"/api/holdings/{season['d1']}"),
                         ("POST", f"/api/seasons/{sid}/rating/adjustments"), ("GET", "/api/series"),
                         ("POST", "/api/series"), ("GET", f"/api/seasons/{sid}/fees.csv")]:
        assert requests.request(method, srv.url + path, json={}, timeout=5).status_code == 401, path


def test_restart_keeps_the_season(srv: Server, season: dict):
    """Everything above is in SQLite: a new server process on the same data answers the same.
    (Last in the module: the module's server is stopped here.)"""
    rating = ok(srv, "GET", f"/api/seasons/{season['id']}/rating")
    final = ok(srv, "GET", f"/api/seasons/{season['id']}/final")
    holding = ok(srv, "GET", f"/api/holdings/{season['d1']}")
    srv.stop()
    again = Server(srv.data, demo=False, port=srv.port).start()
    try:
        assert ok(again, "GET", f"/api/seasons/{season['id']}/rating") == rating
        assert ok(again, "GET", f"/api/seasons/{season['id']}/final") == final
        assert ok(again, "GET", f"/api/holdings/{season['d1']}") == holding
    finally:
        again.stop()
