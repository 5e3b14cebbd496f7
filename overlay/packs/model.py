"""What an imported pack is: frozen dataclasses with JSON-safe `to_dict()`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator


@dataclass(frozen=True)
class Author:
    name: str
    city: str  # "" when the pack does not say
    raw: str  # the author field as written (may name several people)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "city": self.city, "raw": self.raw}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Author":
        return cls(name=d["name"], city=d["city"], raw=d["raw"])


@dataclass(frozen=True)
class QuestionPart:
    """One question of a multi-part (blitz-like) question."""

    text: str
    answer: str
    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "answer": self.answer,
            "accepted": list(self.accepted),
            "rejected": list(self.rejected),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "QuestionPart":
        return cls(text=d["text"], answer=d["answer"], accepted=list(d["accepted"]), rejected=list(d["rejected"]))


@dataclass(frozen=True)
class PackQuestion:
    number: int
    text: str  # the whole question as written; media references and handout taken out
    answer: str
    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    comment: str = ""
    source: str = ""
    author: Author | None = None
    media: list[str] = field(default_factory=list)  # files referenced by the text/handout
    handout: str = ""
    parts: list[QuestionPart] = field(default_factory=list)  # empty unless multi-part
    preamble: str = ""  # text before the parts (only for a multi-part question)
    answer_media: list[str] = field(default_factory=list)  # files in answer/comment/source: spoilers
    line: int = 0  # where the question starts in the file

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "text": self.text,
            "answer": self.answer,
            "accepted": list(self.accepted),
            "rejected": list(self.rejected),
            "comment": self.comment,
            "source": self.source,
            "author": self.author.to_dict() if self.author else None,
            "media": list(self.media),
            "handout": self.handout,
            "parts": [p.to_dict() for p in self.parts],
            "preamble": self.preamble,
            "answer_media": list(self.answer_media),
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PackQuestion":
        """The inverse of `to_dict` (a stored pack back into objects); extra keys are ignored."""
        return cls(
            number=d["number"], text=d["text"], answer=d["answer"], accepted=list(d["accepted"]),
            rejected=list(d["rejected"]), comment=d["comment"], source=d["source"],
            author=Author.from_dict(d["author"]) if d.get("author") else None, media=list(d["media"]),
            handout=d["handout"], parts=[QuestionPart.from_dict(p) for p in d["parts"]],
            preamble=d["preamble"], answer_media=list(d["answer_media"]), line=d["line"])


@dataclass(frozen=True)
class Tour:
    title: str
    questions: list[PackQuestion] = field(default_factory=list)
    editors: list[str] = field(default_factory=list)
    info: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "editors": list(self.editors),
            "info": self.info,
            "questions": [q.to_dict() for q in self.questions],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Tour":
        return cls(title=d["title"], editors=list(d["editors"]), info=d["info"],
                   questions=[PackQuestion.from_dict(q) for q in d["questions"]])


@dataclass(frozen=True)
class Pack:
    title: str
    date: str
    editors: list[str]
    info: str
    tours: list[Tour]
    format: str  # "db" (question database text format) or "4s"
    encoding: str  # "utf-8", "utf-8-sig", "cp1251" or "koi8-r"
    url: str = ""

    def questions(self) -> Iterator[PackQuestion]:
        for tour in self.tours:
            yield from tour.questions

    @property
    def question_count(self) -> int:
        return sum(len(t.questions) for t in self.tours)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "date": self.date,
            "editors": list(self.editors),
            "info": self.info,
            "url": self.url,
            "format": self.format,
            "encoding": self.encoding,
            "tours": [t.to_dict() for t in self.tours],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Pack":
        return cls(title=d["title"], date=d["date"], editors=list(d["editors"]), info=d["info"],
                   tours=[Tour.from_dict(t) for t in d["tours"]], format=d["format"],
                   encoding=d["encoding"], url=d.get("url", ""))
