"""A name's inner runs of whitespace fold to one space wherever names are read."""
from overlay.packs import parse_pack
from overlay.rules import parse_command, parse_spec
from overlay.rules.names import fold_name


def test_fold_name():
    assert fold_name("  Анна \t Иванова\u00a0 ") == "Анна Иванова"
    assert fold_name("Анна\nИванова") == "Анна Иванова"


def test_spec_folds_every_name_but_not_texts():
    spec = parse_spec({
        "rules": "tv",
        "experts": {"name": "Команда  Иванова", "players": ["Анна  Б", "Борис"], "captain": "Анна Б"},
        "sectors": [{"number": 1, "kind": "regular", "questions": [
            {"text": "Текст  с двумя пробелами", "answer": "да", "author": {"name": "Иван  Петров", "city": "Нью  Йорк"}}]}],
    })
    assert spec["experts"] == {"name": "Команда Иванова", "players": ["Анна Б", "Борис"], "captain": "Анна Б"}
    question = spec["sectors"][0]["questions"][0]
    assert question["author"]["name"] == "Иван Петров" and question["author"]["city"] == "Нью Йорк"
    assert question["text"] == "Текст  с двумя пробелами"


def test_same_name_twice_after_folding_is_refused():
    import pytest

    from overlay.rules import InputError
    with pytest.raises(InputError, match="same name twice"):
        parse_spec({"rules": "tv", "experts": {"name": "К", "players": ["Анна  Б", "Анна Б"]}})


def test_commands_fold_names():
    assert parse_command({"type": "choose_player", "player": " Анна  Б "}).get("player") == "Анна Б"
    assert parse_command({"type": "decide_decisive_round", "granted": True,
                          "players": ["Анна  Б", "Борис", "Вера\tВ"]}).get("players") == ["Анна Б", "Борис", "Вера В"]


def test_pack_authors_fold():
    pack = parse_pack("? Вопрос\n! Ответ\n@ Иван   Петров (Нижний  Новгород)\n".encode(), "a.4s")
    author = next(iter(pack.questions())).author
    assert (author.name, author.city) == ("Иван Петров", "Нижний Новгород")
