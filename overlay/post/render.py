"""A recorded game's graphic as a video with alpha, drawn again frame by frame from the journal.

How: the game's log is replayed (`timeline`) and the graphics' journal folded (`GraphicsTimeline`)
to know what an overlay was sent and when. A small page server in this process serves the
overlay pages, static files, themes and catalogs exactly as the live server does (`pages`,
`themes`, `i18n`: nothing is written, no database is opened for writing). Headless Chromium (the
system's, never a downloaded one) loads `/overlays/<graphic>?game=G` with two swaps: its clock —
Date, performance.now, timers, requestAnimationFrame — runs on virtual time
(static/render/clock.js, installed before any script) and the document's animation timeline is
stopped over CDP (`Animation.setPlaybackRate 0`), every animation then seeked to the frame's
instant; and Socket.IO is replaced by a socket the renderer drives (static/render/socket.js),
which hands over each recorded state at its instant. Frame N is the page at `start + N / fps`,
whatever the machine's speed, the same on every run. Each frame is a transparent PNG (CDP
`Page.captureScreenshot`; a frame whose DOM, animations and pictures have not changed is not
drawn again but repeated), piped to Debian's ffmpeg: ProRes 4444 with alpha (`.mov`) or VP9
with alpha (`.webm`), written under a temporary name beside the output and renamed only once
complete, so a stopped or failed render leaves nothing under the final name.
"""
from __future__ import annotations

import base64
import logging
import os
import queue
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..graphics import show as showgfx
from ..graphics.game import GRAPHICS, STACK_ORDER
from .asrun import format_timecode, parse_timecode
from ..media.library import FILE_NAME, MIME_BY_EXT, strings_in
from .journal import NoData, ReadOnlyStore, game_ids, read_game, read_media
from .timeline import Timeline

RENDERABLE = (*GRAPHICS, "show")
FORMATS = {"prores": ".mov", "webm": ".webm"}
FPS = (25, 50)
PREROLL_MS = 2000  # the page is open this long before the first frame: entrances done, as on air
# Debian's headless shell where installed (the same engine as `chromium`, ~40 % less CPU a page),
# else the full browser; CHGK_OVERLAY_CHROMIUM names another.
CHROMIUM = os.environ.get("CHGK_OVERLAY_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(p)), "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--hide-scrollbars", "--mute-audio",
                 "--font-render-hinting=none", "--disable-lcd-text", "--force-color-profile=srgb",
                 # animations on the main thread, whose clock the renderer holds; every stage of a
                 # frame run before it is captured
                 "--disable-threaded-animation", "--run-all-compositor-stages-before-draw",
                 "--disable-threaded-scrolling", "--disable-checker-imaging", "--disable-image-animation-resync",
                 "--disable-partial-raster", "--disable-features=PaintHolding"]
STATIC = Path(__file__).resolve().parent.parent.parent / "static"


