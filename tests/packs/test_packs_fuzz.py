"""Property tests: nothing but PackError escapes, and what parses is well formed."""
import json
import time

from hypothesis import HealthCheck, example, given, settings, strategies as st

from overlay.packs import Pack, PackError, parse_pack, parts_to_specs, question_to_spec

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ = settings(SETTINGS, max_examples=400)


def _check(pack: Pack) -> None:
    assert pack.question_count > 0
    json.dumps(pack.to_dict(), ensure_ascii=False)
    for q in pack.questions():
        assert q.answer.strip()
        assert q.text or q.media or q.handout
        spec = question_to_spec(q)
        assert spec["answer"] and all(spec.values())
        if q.parts:
            assert len(parts_to_specs(q)) == len(q.parts) >= 2


def _parse_or_error(data: bytes, filename: str) -> None:
    try:
        pack = parse_pack(data, filename)
    except PackError as e:
        assert e.message and (e.line is None or e.line >= 1)
        assert e.line is None or e.line <= data.count(b"\n") + data.count(b"\r") + 1
        return
    _check(pack)


@FUZZ
@given(data=st.binary(max_size=3000), filename=st.sampled_from(["", "a.txt", "a.4s"]))
def test_arbitrary_bytes_raise_only_pack_error(data, filename):
    _parse_or_error(data, filename)


_WORDS = st.sampled_from([
    "Вопрос 1:", "Вопрос:", "Вопрос 2: текст", "Ответ:", "Ответ: да", "Зачет:", "Незачёт:", "Комментарий:",
    "Источник:", "Автор:", "Автор: Иван (Киев)", "Тур:", "Чемпионат:", "Редактор:", "Инфо:", "Дата:",
    "?", "? вопрос", "!", "! ответ", "=", "!=", "/", "^", "@", "@ Анна (Львов), Б", "№", "№ 3", "№№ 7",
    ">", "###", "##", "#", "#EDITOR", "#DATE", "- ", "- пункт", "-", "(pic: a.jpg)", "(img b.png)",
    "<раздатка>", "</раздатка>", "&amp;", "&#972;", "\\_", "   1. раз", "   2. два", "", "", "  ",
    "текст", "Коментарий:", ":", "(", ")", ";", ",",
])
_LINES = st.lists(st.lists(_WORDS | st.text(max_size=12), min_size=1, max_size=4).map(" ".join), max_size=40)


@FUZZ
@given(lines=_LINES, newline=st.sampled_from(["\n", "\r\n"]),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "cp1251", "koi8-r"]),
       filename=st.sampled_from(["", "a.txt", "a.4s"]))
def test_pack_shaped_text_raises_only_pack_error(lines, newline, encoding, filename):
    data = newline.join(lines).encode(encoding, errors="ignore")
    _parse_or_error(data, filename)


_PLAIN = st.text(alphabet="абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗ ,.?", min_size=1, max_size=40).map(
    str.strip).filter(lambda s: s and not s.startswith(("-", "?", ".", ",")))
# Legacy encodings are told apart by how Russian the letters look: give them real words.
_WORDS_RU = st.sampled_from(
    "знатоки телезрители вопрос чёрный ящик волчок минута сектор игра клуб город письмо "
    "ОНА ЕГО назовите этот человек который одном году было Москва Харьков Одесса".split())
_NAME = st.text(alphabet="абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗ ", min_size=1, max_size=30).map(
    str.strip).filter(bool)
_PHRASE = st.lists(_WORDS_RU, min_size=3, max_size=12).map(" ".join)


def _round_trip_4s(questions, encoding):
    text = "\n\n".join(f"? {q}\n! {a}\n/ {c}\n@ {name} (Город)" for q, a, c, name in questions)
    pack = parse_pack(text.encode(encoding), "gen.4s")
    assert pack.encoding == encoding and pack.format == "4s"
    got = [(q.number, q.text, q.answer, q.comment, q.author.name, q.author.city) for q in pack.questions()]
    # a name's inner runs of spaces fold to one (overlay/rules/names.py): two spaces are a typo
    assert got == [(i, q, a, c, " ".join(n.split()), "Город") for i, (q, a, c, n) in enumerate(questions, 1)]


def _round_trip_db(questions, encoding):
    text = "\n\n".join(f"Вопрос {i}:\n{q}\n\nОтвет:\n{a}" for i, (q, a) in enumerate(questions, 1))
    pack = parse_pack(text.encode(encoding), "gen.txt")
    assert pack.encoding == encoding and pack.format == "db"
    assert [(q.number, q.text, q.answer) for q in pack.questions()] == [
        (i, q, a) for i, (q, a) in enumerate(questions, 1)]


@SETTINGS
@given(questions=st.lists(st.tuples(_PLAIN, _PLAIN, _PLAIN, _NAME), min_size=1, max_size=8))
@example(questions=[("А", "А", "А", "А  А")])  # once read as «А  А»: a name's spaces fold
def test_4s_round_trip_utf8(questions):
    _round_trip_4s(questions, "utf-8")


@SETTINGS
@given(questions=st.lists(st.tuples(_PHRASE, _PHRASE, _PHRASE, _WORDS_RU), min_size=1, max_size=6),
       encoding=st.sampled_from(["cp1251", "koi8-r"]))
def test_4s_round_trip_legacy(questions, encoding):
    _round_trip_4s(questions, encoding)


@SETTINGS
@given(questions=st.lists(st.tuples(_PLAIN, _PLAIN), min_size=1, max_size=8))
def test_db_round_trip_utf8(questions):
    _round_trip_db(questions, "utf-8")


@SETTINGS
@given(questions=st.lists(st.tuples(_PHRASE, _PHRASE), min_size=1, max_size=6),
       encoding=st.sampled_from(["cp1251", "koi8-r"]))
def test_db_round_trip_legacy(questions, encoding):
    _round_trip_db(questions, encoding)


def test_long_pathological_lines_stay_fast():
    # shapes that make naive regexes or string concatenation quadratic
    nasty = [
        "? (pic" + " " * 400_000 + "\n! a\n",
        "Вопрос 1:\n" + "<раздатка>" * 50_000 + "\n\nОтвет:\nда\n",
        "? q\n!\n- a\n" + "продолжение\n" * 100_000,
        "Вопрос 1:\n" + "слово\n" * 200_000 + "\nОтвет:\nда\n",
        "@" + " (" * 200_000 + "\n",
    ]
    for text in nasty:
        start = time.monotonic()
        try:
            parse_pack(text.encode(), "")
        except PackError:
            pass
        assert time.monotonic() - start < 10, text[:20]
