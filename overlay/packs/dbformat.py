"""The question database's text format («Чемпионат:», «Тур:», «Вопрос N:», «Ответ:», …).

A header line `Name:` opens a field (text may follow on the same line); the field runs to the
next blank line. Wrapped lines are joined with a space; an indented line starts a new
paragraph (the database's convention), kept as "\\n". A non-header line after a blank line
continues the previous field as a new paragraph. Headers are recognised at the start of any
unindented line, so a pack written without blank lines between fields still reads.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import PackError
from .model import Author, PackQuestion, Tour
from .text import (
    answer_list, build_parts, parse_author, split_people, take_media, tidy, unescape_entities,
)

_HEADERS = {
    "Чемпионат": "title", "Пакет": "title",
    "Дата": "date", "Тур": "tour", "URL": "url", "Инфо": "info",
    "Редактор": "editor", "Редакторы": "editor",
    "Автор": "author", "Авторы": "author",
    "Вид": "ignored", "Тип": "ignored", "Копирайт": "ignored", "Рейтинг": "ignored", "Обработан": "ignored",
    "Вопрос": "question", "Ответ": "answer",
    "Зачет": "accepted", "Зачёт": "accepted",
    "Незачет": "rejected", "Незачёт": "rejected",
    "Комментарий": "comment", "Комментарии": "comment",
    "Источник": "source", "Источники": "source",
}
_QUESTION_FIELDS = ("answer", "accepted", "rejected", "comment", "source")
_HEADER = re.compile(r"^(?P<name>[A-Za-zА-Яа-яЁё]+)(?:[ \t]+(?P<num>[0-9]{1,4}))?[ \t]*:[ \t]*(?P<rest>.*)$")
_LOOKS_LIKE_HEADER = re.compile(r"^[A-Za-zА-Яа-яЁё]+(?:[ \t]+[0-9]+)?[ \t]*:[ \t]*$")
_HANDOUT_TAG = re.compile(r"<[ \t]*(/?)[ \t]*раздатка[ \t]*>", re.IGNORECASE)
_NUMBERED = re.compile(r"^([0-9]{1,2})[.)]\s+(.*)$", re.DOTALL)
_EXPECTED = "«Вопрос N:», «Ответ:», «Зачет:», «Незачет:», «Комментарий:», «Источник:», «Автор:», «Тур:»"


@dataclass
class _Field:
    line: int
    lines: list[tuple[str, bool]] = field(default_factory=list)  # (text, starts a paragraph)

    def add(self, raw: str, paragraph: bool) -> None:
        text = raw.strip()
        if text:
            self.lines.append((text, paragraph))

    def value(self) -> str:
        paragraphs: list[list[str]] = []
        for text, paragraph in self.lines:
            if paragraph or not paragraphs:
                paragraphs.append([text])
            else:
                paragraphs[-1].append(text)
        return unescape_entities("\n".join(" ".join(p) for p in paragraphs))


@dataclass
class _Question:
    line: int
    number: int
    fields: dict[str, _Field] = field(default_factory=dict)


@dataclass
class _Tour:
    line: int
    number: int | None
    title: _Field | None = None
    editors: list[_Field] = field(default_factory=list)
    info: list[_Field] = field(default_factory=list)
    author: _Field | None = None
    questions: list[PackQuestion] = field(default_factory=list)


def _take_handouts(text: str) -> tuple[str, list[str]]:
    """Cut «<раздатка>…</раздатка>» blocks out of a question text (the database's handout mark)."""
    pieces = _HANDOUT_TAG.split(text)  # text, "/" or "", text, …
    if len(pieces) == 1:
        return text, []
    kept, handouts, inside = [pieces[0]], [], False
    for closing, chunk in zip(pieces[1::2], pieces[2::2]):
        if not closing:
            inside = True
            handouts.append(chunk)
        elif inside:
            inside = False
            kept.append(chunk)
        else:  # a stray closing tag: drop the tag, keep the text
            kept.append(chunk)
    if inside:  # never closed: the tag is a typo rather than a handout to hide
        kept.append(handouts.pop())
    return tidy("\n".join(kept)), [h for h in (tidy(x) for x in handouts) if h]


def _numbered(value: str) -> tuple[str, list[str]] | None:
    """Paragraphs «1. …», «2. …», … (n ≥ 2, in order) → (preamble, items); else None."""
    preamble: list[str] = []
    items: list[list[str]] = []
    for paragraph in value.split("\n"):
        m = _NUMBERED.match(paragraph)
        if m and int(m.group(1)) == len(items) + 1:
            items.append([m.group(2).strip()])
        elif items:
            items[-1].append(paragraph)
        else:
            preamble.append(paragraph)
    if len(items) < 2:
        return None
    return "\n".join(preamble), [" ".join(i) for i in items]


class DbParser:
    def __init__(self) -> None:
        self.title: _Field | None = None
        self.date: _Field | None = None
        self.url: _Field | None = None
        self.editors: list[_Field] = []
        self.info: list[_Field] = []
        self.author: _Field | None = None
        self.tours: list[_Tour] = []
        self.question: _Question | None = None
        self.open: _Field | None = None  # the field lines are going to
        self.last: _Field | None = None  # the field a paragraph after a blank line continues

    def parse(self, text: str) -> dict:
        for n, raw in enumerate(text.split("\n"), 1):
            self._line(n, raw)
        self._finish_question()
        if not any(t.questions for t in self.tours):
            raise PackError(None, "no questions found: expected «Вопрос 1:» headers, each with an «Ответ:»")
        return self._result()

    def _line(self, n: int, raw: str) -> None:
        if not raw.strip():
            self.open = None
            return
        m = _HEADER.match(raw)
        if m and m.group("name") in _HEADERS:
            key = _HEADERS[m.group("name")]
            if m.group("num") is None or key in ("question", "tour"):
                field_ = self._header(n, m.group("name"), key, m.group("num"))
                field_.add(m.group("rest"), False)
                self.open = self.last = field_
                return
        if self.open is not None:
            self.open.add(raw, raw[:1].isspace())
            return
        shown = raw.strip()[:60]
        if _LOOKS_LIKE_HEADER.match(raw):
            raise PackError(n, f"unknown header «{shown}»: expected one of {_EXPECTED}")
        if self.last is None:
            raise PackError(n, f"expected a header such as «Чемпионат:» or «Вопрос 1:», found «{shown}»")
        self.open = self.last
        self.open.add(raw, True)

    def _tour(self, n: int) -> _Tour:
        if not self.tours:
            self.tours.append(_Tour(line=n, number=None))
        return self.tours[-1]

    def _header(self, n: int, name: str, key: str, num: str | None) -> _Field:
        new = _Field(line=n)
        if key == "title":
            if self.title is not None:
                raise PackError(n, f"second «{name}:» (the first is on line {self.title.line}): "
                                   "one file holds one pack")
            self.title = new
        elif key == "tour":
            self._finish_question()
            self.tours.append(_Tour(line=n, number=int(num) if num else None, title=new))
        elif key == "question":
            self._finish_question()
            tour = self._tour(n)
            if num is not None:
                number = int(num)
            else:
                number = tour.questions[-1].number + 1 if tour.questions else 1
            self.question = _Question(line=n, number=number, fields={"question": new})
        elif key in _QUESTION_FIELDS or (key == "author" and self.question is not None):
            q = self.question
            if q is None:
                raise PackError(n, f"«{name}:» without a question before it: expected «Вопрос N:» first")
            if key in q.fields:
                raise PackError(n, f"second «{name}:» in question {q.number} (it starts on line {q.line})")
            q.fields[key] = new
        elif key == "author":  # before any question of a tour (or of the pack): their default
            if self.tours:
                self.tours[-1].author = new
            else:
                self.author = new
        elif key in ("editor", "info"):
            owner = self.tours[-1] if self.tours else self
            (owner.editors if key == "editor" else owner.info).append(new)
        elif key == "date" and self.date is None:
            self.date = new
        elif key == "url" and self.url is None:
            self.url = new
        return new  # "ignored" headers and repeated dates/URLs collect into a throwaway field

    def _default_author(self) -> Author | None:
        for f in ((self.tours[-1].author if self.tours else None), self.author):
            if f is not None:
                author = parse_author(f.value())
                if author:
                    return author
        return None

    def _finish_question(self) -> None:
        q, self.question = self.question, None
        if q is None:
            return
        values = {k: f.value() for k, f in q.fields.items()}
        text = values["question"]
        text, handouts = _take_handouts(text)
        handout, handout_media = take_media("\n".join(handouts))
        text, media = take_media(text)
        answer, answer_media = take_media(values.get("answer", ""))
        comment, comment_media = take_media(values.get("comment", ""))
        source, source_media = take_media(values.get("source", ""))
        if "answer" not in q.fields:
            raise PackError(q.line, f"question {q.number} has no answer: expected «Ответ:» after it")
        if not answer:
            raise PackError(q.fields["answer"].line, f"«Ответ:» of question {q.number} is empty")
        if not (text or media or handout):
            raise PackError(q.line, f"question {q.number} has no text")
        accepted = answer_list(values.get("accepted", ""))
        rejected = answer_list(values.get("rejected", ""))
        author = parse_author(values["author"]) if "author" in values else None
        parts, preamble = [], ""
        split_text, split_answer = _numbered(text), _numbered(answer)
        if split_text and split_answer and not split_answer[0]:
            parts = build_parts(split_text[1], split_answer[1], accepted, rejected)
            preamble = split_text[0] if parts else ""
        self._tour(q.line).questions.append(PackQuestion(
            number=q.number, text=text, answer=answer, accepted=accepted, rejected=rejected,
            comment=comment, source=source,
            author=author or self._default_author(),
            media=media + handout_media, handout=handout, parts=parts, preamble=preamble,
            answer_media=answer_media + comment_media + source_media, line=q.line,
        ))

    def _result(self) -> dict:
        tours = []
        for i, t in enumerate(self.tours, 1):
            title = t.title.value() if t.title else ""
            if t.title is not None and not title:
                title = f"Тур {t.number or i}"
            tours.append(Tour(
                title=title, questions=t.questions,
                editors=[p for f in t.editors for p in split_people(f.value())],
                info="\n".join(v for v in (f.value() for f in t.info) if v),
            ))
        editors = [p for f in self.editors for p in split_people(f.value())]
        if not editors:  # editors named per tour: the pack's are all of them, in order
            editors = list(dict.fromkeys(p for t in tours for p in t.editors))
        return {
            "title": self.title.value() if self.title else "",
            "date": self.date.value() if self.date else "",
            "url": self.url.value() if self.url else "",
            "editors": editors,
            "info": "\n".join(v for v in (f.value() for f in self.info) if v),
            "tours": tours,
        }


def parse_db(text: str) -> dict:
    """Parse database-format text into the fields of a Pack (all but format/encoding)."""
    return DbParser().parse(text)
