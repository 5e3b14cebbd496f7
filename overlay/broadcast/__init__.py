"""The way out to screens: a recorded change reaches every overlay, panel and edge.

`hub` (Socket.IO `/overlay` and `/control`), `fanout` (one serialisation per change for every
room), `relay` (Redis to the edges: signed, with epoch and rev), `collector` (what the overlays
report they drew).
"""