class RenderError(Exception):
    """A render refused or failed, said in words; nothing is left under the output's name."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class Stopped(Exception):
    """The render was stopped (Ctrl-C, the panel)."""


def ffmpeg_path() -> str:
    path = shutil.which(os.environ.get("CHGK_OVERLAY_FFMPEG", "ffmpeg"))
    if not path:
        raise RenderError("no_ffmpeg", "ffmpeg is not installed: the render encodes with Debian's ffmpeg "
                                       "(apt-get install ffmpeg).")
    return path


def parse_offset(text: str | None, what: str) -> int | None:
    """'90', '90.5', '1:30', '1:02:03' (seconds from the game's start) → ms."""
    if text in (None, ""):
        return None
    parts = str(text).strip().split(":")
    try:
        if len(parts) > 3 or any(p.strip() == "" for p in parts):
            raise ValueError
        seconds = float(parts[-1]) + sum(int(p) * 60 ** (len(parts) - 1 - i) for i, p in enumerate(parts[:-1]))
    except ValueError:
        raise RenderError("bad_range", f"{what} must be seconds from the game's start (90, 1:30, 1:02:03), "
                                       f"got {text!r}.") from None
    if seconds < 0 or seconds != seconds or seconds > 7 * 24 * 3600:
        raise RenderError("bad_range", f"{what} must be a time within the game, got {text!r}.")
    return round(seconds * 1000)


def clock_text(ms: int) -> str:
    s = max(0, ms) // 1000
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


# what overlays were sent ---------------------------------------------------------------------------

class GraphicsTimeline:
    """The `graphics` payload over time, folded from the journal's `graphics` rows (what
    `Graphics` persisted then: shown, hidden, layers)."""

    def __init__(self, journal: list[dict], media: dict[str, str] | None = None) -> None:
        self.media = media or {}  # the library's pictures: {media id: URL}
        self.changes: list[tuple[int, dict]] = []
        shown: dict[str, dict] = {}
        hidden: list[str] = []
        layers: dict[str, dict] = {}
        for j in journal:
            if j["kind"] != "graphics":
                continue
            body, at = j["body"], j["at"]
            action = body.get("action")
            if "air" in body:
                for e in body["air"]:
                    old = layers.pop(e["layer"], None)
                    if old is not None and shown.get(old.get("graphic"), {}).get("item") == old.get("item"):
                        shown.pop(old["graphic"], None)
                    if e["type"] == "layer_taken" and e.get("entry"):
                        entry = e["entry"]
                        layers[e["layer"]] = entry
                        shown[entry["graphic"]] = {"data": entry.get("data") or {}, "shown_at": entry.get("shown_at"),
                                                   "expires_at": entry.get("expires_at"), "layer": e["layer"],
                                                   "item": entry.get("item")}
                        hidden = [h for h in hidden if h != entry["graphic"]]
            elif action in ("show", "hide", "clear") and body.get("graphic"):
                name = body["graphic"]
                shown.pop(name, None)
                hidden = [h for h in hidden if h != name]
                if action == "show":
                    data = body.get("data") or {}
                    duration = data.get("duration_ms")
                    shown[name] = {"data": data, "shown_at": at, "expires_at": showgfx.earliest(
                        at + duration if duration else None, showgfx.natural_end(name, data, at))}
                elif action == "hide":
                    hidden.append(name)
            elif action == "expire" and body.get("graphics"):
                for name in body["graphics"]:
                    shown.pop(name, None)
            else:
                continue
            self.changes.append((at, {"shown": {k: dict(v) for k, v in shown.items()}, "hidden": list(hidden),
                                      "layers": {k: dict(v) for k, v in layers.items()}}))

    def media_of(self, data: Any) -> dict[str, str]:
        """{media id: URL} for the pictures `data` names, as the live server's `Graphics.media_of`."""
        return {v: self.media[v] for v in strings_in(data) if v in self.media}

    def payload(self, i: int, at: int) -> dict:
        state = self.changes[i][1] if i >= 0 else {"shown": {}, "hidden": [], "layers": {}}
        return {"seq": i + 1,
                "graphics": {k: dict(v, media=self.media_of(v.get("data"))) for k, v in state["shown"].items()},
                "hidden": state["hidden"],
                "layers": {k: dict(v, media=self.media_of(v.get("data")),
                                   stack=showgfx.stack_of(v.get("graphic", ""), v.get("stack")))
                           for k, v in state["layers"].items()},
                "stack": STACK_ORDER, "server_now": at}

    def index_at(self, t: float) -> int:
        i = -1
        for k, (at, _) in enumerate(self.changes):
            if at > t:
                break
            i = k
        return i


# the plan -----------------------------------------------------------------------------------------

@dataclass
class Plan:
    data: Path
    game: str
    graphic: str
    fps: int
    fmt: str
    out: Path
    start: int               # server epoch ms of frame 0
    frames: int
    timecode: str
    lang: str
    theme: str | None
    timeline: Timeline
    graphics: GraphicsTimeline
    ffmpeg: str
    game_start: int
    game_end: int
    deliveries: list[dict] = field(default_factory=list)

    @property
    def frame_ms(self) -> int:
        return 1000 // self.fps

    def frame_at(self, n: int) -> int:
        return self.start + n * self.frame_ms


def plan(data: Path | str, game: str, *, graphic: str = "scoreboard", start: str | None = None,
         end: str | None = None, fps: int = 25, fmt: str | None = None, timecode: str | None = None,
         out: Path | str, lang: str = "ru", theme: str | None = None, now: int | None = None) -> Plan:
    """Checks everything a render needs before anything is started or written."""
    if graphic not in RENDERABLE:
        raise RenderError("unknown_graphic", f"Unknown graphic {graphic!r}. Graphics: {', '.join(RENDERABLE)}.")
    if fps not in FPS:
        raise RenderError("bad_fps", f"--fps must be 25 or 50, got {fps}.")
    out = Path(out)
    if fmt is None:
        fmt = next((f for f, ext in FORMATS.items() if out.suffix.lower() == ext), None)
        if fmt is None:
            raise RenderError("bad_format", f"Say --format prores or webm, or name the output .mov or .webm (got {out.name!r}).")
    if fmt not in FORMATS:
        raise RenderError("bad_format", f"--format must be prores or webm, got {fmt!r}.")
    try:
        tc_frames = parse_timecode(timecode, fps)
    except Exception as exc:  # noqa: BLE001 - InputError: said as ours
        raise RenderError("bad_timecode", str(getattr(exc, "message", exc))) from None
    ffmpeg = ffmpeg_path()
    data = Path(data)
    try:
        store = ReadOnlyStore(data / "chgk.sqlite3")
    except NoData as exc:
        raise RenderError("no_data", str(exc)) from None
    try:
        record = read_game(store, game)
        known = game_ids(store) if record is None else []
        media = read_media(store)
    finally:
        store.close()
    if record is None:
        raise RenderError("unknown_game", f"There is no game {game!r} in {data}"
                                          + (f" (games: {', '.join(known)})." if known else " (it holds no games)."))
    tl = Timeline(record, now if now is not None else int(time.time() * 1000))
    span = tl.end - tl.start
    a = parse_offset(start, "--from") or 0
    b = parse_offset(end, "--to")
    b = span if b is None else b
    if a >= b or b > span:
        raise RenderError("bad_range", f"The range {clock_text(a)}–{clock_text(b)} is outside the game, which lasts "
                                       f"{clock_text(span)} (0:00–{clock_text(span)}); --from must come before --to.")
    frame_ms = 1000 // fps
    # frame 0 at the range's start, the last at or just after its end: the final state is drawn
    frames = -(-(b - a) // frame_ms) + 1
    if not out.parent.is_dir():
        raise RenderError("bad_output", f"The folder {out.parent} does not exist.")
    if not os.access(out.parent, os.W_OK):
        raise RenderError("bad_output", f"The folder {out.parent} cannot be written to.")
    return Plan(data, game, graphic, fps, fmt, out, tl.start + a, frames, format_timecode(tc_frames, fps), lang, theme,
                tl, GraphicsTimeline(record.journal, media), ffmpeg, tl.start, tl.end)


# the page server ------------------------------------------------------------------------------------

def page_server(data: Path) -> tuple[Any, int]:
    """The overlay pages as the live server renders them, from a WSGI server of this process."""
    from flask import Response, abort, send_file
    from werkzeug.serving import make_server

    from ..config import DEFAULTS
    from ..graphics import themes
    from ..i18n import web as i18n
    from ..web import pages
    from ..web.app import base_app

    app = base_app()
    app.config.update(DEFAULTS)
    app.config.update(DATA=str(data), SECRET_KEY=secrets.token_urlsafe(16))
    i18n.install(app)
    app.register_blueprint(pages.bp)
    themes.register(app)
    socket_js = (STATIC / "render" / "socket.js").read_text(encoding="utf-8")

    @app.get("/render/socket.js")
    def _socket() -> Any:
        return Response(socket_js, mimetype="text/javascript")

    @app.get("/media/<name>")
    def _media(name: str) -> Any:  # the library's pictures, as the live server's /media/<name>
        m = FILE_NAME.fullmatch(name)
        path = data / "media" / name
        if not m or not path.is_file():
            abort(404)
        return send_file(path, mimetype="image/webp" if m.group(2) else MIME_BY_EXT[m.group(3)])

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line a request on the terminal
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_port


# encoding ------------------------------------------------------------------------------------------

def ffmpeg_command(p: Plan, target: Path) -> list[str]:
    """The encoder of the frames piped in. ProRes gets each different frame once (see `repeat`)."""
    # Chromium's PNGs as they come: their decode runs in ffmpeg's process, beside the browser's
    # drawing, not in ours (decoding and piping 8 MB of RGBA a frame here cost ~100 ms of it)
    cmd = [p.ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-f", "image2pipe", "-c:v", "png",
           "-framerate", str(p.fps), "-i", "-"]
    if p.fmt == "prores":
        # ProRes 4444 with its alpha channel (prores_aw: the same format as prores_ks, twice as fast)
        cmd += ["-c:v", "prores_aw", "-profile:v", "4", "-pix_fmt", "yuva444p10le", "-vendor", "apl0", "-f", "mov"]
    else:
        cmd += ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-deadline", "realtime", "-cpu-used", "8",
                "-row-mt", "1", "-b:v", "0", "-crf", "30", "-auto-alt-ref", "0",
                "-metadata", f"timecode={p.timecode}", "-f", "webm"]
    return cmd + [str(target)]


NO_CODEC = "none"  # a codec_whitelist naming no codec


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "'\\''") + "'"


