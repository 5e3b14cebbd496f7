"""Regular expressions from uploaded schemas, run by RE2 — never by Python's `re` (issue 37).

A manifest's data schema (and each custom action's) is someone else's JSON Schema, and its
`pattern` / `patternProperties` are someone else's regular expressions. Python's `re`
backtracks: `"^(a+)+$"` against 28 `a`s and a `b` held the event loop — every client, the clock,
OSC — for 11 s, doubling per character. RE2 (`google-re2`) matches in time linear in the text,
with bounded memory, and has no backreferences or lookarounds, which are what make matching
exponential.

- `check(schema, where)` at upload: every pattern of the schema must compile in RE2, else the
  words of why (`PatternRefused`); nothing of the schema is matched yet.
- `validator(schema)` for item data and action payloads: a Draft 2020-12 validator whose
  `pattern`, `patternProperties`, `additionalProperties` and `unevaluatedProperties` match with
  RE2. `format` is not asserted (no format checker), so `format: regex` runs nothing.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

MAX_PATTERN = 2000  # characters of one pattern
# keywords whose values are instances, not schemas: a "pattern" key inside them is data
_DATA = {"const", "enum", "default", "examples", "gddOptions"}


class PatternRefused(ValueError):
    def __init__(self, pattern: str, why: str) -> None:
        super().__init__(why)
        self.pattern, self.why = pattern, why


@lru_cache(maxsize=512)
def compiled(pattern: str) -> Any:
    """The pattern compiled by RE2 (cached); raises PatternRefused with RE2's reason."""
    import re2
    if len(pattern) > MAX_PATTERN:
        raise PatternRefused(pattern, f"it is longer than {MAX_PATTERN} characters")
    opts = re2.Options()
    opts.log_errors = False  # RE2 would print every refused pattern on stderr
    try:
        return re2.compile(pattern, options=opts)
    except Exception as exc:  # re2.error: bad syntax, or a construct RE2 does not have (\1, (?=…), (?<=…))
        why = exc.args[0] if exc.args else str(exc)
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        raise PatternRefused(pattern, why) from None


def search(pattern: str, text: str) -> bool:
    return compiled(pattern).search(text) is not None


def patterns(schema: Any) -> Iterator[str]:
    """Every regular expression a JSON Schema holds: `pattern` values, `patternProperties` keys."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key in _DATA:
                continue
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key == "patternProperties" and isinstance(value, dict):
                yield from (k for k in value if isinstance(k, str))
                stack.extend(value.values())
            elif key == "properties" and isinstance(value, dict):
                stack.extend(value.values())  # its keys are names, not keywords
            else:
                stack.append(value)


def check(schema: Any) -> None:
    """Raises PatternRefused for the first pattern of `schema` RE2 does not take."""
    for p in patterns(schema):
        compiled(p)


# ---- the validator -------------------------------------------------------------------------


def _pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError
    if validator.is_type(instance, "string") and not _search(patrn, instance):
        yield ValidationError(f"{instance[:100]!r} does not match {str(patrn)[:100]!r}")


def _search(patrn: Any, text: str) -> bool:
    try:
        return search(patrn, text)
    except PatternRefused:  # not checked at upload (an older library): never run it in `re`
        return False


def _pattern_properties(validator: Any, pp: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in pp.items():
        for k, v in instance.items():
            if _search(patrn, k):
                yield from validator.descend(v, subschema, path=k, schema_path=patrn)


def _additional(instance: dict, schema: dict) -> Iterator[str]:
    properties = schema.get("properties", {})
    pp = schema.get("patternProperties", {})
    for prop in instance:
        if prop not in properties and not any(_search(p, prop) for p in pp):
            yield prop


def _additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError
    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        yield ValidationError(f"Additional properties are not allowed ({', '.join(repr(e) for e in sorted(extras))} "
                              f"{'was' if len(extras) == 1 else 'were'} unexpected)")


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


def _evaluated_keys(validator: Any, instance: dict, schema: Any) -> list:
    """jsonschema's find_evaluated_property_keys_by_schema, its patternProperties matched by RE2."""
    if validator.is_type(schema, "boolean"):
        return []
    keys: list = []
    for ref_kw in ("$ref", "$dynamicRef"):
        ref = schema.get(ref_kw)
        if ref is not None:
            resolved = validator._resolver.lookup(ref)
            keys += _evaluated_keys(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                                    instance, resolved.contents)
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys += properties.keys() & instance.keys()
    for kw in ("additionalProperties", "unevaluatedProperties"):
        if (sub := schema.get(kw)) is not None:
            keys += [k for k, v in instance.items() if _valid(validator.descend(v, sub))]
    if "patternProperties" in schema:
        keys += [p for p in instance for patrn in schema["patternProperties"] if _search(patrn, p)]
    for prop, sub in (schema.get("dependentSchemas") or {}).items():
        if prop in instance:
            keys += _evaluated_keys(validator, instance, sub)
    for kw in ("allOf", "oneOf", "anyOf"):
        for sub in schema.get(kw, []):
            if _valid(validator.descend(instance, sub)):
                keys += _evaluated_keys(validator, instance, sub)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys += _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys += _evaluated_keys(validator, instance, schema["else"])
    return keys


def _unevaluated_properties(validator: Any, up: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    bad = [p for p in instance if p not in evaluated
           and not _valid(validator.descend(instance[p], up, path=p, schema_path=p))]
    if bad:
        yield ValidationError(f"Unevaluated properties are not {'allowed' if up is False else 'valid'} "
                              f"({', '.join(repr(b) for b in sorted(bad, key=str))})")


@lru_cache(maxsize=1)
def _cls() -> Any:
    from jsonschema import Draft202012Validator, validators
    return validators.extend(Draft202012Validator, {
        "pattern": _pattern, "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties, "unevaluatedProperties": _unevaluated_properties})


def validator(schema: Any) -> Any:
    """A Draft 2020-12 validator of `schema` whose regular expressions run in RE2 only."""
    return _cls()(schema, format_checker=None)
