"""Encoding detection and the whole-file checks (size, binary, empty)."""
import codecs

import pytest

from overlay.packs import MAX_PACK_BYTES, PackError, parse_pack


def _without_encoding(pack) -> dict:
    d = pack.to_dict()
    del d["encoding"]
    return d


def test_rusch_reencoded_parses_identically(pack_bytes):
    raw = pack_bytes("rusch16.txt")
    original = parse_pack(raw, "rusch16.txt")
    text = raw.decode("koi8-r")
    variants = {
        "cp1251": text.encode("cp1251"),
        "utf-8": text.encode("utf-8"),
        "utf-8-sig": codecs.BOM_UTF8 + text.encode("utf-8"),
    }
    for encoding, data in variants.items():
        pack = parse_pack(data, "rusch16.txt")
        assert pack.encoding == encoding
        assert _without_encoding(pack) == _without_encoding(original)
    assert original.question_count == 90


def test_crlf_line_endings_change_nothing(pack_bytes):
    raw = pack_bytes("rusch16.txt")
    crlf = raw.replace(b"\n", b"\r\n")
    assert parse_pack(crlf, "rusch16.txt").to_dict() == parse_pack(raw, "rusch16.txt").to_dict()


@pytest.mark.parametrize("encoding", ["cp1251", "koi8-r"])
def test_smalltest_in_legacy_encodings(pack_bytes, encoding):
    raw = pack_bytes("smalltest.4s")
    data = raw.decode("utf-8").encode(encoding)
    pack = parse_pack(data, "smalltest.4s")
    assert pack.encoding == encoding
    assert _without_encoding(pack) == _without_encoding(parse_pack(raw, "smalltest.4s"))


@pytest.mark.parametrize("encoding", ["cp1251", "koi8-r"])
def test_4s_without_marker_words_detected_by_letters(encoding):
    # no «Вопрос»/«Ответ» anywhere: only how Russian the letters look tells the two apart
    text = "? Какой город стоит на Неве и был столицей империи?\n! Санкт-Петербург\n@ Мария Иванова (Казань)\n"
    pack = parse_pack(text.encode(encoding), "x.4s")
    assert pack.encoding == encoding
    q = next(pack.questions())
    assert q.answer == "Санкт-Петербург"
    assert (q.author.name, q.author.city) == ("Мария Иванова", "Казань")


def test_empty_inputs():
    for data in (b"", b"\n\n  \r\n\t"):
        with pytest.raises(PackError) as e:
            parse_pack(data)
        assert e.value.line is None
        assert "empty" in e.value.message


def test_size_limit():
    assert MAX_PACK_BYTES == 5 * 1024 * 1024
    body = "? Вопрос\n! Ответ\n".encode()
    exactly = body + b"\n" * (MAX_PACK_BYTES - len(body))
    assert parse_pack(exactly, "big.4s").question_count == 1
    with pytest.raises(PackError) as e:
        parse_pack(exactly + b"\n", "big.4s")
    assert e.value.line is None
    assert "over the limit" in e.value.message and "5 MiB" in e.value.message


def test_nul_byte_is_binary_with_its_line():
    with pytest.raises(PackError) as e:
        parse_pack("? Вопрос\n! Ответ\nx\x00y\n".encode())
    assert e.value.line == 3
    assert e.value.message.startswith("line 3: binary data")


def test_control_character_is_binary_with_its_line():
    with pytest.raises(PackError) as e:
        parse_pack("Вопрос 1:\nТекст\n\nОтвет:\nда\x07\n".encode("cp1251"))
    assert e.value.line == 5
    assert "control character 0x07" in e.value.message


def test_utf16_is_refused_with_advice():
    with pytest.raises(PackError) as e:
        parse_pack("? Вопрос\n! Ответ\n".encode("utf-16"))
    assert "UTF-16" in e.value.message and "UTF-8" in e.value.message


def test_undecodable_bytes():
    # not UTF-8; CP1251 lacks 0x98; in KOI8-R these are box-drawing characters, not text
    with pytest.raises(PackError) as e:
        parse_pack(bytes(range(0x80, 0xC0)) * 4)
    assert e.value.message == "cannot decode: not UTF-8, CP1251 or KOI8-R text"


def test_bom_with_broken_utf8_names_the_line():
    with pytest.raises(PackError) as e:
        parse_pack(codecs.BOM_UTF8 + "? Вопрос\n! Ответ\n".encode() + b"\xff\xfe oops\n")
    assert e.value.line == 3
    assert "not valid UTF-8" in e.value.message


def test_dos_eof_mark_is_ignored():
    pack = parse_pack("? Вопрос\n! Ответ\n".encode("cp1251") + b"\x1a")
    assert next(pack.questions()).answer == "Ответ"
