"""One uploaded file from a multipart form (its field `file`), as the media and graphics
libraries take them: a body that says it is larger than the library takes is refused (413)
before it is read, and no more than one byte over the limit is ever read of the file."""
from __future__ import annotations

from collections.abc import Callable

from flask import request

from ..rules import InputError

SLACK = 65536  # the multipart envelope around the file


def uploaded_file(limit: int, too_large: Callable[[int], InputError], what: str) -> tuple[bytes, str]:
    """The file's bytes (at most `limit` + 1: the library says how much too large) and name;
    `too_large(length)`: the library's 413 for a declared length; `what`: the file, in words."""
    length = request.content_length
    if length is not None and length > limit + SLACK:
        raise too_large(length)
    request.max_content_length = limit + SLACK
    f = request.files.get("file")
    if f is None:
        raise InputError("bad_field", f"Send {what} as multipart/form-data in the field 'file'.")
    return f.read(limit + 1), f.filename or ""
