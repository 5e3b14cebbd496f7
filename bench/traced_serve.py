"""`python -m overlay serve …` with per-stage timestamps of every game command, for the benches.

    CHGK_STAGE_TRACE=/tmp/stages.jsonl python bench/traced_serve.py serve --demo --port 5000 …

Runs the real server (same arguments as `python -m overlay`) after hooking, as each module is
imported (so eventlet's monkey-patching still comes first):

- eventlet's `HttpProtocol.handle_one_response`: the request line and headers parsed (`wsgi0`);
  `flask.Flask.wsgi_app`: Flask entered (`app0`), before its request context (routing, session);
- `flask.Flask.full_dispatch_request`: the request's handler entered (`req`) and left (`resp`);
- `Store.append` / `Store.drop_from`: the SQLite transaction of a command or undo (`commit0`,
  `commit1`; with its fsync unless deferred), `Store.sync`: the deferred fsync (`sync0`, `sync1`);
- `Fanout.emit` of `state`: entered (`fan0`), the frame built (`frame`, its `bytes`), the last
  socket written (`fan1`), how many sockets were written directly;
- `hub.broadcast`: left (`bcast1`: the operators' view and `/control` emits done too).

Every stamp is CLOCK_MONOTONIC in ns (`time.monotonic_ns`), the clock of Node's
`process.hrtime.bigint()`, so bench/nodecg/load.js's send stamps line up with them. One JSON line
per request that committed something, flushed every 20 lines and at exit.
"""
from __future__ import annotations

import atexit
import importlib.abc
import importlib.util
import json
import os
import runpy
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

OUT = os.environ.get("CHGK_STAGE_TRACE", "/tmp/chgk-stages.jsonl")
now = time.monotonic_ns
current: dict[str, Any] = {}  # the request being handled (one at a time: the session's lock)
early: dict[str, Any] = {}  # its stamps before Flask's handler (any request; kept if it commits)
lines: list[str] = []


def flush() -> None:
    if lines:
        with open(OUT, "a") as f:
            f.write("".join(lines))
        lines.clear()


atexit.register(flush)


def hook_flask(mod: Any) -> None:
    orig = mod.Flask.full_dispatch_request

    def full_dispatch_request(self: Any) -> Any:
        current.clear()
        current.update(early)
        early.clear()
        current["req"] = now()
        try:
            return orig(self)
        finally:
            if "commit1" in current:
                current["resp"] = now()
                lines.append(json.dumps(current) + "\n")
                if len(lines) >= 20:
                    flush()

    mod.Flask.full_dispatch_request = full_dispatch_request
    orig_app = mod.Flask.wsgi_app

    def wsgi_app(self: Any, environ: Any, start_response: Any) -> Any:
        early["app0"] = now()
        return orig_app(self, environ, start_response)

    mod.Flask.wsgi_app = wsgi_app


def timed(fn: Callable, before: str, after: str) -> Callable:
    def wrapper(*a: Any, **kw: Any) -> Any:
        current[before] = now()
        try:
            return fn(*a, **kw)
        finally:
            current[after] = now()
    return wrapper


def hook_store(mod: Any) -> None:
    mod.Store.append = timed(mod.Store.append, "commit0", "commit1")
    mod.Store.drop_from = timed(mod.Store.drop_from, "commit0", "commit1")
    mod.Store.sync = timed(mod.Store.sync, "sync0", "sync1")
    orig_checkpoint = mod.Store._checkpoint

    def checkpoint(self: Any) -> None:
        t0 = now()
        try:
            orig_checkpoint(self)
        finally:
            lines.append(json.dumps({"checkpoint0": t0, "checkpoint1": now()}) + "\n")

    mod.Store._checkpoint = checkpoint


def hook_fanout(mod: Any) -> None:
    orig_frame = mod.server_frame

    def server_frame(encoded: str | bytes) -> bytes:
        frame = orig_frame(encoded)
        current["frame"], current["bytes"] = now(), len(frame)
        return frame

    mod.server_frame = server_frame
    orig_emit = mod.Fanout.emit

    def emit(self: Any, event: str, *a: Any, **kw: Any) -> Any:
        if event != "state" and not event.startswith("state"):
            return orig_emit(self, event, *a, **kw)
        direct = self.direct
        current.setdefault("fan0", now())
        try:
            return orig_emit(self, event, *a, **kw)
        finally:
            current["fan1"] = now()
            current["direct"] = current.get("direct", 0) + self.direct - direct

    mod.Fanout.emit = emit


def hook_hub(mod: Any) -> None:
    orig = mod.broadcast

    def broadcast(*a: Any, **kw: Any) -> Any:
        try:
            return orig(*a, **kw)
        finally:
            current["bcast1"] = now()

    mod.broadcast = broadcast  # looked up by name when the services subscribe it


def hook_wsgi(mod: Any) -> None:
    orig = mod.HttpProtocol.handle_one_response

    def handle_one_response(self: Any) -> Any:
        early.clear()
        early["wsgi0"] = now()
        return orig(self)

    mod.HttpProtocol.handle_one_response = handle_one_response


HOOKS = {"eventlet.wsgi": hook_wsgi, "flask.app": hook_flask, "overlay.core.store": hook_store,
         "overlay.broadcast.fanout": hook_fanout, "overlay.broadcast.hub": hook_hub}


class After(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Runs HOOKS[name] right after the module `name` has been executed."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in HOOKS:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        inner = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return inner.create_module(spec)

            def exec_module(self, module: Any) -> None:
                inner.exec_module(module)
                HOOKS[name](module)

        spec.loader = Loader()
        return spec


if __name__ == "__main__":
    sys.meta_path.insert(0, After())
    sys.argv = ["overlay", *sys.argv[1:]]
    runpy.run_module("overlay", run_name="__main__", alter_sys=True)
