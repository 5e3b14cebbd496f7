"""Field-level helpers shared by both formats: authors, media, answer lists, entities."""
from __future__ import annotations

import html
import re

from ..rules.names import fold_name
from .model import Author, QuestionPart

# (pic: a.jpg) and (aud: b.mp3) in the database format; (img [options] a.jpg) in 4s.
_MEDIA = re.compile(r"\((?:pic|aud|audio|video|img)\b([^()\n]*)\)", re.IGNORECASE)
# Only complete references: "&pg=" in a URL must stay, while "&eacute;" and "&#972;" decode.
_FILE = re.compile(r"^(?:[a-z]+://\S+|\S*\.[A-Za-z0-9]{2,5})$")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def unescape_entities(text: str) -> str:
    return _ENTITY.sub(lambda m: html.unescape(m.group()), text)


def tidy(text: str) -> str:
    """Strip each line, drop empty lines, squeeze runs of spaces."""
    lines = (re.sub(r"[ \t\f\v\u00a0]{2,}", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def take_media(text: str) -> tuple[str, list[str]]:
    """Remove media references from `text`; return the rest and the file names in order.

    The references are removed because the text goes on air; the files travel in `media`.
    """
    found: list[str] = []

    def grab(m: re.Match[str]) -> str:
        tokens = m.group(1).strip().lstrip(":").split()
        # (img w=5cm a.jpg): options come before the file; "(img is …)" prose is no reference
        if not tokens or not _FILE.match(tokens[-1]):
            return m.group()
        found.append(tokens[-1])
        return " "

    rest = _MEDIA.sub(grab, text)
    return (tidy(rest) if found else text), found


def split_top_level(text: str, separators: str) -> list[str]:
    """Split on any of `separators` outside parentheses/brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        elif ch in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def answer_list(text: str) -> list[str]:
    """Accepted/rejected variants: one per line, several on a line separated by ';'."""
    items = []
    for line in text.split("\n"):
        for item in split_top_level(line, ";"):
            item = item.strip()
            if item.endswith(".") and not item.endswith(".."):
                item = item[:-1].rstrip()
            if item:
                items.append(item)
    return items


def split_people(text: str) -> list[str]:
    """"A (X), B & C" → ["A (X)", "B", "C"]."""
    people = [fold_name(p).strip(" .") for p in split_top_level(text, ",;&")]
    return [p for p in people if p]


def _name_city(person: str) -> tuple[str, str]:
    """"Имя Фамилия (Город)" → ("Имя Фамилия", "Город"); no trailing parentheses → no city."""
    if person.endswith(")"):
        start = person.rfind("(")
        if start >= 0 and ")" not in person[start:-1]:
            return person[:start].strip(), person[start + 1:-1].strip()
    return person, ""


def parse_author(raw: str) -> Author | None:
    """«Имя Фамилия (Город)» → name and city; several people keep the first, city shared.

    «Александр Ведехин, Алексей Усанов (Таллин)» means both are from Tallinn, so the first
    person without a city takes the next city named in the list.
    """
    raw = fold_name(raw)
    people = split_people(raw)
    if not people:
        return None
    parsed = [_name_city(person) for person in people]
    name, city = parsed[0]
    if not city:
        city = next((c for _, c in parsed[1:] if c), "")
    if not name:
        return None
    return Author(name=name, city=city, raw=raw)


def build_parts(
    text_items: list[str], answer_items: list[str],
    accepted: list[str], rejected: list[str],
    accepted_items: list[str] | None = None, rejected_items: list[str] | None = None,
) -> list[QuestionPart]:
    """Pair the items of a multi-part question with its answers (only when the counts agree).

    Accepted/rejected variants go to their part when they form a list of the same length;
    otherwise they apply to every part (e.g. «только добуквенно верные ответы»).
    """
    n = len(text_items)
    if n < 2 or len(answer_items) != n:
        return []

    def per_part(items: list[str] | None, whole: list[str], i: int) -> list[str]:
        return [items[i]] if items is not None and len(items) == n else list(whole)

    return [
        QuestionPart(
            text=text_items[i], answer=answer_items[i],
            accepted=per_part(accepted_items, accepted, i),
            rejected=per_part(rejected_items, rejected, i),
        )
        for i in range(n)
    ]
