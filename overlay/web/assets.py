"""Static files at versioned addresses, cached by the browser for good.

`url_for("static", filename=…)` names `/static/v/<version>/<file>`, the version a hash of the
whole static tree. A page's stylesheets and modules — and whatever those name by relative paths
(`import "./clock.js"`, `url(font.woff2)`), which keep the prefix — are answered as immutable, so
an overlay that OBS reloads asks the server for its page and nothing else, and shows the state
sooner. A release with any file changed has another version, so no browser keeps an old file;
a file edited while the server runs is served revalidated until a restart gives it a version.
`/static/<file>` still answers, revalidated every time, for whatever names a file directly; so
does an old version's address (a page loaded before an upgrade), with today's file, never cached.
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from flask import Flask, Response, send_from_directory
from werkzeug.security import safe_join

YEAR_S = 365 * 24 * 3600


class Snapshot(NamedTuple):
    version: str  # a short hash of every file's path and bytes
    stamps: dict[str, tuple[int, int]]  # each file's (size, mtime) when it was hashed


@lru_cache(maxsize=8)
def snapshot(folder: Path) -> Snapshot:
    """The tree under `folder` as it is now (~5 ms for our 1.5 MB). A file is stamped before it
    is read, so one that changes meanwhile never matches its stamp again."""
    digest = hashlib.sha256()
    stamps: dict[str, tuple[int, int]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(folder).as_posix()
        st = path.stat()
        stamps[rel] = (st.st_size, st.st_mtime_ns)
        digest.update(rel.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return Snapshot(digest.hexdigest()[:12], stamps)


def tree_version(folder: Path) -> str:
    return snapshot(folder).version


def _unchanged(folder: Path, filename: str, stamps: dict[str, tuple[int, int]]) -> bool:
    """The file is still the one hashed into the version (an edit since the start is not)."""
    path = safe_join(str(folder), filename)
    try:
        st = os.stat(path) if path else None
    except OSError:
        return False
    return st is not None and stamps.get(filename) == (st.st_size, st.st_mtime_ns)


def install(app: Flask, folder: Path) -> str:
    """Serves `folder` at `/static/v/<version>/…` (the `static` endpoint) and `/static/…`
    (`static_plain`), on an app created with `static_folder=None`. Returns the version."""
    app.static_folder = str(folder)
    version, stamps = snapshot(folder.resolve())

    def versioned(tag: str, filename: str) -> Response:
        # immutable only for the bytes hashed into this version: a file edited since the start, or
        # another version's address, is served as the file now is, revalidated
        current = tag == version and _unchanged(folder, filename, stamps)
        resp = send_from_directory(folder, filename, max_age=YEAR_S if current else None)
        if current:
            resp.headers["Cache-Control"] = f"public, max-age={YEAR_S}, immutable"
        return resp

    def plain(filename: str) -> Response:
        return send_from_directory(folder, filename, max_age=None)  # no-cache: revalidated

    app.add_url_rule("/static/v/<tag>/<path:filename>", endpoint="static", view_func=versioned)
    app.add_url_rule("/static/<path:filename>", endpoint="static_plain", view_func=plain)

    @app.url_defaults
    def _version(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static":
            values.setdefault("tag", version)

    return version
