"""The graphics library: OGraf packages the operators upload (issue 27, part 2; API.md, OGraf).

An upload is a zip of one or more `*.ograf.json` manifests with their files. Everything is
checked in memory before anything is written — the archive's size, file count and total
unpacked size (counted while unpacking, never trusted from the headers), every path (relative,
inside the package, no symlinks), each manifest against our OGraf v1 manifest schema
(manifest_schema.py), its `main` and thumbnails present, its data `schema` a usable JSON Schema,
ids unique — then the package is written under its content hash (a temp folder renamed into
place) and recorded in SQLite. A refused upload stores nothing. The files are served only to
sandboxed frames (overlay/ograf/frames.py): third-party code never runs on our origin.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import shutil
import stat
import tempfile
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from ..rules import InputError
from ..core.store import Store
from . import manifest_schema

log = logging.getLogger("chgk_overlay.ograf")
MAX_UPLOAD = 50 * 1024 * 1024        # the zip as sent (413 above it)
MAX_UNPACKED = 200 * 1024 * 1024     # all files unpacked: a zip bomb stops here
MAX_FILES = 2000
MAX_FILE = 100 * 1024 * 1024         # one file unpacked
MAX_RATIO = 200                      # unpacked / packed for one member beyond 1 MB: a bomb
MAX_MANIFEST = 1024 * 1024
MAX_NAME = 200                       # bytes (UTF-8) of one file or folder name in a path
GRAPHIC_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
PKG = re.compile(r"[0-9a-f]{32}")
THUMB_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}

SCHEMA = """
CREATE TABLE IF NOT EXISTS ograf (
    id TEXT PRIMARY KEY,
    pkg TEXT NOT NULL,            -- content hash: the folder <data>/ograf/<pkg>/
    path TEXT NOT NULL,           -- the manifest's path inside the package
    manifest TEXT NOT NULL,       -- JSON, as uploaded
    created_at INTEGER NOT NULL
);
"""


class OgrafRefused(InputError):
    """An upload the library does not take (400 `bad_ograf`, 413 too large): nothing was stored."""

    def __init__(self, message: str, file: str | None = None, status: int = 400, **params: Any) -> None:
        super().__init__("bad_ograf" if status == 400 else "too_large", message, **params)
        self.status, self.file = status, file


class OgrafInUse(InputError):
    status = 409

    def __init__(self, graphic_id: str, used_by: list[str]) -> None:
        super().__init__("ograf_in_use", f"Graphic {graphic_id!r} is in use: {'; '.join(used_by)}. Take those out first.")
        self.used_by = used_by


class UnknownOgraf(InputError):
    status = 404


def data_validator(schema: Any) -> Any:
    """A validator for a graphic's data (its manifest's `schema`, GDD types are JSON Schema); its
    regular expressions run in RE2, never in Python's backtracking `re` (patterns.py)."""
    from . import patterns
    return patterns.validator(schema if isinstance(schema, dict) else {"type": "object"})


def error_text(err: Any) -> str:
    where = "/".join(str(p) for p in err.absolute_path) or "(top)"
    return f"at {where}: {err.message[:300]}"


def _clean_path(name: str) -> str:
    """A member's path, refused when it is absolute, escapes the package or is not plain."""
    if "\x00" in name or "\\" in name:
        raise OgrafRefused(f"The path {name[:120]!r} has a backslash or a NUL: paths in a package use '/'.", name[:200])
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in name):  # a line break in a name splits every log line and listing
        raise OgrafRefused(f"The path {name[:120]!r} has a control character (a line break, a tab…); "
                           "rename the file.", name[:200])
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise OgrafRefused(f"The path {name[:120]!r} is absolute; a package's paths are relative to it.", name[:200])
    parts = PurePosixPath(name).parts
    if any(p in ("..", ".") for p in name.split("/")) or not parts:
        raise OgrafRefused(f"The path {name[:120]!r} leads out of the package ('..').", name[:200])
    if len(name) > 400 or len(parts) > 20:
        raise OgrafRefused(f"The path {name[:120]!r} is too long.", name[:200])
    if any(len(p.encode("utf-8")) > MAX_NAME for p in parts):  # a file system takes 255 bytes a name
        raise OgrafRefused(f"The path {name[:120]!r} has a file or folder name longer than {MAX_NAME} bytes; "
                           "shorten it.", name[:200])
    return "/".join(parts)


