"""Every refusal the league can raise, and every action it records, has its own words in every
catalog (issue 25, item 4): found by reading the code, so a new refusal without words fails here
instead of reaching an operator as the generic sentence."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from overlay.i18n import Catalogs, available

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*sorted((ROOT / "overlay/season").glob("*.py")),
           *(ROOT / "overlay/rules" / f for f in ("season.py", "series.py", "standings.py", "errors.py"))]
RAISERS = {"InputError", "RuleError", "NotFound", "rule"}  # check.rule(code, …), the error classes
FIELD = {"bad"}  # check.bad(where, what, rule)


def _strings(node: ast.AST | None) -> list[str]:
    """The constant strings an argument can be (a literal, or either side of `a if c else b`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    return []


def _name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def raised_keys() -> set[str]:
    keys = set()
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node)
            kw = {k.arg: k.value for k in node.keywords}
            if name in RAISERS and node.args:
                for code in set(_strings(node.args[0])) - {"bad_field"}:  # said by its field rule, below
                    variants = _strings(kw.get("variant"))
                    keys |= {f"league.err.{code}.{v}" for v in variants} or {f"league.err.{code}"}
            elif name in FIELD and len(node.args) >= 2:
                rules = _strings(node.args[2]) if len(node.args) > 2 else ["invalid"]
                keys |= {f"league.err.field.{r}" for r in rules}
            elif name == "record" and len(node.args) >= 2:
                keys |= {f"league.log.say.{k}" for k in _strings(node.args[1])}
    return keys


def test_the_scan_finds_the_refusals_and_actions() -> None:
    keys = raised_keys()
    for expected in ("league.err.not_adult", "league.err.already_registered.other", "league.err.field.ids",
                     "league.err.field.sunday", "league.err.season.central_pick.declined",
                     "league.log.say.fee_corrected", "league.log.say.member_created"):
        assert expected in keys
    assert len(keys) > 80


@pytest.mark.parametrize("lang", available())
def test_every_refusal_and_action_has_words(lang: str) -> None:
    books = Catalogs()
    missing = sorted(k for k in raised_keys() if books.languages[lang].messages.get(k) is None)
    assert missing == [], f"{lang}: add these to the catalogs (docs/TRANSLATING.md)"
