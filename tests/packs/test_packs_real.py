"""The three real packs in tests/fixtures/packs, checked against what the files say."""
from overlay.packs import Pack, parse_pack, parts_to_specs, question_to_spec


def _rusch(pack_bytes) -> Pack:
    return parse_pack(pack_bytes("rusch16.txt"), "rusch16.txt")


def test_rusch_header_and_tours(pack_bytes):
    pack = _rusch(pack_bytes)
    assert pack.format == "db"
    assert pack.encoding == "koi8-r"
    assert pack.title == "16-й чемпионат России по ЧГК (Воронеж)"
    assert pack.date == "07-May-2016"
    assert pack.url == "/znatoki/boris/reports/201605Voronezh.html"
    assert [t.title for t in pack.tours] == [f"{i} тур" for i in range(1, 7)]
    assert [len(t.questions) for t in pack.tours] == [15] * 6
    assert pack.question_count == 90 == len(list(pack.questions()))
    # «Тур:» restarts numbering: every tour runs 1..15
    assert all([q.number for q in t.questions] == list(range(1, 16)) for t in pack.tours)
    # editors are named per tour («&amp;» after the first one is an HTML leftover)
    assert pack.tours[0].editors == ["Александр Кудрявцев (Николаев)"]
    assert pack.tours[4].editors == ["Павел Солахян (Ереван)"]
    assert pack.editors == [
        "Александр Кудрявцев (Николаев)", "Александр Ведехин (Таллин)", "Михаил Иванов (Саратов)",
        "Николай Лёгенький (Амстердам)", "Павел Солахян (Ереван)", "Максим Сидоров (Тольятти)",
    ]
    assert pack.tours[1].info.startswith("Редактор благодарит за тестирование и ценные советы команду \"Дежавю\",")
    assert pack.tours[1].info.endswith("Николая Константинова (Горки) и Максима Сидорова (Тольятти).")
    assert pack.tours[5].info == ""


def test_rusch_first_questions(pack_bytes):
    tour1 = _rusch(pack_bytes).tours[0].questions
    q1 = tour1[0]
    assert q1.line == 24
    assert q1.text == ("В одном новгородском ресторане всегда рады гостям. ОНА - 58 градусов 31 "
                       "минута 14 секунд. Назовите ЕЕ тремя словами.")
    assert q1.answer == 'Широта "Русской души".'
    assert q1.comment == 'Название ресторана - "Русская душа".'
    assert q1.source.split("\n")[1].startswith("2. https://www.google.com.ua/maps/place/58°31'14.7\"N")
    assert (q1.author.name, q1.author.city, q1.author.raw) == (
        "Александр Кудрявцев", "Николаев", "Александр Кудрявцев (Николаев)")
    assert q1.accepted == [] and q1.media == [] and q1.parts == []

    q2 = tour1[1]
    assert q2.answer == "Сыр тильзитер."
    assert q2.accepted == ["Тильзитер", "тильзитский сыр"]
    assert q2.source == ("1. http://www.diary.ru/~modernhistory/p196590156.htm?oam\n"
                         "2. http://ru.wikipedia.org/wiki/Тильзитер")

    # an indented line starts a new paragraph; the host note stays in the text
    q4 = tour1[3]
    assert q4.text.split("\n") == [
        '[Ведущему: четко прочитать окончание в слове "котором".]',
        "Рефат Шакир-Алиев утверждает, что ТРИ СЛОВА ПРОПУЩЕНЫ, в котором соус лжи вкуснее мяса "
        "правды. Какие слова мы пропустили?",
    ]


def test_rusch_media_handouts_entities(pack_bytes):
    pack = _rusch(pack_bytes)
    t1, t2, t3, t4, t5, t6 = pack.tours
    # (pic: …) is taken out of the text into media
    q5 = t1.questions[4]
    assert q5.media == ["20160122.jpg"]
    assert q5.text.startswith("Этот источник называется Озеро Утренней Славы")
    assert "pic:" not in q5.text
    assert [(q.number, q.media) for q in t3.questions if q.media] == [
        (6, ["20160123.jpg"]), (10, ["20160124.jpg"]), (11, ["20160125.jpg"])]
    # a picture in the source is a spoiler: it goes to answer_media, not media
    q14 = t4.questions[13]
    assert q14.media == [] and q14.answer_media == ["20160126.jpg"] and q14.source == ""
    # <раздатка>…</раздатка> becomes the handout
    q10 = t1.questions[9]
    assert q10.handout == "veriloquium"
    assert q10.text.startswith("Флобер писал, что ЭТО")
    assert "раздатка" not in q10.text
    assert t5.questions[2].handout == "Quorum and Mared"
    # complete HTML entities decode, URLs with bare «&» stay as they are
    assert "от слова ζυγός [зигОс]" in t2.questions[12].comment
    assert "Champs-Élysées" in t6.questions[4].comment
    assert t6.questions[4].accepted == ["Auchan"]
    assert t6.questions[6].accepted == ["Emoticon", "emoji", "絵文字", "えもじ", "えもんじ"]
    assert "https://books.google.ru/books?id=fBBPUZjcfQMC&pg=PT96#v=onepage&q&f=false" in t4.questions[5].source


