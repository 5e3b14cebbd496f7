"""The admin pages over HTTP against a real server: login required, CSRF checked, a form refused
with the server's message and nothing changed, a form accepted, recorded and redirected."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from tests.faults.helpers import csrf_of, login
from tests.support import Server

from .helpers import ok


@pytest.fixture(scope="module")
def browser(srv: Server) -> Iterator[requests.Session]:
    """A logged-in panel session (cookie), as a person at the admin pages has."""
    s = login(srv.url)
    yield s
    s.close()


def test_pages_need_the_login(srv: Server):
    r = requests.get(srv.url + "/control/admin/", timeout=5)
    assert r.status_code == 200 and 'type="password"' in r.text and "Клубная лига" not in r.text
    r = requests.post(srv.url + "/control/admin/seasons/new", data={"name": "X"}, timeout=5)
    assert r.status_code == 401
    assert ok(srv, "GET", "/api/seasons")["seasons"] == []


def test_forms_refuse_with_the_message_and_change_nothing(srv: Server, browser: requests.Session):
    page = browser.get(srv.url + "/control/admin/", timeout=5)
    assert page.status_code == 200 and "Клубная лига" in page.text and page.headers["Cache-Control"] == "no-store"
    token = csrf_of(page.text)
    r = browser.post(srv.url + "/control/admin/seasons/new", data={"csrf": "forged", "name": "Весна"}, timeout=5)
    assert r.status_code == 400 and "Страница устарела" in r.text
    r = browser.post(srv.url + "/control/admin/seasons/new",
                     data={"csrf": token, "name": "Весна", "qualifying_days": "0"}, timeout=5)
    assert r.status_code == 400 and "qualifying_days" in r.text and "Не сделано" in r.text
    assert ok(srv, "GET", "/api/seasons")["seasons"] == []

    r = browser.post(srv.url + "/control/admin/seasons/new",
                     data={"csrf": token, "name": "Весна", "qualifying_days": "3", "fee_individual": "500",
                           "fee_team": "2500", "currency": "RUB"}, allow_redirects=False, timeout=5)
    assert r.status_code == 303 and r.headers["Location"].endswith("/control/admin/seasons/s1")
    season = ok(srv, "GET", "/api/seasons/s1")
    assert season["qualifying_days"] == 3 and season["fees"] == {"individual": 500.0, "team": 2500.0, "currency": "RUB"}
    page = browser.get(srv.url + "/control/admin/seasons/s1", timeout=5)
    assert "Сохранено" in page.text and "сезон создан" in page.text

    # moving a scheduled day needs a reason: refused on the page, then done with one
    browser.post(srv.url + "/control/admin/seasons/s1/days", data={"csrf": token, "day": "1", "sunday": "2026-03-01", "confirm": "on"},
                 timeout=5)
    r = browser.post(srv.url + "/control/admin/seasons/s1/days", data={"csrf": token, "day": "1", "sunday": "2026-03-08", "confirm": "on"},
                     timeout=5)
    assert r.status_code == 400 and "reason" in r.text
    assert ok(srv, "GET", "/api/seasons/s1")["days"][0]["holdings"][0]["date"] == "2026-03-01"
    r = browser.post(srv.url + "/control/admin/seasons/s1/days",
                     data={"csrf": token, "day": "1", "sunday": "2026-03-08", "reason": "зал занят", "confirm": "on"}, timeout=5)
    assert r.status_code == 200 and "2026-03-08" in r.text and "зал занят" in r.text
    assert ok(srv, "GET", "/api/seasons/s1/actions")["actions"][0]["reason"] == "зал занят"


def test_member_pages_in_three_languages(srv: Server, browser: requests.Session):
    token = csrf_of(browser.get(srv.url + "/control/admin/members", timeout=5).text)
    r = browser.post(srv.url + "/control/admin/members/new", data={"csrf": token, "name": "Анна Арбузова", "adult": "on"},
                     timeout=5)
    assert r.status_code == 200 and "Анна Арбузова" in r.text
    mid = ok(srv, "GET", "/api/members")["members"][-1]["id"]
    r = browser.post(srv.url + f"/control/admin/members/{mid}/status",
                     data={"csrf": token, "status": "approved", "date": "2026-02-01"}, timeout=5)
    assert r.status_code == 400 and ok(srv, "GET", f"/api/members/{mid}")["member"]["status"] == "candidate"
    browser.post(srv.url + f"/control/admin/members/{mid}/status",
                 data={"csrf": token, "status": "approved", "date": "2026-02-01", "reason": "рекомендация"}, timeout=5)
    assert ok(srv, "GET", f"/api/members/{mid}")["member"]["status"] == "approved"
    for lang, word in (("uk", "Члени клубу"), ("en", "Members"), ("ru", "Члены клуба")):
        page = browser.get(srv.url + f"/control/admin/members?lang={lang}", timeout=5)
        assert page.status_code == 200 and f'<html lang="{lang}">' in page.text and word in page.text
    assert browser.get(srv.url + "/control/admin/seasons/s42", timeout=5).status_code == 404
