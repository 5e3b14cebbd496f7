"""A server zygote for the tests: `python -m tests.zygote MODE` patches for MODE (eventlet, gevent,
threading) as `chgk-overlay serve` does, imports the server's modules once, then forks a server
for each request it reads — the same `overlay.cli.main(argv)` that `python -m overlay` runs, with
its own environment, folder and log, in a process of its own.

Why: a server's start was ~1.2 s of CPU, two thirds of it Python importing Flask, Socket.IO,
Redis' and requests' clients and our modules; the suite starts ~220 servers. A forked one starts
from the imports done (docs/TESTING.md, session 17).

Protocol (one JSON object a line): requests on stdin `{"argv": [...], "env": {...}, "cwd": "...",
"log": "...", "nofile": [soft, hard]}` (the open-files limit the asking process would pass on to
a child of its own); on stdout `{"pid": N}` for each, in order, and `{"exit": N, "code": C}` when that
server ends (C as Popen's returncode: -signal when killed by one). The zygote ends when its stdin
closes (its test process ended); its servers are stopped by their tests, as before.
"""
from __future__ import annotations

import importlib
import json
import os
import select
import signal
import sys

# The zygote's own I/O and forks, taken before the green modes patch them: it never runs a hub, and
# shares none with a child.
FORK, READ, WRITE, CLOSE, WAITPID, SELECT = os.fork, os.read, os.write, os.close, os.waitpid, select.select
PIDFD_OPEN = os.pidfd_open


def preload(mode: str) -> None:
    """Patch as `serve` does, then import what a server's start imports: a probe child makes an
    app with the demo in a temp folder and names every module it had to import (most are
    imported inside create_app), and the zygote imports them in that order. Warms Babel's CLDR
    cache too (the catalogs' plural categories)."""
    from overlay.cli import _patch
    _patch(mode)  # before anything imports socket, as `serve` does (it patches again: a no-op)
    import overlay.cli  # noqa: F401
    import overlay.web.app  # noqa: F401
    from overlay.i18n import Catalogs
    Catalogs()
    read, write = os.pipe()
    pid = FORK()
    if pid == 0:
        os.close(read)
        code = 1
        try:
            quiet = os.open(os.devnull, os.O_WRONLY)  # the probe app's first-start words
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            fresh_hub(mode)
            before = set(sys.modules)
            import tempfile
            with tempfile.TemporaryDirectory() as folder:
                from overlay.demo import load_demo
                from overlay.web.app import create_app
                load_demo(create_app({"ASYNC_MODE": mode, "DATA": folder}))
                import overlay.edge  # noqa: F401
                import overlay.web.server  # noqa: F401
            names = "\n".join(m for m in list(sys.modules) if m not in before).encode()
            while names:
                names = names[WRITE(write, names):]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while chunk := READ(read, 65536):
        chunks.append(chunk)
    os.close(read)
    WAITPID(pid, 0)
    for name in b"".join(chunks).decode().split("\n"):
        if name and not name.startswith("__"):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module only its importer could import; the server imports it
                pass


def fresh_hub(mode: str) -> None:
    """The child's own event loop: eventlet made its hub when it patched, and an epoll object
    shared by two processes would hand one the other's sockets."""
    if mode == "eventlet":
        from eventlet import hubs
        hub = hubs._threadlocal.__dict__.pop("hub", None)
        if hub is not None:
            hub.poll.close()
    elif mode == "gevent":
        import gevent
        gevent.reinit()


def child(mode: str, request: dict) -> None:
    """In the forked process: become the server `request` asks for. It never returns: the
    server's end (or its exception) unwinds to the interpreter's own exit, as `python -m overlay`'s
    does (threads joined, atexit run: a stopping server stops its renders)."""
    fresh_hub(mode)
    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the zygote's pipes, replaced
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(devnull)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, tuple(min(v, hard) for v in request["nofile"]))
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.argv = ["overlay", *request["argv"]]
    from overlay.cli import main
    raise SystemExit(main(request["argv"]))


def main(mode: str) -> None:
    preload(mode)
    read_fd, write_fd = 0, 1
    pending = b""
    exits: dict[int, int] = {}  # a server's pidfd → its pid; the pidfd turns readable when it ends

    def say(message: dict) -> None:
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[WRITE(write_fd, data):]

    def reap(fd: int) -> None:
        pid = exits.pop(fd)
        CLOSE(fd)
        _, status = WAITPID(pid, 0)
        say({"exit": pid, "code": os.waitstatus_to_exitcode(status)})

    while True:
        # no timeout: a request or a server's end wakes it (polling every 50 ms for ends cost each
        # idle zygote 0.004 of a core, and each test process keeps one per async mode it used)
        ready, _, _ = SELECT([read_fd, *exits], [], [], None)
        for fd in ready:
            if fd != read_fd:
                reap(fd)
        if read_fd not in ready:
            continue
        chunk = READ(read_fd, 65536)
        if not chunk:
            return  # the test process is gone
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            pid = FORK()
            if pid == 0:
                for fd in exits:  # the other servers' pidfds are not this one's
                    CLOSE(fd)
                child(mode, request)
            exits[PIDFD_OPEN(pid)] = pid
            say({"pid": pid})


if __name__ == "__main__":
    main(sys.argv[1])