def _inside(base: str, ref: str, manifest: str) -> str:
    """`ref` (a manifest's `main`, a thumbnail), relative to the manifest's folder, as a package path."""
    if not isinstance(ref, str) or not ref or ref.startswith("/") or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", ref) or "\\" in ref:
        raise OgrafRefused(f"{ref!r} must be a path relative to the manifest, inside the package.", manifest)
    parts: list[str] = [p for p in base.split("/") if p]
    for p in ref.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if not parts:
                raise OgrafRefused(f"{ref!r} leads out of the package.", manifest)
            parts.pop()
        else:
            parts.append(p)
    return "/".join(parts)


def unpack(raw: bytes) -> dict[str, bytes]:
    """The package's files {path: bytes}, every limit checked; raises OgrafRefused."""
    if len(raw) > MAX_UPLOAD:
        raise OgrafRefused(f"The package is {len(raw) / 1048576:.1f} MB; the library takes packages up to "
                           f"{MAX_UPLOAD // 1048576} MB.", status=413)
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        members = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise OgrafRefused(f"The file is not a zip archive ({exc.__class__.__name__}); send the package zipped.") from None
    files = [m for m in members if not m.is_dir()]
    if len(files) > MAX_FILES:
        raise OgrafRefused(f"The package has {len(files)} files; the library takes up to {MAX_FILES}.")
    out: dict[str, bytes] = {}
    total = 0
    for m in files:
        path = _clean_path(m.filename)
        mode = m.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise OgrafRefused(f"{path} is a symbolic link; a package holds plain files only.", path)
        if m.flag_bits & 0x1:
            raise OgrafRefused(f"{path} is encrypted; send the package without a password.", path)
        if path in out:
            raise OgrafRefused(f"{path} is in the archive twice.", path)
        if m.file_size > MAX_FILE or total + m.file_size > MAX_UNPACKED:
            raise OgrafRefused(f"Unpacked, the package is larger than {MAX_UNPACKED // 1048576} MB "
                               f"(or {path} alone larger than {MAX_FILE // 1048576} MB).", path)
        try:
            with zf.open(m) as f:
                data = f.read(min(MAX_FILE, MAX_UNPACKED - total) + 1)  # the header may lie: read at most the limit
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise OgrafRefused(f"{path} cannot be unpacked ({exc.__class__.__name__}: {str(exc)[:120]}).", path) from None
        total += len(data)
        if len(data) > m.file_size or total > MAX_UNPACKED:
            raise OgrafRefused(f"Unpacked, the package is larger than {MAX_UNPACKED // 1048576} MB.", path)
        if len(data) > 1024 * 1024 and len(data) > MAX_RATIO * max(1, m.compress_size):
            raise OgrafRefused(f"{path} unpacks {len(data) // max(1, m.compress_size)} times its packed size: "
                               "the library does not take zip bombs.", path)
        out[path] = data
    folders = {"/".join(p.split("/")[:i]) for p in out for i in range(1, p.count("/") + 1)}
    for path in sorted(folders & out.keys()):  # "a" and "a/b.js": one name cannot be both on disk
        raise OgrafRefused(f"{path} is both a file and a folder in the package; rename one of them.", path)
    return out


