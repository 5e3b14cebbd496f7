"""`chgk-overlay render`: a recorded game's graphic drawn again from its journal, in headless
Chromium under the renderer's clock, encoded by Debian's ffmpeg with alpha. Real server, real
Chromium, real ffmpeg and ffprobe; short games (a few seconds) so the module stays quick."""
from __future__ import annotations

import io
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from PIL import Image, ImageChops, ImageStat

from overlay.cli import main
from overlay.post.render import plan, render
from tests.post.games import play_club, play_tv, server_time, tv_spec
from tests.support import ROOT, Server, release_worker_playwright, wait_for

FPS = 25
FRAME_MS = 1000 // FPS


@pytest.fixture(scope="module", autouse=True)
def own_playwright() -> None:
    """The render runs Playwright's sync API itself, in this thread: not beside the test process's own."""
    release_worker_playwright()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str, str]]:
    """A live server that recorded a tv game and a club game, and keeps running while they render."""
    srv = Server(tmp_path_factory.mktemp("render") / "data", mode="threading", demo=False).start()
    try:
        yield srv, play_tv(srv, quick_spin=True), play_club(srv, quick_spin=True)
    finally:
        srv.stop()


def probe(path: Path) -> dict:
    out = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def frames_md5(path: Path, vp9: bool = False) -> list[str]:
    """The hash of every decoded frame, alpha included (VP9's alpha needs libvpx's decoder)."""
    cmd = ["ffmpeg", "-v", "error", *(["-c:v", "libvpx-vp9"] if vp9 else []), "-i", str(path),
           "-pix_fmt", "rgba", "-f", "framemd5", "-"]
    lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    return [ln.split(",")[-1].strip() for ln in lines if ln and not ln.startswith("#")]


def frame_pngs(path: Path, ns: set[int], vp9: bool = False) -> dict[int, Image.Image]:
    """The decoded frames numbered `ns`, alpha included, from one pass of the decoder (which
    stops after the last of them)."""
    order = sorted(ns)
    pick = "+".join(f"eq(n\\,{n})" for n in order)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["ffmpeg", "-v", "error", *(["-c:v", "libvpx-vp9"] if vp9 else []), "-i", str(path),
                        "-vf", f"select={pick}", "-fps_mode", "passthrough", "-frames:v", str(len(order)),
                        "-pix_fmt", "rgba", f"{out}/%04d.png"], capture_output=True, check=True)
        files = sorted(Path(out).iterdir())
        assert len(files) == len(order), f"{path}: {len(files)} of the frames {order}"
        return {n: Image.open(f).convert("RGBA") for n, f in zip(order, files)}


def frame_png(path: Path, n: int, vp9: bool = False) -> Image.Image:
    return frame_pngs(path, {n}, vp9)[n]


