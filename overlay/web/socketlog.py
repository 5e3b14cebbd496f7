"""Malformed Socket.IO frames cost one log line, not a traceback each (issue 37).

python-engineio logs every exception raised while a packet is handled with its full traceback
('message handler error'). A client that sends undecodable frames (bad JSON, a lying attachment
count, an id that is not a number) made 2 000 of them 3 MB of log in a second. The exception
raised by the packet's decoding — no frame of ours in its traceback — is now logged as one line,
at most one every `EVERY_S` seconds, with the count of those left out; an exception raised in our
own handlers keeps its traceback (that is a bug of ours to see)."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

EVERY_S = 10.0
_OURS = str(Path(__file__).resolve().parent.parent)  # the overlay package's folder


def _in_our_code(tb: object) -> bool:
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(_OURS):  # type: ignore[attr-defined]
            return True
        tb = tb.tb_next  # type: ignore[attr-defined]
    return False


class MalformedPackets(logging.Filter):
    def __init__(self, every_s: float = EVERY_S) -> None:
        super().__init__()
        self.every, self.last, self.left_out = every_s, float("-inf"), 0
        self.lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info
        if not exc or not exc[1] or _in_our_code(exc[2]):
            return True
        now = time.monotonic()
        with self.lock:
            if now - self.last < self.every:
                self.left_out += 1
                return False
            self.last, left_out, self.left_out = now, self.left_out, 0
        said = record.getMessage()
        record.msg = "%s: a malformed Socket.IO packet from a client was dropped (%s: %s)%s"
        record.args = (said, exc[0].__name__ if exc[0] else "?", str(exc[1])[:160],
                       f"; {left_out} more since the last line" if left_out else "")
        record.exc_info, record.exc_text = None, None
        return True


def install() -> None:
    """On the Engine.IO and Socket.IO servers' loggers, once per process."""
    for name in ("engineio.server", "socketio.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, MalformedPackets) for f in logger.filters):
            logger.addFilter(MalformedPackets())
