"""The media library: logos, photos and backgrounds the operators upload (ARCHITECTURE.md §10).

A file is checked before it is decoded — type by its first bytes (never by its name), size,
and pixel count from the header — then fully decoded by Pillow in a short-lived worker process
(an SVG is rebuilt by `svgsafe`), written under a name the server chooses (its content hash)
through a temp file in the same folder (fsync, rename), and only then recorded in SQLite. Its URL changes with its
content, so OBS never shows a stale image after a re-upload; `PUT` replaces the content of an id
and the graphics that use it are told at once.

Items refer to a picture by its media id (`"m3"`); `Graphics.payload` resolves the ids in each
shown graphic's data to URLs, and public game states resolve a person's `photo` the same way.
"""
from __future__ import annotations

import errno
import hashlib
import io
import json
import logging
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..rules import InputError
from ..core.store import Store

log = logging.getLogger("chgk_overlay.media")
MAX_BYTES = 10 * 1024 * 1024
MAX_PIXELS = 40_000_000       # a 40-megapixel camera photo; checked from the header, before decoding
MAX_SIDE = 12_000
THUMB = 256
# Decoding runs in a worker process, never in the server: a 40-megapixel picture takes 160 MB to
# decode, and memory Pillow frees inside a long-lived process stays with the process (six parallel
# uploads once kept 2.4 GB). The worker's memory goes back to the system when it exits; these bound it.
DECODERS = 2                  # workers at once (more uploads wait their turn): the machine's cores
WORKER_MEMORY = 1024 ** 3     # address space of one worker: a 40-megapixel RGBA picture twice, and Python
WORKER_SECONDS = 120          # a 40-megapixel decode takes seconds; on a loaded 2-core machine, many times that
MEDIA_ID = re.compile(r"m[1-9][0-9]{0,8}")
FILE_NAME = re.compile(r"([0-9a-f]{32})(\.thumb)?\.(png|jpg|webp|svg)")
TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp", "svg": "image/svg+xml"}
EXT = {"png": "png", "jpeg": "jpg", "webp": "webp", "svg": "svg"}
MIME_BY_EXT = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp", "svg": "image/svg+xml"}
TAKEN = "the library takes PNG, JPEG, WebP and SVG"
# Served media may be opened on their own: no script, no plugin, no outside request.
CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

SCHEMA = """
CREATE TABLE IF NOT EXISTS media (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    hash TEXT NOT NULL,
    ext TEXT NOT NULL,
    type TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    name TEXT NOT NULL,
    thumb INTEGER NOT NULL,  -- 1: <hash>.thumb.webp exists (raster images)
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
"""

# What other file types look like, so a refusal can name them (first bytes → name).
KNOWN = [  # (magic, what it is in the developer's words, its format's short name for the panel)
    (b"GIF87a", "a GIF", "GIF"), (b"GIF89a", "a GIF", "GIF"), (b"MZ", "a Windows program (EXE)", "EXE"),
    (b"\x7fELF", "a Linux program (ELF)", "ELF"), (b"%PDF", "a PDF document", "PDF"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)", "ZIP"),
    (b"BM", "a BMP picture", "BMP"), (b"II*\x00", "a TIFF picture", "TIFF"), (b"MM\x00*", "a TIFF picture", "TIFF"),
    (b"\x00\x00\x01\x00", "an ICO icon", "ICO"), (b"8BPS", "a Photoshop file (PSD)", "PSD"), (b"Rar!", "a RAR archive", "RAR"),
    (b"\x1f\x8b", "a gzip archive (an SVGZ?)", "GZIP"), (b"ID3", "an MP3 sound", "MP3"), (b"OggS", "an Ogg sound or video", "OGG"),
]


