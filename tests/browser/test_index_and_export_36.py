"""What a new operator finds first (issue 36), against a real server process: the index (`/`, in
the system Chromium) links the panel, the rundown desk, the media library, the audience page
`/live` and the league, each link leading to a page that answers; the OGraf export's zips carry a
README and name the author without an address that points nowhere."""
from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import BrowserContext, expect

from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("index36") / "data", mode="threading").start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("text, path", [
    ("Пульт оператора", "/control/"),
    ("Сценарий: выпуск графики по плану, превью для OBS", "/control/rundown"),
    ("Медиатека: картинки и графика OGraf", "/control/media"),
    ("Страница для зрителей (/live)", "/live"),
])
def test_the_index_links_the_desk_the_media_library_and_live(server: Server, context: BrowserContext,
                                                            text: str, path: str) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    link = page.get_by_role("link", name=text, exact=True)
    expect(link).to_be_visible()
    assert link.get_attribute("href") == path
    link.click()
    page.wait_for_url(f"{server.url}{path}*")
    assert requests.get(server.url + path, timeout=10).status_code == 200   # (the panel's: its login form)


def test_the_export_zips_carry_a_readme_and_no_made_up_author_address(server: Server) -> None:
    full = zipfile.ZipFile(io.BytesIO(requests.get(server.url + "/ograf/export.zip", timeout=120).content))
    names = full.namelist()
    folders = sorted({n.split("/", 1)[0] for n in names})
    assert folders and all(f"{f}/README.md" in names for f in folders), folders
    readme = full.read("chgk-scoreboard/README.md").decode()
    assert readme.startswith("# chgk-overlay graphics as OGraf packages")
    assert "ograf/chgk/server.json" in readme and "OGRAF_ORIGINS" in readme
    for name in names:
        if name.endswith(".ograf.json"):
            author = json.loads(full.read(name))["author"]
            assert author == {"name": "chgk-overlay"}, (name, author)
    one = zipfile.ZipFile(io.BytesIO(requests.get(server.url + "/ograf/export/chgk-timer.zip", timeout=60).content))
    assert "README.md" in one.namelist()
    assert json.loads(one.read("chgk-timer.ograf.json"))["author"] == {"name": "chgk-overlay"}
