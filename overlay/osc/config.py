"""`osc.toml`: targets and the mapping of cue events to OSC messages, checked before use.

Pure: text in, `OscConfig` out, or a ConfigError whose message names the exact place
(`cues.spin[1].args[0]: ...`) so an operator can fix it. Presets are TOML files beside this
module (companion, qlab, atemosc) plus the generic namespace, which is made from EVENTS.
"""
from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rules.errors import InputError
from .events import EVENTS, STATE_NAMES
from .template import ARG_TYPES, TemplateError, coerce, placeholders

PRESET_DIR = Path(__file__).parent / "presets"
MAX_DELAY_MS = 600_000
SCALARS = (str, int, float, bool)

EXAMPLE = """\
# chgk-overlay OSC configuration. Docs: docs/OSC.md. Reload: POST /api/osc/reload.
#
# [listen]
# address = "127.0.0.1:9000"          # inbound /chgk/... (the --osc-listen flag wins)
# allow = ["127.0.0.1", "::1"]        # senders allowed to drive the game (addresses or networks)
#
# [targets.companion]
# host = "127.0.0.1"
# port = 12321
# presets = ["companion"]             # generic, companion, qlab, atemosc
# vars = { page = 99 }
#
# [[cues.correct]]
# target = "companion"
# address = "/location/{vars.page}/1/0/press"
# delay_ms = 0
# args = []
"""


class ConfigError(InputError):
    def __init__(self, message: str) -> None:
        super().__init__("bad_osc_config", message)


@dataclass(frozen=True)
class Arg:
    type: str  # a key of ARG_TYPES
    value: Any  # a literal, or a template string


@dataclass(frozen=True)
class Cue:
    event: str
    target: str
    address: str
    args: tuple[Arg, ...] = ()
    delay_ms: int = 0
    when: tuple[tuple[str, Any], ...] = ()
    origin: str = ""

    def matches(self, fields: dict[str, Any]) -> bool:
        return all(fields.get(k) == v for k, v in self.when)


@dataclass(frozen=True)
class Target:
    name: str
    host: str
    port: int
    presets: tuple[str, ...] = ()
    passcode: str = ""  # QLab: `/connect <passcode>` goes first
    vars: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True
    origin: str = "osc.toml"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class OscConfig:
    targets: dict[str, Target] = field(default_factory=dict)
    cues: dict[str, tuple[Cue, ...]] = field(default_factory=dict)  # event → cues, in order
    listen: str | None = None
    allow: tuple[str, ...] | None = None

    def count(self) -> int:
        return sum(len(c) for c in self.cues.values())


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    vars: dict[str, Any]
    cues: tuple[tuple[str, dict], ...]  # (event, raw cue table) in file order


# parsing helpers ---------------------------------------------------------------------------------

