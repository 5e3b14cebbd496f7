"""The 4s format (chgksuite): one marker per line opens a field.

`###` title, `##` tour, `#` info, `#EDITOR`, `#DATE`, `?` question, `!` answer, `=` accepted,
`!=` rejected, `/` comment, `^` source, `@` author, `№` fixed number, `№№` set the counter,
`>` handout. A line without a marker continues the open field ("\\n" kept); a blank line ends
the question. `- ` lines make a list, rendered «1. …» one per line; a question whose text and
answer are lists of the same length (n ≥ 2) gets `parts` — the blitz shape. Numbering runs on
across tours, as in chgksuite; `\\_`-style escapes are undone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import PackError
from .model import PackQuestion, Tour
from .text import answer_list, build_parts, parse_author, split_people, take_media

_MARKERS = {
    "###LJ": "title", "###": "title", "##": "tour", "#": "info",
    "#EDITOR": "editor", "#DATE": "date", "#B": "ignored", "#R": "ignored", "#T": "ignored",
    "?": "question", "№": "number", "№№": "counter", ">": "handout",
    "!": "answer", "=": "accepted", "!=": "rejected", "/": "comment", "^": "source", "@": "author",
}
_NEEDS_QUESTION = {"answer": "!", "accepted": "=", "rejected": "!=", "comment": "/", "source": "^", "author": "@"}
_STARTS_QUESTION = ("question", "number", "counter", "handout")
_LIST_ITEM = re.compile(r"^-(?:\s+|$)")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>=^@/?№])")
_MARKER_LIST = "? ! = != / ^ @ № > # ## ###"


@dataclass
class _Field:
    line: int
    lines: list[str] = field(default_factory=list)


@dataclass
class _Value:
    text: str  # the field as displayed; a list rendered «1. …» per line
    preamble: str = ""
    items: list[str] | None = None  # set when the field is a list of at least two items
    media: list[str] = field(default_factory=list)


def _unescape(text: str) -> str:
    return _ESCAPE.sub(r"\1", text)


def _value(fields: list[_Field]) -> _Value:
    raw = "\n".join(line for f in fields for line in f.lines)
    raw, media = take_media(raw)
    lines = [line.strip() for line in raw.split("\n") if line.strip()]
    preamble: list[str] = []
    pieces: list[list[str]] = []
    for line in lines:
        if _LIST_ITEM.match(line):
            pieces.append([_LIST_ITEM.sub("", line, count=1)])
        elif pieces:
            pieces[-1].append(line)
        else:
            preamble.append(line)
    # «- ребро;»: the semicolon separates list items, it is not part of the answer
    items = [_unescape(" ".join(p).strip()).rstrip(";").rstrip() for p in pieces]
    pre = _unescape("\n".join(preamble))
    if len(items) < 2:
        return _Value(text="\n".join(p for p in (pre, *items) if p), media=media)
    listed = "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))
    return _Value(text=f"{pre}\n{listed}" if pre else listed, preamble=pre, items=items, media=media)


@dataclass
class _Question:
    line: int
    fields: dict[str, list[_Field]] = field(default_factory=dict)


@dataclass
class _Tour:
    title: _Field | None
    editors: list[_Field] = field(default_factory=list)
    info: list[_Field] = field(default_factory=list)
    questions: list[PackQuestion] = field(default_factory=list)


class FoursParser:
    def __init__(self) -> None:
        self.titles: list[_Field] = []
        self.dates: list[_Field] = []
        self.editors: list[_Field] = []
        self.info: list[_Field] = []
        self.tours: list[_Tour] = []
        self.question: _Question | None = None
        self.open: _Field | None = None
        self.counter = 1

    def parse(self, text: str) -> dict:
        for n, raw in enumerate(text.split("\n"), 1):
            self._line(n, raw)
        self._finish_question()
        if not any(t.questions for t in self.tours):
            raise PackError(None, "no questions found: expected «? » question lines, each with a «! » answer")
        return self._result()

    def _line(self, n: int, raw: str) -> None:
        if not raw.strip():
            self.open = None
            self._finish_question()
            return
        token, *rest = raw.split(None, 1)
        kind = _MARKERS.get(token)
        if kind is None:
            if self.open is None:
                after = " (a blank line ends a question)" if n > 1 else ""
                raise PackError(n, f"expected a line starting with a 4s marker ({_MARKER_LIST}){after}, "
                                   f"found «{raw.strip()[:60]}»")
            self.open.lines.append(raw.strip())
            return
        self.open = _Field(line=n, lines=[rest[0].strip()] if rest else [])
        self._field(n, token, kind, self.open)

    def _field(self, n: int, token: str, kind: str, new: _Field) -> None:
        q = self.question
        if kind in _NEEDS_QUESTION:
            if q is None:
                raise PackError(n, f"«{token}» ({kind}) without a question before it: expected a «?» line first")
            q.fields.setdefault(kind, []).append(new)
        elif kind in _STARTS_QUESTION:
            # a question that already has its answer is complete: this starts the next one
            if q is None or "answer" in q.fields or (kind != "question" and kind in q.fields):
                self._finish_question()
                q = self.question = _Question(line=n)
            q.fields.setdefault(kind, []).append(new)
        else:
            self._finish_question()
            if kind == "title":
                (self.titles if not self.titles else self.info).append(new)
            elif kind == "tour":
                self.tours.append(_Tour(title=new))
            elif kind in ("editor", "info"):
                owner = self.tours[-1] if self.tours else self
                (owner.editors if kind == "editor" else owner.info).append(new)
            elif kind == "date":
                self.dates.append(new)

    def _number(self, q: _Question) -> int:
        def integer(kind: str) -> int | None:
            f = q.fields.get(kind)
            if not f:
                return None
            value = " ".join(" ".join(x.lines) for x in f).strip()
            if not re.fullmatch(r"[0-9]{1,4}", value):
                raise PackError(f[0].line, f"«{'№' if kind == 'number' else '№№'}» expects a question "
                                           f"number, found «{value[:30]}»")
            return int(value)

        counter = integer("counter")
        if counter is not None:
            self.counter = counter
        fixed = integer("number")
        if fixed is not None:
            return fixed
        self.counter += 1
        return self.counter - 1

    def _finish_question(self) -> None:
        q, self.question = self.question, None
        if q is None:
            return
        number = self._number(q)
        f = q.fields
        if "question" not in f:
            raise PackError(q.line, f"question {number} has no text: expected a «?» line")
        text = _value(f["question"])
        handout = _value(f.get("handout", []))
        if "answer" not in f:
            raise PackError(q.line, f"question {number} has no answer: expected a «!» line before the blank line")
        answer = _value(f["answer"])
        if not answer.text:
            raise PackError(f["answer"][0].line, f"«!» (answer) of question {number} is empty")
        if not (text.text or text.media or handout.text):
            raise PackError(q.line, f"question {number} has no text after «?»")
        accepted, rejected = _value(f.get("accepted", [])), _value(f.get("rejected", []))
        comment, source = _value(f.get("comment", [])), _value(f.get("source", []))
        acc = accepted.items if accepted.items is not None else answer_list(accepted.text)
        rej = rejected.items if rejected.items is not None else answer_list(rejected.text)
        parts = build_parts(text.items or [], answer.items or [], acc, rej, accepted.items, rejected.items)
        author_text = " ".join(line for x in f.get("author", []) for line in x.lines)
        if not self.tours:
            self.tours.append(_Tour(title=None))
        self.tours[-1].questions.append(PackQuestion(
            number=number, text=text.text, answer=answer.text, accepted=acc, rejected=rej,
            comment=comment.text, source=source.text,
            author=parse_author(_unescape(author_text)),
            media=text.media + handout.media, handout=handout.text,
            parts=parts, preamble=text.preamble if parts else "",
            answer_media=answer.media + comment.media + source.media, line=q.line,
        ))

    def _result(self) -> dict:
        def joined(fields: list[_Field], sep: str = "\n") -> str:
            return _unescape(sep.join(" ".join(line for line in f.lines if line) for f in fields).strip())

        def people(fields: list[_Field]) -> list[str]:
            return [p for f in fields for p in split_people(_unescape(" ".join(f.lines)))]

        tours = [
            Tour(title=joined([t.title]) if t.title else "", questions=t.questions,
                 editors=people(t.editors), info=joined(t.info))
            for t in self.tours
        ]
        editors = people(self.editors) or list(dict.fromkeys(p for t in tours for p in t.editors))
        return {
            "title": joined(self.titles[:1]),
            "date": joined(self.dates[:1]),
            "url": "",
            "editors": editors,
            "info": joined(self.info),
            "tours": tours,
        }


def parse_4s(text: str) -> dict:
    """Parse 4s text into the fields of a Pack (all but format/encoding)."""
    return FoursParser().parse(text)
