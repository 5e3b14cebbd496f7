"""The map of rooms in docs/ARCHITECTURE.md is the code's: every import of `overlay/` and `control/`
goes where the map allows, there is no import circle, the rules do no I/O, and the transports reach
the store only through the core. Read from the source (ast), not by importing it."""
from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

from tests.support import ROOT

CODE = ("overlay", "control")
# What the pure rules may use of the standard library: data structures, nothing that reads the
# world (no clock, files, sockets, randomness, threads, processes).
RULES_STDLIB = {"__future__", "collections", "copy", "dataclasses", "enum", "functools", "itertools",
                "math", "operator", "re", "string", "typing", "unicodedata", "bisect"}
# What no module of the core may use: the web framework and the transports' libraries.
CORE_FORBIDS = {"flask", "flask_socketio", "socketio", "engineio", "eventlet", "gevent", "werkzeug",
                "redis", "pythonosc", "requests"}
TRANSPORTS = ("overlay.broadcast", "overlay.osc", "overlay.edge", "overlay.obs")
MAX_LOOSE_MODULES = 6  # __init__, __main__, cli, config, demo, csvsafe


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, Path]:
    return {module_name(p): p for top in CODE for p in sorted((ROOT / top).rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, str]]:
    """(module imported, name taken) for every import anywhere in the file, lazy ones included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub, "") if sub in known else (base, alias.name))
    return found


def room_of(module: str, rooms: list[str]) -> str | None:
    """The longest room of the map that holds `module` (a package prefix or a module itself)."""
    best = None
    for room in rooms:
        if module == room or module.startswith(room + "."):
            best = room if best is None or len(room) > len(best) else best
    return best


def read_map() -> dict[str, set[str]]:
    """room (dotted) → rooms it may import, from the table after the `rooms:` marker."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text.split("<!-- rooms:", 1)[1].split("\n\n", 1)[0]
    allowed: dict[str, set[str]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = [re.sub(r"\.py$", "", n.strip("/")).replace("/", ".") for n in re.findall(r"`([^`]+)`", cells[0])]
        may = cells[2]
        for name in names:
            allowed[name] = {"*"} if may.startswith("every room") else {
                ("overlay." + m if m not in CODE else m) for m in re.split(r",\s*", may) if m and m != "—"}
            if "control" in may and may.startswith("every room"):
                allowed[name].add("control")
    return allowed


def graph() -> dict[str, set[str]]:
    src = sources()
    known = set(src)
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in src.items():
        for module, _ in imports(name, path, known):
            if module.split(".")[0] in CODE and module in known and module != name:
                edges[name].add(module)
    return edges


def test_every_room_of_the_code_is_on_the_map() -> None:
    rooms = read_map()
    assert rooms, "docs/ARCHITECTURE.md lost its map of rooms"
    missing = sorted({n for n in sources() if room_of(n, list(rooms)) is None and n not in CODE})
    assert not missing, f"modules in no room of docs/ARCHITECTURE.md's map: {missing}"


def test_imports_follow_the_map() -> None:
    rooms = read_map()
    names = list(rooms)
    wrong = []
    for module, targets in graph().items():
        here = room_of(module, names)
        if here is None:
            continue
        for target in targets:
            there = room_of(target, names)
            if there is None or there == here or target in CODE:
                continue  # a package's own __init__ (control's blueprint) or within the room
            may = rooms[here]
            if "*" in may and (there.startswith("overlay.") or there == "control"):
                continue
            if there not in may:
                wrong.append(f"{module} imports {target} ({here} may import only {sorted(may) or 'nothing of ours'})")
    assert not wrong, "\n".join(wrong)


def test_no_import_circles() -> None:
    """Tarjan's strongly connected components over every import, lazy ones included."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            # a package importing its own submodules (Flask's blueprint pattern) is not a circle
            if len(part) > 1 and not any(all(m == p or m.startswith(p + ".") for m in part) for p in part):
                circles.append(sorted(part))

    for v in sorted(sources()):
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"


def test_the_rules_do_no_io() -> None:
    src = sources()
    known = set(src)
    wrong = []
    for name, path in src.items():
        if not name.startswith("overlay.rules"):
            continue
        for module, _ in imports(name, path, known):
            top = module.split(".")[0]
            if top in CODE:
                if not module.startswith("overlay.rules"):
                    wrong.append(f"{name} imports {module}")
            elif top not in RULES_STDLIB:
                wrong.append(f"{name} imports {module}")
    assert not wrong, wrong


def test_the_core_knows_no_web_or_transport() -> None:
    src = sources()
    known = set(src)
    wrong = [f"{name} imports {module}" for name, path in src.items() if name.startswith("overlay.core")
             for module, _ in imports(name, path, known) if module.split(".")[0] in CORE_FORBIDS]
    assert not wrong, wrong


def test_transports_reach_the_store_only_through_the_core() -> None:
    """A transport may catch the store's StorageError; it never opens or writes the Store itself."""
    src = sources()
    known = set(src)
    wrong = [f"{name} takes {taken or module} from the store"
             for name, path in src.items() if name.startswith(TRANSPORTS)
             for module, taken in imports(name, path, known)
             if module == "overlay.core.store" and taken != "StorageError"]
    assert not wrong, wrong


def test_overlay_keeps_a_handful_of_loose_modules() -> None:
    loose = sorted(p.name for p in (ROOT / "overlay").glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose
