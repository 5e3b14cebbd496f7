"""Run the WSGI server for the chosen async mode, with TCP_NODELAY on every accepted socket
(Nagle's algorithm would otherwise hold small Socket.IO frames back by tens of milliseconds).

Under a flood of held connections (docs/SECURITY.md, "Floods") a process keeps taking new
clients: its open-files limit is raised to the hard limit, the async server may hold as many
connections as that limit leaves room for (eventlet's own default is 1,024), and a connection
that has not sent a whole request line and headers within HEADER_TIMEOUT seconds of becoming
idle is closed (slowloris, idle keep-alive). Websockets are bounded by Socket.IO's ping."""
from __future__ import annotations

import errno
import math
import resource
import socket
import sys
import time
from typing import Any

from flask import Flask

BACKLOG = 1024          # connections the kernel queues before we accept them (eventlet's default: 50)
FD_RESERVE_SHARE = 10   # 1/10 of the open-files limit stays for the database, Redis, files, OSC…
FD_RESERVE_MIN = 64
# below this the log says the limit could not be raised far enough (5,000 overlays and a reserve)
WANTED_OPEN_FILES = 8192
# accept() failing for want of descriptors or memory: wait and retry, never end the server
ACCEPT_LATER = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


def raise_open_files() -> int:
    """Raises this process's soft RLIMIT_NOFILE to its hard limit; returns the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft if soft != resource.RLIM_INFINITY else target
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):  # an infinite hard limit above the kernel's nr_open
        return soft
    return target


def connection_cap(open_files: int) -> int:
    """The connections one process may hold: its open-files limit less a reserve for its own files."""
    return max(1, open_files - max(FD_RESERVE_MIN, open_files // FD_RESERVE_SHARE))


def limits(app: Flask) -> tuple[int, float]:
    """(connection cap, header timeout) from the config, raising the open-files limit first."""
    open_files = raise_open_files()
    cap = positive_setting(app, "MAX_CONNECTIONS", connection_cap(open_files), int)
    header_timeout = positive_setting(app, "HEADER_TIMEOUT", 10.0, float)
    print(f"chgk-overlay: open files limit {open_files}: up to {cap} connections; "
          f"request headers within {header_timeout:g} s", file=sys.stderr, flush=True)
    if open_files < WANTED_OPEN_FILES:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        print(f"chgk-overlay: cannot raise the open files limit above {open_files} (hard limit "
              f"{'unlimited' if hard == resource.RLIM_INFINITY else hard}): raise the hard limit "
              f"(systemd LimitNOFILE=, ulimit -Hn) to hold more connections", file=sys.stderr, flush=True)
    return cap, header_timeout


def ping_settings(app: Flask) -> dict[str, int]:
    """Socket.IO's ping, in whole seconds: a client silent for an interval and its timeout is
    closed (engineio's defaults, 25 and 20 s)."""
    return {"ping_interval": positive_setting(app, "PING_INTERVAL", 25, int),
            "ping_timeout": positive_setting(app, "PING_TIMEOUT", 20, int)}


def positive_setting(app: Flask, key: str, default: Any, kind: type) -> Any:
    value = app.config.get(key)
    if value is None:
        return default
    whole = kind is int
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or value <= 0 or (whole and value != int(value))):
        raise SystemExit(f"{key} must be a positive {'whole ' if whole else ''}number, got {value!r}")
    return kind(value)


def _nodelay(sock: Any) -> Any:
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    return sock


