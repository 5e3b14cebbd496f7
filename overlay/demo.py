"""A demo tv game: original questions written for this project (free to use with it)."""
from __future__ import annotations

from flask import Flask

from .web.services import Services


def _q(text: str, answer: str, name: str, city: str, amount: int, comment: str = "") -> dict:
    q = {"text": text, "answer": answer, "author": {"name": name, "city": city},
         "prize": {"amount": amount, "currency": "UAH"}}
    if comment:
        q["comment"] = comment
    return q


DEMO_SPEC: dict = {
    "rules": "tv",
    "title": "Демонстрационная игра",
    "experts": {"name": "Команда Демидова",
                "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"], "captain": "Анна"},
    "sectors": [
        {"number": 1, "kind": "regular", "questions": [_q(
            "Этот прибор, изобретённый в XVII веке, сначала называли «водяным термоскопом». Как мы называем его сегодня?",
            "Термометр", "Ирина Коваль", "Харьков", 1000)]},
        {"number": 2, "kind": "regular", "questions": [_q(
            "Какой газ растения поглощают днём, а человек выдыхает круглые сутки?",
            "Углекислый газ", "Олег Сидоренко", "Одесса", 1000)]},
        {"number": 3, "kind": "regular", "questions": [_q(
            "Сколько клеток на шахматной доске окрашены в тёмный цвет?",
            "32", "Мария Лисовская", "Киев", 1000)]},
        {"number": 4, "kind": "regular", "questions": [_q(
            "В каком городе находится Эйфелева башня, которую в год открытия многие парижане называли уродливой?",
            "В Париже", "Павел Гринько", "Днепр", 1000)]},
        {"number": 5, "kind": "blitz", "questions": [
            _q("Самая длинная река Европы?", "Волга", "Света Рыбак", "Львов", 500),
            _q("Сколько струн у классической гитары?", "Шесть", "Света Рыбак", "Львов", 500),
            _q("Какая планета ближе всех к Солнцу?", "Меркурий", "Света Рыбак", "Львов", 500)]},
        {"number": 6, "kind": "regular", "questions": [_q(
            "Какое животное изображено на гербе многих городов и даже стало символом мудрости у древних греков?",
            "Сова", "Андрей Мельник", "Полтава", 1000, "Сова — спутница Афины.")]},
        {"number": 7, "kind": "regular", "questions": [_q(
            "Какой металл в обычных условиях жидкий?",
            "Ртуть", "Наталья Бондарь", "Винница", 1000)]},
        {"number": 8, "kind": "regular", "questions": [_q(
            "Как называется самая маленькая частица вещества, сохраняющая его химические свойства?",
            "Молекула", "Юрий Ткаченко", "Черкассы", 1000)]},
        {"number": 9, "kind": "superblitz", "questions": [
            _q("Сколько минут в сутках?", "1440", "Лев Шевчук", "Запорожье", 700),
            _q("Столица Канады?", "Оттава", "Лев Шевчук", "Запорожье", 700),
            _q("Какой цвет получится при смешении синего и жёлтого?", "Зелёный", "Лев Шевчук", "Запорожье", 700)]},
        {"number": 10, "kind": "regular", "questions": [_q(
            "Какой орган человеческого тела самый большой по площади?",
            "Кожа", "Ольга Кравец", "Сумы", 1000)]},
        {"number": 11, "kind": "regular", "questions": [_q(
            "Какое число древние римляне не записывали своими цифрами?",
            "Ноль", "Дмитрий Гончар", "Житомир", 1000)]},
        {"number": 12, "kind": "regular", "questions": [_q(
            "Как называется прибор для определения сторон света?",
            "Компас", "Елена Савчук", "Ровно", 1000)]},
        {"number": 13, "kind": "sponsor", "questions": [_q(
            "Вопрос от спонсора: какой напиток, по легенде, открыл эфиопский пастух, заметив бодрость своих коз?",
            "Кофе", "Спонсор игры", "Киев", 5000)]},
    ],
}


def load_demo(app: Flask) -> str:
    """Create the demo game once per data folder and put it on air — unless another game is on
    air already: a restart in the middle of a show must not switch the overlays away from it."""
    svc: Services = app.extensions["chgk"]
    game_id = svc.store.get_setting("demo_game")
    if game_id not in svc.sessions.games:
        game_id = svc.sessions.create(DEMO_SPEC, source="demo").id
        svc.store.set_setting("demo_game", game_id, at=svc.sessions.clock())
    if svc.sessions.on_air is None:
        svc.sessions.set_on_air(game_id, source="demo")
    return game_id