def _table(value: Any, where: str, known: set[str]) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table")
    unknown = sorted(set(value) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{where}: expected a whole number from {low} to {high}, got {value!r}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: expected a non-empty text, got {value!r}")
    return value.strip()


def host_port(value: str, where: str) -> tuple[str, int]:
    host, sep, port = str(value).rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ConfigError(f"{where}: expected HOST:PORT, got {value!r}")
    return host, int(port)


def check_allow(entries: Any, where: str) -> tuple[str, ...]:
    if not isinstance(entries, list):
        raise ConfigError(f"{where}: expected a list of addresses or networks")
    for i, entry in enumerate(entries):
        try:
            ipaddress.ip_network(str(entry), strict=False)
        except ValueError:
            raise ConfigError(f"{where}[{i}]: {entry!r} is not an IP address or network (e.g. 192.168.1.0/24)") from None
    return tuple(str(e) for e in entries)


def _arg(raw: Any, where: str, known: set[str]) -> Arg:
    if isinstance(raw, dict):
        if len(raw) != 1 or next(iter(raw)) not in ARG_TYPES:
            raise ConfigError(f"{where}: write one typed value like {{ int = \"{{sector}}\" }} "
                              f"(types: {', '.join(ARG_TYPES)})")
        kind, value = next(iter(raw.items()))
    elif isinstance(raw, bool):
        kind, value = "bool", raw
    elif isinstance(raw, int):
        kind, value = "int", raw
    elif isinstance(raw, float):
        kind, value = "float", raw
    elif isinstance(raw, str):
        kind, value = "string", raw
    else:
        raise ConfigError(f"{where}: an argument is a number, a text, true/false or {{ type = value }}")
    if not isinstance(value, SCALARS):
        raise ConfigError(f"{where}: the value must be a number, a text or true/false")
    try:
        if isinstance(value, str):
            _check_template(value, known, where)
            if not placeholders(value):
                coerce(kind, value)
        else:
            coerce(kind, value)
    except TemplateError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return Arg(kind, value)


def _check_template(template: str, known: set[str], where: str) -> None:
    try:
        names = placeholders(template)
    except TemplateError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for name in names:
        if name not in known:
            raise ConfigError(f"{where}: unknown placeholder {{{name}}}; this cue may use "
                              f"{', '.join('{' + n + '}' for n in sorted(known))}")


def _known(event: str, target: Target) -> set[str]:
    return {n for n, _ in EVENTS[event].fields} | STATE_NAMES | {"event"} | {f"vars.{k}" for k in target.vars}


def _cue(event: str, raw: Any, where: str, targets: dict[str, Target], target: Target | None, origin: str) -> Cue:
    keys = {"address", "args", "delay_ms", "when"} | ({"target"} if target is None else set())
    raw = _table(raw, where, keys)
    if target is None:
        name = raw.get("target")
        if name not in targets:
            raise ConfigError(f"{where}.target: {name!r} is not a target (targets: {', '.join(targets) or 'none'})")
        target = targets[name]
    known = _known(event, target)
    address = _text(raw.get("address"), f"{where}.address")
    if not address.startswith("/"):
        raise ConfigError(f"{where}.address: an OSC address starts with '/', got {address!r}")
    _check_template(address, known, f"{where}.address")
    args = raw.get("args", [])
    if not isinstance(args, list):
        raise ConfigError(f"{where}.args: expected a list")
    when = raw.get("when", {})
    fields = {n for n, _ in EVENTS[event].fields}
    for key, value in _table(when, f"{where}.when", fields).items():
        if not isinstance(value, SCALARS):
            raise ConfigError(f"{where}.when.{key}: expected a number, a text or true/false")
    return Cue(event, target.name, address, tuple(_arg(a, f"{where}.args[{i}]", known) for i, a in enumerate(args)),
               _int(raw.get("delay_ms", 0), f"{where}.delay_ms", 0, MAX_DELAY_MS), tuple(sorted(when.items())), origin)


def _target(name: str, raw: Any, where: str) -> Target:
    raw = _table(raw, where, {"host", "port", "presets", "passcode", "vars", "enabled"})
    presets = raw.get("presets", [])
    if not isinstance(presets, list) or not all(isinstance(p, str) for p in presets):
        raise ConfigError(f"{where}.presets: expected a list of preset names")
    for p in presets:
        if p not in PRESETS:
            raise ConfigError(f"{where}.presets: unknown preset {p!r} (presets: {', '.join(PRESETS)})")
    variables = raw.get("vars", {})
    if not isinstance(variables, dict) or not all(isinstance(v, SCALARS) for v in variables.values()):
        raise ConfigError(f"{where}.vars: expected a table of numbers, texts or true/false")
    passcode = raw.get("passcode", "")
    if not isinstance(passcode, (str, int)) or isinstance(passcode, bool):
        raise ConfigError(f"{where}.passcode: expected a text")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}.enabled: expected true or false")
    merged = {k: v for p in presets for k, v in PRESETS[p].vars.items()} | variables
    host = _text(raw.get("host"), f"{where}.host")
    if any(c.isspace() for c in host):
        raise ConfigError(f"{where}.host: {host!r} is not a host name or address")
    return Target(name, host, _int(raw.get("port"), f"{where}.port", 1, 65535), tuple(presets), str(passcode),
                  merged, enabled, "osc.toml")


