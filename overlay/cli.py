"""`chgk-overlay` and `python -m overlay`. Only the standard library is imported at the top:
`serve` must monkey-patch for eventlet before anything opens a socket."""
from __future__ import annotations

import argparse
import os
import sys


def _host_port(value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return value


def parser() -> argparse.ArgumentParser:
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
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.cmd == "serve":
        return serve(args)
    return 2


def serve(args: argparse.Namespace) -> int:
    mode = args.async_mode or os.environ.get("CHGK_OVERLAY_ASYNC_MODE") or "eventlet"
    if mode == "eventlet":
        import warnings
        with warnings.catch_warnings():  # the product's stack names eventlet; its notice is in the README
            warnings.simplefilter("ignore", DeprecationWarning)
            import eventlet
        eventlet.monkey_patch()
    elif mode == "gevent":
        from gevent import monkey
        monkey.patch_all()

    from .app import create_app, start_clock
    from .server import serve as run_server

    overrides: dict = {"ASYNC_MODE": mode}
    if args.data:
        overrides["DATA"] = args.data
    if args.osc_listen:
        overrides["OSC_LISTEN"] = args.osc_listen
    if args.osc_target:
        overrides["OSC_TARGETS"] = list(args.osc_target)
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

    try:
        run_server(app, args.host, args.port, ready)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"chgk-overlay: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0
