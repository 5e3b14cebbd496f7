"""The committed OBS scene collections: what OBS reads is there, nothing dangles, they equal the
generator's output, and every browser source URL answers 200 from a running server."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from overlay.obs.control import DEFAULT_SCENES
from overlay.obs.scenes import RULES, SCENES, TRANSPARENT_CSS, browser_urls, build_collection, dumps
from tests.support import ROOT, Server

COMMITTED = {"tv": ROOT / "obs_scenes" / "chgk-tv.json", "club": ROOT / "obs_scenes" / "chgk-club.json"}
BASE = "http://127.0.0.1:5000"


def load(rules: str) -> dict:
    return json.loads(COMMITTED[rules].read_text(encoding="utf-8"))


def committed_urls() -> list[tuple[str, str]]:
    return [(rules, url) for rules in RULES for url in browser_urls(load(rules))]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("obs-scenes") / "data").start()
    yield server
    server.stop()


@pytest.mark.parametrize("rules", RULES)
def test_committed_file_is_what_the_generator_writes(rules: str):
    assert COMMITTED[rules].read_text(encoding="utf-8") == dumps(build_collection(rules, BASE)), (
        f"obs_scenes/{COMMITTED[rules].name} drifted: regenerate with "
        f"`python -m overlay obs-scenes --rules {rules} --out obs_scenes/{COMMITTED[rules].name}`")


@pytest.mark.parametrize("rules", RULES)
def test_the_keys_obs_reads(rules: str):
    c = load(rules)
    sources = c["sources"]
    by_uuid = {s["uuid"]: s for s in sources}
    assert len(by_uuid) == len(sources), "uuids must be unique"
    names = Counter(s["name"] for s in sources)
    assert all(n == 1 for n in names.values()), "source names must be unique in a collection"
    scenes = {s["name"]: s for s in sources if s["id"] == "scene"}
    assert c["name"] and c["current_scene"] in scenes and c["current_program_scene"] in scenes
    assert [o["name"] for o in c["scene_order"]] and {o["name"] for o in c["scene_order"]} == set(scenes)

    browsers = [s for s in sources if s["id"] == "browser_source"]
    assert browsers and all(s["versioned_id"] == "browser_source" for s in browsers)
    for s in browsers:
        st = s["settings"]
        assert st["url"].startswith(BASE + "/overlays/")
        assert (st["width"], st["height"]) == (1920, 1080)
        assert st["css"] == TRANSPARENT_CSS and "rgba(0, 0, 0, 0)" in st["css"]
        assert st["shutdown"] is False and st["restart_when_active"] is False
        assert isinstance(st["reroute_audio"], bool)
        assert st["reroute_audio"] == ("sound=1" in st["url"])

    used = set()
    for scene in scenes.values():
        items = scene["settings"]["items"]
        ids = [i["id"] for i in items]
        assert len(ids) == len(set(ids)) and scene["settings"]["id_counter"] >= max(ids, default=0)
        for item in items:
            target = by_uuid[item["source_uuid"]]  # every item points at a source in the file
            assert item["name"] == target["name"] and target["uuid"] != scene["uuid"]
            assert item["visible"] is True
            assert item["pos"] == {"x": 0.0, "y": 0.0} and item["scale"] == {"x": 1.0, "y": 1.0}
            assert item["bounds"] == {"x": 1920.0, "y": 1080.0}
            used.add(item["source_uuid"])
    assert {s["uuid"] for s in browsers} <= used, "every browser source is in some scene"


def test_uuids_differ_between_collections():
    tv, club = ({s["uuid"] for s in load(r)["sources"]} for r in RULES)
    assert not tv & club  # importing both into one OBS never confuses their sources


def test_the_scenes_of_a_show_are_there():
    tv = [o["name"] for o in load("tv")["scene_order"]]
    club = [o["name"] for o in load("club")["scene_order"]]
    assert tv[:6] == ["ЧГК · Игра", "ЧГК · Стол", "ЧГК · Вопрос", "ЧГК · Блиц", "ЧГК · Итог", "ЧГК · Всё в одном"]
    for name in ["ЧГК · Игра", "ЧГК · Стол", "ЧГК · Центральный стол", "ЧГК · Клубные столы", "ЧГК · Жеребьёвка",
                 "ЧГК · Рейтинг игры", "ЧГК · Лучший игрок"]:
        assert name in club
    # OBS control's default scenes exist in both collections.
    assert set(DEFAULT_SCENES.values()) <= set(tv) and set(DEFAULT_SCENES.values()) <= set(club)
    club_overlays = {u.split("/overlays/")[1].split("?")[0] for u in browser_urls(load("club"))}
    assert {"central-table", "club-tables", "draw", "game-rating", "best-player"} <= club_overlays
    for rules in RULES:
        assert len(SCENES[rules]) + 1 == len(load(rules)["scene_order"])


@pytest.mark.parametrize("rules, url", committed_urls())
def test_every_browser_source_answers_200(srv: Server, rules: str, url: str):
    assert url.startswith(BASE)
    r = requests.get(srv.url + url[len(BASE):], timeout=10)
    assert r.status_code == 200, f"{rules}: {url} → {r.status_code}"
    assert "text/html" in r.headers["Content-Type"]


def test_a_collection_for_another_host_language_and_theme(srv: Server):
    done = subprocess.run([sys.executable, "-m", "overlay", "obs-scenes", "--rules", "club", "--base-url", srv.url + "/",
                           "--lang", "uk", "--theme", "light", "--name", "Клуб «Эрудит»"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    c = json.loads(done.stdout)
    assert c["name"] == "Клуб «Эрудит»"
    urls = browser_urls(c)
    assert urls and all(u.startswith(srv.url + "/overlays/") and "lang=uk" in u and "theme=light" in u for u in urls)
    assert {s["uuid"] for s in c["sources"]} == {s["uuid"] for s in load("club")["sources"]}
    for url in urls:
        assert requests.get(url, timeout=10).status_code == 200, url


def test_obs_scenes_writes_a_file(tmp_path: Path):
    out = tmp_path / "tv.json"
    done = subprocess.run([sys.executable, "-m", "overlay", "obs-scenes", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "" and "wrote" in done.stderr
    assert out.read_text(encoding="utf-8") == COMMITTED["tv"].read_text(encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "overlay", "obs-scenes", "--base-url", "127.0.0.1:5000"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "http://" in bad.stderr
