"""`chgk-overlay` and `python -m overlay`. Only the standard library is imported at the top:
`serve` must monkey-patch for eventlet before anything opens a socket."""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any


def _host_port(value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return value


def parser() -> argparse.ArgumentParser:
    from .i18n import available  # the languages with a catalog
    p = argparse.ArgumentParser(prog="chgk-overlay", description="Broadcast graphics server for «Что? Где? Когда?»")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run the server")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    s.add_argument("--port", type=int, default=5000, help="port (default: 5000)")
    s.add_argument("--data", default=None, help="data folder (default: $CHGK_OVERLAY_DATA or ./chgk-data)")
    s.add_argument("--demo", action="store_true", help="load a demo tv game and put it on air")
    s.add_argument("--async-mode", choices=("eventlet", "threading", "gevent"), default=None,
                   help="Socket.IO server mode (default: eventlet, or $CHGK_OVERLAY_ASYNC_MODE)")
    s.add_argument("--osc-listen", type=_host_port, default=None, metavar="HOST:PORT",
                   help="receive OSC control messages here")
    s.add_argument("--osc-target", type=_host_port, action="append", default=[], metavar="HOST:PORT",
                   help="send the generic OSC cues here (repeatable)")
    _scale_out_flags(s, redis_help="also publish public state to this Redis for edges (redis://HOST:PORT/DB)")

    e = sub.add_parser("edge", help="serve overlays, /live and public reads from Redis (read-only)")
    e.add_argument("--redis", default=None, metavar="URL",
                   help="the writer's Redis (redis://[USER:PASSWORD@]HOST:PORT/DB, rediss://… for TLS, unix://…; "
                        "default: $CHGK_OVERLAY_REDIS)")
    e.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    e.add_argument("--port", type=int, default=5001, help="port (default: 5001)")
    e.add_argument("--data", default=None, help="data folder: custom themes (default: $CHGK_OVERLAY_DATA or ./chgk-data)")
    e.add_argument("--async-mode", choices=("eventlet", "gevent"), default=None,
                   help="Socket.IO server mode (default: eventlet, or $CHGK_OVERLAY_ASYNC_MODE)")
    _scale_out_flags(e, redis_help=None)

    i = sub.add_parser("import-pack", help="import a question pack (question database text format or 4s)")
    i.add_argument("file", help="the pack file (UTF-8, CP1251 or KOI8-R)")
    i.add_argument("--data", default=None, help="data folder (default: $CHGK_OVERLAY_DATA or ./chgk-data)")
    i.add_argument("--json", action="store_true", help="print the result as JSON")

    o = sub.add_parser("obs-scenes", help="write an OBS scene collection pointing at the overlays")
    o.add_argument("--base-url", default="http://127.0.0.1:5000",
                   help="where OBS reaches this server (default: http://127.0.0.1:5000)")
    o.add_argument("--rules", choices=("tv", "club"), default="tv", help="tv or club game (default: tv)")
    o.add_argument("--out", default=None, help="file to write (default: standard output)")
    o.add_argument("--name", default=None, help="the collection's name in OBS")
    o.add_argument("--lang", choices=available(), default=None, help="on-air language (?lang=)")
    o.add_argument("--theme", default=None, help="overlay theme (?theme=)")
    o.add_argument("--preview", action="store_true",
                   help="add a scene with the rundown's preview (an operator's view: the token in "
                        "$CHGK_OVERLAY_TOKEN goes into its URL after #)")
    r = sub.add_parser("render", help="draw a recorded game's graphic as a video with alpha (ProRes 4444 or VP9)")
    r.add_argument("--game", required=True, help="the game's id (g1, g2, …: GET /api/games)")
    r.add_argument("--graphic", default="scoreboard", metavar="NAME",
                   help="the graphic to draw (default: scoreboard; show: the rundown's output)")
    r.add_argument("--from", dest="start", default=None, metavar="T", help="from T after the game's start (90, 1:30)")
    r.add_argument("--to", dest="end", default=None, metavar="T", help="until T after the game's start (default: its end)")
    r.add_argument("--fps", type=int, choices=(25, 50), default=25, help="frames a second (default: 25)")
    r.add_argument("--format", choices=("prores", "webm"), default=None,
                   help="prores: ProRes 4444 with alpha in .mov; webm: VP9 with alpha (default: from --out)")
    r.add_argument("--timecode", default=None, metavar="HH:MM:SS:FF", help="the first frame's timecode (default 00:00:00:00)")
    r.add_argument("--lang", choices=available(), default="ru", help="on-air language (default: ru)")
    r.add_argument("--theme", default=None, help="overlay theme (default: the house theme)")
    r.add_argument("--data", default=None, help="data folder (default: $CHGK_OVERLAY_DATA or ./chgk-data)")
    r.add_argument("--out", required=True, help="the file to write (.mov or .webm)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--progress-file", default=None, metavar="FILE",
                   help="also write the progress as JSON into FILE (the panel's renders read it)")
    return p


def _scale_out_flags(p: argparse.ArgumentParser, redis_help: str | None) -> None:
    if redis_help:
        p.add_argument("--redis", default=None, metavar="URL", help=redis_help)
    p.add_argument("--redis-key-file", default=None, metavar="FILE",
                   help="the key writer and edges sign Redis values with (default: $CHGK_OVERLAY_REDIS_KEY, "
                        "else <data>/redis_key, which the writer makes)")
    p.add_argument("--proxy", action="append", default=[], metavar="ADDR",
                   help="a reverse proxy (address or network) whose X-Forwarded-* headers to believe (repeatable)")


def _patch(mode: str) -> None:
    """Monkey-patch for the green modes before anything opens a socket."""
    if mode == "eventlet":
        import warnings
        # the system's resolver in real threads, not eventlet's dnspython one (overlay/web/resolver.py)
        os.environ.setdefault("EVENTLET_NO_GREENDNS", "yes")
        with warnings.catch_warnings():  # the product's stack names eventlet; its notice is in the README
            warnings.simplefilter("ignore")  # EventletDeprecationWarning derives from Warning itself
            import eventlet
        eventlet.monkey_patch()
        if os.environ["EVENTLET_NO_GREENDNS"].lower() == "yes":
            from .web.resolver import install
            install()
    elif mode == "gevent":
        from gevent import monkey
        monkey.patch_all()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.cmd == "serve":
        return serve(args)
    if args.cmd == "edge":
        return edge(args)
    if args.cmd == "import-pack":
        return import_pack(args)
    if args.cmd == "obs-scenes":
        return obs_scenes(args)
    if args.cmd == "render":
        return render(args)
    return 2


def render(args: argparse.Namespace) -> int:
    """Frame by frame from the journal, in its own process: never in the live server's."""
    from pathlib import Path

    from .config import DEFAULTS, ENV_PREFIX
    from .post.render import RenderError, Stopped, interruptible, plan, render as run

    # the data folder as `serve` finds it, never made here: a render only reads
    data = Path(args.data or os.environ.get(f"{ENV_PREFIX}_DATA") or DEFAULTS["DATA"]).expanduser()
    try:
        p = plan(data, args.game, graphic=args.graphic,
                 start=args.start, end=args.end, fps=args.fps, fmt=args.format, timecode=args.timecode,
                 out=args.out, lang=args.lang, theme=args.theme)
    except RenderError as exc:
        print(f"chgk-overlay render: {exc.message}", file=sys.stderr)
        return 2
    stopped = interruptible()  # Ctrl-C: stop at the next frame, remove the partial file
    bar = _ProgressBar(sys.stderr, quiet=args.quiet, file=args.progress_file)
    print(f"chgk-overlay render: {p.game} «{p.graphic}», {p.frames} frames at {p.fps} fps → {p.out}", file=sys.stderr)
    try:
        done = run(p, progress=bar.update, stopped=stopped)
    except Stopped:
        bar.end()
        print("chgk-overlay render: stopped; nothing was written", file=sys.stderr)
        return 130
    except RenderError as exc:
        bar.end()
        print(f"chgk-overlay render: {exc.message}", file=sys.stderr)
        return 1
    bar.end()
    print(f"chgk-overlay render: wrote {done['out']} ({done['frames']} frames, {done['drawn']} drawn, "
          f"{done['fps']:.1f} frames/s)", file=sys.stderr)
    return 0


class _ProgressBar:
    """`[#####-----] 120/500 frames  31.2 fps  0:12 left` on one line, at most 5 times a second."""

    def __init__(self, out: Any, quiet: bool = False, file: str | None = None) -> None:
        self.out, self.quiet, self.last, self.shown, self.file = out, quiet, 0.0, False, file

    def update(self, p: Any) -> None:
        import time
        now = time.monotonic()
        if now - self.last < 0.2 and p.done < p.total:
            return
        self.last = now
        if self.file:
            import json
            tmp = self.file + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"done": p.done, "total": p.total, "fps": round(p.fps, 1),
                           "left_s": None if p.left_s == float("inf") else round(p.left_s, 1)}, f)
            os.replace(tmp, self.file)
        if self.quiet:
            return
        self.shown = True
        filled = int(30 * p.done / p.total)
        left = p.left_s
        eta = f"{int(left) // 60}:{int(left) % 60:02d} left" if left != float("inf") else "--:-- left"
        self.out.write(f"\r[{'#' * filled}{'-' * (30 - filled)}] {p.done}/{p.total} frames  {p.fps:5.1f} fps  {eta} ")
        self.out.flush()

    def end(self) -> None:
        if self.shown:
            self.out.write("\n")
            self.out.flush()
            self.shown = False


