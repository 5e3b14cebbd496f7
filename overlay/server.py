"""Run the WSGI server for the chosen async mode, with TCP_NODELAY on every accepted socket
(Nagle's algorithm would otherwise hold small Socket.IO frames back by tens of milliseconds)."""
from __future__ import annotations

import socket
from typing import Any

from flask import Flask


def _nodelay(sock: Any) -> Any:
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    return sock


class NoDelayListener:
    """Wraps a listening socket so that `accept` hands out sockets with TCP_NODELAY set."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def accept(self) -> tuple[Any, Any]:
        conn, addr = self._sock.accept()
        return _nodelay(conn), addr

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def serve(app: Flask, host: str, port: int, ready: Any = None) -> None:
    mode = app.config["ASYNC_MODE"]
    if mode == "eventlet":
        import eventlet
        import eventlet.wsgi
        listener = eventlet.listen((host, port))
        if ready:
            ready(listener.getsockname()[1])
        eventlet.wsgi.server(NoDelayListener(listener), app, log_output=False)
    elif mode == "gevent":
        from gevent import pywsgi
        from geventwebsocket.handler import WebSocketHandler

        class Handler(WebSocketHandler):
            def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
                super().__init__(_nodelay(sock), *args, **kwargs)

        server = pywsgi.WSGIServer((host, port), app, handler_class=Handler, log=None)
        server.init_socket()
        if ready:
            ready(server.socket.getsockname()[1])
        server.serve_forever()
    else:
        from werkzeug.serving import WSGIRequestHandler, make_server

        class Handler(WSGIRequestHandler):
            def setup(self) -> None:
                super().setup()
                _nodelay(self.connection)

            def log_request(self, *args: Any, **kwargs: Any) -> None:
                pass

        server = make_server(host, port, app, threaded=True, request_handler=Handler)
        if ready:
            ready(server.server_port)
        server.serve_forever()