def read_manifests(files: dict[str, bytes]) -> list[tuple[str, dict]]:
    """Every `*.ograf.json` checked: [(path, manifest)]; raises OgrafRefused naming the file."""
    found = sorted(p for p in files if p.endswith(".ograf.json"))
    if not found:
        raise OgrafRefused("The package has no *.ograf.json manifest.")
    out: list[tuple[str, dict]] = []
    ids: dict[str, str] = {}
    for path in found:
        raw = files[path]
        if len(raw) > MAX_MANIFEST:
            raise OgrafRefused(f"The manifest is larger than {MAX_MANIFEST // 1024} KB.", path)
        try:
            doc = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise OgrafRefused(f"The manifest is not valid JSON ({str(exc)[:160]}).", path) from None
        if not isinstance(doc, dict):
            raise OgrafRefused("The manifest must be a JSON object.", path)
        if (err := manifest_schema.first_error(doc)) is not None:  # the schema's own path and reason
            why = manifest_schema.reason(err)
            where = f"{path} → {why['path']}" if why["path"] else path
            raise OgrafRefused(f"The manifest does not follow the OGraf v1 schema {error_text(err)}.", path,
                               where=where, **why)
        gid = doc["id"]
        if not GRAPHIC_ID.fullmatch(gid):
            raise OgrafRefused(f"The graphic id {gid[:60]!r} must be 1–100 letters, digits, '.', '_' or '-' "
                               "(it names the graphic in URLs and rundowns).", path)
        if gid.casefold().startswith("chgk-"):  # CHGK-scoreboard is ours too
            raise OgrafRefused(f"Graphic ids starting with 'chgk-' are this server's own graphics; rename {gid!r}.", path)
        if gid in ids:
            raise OgrafRefused(f"Two manifests have the id {gid!r} ({ids[gid]} and {path}).", path)
        ids[gid] = path
        base = path.rsplit("/", 1)[0] if "/" in path else ""
        main = _inside(base, doc["main"], path)
        if main not in files:
            raise OgrafRefused(f"The manifest's main {doc['main']!r} is not in the package.", path)
        for thumb in doc.get("thumbnails") or []:
            ref = thumb.get("file", "")
            if re.match(r"^https?://", ref):
                continue  # a thumbnail elsewhere is listed as absent: we fetch nothing from outside
            if _inside(base, ref, path) not in files:
                raise OgrafRefused(f"The thumbnail {ref!r} is not in the package.", path)
        schema = doc.get("schema")
        if schema is not None:
            from jsonschema import Draft202012Validator, SchemaError
            try:
                Draft202012Validator.check_schema(schema)
            except SchemaError as exc:
                raise OgrafRefused(f"The manifest's data schema is not a JSON Schema: {exc.message[:200]}.", path) from None
        _check_patterns(doc, path)
        out.append((path, doc))
    return out


def _check_patterns(doc: dict, path: str) -> None:
    """The data schema's and the custom actions' regular expressions, each one RE2 can run:
    item data is matched against them on the server, in linear time only (patterns.py)."""
    from . import patterns
    schemas = [("data schema", doc.get("schema"))] + [
        (f"custom action {a.get('id')!r}'s schema", a.get("schema")) for a in doc.get("customActions") or []
        if isinstance(a, dict)]
    for what, schema in schemas:
        try:
            patterns.check(schema)
        except patterns.PatternRefused as exc:
            raise OgrafRefused(f"The {what} has the pattern «{exc.pattern[:120]}», which this server cannot run "
                               f"({exc.why[:160]}). Patterns run in a linear-time engine (RE2): no backreferences "
                               "(\\1) or lookarounds ((?=…), (?<=…)); simplify the pattern.", path,
                               reason="ograf_pattern", where=path, pattern=exc.pattern[:120]) from None


def checked(raw: bytes) -> tuple[dict[str, bytes], list[tuple[str, dict]]]:
    """An upload's files and manifests, every check passed (OgrafRefused otherwise)."""
    files = unpack(raw)
    return files, read_manifests(files)


