"""The command vocabulary of API.md as data: each command's fields and their types."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .names import fold_name


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # "int" | "bool" | "str" | "names"
    required: bool = True


# Fields of every command (API.md, "Commands"); order = positional order for OSC.
VOCABULARY: dict[str, tuple[Field, ...]] = {
    "spin": (Field("landed", "int", required=False),),
    "start_timer": (),
    "pause_timer": (),
    "resume_timer": (),
    "early_answer": (),
    "extra_minute": (),
    "club_help": (),
    "judge": (Field("correct", "bool"),),
    "choose_player": (Field("player", "str"),),
    "request_decisive_round": (),
    "decide_decisive_round": (Field("granted", "bool"), Field("players", "names", required=False)),
    "club_answers": (Field("correct", "names"),),
    "seat_team": (Field("team", "str", required=False),),
    "best_player": (Field("player", "str"),),
}
# Fields a transport may add to any command; not part of the command itself.
ENVELOPE = {"type", "expected_rev", "game"}
MAX_STR = 200


@dataclass(frozen=True)
class Command:
    type: str
    fields: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def _check(f: Field, value: Any) -> Any:
    if f.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError("bad_field", f"'{f.name}' must be a whole number, got {value!r}", field=f.name)
        return value
    if f.kind == "bool":
        if not isinstance(value, bool):
            raise InputError("bad_field", f"'{f.name}' must be true or false, got {value!r}", field=f.name)
        return value
    if f.kind == "str":
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_STR:
            raise InputError("bad_field", f"'{f.name}' must be a non-empty text of at most {MAX_STR} characters",
                             field=f.name)
        return fold_name(value)
    if not isinstance(value, list) or len(value) > 100 or not all(
            isinstance(v, str) and v.strip() and len(v) <= MAX_STR for v in value):
        raise InputError("bad_field", f"'{f.name}' must be a list of names", field=f.name)
    return [fold_name(v) for v in value]


def parse_command(body: Any) -> Command:
    """Check a command body against the vocabulary; raise InputError (HTTP 400) if malformed."""
    if not isinstance(body, dict):
        raise InputError("bad_command", "A command must be a JSON object with a 'type'.")
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in VOCABULARY:
        known = ", ".join(VOCABULARY)
        raise InputError("unknown_command", f"Unknown command {kind!r}. Known commands: {known}.")
    spec = VOCABULARY[kind]
    names = {f.name for f in spec}
    extra = set(body) - names - ENVELOPE
    if extra:
        raise InputError("bad_field", f"'{kind}' has no field {sorted(extra)[0]!r}", field=sorted(extra)[0])
    fields: dict[str, Any] = {}
    for f in spec:
        if body.get(f.name) is None:
            if f.required:
                raise InputError("bad_field", f"'{kind}' needs the field '{f.name}'", field=f.name)
            continue
        fields[f.name] = _check(f, body[f.name])
    return Command(kind, fields)


def parse_expected_rev(body: Any) -> int | None:
    rev = body.get("expected_rev") if isinstance(body, dict) else None
    if rev is None:
        return None
    if isinstance(rev, bool) or not isinstance(rev, int) or rev < 0:
        raise InputError("bad_field", "'expected_rev' must be a whole number ≥ 0", field="expected_rev")
    return rev