def differ(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel (0–255), alpha included."""
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 4


def journal(srv: Server, game: str) -> tuple[int, list[dict]]:
    log = srv.api("GET", f"/api/games/{game}/log")
    created = next(j["at"] for j in log["journal"] if j["kind"] == "create")
    return created, log["events"]


def expected_timer(events: list[dict], at: int) -> str | None:
    """The timer's text at server time `at` from the log (static/lib/timer.js's formatRemaining)."""
    started = [e for e in events if e["event"]["type"] == "timer_started" and e["at"] <= at]
    if not started:
        return None
    ends = started[-1]["event"]["ends_at"]
    rem = max(0, ends - at)
    tenths = math.ceil(rem / 100)
    return f"{tenths // 10},{tenths % 10}"


def score_at(events: list[dict], at: int) -> tuple[int, int]:
    s = {"experts": 0, "viewers": 0}
    for e in events:
        if e["at"] <= at and e["event"]["type"] == "point":
            s[e["event"]["side"]] += 1
    return s["experts"], s["viewers"]


def test_a_tv_game_renders_to_prores_4444_and_webm_with_alpha_frame_by_frame_from_its_journal(
        recorded: tuple[Server, str, str], tmp_path: Path) -> None:
    srv, game, _ = recorded
    created, events = journal(srv, game)
    end = events[-1]["at"]
    before = srv.state(game)
    # the timer: frames in the minute, away from a tenth's edge (the page's frame pace is its own
    # for its first frames, as on air), and after it
    start_ev = next(e for e in events if e["event"]["type"] == "timer_started")
    ends = start_ev["event"]["ends_at"]
    inside = [n for n in range((start_ev["at"] - created) // FRAME_MS + 12, (ends - created) // FRAME_MS)
              if 30 <= (ends - created - n * FRAME_MS) % 100 <= 70][::6][:4]
    after = math.ceil((end - created) / FRAME_MS)  # the last frame: the verdict is in
    p = plan(srv.data, game, graphic="timer", out=tmp_path / "timer.mov", fps=FPS, timecode="10:00:00:00")
    done = render(p, probe={*inside, after})
    frames = math.ceil((end - created) / FRAME_MS) + 1
    assert done["frames"] == frames
    info = probe(tmp_path / "timer.mov")
    video = info["streams"][0]
    assert (video["codec_name"], video["profile"], video["width"], video["height"]) == ("prores", "4444", 1920, 1080)
    assert video["pix_fmt"].startswith("yuva444p")  # the alpha channel
    assert video["r_frame_rate"] == "25/1" and int(video["nb_frames"]) == frames
    assert abs(float(info["format"]["duration"]) - frames / FPS) < 1e-3  # the game's, to the frame
    assert any(s.get("tags", {}).get("timecode") == "10:00:00:00" for s in info["streams"])
    decoded_at = frame_pngs(tmp_path / "timer.mov", set(inside))
    for n in inside:
        pr = done["probes"][n]
        assert pr["at"] == created + n * FRAME_MS
        assert pr["page"]["refs"]["digits"] == expected_timer(events, pr["at"]), n
        assert pr["page"]["parts"]["timer"]
        # the encoded frame is the page the browser drew at that instant, transparent around it
        decoded = decoded_at[n]
        drawn = Image.open(io.BytesIO(pr["png"])).convert("RGBA")
        assert differ(decoded, drawn) < 1.0
        assert decoded.getpixel((5, 5))[3] == 0 and drawn.getbbox() is not None
    # the last frame is at or just after the verdict: the minute ran out
    assert done["probes"][after]["at"] >= end
    assert done["probes"][after]["page"]["refs"]["digits"] == "0,0"
    # frames a tenth apart differ in the file: the comparison above sees a wrong instant
    a, b = inside[0], inside[1]
    assert differ(decoded_at[a], decoded_at[b]) > 0.01

    # twice the same: the whole game drawn again (no frame probed this time) gives the very same
    # decoded frames, every one of them — the minute's first second, whose beating digits are a
    # scaled text, included
    render(plan(srv.data, game, graphic="timer", out=tmp_path / "again.mov", fps=FPS, timecode="10:00:00:00"))
    first, again = frames_md5(tmp_path / "timer.mov"), frames_md5(tmp_path / "again.mov")
    assert len(first) == frames and len(set(first)) > 10
    assert [n for n, (x, y) in enumerate(zip(first, again)) if x != y] == [] and len(again) == frames

    # the scoreboard as VP9 with alpha: the score at each instant is the journal's
    judged = next(e["at"] for e in events if e["event"]["type"] == "point")
    n0, n1 = (judged - created) // FRAME_MS - 3, frames - 1
    sb = render(plan(srv.data, game, graphic="scoreboard", out=tmp_path / "score.webm", fps=FPS), probe={n0, n1})
    for n in (n0, n1):
        refs = sb["probes"][n]["page"]["refs"]
        assert (int(refs["experts"]), int(refs["viewers"])) == score_at(events, created + n * FRAME_MS)
    assert score_at(events, created + n1 * FRAME_MS) == (1, 0)
    info = probe(tmp_path / "score.webm")
    video = info["streams"][0]
    assert video["codec_name"] == "vp9" and video["tags"].get("alpha_mode") == "1"
    assert abs(float(info["format"]["duration"]) - frames / FPS) < 0.05
    decoded = frame_png(tmp_path / "score.webm", n1, vp9=True)
    assert decoded.getpixel((5, 5))[3] == 0
    assert differ(decoded, Image.open(io.BytesIO(sb["probes"][n1]["png"])).convert("RGBA")) < 3.0
    # the live server went on untouched
    assert srv.state(game)["rev"] == before["rev"] and srv.proc and srv.proc.poll() is None


def test_a_club_game_renders_too(recorded: tuple[Server, str, str], tmp_path: Path) -> None:
    srv, _, game = recorded
    created, events = journal(srv, game)
    frames = math.ceil((events[-1]["at"] - created) / FRAME_MS) + 1
    done = render(plan(srv.data, game, graphic="scoreboard", out=tmp_path / "club.webm", fps=FPS), probe={frames - 1})
    refs = done["probes"][frames - 1]["page"]["refs"]
    assert (int(refs["experts"]), int(refs["viewers"])) == (0, 1)
    info = probe(tmp_path / "club.webm")
    assert info["streams"][0]["tags"].get("alpha_mode") == "1"
    assert abs(float(info["format"]["duration"]) - frames / FPS) < 0.05
    render(plan(srv.data, game, graphic="scoreboard", out=tmp_path / "club.mov", fps=50, start="1", end="1.2"))
    video = probe(tmp_path / "club.mov")["streams"][0]
    assert video["profile"] == "4444" and video["pix_fmt"].startswith("yuva") and int(video["nb_frames"]) == 11
    assert frames_md5(tmp_path / "club.webm", vp9=True) == frames_md5(tmp_path / "club.webm", vp9=True)


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "overlay", "render", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_bad_input_is_refused_in_words_and_leaves_nothing(recorded: tuple[Server, str, str], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    srv, game, _ = recorded
    out = tmp_path / "out"
    out.mkdir()
    data = ["--data", str(srv.data)]
    cases = [
        (["--game", "g999", "--out", str(out / "a.mov")], "There is no game 'g999'"),
        (["--game", game, "--from", "0:10", "--to", "0:05", "--out", str(out / "a.mov")], "outside the game"),
        (["--game", game, "--to", "99:00", "--out", str(out / "a.mov")], "outside the game"),
        (["--game", game, "--graphic", "weather", "--out", str(out / "a.mov")], "Unknown graphic 'weather'"),
        (["--game", game, "--out", str(out / "a.gif")], "--format prores or webm"),
        (["--game", game, "--out", str(tmp_path / "nowhere" / "a.mov")], "does not exist"),
        (["--game", game, "--timecode", "10:00:00:25", "--out", str(out / "a.mov")], "'timecode'"),
    ]
    cases += [(["--data", str(tmp_path / "empty"), "--game", game, "--out", str(out / "a.mov")], "no database")]
    for args, said in cases:  # in this process: a refusal starts nothing
        capsys.readouterr()
        assert main(["render", *data, *args]) == 2, args
        assert said in capsys.readouterr().err, args
    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["render", *data, "--game", game, "--out", str(out / "a.mov")]) == 2
    assert "apt-get install ffmpeg" in capsys.readouterr().err
    monkeypatch.undo()
    r = cli(*data, "--game", "g999", "--out", str(out / "a.mov"))  # and from the command line
    assert r.returncode == 2 and "There is no game 'g999'" in r.stderr, r.stderr
    assert list(out.iterdir()) == [] and not (tmp_path / "empty").exists()


@pytest.mark.skipif(os.geteuid() != 0 and os.environ.get("CI") != "true", reason="mounts a tmpfs (root; CI runs as root)")
def test_a_full_disk_is_said_and_leaves_nothing(recorded: tuple[Server, str, str], tmp_path: Path) -> None:
    from tests.faults.helpers import tmpfs
    srv, game, _ = recorded
    with tmpfs(tmp_path / "small", "1m") as small:
        r = cli("--data", str(srv.data), "--game", game, "--out", str(small / "game.mov"), "--quiet")
        assert r.returncode == 1 and "The disk is full" in r.stderr, r.stderr
        assert list(small.iterdir()) == []


def test_ctrl_c_stops_cleanly_and_leaves_no_half_file(recorded: tuple[Server, str, str], tmp_path: Path) -> None:
    srv, game, _ = recorded
    err = tmp_path / "stderr.txt"
    with open(err, "w") as f:
        # the slowest kind of render (a frame drawn and VP9-encoded every 20 ms of game): seconds of
        # work are left when the first progress line shows
        proc = subprocess.Popen([sys.executable, "-m", "overlay", "render", "--data", str(srv.data), "--game", game,
                                 "--graphic", "timer", "--fps", "50", "--out", str(tmp_path / "game.webm")],
                                cwd=ROOT, stderr=f, start_new_session=True)
    try:
        wait_for(lambda: " frames " in err.read_text(), timeout=60, what="the progress bar")
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        assert proc.wait(60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    said = err.read_text()
    assert "stopped; nothing was written" in said and "Traceback" not in said, said
    assert [p.name for p in tmp_path.iterdir()] == ["stderr.txt"]


def test_a_library_picture_a_graphic_names_is_drawn(recorded: tuple[Server, str, str], tmp_path: Path) -> None:
    """A rundown's bug names a picture of the media library by its id: the render serves the
    library's files and resolves the id as the live server does, so the picture is drawn."""
    srv, _, _ = recorded
    rgb = (214, 32, 140)  # a colour nothing else on air has
    raw = io.BytesIO()
    Image.new("RGB", (320, 160), rgb).save(raw, "PNG")
    r = srv.http.post(srv.url + "/api/media", files={"file": ("logo.png", raw.getvalue())}, timeout=30)
    assert r.status_code in (200, 201), r.text
    game = srv.create(tv_spec(), on_air=True)
    rid = srv.api("POST", "/api/rundowns", {"name": "Картинки"})["id"]
    srv.api("POST", f"/api/rundowns/{rid}/items", {"label": "Логотип", "graphic": "bug", "layer": "bug",
                                                   "data": {"media": r.json()["id"], "corner": "top-left", "height": 160}})
    srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": "Логотип"})
    taken = server_time(srv)
    wait_for(lambda: server_time(srv) >= taken + 1500, what="the bug on air for 1.5 s")
    srv.play(game, "spin", landed=2)  # the game's last event: its range holds the bug's whole entrance
    created, events = journal(srv, game)
    last = math.ceil((events[-1]["at"] - created) / FRAME_MS) - math.ceil((taken + 1000 - created) / FRAME_MS)
    done = render(plan(srv.data, game, graphic="show", out=tmp_path / "bug.mov", fps=FPS,
                       start=f"{(taken + 1000 - created) / 1000:.3f}"), probe={last})
    # the bug's box: the safe area's top-left corner, 160 px high (as on /overlays/show)
    for frame in (Image.open(io.BytesIO(done["probes"][last]["png"])), frame_png(tmp_path / "bug.mov", last)):
        drawn = frame.convert("RGB").getpixel((96 + 160, 54 + 80))
        assert all(abs(a - b) <= 12 for a, b in zip(drawn, rgb)), drawn