def package_hash(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return h.hexdigest()[:32]


def summary(gid: str, manifest: dict) -> dict[str, Any]:
    """A graphic as the API lists it."""
    return {"id": gid, "name": manifest.get("name", gid), "version": manifest.get("version"),
            "description": manifest.get("description"),
            "stepCount": manifest.get("stepCount", 1),
            "customActions": [{"id": a["id"], "name": a.get("name", a["id"]), "schema": a.get("schema")}
                              for a in manifest.get("customActions") or []],
            "schema": manifest.get("schema")}


UsedBy = Callable[[str], list[str]]


class OgrafLibrary:
    def __init__(self, store: Store, folder: Path, clock: Callable[[], int],
                 offload: Callable[..., Any] = lambda fn, *args: fn(*args)) -> None:
        # `offload`: unpacking, hashing and writing a package run off the event loop (media.off_loop)
        self.store, self.folder, self.clock, self.offload = store, Path(folder), clock, offload
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.users: list[UsedBy] = []  # rundown items, layers on air
        with store.transaction() as db:
            db.execute(SCHEMA)
        self._rows: dict[str, dict] = {}
        for gid, pkg, path, manifest, created in store.query("SELECT id, pkg, path, manifest, created_at FROM ograf"):
            self._rows[gid] = {"id": gid, "pkg": pkg, "path": path, "manifest": json.loads(manifest), "created_at": created}
        self._sweep()

    def _sweep(self) -> None:
        keep = {r["pkg"] for r in self._rows.values()}
        for p in self.folder.iterdir():
            if p.name.startswith(".upload-") or (PKG.fullmatch(p.name) and p.name not in keep):
                shutil.rmtree(p, ignore_errors=True)

    # reading ---------------------------------------------------------------------------------

    def get(self, gid: Any) -> dict:
        rec = self._rows.get(gid) if isinstance(gid, str) else None
        if rec is None:
            raise UnknownOgraf("unknown_ograf", f"There is no graphic {gid!r} in the graphics library. GET /api/ograf lists them.")
        return rec

    def find(self, gid: Any) -> dict | None:
        return self._rows.get(gid) if isinstance(gid, str) else None

    def base_url(self, rec: dict) -> str:
        """The URL folder of the graphic's manifest (its `main` and files are relative to it)."""
        folder = rec["path"].rsplit("/", 1)[0] + "/" if "/" in rec["path"] else ""
        return f"/ograf/pkg/{rec['pkg']}/{folder}"

    def main_url(self, rec: dict) -> str:
        base = rec["path"].rsplit("/", 1)[0] if "/" in rec["path"] else ""
        return f"/ograf/pkg/{rec['pkg']}/{_inside(base, rec['manifest']['main'], rec['path'])}"

    def listing(self, rec: dict) -> dict[str, Any]:
        out = summary(rec["id"], rec["manifest"])
        base = rec["path"].rsplit("/", 1)[0] if "/" in rec["path"] else ""
        out["thumbnails"] = [{**t, "url": f"/ograf/pkg/{rec['pkg']}/{_inside(base, t['file'], rec['path'])}"}
                             for t in rec["manifest"].get("thumbnails") or [] if not re.match(r"^https?://", t.get("file", ""))]
        out["frame"] = f"/ograf/frame/{rec['id']}?v={rec['pkg'][:12]}"
        out["created_at"] = rec["created_at"]
        return out

    def list(self) -> list[dict]:
        return [self.listing(r) for r in sorted(self._rows.values(), key=lambda r: r["id"])]

    def used_by(self, gid: str) -> list[str]:
        out: list[str] = []
        for fn in self.users:
            try:
                out += fn(gid)
            except Exception as exc:  # a failing check must not let a used graphic go
                log.exception("ograf: a used-by check failed for %s", gid)
                out.append(f"(a check of what uses it failed: {exc.__class__.__name__}; try again)")
        return out

    def file(self, pkg: str, path: str) -> Path | None:
        if not PKG.fullmatch(pkg):
            return None
        try:
            clean = _clean_path(path)
        except OgrafRefused:
            return None
        root = (self.folder / pkg).resolve()
        target = (root / clean).resolve()
        if root not in target.parents or not target.is_file() or target.is_symlink():
            return None
        return target

    # changing --------------------------------------------------------------------------------

    def add(self, raw: bytes, name: str = "") -> list[dict]:
        files, manifests = self.offload(checked, raw)
        with self.lock:
            for path, doc in manifests:
                if doc["id"] in self._rows:
                    raise OgrafRefused(f"A graphic with the id {doc['id']!r} is in the library already: "
                                       "delete it first (DELETE /api/ograf/<id>) to upload a new version.", path)
            pkg = self.offload(package_hash, files)
            written = self.offload(self._write, pkg, files)
            now = self.clock()
            try:
                with self.store.transaction() as db:
                    for path, doc in manifests:
                        db.execute("INSERT INTO ograf (id, pkg, path, manifest, created_at) VALUES (?,?,?,?,?)",
                                   (doc["id"], pkg, path, json.dumps(doc, ensure_ascii=False), now))
                    db.execute("INSERT INTO journal (game_id, at, kind, body, rev) VALUES (NULL, ?, 'ograf', ?, NULL)",
                               (now, json.dumps({"action": "add", "package": pkg, "name": name[:120],
                                                 "graphics": [d["id"] for _, d in manifests]}, ensure_ascii=False)))
            except Exception:
                if written:
                    shutil.rmtree(self.folder / pkg, ignore_errors=True)
                raise
            for path, doc in manifests:
                self._rows[doc["id"]] = {"id": doc["id"], "pkg": pkg, "path": path, "manifest": doc, "created_at": now}
            return [summary(d["id"], d) for _, d in manifests]

    def delete(self, gid: str) -> None:
        rec = self.get(gid)
        used = self.used_by(gid)
        if used:
            raise OgrafInUse(gid, used)
        with self.lock:
            with self.store.transaction() as db:
                db.execute("DELETE FROM ograf WHERE id=?", (gid,))
                db.execute("INSERT INTO journal (game_id, at, kind, body, rev) VALUES (NULL, ?, 'ograf', ?, NULL)",
                           (self.clock(), json.dumps({"action": "delete", "graphic": gid, "package": rec["pkg"]})))
            self._rows.pop(gid, None)
            if not any(r["pkg"] == rec["pkg"] for r in self._rows.values()):
                shutil.rmtree(self.folder / rec["pkg"], ignore_errors=True)

    def _write(self, pkg: str, files: dict[str, bytes]) -> bool:
        """The package's folder, written whole under a temp name and renamed; False if it exists."""
        target = self.folder / pkg
        if target.is_dir():
            return False
        tmp = Path(tempfile.mkdtemp(dir=self.folder, prefix=".upload-"))
        try:
            for path, data in files.items():
                dest = tmp / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            tmp.rename(target)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            err = InputError("storage_unavailable", f"The package could not be saved ({exc.strerror or exc}); nothing was changed.")
            err.status = 507
            raise err from None
        return True


def _current() -> OgrafLibrary | None:
    from flask import current_app
    return getattr(current_app.extensions.get("chgk"), "ograf", None)


def get_uploaded(gid: str) -> dict | None:
    """For the Server API (ograf-out): an uploaded graphic's listing with its manifest, or None.
    Call inside a request or app context."""
    lib = _current()
    rec = lib.find(gid) if lib else None
    return {**lib.listing(rec), "manifest": rec["manifest"]} if lib and rec else None


def list_uploaded() -> list[dict]:
    """For the Server API (ograf-out): every uploaded graphic's listing with its manifest."""
    lib = _current()
    return [{**lib.listing(r), "manifest": r["manifest"]} for r in sorted(lib._rows.values(), key=lambda r: r["id"])] if lib else []
