"""Pack questions → question objects of the game spec (API.md, `POST /api/games`)."""
from __future__ import annotations

from typing import Any

from .model import Author, PackQuestion

HANDOUT_LABEL = "Раздаточный материал"


def _author(author: Author | None) -> dict[str, str] | None:
    if author is None or not author.name:
        return None
    out = {"name": author.name}
    if author.city:
        out["city"] = author.city
    return out


def _spec(text: str, answer: str, accepted: list[str], rejected: list[str],
          q: PackQuestion, media: list[str]) -> dict[str, Any]:
    # Only non-empty values: the spec takes an absent field, not an empty string.
    out: dict[str, Any] = {"text": text, "answer": answer}
    for key, value in (("comment", q.comment), ("source", q.source)):
        if value:
            out[key] = value
    author = _author(q.author)
    if author:
        out["author"] = author
    for key, items in (("accepted", accepted), ("rejected", rejected), ("media", media)):
        if items:
            out[key] = list(items)
    return out


def question_to_spec(q: PackQuestion) -> dict[str, Any]:
    """One envelope's question: text, answer, comment, source, author {name, city}, and
    accepted / rejected / media when the pack has them.

    The game spec has no handout field, so a handout is put before the text in brackets;
    empty fields and an unknown author are left out rather than sent empty.
    """
    text = q.text
    if q.handout:
        text = f"[{HANDOUT_LABEL}: {q.handout}]\n{text}" if text else f"[{HANDOUT_LABEL}: {q.handout}]"
    return _spec(text, q.answer, q.accepted, q.rejected, q, q.media)


def parts_to_specs(q: PackQuestion, *, with_preamble: bool = False) -> list[dict[str, Any]]:
    """A multi-part (blitz) question → one question object per part (three for a blitz).

    Comment, source, author and media are the whole question's and go with every part.
    `with_preamble` puts the question's preamble before the first part's text.
    Raises ValueError for a question without parts.
    """
    if not q.parts:
        raise ValueError(f"question {q.number} is not a multi-part question")
    specs = []
    for i, part in enumerate(q.parts):
        text = part.text
        if i == 0 and with_preamble and q.preamble:
            text = f"{q.preamble}\n{text}"
        specs.append(_spec(text, part.answer, part.accepted, part.rejected, q, q.media))
    return specs