def repeat_command(p: Plan, frames: Path, order: list[int], listing: Path, target: Path) -> list[str]:
    """ProRes is intra-only: a repeated frame is the same bytes. The different frames were
    encoded once (`frames`); this copies their packets into the final file in `order` (frame n
    shows different frame order[n]) with FFmpeg's concat demuxer, one entry per run of
    consecutive frames, no frame encoded twice."""
    fd = p.frame_ms / 1000
    lines = ["ffconcat version 1.0"]
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and order[j + 1] == order[j] + 1:
            j += 1
        lines += [f"file {_quoted(frames)}", f"inpoint {order[i] * fd:.6f}", f"outpoint {(order[j] + 1) * fd:.6f}"]
        if i:
            # the demuxer opens the file again for each entry and probes it, decoding a frame to
            # learn a pixel format the copy never uses: ~15 ms of CPU an entry, 2.5 s for a
            # running minute's 7 s. No decoder for the probe (the first entry gives the stream's
            # parameters), and no more than the first packet read.
            lines += [f"option codec_whitelist {NO_CODEC}", "option probesize 32", "option analyzeduration 0"]
        i = j + 1
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [p.ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(listing),
            "-c", "copy", "-r", str(p.fps), "-timecode", p.timecode, "-f", "mov", str(target)]