def test_rusch_authors(pack_bytes):
    pack = _rusch(pack_bytes)
    q8 = pack.tours[1].questions[7]
    assert q8.author.raw == "Александр Ведехин, Алексей Усанов (Таллин)"
    assert (q8.author.name, q8.author.city) == ("Александр Ведехин", "Таллин")
    cities = {q.author.city for q in pack.questions()}
    assert cities == {"Николаев", "Таллин", "Саратов", "Амстердам", "Ереван", "Тольятти"}
    last = pack.tours[5].questions[14]
    assert last.number == 15 and last.answer == "Капабланка."
    assert last.author.name == "Максим Сидоров"
    assert last.source.endswith("3. http://grani.ru/Society/Science/m.109470.html, https://archive.is/bH07r")


def test_rusch_questions_to_spec(pack_bytes):
    pack = _rusch(pack_bytes)
    q2 = pack.tours[0].questions[1]
    assert question_to_spec(q2) == {
        "text": q2.text, "answer": "Сыр тильзитер.", "comment": q2.comment, "source": q2.source,
        "author": {"name": "Александр Кудрявцев", "city": "Николаев"},
        "accepted": ["Тильзитер", "тильзитский сыр"],
    }
    spec10 = question_to_spec(pack.tours[0].questions[9])
    assert spec10["text"].startswith("[Раздаточный материал: veriloquium]\nФлобер писал")
    assert question_to_spec(pack.tours[0].questions[4])["media"] == ["20160122.jpg"]
    for q in pack.questions():
        spec = question_to_spec(q)
        assert set(spec) <= {"text", "answer", "comment", "source", "author", "accepted", "rejected", "media"}
        assert all(v for v in spec.values()), "no empty field is sent"


def test_borromeo_blitz(pack_bytes):
    pack = parse_pack(pack_bytes("borromeo.4s"), "borromeo.4s")
    assert (pack.format, pack.encoding, pack.title) == ("4s", "utf-8", "borromeo")  # no ###: file name
    [q] = list(pack.questions())
    assert q.number == 1
    assert q.preamble == ("Блиц. Если команда даст неверный ответ хотя бы на один вопрос, ответ засчитан "
                          "не будет. Ответы попарно не связаны друг с другом.")
    assert [(p.text, p.answer) for p in q.parts] == [
        ("Первые десять пар ИХ образуют замкнутые кольца, а дальше ОНИ размыкаются. Назовите ЕГО одним словом.",
         "ребро"),
        ("Некоторая единица измерения не имеет смысла при размыкании цепи. До 1971 г. она обозначалась "
         "перевернутой заглавной омегой и называлась ТАК. Как именно?", "мо"),
        ("ЭТО похоже на кольцо. Напишите ЭТО максимально коротко.", "о"),
    ]
    assert q.answer == "1. ребро\n2. мо\n3. о"
    assert q.text.startswith(q.preamble + "\n1. Первые десять пар")
    assert q.accepted == ["только добуквенно верные ответы"]
    assert q.comment.startswith("Ответы на эти три вопроса о кольцах не связаны попарно")
    assert "«Борроме́о»" in q.comment
    # "\_" escapes are undone in the source list
    assert q.source.split("\n") == [
        "1. https://en.wikipedia.org/wiki/Siemens_(unit)#Mho",
        "2. https://ru.wikipedia.org/wiki/Кольца_Борромео",
        "3. https://ru.wikipedia.org/wiki/Ребро",
    ]
    assert (q.author.name, q.author.city) == ("Антон Ботев", "")

    specs = parts_to_specs(q)
    assert [s["answer"] for s in specs] == ["ребро", "мо", "о"]
    assert specs[2]["text"] == "ЭТО похоже на кольцо. Напишите ЭТО максимально коротко."
    assert all(s["author"] == {"name": "Антон Ботев"} for s in specs)
    assert all(s["comment"] == q.comment and s["source"] == q.source for s in specs)
    assert all(s["accepted"] == ["только добуквенно верные ответы"] for s in specs)
    with_preamble = parts_to_specs(q, with_preamble=True)
    assert with_preamble[0]["text"] == q.preamble + "\n" + specs[0]["text"]
    assert with_preamble[1]["text"] == specs[1]["text"]


def test_smalltest(pack_bytes):
    pack = parse_pack(pack_bytes("smalltest.4s"), "smalltest.4s")
    assert pack.format == "4s" and pack.question_count == 1
    q = next(pack.questions())
    assert (q.number, q.text, q.answer, q.accepted, q.comment, q.source) == (
        1, "Текст вопроса.", "Ответ.", ["Зачёт"], "Комментарий", "Источник")
    assert q.author.to_dict() == {"name": "Автор", "city": "Город", "raw": "Автор (Город)"}
    assert question_to_spec(q) == {
        "text": "Текст вопроса.", "answer": "Ответ.", "comment": "Комментарий", "source": "Источник",
        "author": {"name": "Автор", "city": "Город"}, "accepted": ["Зачёт"],
    }
    assert pack.to_dict()["tours"][0]["questions"][0]["author"]["city"] == "Город"
