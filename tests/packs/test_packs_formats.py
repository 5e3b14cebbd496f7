"""Format details on small inline packs."""
import pytest

from overlay.packs import detect_format, parse_pack, parts_to_specs, question_to_spec


def _parse(text: str, filename: str = "", encoding: str = "utf-8"):
    return parse_pack(text.encode(encoding), filename)


# ---- database text format ------------------------------------------------------------------

def test_db_values_on_header_lines_and_without_blank_lines():
    pack = _parse(
        "Чемпионат: Кубок Днепра\n"
        "Дата: 01-Mar-2026\n"
        "Редактор: Иван Петров (Днепр), Анна Сидорова (Киев)\n"
        "Вопрос 1: Первая строка\n"
        "вторая строка.\n"
        "Ответ: Да.\n"
        "Зачёт: ага; угу.\n"
        "Незачет: нет\n"
        "Комментарий: Так.\n"
        "Источники: книга\n"
        "Автор: Олег Ким (Харьков)\n",
        "pack.txt",
    )
    assert (pack.title, pack.date) == ("Кубок Днепра", "01-Mar-2026")
    assert pack.editors == ["Иван Петров (Днепр)", "Анна Сидорова (Киев)"]
    [q] = pack.questions()
    assert (q.number, q.text, q.answer) == (1, "Первая строка вторая строка.", "Да.")
    assert (q.accepted, q.rejected, q.comment, q.source) == (["ага", "угу"], ["нет"], "Так.", "книга")
    assert (q.author.name, q.author.city) == ("Олег Ким", "Харьков")


def test_db_tours_restart_numbering_and_defaults():
    pack = _parse(
        "Пакет:\nСинхрон\n\nАвтор:\nВся команда (Одесса)\n\n"
        "Вопрос:\nБез тура, без номера\n\nОтвет:\nА\n\n"
        "Вопрос:\nВторой\n\nОтвет:\nБ\n\n"
        "Тур:\nВторой тур\n\nРедактор:\nЛев Толстой\n\nИнфо:\nСпасибо всем\n\n"
        "Вопрос 1:\nОпять первый\n(aud: gong.mp3)\n\nОтвет:\nВ\n\nАвтор:\nСвой Автор\n\n"
        "Тур:\n\nВопрос 7:\nСедьмой\n\nОтвет:\nГ\n"
    )
    assert [t.title for t in pack.tours] == ["", "Второй тур", "Тур 3"]
    assert [[q.number for q in t.questions] for t in pack.tours] == [[1, 2], [1], [7]]
    first, second = pack.tours[0].questions
    # the pack-level «Автор:» is every question's author unless the question names its own
    assert first.author.name == "Вся команда" and first.author.city == "Одесса"
    own = pack.tours[1].questions[0]
    assert (own.author.name, own.author.city) == ("Свой Автор", "")
    assert own.media == ["gong.mp3"] and own.text == "Опять первый"
    assert pack.tours[1].editors == ["Лев Толстой"] and pack.tours[1].info == "Спасибо всем"
    assert pack.editors == ["Лев Толстой"]


def test_db_paragraph_after_blank_line_continues_the_field():
    [q] = _parse("Вопрос 1:\nАбзац один\nпродолжение.\n\nАбзац два.\n\nОтвет:\nДа\n").questions()
    assert q.text == "Абзац один продолжение.\nАбзац два."


def test_db_numbered_parts_make_a_blitz():
    [q] = _parse(
        "Вопрос 5:\nБлиц.\n   1. Первый?\n   2. Второй\nс переносом?\n   3. Третий?\n\n"
        "Ответ:\n   1. Раз.\n   2. Два.\n   3. Три.\n\nАвтор:\nИван Петров (Днепр)\n"
    ).questions()
    assert q.preamble == "Блиц."
    assert [(p.text, p.answer) for p in q.parts] == [
        ("Первый?", "Раз."), ("Второй с переносом?", "Два."), ("Третий?", "Три.")]
    specs = parts_to_specs(q)
    assert len(specs) == 3 and specs[1]["author"] == {"name": "Иван Петров", "city": "Днепр"}


def test_db_numbered_text_with_single_answer_is_not_a_blitz():
    [q] = _parse("Вопрос 1:\nЧто общего?\n   1. Кот\n   2. Пёс\n\nОтвет:\nЛапы\n").questions()
    assert q.parts == [] and q.preamble == ""
    with pytest.raises(ValueError):
        parts_to_specs(q)