def cli_targets(addresses: list[str]) -> list[Target]:
    """`--osc-target HOST:PORT` (and OSC_TARGETS): the generic namespace to each."""
    out = []
    for i, value in enumerate(addresses):
        host, port = host_port(value, f"--osc-target {value}")
        out.append(Target(f"cli-{i + 1}", host, port, ("generic",), origin="--osc-target"))
    return out


def parse_config(text: str, extra_targets: list[Target] = ()) -> OscConfig:  # type: ignore[assignment]
    """Check a whole osc.toml; raise ConfigError with the place and the reason."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"osc.toml is not valid TOML: {exc}") from None
    _table(data, "osc.toml", {"listen", "targets", "cues"})
    listen = _table(data.get("listen", {}), "listen", {"address", "allow"})
    if "address" in listen:
        host_port(listen["address"], "listen.address")
    allow = check_allow(listen["allow"], "listen.allow") if "allow" in listen else None

    targets: dict[str, Target] = {t.name: t for t in extra_targets}
    raw_targets = data.get("targets", {})
    if not isinstance(raw_targets, dict):
        raise ConfigError("targets: expected tables like [targets.companion]")
    for name, raw in raw_targets.items():
        if name in targets:
            raise ConfigError(f"targets.{name}: the name is taken by an --osc-target; choose another")
        targets[name] = _target(name, raw, f"targets.{name}")

    cues: dict[str, list[Cue]] = {}
    raw_cues = data.get("cues", {})
    if not isinstance(raw_cues, dict):
        raise ConfigError("cues: expected [[cues.<event>]] tables")
    for event, entries in raw_cues.items():
        if event not in EVENTS:
            raise ConfigError(f"cues.{event}: unknown event (events: {', '.join(EVENTS)})")
        if not isinstance(entries, list):
            raise ConfigError(f"cues.{event}: write [[cues.{event}]] (a list of messages)")
        for i, raw in enumerate(entries):
            cues.setdefault(event, []).append(_cue(event, raw, f"cues.{event}[{i}]", targets, None, "osc.toml"))
    for target in targets.values():
        for preset in target.presets:
            for i, (event, raw) in enumerate(PRESETS[preset].cues):
                where = f"preset {preset} (target {target.name}) cues.{event}[{i}]"
                cues.setdefault(event, []).append(_cue(event, raw, where, targets, target, f"preset {preset}"))
    return OscConfig(targets, {e: tuple(c) for e, c in cues.items()}, listen.get("address"), allow)


# presets -------------------------------------------------------------------------------------------

def _generic() -> Preset:
    cues: list[tuple[str, dict]] = []
    for spec in EVENTS.values():
        args = [{t: "{" + n + "}"} for n, t in spec.fields]
        cues.append((spec.name, {"address": f"/chgk/event/{spec.name}", "args": args}))
        if spec.name == "score":
            cues.append(("score", {"address": "/chgk/score", "args": args}))
    return Preset("generic", "the generic namespace: /chgk/event/<event> [fields] and /chgk/score <experts> <viewers>",
                  {}, tuple(cues))


def _load_preset(path: Path) -> Preset:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    cues = tuple((event, raw) for event, entries in data.get("cues", {}).items() for raw in entries)
    return Preset(path.stem, data.get("description", ""), dict(data.get("vars", {})), cues)


PRESETS: dict[str, Preset] = {"generic": _generic(),
                              **{p.stem: _load_preset(p) for p in sorted(PRESET_DIR.glob("*.toml"))}}