@dataclass
class Progress:
    done: int
    total: int
    elapsed: float
    drawn: int  # frames drawn by the browser (the others repeated an unchanged one)

    @property
    def fps(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def left_s(self) -> float:
        return (self.total - self.done) / self.fps if self.fps > 0 else float("inf")


def _deliveries(p: Plan, a: float, b: float) -> list[dict]:
    """What the server sent the page in (a, b]: the game's states and the graphics, in order."""
    out: list[tuple[int, int, dict]] = []
    for point in p.timeline.changes_between(a, b):
        out.append((point.at, 1, {"at": point.at, "ev": "state", "payload": p.timeline.public_at(point.at, point)}))
    for i, (at, _) in enumerate(p.graphics.changes):
        if a < at <= b:
            out.append((at, 0, {"at": at, "ev": "graphics", "payload": p.graphics.payload(i, at)}))
    return [d for _, _, d in sorted(out, key=lambda x: (x[0], x[1]))]


# what a probed frame's page says: each data-ref's text (the last of its name: a rolling number's
# new one) and which parts are in
PROBE_JS = """() => ({
  refs: Object.fromEntries([...document.querySelectorAll('[data-ref]')].map(e => [e.dataset.ref, e.textContent.trim()])),
  parts: Object.fromEntries([...document.querySelectorAll('[data-part]')].map(e => [e.dataset.part,
    e.classList.contains('is-in') && !e.classList.contains('op-hidden') && !!e.closest('.live')])),
  animations: document.getAnimations().map(a => [a.animationName || a.transitionProperty || a.id, a.playState,
    a.currentTime, a.startTime]),
  timeline: document.timeline.currentTime,
})"""


def render(p: Plan, *, progress: Callable[[Progress], None] | None = None,
           stopped: Callable[[], bool] = lambda: False, width: int = 1920, height: int = 1080,
           probe: set[int] | frozenset[int] = frozenset()) -> dict:
    """Draws and encodes; returns {"out", "frames", "drawn", "seconds", "fps", "probes"}. Raises
    Stopped or RenderError with nothing left under `p.out` (nor the temporary file). `probe`:
    frame numbers whose PNG and page texts are returned too (`probes`: {n: {"at", "png", "page"}})."""
    from playwright.sync_api import Error as PlaywrightError, sync_playwright

    temps = []
    for suffix in (".part", ".frames.part", ".list.part"):
        fd, name = tempfile.mkstemp(prefix=f".{p.out.name}.", suffix=suffix, dir=p.out.parent)
        os.close(fd)
        temps.append(Path(name))
    tmp, distinct, listing = temps
    once = p.fmt == "prores"  # each different frame encoded once, then repeated by packet (repeat_command)
    order: list[int] = []
    server = None
    enc: subprocess.Popen | None = None
    writer: Writer | None = None
    err_file = tempfile.TemporaryFile()
    began = time.monotonic()
    drawn = 0
    probes: dict[int, dict] = {}
    try:
        server, port = page_server(p.data)
        enc = subprocess.Popen(ffmpeg_command(p, distinct if once else tmp), stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=err_file, start_new_session=True)
        assert enc.stdin is not None
        writer = Writer(enc.stdin)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
                page = ctx.new_page()
                page.add_init_script(path=str(STATIC / "render" / "clock.js"))
                page.route("**/vendor/socket.io/**", lambda route: route.fulfill(
                    status=200, content_type="text/javascript",
                    body=(STATIC / "render" / "socket.js").read_text(encoding="utf-8")))
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                cdp = ctx.new_cdp_session(page)
                cdp.send("Animation.enable")
                cdp.send("Animation.setPlaybackRate", {"playbackRate": 0})
                cdp.send("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
                pre = p.start - PREROLL_MS
                page.add_init_script(f"window.__render.start({pre});")
                query = f"game={p.game}&lang={p.lang}" + (f"&theme={p.theme}" if p.theme else "")
                page.goto(f"http://127.0.0.1:{port}/overlays/{p.graphic}?{query}", wait_until="load")
                page.wait_for_function("() => window.__render && window.__render.socket")
                # every font face of the page loaded now: a face first needed mid-game (a weight,
                # a script) would otherwise load in real time between two frames
                page.evaluate("() => Promise.all([...document.fonts].map((f) => f.load().catch(() => null)))"
                              ".then(() => document.fonts.ready).then(() => true)")
                # the page is connected before the first frame, and sees what the server had then
                gi = p.graphics.index_at(pre)
                first = [{"at": pre, "ev": "connect"},
                         {"at": pre, "ev": "state", "payload": p.timeline.public_at(pre)},
                         {"at": pre, "ev": "graphics", "payload": p.graphics.payload(gi, pre)}]
                step = "([t, d, f]) => window.__render.step(t, d, f)"
                t = pre
                while t + p.frame_ms < p.start:  # the pre-roll: stepped, and drawn but not kept
                    nxt = t + p.frame_ms
                    page.evaluate(step, [nxt, first + _deliveries(p, t, nxt), p.frame_ms])
                    first, t = [], nxt
                    # every state is drawn once, at its step, as every kept frame is: Chromium's
                    # choices for a layer (the raster scale of a scaled text) are made on the
                    # frames it draws, which must not be whichever real-time moment it drew
                    _draw(cdp)
                frame = b""
                sent = 0
                for n in range(p.frames):
                    if stopped():
                        raise Stopped()
                    at = p.frame_at(n)
                    looked = page.evaluate(step, [at, first + _deliveries(p, t, at), p.frame_ms])
                    first, t = [], at
                    if looked["changed"] or not frame or n in probe:
                        frame = _capture(cdp, width, height)
                        drawn += 1
                        fresh = True
                        if n in probe:
                            probes[n] = {"at": at, "png": frame, "page": page.evaluate(PROBE_JS)}
                    else:
                        fresh = False
                    if fresh or not once:
                        if not writer.put(frame):
                            raise RenderError("ffmpeg_failed", _ffmpeg_said(enc, err_file))
                        sent += 1
                    order.append(sent - 1)
                    if progress:
                        progress(Progress(n + 1, p.frames, time.monotonic() - began, drawn))
                if errors:
                    raise RenderError("page_error", f"The page failed while drawing: {errors[0]}")
            except PlaywrightError as exc:
                if stopped():
                    raise Stopped() from None
                raise RenderError("browser_failed", f"Chromium failed: {str(exc).splitlines()[0]}") from None
            finally:
                try:
                    browser.close()
                except PlaywrightError:
                    pass
        if not writer.close() or enc.wait() != 0:
            raise RenderError("ffmpeg_failed", _ffmpeg_said(enc, err_file))
        if once:
            if stopped():
                raise Stopped()
            enc = subprocess.Popen(repeat_command(p, distinct, order, listing, tmp), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err_file, start_new_session=True)
            if enc.wait() != 0:
                raise RenderError("ffmpeg_failed", _ffmpeg_said(enc, err_file))
        os.replace(tmp, p.out)
        seconds = time.monotonic() - began
        return {"out": str(p.out), "frames": p.frames, "drawn": drawn, "seconds": seconds,
                "fps": p.frames / seconds if seconds else 0.0, "probes": probes}
    finally:
        if enc is not None and enc.poll() is None:
            enc.kill()
            enc.wait()
        if writer is not None:
            writer.close()
        if server is not None:
            server.shutdown()
        err_file.close()
        for t in temps:
            t.unlink(missing_ok=True)


# A capture of the viewport as it is, never beyond it: `captureBeyondViewport` overrides the
# view's size around each capture and then gives it back, and whether Chromium commits a frame
# in between is a matter of real time. Such a frame can reset a layer's raster scale: with it,
# about one timer render in twelve drew the minute's beating digits (a scaled text) differently
# in a frame or two; without it, none in the runs of docs/POST.md. It also doubled a capture's cost.
SHOT = {"format": "png", "optimizeForSpeed": True, "fromSurface": True, "captureBeyondViewport": False}


def _draw(cdp: Any) -> None:
    """Makes Chromium draw the page as it is now (a capture of 2×2 pixels, thrown away)."""
    cdp.send("Page.captureScreenshot", {**SHOT, "clip": {"x": 0, "y": 0, "width": 2, "height": 2, "scale": 1}})


def _capture(cdp: Any, width: int, height: int) -> bytes:
    """The frame as Chromium's PNG: the whole viewport, captured with its transparency. (Capturing
    only the part where something is drawn was tried: no faster here, and not always the same pixels.)"""
    shot = cdp.send("Page.captureScreenshot", {**SHOT, "clip": {"x": 0, "y": 0, "width": width, "height": height,
                                                                "scale": 1}})
    png = base64.b64decode(shot["data"])
    size = (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big"))  # the IHDR chunk
    if png[:8] != b"\x89PNG\r\n\x1a\n" or size != (width, height):
        raise RenderError("browser_failed", f"Chromium drew {size[0]}×{size[1]}, not {width}×{height}.")
    return png


class Writer:
    """Feeds ffmpeg's stdin from a thread of its own, so the browser draws the next frame while
    ffmpeg is still reading (and encoding) this one: the pipe holds 64 KB, a frame's PNG more."""

    def __init__(self, pipe: Any, depth: int = 8) -> None:
        self.pipe = pipe
        self.queue: queue.Queue[bytes | None] = queue.Queue(depth)
        self.failed = threading.Event()
        self.thread = threading.Thread(target=self._run, name="render-writer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            if self.failed.is_set():
                continue  # drained, so that put() and close() never wait on a dead pipe
            try:
                self.pipe.write(item)
            except (BrokenPipeError, OSError):
                self.failed.set()
        try:
            self.pipe.close()
        except OSError:
            self.failed.set()

    def put(self, frame: bytes) -> bool:
        """Queues a frame; False once ffmpeg stopped reading."""
        while not self.failed.is_set():
            try:
                self.queue.put(frame, timeout=0.5)
                return True
            except queue.Full:
                if not self.thread.is_alive():
                    self.failed.set()
        return False

    def close(self) -> bool:
        """Everything queued written and the pipe closed; False if ffmpeg stopped reading."""
        if self.thread.is_alive():
            self.queue.put(None)
            self.thread.join()
        return not self.failed.is_set()


def _ffmpeg_said(enc: subprocess.Popen, err_file: Any) -> str:
    try:
        enc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        enc.kill()
    err_file.seek(0)
    said = [line for line in err_file.read().decode("utf-8", "replace").strip().splitlines()
            if f"not on whitelist '{NO_CODEC}'" not in line and "Last message repeated" not in line]
    tail = " / ".join(said[-3:]) or f"exit code {enc.returncode}"
    full = "No space left on device" in tail
    return ("The disk is full: " if full else "ffmpeg failed: ") + tail + " — nothing was written."


def interruptible() -> Callable[[], bool]:
    """SIGINT and SIGTERM stop the render at the next frame (cleanly, the partial file removed)."""
    flag = threading.Event()

    def handler(signum: int, frame: Any) -> None:  # noqa: ARG001
        flag.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return flag.is_set
