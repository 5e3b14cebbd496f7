"""Setting a season up from the pages (issue 25, items 10 and 11) against a real server: a member
list imported from CSV (a wrong row named, nothing imported), many members approved with one
date and reason (one who may not be: nobody changes), team registration offering only members not
yet registered on that game day, and the exports a Russian-locale Excel opens (`;`, BOM, decimal
comma; the fees with a payment column and totals)."""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import pytest
import requests

from tests.faults.helpers import csrf_of, login
from tests.support import Server

from .helpers import ok

NAMES = [f"Участник {i:02d}" for i in range(1, 32)]  # a club of 31, as the try-out


@pytest.fixture(scope="module")
def admin(srv: Server) -> Iterator[requests.Session]:
    s = login(srv.url)
    yield s
    s.close()


def _token(admin: requests.Session, srv: Server, path: str = "/control/admin/members") -> str:
    return csrf_of(admin.get(srv.url + path, timeout=5).text)


def _error(html: str) -> str:
    m = re.search(r'<p class="error" role="alert" id="error">(.*?)</p>', html, re.S)
    assert m, "no refusal on the page"
    return re.sub(r"<[^>]+>", "", m.group(1)).strip()


def test_a_member_list_is_imported_whole_or_not_at_all(srv: Server, admin: requests.Session):
    token = _token(admin, srv)
    # Excel's own save: Windows-1251, `;`, a header in Russian in its own order; row 4 is wrong
    bad = "Номер в рейтинге;Имя;Совершеннолетний\r\n12345;Участник 01;да\r\n;Участник 02;да\r\n;Участник 03;может быть\r\n"
    r = admin.post(srv.url + "/control/admin/members/import", data={"csrf": token},
                   files={"file": ("list.csv", bad.encode("cp1251"), "text/csv")}, timeout=10)
    assert r.status_code == 400
    said = _error(r.text)
    assert said.startswith("Не сделано: Строка 4:") and "«может быть»" in said and "Ничего не импортировано" in said, said
    assert ok(srv, "GET", "/api/members")["members"] == []

    rows = ["Имя;Совершеннолетний;Номер в рейтинге"] + [f"{n};да;{1000 + i}" for i, n in enumerate(NAMES[:30])]
    rows.append(f"{NAMES[30]};нет;")  # a minor: a candidate, not approvable
    r = admin.post(srv.url + "/control/admin/members/import",
                   data={"csrf": token, "text": "\n".join(rows)}, allow_redirects=False, timeout=10)
    assert r.status_code == 303, _error(r.text)
    members = ok(srv, "GET", "/api/members")["members"]
    assert [m["name"] for m in members] == NAMES and {m["status"] for m in members} == {"candidate"}
    assert members[0]["rating_id"] == 1000 and members[0]["adult"] and not members[30]["adult"]
    page = admin.get(srv.url + "/control/admin/members", timeout=5).text
    assert "Сохранено (членов клуба: 31)." in page and "Кандидат Участник 31 добавлен (совершеннолетний: нет)." in page

    # the same list again adds nobody, and says who is already there
    r = admin.post(srv.url + "/control/admin/members/import", data={"csrf": token, "text": "\n".join(rows)}, timeout=10)
    assert r.status_code == 400 and "Строка 2: Участник 01 уже есть среди членов клуба" in _error(r.text)
    assert len(ok(srv, "GET", "/api/members")["members"]) == 31


