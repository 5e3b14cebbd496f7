"""`{score.experts}`-style templates and explicitly typed OSC arguments.

Pure: no sockets. A template is text with `{dotted.name}` placeholders looked up in a nested
dict; `{{` and `}}` are literal braces. Nothing else is evaluated (no attribute access, no
format specs), so a config file can never reach into Python objects.
"""
from __future__ import annotations

import re
from typing import Any

from pythonosc.osc_message_builder import OscMessageBuilder

_TOKEN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

# OSC argument types a mapping may name, and their type tags (bool becomes T or F).
ARG_TYPES = {"int": "i", "float": "f", "double": "d", "string": "s", "bool": "TF"}
PATTERN_CHARS = set("*?[]{}")
INT32 = (-(2**31), 2**31 - 1)


class TemplateError(ValueError):
    """A template or a value that cannot be turned into the OSC argument asked for."""


def placeholders(template: str) -> list[str]:
    """The names a template refers to, in order; raises TemplateError for stray braces."""
    names = []
    for m in _TOKEN.finditer(template):
        token = m.group(0)
        if token in ("{{", "}}"):
            continue
        if m.group(1) is None:
            raise TemplateError(f"stray {token!r} in {template!r} (write {token * 2} for a literal brace)")
        name = m.group(1).strip()
        if not _NAME.fullmatch(name):
            raise TemplateError(f"{{{m.group(1)}}} in {template!r} is not a name like {{score.experts}}")
        names.append(name)
    return names


def lookup(ctx: dict, name: str) -> Any:
    value: Any = ctx
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise TemplateError(f"unknown placeholder {{{name}}}")
        value = value[part]
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render(template: str, ctx: dict) -> str:
    """The template as text, every placeholder replaced."""
    def sub(m: re.Match) -> str:
        token = m.group(0)
        if token in ("{{", "}}"):
            return token[0]
        if m.group(1) is None:
            raise TemplateError(f"stray {token!r} in {template!r}")
        return _text(lookup(ctx, m.group(1).strip()))
    return _TOKEN.sub(sub, template)


def resolve(value: Any, ctx: dict) -> Any:
    """A literal stays itself; a template that is one placeholder keeps the value's own type
    (so `{score.experts}` stays an int); any other template becomes text."""
    if not isinstance(value, str):
        return value
    m = _TOKEN.fullmatch(value)
    if m and m.group(1) is not None:
        return lookup(ctx, m.group(1).strip())
    return render(value, ctx)


def coerce(kind: str, value: Any) -> Any:
    """Convert a resolved value to the OSC type a mapping named; TemplateError if impossible."""
    if kind == "string":
        return _text(value)
    if kind == "bool":
        if value is None:
            return False
        if isinstance(value, (bool, int, float)):
            return bool(value)
        text = str(value).strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off", ""):
            return False
        raise TemplateError(f"{value!r} is not a bool")
    if kind == "int":
        try:
            number = 0 if value is None else int(value) if isinstance(value, (bool, int)) else float(value)
        except (TypeError, ValueError):
            raise TemplateError(f"{value!r} is not a whole number") from None
        if isinstance(number, float):
            if not number.is_integer():
                raise TemplateError(f"{value!r} is not a whole number")
            number = int(number)
        if not INT32[0] <= number <= INT32[1]:
            raise TemplateError(f"{number} does not fit a 32-bit OSC int")
        return number
    if kind in ("float", "double"):
        try:
            return 0.0 if value is None else float(value)
        except (TypeError, ValueError):
            raise TemplateError(f"{value!r} is not a number") from None
    raise TemplateError(f"unknown OSC type {kind!r} (use {', '.join(ARG_TYPES)})")


def check_address(address: str) -> str:
    """An OSC address we may send: starts with '/', no spaces, no pattern characters."""
    if not address.startswith("/") or any(c.isspace() for c in address) or PATTERN_CHARS & set(address):
        raise TemplateError(f"{address!r} is not an OSC address (starts with '/', no spaces, none of *?[]{{}})")
    return address


def build(address: str, typed: list[tuple[str, Any]]) -> bytes:
    """One OSC message with explicit type tags, never python-osc's guesses."""
    builder = OscMessageBuilder(check_address(address))
    for kind, value in typed:
        if kind == "bool":
            builder.add_arg(value, OscMessageBuilder.ARG_TYPE_TRUE if value else OscMessageBuilder.ARG_TYPE_FALSE)
        else:
            builder.add_arg(value, ARG_TYPES[kind])
    try:
        return builder.build().dgram
    except Exception as exc:  # python-osc's BuildError and struct errors alike
        raise TemplateError(f"cannot build {address}: {exc}") from exc
