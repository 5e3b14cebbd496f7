"""The baseline: a bare python-socketio server that only re-broadcasts what it is sent.

    python bench/bare_server.py --mode eventlet --port 5100

`POST /emit` with a JSON object → `state` with that object to every `/overlay` client, then
`200 {"rev"}`. No Flask, no rules, no SQLite: the floor our server is compared with. It is served
by the very function that serves chgk-overlay (`overlay.web.server.serve`: same WSGI server per
async mode, same TCP_NODELAY), after the same monkey-patching as `chgk-overlay serve`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def build(mode: str) -> Any:
    import json

    import socketio

    sio = socketio.Server(async_mode=mode)

    @sio.on("connect", namespace="/overlay")
    def connect(sid: str, environ: dict, auth: Any = None) -> bool:
        return True

    def http(environ: dict, start_response: Any) -> list[bytes]:
        if environ.get("PATH_INFO") == "/emit" and environ.get("REQUEST_METHOD") == "POST":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            data = json.loads(environ["wsgi.input"].read(size))
            sio.emit("state", data, namespace="/overlay")
            body = json.dumps({"rev": data.get("rev")}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        body = b'{"ok": true}'
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    class App:
        """What `overlay.web.server.serve` needs of an app: a WSGI callable with `config`."""

        config = {"ASYNC_MODE": mode}

        def __init__(self) -> None:
            self.wsgi = socketio.WSGIApp(sio, http)

        def __call__(self, environ: dict, start_response: Any) -> Any:
            return self.wsgi(environ, start_response)

    return App()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("eventlet", "threading", "gevent"), required=True)
    p.add_argument("--port", type=int, required=True)
    args = p.parse_args()
    if args.mode == "eventlet":
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import eventlet
        eventlet.monkey_patch()
    elif args.mode == "gevent":
        from gevent import monkey
        monkey.patch_all()
    from overlay.web.server import serve

    def ready(port: int) -> None:
        print(f"bare {args.mode}: listening on {port}", file=sys.stderr, flush=True)

    serve(build(args.mode), "127.0.0.1", args.port, ready)


if __name__ == "__main__":
    main()
