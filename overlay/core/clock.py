"""The server's clock: one place that says what time it is (ms since the epoch).

The rules never read it (they are given `now`); the session, the libraries and the transports do.
"""
from __future__ import annotations

import time


def now_ms() -> int:
    return time.time_ns() // 1_000_000
