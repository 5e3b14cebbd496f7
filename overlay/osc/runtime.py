"""How OSC's background work runs: under the server's async mode (eventlet, gevent or threads,
through Flask-SocketIO) or on plain threads in tests. OSC code never imports eventlet."""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Runtime:
    spawn: Callable[..., Any]
    sleep: Callable[[float], None]
    make_queue: Callable[[], Any]
    empty: type[BaseException]


def socketio_runtime(socketio: Any) -> Runtime:
    """Background tasks, sleeps and queues that cooperate with the server's async mode."""
    eio = socketio.server.eio
    return Runtime(socketio.start_background_task, socketio.sleep, eio.create_queue,
                   eio.get_queue_empty_exception())


def thread_runtime() -> Runtime:
    def spawn(target: Callable[..., Any], *args: Any) -> threading.Thread:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        return thread
    return Runtime(spawn, time.sleep, queue.Queue, queue.Empty)