def test_db_in_cp1251():
    pack = _parse("Чемпионат:\nКубок\n\nВопрос 1:\nЧто?\n\nОтвет:\nЁж\n", "k.txt", "cp1251")
    assert pack.encoding == "cp1251" and next(pack.questions()).answer == "Ёж"


# ---- 4s -------------------------------------------------------------------------------------

FOURS = """\
### Кубок \\#1
#DATE 2026-03-01
#EDITOR Иван Петров (Днепр), Анна Сидорова
# Спасибо тестерам

## Первый тур
# Информация о туре

№ 0
? Разминка
! Да

? Первый вопрос
продолжение на новой строке
> Раздатка (img w=5cm hand.png)
! Ответ один
= вариант а
= вариант б; вариант в
!= неверный
/ Коммент (img spoiler.jpg)
^ Книга
@ Пётр Пустота (Москва), Чапаев (Москва)
? Второй вопрос без пустой строки
! Ответ два

## Второй тур
№№ 10
? Десятый
- единственный пункт
! Ответ
@ Без Города
"""


def test_4s_structure():
    pack = _parse(FOURS, "cup.4s")
    assert pack.format == "4s"
    assert (pack.title, pack.date, pack.info) == ("Кубок #1", "2026-03-01", "Спасибо тестерам")
    assert pack.editors == ["Иван Петров (Днепр)", "Анна Сидорова"]
    assert [t.title for t in pack.tours] == ["Первый тур", "Второй тур"]
    assert pack.tours[0].info == "Информация о туре"
    # № fixes a number without moving the counter; numbering runs on across tours; №№ sets it
    assert [q.number for q in pack.questions()] == [0, 1, 2, 10]
    warmup, first, second, tenth = pack.questions()
    assert warmup.text == "Разминка"
    assert first.text == "Первый вопрос\nпродолжение на новой строке"
    assert first.handout == "Раздатка" and first.media == ["hand.png"]
    assert first.answer == "Ответ один"
    assert first.accepted == ["вариант а", "вариант б", "вариант в"]
    assert first.rejected == ["неверный"]
    assert first.comment == "Коммент" and first.answer_media == ["spoiler.jpg"]
    assert first.source == "Книга"
    assert first.author.to_dict() == {"name": "Пётр Пустота", "city": "Москва",
                                      "raw": "Пётр Пустота (Москва), Чапаев (Москва)"}
    assert (second.text, second.answer, second.author) == ("Второй вопрос без пустой строки", "Ответ два", None)
    assert tenth.text == "Десятый\nединственный пункт" and tenth.parts == []
    assert tenth.author.name == "Без Города" and tenth.author.city == ""
    spec = question_to_spec(first)
    assert spec["text"] == "[Раздаточный материал: Раздатка]\nПервый вопрос\nпродолжение на новой строке"
    assert spec["media"] == ["hand.png"] and spec["rejected"] == ["неверный"]
    assert "author" not in question_to_spec(second)


def test_4s_blitz_with_per_part_accepted():
    [q] = _parse(
        "? Три вопроса.\n- Раз?\n- Два\nс продолжением?\n- Три?\n"
        "!\n- один;\n- два;\n- три\n=\n- 1;\n- два-с;\n- III\n", "b.4s"
    ).questions()
    assert [(p.text, p.answer, p.accepted) for p in q.parts] == [
        ("Раз?", "один", ["1"]), ("Два с продолжением?", "два", ["два-с"]), ("Три?", "три", ["III"])]
    assert q.accepted == ["1", "два-с", "III"]


def test_4s_list_count_mismatch_is_not_a_blitz():
    [q] = _parse("? Что?\n- а\n- б\n- в\n! Всё это\n", "b.4s").questions()
    assert q.parts == [] and q.text == "Что?\n1. а\n2. б\n3. в"


# ---- format detection -----------------------------------------------------------------------

@pytest.mark.parametrize("text, filename, expected", [
    ("? Вопрос\n! Ответ\n", "pack.txt", "4s"),
    ("? Вопрос\n! Ответ\n", "", "4s"),
    ("Вопрос 1:\nТекст\n\nОтвет:\nДа\n", "pack.4s", "db"),
    ("Вопрос 1:\nТекст\n\nОтвет:\nДа\n", "PACK.TXT", "db"),
    ("Вопрос 1:\n? и ! внутри\n\nОтвет:\nДа\n", "pack.4s", "4s"),
])
def test_detect_format(text, filename, expected):
    assert detect_format(text, filename) == expected


def test_title_falls_back_to_file_name():
    pack = _parse("? В\n! О\n", "C:\\packs\\Кубок 2026.4s")
    assert pack.title == "Кубок 2026"
    assert _parse("? В\n! О\n").title == ""
