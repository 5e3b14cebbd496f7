"""Bytes → text: size and binary checks, then UTF-8 / CP1251 / KOI8-R detection."""
from __future__ import annotations

import codecs
import math
import re
from collections import Counter

from .errors import PackError

MAX_PACK_BYTES = 5 * 1024 * 1024

# Words that appear in almost every pack; in the right decoding they come out readable.
_MARKERS = ("Вопрос", "Ответ", "Зачет", "Зачёт", "Комментарий", "Источник", "Автор", "Тур", "Чемпионат")
# Letters and typography a Russian/Ukrainian/Belarusian pack uses outside ASCII.
_PLAUSIBLE = re.compile(r"[А-Яа-яЁёЄєІіЇїҐґЎў«»„“”‘’—–…№°§©®™•·±×\u00a0\u0301]")
_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1f\x7f-\x9f]")
# Approximate letter frequencies of Russian prose (plus Ukrainian letters), per mille.
_FREQ = {
    "о": 110, "е": 85, "а": 80, "и": 74, "н": 67, "т": 63, "с": 55, "р": 47, "в": 45, "л": 44,
    "к": 35, "м": 32, "д": 30, "п": 28, "у": 26, "я": 20, "ы": 19, "ь": 17, "г": 17, "з": 16,
    "б": 16, "ч": 14, "й": 12, "х": 10, "ж": 9, "ш": 7, "ю": 6, "ц": 5, "щ": 4, "э": 3, "ф": 3,
    "ё": 2, "ъ": 0.4, "і": 20, "ї": 5, "є": 4, "ґ": 0.5,
}
_LOG_FREQ = {letter: math.log(per_mille / 1000) for letter, per_mille in _FREQ.items()}


def _line_of(data: bytes | str, offset: int) -> int:
    nl = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(nl, 0, offset) + 1  # type: ignore[arg-type]


def _normalize(text: str) -> str:
    # One newline convention, and a trailing DOS end-of-file mark is not content.
    return text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\x1a")


def _score(text: str, hist: Counter[str]) -> tuple[int, float]:
    """Higher is a more likely decoding: marker words first, then how Russian the letters look.

    KOI8-R and CP1251 both put Cyrillic at 0xC0-0xFF, in a different order and with the cases
    swapped, so the wrong one of the two turns prose into mostly capitals made of rare letters.
    """
    markers = sum(text.count(m) for m in _MARKERS)
    likelihood = 0.0
    for ch, n in hist.items():
        low = ch.lower()
        if low in _LOG_FREQ:
            likelihood += n * _LOG_FREQ[low]
            likelihood += n if ch == low else -n  # lower case dominates real prose
    return markers, likelihood


def _plausible(hist: Counter[str]) -> bool:
    non_ascii = sum(n for ch, n in hist.items() if ch > "\x7f")
    odd = sum(n for ch, n in hist.items() if ch > "\x7f" and not _PLAUSIBLE.match(ch))
    return odd * 20 <= non_ascii  # at most 5 % of non-ASCII characters outside the alphabet


def decode_pack(data: bytes) -> tuple[str, str]:
    """Return (text with "\\n" newlines, encoding name) or raise PackError."""
    if not isinstance(data, (bytes, bytearray)):
        raise PackError(None, "a pack must be given as bytes (the raw file)")
    data = bytes(data)
    if not data:
        raise PackError(None, "empty file: expected a question pack")
    if len(data) > MAX_PACK_BYTES:
        raise PackError(
            None, f"file is {len(data)} bytes, over the limit of {MAX_PACK_BYTES} bytes "
                  f"({MAX_PACK_BYTES // (1024 * 1024)} MiB); split the pack")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise PackError(None, "the file is UTF-16: save it as UTF-8 (or CP1251, KOI8-R)")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise PackError(_line_of(data, nul),
                        "binary data (a NUL byte): expected a text file in UTF-8, CP1251 or KOI8-R")

    if data.startswith(codecs.BOM_UTF8):
        try:
            text, encoding = data[len(codecs.BOM_UTF8):].decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError as e:
            raise PackError(_line_of(data, e.start + len(codecs.BOM_UTF8)),
                            "the file starts with a UTF-8 mark but is not valid UTF-8") from None
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = _decode_legacy(data)

    text = _normalize(text)
    bad = _CONTROL.search(text)
    if bad:
        raise PackError(_line_of(text, bad.start()),
                        f"binary data (control character 0x{ord(bad.group()):02x}): "
                        "expected a text file in UTF-8, CP1251 or KOI8-R")
    if not text.strip():
        raise PackError(None, "empty file: only blank lines, expected a question pack")
    return text, encoding


def _decode_legacy(data: bytes) -> tuple[str, str]:
    candidates = []
    for encoding in ("cp1251", "koi8-r"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        hist = Counter(text)  # one pass; the checks below look at distinct characters only
        if _plausible(hist):
            candidates.append((_score(text, hist), encoding, text))
    if not candidates:
        raise PackError(None, "cannot decode: not UTF-8, CP1251 or KOI8-R text")
    candidates.sort(key=lambda c: c[0], reverse=True)
    _, encoding, text = candidates[0]
    return text, encoding