class NoDelayListener:
    """Wraps a listening socket so that `accept` hands out sockets with TCP_NODELAY set, and
    waits (instead of failing) while the process is out of descriptors."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def accept(self) -> tuple[Any, Any]:
        while True:
            try:
                conn, addr = self._sock.accept()
            except OSError as exc:
                if exc.errno not in ACCEPT_LATER:
                    raise
                time.sleep(0.05)  # green under eventlet: the others keep being served
                continue
            return _nodelay(conn), addr

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def serve(app: Flask, host: str, port: int, ready: Any = None) -> None:
    mode = app.config["ASYNC_MODE"]
    cap, header_timeout = limits(app)
    if mode == "eventlet":
        _serve_eventlet(app, host, port, ready, cap, header_timeout)
    elif mode == "gevent":
        _serve_gevent(app, host, port, ready, cap, header_timeout)
    else:
        _serve_threading(app, host, port, ready, header_timeout)


def _serve_eventlet(app: Flask, host: str, port: int, ready: Any, cap: int, header_timeout: float) -> None:
    import eventlet
    import eventlet.wsgi

    from ..broadcast.lean import Home

    class Protocol(eventlet.wsgi.HttpProtocol):
        """The idle wait, the request line and the headers of each request share one deadline."""

        # A held websocket keeps its request's buffers for its whole life, unused after the
        # handshake: 2 kB to read a request's head (eventlet reads bodies past the buffer), 4 kB
        # to gather a response's head and small body (eventlet's default 16 kB): 49 → 42 kB of
        # memory per held overlay (docs/PERFORMANCE.md §13).
        rbufsize, wbufsize = 2048, 4096

        def handle_one_request(self) -> None:
            self._deadline = eventlet.Timeout(header_timeout)
            try:
                super().handle_one_request()
            except eventlet.Timeout as exc:
                if exc is not self._deadline:
                    raise
                self.close_connection = 1
            finally:
                self._deadline.cancel()

        def parse_request(self) -> bool:
            ok = super().parse_request()
            self._deadline.cancel()  # the application's own time (a websocket, a long poll) is not bounded here
            return ok

    # Never SO_REUSEPORT (eventlet's default): a second server started on this port would share it,
    # the kernel handing it half the overlays and panels, where it must fail with the port in use.
    listener = eventlet.listen((host, port), backlog=BACKLOG, reuse_port=False)
    if ready:
        ready(listener.getsockname()[1])
    # A direct websocket leaves the pool once its handshake is done (overlay/broadcast/lean.py)
    # and still counts against the cap.
    pool = eventlet.GreenPool(cap)
    Home.fits = lambda: pool.running() + Home.held <= cap
    eventlet.wsgi.server(NoDelayListener(listener), app, log_output=False, custom_pool=pool, protocol=Protocol)


def _serve_gevent(app: Flask, host: str, port: int, ready: Any, cap: int, header_timeout: float) -> None:
    import gevent
    from gevent import pywsgi
    from gevent.pool import Pool
    from geventwebsocket.handler import WebSocketHandler

    class Handler(WebSocketHandler):
        """As eventlet's: one deadline for the idle wait, the request line and the headers."""

        def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(_nodelay(sock), *args, **kwargs)

        def handle_one_request(self) -> Any:
            self._deadline = gevent.Timeout.start_new(header_timeout)
            try:
                return super().handle_one_request()
            except gevent.Timeout as exc:
                if exc is not self._deadline:
                    raise
                return None  # close quietly
            finally:
                self._deadline.close()

        def read_request(self, raw_requestline: str) -> Any:
            ok = super().read_request(raw_requestline)
            self._deadline.close()
            return ok

    server = pywsgi.WSGIServer((host, port), app, handler_class=Handler, log=None, spawn=Pool(cap),
                               backlog=BACKLOG)
    server.init_socket()
    if ready:
        ready(server.socket.getsockname()[1])
    server.serve_forever()


def _serve_threading(app: Flask, host: str, port: int, ready: Any, header_timeout: float) -> None:
    """One thread per connection, no cap but memory. Each line of the request head must arrive
    within what is left of the deadline (a socket timeout set before each line): a total bound
    but for a single line trickled byte by byte, which threading mode accepts as a development mode."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Handler(WSGIRequestHandler):
        def setup(self) -> None:
            super().setup()
            _nodelay(self.connection)

        def handle_one_request(self) -> None:
            self.rfile = _HeadReader(self.rfile, self.connection, time.monotonic() + header_timeout)
            super().handle_one_request()  # a timeout closes the connection (http.server)
            if isinstance(self.rfile, _HeadReader):  # the head never came whole
                self.rfile = self.rfile.raw

        def parse_request(self) -> bool:
            ok = super().parse_request()  # reads the headers through the _HeadReader
            self.rfile = self.rfile.raw if isinstance(self.rfile, _HeadReader) else self.rfile
            self.connection.settimeout(None)  # the application's own time is not bounded here
            return ok

        def log_error(self, format: str, *args: Any) -> None:
            if not format.startswith("Request timed out"):  # one line per slowloris would flood the log
                super().log_error(format, *args)

        def log_request(self, *args: Any, **kwargs: Any) -> None:
            pass

    server = make_server(host, port, app, threaded=True, request_handler=Handler)
    if ready:
        ready(server.server_port)
    server.serve_forever()


class _HeadReader:
    """The request's file while its head is read: each line gets what is left of the deadline."""

    def __init__(self, raw: Any, sock: socket.socket, deadline: float) -> None:
        self.raw, self.sock, self.deadline = raw, sock, deadline

    def readline(self, limit: int = -1) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request head too slow")
        self.sock.settimeout(left)
        return self.raw.readline(limit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)