def import_pack(args: argparse.Namespace) -> int:
    """Parse, then store in one transaction: a pack that cannot be read leaves nothing behind."""
    import json
    import time
    from pathlib import Path

    from .config import data_dir
    from .packs import PackError, parse_pack
    from .packs.store import PackStore, clean_filename
    from .core.store import Store, StorageError

    path = Path(args.file)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        print(f"chgk-overlay: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        pack = parse_pack(raw, path.name)
    except PackError as exc:
        print(f"chgk-overlay: {path}: {exc.message}", file=sys.stderr)
        return 1
    store = Store(data_dir({"DATA": args.data} if args.data else None) / "chgk.sqlite3")
    try:
        summary, created = PackStore(store).add(pack, filename=clean_filename(path.name), raw=raw,
                                                at=time.time_ns() // 1_000_000)
    except StorageError as exc:
        print(f"chgk-overlay: {exc.message}", file=sys.stderr)
        return 1
    finally:
        store.close()
    if args.json:
        print(json.dumps({**summary, "existing": not created}, ensure_ascii=False))
    else:
        print(f"id: {summary['id']}{'' if created else '  (already imported)'}")
        print(f"title: {summary['title']}")
        print(f"questions: {summary['questions']} in {len(summary['tours'])} tour(s)")
    return 0


def obs_scenes(args: argparse.Namespace) -> int:
    from .obs.scenes import build_collection, dumps

    token = os.environ.get("CHGK_OVERLAY_TOKEN") or None
    if args.preview and not token:
        print("chgk-overlay: --preview needs the operators' token in CHGK_OVERLAY_TOKEN", file=sys.stderr)
        return 2
    try:
        text = dumps(build_collection(args.rules, args.base_url, name=args.name, lang=args.lang, theme=args.theme,
                                      preview_token=token if args.preview else None))
    except ValueError as exc:
        print(f"chgk-overlay: {exc}", file=sys.stderr)
        return 2
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        print(f"chgk-overlay: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"chgk-overlay: wrote {args.out} (OBS: Scene Collection → Import)", file=sys.stderr)
    return 0


def serve(args: argparse.Namespace) -> int:
    mode = args.async_mode or os.environ.get("CHGK_OVERLAY_ASYNC_MODE") or "eventlet"
    _patch(mode)

    from .web.app import create_app, start_clock
    from .web.server import serve as run_server

    overrides: dict = {"ASYNC_MODE": mode}
    if args.data:
        overrides["DATA"] = args.data
    if args.osc_listen:
        overrides["OSC_LISTEN"] = args.osc_listen
    if args.osc_target:
        overrides["OSC_TARGETS"] = list(args.osc_target)
    if args.redis:
        overrides["REDIS"] = args.redis
    if args.redis_key_file:
        overrides["REDIS_KEY_FILE"] = args.redis_key_file
    if args.proxy:
        overrides["PROXIES"] = list(args.proxy)
    app = create_app(overrides)
    if args.demo:
        from .demo import load_demo
        load_demo(app)
    start_clock(app)

    def ready(port: int) -> None:
        base = f"http://{args.host}:{port}"
        print(f"chgk-overlay {mode}: listening on {base}  (panel: {base}/control/, overlays: {base}/)",
              file=sys.stderr, flush=True)
        if app.config.get("PASSWORD_FILE"):
            print(f"chgk-overlay: operator password is in {app.config['PASSWORD_FILE']}", file=sys.stderr, flush=True)

    return _listen(run_server, app, args, ready)


def _listen(run_server: Callable[..., None], app: Any, args: argparse.Namespace, ready: Callable[[int], None]) -> int:
    """Serve until interrupted; a port that cannot be bound is said in words, exit code 1."""
    try:
        run_server(app, args.host, args.port, ready)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"chgk-overlay: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def edge(args: argparse.Namespace) -> int:
    mode = args.async_mode or os.environ.get("CHGK_OVERLAY_ASYNC_MODE") or "eventlet"
    if mode not in ("eventlet", "gevent"):
        print("chgk-overlay edge: --async-mode must be eventlet or gevent", file=sys.stderr)
        return 2
    _patch(mode)

    from .edge import create_edge_app, start_feed
    from .broadcast.relay import redact
    from .web.server import serve as run_server

    overrides: dict = {"ASYNC_MODE": mode}
    if args.redis:
        overrides["REDIS"] = args.redis
    if args.redis_key_file:
        overrides["REDIS_KEY_FILE"] = args.redis_key_file
    if args.data:
        overrides["DATA"] = args.data
    if args.proxy:
        overrides["PROXIES"] = list(args.proxy)
    app = create_edge_app(overrides)
    if not app.config.get("REDIS"):
        print("chgk-overlay edge: give the writer's Redis: --redis URL or CHGK_OVERLAY_REDIS", file=sys.stderr)
        return 2
    start_feed(app)

    def ready(port: int) -> None:
        print(f"chgk-overlay edge ({mode}): listening on http://{args.host}:{port}  (audience: /live, "
              f"overlays: /overlays/<name>), fed from Redis at {redact(app.config['REDIS'])}",
              file=sys.stderr, flush=True)

    return _listen(run_server, app, args, ready)
