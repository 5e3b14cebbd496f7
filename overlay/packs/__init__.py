"""Question pack import: bytes of a pack file → `Pack` (pure: no I/O, no state).

    from overlay.packs import parse_pack, PackError, question_to_spec, parts_to_specs
    pack = parse_pack(raw_bytes, filename="rusch16.txt")   # raises PackError only
    for q in pack.questions(): spec = question_to_spec(q)   # a game spec question object

Formats: the question database's text format and 4s (chgksuite); encodings UTF-8 (with or
without BOM), CP1251 and KOI8-R, detected. Choices worth knowing:
- Media references «(pic: a.jpg)», «(aud: b.mp3)», «(img a.jpg)» are taken out of the text
  (it goes on air) into `media`; those in answer/comment/source go to `answer_media`, since
  showing them with the question would give the answer away.
- The database's «<раздатка>…</раздатка>» and 4s «>» become `handout`, out of the text.
- Lists (4s «- » lines, database «1. » paragraphs) render as «1. …» lines in the text; when the
  question and the answer are lists of the same length (≥ 2) they also become `parts` (blitz).
- Authors: «Имя Фамилия (Город)» → name, city; with several people the first is kept (a city
  written once after a group is shared) and `raw` keeps the whole field.
- Complete HTML entities in the database format decode («&eacute;» → «é»); URLs keep their «&».
"""
from __future__ import annotations

import os
import re

from .dbformat import parse_db
from .decode import MAX_PACK_BYTES, decode_pack
from .errors import PackError
from .fours import parse_4s
from .model import Author, Pack, PackQuestion, QuestionPart, Tour
from .spec import parts_to_specs, question_to_spec

FORMATS = ("db", "4s")
_DB_QUESTION = re.compile(r"^(?:Вопрос(?:[ \t]+\d+)?|Ответ|Чемпионат|Пакет)[ \t]*:", re.MULTILINE)
_4S_QUESTION = re.compile(r"^[ \t]*(?:\?|!)(?:[ \t]|$)", re.MULTILINE)


def detect_format(text: str, filename: str = "") -> str:
    """"db" or "4s": the content decides; the `.4s` extension breaks a tie."""
    db = len(_DB_QUESTION.findall(text))
    four = len(_4S_QUESTION.findall(text))
    if filename.lower().endswith(".4s"):
        return "db" if db and not four else "4s"
    if db or four:
        return "db" if db >= four else "4s"
    raise PackError(None, "no questions found: neither «Вопрос N:» headers (question database format) "
                          "nor «? » lines (4s format)")


def parse_pack(data: bytes, filename: str = "") -> Pack:
    """Decode, detect the format and parse a pack; raise PackError naming the line on failure."""
    text, encoding = decode_pack(data)
    fmt = detect_format(text, filename)
    fields = parse_db(text) if fmt == "db" else parse_4s(text)
    if not fields["title"] and filename:
        fields["title"] = os.path.splitext(os.path.basename(filename.replace("\\", "/")))[0]
    return Pack(format=fmt, encoding=encoding, **fields)


__all__ = [
    "Author", "FORMATS", "MAX_PACK_BYTES", "Pack", "PackError", "PackQuestion", "QuestionPart", "Tour",
    "decode_pack", "detect_format", "parse_pack", "parts_to_specs", "question_to_spec",
]