def strings_in(data: Any) -> Iterator[str]:
    """Every string in `data` (nested dicts' values and lists): where a graphic may name a picture."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for v in data.values():
            yield from strings_in(v)
    elif isinstance(data, list):
        for v in data:
            yield from strings_in(v)


class MediaRefused(InputError):
    """An upload the library does not take: nothing was stored."""


class MediaInUse(InputError):
    status = 409

    def __init__(self, media_id: str, uses: list[dict]) -> None:
        used_by = [u["text"] for u in uses]
        super().__init__("media_in_use", f"{media_id} is in use: {'; '.join(used_by)}. Take those out first.",
                         id=media_id, uses=uses)
        self.used_by = used_by


class UnknownMedia(InputError):
    status = 404


class MediaStorageError(InputError):
    """The file could not be written (disk full, read-only folder): nothing was changed."""

    status = 507


def sniff(raw: bytes) -> str:
    """The type the bytes are: png | jpeg | webp | svg; raises MediaRefused (415) naming what they are."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "webp"
    head = raw[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<?xml", b"<svg", b"<!--", b"<!doctype svg")) and b"<svg" in raw[:65536].lower():
        return "svg"
    for magic, what, fmt in KNOWN:
        if raw.startswith(magic):
            raise MediaRefused("unsupported_media_type", f"The file is {what}; {TAKEN}.", reason="media_other_kind", kind=fmt) from None
    if raw[4:12] in (b"ftypavif", b"ftypheic", b"ftypmif1", b"ftypheix"):
        raise MediaRefused("unsupported_media_type", f"The file is an AVIF/HEIC picture; {TAKEN}. Export it as PNG or JPEG.",
                           reason="media_other_kind", kind="AVIF/HEIC")
    if not raw:
        raise MediaRefused("bad_media", "The file is empty.", reason="media_empty")
    raise MediaRefused("unsupported_media_type", f"The file is not a picture the library knows; {TAKEN}.",
                       reason="media_unknown_kind")


def _status(refusal: MediaRefused) -> MediaRefused:
    refusal.status = 415 if refusal.code == "unsupported_media_type" else 400
    return refusal


def inspect(raw: bytes, offload: Callable[..., Any] = lambda fn, *args: fn(*args),
            decoders: threading.Semaphore | None = None) -> dict[str, Any]:
    """Checks an upload and returns {kind, data (bytes to store), width, height, thumb (bytes|None)}.
    Raises MediaRefused with 400/413/415. An SVG is rebuilt by `offload` (off the event loop); a
    raster is decoded by a worker process, at most as many at once as `decoders` lets."""
    if len(raw) > MAX_BYTES:
        e = MediaRefused("too_large", f"The file is {len(raw) / 1048576:.1f} MB; the library takes files up to {MAX_BYTES // 1048576} MB.",
                         reason="media_too_large", mb=round(len(raw) / 1048576, 1), max_mb=MAX_BYTES // 1048576)
        e.status = 413
        raise e
    try:
        kind = sniff(raw)
    except MediaRefused as e:
        raise _status(e) from None
    if kind == "svg":
        from .svgsafe import UnsafeSvg, sanitise
        try:
            data, width, height = offload(sanitise, raw)
        except UnsafeSvg as exc:
            raise _status(MediaRefused("bad_media", str(exc), reason="media_unsafe_svg")) from None
        return {"kind": kind, "data": data, "width": width, "height": height, "thumb": None}
    if decoders is None:
        return _decode_elsewhere(kind, raw)
    with decoders:
        return _decode_elsewhere(kind, raw)


def _decode_elsewhere(kind: str, raw: bytes) -> dict[str, Any]:
    """`_raster` in a worker process (`python -m overlay.media.library <kind>`, the file on stdin). Called
    from a request's own (green) thread: the standard library's subprocess, patched by eventlet
    and gevent, waits without stopping the event loop."""
    try:
        done = subprocess.run([sys.executable, "-m", "overlay.media.library", kind], input=raw, capture_output=True,
                              timeout=WORKER_SECONDS, cwd=Path(__file__).resolve().parents[2])
    except subprocess.TimeoutExpired:
        raise _status(MediaRefused("bad_media", f"The picture took longer than {WORKER_SECONDS} s to decode; "
                                                "save it smaller or as a plain PNG or JPEG.",
                                                reason="media_slow", s=WORKER_SECONDS)) from None
    out = done.stdout
    if done.returncode != 0 or len(out) < 4:
        log.error("media: the decoding worker failed (exit %s): %s", done.returncode, done.stderr[-2000:].decode(errors="replace"))
        raise _status(MediaRefused("bad_media", f"The {kind.upper()} picture could not be decoded: the decoder stopped "
                                                f"(it has {WORKER_MEMORY // 1048576} MB for one picture). Save it smaller, "
                                                "or as a plain PNG or JPEG.", reason="media_undecodable"))
    size = struct.unpack(">I", out[:4])[0]
    head = json.loads(out[4:4 + size])
    if "refused" in head:
        raise _status(MediaRefused(head["refused"]["code"], head["refused"]["message"], **head["refused"].get("params", {})))
    return {"kind": kind, "data": raw, "width": head["width"], "height": head["height"], "thumb": out[4 + size:]}


def _worker(kind: str) -> int:
    """The worker's side: bounded memory, the file from stdin, a length-prefixed JSON head and
    the thumbnail's bytes to stdout."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))
    raw = sys.stdin.buffer.read()
    try:
        info = _raster(kind, raw)
        head, thumb = {"width": info["width"], "height": info["height"]}, info["thumb"]
    except MediaRefused as e:
        head, thumb = {"refused": e.as_json()}, b""
    body = json.dumps(head).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(body)) + body + thumb)
    sys.stdout.buffer.flush()
    return 0


def _raster(kind: str, raw: bytes) -> dict[str, Any]:
    from PIL import Image, ImageOps

    names = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}
    # Our limit (below), checked as soon as the header is read, replaces Pillow's: it says the size.
    Image.MAX_IMAGE_PIXELS = None
    try:
        im = Image.open(io.BytesIO(raw), formats=[names[kind]])  # reads the header only
        width, height = im.size
        if width * height > MAX_PIXELS or max(width, height) > MAX_SIDE:
            raise _status(MediaRefused(
                "bad_media", f"The picture is {width} × {height} pixels; the library takes up to "
                             f"{MAX_PIXELS // 1_000_000} megapixels and {MAX_SIDE} pixels a side. Scale it down first.",
                reason="media_too_big", width=width, height=height, mp=MAX_PIXELS // 1_000_000, side=MAX_SIDE))
        im.load()  # the whole decode: a truncated or corrupt file fails here, not on air
        thumb = ImageOps.exif_transpose(im)
        width, height = thumb.size
        thumb.thumbnail((THUMB, THUMB))
        out = io.BytesIO()
        if thumb.mode not in ("RGB", "RGBA"):
            thumb = thumb.convert("RGBA")
        thumb.save(out, "WEBP", quality=80)
    except MediaRefused:
        raise
    except MemoryError:
        raise _status(MediaRefused("bad_media", f"The {kind.upper()} picture needs more memory to decode than the library "
                                                f"gives one picture ({WORKER_MEMORY // 1048576} MB); save it smaller.",
                                                reason="media_undecodable")) from None
    except Exception as exc:  # Pillow raises many types for broken files
        raise _status(MediaRefused("bad_media", f"The file starts like a {kind.upper()} picture but cannot be read ({exc.__class__.__name__}: {str(exc)[:120]}); it may be cut short or damaged.", reason="media_damaged", kind=kind.upper())) from None
    return {"kind": kind, "data": raw, "width": width, "height": height, "thumb": out.getvalue()}


UsedBy = Callable[[str], list]  # a media id → its uses: use(…) dicts or plain texts
_users: list[UsedBy] = []


def use(kind: str, text: str, **params: Any) -> dict:
    """One use of a picture: its kind and params (the panel's words), and the API's text."""
    return {"kind": kind, "text": text, **params}


def register_media_user(fn: UsedBy) -> None:
    """`fn(media_id)` names what uses a picture (e.g. «рундаун «Шоу», пункт «Спонсор»»); a
    delete is refused with 409 while any registered function names something."""
    _users.append(fn)


def off_loop(mode: str) -> Callable[..., Any]:
    """How to run blocking work — decoding a 40-megapixel picture, fsyncing 10 MB — without
    stopping the event loop that carries every broadcast: a real OS thread (Pillow and file
    writes release the GIL) under eventlet or gevent, the calling thread otherwise."""
    if mode == "eventlet":
        from eventlet import tpool
        return tpool.execute
    if mode == "gevent":
        import gevent
        return lambda fn, *args: gevent.get_hub().threadpool.apply(fn, args)
    return lambda fn, *args: fn(*args)


class Media:
    def __init__(self, store: Store, folder: Path, clock: Callable[[], int],
                 offload: Callable[..., Any] = lambda fn, *args: fn(*args)) -> None:
        self.store, self.folder, self.clock, self.offload = store, Path(folder), clock, offload
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.decoders = threading.BoundedSemaphore(DECODERS)  # made here, after eventlet's patching
        with store.transaction() as db:
            db.execute(SCHEMA)
        self.users: list[UsedBy] = []  # this app's own checks (graphics on air, games)
        self.listeners: list[Callable[[str], None]] = []  # told the id of a replaced picture
        self._rows: dict[str, dict] = {}
        for row in self.store.query("SELECT n, hash, ext, type, width, height, bytes, name, thumb, created_at, updated_at FROM media"):
            rec = self._record(row)
            self._rows[rec["id"]] = rec
        self._sweep()

    def _sweep(self) -> None:
        """At start: drop what a crash left between the write and the commit — temp files, and
        content files no record names (the record is committed only after its file is in place)."""
        keep = {r["url"].rsplit("/", 1)[1] for r in self._rows.values()}
        keep |= {r["thumb"].rsplit("/", 1)[1] for r in self._rows.values()}
        for p in self.folder.iterdir():
            if p.name.startswith(".upload-") or (FILE_NAME.fullmatch(p.name) and p.name not in keep):
                try:
                    p.unlink()
                except OSError:
                    pass

    # reading ---------------------------------------------------------------------------------

    @staticmethod
    def _record(row: tuple) -> dict[str, Any]:
        n, h, ext, kind, w, hgt, size, name, thumb, created, updated = row
        return {"id": f"m{n}", "url": f"/media/{h}.{ext}",
                "thumb": f"/media/{h}.thumb.webp" if thumb else f"/media/{h}.{ext}",
                "type": TYPES[kind], "width": w, "height": hgt, "bytes": size, "name": name,
                "hash": h, "created_at": created, "updated_at": updated}

    def list(self) -> list[dict]:
        return sorted((dict(r) for r in self._rows.values()), key=lambda r: int(r["id"][1:]))

    def get(self, media_id: Any) -> dict:
        rec = self._rows.get(media_id) if isinstance(media_id, str) else None
        if rec is None:
            raise UnknownMedia("unknown_media", f"There is no picture {media_id!r} in the library. GET /api/media lists them.")
        return dict(rec)

    def url(self, value: Any) -> str | None:
        """The URL a media id stands for (None when it is not one of ours)."""
        rec = self._rows.get(value) if isinstance(value, str) else None
        return rec["url"] if rec else None

    def resolve(self, data: Any) -> dict[str, str]:
        """{media id: url} for every string in `data` that names a picture in the library."""
        return {v: self._rows[v]["url"] for v in strings_in(data) if v in self._rows}

    def used_by(self, media_id: str) -> list[str]:
        return [u["text"] for u in self.uses(media_id)]

    def uses(self, media_id: str) -> list[dict]:
        """What uses the picture, each as {kind, text, …params}: the panel says it from `kind` and
        the params through the catalogs (`media.use.<kind>`), `text` is the API's `used_by` line.
        A check may also name a use as a plain text (kind "other")."""
        out: list[dict] = []
        for fn in [*self.users, *_users, self._people_using]:
            try:
                out += [u if isinstance(u, dict) else {"kind": "other", "text": str(u)} for u in fn(media_id)]
            except Exception as exc:  # a check that fails must not let a used picture go
                log.exception("media: a used-by check failed for %s", media_id)
                out.append(use("check_failed", f"(a check of what uses it failed: {exc.__class__.__name__}; try again)"))
        return out

    def _people_using(self, media_id: str) -> list[dict]:
        """The show's people (their strap presets, /api/people) whose `photo` names the picture."""
        return [use("person_photo", f"человек «{p.get('name', '')}»: фото", person=p.get("name", ""))
                for p in self.store.get_setting("people", [])
                if isinstance(p, dict) and p.get("photo") == media_id]

    def file(self, name: str) -> tuple[Path, str] | None:
        m = FILE_NAME.fullmatch(name)
        if not m:
            return None
        path = self.folder / name
        mime = "image/webp" if m.group(2) else MIME_BY_EXT[m.group(3)]
        return (path, mime) if path.is_file() else None

    # changing --------------------------------------------------------------------------------

    def add(self, raw: bytes, name: str = "") -> dict:
        info = inspect(raw, self.offload, self.decoders)
        with self.lock:
            h, ext = self.offload(self._write, info)
            now = self.clock()
            try:
                with self.store.transaction() as db:
                    cur = db.execute(
                        "INSERT INTO media (hash, ext, type, width, height, bytes, name, thumb, created_at, updated_at)"
                        " VALUES (?,?,?,?,?,?,?,?,?,?)",
                        (h, ext, info["kind"], info["width"], info["height"], len(info["data"]),
                         _label(name), int(info["thumb"] is not None), now, now))
                    n = cur.lastrowid
                    _journal(db, now, {"action": "add", "media": f"m{n}", "hash": h, "name": _label(name)})
            except Exception:
                self._collect(h, ext)
                raise
            rec = self._record((n, h, ext, info["kind"], info["width"], info["height"], len(info["data"]),
                                _label(name), int(info["thumb"] is not None), now, now))
            self._rows[rec["id"]] = rec
            return dict(rec)

    def replace(self, media_id: str, raw: bytes, name: str = "") -> dict:
        """New content for an id: the URL changes with it, and the listeners are told."""
        old = self.get(media_id)
        info = inspect(raw, self.offload, self.decoders)
        with self.lock:
            h, ext = self.offload(self._write, info)
            now = self.clock()
            label = _label(name) if name else old["name"]
            try:
                with self.store.transaction() as db:
                    db.execute("UPDATE media SET hash=?, ext=?, type=?, width=?, height=?, bytes=?, name=?, thumb=?,"
                               " updated_at=? WHERE n=?",
                               (h, ext, info["kind"], info["width"], info["height"], len(info["data"]), label,
                                int(info["thumb"] is not None), now, int(media_id[1:])))
                    _journal(db, now, {"action": "replace", "media": media_id, "hash": h, "name": label})
            except Exception:
                if h != old["hash"]:
                    self._collect(h, ext)
                raise
            rec = self._record((int(media_id[1:]), h, ext, info["kind"], info["width"], info["height"],
                                len(info["data"]), label, int(info["thumb"] is not None), old["created_at"], now))
            self._rows[media_id] = rec
            if old["hash"] != h:
                self._collect(old["hash"], old["url"].rsplit(".", 1)[1])
        for listener in list(self.listeners):
            listener(media_id)
        return dict(rec)

    def delete(self, media_id: str) -> None:
        rec = self.get(media_id)
        used = self.uses(media_id)
        if used:
            raise MediaInUse(media_id, used)
        with self.lock:
            with self.store.transaction() as db:
                db.execute("DELETE FROM media WHERE n=?", (int(media_id[1:]),))
                _journal(db, self.clock(), {"action": "delete", "media": media_id, "hash": rec["hash"]})
            self._rows.pop(media_id, None)
            self._collect(rec["hash"], rec["url"].rsplit(".", 1)[1])

    # files -----------------------------------------------------------------------------------

    def _write(self, info: dict) -> tuple[str, str]:
        """Writes the file (and its thumbnail) under its content hash; returns (hash, ext)."""
        h = hashlib.sha256(info["data"]).hexdigest()[:32]
        ext = EXT[info["kind"]]
        written: list[Path] = []
        try:
            for target, data in ((self.folder / f"{h}.{ext}", info["data"]),
                                 (self.folder / f"{h}.thumb.webp", info["thumb"])):
                if data is None or target.exists():
                    continue
                _atomic_write(target, data)
                written.append(target)
            _fsync_dir(self.folder)
        except OSError as exc:
            for p in written:
                p.unlink(missing_ok=True)
            why = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else (
                "the media folder is read-only" if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) else str(exc))
            raise MediaStorageError("storage_unavailable",
                                    f"The picture could not be saved ({why}); nothing was changed. Free space in the data folder and upload it again.") from None
        return h, ext

    def _collect(self, h: str, ext: str) -> None:
        """Removes a content file no record uses any more."""
        if any(r["hash"] == h for r in self._rows.values()):
            return
        for p in (self.folder / f"{h}.{ext}", self.folder / f"{h}.thumb.webp"):
            try:
                p.unlink(missing_ok=True)
            except OSError:
                pass  # a leftover file is harmless: its name is its content


def _journal(db: Any, at: int, body: dict) -> None:
    """What operators did to the library, in the journal beside the games' commands."""
    db.execute("INSERT INTO journal (game_id, at, kind, body, rev) VALUES (NULL, ?, 'media', ?, NULL)",
               (at, json.dumps(body, ensure_ascii=False)))


def _atomic_write(target: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".upload-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _label(name: str) -> str:
    """The operator's name for a picture (the uploaded file's name, without its folder)."""
    base = str(name or "").replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(c for c in base if c.isprintable())[:120]


def games_using(sessions: Any, media_id: str) -> list[dict]:
    """Games whose questions name the picture as their author's photo."""
    out = []
    for live in list(sessions.games.values()):
        for sector in live.game.sectors:
            for q in sector.questions:
                author = q.get("author") or {}
                if author.get("photo") == media_id:
                    out.append(use("author_photo", f"игра «{live.game.title or live.id}», сектор {sector.number}: "
                                                   f"фото автора {author.get('name', '')}".rstrip(),
                                   game=live.game.title or live.id, sector=sector.number, person=author.get("name", "")))
    return out


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1]))
