"""Inbound OSC: one routing table from address to what it means. Pure — no sockets, no state.

`route(address, args)` returns an Action (what to do), an Ignore (a button's release) or a
Refuse (why not). Buttons: a lone 0 / 0.0 / false is a release; a lone non-zero number or true
is a press, the same as no argument. Other addresses take the command's fields positionally.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..graphics.game import GRAPHICS
from ..rules.commands import VOCABULARY, Field

PREFIX = "/chgk/"
PATTERN_CHARS = frozenset("*?[]{}")


@dataclass(frozen=True)
class Action:
    kind: str  # command | undo | graphics | rundown | ping | subscribe | unsubscribe
    body: dict[str, Any] = field(default_factory=dict)
    debounce: bool = True  # game actions: repeats of the address within the window are ignored


@dataclass(frozen=True)
class Ignore:
    reason: str  # "release" | "repeat"


@dataclass(frozen=True)
class Refuse:
    code: str
    message: str


Outcome = Action | Ignore | Refuse
Handler = Callable[[list[Any]], Outcome]


@dataclass(frozen=True)
class Route:
    handler: Handler
    args: str  # for the docs and the panel: the arguments this address takes
    summary: str
    button: bool = False


def _press(args: list[Any]) -> bool | None:
    """True: a press (no argument, or one non-zero number/true); False: a release; None: neither."""
    if not args:
        return True
    if len(args) == 1 and isinstance(args[0], (bool, int, float)):
        return bool(args[0])
    return None


def _osc_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    return {int: "int", float: "float", str: "string"}.get(type(value), type(value).__name__)


def _field(f: Field, value: Any, address: str) -> Any:
    """One OSC argument as a command field: ints may come as whole floats (TouchOSC sends
    floats), bools as T/F or 0/1; names and texts only as strings."""
    if f.kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif f.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
    elif isinstance(value, str):
        return value
    want = {"int": "an int", "bool": "true/false or 0/1", "str": "a string", "names": "strings"}[f.kind]
    raise _Bad(f"{address}: '{f.name}' must be {want}, got {_osc_type(value)} {value!r}")


class _Bad(Exception):
    pass


def _positional(command: str, args: list[Any], address: str) -> dict[str, Any]:
    fields = VOCABULARY[command]
    body: dict[str, Any] = {"type": command}
    rest = list(args)
    for f in fields:
        if f.kind == "names":  # the rest of the arguments; an optional list may be left out
            if rest or f.required:
                body[f.name] = [_field(f, v, address) for v in rest]
            rest = []
            continue
        if not rest:
            if f.required:
                raise _Bad(f"{address} needs '{f.name}' ({_usage(command)})")
            continue
        body[f.name] = _field(f, rest.pop(0), address)
    if rest:
        raise _Bad(f"{address} takes {_usage(command) or 'no arguments'}; got {len(args)}")
    return body


def _usage(command: str) -> str:
    return " ".join(f"<{f.name}:{f.kind}>" if f.required else f"[{f.name}:{f.kind}]" for f in VOCABULARY[command])


def _guard(make: Callable[[list[Any]], Outcome]) -> Handler:
    def handler(args: list[Any]) -> Outcome:
        try:
            return make(args)
        except _Bad as exc:
            return Refuse("bad_argument", str(exc))
    return handler


def _button(address: str, action: Callable[[], Action], positional: Callable[[list[Any]], Action] | None = None) -> Handler:
    def make(args: list[Any]) -> Outcome:
        press = _press(args)
        if press is False:
            return Ignore("release")
        if press:
            return action()
        if positional is None:
            return Refuse("bad_argument", f"{address} is a button: send no argument, or 1 (press) / 0 (release)")
        return positional(args)
    return _guard(make)


def _command_route(command: str) -> Route:
    address = PREFIX + command
    fields = VOCABULARY[command]
    if command == "spin":  # a lone 1 is a press here, so the sector comes through /chgk/landed
        return Route(_button(address, lambda: Action("command", {"type": "spin"})), "",
                     "spin the top: the server draws the sector (use /chgk/landed for the top's own)", True)
    if all(not f.required for f in fields):
        positional = (lambda a: Action("command", _positional(command, a, address))) if fields else None
        return Route(_button(address, lambda: Action("command", {"type": command}), positional),
                     _usage(command), f"the {command} command", True)
    return Route(_guard(lambda a: Action("command", _positional(command, a, address))), _usage(command),
                 f"the {command} command")


def _landed(args: list[Any]) -> Outcome:
    if _press(args) is False:  # a fader or button back at 0; sectors count from 1
        return Ignore("release")
    if len(args) != 1:
        raise _Bad("/chgk/landed takes one argument: the sector the top stopped at (int)")
    return Action("command", {"type": "spin", "landed": _field(Field("landed", "int"), args[0], "/chgk/landed")})


def _show(name: str) -> Handler:
    address = f"{PREFIX}graphics/{name}/show"

    def positional(args: list[Any]) -> Action:
        if len(args) == 1 and isinstance(args[0], str) and args[0].lstrip().startswith("{"):
            try:
                data = json.loads(args[0])
            except ValueError:
                raise _Bad(f"{address}: the argument is not a JSON object") from None
            if not isinstance(data, dict):
                raise _Bad(f"{address}: the argument is not a JSON object")
            return Action("graphics", {"action": "show", "graphic": name, "data": data})
        data: dict[str, Any] = {}
        texts = [a for a in args if isinstance(a, str)]
        numbers = [a for a in args if not isinstance(a, str)]
        if len(texts) > 2 or len(numbers) > 1 or args[:len(texts)] != texts:
            raise _Bad(f"{address} takes [title:string] [subtitle:string] [duration_ms:int], or one JSON object")
        data.update(zip(("title", "subtitle"), texts))
        if numbers:
            data["duration_ms"] = _field(Field("duration_ms", "int"), numbers[0], address)
        return Action("graphics", {"action": "show", "graphic": name, "data": data})
    return _button(address, lambda: Action("graphics", {"action": "show", "graphic": name, "data": {}}), positional)


def _port(address: str, kind: str) -> Handler:
    def make(args: list[Any]) -> Outcome:
        if not args:
            return Action(kind, {}, debounce=False)
        port = _field(Field("port", "int"), args[0], address) if len(args) == 1 else None
        if port is None or not 0 < port < 65536:
            raise _Bad(f"{address} takes [port:int 1..65535] (default: the port you send from)")
        return Action(kind, {"port": port}, debounce=False)
    return _guard(make)


# rundown: (action, takes an item) — acts on the current rundown (the one last operated)
RUNDOWN_ACTIONS = {"take": True, "continue": True, "out": True, "go": True, "update": True, "cue": True,
                   "focus": True, "next": False, "previous": False, "all_out": False, "take_cued": False,
                   "lock": False, "unlock": False}


def _rundown(action: str, item: bool) -> Handler:
    address = f"{PREFIX}rundown/{action}"

    def positional(args: list[Any]) -> Action:
        if not item or len(args) != 1 or not isinstance(args[0], str) or not args[0]:
            raise _Bad(f"{address} takes {'[item:string] (id or label; default: the focused item)' if item else 'no arguments'}")
        return Action("rundown", {"action": action, "item": args[0]})
    if action == "focus":  # needs its item
        return _guard(lambda args: positional(args))
    return _button(address, lambda: Action("rundown", {"action": action}), positional)


def _table() -> dict[str, Route]:
    table = {PREFIX + c: _command_route(c) for c in VOCABULARY}
    table[PREFIX + "landed"] = Route(_guard(_landed), "<sector:int>",
                                     "spin with the sector where the physical top stopped (0: release)", True)
    table[PREFIX + "correct"] = Route(_button(PREFIX + "correct", lambda: Action("command", {"type": "judge", "correct": True})),
                                      "", "verdict: correct (judge true)", True)
    table[PREFIX + "incorrect"] = Route(_button(PREFIX + "incorrect",
                                                lambda: Action("command", {"type": "judge", "correct": False})),
                                        "", "verdict: incorrect (judge false)", True)
    table[PREFIX + "undo"] = Route(_button(PREFIX + "undo", lambda: Action("undo")), "", "undo the last command", True)
    for name in GRAPHICS:
        table[f"{PREFIX}graphics/{name}/show"] = Route(_show(name), "[title:string] [subtitle:string] [duration_ms:int]",
                                                        f"take the {name} graphic to air", True)
        table[f"{PREFIX}graphics/{name}/hide"] = Route(
            _button(f"{PREFIX}graphics/{name}/hide",
                    lambda name=name: Action("graphics", {"action": "hide", "graphic": name, "data": {}})),
            "", f"take the {name} graphic off air", True)
    for action, item in RUNDOWN_ACTIONS.items():
        table[f"{PREFIX}rundown/{action}"] = Route(
            _rundown(action, item), "<item:string>" if action == "focus" else "[item:string]" if item else "",
            f"rundown: {action.replace('_', ' ')}" + (" (the focused item, or the one named by id or label)" if item else ""),
            action != "focus")
    table[PREFIX + "ping"] = Route(lambda args: Action("ping", {"args": list(args)}, debounce=False), "[any]",
                                   "answers /chgk/pong with the same arguments to the sender")
    table[PREFIX + "subscribe"] = Route(_port(PREFIX + "subscribe", "subscribe"), "[port:int]",
                                        "send /chgk/state/... to the sender's address (at port, or the sending port)")
    table[PREFIX + "unsubscribe"] = Route(_port(PREFIX + "unsubscribe", "unsubscribe"), "[port:int]",
                                          "stop the /chgk/state/... feedback")
    return table


ROUTES: dict[str, Route] = _table()


def route(address: str, args: list[Any]) -> Outcome:
    """What one inbound message means."""
    shown = address if len(address) <= 120 else address[:117] + "..."
    if PATTERN_CHARS & set(address):
        return Refuse("pattern_refused", f"{shown}: address patterns (*?[]{{}}) are not accepted; send the exact address")
    entry = ROUTES.get(address)
    if entry is None:
        return Refuse("unknown_address", f"{shown}: unknown address (the namespace is /chgk/...; see docs/OSC.md)")
    return entry.handler(list(args))
