"""No word is written into the on-air code: every file under static/overlays/ and static/lib/ is
read as source (not run), and a human word found outside the catalogs fails the test.

What counts as a word drawn from the code:
- in a .js file, a string or the literal part of a template string (`…${x}…`) with a Cyrillic
  letter — our on-air words are Russian first, so one left in the code is Cyrillic; and a string
  with any letter handed to something that draws it (`text:`, `textContent =`, `innerText`,
  `innerHTML`, `title`, `alt`, `placeholder`, `aria-label`, `setText(el, …)`,
  `createTextNode(…)`). Comments and regular expressions are not drawn (`/\\s*[гр]\\.$/` matches
  a date's «г.», it writes nothing).
- in a .css file, a letter in a `content:` string, or a Cyrillic letter outside comments.
- in an .svg file, a Cyrillic letter outside comments, or any letter inside `<text>`, `<tspan>`,
  `<title>` or `<desc>`.

The pseudo-locale sweep (test_pseudo_locale.py) catches what a page shows in the states it stages;
this check reads every line, including the branches no staged state reaches (a league holding's
«Игровой день» in game-rating.js was one).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import ROOT

SCANNED = ("static/overlays", "static/lib")
# Documentation, not drawn; fonts, sounds and pictures carry no code.
NOT_CODE = {".md"}

CYRILLIC = re.compile(r"[\u0400-\u04FF\u0500-\u052F]")
LETTER = re.compile(r"[^\W\d_]")
# What draws the string that follows it (the tail of the code just before the literal).
SINKS = re.compile(r"""(?:\b(?:text|title|alt|placeholder|label)\s*:
    | ["']aria-label["']\s*:
    | \.(?:textContent|innerText|innerHTML|outerHTML|title|alt|placeholder)\s*\+?=
    | \b(?:setText\s*\([^,()]*,|createTextNode\s*\(|insertAdjacentHTML\s*\([^,()]*,)
    | \bsetAttribute\s*\(\s*["'](?:title|alt|placeholder|aria-label)["']\s*,
    )\s*$""", re.X)

# After one of these (or at the start), a `/` begins a regular expression, not a division.
REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
REGEX_KEYWORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"}


@dataclass(frozen=True)
class Literal:
    line: int
    text: str
    before: str   # the code on the literal's line before it (for SINKS)


def js_literals(src: str) -> list[Literal]:
    """The strings of a JavaScript source and the literal parts of its template strings, with
    comments and regular expressions skipped. A small tokenizer: enough for our own modules."""
    out: list[Literal] = []
    i, n = 0, len(src)
    braces: list[int] = []        # brace depth at each open `${` of a template string
    depth = 0
    last = ""                     # the last significant token's text (for `/`)

    def line_at(pos: int) -> int:
        return src.count("\n", 0, pos) + 1

    def before(pos: int) -> str:
        return src[src.rfind("\n", 0, pos) + 1:pos]

    def template(pos: int) -> int:
        """Reads a template string's literal part from pos (after ` or }) to its end or `${`."""
        nonlocal depth
        start, j, buf = pos, pos, []
        while j < n:
            c = src[j]
            if c == "\\":
                buf.append(src[j:j + 2])
                j += 2
                continue
            if c == "`":
                out.append(Literal(line_at(start), "".join(buf), before(start)))
                return j + 1
            if c == "$" and src[j + 1:j + 2] == "{":
                out.append(Literal(line_at(start), "".join(buf), before(start)))
                braces.append(depth)
                depth += 1
                return j + 2
            buf.append(c)
            j += 1
        raise ValueError("unterminated template string")

    while i < n:
        c = src[i]
        if c in " \t\r\n":
            i += 1
            continue
        if src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
            continue
        if src.startswith("/*", i):
            end = src.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c in "'\"":
            j, buf = i + 1, []
            while j < n and src[j] != c:
                if src[j] == "\\":
                    buf.append(src[j:j + 2])
                    j += 2
                    continue
                if src[j] == "\n":
                    raise ValueError(f"line {line_at(i)}: unterminated string")
                buf.append(src[j])
                j += 1
            out.append(Literal(line_at(i), "".join(buf), before(i)))
            i, last = j + 1, "str"
            continue
        if c == "`":
            i, last = template(i + 1), "str"
            continue
        if c == "/" and (last in REGEX_AFTER or last in REGEX_KEYWORDS):
            j, in_class = i + 1, False
            while j < n:
                d = src[j]
                if d == "\\":
                    j += 2
                    continue
                if d == "\n":
                    raise ValueError(f"line {line_at(i)}: unterminated regular expression")
                if d == "[":
                    in_class = True
                elif d == "]":
                    in_class = False
                elif d == "/" and not in_class:
                    break
                j += 1
            j += 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1                                    # flags
            i, last = j, "regex"
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if braces and depth == braces[-1]:        # the end of a template's `${…}`
                braces.pop()
                i, last = template(i + 1), "str"
                continue
        m = re.compile(r"[\w$]+").match(src, i)
        if m:
            i, last = m.end(), m.group()
            continue
        i, last = i + 1, c
    if braces or depth:
        raise ValueError("unbalanced braces: the tokenizer lost its place")
    return out


def js_words(src: str) -> list[str]:
    bad = []
    for lit in js_literals(src):
        if CYRILLIC.search(lit.text) or (LETTER.search(lit.text) and SINKS.search(lit.before)):
            bad.append(f"line {lit.line}: {lit.text!r}")
    return bad


def _lines_outside(src: str, comment: re.Pattern[str]) -> str:
    """The source with its comments blanked (line numbers kept)."""
    return comment.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), src)


def css_words(src: str) -> list[str]:
    code = _lines_outside(src, re.compile(r"/\*.*?\*/", re.S))
    bad = []
    for no, line in enumerate(code.splitlines(), 1):
        if CYRILLIC.search(line):
            bad.append(f"line {no}: {line.strip()!r}")
            continue
        for m in re.finditer(r"""\bcontent\s*:([^;}]*)""", line):
            if any(LETTER.search(s) for s in re.findall(r""""([^"]*)"|'([^']*)'""", m.group(1)) for s in s if s):
                bad.append(f"line {no}: {line.strip()!r}")
    return bad


def svg_words(src: str) -> list[str]:
    code = _lines_outside(src, re.compile(r"<!--.*?-->", re.S))
    bad = [f"line {no}: {line.strip()!r}" for no, line in enumerate(code.splitlines(), 1) if CYRILLIC.search(line)]
    for m in re.finditer(r"<(text|tspan|title|desc)\b[^>]*>([^<]*)", code):
        if LETTER.search(m.group(2)):
            bad.append(f"line {code.count(chr(10), 0, m.start()) + 1}: <{m.group(1)}> {m.group(2).strip()!r}")
    return bad


CHECKS = {".js": js_words, ".mjs": js_words, ".css": css_words, ".svg": svg_words}


def words_in(path: Path) -> list[str]:
    """The words `path` draws from its own code (empty: none). Fails on a file it cannot read."""
    check = CHECKS.get(path.suffix)
    if check is None:
        raise AssertionError(f"{path}: no check for {path.suffix} files; add one to CHECKS or NOT_CODE")
    return check(path.read_text(encoding="utf-8"))


def scanned_files() -> list[Path]:
    files = [p for d in SCANNED for p in sorted((ROOT / d).rglob("*")) if p.is_file() and p.suffix not in NOT_CODE]
    return files


# --- the check on the code as it is -----------------------------------------------------------

def test_every_file_under_overlays_and_lib_is_scanned() -> None:
    files = scanned_files()
    names = {p.relative_to(ROOT).as_posix() for p in files}
    assert "static/overlays/game-rating.js" in names and "static/lib/dom.js" in names
    assert len([p for p in files if p.suffix == ".js"]) >= 30


@pytest.mark.parametrize("path", scanned_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_overlay_or_lib_file_draws_a_word_of_its_own(path: Path) -> None:
    assert words_in(path) == [], f"{path.relative_to(ROOT)}: words outside the catalogs (use t(…) and the .po files)"


# --- the check itself: it finds a word put back --------------------------------------------------

GAME_RATING = ROOT / "static/overlays/game-rating.js"
CATALOG_DAY = 't("league_game_day", { n: holding[1] })'


def test_it_fails_on_the_game_day_put_back_into_game_rating() -> None:
    """game-rating.js as it was before the catalogs: «Игровой день» written in the code."""
    src = GAME_RATING.read_text(encoding="utf-8")
    assert CATALOG_DAY in src and js_words(src) == []
    put_back = src.replace(CATALOG_DAY, '`Игровой день ${holding[1]}`')
    assert [w.split(": ", 1)[1] for w in js_words(put_back)] == ["'Игровой день '"]
    as_string = src.replace(CATALOG_DAY, '"Игровой день " + holding[1]')
    assert len(js_words(as_string)) == 1


@pytest.mark.parametrize("sample", [
    'const day = "Игровой день";',
    "el.textContent = 'Перерыв';",
    "const s = `${n} · среда`;",
    "h('span', { class: 'x', text: `Сектор ${n}` });",
    'h("span", { text: "Game day" });',                    # English, handed to the page
    'node.textContent = "Time!";',
    "setText(el, 'Round');",
    "el.setAttribute('aria-label', 'Central table');",
    "return `${a} ${`вложенная ${b}`}`;",                  # nested template
])
def test_it_finds_a_word(sample: str) -> None:
    assert len(js_words(sample)) == 1, sample


@pytest.mark.parametrize("sample", [
    "// Игровой день: a comment\nconst x = 1;",
    "/* «Перерыв» */ const y = 2;",
    "const d = s.replace(/\\s*[гр]\\.$/, '');",          # a regular expression
    "return x / 2 / y;",                                 # divisions, not regular expressions
    'h("span", { class: "gr-c-num", text: t("col_points") });',
    'el.textContent = `, ${p.author.city}`;',
    'const key = `league_weekday_${holding[2]}`;',
    'h("span", { class: "sw-score", text: `${a}:${b}` });',
    'const { t } = ctx; const u = { "data-ref": "name" };',
])
def test_it_leaves_code_alone(sample: str) -> None:
    assert js_words(sample) == [], sample


def test_css_and_svg() -> None:
    assert css_words('.a::after { content: "Время!"; }') != []
    assert css_words('.a::after { content: "Time"; }') != []
    assert css_words('.a::after { content: ""; }  /* «Перерыв» */') == []
    assert css_words(".a { font-family: 'Inter'; }") == []
    assert svg_words("<svg><!-- Сова --><path d='M0 0'/></svg>") == []
    assert svg_words("<svg><text x='0'>Owl</text></svg>") != []
    assert svg_words("<svg><title>Сова</title></svg>") != []
