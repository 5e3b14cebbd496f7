"""Templates and explicitly typed OSC arguments (overlay/osc/template.py)."""
import pytest
from pythonosc.osc_message import OscMessage

from overlay.osc.template import TemplateError, build, check_address, coerce, placeholders, render, resolve

CTX = {"score": {"experts": 3, "viewers": 5}, "sector": 7, "title": "Игра", "drawn": True, "none": None}


def type_tags(dgram: bytes) -> str:
    """The type tag string as it travels on the wire (python-osc hides it after parsing)."""
    address_end = dgram.index(b"\0")
    start = (address_end + 4) & ~3
    return dgram[start:dgram.index(b"\0", start)].decode()


def test_placeholders_in_order_and_escapes_are_not_placeholders():
    assert placeholders("/loc/{vars.page}/{sector}/{{literal}}") == ["vars.page", "sector"]


@pytest.mark.parametrize("bad", ["/x/{", "/x/}", "{score.}", "{1abc}", "{a b}"])
def test_bad_templates_are_refused(bad):
    with pytest.raises(TemplateError):
        placeholders(bad)


def test_render_replaces_nested_names_and_keeps_literal_braces():
    assert render("{score.experts}:{score.viewers} {{x}} {title}", CTX) == "3:5 {x} Игра"
    assert render("{drawn}/{none}", CTX) == "true/"


def test_render_unknown_name_names_it():
    with pytest.raises(TemplateError, match=r"\{score.nobody\}"):
        render("{score.nobody}", CTX)


def test_resolve_keeps_the_type_of_a_lone_placeholder():
    assert resolve("{score.experts}", CTX) == 3
    assert resolve("{drawn}", CTX) is True
    assert resolve("sector {sector}", CTX) == "sector 7"
    assert resolve(4.5, CTX) == 4.5


def test_templates_cannot_reach_python_attributes():
    with pytest.raises(TemplateError):
        render("{title.__class__}", CTX)


@pytest.mark.parametrize("kind,value,expected", [
    ("int", "12", 12), ("int", 12.0, 12), ("int", True, 1), ("int", None, 0),
    ("float", "0.25", 0.25), ("float", 3, 3.0), ("double", "1e-3", 0.001),
    ("string", 5, "5"), ("string", 2.0, "2"), ("string", False, "false"), ("string", None, ""),
    ("bool", "yes", True), ("bool", 0, False), ("bool", "false", False), ("bool", None, False),
])
def test_coerce(kind, value, expected):
    result = coerce(kind, value)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("kind,value", [("int", "1.5"), ("int", 2.5), ("int", "abc"), ("int", 2**31),
                                        ("float", "x"), ("bool", "maybe"), ("integer", 1)])
def test_coerce_refuses(kind, value):
    with pytest.raises(TemplateError):
        coerce(kind, value)


def test_build_uses_the_named_types_not_guesses():
    dgram = build("/cue/chgk-5/start", [("int", 3), ("float", 2.0), ("double", 0.1), ("string", "Анна"),
                                         ("bool", True), ("bool", False)])
    assert type_tags(dgram) == ",ifdsTF"
    msg = OscMessage(dgram)
    assert msg.address == "/cue/chgk-5/start"
    assert msg.params[:2] == [3, 2.0] and msg.params[3:] == ["Анна", True, False]
    assert msg.params[2] == pytest.approx(0.1, abs=1e-15)  # a real double, not a 32-bit float


def test_build_without_args_has_an_empty_type_tag():
    assert type_tags(build("/atem/transition/cut", [])) == ","


@pytest.mark.parametrize("address", ["no/slash", "/with space", "/star/*", "/brace/{x}", "/q?"])
def test_addresses_we_would_not_send(address):
    with pytest.raises(TemplateError):
        check_address(address)
