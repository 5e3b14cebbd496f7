"""`state_patch`: what changed between two public states, for overlays that ask for it.

`/overlay` sends the whole `state` (~2 kB) after every change; an overlay that connects with
`auth: {"patches": 1}` gets `state_patch` instead, often a tenth of that: a receiving Socket.IO
client spends part of its time per message on the bytes (docs/PERFORMANCE.md §10). A patch says
which state it applies to (`id`, `epoch`, `base` = that state's `rev`); a client holding any
other state asks again with `resync` and gets the whole `state` (docs/PATCHES.md).

ops: `[path, value]` sets the value at path (a list of object keys), `[path]` deletes the key.
Objects are compared key by key, recursively; anything else (lists, numbers, null) is replaced
whole when it differs.
"""
from __future__ import annotations

from typing import Any

PATCH = "state_patch"
Op = list[Any]


def diff(old: dict, new: dict, path: tuple[str, ...] = ()) -> list[Op]:
    ops: list[Op] = []
    for key, value in new.items():
        if key not in old:
            ops.append([[*path, key], value])
            continue
        before = old[key]
        if before == value:
            continue
        if isinstance(before, dict) and isinstance(value, dict):
            ops += diff(before, value, (*path, key))
        else:
            ops.append([[*path, key], value])
    ops += [[[*path, key]] for key in old if key not in new]
    return ops


def patch(old: dict, new: dict) -> dict:
    """The `state_patch` that turns `old` (as sent to a room) into `new`."""
    return {"id": new.get("id"), "epoch": new.get("epoch"), "base": old.get("rev"), "rev": new.get("rev"),
            "ops": diff(old, new)}


def apply(state: dict, p: dict) -> dict:
    """What a client does (static/lib/client.js): a new state, copying only the objects on each
    op's path, so the previous state stays as it was."""
    out = dict(state)
    for op in p["ops"]:
        path, node = op[0], out
        for key in path[:-1]:
            node[key] = dict(node[key])
            node = node[key]
        if len(op) > 1:
            node[path[-1]] = op[1]
        else:
            node.pop(path[-1], None)
    return out