def test_many_members_approved_with_one_date_and_reason(srv: Server, admin: requests.Session):
    token = _token(admin, srv)
    members = ok(srv, "GET", "/api/members")["members"]
    form = {"csrf": token, "status": "approved", "date": "2026-02-01", "reason": "общее собрание"}
    # every candidate: the minor is one of them, so nobody is approved, and the page says who
    r = admin.post(srv.url + "/control/admin/members/status", data={**form, "all": "candidates"}, timeout=10)
    assert r.status_code == 422
    assert _error(r.text) == (f"Не сделано: Сначала подтвердите, что {NAMES[30]} — совершеннолетний(яя): "
                              "членами клуба становятся только взрослые.")
    assert {m["status"] for m in ok(srv, "GET", "/api/members")["members"]} == {"candidate"}
    r = admin.post(srv.url + "/control/admin/members/status", data=form, timeout=10)
    assert r.status_code == 400 and "Игроки" in _error(r.text)  # nobody ticked
    ticked = [m["id"] for m in members[:30]]
    r = admin.post(srv.url + "/control/admin/members/status", data={**form, "member": ticked},
                   allow_redirects=False, timeout=10)
    assert r.status_code == 303
    after = ok(srv, "GET", "/api/members")["members"]
    assert [m["status"] for m in after] == ["approved"] * 30 + ["candidate"]
    assert {(m["status_date"], m["status_reason"]) for m in after[:30]} == {("2026-02-01", "общее собрание")}
    page = admin.get(srv.url + "/control/admin/members", timeout=5).text
    assert f"{NAMES[0]}: кандидат → одобрен с 2026-02-01." in page and "{&#34;" not in page and '{"' not in page


def test_registration_offers_only_members_not_yet_registered(srv: Server, admin: requests.Session):
    sid = ok(srv, "POST", "/api/seasons", {"name": "Сезон", "qualifying_days": 3,
                                          "fees": {"individual": 300, "team": 1500.5, "currency": "RUB"}}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2027-03-07"})
    ids = {m["name"]: m["id"] for m in ok(srv, "GET", "/api/members")["members"]}
    sun, wed = f"{sid}-d1-sun", f"{sid}-d1-wed"
    team = ok(srv, "POST", f"/api/holdings/{sun}/registrations",
              {"team": "Ежи", "members": [ids[n] for n in NAMES[:6]]}, 201)
    one = ok(srv, "POST", f"/api/holdings/{wed}/registrations", {"member": ids[NAMES[6]]}, 201)
    ok(srv, "POST", f"/api/registrations/{team['id']}/payment", {"receipt": "К-1"})
    page = admin.get(srv.url + f"/control/admin/holdings/{sun}", timeout=5).text
    box = re.search(r'<fieldset class="checks" id="team-members">(.*?)</fieldset>', page, re.S).group(1)
    offered = re.findall(r'name="members" value="(\d+)"', box)
    # approved and free on game day 1: not the team (Sunday), not the one on Wednesday, not the minor
    assert offered == [str(ids[n]) for n in NAMES[7:30]]
    assert 'class="btn small absent-mark"' in page and ">Не пришёл<" in page

    # exports: the plain CSV as before, and the one for a Russian-locale Excel
    plain = admin.get(srv.url + f"/api/seasons/{sid}/fees.csv?lang=ru", timeout=5)
    assert plain.text.startswith("\ufeff") and plain.text.splitlines()[0].count(",") == 11
    excel = admin.get(srv.url + f"/api/seasons/{sid}/fees.csv?lang=ru&excel=1", timeout=5)
    assert excel.headers["Content-Disposition"].endswith(f'fees-{sid}-excel.csv"')
    assert excel.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(excel.text.lstrip("\ufeff")), delimiter=";"))
    head = rows[0]
    assert head[7:11] == ["Оплата", "Сумма", "Валюта", "Чек №"]
    by_reg = {r[3]: r for r in rows[1:3]}
    assert by_reg[str(team["id"])][7:11] == ["оплачено", "1500,50", "RUB", "К-1"]
    assert by_reg[str(one["id"])][7:11] == ["не оплачено", "", "", ""]  # the receipt column holds receipts only
    assert rows[3] == [] and rows[4][0] == "Итого" and rows[4][3] == "2"
    assert rows[4][7:10] == ["оплачено 1 из 2", "1500,50", "RUB"]
    rating = admin.get(srv.url + f"/api/seasons/{sid}/rating.csv?lang=ru&excel=1", timeout=5).text
    assert rating.startswith("\ufeffМесто;Игрок;")
