"""Broken packs: each error names the line and what was expected."""
import pytest

from overlay.packs import PackError, parse_pack


def _error(text: str, filename: str = "") -> PackError:
    with pytest.raises(PackError) as e:
        parse_pack(text.encode("utf-8"), filename)
    assert str(e.value) == e.value.message
    return e.value


DB_OK = "Чемпионат:\nКубок\n\nВопрос 1:\nТекст\n\nОтвет:\nДа\n"


@pytest.mark.parametrize("text, line, fragment", [
    # «Ответ:» with no question before it
    ("Чемпионат:\nКубок\n\nОтвет:\nДа\n", 4, "«Ответ:» without a question before it"),
    ("Тур:\n1\n\nКомментарий:\nНу\n\nВопрос 1:\nТ\n\nОтвет:\nД\n", 4, "«Комментарий:» without a question"),
    # a question without an answer is named by its own line
    (DB_OK + "\nВопрос 2:\nЕщё текст\n\nКомментарий:\nБез ответа\n", 10, "question 2 has no answer"),
    (DB_OK + "\nВопрос 2:\nЕщё текст\n\nТур:\nВторой\n", 10, "question 2 has no answer"),
    # the same field twice in one question
    (DB_OK + "\nОтвет:\nНет\n", 10, "second «Ответ:» in question 1 (it starts on line 4)"),
    # empty answer: the «Ответ:» line itself
    ("Вопрос 1:\nТекст\n\nОтвет:\n\nВопрос 2:\nТекст\n\nОтвет: да\n", 4, "«Ответ:» of question 1 is empty"),
    # a misspelt header after a blank line
    (DB_OK + "\nКоментарий:\nопечатка\n", 10, "unknown header «Коментарий:»"),
    # text before any header
    ("Просто текст\nВопрос 1:\nТ\n\nОтвет:\nД\n", 1, "expected a header such as «Чемпионат:» or «Вопрос 1:»"),
    # two packs glued together
    (DB_OK + "\nЧемпионат:\nДругой\n", 10, "second «Чемпионат:» (the first is on line 1)"),
    # a question that is only a header
    ("Вопрос 1:\n\nОтвет:\nДа\n", 1, "question 1 has no text"),
])
def test_db_errors(text, line, fragment):
    err = _error(text, "pack.txt")
    assert err.line == line
    assert fragment in err.message
    assert err.message.startswith(f"line {line}: ")


@pytest.mark.parametrize("text, line, fragment", [
    ("! Ответ без вопроса\n", 1, "«!» (answer) without a question before it"),
    ("? Вопрос\n! Ответ\n\n= зачёт отдельно\n", 4, "«=» (accepted) without a question before it"),
    ("? Вопрос 1\n! Ответ\n\n? Вопрос без ответа\n/ комментарий\n\n? Третий\n! Да\n", 4,
     "question 2 has no answer: expected a «!» line"),
    ("? Вопрос\n! Ответ\n\nпотерянный текст\n", 4, "expected a line starting with a 4s marker"),
    ("просто текст\n? Вопрос\n! Ответ\n", 1, "expected a line starting with a 4s marker"),
    ("№ первый\n? Вопрос\n! Ответ\n", 1, "«№» expects a question number, found «первый»"),
    ("? Вопрос\n!\n\n", 2, "«!» (answer) of question 1 is empty"),
    ("№ 5\n! Ответ\n", 1, "question 5 has no text: expected a «?» line"),
])
def test_4s_errors(text, line, fragment):
    err = _error(text, "pack.4s")
    assert err.line == line
    assert fragment in err.message


def test_line_numbers_count_crlf_and_blank_lines():
    text = "? Первый\r\n! Да\r\n\r\n\r\n? Второй\r\n/ без ответа\r\n"
    err = _error(text, "pack.4s")
    assert err.line == 5
    assert err.message == "line 5: question 2 has no answer: expected a «!» line before the blank line"


@pytest.mark.parametrize("text, filename, fragment", [
    ("Чемпионат:\nКубок без вопросов\n\nДата:\n2016\n", "a.txt", "expected «Вопрос 1:» headers"),
    ("### Заголовок\n## Тур 1\n", "a.4s", "expected «? » question lines"),
    ("hello\nworld\n", "", "neither «Вопрос N:» headers (question database format) nor «? » lines (4s format)"),
])
def test_no_questions(text, filename, fragment):
    err = _error(text, filename)
    assert err.line is None
    assert err.message.startswith("no questions found")
    assert fragment in err.message
