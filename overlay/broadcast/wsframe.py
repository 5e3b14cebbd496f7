"""A websocket frame as a server sends it (RFC 6455 §5.2): final and unmasked. The fan-out
builds one per message for every client (fanout.py); a direct websocket frames each Engine.IO
packet engineio hands it, and its Engine.IO CLOSE, with it (lean.py)."""
from __future__ import annotations

import struct


def server_frame(encoded: str | bytes) -> bytes:
    """A text frame for a str (UTF-8), a binary frame for bytes."""
    if isinstance(encoded, str):
        opcode, payload = 0x81, encoded.encode("utf-8")
    else:
        opcode, payload = 0x82, encoded
    n = len(payload)
    if n < 126:
        return struct.pack("!BB", opcode, n) + payload
    if n < 65536:
        return struct.pack("!BBH", opcode, 126, n) + payload
    return struct.pack("!BBQ", opcode, 127, n) + payload
